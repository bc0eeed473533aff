<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US" sourcelanguage="en_US">
<context>
    <name>ByteUnits</name>
    <message>
        <source>MB</source>
        <translation>MB</translation>
    </message>
    <message>
        <source>kB</source>
        <translation>kB</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>KiB</source>
        <translation>KiB</translation>
    </message>
    <message>
        <source>B</source>
        <translation>B</translation>
    </message>
</context>
<context>
    <name>BytesFigure</name>
    <message>
        <source>Optimizer states K = 12: {v}</source>
        <translation>Optimizer states K = 12: {v}</translation>
    </message>
</context>
<context>
    <name>CommRows</name>
    <message>
        <source>all {n}</source>
        <translation>all {n}</translation>
    </message>
    <message>
        <source>group of {n}</source>
        <translation>group of {n}</translation>
    </message>
    <message>
        <source>{n} replicas</source>
        <translation>{n} replicas</translation>
    </message>
    <message>
        <source>hpZ group of {n}</source>
        <translation>hpZ group of {n}</translation>
    </message>
    <message>
        <source>{op}, {group}: {intra} + {inter}</source>
        <translation>{op}, {group}: {intra} + {inter}</translation>
    </message>
    <message>
        <source>Inside a node per step ({bw} GB/s)</source>
        <translation>Inside a node per step ({bw} GB/s)</translation>
    </message>
    <message>
        <source>Between nodes per step ({bw} GB/s)</source>
        <translation>Between nodes per step ({bw} GB/s)</translation>
    </message>
    <message>
        <source>Communication time, at least</source>
        <translation>Communication time, at least</translation>
    </message>
    <message>
        <source>Collectives: in the node + between</source>
        <translation>Collectives: in the node + between</translation>
    </message>
    <message>
        <source>gradients are reduced on every micro-batch</source>
        <translation>gradients are reduced on every micro-batch</translation>
    </message>
    <message>
        <source>gradients are reduced on the last micro-batch only</source>
        <translation>gradients are reduced on the last micro-batch only</translation>
    </message>
    <message>
        <source>A step here is {k} micro-batches: {reduced}, and parameters resharded between micro-batches (stage 3, and FSDP2&apos;s stage 2) are gathered again for each.</source>
        <translation>A step here is {k} micro-batches: {reduced}, and parameters resharded between micro-batches (stage 3, and FSDP2&apos;s stage 2) are gathered again for each.</translation>
    </message>
    <message>
        <source>shard group of {n}, {r} replicas</source>
        <translation>shard group of {n}, {r} replicas</translation>
    </message>
    <message>
        <source>no shard group</source>
        <translation>no shard group</translation>
    </message>
    <message>
        <source>Communication by link ({layout}; {nodes} × {gpus} GPUs): ring collectives at nominal bandwidths; compute is not modelled and overlap hides part of the time, so these are lower bounds. §7: stage 3 moves {ratio}× stage 2&apos;s traffic here, at least {t3} against {t2} a step.</source>
        <translation>Communication by link ({layout}; {nodes} × {gpus} GPUs): ring collectives at nominal bandwidths; compute is not modelled and overlap hides part of the time, so these are lower bounds. §7: stage 3 moves {ratio}× stage 2&apos;s traffic here, at least {t3} against {t2} a step.</translation>
    </message>
</context>
<context>
    <name>ConfigTable</name>
    <message>
        <source>Largest micro-batch per stage and recompute mode</source>
        <translation>Largest micro-batch per stage and recompute mode</translation>
    </message>
    <message>
        <source>Stage</source>
        <translation>Stage</translation>
    </message>
    <message>
        <source>Recompute</source>
        <translation>Recompute</translation>
    </message>
    <message>
        <source>Largest
micro-batch</source>
        <translation>Largest
micro-batch</translation>
    </message>
    <message>
        <source>Peak there
({unit})</source>
        <translation>Peak there
({unit})</translation>
    </message>
    <message>
        <source>Peak at one more
({unit})</source>
        <translation>Peak at one more
({unit})</translation>
    </message>
    <message>
        <source>Longest sequence
(micro-batch 1)</source>
        <translation>Longest sequence
(micro-batch 1)</translation>
    </message>
    <message>
        <source>Fewest Nd
(micro-batch 1)</source>
        <translation>Fewest Nd
(micro-batch 1)</translation>
    </message>
    <message>
        <source>Communication
per step ({unit})</source>
        <translation>Communication
per step ({unit})</translation>
    </message>
    <message numerus="yes">
        <source>Communication per step
of {k} micro-batches ({unit})</source>
        <translation>
            <numerusform>Communication per step
of {k} micro-batch ({unit})</numerusform>
            <numerusform>Communication per step
of {k} micro-batches ({unit})</numerusform>
        </translation>
    </message>
    <message>
        <source>none</source>
        <translation>none</translation>
    </message>
</context>
<context>
    <name>CoreFormulas</name>
    <message>
        <source>(whole tensors)</source>
        <translation>(whole tensors)</translation>
    </message>
    <message>
        <source>(dim 0 padded)</source>
        <translation>(dim 0 padded)</translation>
    </message>
    <message>
        <source>buckets</source>
        <translation>buckets</translation>
    </message>
</context>
<context>
    <name>CoreNotes</name>
    <message>
        <source>scheme {scheme} is outside the ZeRO paper&apos;s §3.1 accounting</source>
        <translation>scheme {scheme} is outside the ZeRO paper&apos;s §3.1 accounting</translation>
    </message>
    <message>
        <source>the torch profile models AdamW with fp32 states and the plan&apos;s mixed-precision policy; scheme {scheme} does not apply</source>
        <translation>the torch profile models AdamW with fp32 states and the plan&apos;s mixed-precision policy; scheme {scheme} does not apply</translation>
    </message>
    <message>
        <source>raw parameter count: tensor shapes unknown, so sharding is taken as even</source>
        <translation>raw parameter count: tensor shapes unknown, so sharding is taken as even</translation>
    </message>
    <message>
        <source>{knobs}: PyTorch&apos;s engines only; the paper profile keeps its scheme&apos;s dtypes and units</source>
        <translation>{knobs}: PyTorch&apos;s engines only; the paper profile keeps its scheme&apos;s dtypes and units</translation>
    </message>
    <message>
        <source>FSDP2 CPUOffloadPolicy: AdamW steps on the CPU; its time is not modelled</source>
        <translation>FSDP2 CPUOffloadPolicy: AdamW steps on the CPU; its time is not modelled</translation>
    </message>
    <message>
        <source>ZeRO-Offload partitions gradients as ZeRO-2 does: shown at stages 2 and 3</source>
        <translation>ZeRO-Offload partitions gradients as ZeRO-2 does: shown at stages 2 and 3</translation>
    </message>
    <message>
        <source>parameters are offloaded only when they are partitioned: stage 3</source>
        <translation>parameters are offloaded only when they are partitioned: stage 3</translation>
    </message>
    <message>
        <source>FSDP2 has no optimizer-only offload: choose optimizer+params</source>
        <translation>FSDP2 has no optimizer-only offload: choose optimizer+params</translation>
    </message>
    <message>
        <source>FSDP2&apos;s CPUOffloadPolicy offloads to host memory only, not NVMe</source>
        <translation>FSDP2&apos;s CPUOffloadPolicy offloads to host memory only, not NVMe</translation>
    </message>
    <message>
        <source>DDP and ZeroRedundancyOptimizer have no CPU offload; FSDP2 (stages 2-3) has</source>
        <translation>DDP and ZeroRedundancyOptimizer have no CPU offload; FSDP2 (stages 2-3) has</translation>
    </message>
</context>
<context>
    <name>DiskChanges</name>
    <message>
        <source>“{name}” was changed on disk by another program or window since it was opened or saved here.</source>
        <translation>“{name}” was changed on disk by another program or window since it was opened or saved here.</translation>
    </message>
    <message>
        <source>“{name}” was deleted from the disk since it was opened or saved here.</source>
        <translation>“{name}” was deleted from the disk since it was opened or saved here.</translation>
    </message>
    <message>
        <source>“{name}” was created on disk by another program or window since this window last looked.</source>
        <translation>“{name}” was created on disk by another program or window since this window last looked.</translation>
    </message>
    <message>
        <source>“{name}” now leads to another file, {target}, since it was opened or saved here.</source>
        <translation>“{name}” now leads to another file, {target}, since it was opened or saved here.</translation>
    </message>
    <message>
        <source>“{name}” was replaced by a folder since it was opened or saved here.</source>
        <translation>“{name}” was replaced by a folder since it was opened or saved here.</translation>
    </message>
    <message>
        <source>“{name}” was replaced by a named pipe (FIFO) since it was opened or saved here.</source>
        <translation>“{name}” was replaced by a named pipe (FIFO) since it was opened or saved here.</translation>
    </message>
    <message>
        <source>“{name}” was replaced by a device since it was opened or saved here.</source>
        <translation>“{name}” was replaced by a device since it was opened or saved here.</translation>
    </message>
    <message>
        <source>“{name}” was replaced by a socket since it was opened or saved here.</source>
        <translation>“{name}” was replaced by a socket since it was opened or saved here.</translation>
    </message>
    <message>
        <source>“{name}” is no longer a regular file since it was opened or saved here.</source>
        <translation>“{name}” is no longer a regular file since it was opened or saved here.</translation>
    </message>
    <message>
        <source>“{name}” was changed on disk and can no longer be read here.</source>
        <translation>“{name}” was changed on disk and can no longer be read here.</translation>
    </message>
    <message>
        <source>Save this plan there again, or as another file?</source>
        <translation>Save this plan there again, or as another file?</translation>
    </message>
    <message>
        <source>Overwrite those changes with this plan, or save it as another file?</source>
        <translation>Overwrite those changes with this plan, or save it as another file?</translation>
    </message>
    <message>
        <source>Nothing was written there. Save this plan as another file?</source>
        <translation>Nothing was written there. Save this plan as another file?</translation>
    </message>
    <message>
        <source>File changed on disk</source>
        <translation>File changed on disk</translation>
    </message>
    <message>
        <source>Save As…</source>
        <translation>Save As…</translation>
    </message>
    <message>
        <source>Save Again</source>
        <translation>Save Again</translation>
    </message>
    <message>
        <source>Overwrite</source>
        <translation>Overwrite</translation>
    </message>
    <message>
        <source>Other hard links to “{name}” still hold the previous version: the save replaced the file under this name only.</source>
        <translation>Other hard links to “{name}” still hold the previous version: the save replaced the file under this name only.</translation>
    </message>
    <message>
        <source>“{name}” could not keep its owner or group: the saved file now belongs to the account that saved it.</source>
        <translation>“{name}” could not keep its owner or group: the saved file now belongs to the account that saved it.</translation>
    </message>
</context>
<context>
    <name>DpChart</name>
    <message>
        <source>Data-parallel degree Nd (log scale)</source>
        <translation>Data-parallel degree Nd (log scale)</translation>
    </message>
    <message>
        <source>{unit} per rank</source>
        <translation>{unit} per rank</translation>
    </message>
    <message>
        <source>current Nd = {nd}</source>
        <translation>current Nd = {nd}</translation>
    </message>
    <message>
        <source>GPU memory {v}</source>
        <translation>GPU memory {v}</translation>
    </message>
    <message>
        <source>{gpu}, above the chart</source>
        <translation>{gpu}, above the chart</translation>
    </message>
    <message>
        <source>{v} per rank</source>
        <translation>{v} per rank</translation>
    </message>
    <message>
        <source>Computed, {profile}.</source>
        <translation>Computed, {profile}.</translation>
    </message>
</context>
<context>
    <name>DpHybrid</name>
    <message>
        <source>{kind}, N = {n}</source>
        <translation>{kind}, N = {n}</translation>
    </message>
    <message>
        <source>(shard group kept as Nd grows)</source>
        <translation>(shard group kept as Nd grows)</translation>
    </message>
</context>
<context>
    <name>Evidence</name>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CUDA</source>
        <translation>CUDA</translation>
    </message>
    <message>
        <source>simulated · rank 0 of {n}, fake tensors</source>
        <translation>simulated · rank 0 of {n}, fake tensors</translation>
    </message>
    <message>
        <source>measured · {device}, {n} ranks</source>
        <translation>measured · {device}, {n} ranks</translation>
    </message>
</context>
<context>
    <name>FileCommands</name>
    <message>
        <source>Unsaved changes</source>
        <translation>Unsaved changes</translation>
    </message>
    <message>
        <source>The plan “{name}” has unsaved changes. Save them?</source>
        <translation>The plan “{name}” has unsaved changes. Save them?</translation>
    </message>
    <message>
        <source>Invalid fields</source>
        <translation>Invalid fields</translation>
    </message>
    <message>
        <source>Some fields are invalid. Save the last valid plan (what the chart shows)?</source>
        <translation>Some fields are invalid. Save the last valid plan (what the chart shows)?</translation>
    </message>
    <message>
        <source>Opening {path}…</source>
        <translation>Opening {path}…</translation>
    </message>
    <message>
        <source>Cannot open the plan</source>
        <translation>Cannot open the plan</translation>
    </message>
    <message>
        <source>Cannot show plan file {path}: {reason}</source>
        <translation>Cannot show plan file {path}: {reason}</translation>
    </message>
    <message>
        <source>Opened {path}</source>
        <translation>Opened {path}</translation>
    </message>
    <message>
        <source>Cannot save the plan</source>
        <translation>Cannot save the plan</translation>
    </message>
    <message>
        <source>Saved {path}</source>
        <translation>Saved {path}</translation>
    </message>
    <message>
        <source>Save will ask before writing there.</source>
        <translation>Save will ask before writing there.</translation>
    </message>
    <message>
        <source>File changed on disk</source>
        <translation>File changed on disk</translation>
    </message>
    <message>
        <source>“{name}” was changed on disk. Reload it and lose the changes made here?</source>
        <translation>“{name}” was changed on disk. Reload it and lose the changes made here?</translation>
    </message>
    <message>
        <source>Saved</source>
        <translation>Saved</translation>
    </message>
    <message>
        <source>“{name}” was changed on disk. Reload it?</source>
        <translation>“{name}” was changed on disk. Reload it?</translation>
    </message>
    <message>
        <source>Exported {path}</source>
        <translation>Exported {path}</translation>
    </message>
    <message>
        <source>Cannot export the chart</source>
        <translation>Cannot export the chart</translation>
    </message>
    <message>
        <source>Could not write {path}.</source>
        <translation>Could not write {path}.</translation>
    </message>
    <message>
        <source>Table copied as text</source>
        <translation>Table copied as text</translation>
    </message>
</context>
<context>
    <name>Files</name>
    <message>
        <source>ZeroDesk plans (*{suffix})</source>
        <translation>ZeroDesk plans (*{suffix})</translation>
    </message>
    <message>
        <source>Untitled</source>
        <translation>Untitled</translation>
    </message>
    <message>
        <source>Open plan</source>
        <translation>Open plan</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>All files (*)</translation>
    </message>
    <message>
        <source>Save plan as</source>
        <translation>Save plan as</translation>
    </message>
    <message>
        <source>Export chart</source>
        <translation>Export chart</translation>
    </message>
    <message>
        <source>SVG images (*.svg)</source>
        <translation>SVG images (*.svg)</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG images (*.png)</translation>
    </message>
</context>
<context>
    <name>FitTab</name>
    <message>
        <source>{n} field(s) need attention; the view shows the last valid plan.</source>
        <translation>{n} field(s) need attention; the view shows the last valid plan.</translation>
    </message>
    <message>
        <source>stage {stage} fits: peak {peak}, headroom {room}</source>
        <translation>stage {stage} fits: peak {peak}, headroom {room}</translation>
    </message>
    <message>
        <source>nothing fits; the lowest peak, stage {stage}: {peak}, over by {room}</source>
        <translation>nothing fits; the lowest peak, stage {stage}: {peak}, over by {room}</translation>
    </message>
    <message>
        <source>Nd = {dp} · micro-batch {mb}: {what}.</source>
        <translation>Nd = {dp} · micro-batch {mb}: {what}.</translation>
    </message>
    <message>
        <source>Hover a cell for its peaks; click it, or choose it with the arrow keys and Enter, to set the plan there.</source>
        <translation>Hover a cell for its peaks; click it, or choose it with the arrow keys and Enter, to set the plan there.</translation>
    </message>
    <message>
        <source>Fit map: the lowest ZeRO stage that fits, by Nd and micro-batch</source>
        <translation>Fit map: the lowest ZeRO stage that fits, by Nd and micro-batch</translation>
    </message>
    <message>
        <source>Data-parallel degree Nd</source>
        <translation>Data-parallel degree Nd</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>Micro-batch</translation>
    </message>
    <message>
        <source>Export Fit View as PNG…</source>
        <translation>Export Fit View as PNG…</translation>
    </message>
    <message>
        <source>Export Fit View as SVG…</source>
        <translation>Export Fit View as SVG…</translation>
    </message>
    <message>
        <source>What fits on one GPU</source>
        <translation>What fits on one GPU</translation>
    </message>
    <message>
        <source>What fits needs the memory of one GPU: choose a GPU or give its memory.</source>
        <translation>What fits needs the memory of one GPU: choose a GPU or give its memory.</translation>
    </message>
    <message>
        <source>The CUDA allowance leaves nothing of the GPU&apos;s memory: make it smaller than the GPU&apos;s memory.</source>
        <translation>The CUDA allowance leaves nothing of the GPU&apos;s memory: make it smaller than the GPU&apos;s memory.</translation>
    </message>
    <message>
        <source>this plan</source>
        <translation>this plan</translation>
    </message>
    <message>
        <source>Colour: the lowest stage that fits, at the plan&apos;s sequence and recompute.</source>
        <translation>Colour: the lowest stage that fits, at the plan&apos;s sequence and recompute.</translation>
    </message>
</context>
<context>
    <name>FitTexts</name>
    <message>
        <source>without recompute</source>
        <translation>without recompute</translation>
    </message>
    <message>
        <source>with selective recompute</source>
        <translation>with selective recompute</translation>
    </message>
    <message>
        <source>with full recompute</source>
        <translation>with full recompute</translation>
    </message>
    <message>
        <source>none</source>
        <translation>none</translation>
    </message>
    <message>
        <source>selective</source>
        <translation>selective</translation>
    </message>
    <message>
        <source>full</source>
        <translation>full</translation>
    </message>
    <message>
        <source>{first} and {last}</source>
        <translation>{first} and {last}</translation>
    </message>
    <message>
        <source>Stage {stage} {recompute} fits micro-batch {mb} with the least communication per step: {comm}.</source>
        <translation>Stage {stage} {recompute} fits micro-batch {mb} with the least communication per step: {comm}.</translation>
    </message>
    <message>
        <source>Stage {stages} moves as much but peaks higher.</source>
        <translation>Stage {stages} moves as much but peaks higher.</translation>
    </message>
    <message>
        <source>Stages {stages} move as much but peak higher.</source>
        <translation>Stages {stages} move as much but peak higher.</translation>
    </message>
    <message>
        <source>Nothing fits it with less recompute at that communication.</source>
        <translation>Nothing fits it with less recompute at that communication.</translation>
    </message>
    <message>
        <source>Nothing fits micro-batch {wanted} at Nd = {dp}; stage {stage} {recompute} fits the most, {mb}, moving {comm} per step.</source>
        <translation>Nothing fits micro-batch {wanted} at Nd = {dp}; stage {stage} {recompute} fits the most, {mb}, moving {comm} per step.</translation>
    </message>
    <message>
        <source>Nothing fits micro-batch 1 at Nd = {dp}; stage {stage} {recompute} fits from Nd = {min_dp}.</source>
        <translation>Nothing fits micro-batch 1 at Nd = {dp}; stage {stage} {recompute} fits from Nd = {min_dp}.</translation>
    </message>
    <message>
        <source>Nothing fits micro-batch 1 at Nd = {dp}, nor at any Nd searched.</source>
        <translation>Nothing fits micro-batch 1 at Nd = {dp}, nor at any Nd searched.</translation>
    </message>
    <message>
        <source>Recommended: nothing fits.</source>
        <translation>Recommended: nothing fits.</translation>
    </message>
    <message>
        <source>Recommended: stage {stage} {recompute}, micro-batch {mb}.</source>
        <translation>Recommended: stage {stage} {recompute}, micro-batch {mb}.</translation>
    </message>
    <message>
        <source>predicted (closed-form peak), {profile}</source>
        <translation>predicted (closed-form peak), {profile}</translation>
    </message>
    <message>
        <source>What fits on one GPU</source>
        <translation>What fits on one GPU</translation>
    </message>
    <message>
        <source>Sequence {seq} · recompute {recompute} · Nd = {dp} · micro-batch {mb}</source>
        <translation>Sequence {seq} · recompute {recompute} · Nd = {dp} · micro-batch {mb}</translation>
    </message>
    <message>
        <source>Usable: {usable} per GPU ({gpu} less a CUDA allowance of {allowance}); figures in {unit} ({note})</source>
        <translation>Usable: {usable} per GPU ({gpu} less a CUDA allowance of {allowance}); figures in {unit} ({note})</translation>
    </message>
    <message>
        <source>Usable: {usable} per GPU (no CUDA allowance set); figures in {unit} ({note})</source>
        <translation>Usable: {usable} per GPU (no CUDA allowance set); figures in {unit} ({note})</translation>
    </message>
    <message>
        <source>Peaks are predicted full-step peaks without the CUDA allowance, so each compares with the usable memory; fragmentation is not predicted: Simulate or Measure the boundary.</source>
        <translation>Peaks are predicted full-step peaks without the CUDA allowance, so each compares with the usable memory; fragmentation is not predicted: Simulate or Measure the boundary.</translation>
    </message>
    <message>
        <source>Without the architecture (a raw count or a tensor list) activations are unknown: these peaks hold the states and token ids only, so the micro-batch and sequence answers are upper bounds.</source>
        <translation>Without the architecture (a raw count or a tensor list) activations are unknown: these peaks hold the states and token ids only, so the micro-batch and sequence answers are upper bounds.</translation>
    </message>
    <message>
        <source>Offload is shown apart: these peaks keep every state on the GPU.</source>
        <translation>Offload is shown apart: these peaks keep every state on the GPU.</translation>
    </message>
    <message>
        <source>The peak&apos;s moments and its total disagreed on this plan, so every answer was searched with the total alone.</source>
        <translation>The peak&apos;s moments and its total disagreed on this plan, so every answer was searched with the total alone.</translation>
    </message>
    <message>
        <source>Fewest Nd: the powers of two from 1 to {top} were searched.</source>
        <translation>Fewest Nd: the powers of two from 1 to {top} were searched.</translation>
    </message>
    <message>
        <source>Fewest Nd: the divisors of nodes × GPUs per node = {world} were searched (the map shows other Nd too).</source>
        <translation>Fewest Nd: the divisors of nodes × GPUs per node = {world} were searched (the map shows other Nd too).</translation>
    </message>
    <message>
        <source>Nd = {dp} · micro-batch {mb}</source>
        <translation>Nd = {dp} · micro-batch {mb}</translation>
    </message>
    <message>
        <source>no stage fits</source>
        <translation>no stage fits</translation>
    </message>
    <message>
        <source>lowest stage that fits: {stage}</source>
        <translation>lowest stage that fits: {stage}</translation>
    </message>
    <message>
        <source>Predicted peak, {profile}, sequence {seq}, recompute {recompute}:</source>
        <translation>Predicted peak, {profile}, sequence {seq}, recompute {recompute}:</translation>
    </message>
    <message>
        <source>{stage}: {peak}, headroom {room} (fits up to micro-batch {most})</source>
        <translation>{stage}: {peak}, headroom {room} (fits up to micro-batch {most})</translation>
    </message>
    <message>
        <source>{stage}: {peak}, over by {over}</source>
        <translation>{stage}: {peak}, over by {over}</translation>
    </message>
    <message>
        <source>Usable: {usable} per GPU. Click or Enter: set the plan to this Nd and micro-batch.</source>
        <translation>Usable: {usable} per GPU. Click or Enter: set the plan to this Nd and micro-batch.</translation>
    </message>
    <message>
        <source>Cheapest recompute that fits micro-batch {mb} at sequence {seq} (the least forward work rerun):</source>
        <translation>Cheapest recompute that fits micro-batch {mb} at sequence {seq} (the least forward work rerun):</translation>
    </message>
    <message>
        <source>{stage}: nothing fits, not even full recompute on every block</source>
        <translation>{stage}: nothing fits, not even full recompute on every block</translation>
    </message>
    <message>
        <source>{stage}: no recompute needed (predicted peak {peak})</source>
        <translation>{stage}: no recompute needed (predicted peak {peak})</translation>
    </message>
    <message>
        <source>{stage}: {mode} recompute on every block (predicted peak {peak})</source>
        <translation>{stage}: {mode} recompute on every block (predicted peak {peak})</translation>
    </message>
    <message>
        <source>{stage}: {mode} recompute on one block in {k} ({n} of {layers} blocks; predicted peak {peak})</source>
        <translation>{stage}: {mode} recompute on one block in {k} ({n} of {layers} blocks; predicted peak {peak})</translation>
    </message>
    <message>
        <source>nothing fits</source>
        <translation>nothing fits</translation>
    </message>
</context>
<context>
    <name>FormMessages</name>
    <message>
        <source>{name} must be a number of {unit} greater than 0, at most {hi}, such as 2 or 1.5; leave it empty for none.</source>
        <translation>{name} must be a number of {unit} greater than 0, at most {hi}, such as 2 or 1.5; leave it empty for none.</translation>
    </message>
    <message>
        <source>{name} must be a number of {unit} from 0 to {hi}, such as 2 or 1.5; leave it empty for 0.</source>
        <translation>{name} must be a number of {unit} from 0 to {hi}, such as 2 or 1.5; leave it empty for 0.</translation>
    </message>
    <message>
        <source>GPU memory must be a number of {unit} greater than 0, such as 80 or 79.5; leave it empty for no GPU line.</source>
        <translation>GPU memory must be a number of {unit} greater than 0, such as 80 or 79.5; leave it empty for no GPU line.</translation>
    </message>
    <message>
        <source>Parameters P must be a count such as 2e9, 7B, 350M or 1.5T, from 1 to {hi}.</source>
        <translation>Parameters P must be a count such as 2e9, 7B, 350M or 1.5T, from 1 to {hi}.</translation>
    </message>
    <message>
        <source>Nd must divide nodes × GPUs per node ({world}): for example {divisors}.</source>
        <translation>Nd must divide nodes × GPUs per node ({world}): for example {divisors}.</translation>
    </message>
    <message>
        <source>The shard group must divide Nd ({nd}): for example {divisors}.</source>
        <translation>The shard group must divide Nd ({nd}): for example {divisors}.</translation>
    </message>
    <message>
        <source>hpZ is a paper-profile choice: PyTorch&apos;s engines keep no second shard. Choose HSDP, or the paper profile.</source>
        <translation>hpZ is a paper-profile choice: PyTorch&apos;s engines keep no second shard. Choose HSDP, or the paper profile.</translation>
    </message>
    <message>
        <source>Nodes × GPUs per node must be at most {max}.</source>
        <translation>Nodes × GPUs per node must be at most {max}.</translation>
    </message>
    <message>
        <source>Hidden ({hidden}) must be a multiple of heads ({heads}), unless the head dim is given.</source>
        <translation>Hidden ({hidden}) must be a multiple of heads ({heads}), unless the head dim is given.</translation>
    </message>
    <message>
        <source>Heads ({heads}) must be a multiple of KV heads ({kv}).</source>
        <translation>Heads ({heads}) must be a multiple of KV heads ({kv}).</translation>
    </message>
    <message>
        <source>FFN is empty and cannot default yet: give Hidden first, or a whole number.</source>
        <translation>FFN is empty and cannot default yet: give Hidden first, or a whole number.</translation>
    </message>
    <message>
        <source>{name} must be a whole number from {lo} to {hi}.</source>
        <translation>{name} must be a whole number from {lo} to {hi}.</translation>
    </message>
    <message>
        <source>{name} must be a number greater than {lo}, at most {hi}.</source>
        <translation>{name} must be a number greater than {lo}, at most {hi}.</translation>
    </message>
    <message>
        <source>{name} must be a whole number.</source>
        <translation>{name} must be a whole number.</translation>
    </message>
    <message>
        <source>{name} must be a number.</source>
        <translation>{name} must be a number.</translation>
    </message>
    <message>
        <source>{name}: choose one of the listed values.</source>
        <translation>{name}: choose one of the listed values.</translation>
    </message>
</context>
<context>
    <name>GlobalBatchPanel</name>
    <message>
        <source>Global batch: type a whole number of sequences from 1 to {top}.</source>
        <translation>Global batch: type a whole number of sequences from 1 to {top}.</translation>
    </message>
    <message>
        <source>Global batch: {g} is not a multiple of Nd ({dp}); every rank takes the same number of sequences per step.</source>
        <translation>Global batch: {g} is not a multiple of Nd ({dp}); every rank takes the same number of sequences per step.</translation>
    </message>
    <message>
        <source>No micro-batch of it fits, with or without accumulation.</source>
        <translation>No micro-batch of it fits, with or without accumulation.</translation>
    </message>
    <message numerus="yes">
        <source>{k} steps of micro-batch {mb}; communication per step: {comm}</source>
        <translation>
            <numerusform>{k} step of micro-batch {mb}; communication per step: {comm}</numerusform>
            <numerusform>{k} steps of micro-batch {mb}; communication per step: {comm}</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Global batch {g} at Nd = {dp}: {n} sequences per rank per step.</source>
        <translation>
            <numerusform>Global batch {g} at Nd = {dp}: {n} sequence per rank per step.</numerusform>
            <numerusform>Global batch {g} at Nd = {dp}: {n} sequences per rank per step.</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing reaches it: no micro-batch of it fits, with or without accumulation.</source>
        <translation>Nothing reaches it: no micro-batch of it fits, with or without accumulation.</translation>
    </message>
    <message>
        <source>Stage {stage} {recompute} takes it in one step of micro-batch {mb}, without accumulation, moving {comm} per step.</source>
        <translation>Stage {stage} {recompute} takes it in one step of micro-batch {mb}, without accumulation, moving {comm} per step.</translation>
    </message>
    <message>
        <source>gradients reduced on every micro-batch</source>
        <translation>gradients reduced on every micro-batch</translation>
    </message>
    <message>
        <source>gradients reduced on the last micro-batch only</source>
        <translation>gradients reduced on the last micro-batch only</translation>
    </message>
    <message numerus="yes">
        <source>Fewest accumulation steps: stage {stage} {recompute}, {k} steps of micro-batch {mb}, moving {comm} per step ({when}).</source>
        <translation>
            <numerusform>Fewest accumulation steps: stage {stage} {recompute}, {k} step of micro-batch {mb}, moving {comm} per step ({when}).</numerusform>
            <numerusform>Fewest accumulation steps: stage {stage} {recompute}, {k} steps of micro-batch {mb}, moving {comm} per step ({when}).</numerusform>
        </translation>
    </message>
    <message>
        <source>Global batch:</source>
        <translation>Global batch:</translation>
    </message>
    <message>
        <source>sequences per optimizer step</source>
        <translation>sequences per optimizer step</translation>
    </message>
    <message>
        <source>The global batch wanted (sequences per optimizer step, all ranks): the fewest accumulation steps that reach it at the plan&apos;s Nd, per stage and recompute mode</source>
        <translation>The global batch wanted (sequences per optimizer step, all ranks): the fewest accumulation steps that reach it at the plan&apos;s Nd, per stage and recompute mode</translation>
    </message>
    <message>
        <source>Accumulation steps × micro-batch for the global batch, per stage and recompute mode</source>
        <translation>Accumulation steps × micro-batch for the global batch, per stage and recompute mode</translation>
    </message>
</context>
<context>
    <name>GlossaryCard</name>
    <message>
        <source>Filter claims…</source>
        <translation>Filter claims…</translation>
    </message>
    <message>
        <source>Filter glossary claims</source>
        <translation>Filter glossary claims</translation>
    </message>
    <message>
        <source>Glossary card</source>
        <translation>Glossary card</translation>
    </message>
    <message>
        <source>What to check</source>
        <translation>What to check</translation>
    </message>
    <message>
        <source>What to check (checklist)</source>
        <translation>What to check (checklist)</translation>
    </message>
    <message>
        <source>{origin}: {text}</source>
        <translation>{origin}: {text}</translation>
    </message>
    <message>
        <source>Card</source>
        <translation>Card</translation>
    </message>
    <message>
        <source>Card, adapted</source>
        <translation>Card, adapted</translation>
    </message>
    <message>
        <source>ZeRO paper {sections}</source>
        <translation>ZeRO paper {sections}</translation>
    </message>
    <message>
        <source>PyTorch: {apis}</source>
        <translation>PyTorch: {apis}</translation>
    </message>
    <message>
        <source>ZeroDesk&apos;s advice</source>
        <translation>ZeroDesk&apos;s advice</translation>
    </message>
    <message>
        <source>ZeroDesk&apos;s modelling</source>
        <translation>ZeroDesk&apos;s modelling</translation>
    </message>
    <message>
        <source>Boundary</source>
        <translation>Boundary</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>Sources</translation>
    </message>
    <message>
        <source>{shown} of {total}</source>
        <translation>{shown} of {total}</translation>
    </message>
    <message>
        <source>{shown} of {total} claims shown</source>
        <translation>{shown} of {total} claims shown</translation>
    </message>
    <message>
        <source>Also known as</source>
        <translation>Also known as</translation>
    </message>
    <message>
        <source>Definition</source>
        <translation>Definition</translation>
    </message>
    <message>
        <source>Why it matters</source>
        <translation>Why it matters</translation>
    </message>
    <message>
        <source>In use in this plan</source>
        <translation>In use in this plan</translation>
    </message>
    <message>
        <source>What is confirmed</source>
        <translation>What is confirmed</translation>
    </message>
    <message>
        <source>The card&apos;s own claims.</source>
        <translation>The card&apos;s own claims.</translation>
    </message>
    <message>
        <source>Added by ZeroDesk</source>
        <translation>Added by ZeroDesk</translation>
    </message>
    <message>
        <source>From the ZeRO paper, PyTorch&apos;s engines and ZeroDesk&apos;s own accounting, beyond the card; each claim&apos;s tag says which.</source>
        <translation>From the ZeRO paper, PyTorch&apos;s engines and ZeroDesk&apos;s own accounting, beyond the card; each claim&apos;s tag says which.</translation>
    </message>
    <message>
        <source>see the claim</source>
        <translation>see the claim</translation>
    </message>
    <message>
        <source>No claim matches the filter.</source>
        <translation>No claim matches the filter.</translation>
    </message>
    <message>
        <source>Primary sources</source>
        <translation>Primary sources</translation>
    </message>
    <message>
        <source>Related concepts</source>
        <translation>Related concepts</translation>
    </message>
    <message>
        <source>Accounting profile: {name}</source>
        <translation>Accounting profile: {name}</translation>
    </message>
    <message>
        <source>Scheme: {name}</source>
        <translation>Scheme: {name}</translation>
    </message>
    <message>
        <source>Filtered by “{q}”: {n} of {total} claims.</source>
        <translation>Filtered by “{q}”: {n} of {total} claims.</translation>
    </message>
</context>
<context>
    <name>GlossaryDock</name>
    <message>
        <source>Glossary</source>
        <translation>Glossary</translation>
    </message>
</context>
<context>
    <name>Handouts</name>
    <message>
        <source>Export the lesson as PDF</source>
        <translation>Export the lesson as PDF</translation>
    </message>
    <message>
        <source>PDF files (*.pdf)</source>
        <translation>PDF files (*.pdf)</translation>
    </message>
    <message>
        <source>Choose a folder for the PNG slides</source>
        <translation>Choose a folder for the PNG slides</translation>
    </message>
    <message>
        <source>Cannot export the lesson</source>
        <translation>Cannot export the lesson</translation>
    </message>
</context>
<context>
    <name>HfImport</name>
    <message>
        <source>Import &amp;Hugging Face config…</source>
        <translation>Import &amp;Hugging Face config…</translation>
    </message>
    <message>
        <source>Read a model&apos;s config.json (the model is named from the file, its context length kept)</source>
        <translation>Read a model&apos;s config.json (the model is named from the file, its context length kept)</translation>
    </message>
    <message>
        <source>Import Hugging Face config</source>
        <translation>Import Hugging Face config</translation>
    </message>
    <message>
        <source>Model config (config.json *.json);;All files (*)</source>
        <translation>Model config (config.json *.json);;All files (*)</translation>
    </message>
    <message>
        <source>Still reading the previous config…</source>
        <translation>Still reading the previous config…</translation>
    </message>
    <message>
        <source>Reading {path}…</source>
        <translation>Reading {path}…</translation>
    </message>
    <message>
        <source>Imported {name}: {n} parameters, context {seq} tokens</source>
        <translation>Imported {name}: {n} parameters, context {seq} tokens</translation>
    </message>
    <message>
        <source>Cannot import the config</source>
        <translation>Cannot import the config</translation>
    </message>
</context>
<context>
    <name>Interpreter</name>
    <message>
        <source>{path} does not answer as a Python 3 interpreter ({why}).</source>
        <translation>{path} does not answer as a Python 3 interpreter ({why}).</translation>
    </message>
    <message>
        <source>{path} is Python {version}; the worker needs Python {minimum} or newer.</source>
        <translation>{path} is Python {version}; the worker needs Python {minimum} or newer.</translation>
    </message>
    <message>
        <source>{path} lacks {module}, which the worker needs; install it with: {command}</source>
        <translation>{path} lacks {module}, which the worker needs; install it with: {command}</translation>
    </message>
    <message>
        <source>{path} has torch, but importing it fails: {error}</source>
        <translation>{path} has torch, but importing it fails: {error}</translation>
    </message>
    <message>
        <source>{path} cannot run the worker.</source>
        <translation>{path} cannot run the worker.</translation>
    </message>
    <message>
        <source>{path} is not an executable file.</source>
        <translation>{path} is not an executable file.</translation>
    </message>
    <message>
        <source>Cannot start {path}: {reason}.</source>
        <translation>Cannot start {path}: {reason}.</translation>
    </message>
    <message>
        <source>{n} GPU(s) visible</source>
        <translation>{n} GPU(s) visible</translation>
    </message>
    <message>
        <source>no GPU visible: CPU ranks only</source>
        <translation>no GPU visible: CPU ranks only</translation>
    </message>
    <message>
        <source>torch {version}; {where}.</source>
        <translation>torch {version}; {where}.</translation>
    </message>
</context>
<context>
    <name>Labels</name>
    <message>
        <source>paper profile</source>
        <translation>paper profile</translation>
    </message>
    <message>
        <source>torch profile</source>
        <translation>torch profile</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>Parameters</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>Gradients</translation>
    </message>
    <message>
        <source>FP32 gradient accumulator</source>
        <translation>FP32 gradient accumulator</translation>
    </message>
    <message>
        <source>FP32 master weights</source>
        <translation>FP32 master weights</translation>
    </message>
    <message>
        <source>Adam m (momentum)</source>
        <translation>Adam m (momentum)</translation>
    </message>
    <message>
        <source>Adam v (variance)</source>
        <translation>Adam v (variance)</translation>
    </message>
    <message>
        <source>SGD momentum</source>
        <translation>SGD momentum</translation>
    </message>
    <message>
        <source>AdamW state (m, v, step)</source>
        <translation>AdamW state (m, v, step)</translation>
    </message>
    <message>
        <source>DDP gradient buckets</source>
        <translation>DDP gradient buckets</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>Activations</translation>
    </message>
    <message>
        <source>Logits and loss</source>
        <translation>Logits and loss</translation>
    </message>
    <message>
        <source>Gathered 16-bit parameters</source>
        <translation>Gathered 16-bit parameters</translation>
    </message>
    <message>
        <source>All-gather buffer</source>
        <translation>All-gather buffer</translation>
    </message>
    <message>
        <source>Reduce-scatter buffer</source>
        <translation>Reduce-scatter buffer</translation>
    </message>
    <message>
        <source>Unsharded 16-bit gradients</source>
        <translation>Unsharded 16-bit gradients</translation>
    </message>
    <message>
        <source>Gradients kept across micro-batches</source>
        <translation>Gradients kept across micro-batches</translation>
    </message>
    <message>
        <source>Backward temporaries</source>
        <translation>Backward temporaries</translation>
    </message>
    <message>
        <source>Optimizer step temporaries</source>
        <translation>Optimizer step temporaries</translation>
    </message>
    <message>
        <source>Autocast bf16 weight copies</source>
        <translation>Autocast bf16 weight copies</translation>
    </message>
    <message>
        <source>Input tokens and targets</source>
        <translation>Input tokens and targets</translation>
    </message>
    <message>
        <source>CUDA context and allocator (your allowance)</source>
        <translation>CUDA context and allocator (your allowance)</translation>
    </message>
    <message>
        <source>parameter</source>
        <translation>parameter</translation>
    </message>
    <message>
        <source>gradient</source>
        <translation>gradient</translation>
    </message>
    <message>
        <source>optimizer state</source>
        <translation>optimizer state</translation>
    </message>
    <message>
        <source>Stage 0
plain DP</source>
        <translation>Stage 0
plain DP</translation>
    </message>
    <message>
        <source>Stage 1
optimizer sharded</source>
        <translation>Stage 1
optimizer sharded</translation>
    </message>
    <message>
        <source>Stage 2
+ gradients</source>
        <translation>Stage 2
+ gradients</translation>
    </message>
    <message>
        <source>Stage 3
+ parameters</source>
        <translation>Stage 3
+ parameters</translation>
    </message>
    <message>
        <source>Stage {n}</source>
        <translation>Stage {n}</translation>
    </message>
    <message>
        <source>gated (SwiGLU)</source>
        <translation>gated (SwiGLU)</translation>
    </message>
    <message>
        <source>plain (GELU)</source>
        <translation>plain (GELU)</translation>
    </message>
    <message>
        <source>RMSNorm</source>
        <translation>RMSNorm</translation>
    </message>
    <message>
        <source>LayerNorm</source>
        <translation>LayerNorm</translation>
    </message>
    <message>
        <source>rotary (RoPE)</source>
        <translation>rotary (RoPE)</translation>
    </message>
    <message>
        <source>learned table</source>
        <translation>learned table</translation>
    </message>
    <message>
        <source>none</source>
        <translation>none</translation>
    </message>
    <message>
        <source>q, k, v only</source>
        <translation>q, k, v only</translation>
    </message>
    <message>
        <source>all layers</source>
        <translation>all layers</translation>
    </message>
    <message>
        <source>attention only (q, k, v, o)</source>
        <translation>attention only (q, k, v, o)</translation>
    </message>
    <message>
        <source>MLP only</source>
        <translation>MLP only</translation>
    </message>
    <message>
        <source>LayerNorm without parameters</source>
        <translation>LayerNorm without parameters</translation>
    </message>
    <message>
        <source>ALiBi (no table)</source>
        <translation>ALiBi (no table)</translation>
    </message>
</context>
<context>
    <name>Lesson</name>
    <message>
        <source>The plan in the window: {name}, Nd = {nd}</source>
        <translation>The plan in the window: {name}, Nd = {nd}</translation>
    </message>
    <message>
        <source>&amp;Lesson: ZeRO Stage by Stage</source>
        <translation>&amp;Lesson: ZeRO Stage by Stage</translation>
    </message>
    <message>
        <source>Walk a class from stage 0 to stage 3 (presenter mode: F11)</source>
        <translation>Walk a class from stage 0 to stage 3 (presenter mode: F11)</translation>
    </message>
    <message>
        <source>Parameters (FP16)</source>
        <translation>Parameters (FP16)</translation>
    </message>
    <message>
        <source>Gradients (FP16)</source>
        <translation>Gradients (FP16)</translation>
    </message>
    <message>
        <source>Optimizer states (K = 12)</source>
        <translation>Optimizer states (K = 12)</translation>
    </message>
    <message>
        <source>Optimizer-state bytes per parameter K</source>
        <translation>Optimizer-state bytes per parameter K</translation>
    </message>
    <message>
        <source>Model states per rank, stage {n}</source>
        <translation>Model states per rank, stage {n}</translation>
    </message>
    <message>
        <source>{what} per rank, stage {n}</source>
        <translation>{what} per rank, stage {n}</translation>
    </message>
    <message>
        <source>Communication per rank per step, stage {n}</source>
        <translation>Communication per rank per step, stage {n}</translation>
    </message>
    <message>
        <source>Stage 3 communication over stages 0–2</source>
        <translation>Stage 3 communication over stages 0–2</translation>
    </message>
    <message>
        <source>Communication time per step at least, stage {n}</source>
        <translation>Communication time per step at least, stage {n}</translation>
    </message>
    <message>
        <source>Stage 0 states over stage 3 states</source>
        <translation>Stage 0 states over stage 3 states</translation>
    </message>
    <message>
        <source>Activations saved by the blocks (estimate)</source>
        <translation>Activations saved by the blocks (estimate)</translation>
    </message>
    <message>
        <source>Logits kept for the loss (estimate)</source>
        <translation>Logits kept for the loss (estimate)</translation>
    </message>
    <message>
        <source>Predicted peak of a full step, stage {n}</source>
        <translation>Predicted peak of a full step, stage {n}</translation>
    </message>
    <message>
        <source>Parameters P</source>
        <translation>Parameters P</translation>
    </message>
    <message>
        <source>Data-parallel ranks Nd</source>
        <translation>Data-parallel ranks Nd</translation>
    </message>
    <message>
        <source>computed, ZeRO paper profile (§3.1, §5)</source>
        <translation>computed, ZeRO paper profile (§3.1, §5)</translation>
    </message>
    <message>
        <source>estimated from the model&apos;s shapes (not a measurement)</source>
        <translation>estimated from the model&apos;s shapes (not a measurement)</translation>
    </message>
    <message>
        <source>predicted from the model&apos;s shapes, as on the Plan chart (not a measurement)</source>
        <translation>predicted from the model&apos;s shapes, as on the Plan chart (not a measurement)</translation>
    </message>
    <message>
        <source>{elements} × {size} B</source>
        <translation>{elements} × {size} B</translation>
    </message>
    <message>
        <source>L × tokens × (what one block saves) + the final norm</source>
        <translation>L × tokens × (what one block saves) + the final norm</translation>
    </message>
    <message>
        <source>tokens × vocab × 10 B (BF16 logits, FP32 copy, log-softmax)</source>
        <translation>tokens × vocab × 10 B (BF16 logits, FP32 copy, log-softmax)</translation>
    </message>
    <message>
        <source>{states} + activations + buffers</source>
        <translation>{states} + activations + buffers</translation>
    </message>
    <message>
        <source>max(in-node bytes / {intra} GB/s, between-node bytes / {inter} GB/s)</source>
        <translation>max(in-node bytes / {intra} GB/s, between-node bytes / {inter} GB/s)</translation>
    </message>
    <message>
        <source>a lower bound: compute is not modelled, overlap hides part</source>
        <translation>a lower bound: compute is not modelled, overlap hides part</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>tokens</translation>
    </message>
    <message>
        <source>vocab</source>
        <translation>vocab</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>Parameters</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>Gradients</translation>
    </message>
    <message>
        <source>Optimizer states</source>
        <translation>Optimizer states</translation>
    </message>
</context>
<context>
    <name>LessonControls</name>
    <message>
        <source>Model:</source>
        <translation>Model:</translation>
    </message>
    <message>
        <source>Nd:</source>
        <translation>Nd:</translation>
    </message>
    <message>
        <source>Data-parallel ranks Nd: every figure follows</source>
        <translation>Data-parallel ranks Nd: every figure follows</translation>
    </message>
    <message>
        <source>The model of the lesson: every figure follows</source>
        <translation>The model of the lesson: every figure follows</translation>
    </message>
    <message>
        <source>Language of the lesson and the window</source>
        <translation>Language of the lesson and the window</translation>
    </message>
    <message>
        <source>Presenter (F11)</source>
        <translation>Presenter (F11)</translation>
    </message>
    <message>
        <source>Full screen, large type, high contrast; Esc leaves</source>
        <translation>Full screen, large type, high contrast; Esc leaves</translation>
    </message>
    <message>
        <source>Handout PDF…</source>
        <translation>Handout PDF…</translation>
    </message>
    <message>
        <source>Export the lesson as a PDF, one step a page</source>
        <translation>Export the lesson as a PDF, one step a page</translation>
    </message>
    <message>
        <source>PNG Slides…</source>
        <translation>PNG Slides…</translation>
    </message>
    <message>
        <source>Export every step as a PNG slide</source>
        <translation>Export every step as a PNG slide</translation>
    </message>
</context>
<context>
    <name>LessonNav</name>
    <message>
        <source>◀ Previous</source>
        <translation>◀ Previous</translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation>Next ▶</translation>
    </message>
    <message>
        <source>Previous step (Page Up, ←)</source>
        <translation>Previous step (Page Up, ←)</translation>
    </message>
    <message>
        <source>Next step (Page Down, →, Space)</source>
        <translation>Next step (Page Down, →, Space)</translation>
    </message>
</context>
<context>
    <name>LessonWindow</name>
    <message>
        <source>ZeroDesk lesson: {title}</source>
        <translation>ZeroDesk lesson: {title}</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Cannot open the plan</source>
        <translation>Cannot open the plan</translation>
    </message>
    <message>
        <source>Model and cluster</source>
        <translation>Model and cluster</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>Plan</translation>
    </message>
    <message>
        <source>Table</source>
        <translation>Table</translation>
    </message>
    <message>
        <source>Measure</source>
        <translation>Measure</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>Fit</translation>
    </message>
    <message>
        <source>Views</source>
        <translation>Views</translation>
    </message>
    <message>
        <source>Cannot compute this plan: {error}</source>
        <translation>Cannot compute this plan: {error}</translation>
    </message>
    <message>
        <source>Exported {path}</source>
        <translation>Exported {path}</translation>
    </message>
    <message>
        <source>Cannot export the chart</source>
        <translation>Cannot export the chart</translation>
    </message>
    <message>
        <source>Could not write {path}.</source>
        <translation>Could not write {path}.</translation>
    </message>
    <message>
        <source>{n} field(s) need attention; the chart shows the last valid plan.</source>
        <translation>{n} field(s) need attention; the chart shows the last valid plan.</translation>
    </message>
    <message>
        <source>Computed: model states per rank; not the peak (ZeRO §3.2).</source>
        <translation>Computed: model states per rank; not the peak (ZeRO §3.2).</translation>
    </message>
    <message>
        <source>Glossary: {claim}</source>
        <translation>Glossary: {claim}</translation>
    </message>
</context>
<context>
    <name>MeasureControls</name>
    <message>
        <source>auto</source>
        <translation>auto</translation>
    </message>
    <message>
        <source>layers ×</source>
        <translation>layers ×</translation>
    </message>
    <message>
        <source>hidden ×</source>
        <translation>hidden ×</translation>
    </message>
    <message>
        <source>sequence ×</source>
        <translation>sequence ×</translation>
    </message>
    <message>
        <source>vocabulary ×</source>
        <translation>vocabulary ×</translation>
    </message>
    <message>
        <source>Fraction of the transformer blocks to build (0 &lt; f ≤ 1)</source>
        <translation>Fraction of the transformer blocks to build (0 &lt; f ≤ 1)</translation>
    </message>
    <message>
        <source>Fraction of the head width, hence hidden and FFN (heads keep their count)</source>
        <translation>Fraction of the head width, hence hidden and FFN (heads keep their count)</translation>
    </message>
    <message>
        <source>Fraction of the sequence length</source>
        <translation>Fraction of the sequence length</translation>
    </message>
    <message>
        <source>Fraction of the vocabulary</source>
        <translation>Fraction of the vocabulary</translation>
    </message>
    <message>
        <source>&amp;Device:</source>
        <translation>&amp;Device:</translation>
    </message>
    <message>
        <source>CUDA ranks use NCCL, one GPU each; CPU ranks use gloo on this machine</source>
        <translation>CUDA ranks use NCCL, one GPU each; CPU ranks use gloo on this machine</translation>
    </message>
    <message>
        <source>&amp;Ranks:</source>
        <translation>&amp;Ranks:</translation>
    </message>
    <message>
        <source>Local ranks to start; predictions use this Nd (default: the plan&apos;s Nd, at most 2)</source>
        <translation>Local ranks to start; predictions use this Nd (default: the plan&apos;s Nd, at most 2)</translation>
    </message>
    <message>
        <source>Stages:</source>
        <translation>Stages:</translation>
    </message>
    <message>
        <source>Stage {n}</source>
        <translation>Stage {n}</translation>
    </message>
    <message>
        <source>Scale down:</source>
        <translation>Scale down:</translation>
    </message>
    <message>
        <source>Full size</source>
        <translation>Full size</translation>
    </message>
    <message>
        <source>Set every scale back to 1 (the model as planned)</source>
        <translation>Set every scale back to 1 (the model as planned)</translation>
    </message>
    <message>
        <source>&amp;Python with torch:</source>
        <translation>&amp;Python with torch:</translation>
    </message>
    <message>
        <source>path to a Python interpreter that can import torch</source>
        <translation>path to a Python interpreter that can import torch</translation>
    </message>
    <message>
        <source>Python interpreter that runs the ranks</source>
        <translation>Python interpreter that runs the ranks</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Browse…</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>Check</translation>
    </message>
    <message>
        <source>Ask this interpreter for its torch version and whether it sees a GPU</source>
        <translation>Ask this interpreter for its torch version and whether it sees a GPU</translation>
    </message>
    <message>
        <source>&amp;Give up after:</source>
        <translation>&amp;Give up after:</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>Stop the run if it has not finished by then (a hung rank cannot stall it)</source>
        <translation>Stop the run if it has not finished by then (a hung rank cannot stall it)</translation>
    </message>
    <message>
        <source>a watchdog: a hung rank cannot stall the run</source>
        <translation>a watchdog: a hung rank cannot stall the run</translation>
    </message>
    <message>
        <source>ZeroDesk itself does not load torch: the ranks run in this interpreter.</source>
        <translation>ZeroDesk itself does not load torch: the ranks run in this interpreter.</translation>
    </message>
    <message>
        <source>The running interpreter (ZeroDesk&apos;s own); a frozen bundle needs another Python that has torch.</source>
        <translation>The running interpreter (ZeroDesk&apos;s own); a frozen bundle needs another Python that has torch.</translation>
    </message>
    <message>
        <source>The ranks run in this interpreter; it needs torch (press Check to see its version).</source>
        <translation>The ranks run in this interpreter; it needs torch (press Check to see its version).</translation>
    </message>
    <message>
        <source>Python interpreter that has torch</source>
        <translation>Python interpreter that has torch</translation>
    </message>
    <message>
        <source>Checking {path}…</source>
        <translation>Checking {path}…</translation>
    </message>
    <message>
        <source>ZeroDesk&apos;s own Python has no torch: install it with {python} -m pip install torch transformers (on Linux add --index-url {cpu_index} for the CPU build), or choose another Python that has torch.</source>
        <translation>ZeroDesk&apos;s own Python has no torch: install it with {python} -m pip install torch transformers (on Linux add --index-url {cpu_index} for the CPU build), or choose another Python that has torch.</translation>
    </message>
</context>
<context>
    <name>MeasureTab</name>
    <message>
        <source>Live memory timeline</source>
        <translation>Live memory timeline</translation>
    </message>
    <message>
        <source>The command, the ranks&apos; messages (stderr) and errors appear here.</source>
        <translation>The command, the ranks&apos; messages (stderr) and errors appear here.</translation>
    </message>
    <message>
        <source>Measure</source>
        <translation>Measure</translation>
    </message>
    <message>
        <source>Tiers side by side</source>
        <translation>Tiers side by side</translation>
    </message>
    <message>
        <source>Ranks of the last run</source>
        <translation>Ranks of the last run</translation>
    </message>
    <message>
        <source>Peak by module</source>
        <translation>Peak by module</translation>
    </message>
    <message>
        <source>Computed, simulated and measured figures per stage</source>
        <translation>Computed, simulated and measured figures per stage</translation>
    </message>
    <message>
        <source>Results of the last run per rank</source>
        <translation>Results of the last run per rank</translation>
    </message>
    <message>
        <source>Run log</source>
        <translation>Run log</translation>
    </message>
    <message>
        <source>There is no valid plan yet.</source>
        <translation>There is no valid plan yet.</translation>
    </message>
    <message>
        <source>Simulating needs the model&apos;s architecture (layers, hidden, heads, FFN, vocabulary), not only a parameter count: pick a model preset or enter the architecture in the form.</source>
        <translation>Simulating needs the model&apos;s architecture (layers, hidden, heads, FFN, vocabulary), not only a parameter count: pick a model preset or enter the architecture in the form.</translation>
    </message>
    <message>
        <source>Measuring needs the model&apos;s architecture (layers, hidden, heads, FFN, vocabulary), not only a parameter count: pick a model preset or enter the architecture in the form.</source>
        <translation>Measuring needs the model&apos;s architecture (layers, hidden, heads, FFN, vocabulary), not only a parameter count: pick a model preset or enter the architecture in the form.</translation>
    </message>
    <message>
        <source>This scale-down does not give a valid model; change the fractions.</source>
        <translation>This scale-down does not give a valid model; change the fractions.</translation>
    </message>
    <message>
        <source>The sequence ({seq}) is longer than the learned position table ({n}); shorten it in the form.</source>
        <translation>The sequence ({seq}) is longer than the learned position table ({n}); shorten it in the form.</translation>
    </message>
    <message>
        <source>Choose at least one stage to measure.</source>
        <translation>Choose at least one stage to measure.</translation>
    </message>
    <message numerus="yes">
        <source>The model states of {n} CPU ranks need about {need}, more than this machine can spare ({free} free): scale the model down (layers ×, hidden ×), use fewer ranks, or Simulate.</source>
        <translation>
            <numerusform>The model states of {n} CPU rank need about {need}, more than this machine can spare ({free} free): scale the model down (layers ×, hidden ×), or Simulate.</numerusform>
            <numerusform>The model states of {n} CPU ranks need about {need}, more than this machine can spare ({free} free): scale the model down (layers ×, hidden ×), use fewer ranks, or Simulate.</numerusform>
        </translation>
    </message>
    <message>
        <source>Choose the Python interpreter that has torch (this bundle cannot run the ranks itself).</source>
        <translation>Choose the Python interpreter that has torch (this bundle cannot run the ranks itself).</translation>
    </message>
    <message>
        <source>Run: {command}</source>
        <translation>Run: {command}</translation>
    </message>
</context>
<context>
    <name>ModuleBreakdown</name>
    <message>
        <source>embedding</source>
        <translation>embedding</translation>
    </message>
    <message>
        <source>attention</source>
        <translation>attention</translation>
    </message>
    <message>
        <source>MLP</source>
        <translation>MLP</translation>
    </message>
    <message>
        <source>block (norms, residual adds)</source>
        <translation>block (norms, residual adds)</translation>
    </message>
    <message>
        <source>head</source>
        <translation>head</translation>
    </message>
    <message>
        <source>rest of the model</source>
        <translation>rest of the model</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>loss</translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation>optimizer step</translation>
    </message>
    <message>
        <source>DDP gradient buckets</source>
        <translation>DDP gradient buckets</translation>
    </message>
    <message>
        <source>other</source>
        <translation>other</translation>
    </message>
    <message>
        <source>(rest of the model)</source>
        <translation>(rest of the model)</translation>
    </message>
    <message>
        <source>Simulate or measure to see where the peak&apos;s memory is, module by module; hover a stage on the Plan chart to show its parts.</source>
        <translation>Simulate or measure to see where the peak&apos;s memory is, module by module; hover a stage on the Plan chart to show its parts.</translation>
    </message>
    <message>
        <source>simulated</source>
        <translation>simulated</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>measured</translation>
    </message>
    <message>
        <source>{stage}, {tier} peak {peak}: its &lt;a href=&quot;{claim}&quot;&gt;largest parts by module&lt;/a&gt; (terms: {links})</source>
        <translation>{stage}, {tier} peak {peak}: its &lt;a href=&quot;{claim}&quot;&gt;largest parts by module&lt;/a&gt; (terms: {links})</translation>
    </message>
    <message>
        <source>Part</source>
        <translation>Part</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Kind</translation>
    </message>
    <message>
        <source>FSDP2 unit</source>
        <translation>FSDP2 unit</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>Total</translation>
    </message>
    <message>
        <source>(root)</source>
        <translation>(root)</translation>
    </message>
</context>
<context>
    <name>OffloadChart</name>
    <message>
        <source>host RAM per node {size}</source>
        <translation>host RAM per node {size}</translation>
    </message>
    <message>
        <source>GPU memory {size}</source>
        <translation>GPU memory {size}</translation>
    </message>
    <message>
        <source>memory, {unit}</source>
        <translation>memory, {unit}</translation>
    </message>
    <message>
        <source>ZeRO stage</source>
        <translation>ZeRO stage</translation>
    </message>
    <message>
        <source>NVMe</source>
        <translation>NVMe</translation>
    </message>
    <message>
        <source>host memory</source>
        <translation>host memory</translation>
    </message>
    <message>
        <source>optimizer states and gradients</source>
        <translation>optimizer states and gradients</translation>
    </message>
    <message>
        <source>optimizer states, gradients and parameters</source>
        <translation>optimizer states, gradients and parameters</translation>
    </message>
    <message>
        <source>ZeRO-Offload / ZeRO-Infinity bookkeeping</source>
        <translation>ZeRO-Offload / ZeRO-Infinity bookkeeping</translation>
    </message>
    <message>
        <source>PyTorch FSDP2 with CPUOffloadPolicy</source>
        <translation>PyTorch FSDP2 with CPUOffloadPolicy</translation>
    </message>
    <message>
        <source>GPU, per rank, at rest</source>
        <translation>GPU, per rank, at rest</translation>
    </message>
    <message>
        <source>GPU working set</source>
        <translation>GPU working set</translation>
    </message>
    <message>
        <source>GPU working set: unknown (needs the architecture)</source>
        <translation>GPU working set: unknown (needs the architecture)</translation>
    </message>
    <message>
        <source>{where}, per node</source>
        <translation>{where}, per node</translation>
    </message>
    <message>
        <source>Offload: {choice} to {where}</source>
        <translation>Offload: {choice} to {where}</translation>
    </message>
    <message>
        <source>computed, apart from the stages; {source}</source>
        <translation>computed, apart from the stages; {source}</translation>
    </message>
    <message>
        <source>traffic {bytes} per step, {ms} ms at {bw} GB/s</source>
        <translation>traffic {bytes} per step, {ms} ms at {bw} GB/s</translation>
    </message>
    <message>
        <source>give the GPU and host memory to compare</source>
        <translation>give the GPU and host memory to compare</translation>
    </message>
    <message>
        <source>GPU memory</source>
        <translation>GPU memory</translation>
    </message>
    <message>
        <source>host memory per node</source>
        <translation>host memory per node</translation>
    </message>
    <message>
        <source>{pct}% of {total}</source>
        <translation>{pct}% of {total}</translation>
    </message>
    <message>
        <source>{name} runs out first ({share})</source>
        <translation>{name} runs out first ({share})</translation>
    </message>
    <message>
        <source>fits; tightest: {name} ({share}), states only</source>
        <translation>fits; tightest: {name} ({share}), states only</translation>
    </message>
    <message>
        <source>Stage {n}: {verdict}; {traffic}</source>
        <translation>Stage {n}: {verdict}; {traffic}</translation>
    </message>
    <message>
        <source>Stage {stages}: {reason}</source>
        <translation>Stage {stages}: {reason}</translation>
    </message>
</context>
<context>
    <name>Options</name>
    <message>
        <source>Mixed-precision Adam (paper §3.1, 16 B/param)</source>
        <translation>Mixed-precision Adam (paper §3.1, 16 B/param)</translation>
    </message>
    <message>
        <source>FP32 Adam (16 B/param)</source>
        <translation>FP32 Adam (16 B/param)</translation>
    </message>
    <message>
        <source>BF16 + FP32 grad accumulation, Adam (18 B/param)</source>
        <translation>BF16 + FP32 grad accumulation, Adam (18 B/param)</translation>
    </message>
    <message>
        <source>Mixed-precision SGD with momentum (12 B/param)</source>
        <translation>Mixed-precision SGD with momentum (12 B/param)</translation>
    </message>
    <message>
        <source>Mixed-precision 8-bit Adam (10 B/param)</source>
        <translation>Mixed-precision 8-bit Adam (10 B/param)</translation>
    </message>
    <message>
        <source>ZeRO paper (§3.1, §5)</source>
        <translation>ZeRO paper (§3.1, §5)</translation>
    </message>
    <message>
        <source>PyTorch engines (DDP, ZeroRedundancyOptimizer, FSDP2)</source>
        <translation>PyTorch engines (DDP, ZeroRedundancyOptimizer, FSDP2)</translation>
    </message>
    <message>
        <source>none</source>
        <translation>none</translation>
    </message>
    <message>
        <source>selective (attention)</source>
        <translation>selective (attention)</translation>
    </message>
    <message>
        <source>full (whole block)</source>
        <translation>full (whole block)</translation>
    </message>
    <message>
        <source>foreach (CUDA default)</source>
        <translation>foreach (CUDA default)</translation>
    </message>
    <message>
        <source>fused</source>
        <translation>fused</translation>
    </message>
    <message>
        <source>for-loop</source>
        <translation>for-loop</translation>
    </message>
    <message>
        <source>dim 0 (FSDP2&apos;s default)</source>
        <translation>dim 0 (FSDP2&apos;s default)</translation>
    </message>
    <message>
        <source>auto (experts on their largest dimension)</source>
        <translation>auto (experts on their largest dimension)</translation>
    </message>
    <message>
        <source>the plan&apos;s device</source>
        <translation>the plan&apos;s device</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CUDA</source>
        <translation>CUDA</translation>
    </message>
    <message>
        <source>optimizer states + gradients</source>
        <translation>optimizer states + gradients</translation>
    </message>
    <message>
        <source>+ parameters</source>
        <translation>+ parameters</translation>
    </message>
    <message>
        <source>host memory (CPU)</source>
        <translation>host memory (CPU)</translation>
    </message>
    <message>
        <source>NVMe</source>
        <translation>NVMe</translation>
    </message>
    <message>
        <source>HSDP: shard in the group, replicate across groups</source>
        <translation>HSDP: shard in the group, replicate across groups</translation>
    </message>
    <message>
        <source>ZeRO++ hpZ: a second 16-bit parameter shard in the group</source>
        <translation>ZeRO++ hpZ: a second 16-bit parameter shard in the group</translation>
    </message>
    <message>
        <source>BF16</source>
        <translation>BF16</translation>
    </message>
    <message>
        <source>FP16</source>
        <translation>FP16</translation>
    </message>
    <message>
        <source>FP32 (no mixed precision)</source>
        <translation>FP32 (no mixed precision)</translation>
    </message>
    <message>
        <source>FP32</source>
        <translation>FP32</translation>
    </message>
    <message>
        <source>on (in the parameter dtype)</source>
        <translation>on (in the parameter dtype)</translation>
    </message>
    <message>
        <source>off (FP32 compute)</source>
        <translation>off (FP32 compute)</translation>
    </message>
    <message>
        <source>one unit per block</source>
        <translation>one unit per block</translation>
    </message>
    <message>
        <source>one unit per N blocks</source>
        <translation>one unit per N blocks</translation>
    </message>
    <message>
        <source>the root only</source>
        <translation>the root only</translation>
    </message>
    <message>
        <source>on (FSDP2&apos;s default)</source>
        <translation>on (FSDP2&apos;s default)</translation>
    </message>
    <message>
        <source>off</source>
        <translation>off</translation>
    </message>
    <message>
        <source>every micro-batch (sharded gradients kept)</source>
        <translation>every micro-batch (sharded gradients kept)</translation>
    </message>
    <message>
        <source>last micro-batch only (unsharded gradients kept)</source>
        <translation>last micro-batch only (unsharded gradients kept)</translation>
    </message>
    <message>
        <source>GB</source>
        <translation>GB</translation>
    </message>
    <message>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
</context>
<context>
    <name>PeakFigure</name>
    <message>
        <source>states {v}</source>
        <translation>states {v}</translation>
    </message>
    <message>
        <source>predicted peak</source>
        <translation>predicted peak</translation>
    </message>
    <message>
        <source>states</source>
        <translation>states</translation>
    </message>
    <message>
        <source>On top at the peak (predicted)</source>
        <translation>On top at the peak (predicted)</translation>
    </message>
    <message numerus="yes">
        <source>{seq} tokens × micro-batch {batch}; 16-bit, no recomputation. With them, per stage: the gathered 16-bit parameters and the communication buffers.</source>
        <translation>
            <numerusform>{seq} token × micro-batch {batch}; 16-bit, no recomputation. With them, per stage: the gathered 16-bit parameters and the communication buffers.</numerusform>
            <numerusform>{seq} tokens × micro-batch {batch}; 16-bit, no recomputation. With them, per stage: the gathered 16-bit parameters and the communication buffers.</numerusform>
        </translation>
    </message>
    <message>
        <source>Not estimated: a raw parameter count has no shapes. Choose a model with an architecture (such as {example}) to see the activations.</source>
        <translation>Not estimated: a raw parameter count has no shapes. Choose a model with an architecture (such as {example}) to see the activations.</translation>
    </message>
    <message>
        <source>Fragmentation</source>
        <translation>Fragmentation</translation>
    </message>
    <message>
        <source>Not predicted, so drawn the same on every bar: measure the peak of a full step.</source>
        <translation>Not predicted, so drawn the same on every bar: measure the peak of a full step.</translation>
    </message>
    <message>
        <source>Per rank, {model}, Nd = {nd}</source>
        <translation>Per rank, {model}, Nd = {nd}</translation>
    </message>
</context>
<context>
    <name>PlanForm</name>
    <message>
        <source>Model preset</source>
        <translation>Model preset</translation>
    </message>
    <message>
        <source>Parameters P</source>
        <translation>Parameters P</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>Layers</translation>
    </message>
    <message>
        <source>Hidden</source>
        <translation>Hidden</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>Heads</translation>
    </message>
    <message>
        <source>KV heads</source>
        <translation>KV heads</translation>
    </message>
    <message>
        <source>Head dim</source>
        <translation>Head dim</translation>
    </message>
    <message>
        <source>FFN</source>
        <translation>FFN</translation>
    </message>
    <message>
        <source>Vocabulary</source>
        <translation>Vocabulary</translation>
    </message>
    <message>
        <source>Positions</source>
        <translation>Positions</translation>
    </message>
    <message>
        <source>MLP</source>
        <translation>MLP</translation>
    </message>
    <message>
        <source>Norm</source>
        <translation>Norm</translation>
    </message>
    <message>
        <source>Pos. enc.</source>
        <translation>Pos. enc.</translation>
    </message>
    <message>
        <source>Bias</source>
        <translation>Bias</translation>
    </message>
    <message>
        <source>Layout</source>
        <translation>Layout</translation>
    </message>
    <message>
        <source>Experts</source>
        <translation>Experts</translation>
    </message>
    <message>
        <source>Routed (top-k)</source>
        <translation>Routed (top-k)</translation>
    </message>
    <message>
        <source>Training scheme</source>
        <translation>Training scheme</translation>
    </message>
    <message>
        <source>Accounting profile</source>
        <translation>Accounting profile</translation>
    </message>
    <message>
        <source>Sequence length</source>
        <translation>Sequence length</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>Micro-batch</translation>
    </message>
    <message>
        <source>Micro-batches per step</source>
        <translation>Micro-batches per step</translation>
    </message>
    <message>
        <source>Gradients reduced</source>
        <translation>Gradients reduced</translation>
    </message>
    <message>
        <source>GPU preset</source>
        <translation>GPU preset</translation>
    </message>
    <message>
        <source>GPU memory, {unit}</source>
        <translation>GPU memory, {unit}</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>Nodes</translation>
    </message>
    <message>
        <source>GPUs per node</source>
        <translation>GPUs per node</translation>
    </message>
    <message>
        <source>Data-parallel Nd</source>
        <translation>Data-parallel Nd</translation>
    </message>
    <message>
        <source>Bandwidth, GB/s per rank</source>
        <translation>Bandwidth, GB/s per rank</translation>
    </message>
    <message>
        <source>Units</source>
        <translation>Units</translation>
    </message>
    <message>
        <source>Recompute</source>
        <translation>Recompute</translation>
    </message>
    <message>
        <source>CUDA allowance, {unit}</source>
        <translation>CUDA allowance, {unit}</translation>
    </message>
    <message>
        <source>Key/value heads (grouped-query attention)</source>
        <translation>Key/value heads (grouped-query attention)</translation>
    </message>
    <message>
        <source>Head dimension</source>
        <translation>Head dimension</translation>
    </message>
    <message>
        <source>MLP inner width (FFN)</source>
        <translation>MLP inner width (FFN)</translation>
    </message>
    <message>
        <source>Context length (positions)</source>
        <translation>Context length (positions)</translation>
    </message>
    <message>
        <source>Module layout (Hugging Face model type)</source>
        <translation>Module layout (Hugging Face model type)</translation>
    </message>
    <message>
        <source>Experts per layer (mixture of experts)</source>
        <translation>Experts per layer (mixture of experts)</translation>
    </message>
    <message>
        <source>Experts routed per token</source>
        <translation>Experts routed per token</translation>
    </message>
    <message>
        <source>Context length (max_position_embeddings); the size of a learned position table</source>
        <translation>Context length (max_position_embeddings); the size of a learned position table</translation>
    </message>
    <message>
        <source>Whose module layout the tensors follow: ZeroDesk&apos;s own, or the Hugging Face model type (names, shapes, fusion), which the torch profile shards exactly</source>
        <translation>Whose module layout the tensors follow: ZeroDesk&apos;s own, or the Hugging Face model type (names, shapes, fusion), which the torch profile shards exactly</translation>
    </message>
    <message>
        <source>Every expert counts in P and in the states</source>
        <translation>Every expert counts in P and in the states</translation>
    </message>
    <message>
        <source>Only the routed experts count in activations</source>
        <translation>Only the routed experts count in activations</translation>
    </message>
    <message>
        <source>Position encoding</source>
        <translation>Position encoding</translation>
    </message>
    <message>
        <source>Hidden size (model width)</source>
        <translation>Hidden size (model width)</translation>
    </message>
    <message>
        <source>Parameter count: 2e9, 7B, 350M, 1.5T or plain digits</source>
        <translation>Parameter count: 2e9, 7B, 350M, 1.5T or plain digits</translation>
    </message>
    <message>
        <source>Empty: same as heads</source>
        <translation>Empty: same as heads</translation>
    </message>
    <message>
        <source>Empty: hidden / heads</source>
        <translation>Empty: hidden / heads</translation>
    </message>
    <message>
        <source>Empty: nodes × GPUs per node</source>
        <translation>Empty: nodes × GPUs per node</translation>
    </message>
    <message>
        <source>Memory of one GPU; empty: no GPU line</source>
        <translation>Memory of one GPU; empty: no GPU line</translation>
    </message>
    <message>
        <source>Per-rank link bandwidth used for the communication time (1 GB = 10⁹ B)</source>
        <translation>Per-rank link bandwidth used for the communication time (1 GB = 10⁹ B)</translation>
    </message>
    <message>
        <source>Tokens per sequence (activations estimate)</source>
        <translation>Tokens per sequence (activations estimate)</translation>
    </message>
    <message>
        <source>Activation recomputation per block: none; selective recomputes the attention sub-layer; full recomputes the whole block (the predicted peak follows)</source>
        <translation>Activation recomputation per block: none; selective recomputes the attention sub-layer; full recomputes the whole block (the predicted peak follows)</translation>
    </message>
    <message>
        <source>Memory per GPU you set aside for the CUDA context and allocator; added to the predicted peak and shown apart. Empty: 0</source>
        <translation>Memory per GPU you set aside for the CUDA context and allocator; added to the predicted peak and shown apart. Empty: 0</translation>
    </message>
    <message>
        <source>for example 2e9, 7B, 350M</source>
        <translation>for example 2e9, 7B, 350M</translation>
    </message>
    <message>
        <source>auto</source>
        <translation>auto</translation>
    </message>
    <message>
        <source>none</source>
        <translation>none</translation>
    </message>
    <message>
        <source>Offload</source>
        <translation>Offload</translation>
    </message>
    <message>
        <source>States moved off the GPU, shown apart from the stages</source>
        <translation>States moved off the GPU, shown apart from the stages</translation>
    </message>
    <message>
        <source>Offload to</source>
        <translation>Offload to</translation>
    </message>
    <message>
        <source>Host memory (CPU) or NVMe storage</source>
        <translation>Host memory (CPU) or NVMe storage</translation>
    </message>
    <message>
        <source>Host link, GB/s</source>
        <translation>Host link, GB/s</translation>
    </message>
    <message>
        <source>Host↔device bandwidth per GPU for the offload traffic time (1 GB = 10⁹ B)</source>
        <translation>Host↔device bandwidth per GPU for the offload traffic time (1 GB = 10⁹ B)</translation>
    </message>
    <message>
        <source>Host memory per node, {unit}</source>
        <translation>Host memory per node, {unit}</translation>
    </message>
    <message>
        <source>RAM of one node; empty: no host line</source>
        <translation>RAM of one node; empty: no host line</translation>
    </message>
    <message>
        <source>Offload (apart from the stages)</source>
        <translation>Offload (apart from the stages)</translation>
    </message>
    <message>
        <source>AdamW kernels</source>
        <translation>AdamW kernels</translation>
    </message>
    <message>
        <source>Sequences per rank per micro-batch (activations estimate)</source>
        <translation>Sequences per rank per micro-batch (activations estimate)</translation>
    </message>
    <message>
        <source>Gradient accumulation: micro-batches before each optimizer step; from 2 on, each rank keeps gradients between them (the predicted peak follows)</source>
        <translation>Gradient accumulation: micro-batches before each optimizer step; from 2 on, each rank keeps gradients between them (the predicted peak follows)</translation>
    </message>
    <message>
        <source>When accumulated gradients are reduced: every micro-batch keeps the stage&apos;s own gradients (sharded from stage 2); only the last (DDP no_sync, FSDP2 set_requires_gradient_sync(False)) keeps the whole model&apos;s</source>
        <translation>When accumulated gradients are reduced: every micro-batch keeps the stage&apos;s own gradients (sharded from stage 2); only the last (DDP no_sync, FSDP2 set_requires_gradient_sync(False)) keeps the whole model&apos;s</translation>
    </message>
    <message>
        <source>How AdamW steps: foreach (torch&apos;s default on CUDA) holds an FP32 copy of the rank&apos;s parameters during the step; for-loop two of its largest tensor; fused none (the predicted peak follows)</source>
        <translation>How AdamW steps: foreach (torch&apos;s default on CUDA) holds an FP32 copy of the rank&apos;s parameters during the step; for-loop two of its largest tensor; fused none (the predicted peak follows)</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Model</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>Training</translation>
    </message>
    <message>
        <source>Global batch {g} = {mb} × {k} × Nd {nd}</source>
        <translation>Global batch {g} = {mb} × {k} × Nd {nd}</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>Cluster</translation>
    </message>
    <message>
        <source>Given by</source>
        <translation>Given by</translation>
    </message>
    <message>
        <source>Parameter count</source>
        <translation>Parameter count</translation>
    </message>
    <message>
        <source>Model given by parameter count</source>
        <translation>Model given by parameter count</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>Architecture</translation>
    </message>
    <message>
        <source>Model given by architecture</source>
        <translation>Model given by architecture</translation>
    </message>
    <message>
        <source>Tied input/output embeddings</source>
        <translation>Tied input/output embeddings</translation>
    </message>
    <message>
        <source>Load the card&apos;s example (P = 2·10⁹, Nd = 4)</source>
        <translation>Load the card&apos;s example (P = 2·10⁹, Nd = 4)</translation>
    </message>
    <message>
        <source>The source card&apos;s worked example: 32 / 14 / 11 / 8 GB per rank (Ctrl+K)</source>
        <translation>The source card&apos;s worked example: 32 / 14 / 11 / 8 GB per rank (Ctrl+K)</translation>
    </message>
    <message>
        <source>Load the card example</source>
        <translation>Load the card example</translation>
    </message>
    <message>
        <source>Shard group N</source>
        <translation>Shard group N</translation>
    </message>
    <message>
        <source>Shard the states among N consecutive ranks (usually a node&apos;s GPUs) and replicate them across the Nd/N groups; N divides Nd. Empty: N = Nd, no replicas</source>
        <translation>Shard the states among N consecutive ranks (usually a node&apos;s GPUs) and replicate them across the Nd/N groups; N divides Nd. Empty: N = Nd, no replicas</translation>
    </message>
    <message>
        <source>Group means</source>
        <translation>Group means</translation>
    </message>
    <message>
        <source>HSDP (FSDP2 on a 2-D mesh, MiCS): every sharded state among N. ZeRO++ hpZ (paper profile): stage 3 among all Nd, plus a second 16-bit parameter shard among N</source>
        <translation>HSDP (FSDP2 on a 2-D mesh, MiCS): every sharded state among N. ZeRO++ hpZ (paper profile): stage 3 among all Nd, plus a second 16-bit parameter shard among N</translation>
    </message>
    <message>
        <source>Network preset</source>
        <translation>Network preset</translation>
    </message>
    <message>
        <source>Sets the inter-node bandwidth per GPU</source>
        <translation>Sets the inter-node bandwidth per GPU</translation>
    </message>
    <message>
        <source>In a node, GB/s</source>
        <translation>In a node, GB/s</translation>
    </message>
    <message>
        <source>GPU-to-GPU bandwidth inside a node (NVLink, PCIe), per GPU and per direction; a GPU preset sets it (1 GB = 10⁹ B)</source>
        <translation>GPU-to-GPU bandwidth inside a node (NVLink, PCIe), per GPU and per direction; a GPU preset sets it (1 GB = 10⁹ B)</translation>
    </message>
    <message>
        <source>Between nodes, GB/s</source>
        <translation>Between nodes, GB/s</translation>
    </message>
    <message>
        <source>Bandwidth between nodes (InfiniBand, Ethernet) per GPU and per direction: its NIC or its share of the node&apos;s (1 GB = 10⁹ B)</source>
        <translation>Bandwidth between nodes (InfiniBand, Ethernet) per GPU and per direction: its NIC or its share of the node&apos;s (1 GB = 10⁹ B)</translation>
    </message>
    <message>
        <source>Hybrid sharding and links</source>
        <translation>Hybrid sharding and links</translation>
    </message>
    <message>
        <source>Nd</source>
        <translation>Nd</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>Custom</translation>
    </message>
    <message>
        <source>N = Nd = {nd}: flat, no replicas</source>
        <translation>N = Nd = {nd}: flat, no replicas</translation>
    </message>
    <message>
        <source>stage 3 among all {nd}, hpZ&apos;s second shard among {n}</source>
        <translation>stage 3 among all {nd}, hpZ&apos;s second shard among {n}</translation>
    </message>
    <message>
        <source>{r} groups of {n}: sharded in the group, replicated across</source>
        <translation>{r} groups of {n}: sharded in the group, replicated across</translation>
    </message>
    <message>
        <source>ZeroDesk&apos;s own</source>
        <translation>ZeroDesk&apos;s own</translation>
    </message>
    <message>
        <source>Custom / none</source>
        <translation>Custom / none</translation>
    </message>
    <message>
        <source>Presets unavailable: {error}</source>
        <translation>Presets unavailable: {error}</translation>
    </message>
    <message>
        <source>= heads</source>
        <translation>= heads</translation>
    </message>
    <message>
        <source>auto: {n}</source>
        <translation>auto: {n}</translation>
    </message>
    <message>
        <source>Empty: 4 × hidden for a plain MLP; 8/3 × hidden rounded up to a multiple of 256 for a gated one (Llama&apos;s rule)</source>
        <translation>Empty: 4 × hidden for a plain MLP; 8/3 × hidden rounded up to a multiple of 256 for a gated one (Llama&apos;s rule)</translation>
    </message>
    <message>
        <source>Size of the learned position table (learned positions only)</source>
        <translation>Size of the learned position table (learned positions only)</translation>
    </message>
    <message>
        <source>Rotary positions have no table: this size changes nothing</source>
        <translation>Rotary positions have no table: this size changes nothing</translation>
    </message>
    <message>
        <source>The torch profile counts what PyTorch&apos;s engines keep: fp32 parameters, gradients and AdamW states, bf16 compute.</source>
        <translation>The torch profile counts what PyTorch&apos;s engines keep: fp32 parameters, gradients and AdamW states, bf16 compute.</translation>
    </message>
    <message>
        <source>q/k norms</source>
        <translation>q/k norms</translation>
    </message>
    <message>
        <source>parallel attention + MLP</source>
        <translation>parallel attention + MLP</translation>
    </message>
    <message>
        <source>embedding LayerNorm</source>
        <translation>embedding LayerNorm</translation>
    </message>
    <message>
        <source>head bias</source>
        <translation>head bias</translation>
    </message>
    <message>
        <source>no final norm</source>
        <translation>no final norm</translation>
    </message>
    <message>
        <source>rotary on {n} lanes per head</source>
        <translation>rotary on {n} lanes per head</translation>
    </message>
    <message>
        <source>{n} extra position rows</source>
        <translation>{n} extra position rows</translation>
    </message>
    <message>
        <source>{n}-wide embeddings projected</source>
        <translation>{n}-wide embeddings projected</translation>
    </message>
    <message>
        <source>two norms per block</source>
        <translation>two norms per block</translation>
    </message>
    <message>
        <source>activation {name}</source>
        <translation>activation {name}</translation>
    </message>
    <message>
        <source>= {n} parameters, exact from the architecture</source>
        <translation>= {n} parameters, exact from the architecture</translation>
    </message>
    <message>
        <source>P = {n} ({short})</source>
        <translation>P = {n} ({short})</translation>
    </message>
    <message>
        <source>Layout also has: {list}</source>
        <translation>Layout also has: {list}</translation>
    </message>
    <message>
        <source>= {n} parameters in {t} tensors, exact from transformers</source>
        <translation>= {n} parameters in {t} tensors, exact from transformers</translation>
    </message>
    <message>
        <source>= {n} parameters</source>
        <translation>= {n} parameters</translation>
    </message>
    <message>
        <source>Nd = {nd} ({nodes} × {gpn} GPUs)</source>
        <translation>Nd = {nd} ({nodes} × {gpn} GPUs)</translation>
    </message>
    <message>
        <source>Parameter dtype</source>
        <translation>Parameter dtype</translation>
    </message>
    <message>
        <source>MixedPrecisionPolicy&apos;s param_dtype: FSDP2 gathers parameters and computes in it (stages 2-3); autocast&apos;s dtype under DDP (stages 0-1). The states stay FP32 either way</source>
        <translation>MixedPrecisionPolicy&apos;s param_dtype: FSDP2 gathers parameters and computes in it (stages 2-3); autocast&apos;s dtype under DDP (stages 0-1). The states stay FP32 either way</translation>
    </message>
    <message>
        <source>Reduce dtype</source>
        <translation>Reduce dtype</translation>
    </message>
    <message>
        <source>MixedPrecisionPolicy&apos;s reduce_dtype: FSDP2 reduce-scatters gradients in it (stages 2-3); DDP all-reduces its FP32 gradients as they are</source>
        <translation>MixedPrecisionPolicy&apos;s reduce_dtype: FSDP2 reduce-scatters gradients in it (stages 2-3); DDP all-reduces its FP32 gradients as they are</translation>
    </message>
    <message>
        <source>Autocast (stages 0-1)</source>
        <translation>Autocast (stages 0-1)</translation>
    </message>
    <message>
        <source>torch.autocast around DDP&apos;s forward, in the parameter dtype; off: FP32 compute</source>
        <translation>torch.autocast around DDP&apos;s forward, in the parameter dtype; off: FP32 compute</translation>
    </message>
    <message>
        <source>FSDP2 units</source>
        <translation>FSDP2 units</translation>
    </message>
    <message>
        <source>Which modules fully_shard wraps before the root: each block, N consecutive blocks together, or the root only (one unit: the whole model gathered at once)</source>
        <translation>Which modules fully_shard wraps before the root: each block, N consecutive blocks together, or the root only (one unit: the whole model gathered at once)</translation>
    </message>
    <message>
        <source>Blocks per unit N</source>
        <translation>Blocks per unit N</translation>
    </message>
    <message>
        <source>Blocks in one FSDP2 unit when the units are N blocks</source>
        <translation>Blocks in one FSDP2 unit when the units are N blocks</translation>
    </message>
    <message>
        <source>Backward prefetch</source>
        <translation>Backward prefetch</translation>
    </message>
    <message>
        <source>FSDP2 gathers the next unit while a unit&apos;s backward runs (its default), or each unit only when its own backward starts</source>
        <translation>FSDP2 gathers the next unit while a unit&apos;s backward runs (its default), or each unit only when its own backward starts</translation>
    </message>
    <message>
        <source>Recompute every k-th block</source>
        <translation>Recompute every k-th block</translation>
    </message>
    <message>
        <source>The Recompute mode on the k-th, 2k-th, … block only (TorchTitan&apos;s ac_freq); 1: every block</source>
        <translation>The Recompute mode on the k-th, 2k-th, … block only (TorchTitan&apos;s ac_freq); 1: every block</translation>
    </message>
    <message>
        <source>Recompute per block</source>
        <translation>Recompute per block</translation>
    </message>
    <message>
        <source>One choice per block, in order, e.g. full*16,none*16 (none, selective, full, each optionally ×count); overrides Recompute and every k-th. Empty: not used</source>
        <translation>One choice per block, in order, e.g. full*16,none*16 (none, selective, full, each optionally ×count); overrides Recompute and every k-th. Empty: not used</translation>
    </message>
    <message>
        <source>Precision, FSDP2 units, recompute</source>
        <translation>Precision, FSDP2 units, recompute</translation>
    </message>
    <message>
        <source>e.g. full*16,none*16</source>
        <translation>e.g. full*16,none*16</translation>
    </message>
</context>
<context>
    <name>PlanTab</name>
    <message>
        <source>Per-stage memory chart</source>
        <translation>Per-stage memory chart</translation>
    </message>
    <message>
        <source>Memory versus Nd chart</source>
        <translation>Memory versus Nd chart</translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation>Log scale</translation>
    </message>
    <message>
        <source>Logarithmic memory axis: small stages and models stay readable</source>
        <translation>Logarithmic memory axis: small stages and models stay readable</translation>
    </message>
    <message>
        <source>Logarithmic Scale</source>
        <translation>Logarithmic Scale</translation>
    </message>
    <message>
        <source>Export Charts as PNG…</source>
        <translation>Export Charts as PNG…</translation>
    </message>
    <message>
        <source>Export Charts as SVG…</source>
        <translation>Export Charts as SVG…</translation>
    </message>
    <message>
        <source>{n} field(s) need attention; the chart shows the last valid plan.</source>
        <translation>{n} field(s) need attention; the chart shows the last valid plan.</translation>
    </message>
    <message>
        <source>custom architecture</source>
        <translation>custom architecture</translation>
    </message>
    <message>
        <source>raw parameter count</source>
        <translation>raw parameter count</translation>
    </message>
    <message>
        <source>Per-rank model-state memory by ZeRO stage</source>
        <translation>Per-rank model-state memory by ZeRO stage</translation>
    </message>
    <message>
        <source>Per-rank model states versus Nd</source>
        <translation>Per-rank model states versus Nd</translation>
    </message>
    <message>
        <source>log memory axis</source>
        <translation>log memory axis</translation>
    </message>
    <message>
        <source>{name}: P = {p} ({short}) · Nd = {nd} ({nodes} × {gpn} GPUs) · figures in {unit} ({note})</source>
        <translation>{name}: P = {p} ({short}) · Nd = {nd} ({nodes} × {gpn} GPUs) · figures in {unit} ({note})</translation>
    </message>
    <message>
        <source>Note: {note}.</source>
        <translation>Note: {note}.</translation>
    </message>
    <message>
        <source>The bars are model states; the hatched top is the predicted peak of a full step (activations, gathered parameters, buffers; sequence {seq} × micro-batch {mb}). Fragmentation is not predicted: Simulate or Measure the step.</source>
        <translation>The bars are model states; the hatched top is the predicted peak of a full step (activations, gathered parameters, buffers; sequence {seq} × micro-batch {mb}). Fragmentation is not predicted: Simulate or Measure the step.</translation>
    </message>
    <message>
        <source>No predicted peak is drawn: without the architecture the activations are unknown (a raw parameter count); pick a preset or give the architecture for it.</source>
        <translation>No predicted peak is drawn: without the architecture the activations are unknown (a raw parameter count); pick a preset or give the architecture for it.</translation>
    </message>
    <message>
        <source>computed, {profile}; {unit}; dotted line: current Nd = {nd}</source>
        <translation>computed, {profile}; {unit}; dotted line: current Nd = {nd}</translation>
    </message>
    <message>
        <source>predicted peak of the step (estimate)</source>
        <translation>predicted peak of the step (estimate)</translation>
    </message>
</context>
<context>
    <name>Provenance</name>
    <message>
        <source>Computed (closed form), {profile}: {source}; AdamW with fp32 states and bf16 compute</source>
        <translation>Computed (closed form), {profile}: {source}; AdamW with fp32 states and bf16 compute</translation>
    </message>
    <message>
        <source>Computed (closed form), {profile}: {source}; scheme: {scheme}</source>
        <translation>Computed (closed form), {profile}: {source}; scheme: {scheme}</translation>
    </message>
    <message>
        <source>Model states only. Fitting them in GPU memory is not the peak: activations, temporary buffers and fragmentation come on top (ZeRO §3.2). Measure the full step.</source>
        <translation>Model states only. Fitting them in GPU memory is not the peak: activations, temporary buffers and fragmentation come on top (ZeRO §3.2). Measure the full step.</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <source>&amp;Look in:</source>
        <translation>&amp;Look in:</translation>
    </message>
    <message>
        <source>Files of &amp;type:</source>
        <translation>Files of &amp;type:</translation>
    </message>
</context>
<context>
    <name>RankFigure</name>
    <message numerus="yes">
        <source>Nd = {nd} ranks, one box each</source>
        <translation>
            <numerusform>Nd = {nd} rank, one box</numerusform>
            <numerusform>Nd = {nd} ranks, one box each</numerusform>
        </translation>
    </message>
    <message>
        <source>+{n} more</source>
        <translation>+{n} more</translation>
    </message>
    <message>
        <source>grey: the part of a split state that the other ranks keep</source>
        <translation>grey: the part of a split state that the other ranks keep</translation>
    </message>
    <message>
        <source>One rank at stage {n}</source>
        <translation>One rank at stage {n}</translation>
    </message>
    <message>
        <source>Per rank:</source>
        <translation>Per rank:</translation>
    </message>
    <message>
        <source> (split)</source>
        <translation> (split)</translation>
    </message>
    <message numerus="yes">
        <source>Nd = {nd} ranks; the last box stands for the rest</source>
        <translation>
            <numerusform>Nd = {nd} rank; the last box stands for the rest</numerusform>
            <numerusform>Nd = {nd} ranks; the last box stands for the rest</numerusform>
        </translation>
    </message>
    <message>
        <source>rank {i}</source>
        <translation>rank {i}</translation>
    </message>
    <message>
        <source> (whole)</source>
        <translation> (whole)</translation>
    </message>
    <message>
        <source>Communication per rank per step (§7)</source>
        <translation>Communication per rank per step (§7)</translation>
    </message>
    <message>
        <source>stages 0–2</source>
        <translation>stages 0–2</translation>
    </message>
    <message>
        <source>stage 3</source>
        <translation>stage 3</translation>
    </message>
    <message>
        <source>×{r} the traffic of stages 0–2</source>
        <translation>×{r} the traffic of stages 0–2</translation>
    </message>
</context>
<context>
    <name>Results</name>
    <message>
        <source>Stage</source>
        <translation>Stage</translation>
    </message>
    <message>
        <source>ZeRO stage (0 = DDP, 1 = ZeroRedundancyOptimizer, 2 and 3 = FSDP2)</source>
        <translation>ZeRO stage (0 = DDP, 1 = ZeroRedundancyOptimizer, 2 and 3 = FSDP2)</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>Rank</translation>
    </message>
    <message>
        <source>Rank of the run</source>
        <translation>Rank of the run</translation>
    </message>
    <message>
        <source>Peak
of the step</source>
        <translation>Peak
of the step</translation>
    </message>
    <message>
        <source>Tracked peak of the step: model states, activations, temporaries and buffers</source>
        <translation>Tracked peak of the step: model states, activations, temporaries and buffers</translation>
    </message>
    <message>
        <source>States
simulated</source>
        <translation>States
simulated</translation>
    </message>
    <message>
        <source>States
measured</source>
        <translation>States
measured</translation>
    </message>
    <message>
        <source>Parameters, gradients and optimizer state at rest after the optimizer step, from live tensors</source>
        <translation>Parameters, gradients and optimizer state at rest after the optimizer step, from live tensors</translation>
    </message>
    <message>
        <source>States
predicted</source>
        <translation>States
predicted</translation>
    </message>
    <message>
        <source>The same, predicted by the torch profile for the run&apos;s shapes and ranks</source>
        <translation>The same, predicted by the torch profile for the run&apos;s shapes and ranks</translation>
    </message>
    <message>
        <source>Difference
vs torch profile</source>
        <translation>Difference
vs torch profile</translation>
    </message>
    <message>
        <source>(run − predicted) / predicted states</source>
        <translation>(run − predicted) / predicted states</translation>
    </message>
    <message>
        <source>DDP buckets
run / pred.</source>
        <translation>DDP buckets
run / pred.</translation>
    </message>
    <message>
        <source>DDP&apos;s gradient buckets (stages 0 and 1), from the run / predicted; the Plan tab&apos;s bars include them</source>
        <translation>DDP&apos;s gradient buckets (stages 0 and 1), from the run / predicted; the Plan tab&apos;s bars include them</translation>
    </message>
    <message>
        <source>rank {r}</source>
        <translation>rank {r}</translation>
    </message>
    <message>
        <source>{what}: run {m}, predicted {p}</source>
        <translation>{what}: run {m}, predicted {p}</translation>
    </message>
    <message>
        <source>Peak of the step: {v} (activations and temporaries included)</source>
        <translation>Peak of the step: {v} (activations and temporaries included)</translation>
    </message>
    <message>
        <source>Step time: {t}</source>
        <translation>Step time: {t}</translation>
    </message>
    <message>
        <source>no run for this plan yet</source>
        <translation>no run for this plan yet</translation>
    </message>
    <message>
        <source>ZeRO stage</source>
        <translation>ZeRO stage</translation>
    </message>
    <message>
        <source>Computed
states</source>
        <translation>Computed
states</translation>
    </message>
    <message>
        <source>Model states of the largest rank, computed with the {profile} profile (the bars)</source>
        <translation>Model states of the largest rank, computed with the {profile} profile (the bars)</translation>
    </message>
    <message>
        <source>Torch profile
states</source>
        <translation>Torch profile
states</translation>
    </message>
    <message>
        <source>Model states of the largest rank as PyTorch&apos;s engines keep them (computed; the reference for every % here)</source>
        <translation>Model states of the largest rank as PyTorch&apos;s engines keep them (computed; the reference for every % here)</translation>
    </message>
    <message>
        <source>Predicted
peak</source>
        <translation>Predicted
peak</translation>
    </message>
    <message>
        <source>The computed peak of the step: states, activations and buffers</source>
        <translation>The computed peak of the step: states, activations and buffers</translation>
    </message>
    <message>
        <source>Simulated
peak</source>
        <translation>Simulated
peak</translation>
    </message>
    <message>
        <source>Simulated
states (Δ)</source>
        <translation>Simulated
states (Δ)</translation>
    </message>
    <message>
        <source>Δ vs the torch profile</source>
        <translation>Δ vs the torch profile</translation>
    </message>
    <message>
        <source>Measured
peak (Δ)</source>
        <translation>Measured
peak (Δ)</translation>
    </message>
    <message>
        <source>Δ vs the simulated peak</source>
        <translation>Δ vs the simulated peak</translation>
    </message>
    <message>
        <source>Measured
states (Δ)</source>
        <translation>Measured
states (Δ)</translation>
    </message>
</context>
<context>
    <name>RunController</name>
    <message>
        <source>Cancel: stopping every process of the run (SIGTERM, then SIGKILL after 1 s).</source>
        <translation>Cancel: stopping every process of the run (SIGTERM, then SIGKILL after 1 s).</translation>
    </message>
    <message>
        <source>Error ({code}): {message}</source>
        <translation>Error ({code}): {message}</translation>
    </message>
    <message>
        <source>Done in {wall}.</source>
        <translation>Done in {wall}.</translation>
    </message>
    <message>
        <source>Every process of the run stopped {s} after the first signal.</source>
        <translation>Every process of the run stopped {s} after the first signal.</translation>
    </message>
    <message>
        <source>Every process of the run has exited.</source>
        <translation>Every process of the run has exited.</translation>
    </message>
</context>
<context>
    <name>RunProcess</name>
    <message>
        <source>the measurement was cancelled</source>
        <translation>the measurement was cancelled</translation>
    </message>
    <message>
        <source>could not start {program}: {reason}</source>
        <translation>could not start {program}: {reason}</translation>
    </message>
    <message>
        <source>the measurement stopped before finishing</source>
        <translation>the measurement stopped before finishing</translation>
    </message>
    <message>
        <source>the measurement could not start</source>
        <translation>the measurement could not start</translation>
    </message>
    <message>
        <source>no output</source>
        <translation>no output</translation>
    </message>
    <message>
        <source>{what} (exit status {code}): {why}</source>
        <translation>{what} (exit status {code}): {why}</translation>
    </message>
    <message>
        <source>the measurement did not finish within {s} s and was stopped</source>
        <translation>the measurement did not finish within {s} s and was stopped</translation>
    </message>
    <message>
        <source>gave up after SIGKILL: some processes of the run did not stop (group {pgid})</source>
        <translation>gave up after SIGKILL: some processes of the run did not stop (group {pgid})</translation>
    </message>
</context>
<context>
    <name>RunRecords</name>
    <message>
        <source>This plan&apos;s earlier results are back on the chart: {what}.</source>
        <translation>This plan&apos;s earlier results are back on the chart: {what}.</translation>
    </message>
    <message>
        <source>The plan changed: {what} no longer match it and were taken off the chart (they come back if the plan changes back).</source>
        <translation>The plan changed: {what} no longer match it and were taken off the chart (they come back if the plan changes back).</translation>
    </message>
</context>
<context>
    <name>RunStatus</name>
    <message>
        <source>setting up</source>
        <translation>setting up</translation>
    </message>
    <message>
        <source>warm-up step</source>
        <translation>warm-up step</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>forward</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>backward</translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation>optimizer step</translation>
    </message>
    <message>
        <source>S&amp;imulate</source>
        <translation>S&amp;imulate</translation>
    </message>
    <message>
        <source>One full-size step of rank 0 under fake tensors: no GPU, little memory — for models this machine cannot hold</source>
        <translation>One full-size step of rank 0 under fake tensors: no GPU, little memory — for models this machine cannot hold</translation>
    </message>
    <message>
        <source>&amp;Measure</source>
        <translation>&amp;Measure</translation>
    </message>
    <message>
        <source>Run one real training step per selected stage on local ranks</source>
        <translation>Run one real training step per selected stage on local ranks</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>&amp;Cancel</translation>
    </message>
    <message>
        <source>Stop every process of the run now</source>
        <translation>Stop every process of the run now</translation>
    </message>
    <message>
        <source>Run progress</source>
        <translation>Run progress</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>stopped</translation>
    </message>
    <message>
        <source>starting…</source>
        <translation>starting…</translation>
    </message>
    <message>
        <source>{stage}: selected</source>
        <translation>{stage}: selected</translation>
    </message>
    <message>
        <source>{stage}: done ✓</source>
        <translation>{stage}: done ✓</translation>
    </message>
    <message>
        <source>{stage}: stopped</source>
        <translation>{stage}: stopped</translation>
    </message>
    <message>
        <source>{stage}: {phase}</source>
        <translation>{stage}: {phase}</translation>
    </message>
    <message>
        <source>{stage}: waiting</source>
        <translation>{stage}: waiting</translation>
    </message>
    <message>
        <source>{stage}: not simulated</source>
        <translation>{stage}: not simulated</translation>
    </message>
    <message>
        <source>{stage}: not measured</source>
        <translation>{stage}: not measured</translation>
    </message>
</context>
<context>
    <name>RunTexts</name>
    <message>
        <source>&lt;b&gt;Simulate&lt;/b&gt; runs rank 0 of {nd} ranks for stage(s) {stages} as a full-size step under fake tensors: no GPU, little memory — for models this machine cannot hold. Expect about {time}.</source>
        <translation>&lt;b&gt;Simulate&lt;/b&gt; runs rank 0 of {nd} ranks for stage(s) {stages} as a full-size step under fake tensors: no GPU, little memory — for models this machine cannot hold. Expect about {time}.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Measure&lt;/b&gt; cannot run: {why}</source>
        <translation>&lt;b&gt;Measure&lt;/b&gt; cannot run: {why}</translation>
    </message>
    <message>
        <source>CPU ranks (gloo)</source>
        <translation>CPU ranks (gloo)</translation>
    </message>
    <message>
        <source>CUDA ranks (NCCL, one GPU each)</source>
        <translation>CUDA ranks (NCCL, one GPU each)</translation>
    </message>
    <message>
        <source>CUDA ranks if this machine has a GPU, else CPU ranks</source>
        <translation>CUDA ranks if this machine has a GPU, else CPU ranks</translation>
    </message>
    <message>
        <source>&lt;b&gt;Measure&lt;/b&gt; runs a warm-up and one measured training step for stage(s) {stages} on {ranks} local {where}. Expect about {time}, much of it starting the ranks (each imports torch).</source>
        <translation>&lt;b&gt;Measure&lt;/b&gt; runs a warm-up and one measured training step for stage(s) {stages} on {ranks} local {where}. Expect about {time}, much of it starting the ranks (each imports torch).</translation>
    </message>
    <message>
        <source>A scaled run is compared here only; the Plan tab&apos;s bars stay those of the full model.</source>
        <translation>A scaled run is compared here only; the Plan tab&apos;s bars stay those of the full model.</translation>
    </message>
    <message>
        <source>The Plan tab&apos;s bars are for Nd = {nd}; with {ranks} ranks the comparison stays in this tab (set Ranks to {nd} to put markers on that chart).</source>
        <translation>The Plan tab&apos;s bars are for Nd = {nd}; with {ranks} ranks the comparison stays in this tab (set Ranks to {nd} to put markers on that chart).</translation>
    </message>
    <message>
        <source>Results also land on the Plan tab&apos;s chart beside each bar.</source>
        <translation>Results also land on the Plan tab&apos;s chart beside each bar.</translation>
    </message>
    <message>
        <source>Stopping every process of the run…</source>
        <translation>Stopping every process of the run…</translation>
    </message>
    <message>
        <source>Starting the simulation (it imports torch)…</source>
        <translation>Starting the simulation (it imports torch)…</translation>
    </message>
    <message>
        <source>Starting {ranks} ranks (each imports torch)…</source>
        <translation>Starting {ranks} ranks (each imports torch)…</translation>
    </message>
    <message>
        <source>Simulating…</source>
        <translation>Simulating…</translation>
    </message>
    <message>
        <source>Measuring…</source>
        <translation>Measuring…</translation>
    </message>
    <message>
        <source>Simulating stage {n}: {phase}…</source>
        <translation>Simulating stage {n}: {phase}…</translation>
    </message>
    <message>
        <source>Measuring stage {n}: {phase}…</source>
        <translation>Measuring stage {n}: {phase}…</translation>
    </message>
    <message>
        <source>({s} s so far; Cancel stops every process)</source>
        <translation>({s} s so far; Cancel stops every process)</translation>
    </message>
    <message>
        <source>The run was cancelled; every process of it was stopped.</source>
        <translation>The run was cancelled; every process of it was stopped.</translation>
    </message>
    <message>
        <source>The run failed: {reason}.</source>
        <translation>The run failed: {reason}.</translation>
    </message>
    <message>
        <source>Details are in the log below.</source>
        <translation>Details are in the log below.</translation>
    </message>
    <message>
        <source>The run finished without results.</source>
        <translation>The run finished without results.</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CUDA</source>
        <translation>CUDA</translation>
    </message>
    <message>
        <source>Simulated rank 0 of {ranks} under fake tensors, torch {torch}, in {wall}.</source>
        <translation>Simulated rank 0 of {ranks} under fake tensors, torch {torch}, in {wall}.</translation>
    </message>
    <message>
        <source>Measured on {device}, {ranks} ranks, torch {torch}, in {wall}.</source>
        <translation>Measured on {device}, {ranks} ranks, torch {torch}, in {wall}.</translation>
    </message>
    <message>
        <source>Model states at rest match the torch profile on every rank ({d}).</source>
        <translation>Model states at rest match the torch profile on every rank ({d}).</translation>
    </message>
    <message>
        <source>Model states at rest differ from the torch profile by up to {d} (stage {s}, rank {r}).</source>
        <translation>Model states at rest differ from the torch profile by up to {d} (stage {s}, rank {r}).</translation>
    </message>
    <message>
        <source>The plan has changed since this run; its results were set aside.</source>
        <translation>The plan has changed since this run; its results were set aside.</translation>
    </message>
    <message>
        <source>On the Plan tab&apos;s chart, beside each bar: the peak and the model states of the largest rank, % against the torch profile.</source>
        <translation>On the Plan tab&apos;s chart, beside each bar: the peak and the model states of the largest rank, % against the torch profile.</translation>
    </message>
    <message>
        <source>Measured on a scaled model: {model}.</source>
        <translation>Measured on a scaled model: {model}.</translation>
    </message>
    <message>
        <source>The Plan tab&apos;s bars are for the full model, so no markers were put there.</source>
        <translation>The Plan tab&apos;s bars are for the full model, so no markers were put there.</translation>
    </message>
    <message>
        <source>The Plan tab&apos;s bars are for Nd = {nd}; this run used {ranks} ranks, so no markers were put there.</source>
        <translation>The Plan tab&apos;s bars are for Nd = {nd}; this run used {ranks} ranks, so no markers were put there.</translation>
    </message>
    <message>
        <source>for-loop</source>
        <translation>for-loop</translation>
    </message>
    <message>
        <source>AdamW kernels: {impl}; attention kernel: {attention}.</source>
        <translation>AdamW kernels: {impl}; attention kernel: {attention}.</translation>
    </message>
    <message>
        <source>AdamW kernels: {impl}.</source>
        <translation>AdamW kernels: {impl}.</translation>
    </message>
    <message>
        <source>Attention kernel: {attention}.</source>
        <translation>Attention kernel: {attention}.</translation>
    </message>
    <message>
        <source>CUDA allocator peak {alloc}: {extra} above the tracked peak (what the tracker does not see: cuBLAS/cuDNN workspaces, blocks held for other CUDA streams); reserved but not allocated {frag} (measured; an upper bound on fragmentation: it includes free blocks kept for reuse); outside torch&apos;s allocator {outside} (CUDA context, NCCL buffers, other processes). Attention kernels and autocast differ between CUDA and CPU, so do the activations.</source>
        <translation>CUDA allocator peak {alloc}: {extra} above the tracked peak (what the tracker does not see: cuBLAS/cuDNN workspaces, blocks held for other CUDA streams); reserved but not allocated {frag} (measured; an upper bound on fragmentation: it includes free blocks kept for reuse); outside torch&apos;s allocator {outside} (CUDA context, NCCL buffers, other processes). Attention kernels and autocast differ between CUDA and CPU, so do the activations.</translation>
    </message>
    <message>
        <source>{layers} layers, hidden {hidden}, {heads} heads, FFN {ffn}, vocabulary {vocab}, sequence {seq} × micro-batch {mb}; P = {p} ({short})</source>
        <translation>{layers} layers, hidden {hidden}, {heads} heads, FFN {ffn}, vocabulary {vocab}, sequence {seq} × micro-batch {mb}; P = {p} ({short})</translation>
    </message>
    <message>
        <source>{l} of {L} layers, hidden {h} of {H}, FFN {f} of {F}, vocabulary {v} of {V}, sequence {s} of {S}; P = {p} ({short}) of {P} ({SHORT})</source>
        <translation>{l} of {L} layers, hidden {h} of {H}, FFN {f} of {F}, vocabulary {v} of {V}, sequence {s} of {S}; P = {p} ({short}) of {P} ({SHORT})</translation>
    </message>
    <message>
        <source>Model as measured: {model}.</source>
        <translation>Model as measured: {model}.</translation>
    </message>
    <message>
        <source>Scaled model as measured: {model}.</source>
        <translation>Scaled model as measured: {model}.</translation>
    </message>
    <message>
        <source>Predicted model states at rest (torch profile, largest of {n} ranks): up to {v}.</source>
        <translation>Predicted model states at rest (torch profile, largest of {n} ranks): up to {v}.</translation>
    </message>
</context>
<context>
    <name>StageChart</name>
    <message>
        <source>peak ≈ {v}</source>
        <translation>peak ≈ {v}</translation>
    </message>
    <message>
        <source>(fits)</source>
        <translation>(fits)</translation>
    </message>
    <message>
        <source>(over)</source>
        <translation>(over)</translation>
    </message>
    <message>
        <source>GPU memory {v}</source>
        <translation>GPU memory {v}</translation>
    </message>
    <message>
        <source>{gpu}, above the chart</source>
        <translation>{gpu}, above the chart</translation>
    </message>
    <message>
        <source>{unit} per rank</source>
        <translation>{unit} per rank</translation>
    </message>
    <message>
        <source>the loss</source>
        <translation>the loss</translation>
    </message>
    <message>
        <source>the loss&apos;s backward</source>
        <translation>the loss&apos;s backward</translation>
    </message>
    <message>
        <source>the end of backward</source>
        <translation>the end of backward</translation>
    </message>
    <message>
        <source>the last block</source>
        <translation>the last block</translation>
    </message>
    <message>
        <source>the first block&apos;s reduce-scatter</source>
        <translation>the first block&apos;s reduce-scatter</translation>
    </message>
    <message>
        <source>the root group&apos;s reduce-scatter</source>
        <translation>the root group&apos;s reduce-scatter</translation>
    </message>
    <message>
        <source>the optimizer step</source>
        <translation>the optimizer step</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>forward</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>backward</translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation>optimizer step</translation>
    </message>
    <message>
        <source>Predicted peak of the step</source>
        <translation>Predicted peak of the step</translation>
    </message>
    <message>
        <source>Phase: {phase} ({moment})</source>
        <translation>Phase: {phase} ({moment})</translation>
    </message>
    <message>
        <source>Fits in {gpu}</source>
        <translation>Fits in {gpu}</translation>
    </message>
    <message>
        <source>Over {gpu} by {over}</source>
        <translation>Over {gpu} by {over}</translation>
    </message>
    <message>
        <source>Activations left out: they need the architecture.</source>
        <translation>Activations left out: they need the architecture.</translation>
    </message>
    <message>
        <source>Predicted (closed form), not measured; fragmentation is not included. Check it with Simulate or Measure.</source>
        <translation>Predicted (closed form), not measured; fragmentation is not included. Check it with Simulate or Measure.</translation>
    </message>
    <message>
        <source>Formula: {f} with P = {p}, Nd = {nd}</source>
        <translation>Formula: {f} with P = {p}, Nd = {nd}</translation>
    </message>
    <message>
        <source>Stage total: {total} = {formula}</source>
        <translation>Stage total: {total} = {formula}</translation>
    </message>
    <message>
        <source>Computed, {profile}. Click it (or press Enter) for the claim it rests on.</source>
        <translation>Computed, {profile}. Click it (or press Enter) for the claim it rests on.</translation>
    </message>
    <message>
        <source>States vs the torch profile {c}: {d}</source>
        <translation>States vs the torch profile {c}: {d}</translation>
    </message>
    <message>
        <source>States vs computed {c}: {d}</source>
        <translation>States vs computed {c}: {d}</translation>
    </message>
    <message>
        <source>Peak of the step: {v}</source>
        <translation>Peak of the step: {v}</translation>
    </message>
    <message>
        <source>Model states: {v}</source>
        <translation>Model states: {v}</translation>
    </message>
    <message>
        <source>beside each bar: peak (▲ measured, ■ simulated), model states (◆, ●), % = states vs the torch profile</source>
        <translation>beside each bar: peak (▲ measured, ■ simulated), model states (◆, ●), % = states vs the torch profile</translation>
    </message>
</context>
<context>
    <name>StepView</name>
    <message>
        <source>Step {i} of {n}</source>
        <translation>Step {i} of {n}</translation>
    </message>
    <message>
        <source>The glossary has no claim for this step.</source>
        <translation>The glossary has no claim for this step.</translation>
    </message>
    <message>
        <source>Where this holds</source>
        <translation>Where this holds</translation>
    </message>
    <message>
        <source>Click any highlighted number to see its formula.</source>
        <translation>Click any highlighted number to see its formula.</translation>
    </message>
</context>
<context>
    <name>TableTab</name>
    <message>
        <source>Copy table as text</source>
        <translation>Copy table as text</translation>
    </message>
    <message>
        <source>Copy the table, its caption and notes (Ctrl+Shift+C)</source>
        <translation>Copy the table, its caption and notes (Ctrl+Shift+C)</translation>
    </message>
    <message>
        <source>Per-stage memory table</source>
        <translation>Per-stage memory table</translation>
    </message>
    <message>
        <source>Per rank</source>
        <translation>Per rank</translation>
    </message>
    <message>
        <source>Total model states</source>
        <translation>Total model states</translation>
    </message>
    <message>
        <source>Formula (bytes)</source>
        <translation>Formula (bytes)</translation>
    </message>
    <message>
        <source>Ranks: smallest – largest</source>
        <translation>Ranks: smallest – largest</translation>
    </message>
    <message>
        <source>fits: {pct}% of {gpu}</source>
        <translation>fits: {pct}% of {gpu}</translation>
    </message>
    <message>
        <source>over by {over} ({pct}%)</source>
        <translation>over by {over} ({pct}%)</translation>
    </message>
    <message>
        <source>States vs GPU memory</source>
        <translation>States vs GPU memory</translation>
    </message>
    <message>
        <source>Global batch {g} = micro-batch {mb} × {k} accumulation steps × Nd {nd} (sequences per optimizer step).</source>
        <translation>Global batch {g} = micro-batch {mb} × {k} accumulation steps × Nd {nd} (sequences per optimizer step).</translation>
    </message>
    <message>
        <source>Between micro-batches each rank keeps the whole model&apos;s gradients (reduced in the last micro-batch only); the predicted peak counts them.</source>
        <translation>Between micro-batches each rank keeps the whole model&apos;s gradients (reduced in the last micro-batch only); the predicted peak counts them.</translation>
    </message>
    <message>
        <source>Between micro-batches each rank keeps its stage&apos;s own gradients (reduced every micro-batch); the predicted peak counts them.</source>
        <translation>Between micro-batches each rank keeps its stage&apos;s own gradients (reduced every micro-batch); the predicted peak counts them.</translation>
    </message>
    <message>
        <source>States + activations vs GPU memory</source>
        <translation>States + activations vs GPU memory</translation>
    </message>
    <message>
        <source>no GPU memory given</source>
        <translation>no GPU memory given</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>forward</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>backward</translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation>optimizer step</translation>
    </message>
    <message>
        <source>Predicted peak of the step (estimate)</source>
        <translation>Predicted peak of the step (estimate)</translation>
    </message>
    <message>
        <source>needs the architecture (no activations in a raw count)</source>
        <translation>needs the architecture (no activations in a raw count)</translation>
    </message>
    <message>
        <source>Predicted peak vs GPU memory</source>
        <translation>Predicted peak vs GPU memory</translation>
    </message>
    <message>
        <source>Communication per step</source>
        <translation>Communication per step</translation>
    </message>
    <message numerus="yes">
        <source>Communication per step of {k} micro-batches</source>
        <translation>
            <numerusform>Communication per step of {k} micro-batch</numerusform>
            <numerusform>Communication per step of {k} micro-batches</numerusform>
        </translation>
    </message>
    <message>
        <source>Communication time at {bw} GB/s</source>
        <translation>Communication time at {bw} GB/s</translation>
    </message>
    <message>
        <source>over by {over}: needs {pct}% of {gpu}</source>
        <translation>over by {over}: needs {pct}% of {gpu}</translation>
    </message>
    <message>
        <source>Per-rank model-state memory, largest rank</source>
        <translation>Per-rank model-state memory, largest rank</translation>
    </message>
    <message>
        <source>P = {p} parameters · Nd = {nd} · figures in {unit} ({note})</source>
        <translation>P = {p} parameters · Nd = {nd} · figures in {unit} ({note})</translation>
    </message>
    <message>
        <source>On top, estimated activations for sequence {seq} × micro-batch {mb}: {act} per rank (16-bit, fused attention, recompute: {recompute}; an estimate, not a measurement).</source>
        <translation>On top, estimated activations for sequence {seq} × micro-batch {mb}: {act} per rank (16-bit, fused attention, recompute: {recompute}; an estimate, not a measurement).</translation>
    </message>
    <message>
        <source>On top: activations (give the architecture to estimate them), temporary buffers, fragmentation.</source>
        <translation>On top: activations (give the architecture to estimate them), temporary buffers, fragmentation.</translation>
    </message>
    <message>
        <source>Note: {note}.</source>
        <translation>Note: {note}.</translation>
    </message>
</context>
<context>
    <name>Timeline</name>
    <message>
        <source>Time since the measured step began, s</source>
        <translation>Time since the measured step began, s</translation>
    </message>
    <message>
        <source>Rank memory, {unit}</source>
        <translation>Rank memory, {unit}</translation>
    </message>
    <message>
        <source>A simulation draws no timeline: it records each phase&apos;s peak under fake tensors, not memory over time. Measure draws one here.</source>
        <translation>A simulation draws no timeline: it records each phase&apos;s peak under fake tensors, not memory over time. Measure draws one here.</translation>
    </message>
    <message>
        <source>No memory samples arrived before the run stopped.</source>
        <translation>No memory samples arrived before the run stopped.</translation>
    </message>
    <message>
        <source>The memory of each rank through the measured step is drawn here during a run.</source>
        <translation>The memory of each rank through the measured step is drawn here during a run.</translation>
    </message>
    <message>
        <source>stage {s} · rank {r}</source>
        <translation>stage {s} · rank {r}</translation>
    </message>
</context>
<context>
    <name>Units</name>
    <message>
        <source>1 GB = 10⁹ B</source>
        <translation>1 GB = 10⁹ B</translation>
    </message>
    <message>
        <source>1 GiB = 2³⁰ B</source>
        <translation>1 GiB = 2³⁰ B</translation>
    </message>
    <message>
        <source>1 MB = 10⁶ B</source>
        <translation>1 MB = 10⁶ B</translation>
    </message>
    <message>
        <source>1 MiB = 2²⁰ B</source>
        <translation>1 MiB = 2²⁰ B</translation>
    </message>
    <message>
        <source>1 kB = 10³ B</source>
        <translation>1 kB = 10³ B</translation>
    </message>
    <message>
        <source>1 KiB = 2¹⁰ B</source>
        <translation>1 KiB = 2¹⁰ B</translation>
    </message>
    <message>
        <source>whole bytes</source>
        <translation>whole bytes</translation>
    </message>
    <message>
        <source>T</source>
        <translation>T</translation>
    </message>
    <message>
        <source>M</source>
        <translation>M</translation>
    </message>
    <message>
        <source>K</source>
        <translation>K</translation>
    </message>
    <message>
        <source>{v}{suffix}</source>
        <translation>{v}{suffix}</translation>
    </message>
    <message>
        <source>{n} B</source>
        <translation>{n} B</translation>
    </message>
    <message>
        <source>{v} ms</source>
        <translation>{v} ms</translation>
    </message>
    <message>
        <source>{v} s</source>
        <translation>{v} s</translation>
    </message>
    <message>
        <source>B</source>
        <translation>B</translation>
    </message>
    <message>
        <source>{n} s</source>
        <translation>{n} s</translation>
    </message>
    <message>
        <source>{n} min</source>
        <translation>{n} min</translation>
    </message>
    <message>
        <source>{n} h</source>
        <translation>{n} h</translation>
    </message>
</context>
<context>
    <name>WindowMenus</name>
    <message>
        <source>&amp;New</source>
        <translation>&amp;New</translation>
    </message>
    <message>
        <source>New plan</source>
        <translation>New plan</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>&amp;Open…</translation>
    </message>
    <message>
        <source>Open a plan file (*.zerodesk.json)</source>
        <translation>Open a plan file (*.zerodesk.json)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>&amp;Save</translation>
    </message>
    <message>
        <source>Save the plan</source>
        <translation>Save the plan</translation>
    </message>
    <message>
        <source>Save &amp;As…</source>
        <translation>Save &amp;As…</translation>
    </message>
    <message>
        <source>Save the plan under a new name</source>
        <translation>Save the plan under a new name</translation>
    </message>
    <message>
        <source>Export Chart as &amp;PNG…</source>
        <translation>Export Chart as &amp;PNG…</translation>
    </message>
    <message>
        <source>Export both charts with their captions as PNG</source>
        <translation>Export both charts with their captions as PNG</translation>
    </message>
    <message>
        <source>Export Chart as S&amp;VG…</source>
        <translation>Export Chart as S&amp;VG…</translation>
    </message>
    <message>
        <source>Export both charts with their captions as SVG</source>
        <translation>Export both charts with their captions as SVG</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Quit</translation>
    </message>
    <message>
        <source>Quit ZeroDesk</source>
        <translation>Quit ZeroDesk</translation>
    </message>
    <message>
        <source>&amp;Copy Table as Text</source>
        <translation>&amp;Copy Table as Text</translation>
    </message>
    <message>
        <source>Copy the per-stage table as text</source>
        <translation>Copy the per-stage table as text</translation>
    </message>
    <message>
        <source>Card &amp;Example</source>
        <translation>Card &amp;Example</translation>
    </message>
    <message>
        <source>P = 2·10⁹, Nd = 4, paper&apos;s Adam: 32 / 14 / 11 / 8 GB</source>
        <translation>P = 2·10⁹, Nd = 4, paper&apos;s Adam: 32 / 14 / 11 / 8 GB</translation>
    </message>
    <message>
        <source>&amp;Plan</source>
        <translation>&amp;Plan</translation>
    </message>
    <message>
        <source>Show the plan tab: both charts</source>
        <translation>Show the plan tab: both charts</translation>
    </message>
    <message>
        <source>&amp;Table</source>
        <translation>&amp;Table</translation>
    </message>
    <message>
        <source>Show the table tab</source>
        <translation>Show the table tab</translation>
    </message>
    <message>
        <source>&amp;Measure Tab</source>
        <translation>&amp;Measure Tab</translation>
    </message>
    <message>
        <source>Show the measure tab: simulate or measure a training step</source>
        <translation>Show the measure tab: simulate or measure a training step</translation>
    </message>
    <message>
        <source>Fit Ta&amp;b</source>
        <translation>Fit Ta&amp;b</translation>
    </message>
    <message>
        <source>Show the fit tab: the largest micro-batch and the lowest stage that fit, by Nd (predicted)</source>
        <translation>Show the fit tab: the largest micro-batch and the lowest stage that fit, by Nd (predicted)</translation>
    </message>
    <message>
        <source>S&amp;imulate</source>
        <translation>S&amp;imulate</translation>
    </message>
    <message>
        <source>Simulate one full-size step of rank 0 under fake tensors (for models this machine cannot hold)</source>
        <translation>Simulate one full-size step of rank 0 under fake tensors (for models this machine cannot hold)</translation>
    </message>
    <message>
        <source>Measu&amp;re</source>
        <translation>Measu&amp;re</translation>
    </message>
    <message>
        <source>Measure one real training step per stage on local ranks</source>
        <translation>Measure one real training step per stage on local ranks</translation>
    </message>
    <message>
        <source>&amp;Find Claim…</source>
        <translation>&amp;Find Claim…</translation>
    </message>
    <message>
        <source>Filter the glossary&apos;s claims</source>
        <translation>Filter the glossary&apos;s claims</translation>
    </message>
    <message>
        <source>Switch &amp;Units (GB / GiB)</source>
        <translation>Switch &amp;Units (GB / GiB)</translation>
    </message>
    <message>
        <source>Switch between GB (10⁹ B) and GiB (2³⁰ B)</source>
        <translation>Switch between GB (10⁹ B) and GiB (2³⁰ B)</translation>
    </message>
    <message>
        <source>&amp;About ZeroDesk</source>
        <translation>&amp;About ZeroDesk</translation>
    </message>
    <message>
        <source>Next Language</source>
        <translation>Next Language</translation>
    </message>
    <message>
        <source>Switch the interface language</source>
        <translation>Switch the interface language</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;File</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>Open &amp;Recent</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>&amp;Edit</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;View</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>&amp;Language</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Help</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>&amp;Theme</translation>
    </message>
    <message>
        <source>Follow the &amp;System</source>
        <translation>Follow the &amp;System</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>&amp;Light</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>&amp;Dark</translation>
    </message>
    <message>
        <source>Main toolbar</source>
        <translation>Main toolbar</translation>
    </message>
    <message>
        <source>Clear List</source>
        <translation>Clear List</translation>
    </message>
    <message>
        <source>No recent plans</source>
        <translation>No recent plans</translation>
    </message>
    <message>
        <source>About ZeroDesk</source>
        <translation>About ZeroDesk</translation>
    </message>
    <message>
        <source>&lt;b&gt;ZeroDesk {version}&lt;/b&gt;&lt;p&gt;Plans the memory of ZeRO data-parallel training: per-rank model states by stage, from the ZeRO paper&apos;s accounting (§3.1, §5) or PyTorch&apos;s engines.&lt;/p&gt;&lt;p&gt;Figures are computed model states; the peak of a step adds activations, temporary buffers and fragmentation (§3.2).&lt;/p&gt;</source>
        <translation>&lt;b&gt;ZeroDesk {version}&lt;/b&gt;&lt;p&gt;Plans the memory of ZeRO data-parallel training: per-rank model states by stage, from the ZeRO paper&apos;s accounting (§3.1, §5) or PyTorch&apos;s engines.&lt;/p&gt;&lt;p&gt;Figures are computed model states; the peak of a step adds activations, temporary buffers and fragmentation (§3.2).&lt;/p&gt;</translation>
    </message>
</context>
</TS>
