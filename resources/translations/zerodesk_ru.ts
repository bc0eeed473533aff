<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ru_RU" sourcelanguage="en_US">
<context>
    <name>ByteUnits</name>
    <message>
        <source>MB</source>
        <translation>МБ</translation>
    </message>
    <message>
        <source>kB</source>
        <translation>кБ</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>МиБ</translation>
    </message>
    <message>
        <source>KiB</source>
        <translation>КиБ</translation>
    </message>
    <message>
        <source>B</source>
        <translation>Б</translation>
    </message>
</context>
<context>
    <name>BytesFigure</name>
    <message>
        <source>Optimizer states K = 12: {v}</source>
        <translation>Состояния оптимизатора K = 12: {v}</translation>
    </message>
</context>
<context>
    <name>CommRows</name>
    <message>
        <source>all {n}</source>
        <translation>все участники ({n})</translation>
    </message>
    <message>
        <source>group of {n}</source>
        <translation>группа, N = {n}</translation>
    </message>
    <message>
        <source>{n} replicas</source>
        <translation>реплики: {n}</translation>
    </message>
    <message>
        <source>hpZ group of {n}</source>
        <translation>группа hpZ, N = {n}</translation>
    </message>
    <message>
        <source>{op}, {group}: {intra} + {inter}</source>
        <translation>{op}, {group}: {intra} + {inter}</translation>
    </message>
    <message>
        <source>Inside a node per step ({bw} GB/s)</source>
        <translation>Внутри узла за шаг ({bw} ГБ/с)</translation>
    </message>
    <message>
        <source>Between nodes per step ({bw} GB/s)</source>
        <translation>Между узлами за шаг ({bw} ГБ/с)</translation>
    </message>
    <message>
        <source>Communication time, at least</source>
        <translation>Время обменов, не меньше</translation>
    </message>
    <message>
        <source>Collectives: in the node + between</source>
        <translation>Коллективные операции: внутри узла + между узлами</translation>
    </message>
    <message>
        <source>gradients are reduced on every micro-batch</source>
        <translation>градиенты сводятся после каждого микробатча</translation>
    </message>
    <message>
        <source>gradients are reduced on the last micro-batch only</source>
        <translation>градиенты сводятся только в последнем микробатче</translation>
    </message>
    <message>
        <source>A step here is {k} micro-batches: {reduced}, and parameters resharded between micro-batches (stage 3, and FSDP2&apos;s stage 2) are gathered again for each.</source>
        <translation>Шаг здесь — микробатчей: {k}; {reduced}, а параметры, снова разделяемые между микробатчами (стадия 3 и стадия 2 в FSDP2), собираются заново для каждого.</translation>
    </message>
    <message>
        <source>shard group of {n}, {r} replicas</source>
        <translation>группа разделения N = {n}, реплики: {r}</translation>
    </message>
    <message>
        <source>no shard group</source>
        <translation>без группы разделения</translation>
    </message>
    <message>
        <source>Communication by link ({layout}; {nodes} × {gpus} GPUs): ring collectives at nominal bandwidths; compute is not modelled and overlap hides part of the time, so these are lower bounds. §7: stage 3 moves {ratio}× stage 2&apos;s traffic here, at least {t3} against {t2} a step.</source>
        <translation>Обмены по каналам ({layout}; {nodes} × {gpus} GPU): кольцевые коллективные операции при номинальной пропускной способности; вычисления не учитываются, а перекрытие скрывает часть времени, поэтому это нижние оценки. §7: здесь стадия 3 передаёт {ratio}× от объёма стадии 2 — не меньше {t3} против {t2} за шаг.</translation>
    </message>
</context>
<context>
    <name>ConfigTable</name>
    <message>
        <source>Largest micro-batch per stage and recompute mode</source>
        <translation>Наибольший микробатч по стадиям и режимам пересчёта активаций</translation>
    </message>
    <message>
        <source>Stage</source>
        <translation>Стадия</translation>
    </message>
    <message>
        <source>Recompute</source>
        <translation>Пересчёт</translation>
    </message>
    <message>
        <source>Largest
micro-batch</source>
        <translation>Наибольший
микробатч</translation>
    </message>
    <message>
        <source>Peak there
({unit})</source>
        <translation>Пик при нём
({unit})</translation>
    </message>
    <message>
        <source>Peak at one more
({unit})</source>
        <translation>Пик при микробатче + 1
({unit})</translation>
    </message>
    <message>
        <source>Longest sequence
(micro-batch 1)</source>
        <translation>Наибольшая длина
последовательности (микробатч 1)</translation>
    </message>
    <message>
        <source>Fewest Nd
(micro-batch 1)</source>
        <translation>Наименьшее Nd
(микробатч 1)</translation>
    </message>
    <message>
        <source>Communication
per step ({unit})</source>
        <translation>Обмены
за шаг ({unit})</translation>
    </message>
    <message numerus="yes">
        <source>Communication per step
of {k} micro-batches ({unit})</source>
        <translation>
            <numerusform>Обмены за шаг
из {k} микробатча ({unit})</numerusform>
            <numerusform>Обмены за шаг
из {k} микробатчей ({unit})</numerusform>
            <numerusform>Обмены за шаг
из {k} микробатчей ({unit})</numerusform>
        </translation>
    </message>
    <message>
        <source>none</source>
        <translation>нет</translation>
    </message>
</context>
<context>
    <name>CoreFormulas</name>
    <message>
        <source>(whole tensors)</source>
        <translation>(целые тензоры)</translation>
    </message>
    <message>
        <source>(dim 0 padded)</source>
        <translation>(с дополнением по измерению 0)</translation>
    </message>
    <message>
        <source>buckets</source>
        <translation>бакеты</translation>
    </message>
</context>
<context>
    <name>CoreNotes</name>
    <message>
        <source>scheme {scheme} is outside the ZeRO paper&apos;s §3.1 accounting</source>
        <translation>схема «{scheme}» выходит за рамки учёта статьи ZeRO (§3.1)</translation>
    </message>
    <message>
        <source>the torch profile models AdamW with fp32 states and the plan&apos;s mixed-precision policy; scheme {scheme} does not apply</source>
        <translation>профиль «torch» учитывает AdamW с состояниями в FP32 и политикой смешанной точности плана; схема «{scheme}» здесь не применяется</translation>
    </message>
    <message>
        <source>raw parameter count: tensor shapes unknown, so sharding is taken as even</source>
        <translation>задано только число параметров: формы тензоров неизвестны, поэтому разделение считается равным</translation>
    </message>
    <message>
        <source>{knobs}: PyTorch&apos;s engines only; the paper profile keeps its scheme&apos;s dtypes and units</source>
        <translation>{knobs}: только для движков PyTorch; профиль «статья» сохраняет типы данных и единицы своей схемы</translation>
    </message>
    <message>
        <source>FSDP2 CPUOffloadPolicy: AdamW steps on the CPU; its time is not modelled</source>
        <translation>FSDP2 CPUOffloadPolicy: шаг AdamW выполняется на CPU; его время не учитывается</translation>
    </message>
    <message>
        <source>ZeRO-Offload partitions gradients as ZeRO-2 does: shown at stages 2 and 3</source>
        <translation>ZeRO-Offload разделяет градиенты как ZeRO-2: показано на стадиях 2 и 3</translation>
    </message>
    <message>
        <source>parameters are offloaded only when they are partitioned: stage 3</source>
        <translation>параметры переносятся, только когда они разделены: стадия 3</translation>
    </message>
    <message>
        <source>FSDP2 has no optimizer-only offload: choose optimizer+params</source>
        <translation>в FSDP2 нельзя перенести только состояния оптимизатора: выберите «+ параметры»</translation>
    </message>
    <message>
        <source>FSDP2&apos;s CPUOffloadPolicy offloads to host memory only, not NVMe</source>
        <translation>CPUOffloadPolicy в FSDP2 переносит только в память хоста, не на NVMe</translation>
    </message>
    <message>
        <source>DDP and ZeroRedundancyOptimizer have no CPU offload; FSDP2 (stages 2-3) has</source>
        <translation>у DDP и ZeroRedundancyOptimizer нет переноса на CPU; у FSDP2 (стадии 2–3) есть</translation>
    </message>
</context>
<context>
    <name>DiskChanges</name>
    <message>
        <source>“{name}” was changed on disk by another program or window since it was opened or saved here.</source>
        <translation>«{name}» изменён на диске другой программой или другим окном после открытия или сохранения здесь.</translation>
    </message>
    <message>
        <source>“{name}” was deleted from the disk since it was opened or saved here.</source>
        <translation>«{name}» удалён с диска после открытия или сохранения здесь.</translation>
    </message>
    <message>
        <source>“{name}” was created on disk by another program or window since this window last looked.</source>
        <translation>«{name}» создан на диске другой программой или другим окном после того, как это окно проверяло его в последний раз.</translation>
    </message>
    <message>
        <source>“{name}” now leads to another file, {target}, since it was opened or saved here.</source>
        <translation>«{name}» после открытия или сохранения здесь стал указывать на другой файл: {target}.</translation>
    </message>
    <message>
        <source>“{name}” was replaced by a folder since it was opened or saved here.</source>
        <translation>«{name}» после открытия или сохранения здесь заменён папкой.</translation>
    </message>
    <message>
        <source>“{name}” was replaced by a named pipe (FIFO) since it was opened or saved here.</source>
        <translation>«{name}» после открытия или сохранения здесь заменён именованным каналом (FIFO).</translation>
    </message>
    <message>
        <source>“{name}” was replaced by a device since it was opened or saved here.</source>
        <translation>«{name}» после открытия или сохранения здесь заменён файлом устройства.</translation>
    </message>
    <message>
        <source>“{name}” was replaced by a socket since it was opened or saved here.</source>
        <translation>«{name}» после открытия или сохранения здесь заменён сокетом.</translation>
    </message>
    <message>
        <source>“{name}” is no longer a regular file since it was opened or saved here.</source>
        <translation>«{name}» после открытия или сохранения здесь перестал быть обычным файлом.</translation>
    </message>
    <message>
        <source>“{name}” was changed on disk and can no longer be read here.</source>
        <translation>«{name}» изменён на диске, и прочитать его здесь больше нельзя.</translation>
    </message>
    <message>
        <source>Save this plan there again, or as another file?</source>
        <translation>Сохранить план туда снова или в другой файл?</translation>
    </message>
    <message>
        <source>Overwrite those changes with this plan, or save it as another file?</source>
        <translation>Записать этот план поверх тех изменений или сохранить его в другой файл?</translation>
    </message>
    <message>
        <source>Nothing was written there. Save this plan as another file?</source>
        <translation>Туда ничего не записано. Сохранить план в другой файл?</translation>
    </message>
    <message>
        <source>File changed on disk</source>
        <translation>Файл изменён на диске</translation>
    </message>
    <message>
        <source>Save As…</source>
        <translation>Сохранить как…</translation>
    </message>
    <message>
        <source>Save Again</source>
        <translation>Сохранить снова</translation>
    </message>
    <message>
        <source>Overwrite</source>
        <translation>Перезаписать</translation>
    </message>
    <message>
        <source>Other hard links to “{name}” still hold the previous version: the save replaced the file under this name only.</source>
        <translation>Другие жёсткие ссылки на «{name}» по-прежнему ведут к прежней версии: сохранение заменило файл только под этим именем.</translation>
    </message>
    <message>
        <source>“{name}” could not keep its owner or group: the saved file now belongs to the account that saved it.</source>
        <translation>У «{name}» не удалось сохранить владельца или группу: сохранённый файл теперь принадлежит учётной записи, которая его сохранила.</translation>
    </message>
</context>
<context>
    <name>DpChart</name>
    <message>
        <source>Data-parallel degree Nd (log scale)</source>
        <translation>Степень параллелизма по данным Nd (логарифмическая шкала)</translation>
    </message>
    <message>
        <source>{unit} per rank</source>
        <translation>{unit} на участника</translation>
    </message>
    <message>
        <source>current Nd = {nd}</source>
        <translation>текущее Nd = {nd}</translation>
    </message>
    <message>
        <source>GPU memory {v}</source>
        <translation>Память GPU {v}</translation>
    </message>
    <message>
        <source>{gpu}, above the chart</source>
        <translation>{gpu} — выше диаграммы</translation>
    </message>
    <message>
        <source>{v} per rank</source>
        <translation>{v} на участника</translation>
    </message>
    <message>
        <source>Computed, {profile}.</source>
        <translation>Расчёт по формулам, {profile}.</translation>
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
        <translation>(группа разделения сохраняется при росте Nd)</translation>
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
        <translation>симуляция · участник 0 из {n}, тензоры без данных</translation>
    </message>
    <message>
        <source>measured · {device}, {n} ranks</source>
        <translation>измерено · {device}, участников: {n}</translation>
    </message>
</context>
<context>
    <name>FileCommands</name>
    <message>
        <source>Unsaved changes</source>
        <translation>Несохранённые изменения</translation>
    </message>
    <message>
        <source>The plan “{name}” has unsaved changes. Save them?</source>
        <translation>В плане «{name}» есть несохранённые изменения. Сохранить их?</translation>
    </message>
    <message>
        <source>Invalid fields</source>
        <translation>Ошибки в полях</translation>
    </message>
    <message>
        <source>Some fields are invalid. Save the last valid plan (what the chart shows)?</source>
        <translation>В некоторых полях ошибки. Сохранить последний корректный план (тот, что на диаграмме)?</translation>
    </message>
    <message>
        <source>Opening {path}…</source>
        <translation>Открытие {path}…</translation>
    </message>
    <message>
        <source>Cannot open the plan</source>
        <translation>Не удаётся открыть план</translation>
    </message>
    <message>
        <source>Cannot show plan file {path}: {reason}</source>
        <translation>Не удаётся показать файл плана {path}: {reason}</translation>
    </message>
    <message>
        <source>Opened {path}</source>
        <translation>Открыт {path}</translation>
    </message>
    <message>
        <source>Cannot save the plan</source>
        <translation>Не удаётся сохранить план</translation>
    </message>
    <message>
        <source>Saved {path}</source>
        <translation>Сохранён {path}</translation>
    </message>
    <message>
        <source>Save will ask before writing there.</source>
        <translation>При сохранении программа сначала спросит, записывать ли туда.</translation>
    </message>
    <message>
        <source>File changed on disk</source>
        <translation>Файл изменён на диске</translation>
    </message>
    <message>
        <source>“{name}” was changed on disk. Reload it and lose the changes made here?</source>
        <translation>«{name}» изменён на диске. Загрузить его заново и потерять изменения, сделанные здесь?</translation>
    </message>
    <message>
        <source>Saved</source>
        <translation>Сохранено</translation>
    </message>
    <message>
        <source>“{name}” was changed on disk. Reload it?</source>
        <translation>«{name}» изменён на диске. Загрузить его заново?</translation>
    </message>
    <message>
        <source>Exported {path}</source>
        <translation>Экспортировано: {path}</translation>
    </message>
    <message>
        <source>Cannot export the chart</source>
        <translation>Не удаётся экспортировать диаграмму</translation>
    </message>
    <message>
        <source>Could not write {path}.</source>
        <translation>Не удалось записать {path}.</translation>
    </message>
    <message>
        <source>Table copied as text</source>
        <translation>Таблица скопирована как текст</translation>
    </message>
</context>
<context>
    <name>Files</name>
    <message>
        <source>ZeroDesk plans (*{suffix})</source>
        <translation>Планы ZeroDesk (*{suffix})</translation>
    </message>
    <message>
        <source>Untitled</source>
        <translation>Без имени</translation>
    </message>
    <message>
        <source>Open plan</source>
        <translation>Открыть план</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>Все файлы (*)</translation>
    </message>
    <message>
        <source>Save plan as</source>
        <translation>Сохранить план как</translation>
    </message>
    <message>
        <source>Export chart</source>
        <translation>Экспорт диаграммы</translation>
    </message>
    <message>
        <source>SVG images (*.svg)</source>
        <translation>Изображения SVG (*.svg)</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>Изображения PNG (*.png)</translation>
    </message>
</context>
<context>
    <name>FitTab</name>
    <message>
        <source>{n} field(s) need attention; the view shows the last valid plan.</source>
        <translation>Полей с ошибками: {n}; вкладка показывает последний корректный план.</translation>
    </message>
    <message>
        <source>stage {stage} fits: peak {peak}, headroom {room}</source>
        <translation>помещается стадия {stage}: пик {peak}, свободно {room}</translation>
    </message>
    <message>
        <source>nothing fits; the lowest peak, stage {stage}: {peak}, over by {room}</source>
        <translation>ничего не помещается; наименьший пик у стадии {stage}: {peak}, превышение {room}</translation>
    </message>
    <message>
        <source>Nd = {dp} · micro-batch {mb}: {what}.</source>
        <translation>Nd = {dp} · микробатч {mb}: {what}.</translation>
    </message>
    <message>
        <source>Hover a cell for its peaks; click it, or choose it with the arrow keys and Enter, to set the plan there.</source>
        <translation>Наведите указатель на клетку, чтобы увидеть её пики; щелчок по клетке или выбор стрелками и Enter задаёт в плане её Nd и микробатч.</translation>
    </message>
    <message>
        <source>Fit map: the lowest ZeRO stage that fits, by Nd and micro-batch</source>
        <translation>Карта: наименьшая стадия ZeRO, которая помещается, по Nd и микробатчу</translation>
    </message>
    <message>
        <source>Data-parallel degree Nd</source>
        <translation>Степень параллелизма по данным Nd</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>Микробатч</translation>
    </message>
    <message>
        <source>Export Fit View as PNG…</source>
        <translation>Экспорт вкладки «Что помещается» в PNG…</translation>
    </message>
    <message>
        <source>Export Fit View as SVG…</source>
        <translation>Экспорт вкладки «Что помещается» в SVG…</translation>
    </message>
    <message>
        <source>What fits on one GPU</source>
        <translation>Что помещается на одном GPU</translation>
    </message>
    <message>
        <source>What fits needs the memory of one GPU: choose a GPU or give its memory.</source>
        <translation>Чтобы узнать, что помещается, нужна память одного GPU: выберите GPU или укажите его память.</translation>
    </message>
    <message>
        <source>The CUDA allowance leaves nothing of the GPU&apos;s memory: make it smaller than the GPU&apos;s memory.</source>
        <translation>Запас CUDA не оставляет памяти GPU: сделайте его меньше памяти GPU.</translation>
    </message>
    <message>
        <source>this plan</source>
        <translation>этот план</translation>
    </message>
    <message>
        <source>Colour: the lowest stage that fits, at the plan&apos;s sequence and recompute.</source>
        <translation>Цвет — наименьшая стадия, которая помещается, при последовательности и пересчёте активаций из плана.</translation>
    </message>
</context>
<context>
    <name>FitTexts</name>
    <message>
        <source>without recompute</source>
        <translation>без пересчёта активаций</translation>
    </message>
    <message>
        <source>with selective recompute</source>
        <translation>с выборочным пересчётом активаций</translation>
    </message>
    <message>
        <source>with full recompute</source>
        <translation>с полным пересчётом активаций</translation>
    </message>
    <message>
        <source>none</source>
        <translation>нет</translation>
    </message>
    <message>
        <source>selective</source>
        <translation>выборочный</translation>
    </message>
    <message>
        <source>full</source>
        <translation>полный</translation>
    </message>
    <message>
        <source>{first} and {last}</source>
        <translation>{first} и {last}</translation>
    </message>
    <message>
        <source>Stage {stage} {recompute} fits micro-batch {mb} with the least communication per step: {comm}.</source>
        <translation>Стадия {stage} {recompute} вмещает микробатч {mb} с наименьшими обменами за шаг: {comm}.</translation>
    </message>
    <message>
        <source>Stage {stages} moves as much but peaks higher.</source>
        <translation>У стадии {stages} обмены те же, но пик выше.</translation>
    </message>
    <message>
        <source>Stages {stages} move as much but peak higher.</source>
        <translation>У стадий {stages} обмены те же, но пики выше.</translation>
    </message>
    <message>
        <source>Nothing fits it with less recompute at that communication.</source>
        <translation>С меньшим пересчётом активаций при тех же обменах он не помещается.</translation>
    </message>
    <message>
        <source>Nothing fits micro-batch {wanted} at Nd = {dp}; stage {stage} {recompute} fits the most, {mb}, moving {comm} per step.</source>
        <translation>Микробатч {wanted} не помещается ни в одной конфигурации при Nd = {dp}; больше всего вмещает стадия {stage} {recompute} — {mb}, обмены за шаг: {comm}.</translation>
    </message>
    <message>
        <source>Nothing fits micro-batch 1 at Nd = {dp}; stage {stage} {recompute} fits from Nd = {min_dp}.</source>
        <translation>Микробатч 1 не помещается ни в одной конфигурации при Nd = {dp}; стадия {stage} {recompute} помещается начиная с Nd = {min_dp}.</translation>
    </message>
    <message>
        <source>Nothing fits micro-batch 1 at Nd = {dp}, nor at any Nd searched.</source>
        <translation>Микробатч 1 не помещается ни при Nd = {dp}, ни при одном из просмотренных Nd.</translation>
    </message>
    <message>
        <source>Recommended: nothing fits.</source>
        <translation>Рекомендовать нечего: ничего не помещается.</translation>
    </message>
    <message>
        <source>Recommended: stage {stage} {recompute}, micro-batch {mb}.</source>
        <translation>Рекомендуется: стадия {stage} {recompute}, микробатч {mb}.</translation>
    </message>
    <message>
        <source>predicted (closed-form peak), {profile}</source>
        <translation>прогноз (пик по формулам), {profile}</translation>
    </message>
    <message>
        <source>What fits on one GPU</source>
        <translation>Что помещается на одном GPU</translation>
    </message>
    <message>
        <source>Sequence {seq} · recompute {recompute} · Nd = {dp} · micro-batch {mb}</source>
        <translation>Последовательность {seq} · пересчёт активаций: {recompute} · Nd = {dp} · микробатч {mb}</translation>
    </message>
    <message>
        <source>Usable: {usable} per GPU ({gpu} less a CUDA allowance of {allowance}); figures in {unit} ({note})</source>
        <translation>Доступно: {usable} на GPU ({gpu} за вычетом запаса CUDA {allowance}); значения в {unit} ({note})</translation>
    </message>
    <message>
        <source>Usable: {usable} per GPU (no CUDA allowance set); figures in {unit} ({note})</source>
        <translation>Доступно: {usable} на GPU (запас CUDA не задан); значения в {unit} ({note})</translation>
    </message>
    <message>
        <source>Peaks are predicted full-step peaks without the CUDA allowance, so each compares with the usable memory; fragmentation is not predicted: Simulate or Measure the boundary.</source>
        <translation>Пики — прогноз пика памяти полного шага без запаса CUDA, поэтому каждый сравнивается с доступной памятью; фрагментация не прогнозируется: симулируйте или измерьте границу.</translation>
    </message>
    <message>
        <source>Without the architecture (a raw count or a tensor list) activations are unknown: these peaks hold the states and token ids only, so the micro-batch and sequence answers are upper bounds.</source>
        <translation>Без архитектуры (только число параметров или список тензоров) активации неизвестны: в этих пиках только состояния и идентификаторы токенов, поэтому ответы о микробатче и последовательности — верхние границы.</translation>
    </message>
    <message>
        <source>Offload is shown apart: these peaks keep every state on the GPU.</source>
        <translation>Перенос состояний (offload) показан отдельно: в этих пиках все состояния остаются на GPU.</translation>
    </message>
    <message>
        <source>The peak&apos;s moments and its total disagreed on this plan, so every answer was searched with the total alone.</source>
        <translation>Моменты пика и его итог для этого плана разошлись, поэтому все ответы найдены только по итогу.</translation>
    </message>
    <message>
        <source>Fewest Nd: the powers of two from 1 to {top} were searched.</source>
        <translation>Наименьшее Nd: просмотрены степени двойки от 1 до {top}.</translation>
    </message>
    <message>
        <source>Fewest Nd: the divisors of nodes × GPUs per node = {world} were searched (the map shows other Nd too).</source>
        <translation>Наименьшее Nd: просмотрены Nd, которым кратно число узлов × GPU на узел = {world} (на карте есть и другие Nd).</translation>
    </message>
    <message>
        <source>Nd = {dp} · micro-batch {mb}</source>
        <translation>Nd = {dp} · микробатч {mb}</translation>
    </message>
    <message>
        <source>no stage fits</source>
        <translation>ни одна стадия не помещается</translation>
    </message>
    <message>
        <source>lowest stage that fits: {stage}</source>
        <translation>наименьшая стадия, которая помещается: {stage}</translation>
    </message>
    <message>
        <source>Predicted peak, {profile}, sequence {seq}, recompute {recompute}:</source>
        <translation>Прогноз пика ({profile}, последовательность {seq}, пересчёт активаций: {recompute}):</translation>
    </message>
    <message>
        <source>{stage}: {peak}, headroom {room} (fits up to micro-batch {most})</source>
        <translation>{stage}: {peak}, свободно {room} (помещается микробатч до {most})</translation>
    </message>
    <message>
        <source>{stage}: {peak}, over by {over}</source>
        <translation>{stage}: {peak}, превышение {over}</translation>
    </message>
    <message>
        <source>Usable: {usable} per GPU. Click or Enter: set the plan to this Nd and micro-batch.</source>
        <translation>Доступно: {usable} на GPU. Щелчок или Enter — задать в плане эти Nd и микробатч.</translation>
    </message>
    <message>
        <source>Cheapest recompute that fits micro-batch {mb} at sequence {seq} (the least forward work rerun):</source>
        <translation>Самый дешёвый пересчёт активаций, при котором помещается микробатч {mb} при последовательности {seq} (меньше всего повторной работы прямого прохода):</translation>
    </message>
    <message>
        <source>{stage}: nothing fits, not even full recompute on every block</source>
        <translation>{stage}: ничего не помещается, даже с полным пересчётом активаций в каждом блоке</translation>
    </message>
    <message>
        <source>{stage}: no recompute needed (predicted peak {peak})</source>
        <translation>{stage}: пересчёт активаций не нужен (прогноз пика {peak})</translation>
    </message>
    <message>
        <source>{stage}: {mode} recompute on every block (predicted peak {peak})</source>
        <translation>{stage}: {mode} пересчёт активаций в каждом блоке (прогноз пика {peak})</translation>
    </message>
    <message>
        <source>{stage}: {mode} recompute on one block in {k} ({n} of {layers} blocks; predicted peak {peak})</source>
        <translation>{stage}: {mode} пересчёт активаций в одном блоке из каждых {k} (блоков: {n} из {layers}; прогноз пика {peak})</translation>
    </message>
    <message>
        <source>nothing fits</source>
        <translation>ничего не помещается</translation>
    </message>
</context>
<context>
    <name>FormMessages</name>
    <message>
        <source>{name} must be a number of {unit} greater than 0, at most {hi}, such as 2 or 1.5; leave it empty for none.</source>
        <translation>{name} — число в {unit} больше 0, не больше {hi}, например 2 или 1,5; оставьте поле пустым, если её нет.</translation>
    </message>
    <message>
        <source>{name} must be a number of {unit} from 0 to {hi}, such as 2 or 1.5; leave it empty for 0.</source>
        <translation>{name} — число в {unit} от 0 до {hi}, например 2 или 1,5; пустое поле означает 0.</translation>
    </message>
    <message>
        <source>GPU memory must be a number of {unit} greater than 0, such as 80 or 79.5; leave it empty for no GPU line.</source>
        <translation>Память GPU — число в {unit} больше 0, например 80 или 79,5; оставьте поле пустым, чтобы не рисовать линию GPU.</translation>
    </message>
    <message>
        <source>Parameters P must be a count such as 2e9, 7B, 350M or 1.5T, from 1 to {hi}.</source>
        <translation>Параметры P — число вида 2e9, 7B, 350M или 1.5T, от 1 до {hi}.</translation>
    </message>
    <message>
        <source>Nd must divide nodes × GPUs per node ({world}): for example {divisors}.</source>
        <translation>Произведение «узлы × GPU на узел» ({world}) должно быть кратно Nd; подходящие Nd: {divisors}.</translation>
    </message>
    <message>
        <source>The shard group must divide Nd ({nd}): for example {divisors}.</source>
        <translation>Nd ({nd}) должно быть кратно группе разделения; подходят, например: {divisors}.</translation>
    </message>
    <message>
        <source>hpZ is a paper-profile choice: PyTorch&apos;s engines keep no second shard. Choose HSDP, or the paper profile.</source>
        <translation>hpZ — вариант профиля «статья»: движки PyTorch не держат второй доли. Выберите HSDP или профиль «статья».</translation>
    </message>
    <message>
        <source>Nodes × GPUs per node must be at most {max}.</source>
        <translation>Произведение «узлы × GPU на узел» — не больше {max}.</translation>
    </message>
    <message>
        <source>Hidden ({hidden}) must be a multiple of heads ({heads}), unless the head dim is given.</source>
        <translation>Ширина ({hidden}) должна быть кратна числу голов ({heads}), если не задана размерность головы.</translation>
    </message>
    <message>
        <source>Heads ({heads}) must be a multiple of KV heads ({kv}).</source>
        <translation>Число голов ({heads}) должно быть кратно числу голов KV ({kv}).</translation>
    </message>
    <message>
        <source>FFN is empty and cannot default yet: give Hidden first, or a whole number.</source>
        <translation>FFN пусто, и значение по умолчанию пока не вычислить: сначала задайте ширину или введите целое число.</translation>
    </message>
    <message>
        <source>{name} must be a whole number from {lo} to {hi}.</source>
        <translation>{name}: нужно целое число от {lo} до {hi}.</translation>
    </message>
    <message>
        <source>{name} must be a number greater than {lo}, at most {hi}.</source>
        <translation>{name}: нужно число больше {lo}, но не больше {hi}.</translation>
    </message>
    <message>
        <source>{name} must be a whole number.</source>
        <translation>{name}: нужно целое число.</translation>
    </message>
    <message>
        <source>{name} must be a number.</source>
        <translation>{name}: нужно число.</translation>
    </message>
    <message>
        <source>{name}: choose one of the listed values.</source>
        <translation>{name}: выберите одно из значений списка.</translation>
    </message>
</context>
<context>
    <name>GlobalBatchPanel</name>
    <message>
        <source>Global batch: type a whole number of sequences from 1 to {top}.</source>
        <translation>Глобальный батч: введите целое число последовательностей от 1 до {top}.</translation>
    </message>
    <message>
        <source>Global batch: {g} is not a multiple of Nd ({dp}); every rank takes the same number of sequences per step.</source>
        <translation>Глобальный батч: {g} не кратен Nd ({dp}); каждый участник берёт за шаг одинаковое число последовательностей.</translation>
    </message>
    <message>
        <source>No micro-batch of it fits, with or without accumulation.</source>
        <translation>Ни один микробатч из него не помещается ни с накоплением, ни без него.</translation>
    </message>
    <message numerus="yes">
        <source>{k} steps of micro-batch {mb}; communication per step: {comm}</source>
        <translation>
            <numerusform>{k} шаг с микробатчем {mb}; обмены за шаг: {comm}</numerusform>
            <numerusform>{k} шага с микробатчем {mb}; обмены за шаг: {comm}</numerusform>
            <numerusform>{k} шагов с микробатчем {mb}; обмены за шаг: {comm}</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Global batch {g} at Nd = {dp}: {n} sequences per rank per step.</source>
        <translation>
            <numerusform>Глобальный батч {g} при Nd = {dp}: {n} последовательность на участника за шаг.</numerusform>
            <numerusform>Глобальный батч {g} при Nd = {dp}: {n} последовательности на участника за шаг.</numerusform>
            <numerusform>Глобальный батч {g} при Nd = {dp}: {n} последовательностей на участника за шаг.</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing reaches it: no micro-batch of it fits, with or without accumulation.</source>
        <translation>Его не достичь: ни один микробатч из него не помещается ни с накоплением, ни без него.</translation>
    </message>
    <message>
        <source>Stage {stage} {recompute} takes it in one step of micro-batch {mb}, without accumulation, moving {comm} per step.</source>
        <translation>Стадия {stage} {recompute} берёт его за один шаг с микробатчем {mb}, без накопления; обмены за шаг: {comm}.</translation>
    </message>
    <message>
        <source>gradients reduced on every micro-batch</source>
        <translation>градиенты сводятся после каждого микробатча</translation>
    </message>
    <message>
        <source>gradients reduced on the last micro-batch only</source>
        <translation>градиенты сводятся только в последнем микробатче</translation>
    </message>
    <message numerus="yes">
        <source>Fewest accumulation steps: stage {stage} {recompute}, {k} steps of micro-batch {mb}, moving {comm} per step ({when}).</source>
        <translation>
            <numerusform>Меньше всего шагов накопления: стадия {stage} {recompute}, {k} шаг с микробатчем {mb}; обмены за шаг: {comm} ({when}).</numerusform>
            <numerusform>Меньше всего шагов накопления: стадия {stage} {recompute}, {k} шага с микробатчем {mb}; обмены за шаг: {comm} ({when}).</numerusform>
            <numerusform>Меньше всего шагов накопления: стадия {stage} {recompute}, {k} шагов с микробатчем {mb}; обмены за шаг: {comm} ({when}).</numerusform>
        </translation>
    </message>
    <message>
        <source>Global batch:</source>
        <translation>Глобальный батч:</translation>
    </message>
    <message>
        <source>sequences per optimizer step</source>
        <translation>последовательностей на шаг оптимизатора</translation>
    </message>
    <message>
        <source>The global batch wanted (sequences per optimizer step, all ranks): the fewest accumulation steps that reach it at the plan&apos;s Nd, per stage and recompute mode</source>
        <translation>Нужный глобальный батч (последовательностей на шаг оптимизатора, все участники): наименьшее число шагов накопления, которое его даёт при Nd плана, по стадиям и режимам пересчёта активаций</translation>
    </message>
    <message>
        <source>Accumulation steps × micro-batch for the global batch, per stage and recompute mode</source>
        <translation>Шаги накопления × микробатч для глобального батча по стадиям и режимам пересчёта активаций</translation>
    </message>
</context>
<context>
    <name>GlossaryCard</name>
    <message>
        <source>Filter claims…</source>
        <translation>Фильтр утверждений…</translation>
    </message>
    <message>
        <source>Filter glossary claims</source>
        <translation>Фильтр утверждений глоссария</translation>
    </message>
    <message>
        <source>Glossary card</source>
        <translation>Карточка глоссария</translation>
    </message>
    <message>
        <source>What to check</source>
        <translation>Что проверить</translation>
    </message>
    <message>
        <source>What to check (checklist)</source>
        <translation>Что проверить (чек-лист)</translation>
    </message>
    <message>
        <source>{origin}: {text}</source>
        <translation>{origin}: {text}</translation>
    </message>
    <message>
        <source>Card</source>
        <translation>Карточка</translation>
    </message>
    <message>
        <source>Card, adapted</source>
        <translation>Карточка, адаптировано</translation>
    </message>
    <message>
        <source>ZeRO paper {sections}</source>
        <translation>Статья ZeRO, {sections}</translation>
    </message>
    <message>
        <source>PyTorch: {apis}</source>
        <translation>PyTorch: {apis}</translation>
    </message>
    <message>
        <source>ZeroDesk&apos;s advice</source>
        <translation>Совет ZeroDesk</translation>
    </message>
    <message>
        <source>ZeroDesk&apos;s modelling</source>
        <translation>Учёт ZeroDesk</translation>
    </message>
    <message>
        <source>Boundary</source>
        <translation>Граница применимости</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>Источники</translation>
    </message>
    <message>
        <source>{shown} of {total}</source>
        <translation>{shown} из {total}</translation>
    </message>
    <message>
        <source>{shown} of {total} claims shown</source>
        <translation>Показано утверждений: {shown} из {total}</translation>
    </message>
    <message>
        <source>Also known as</source>
        <translation>Также ищут</translation>
    </message>
    <message>
        <source>Definition</source>
        <translation>Определение</translation>
    </message>
    <message>
        <source>Why it matters</source>
        <translation>Зачем это знать</translation>
    </message>
    <message>
        <source>In use in this plan</source>
        <translation>Используется в этом плане</translation>
    </message>
    <message>
        <source>What is confirmed</source>
        <translation>Что подтверждено</translation>
    </message>
    <message>
        <source>The card&apos;s own claims.</source>
        <translation>Утверждения самой карточки.</translation>
    </message>
    <message>
        <source>Added by ZeroDesk</source>
        <translation>Дополнения ZeroDesk</translation>
    </message>
    <message>
        <source>From the ZeRO paper, PyTorch&apos;s engines and ZeroDesk&apos;s own accounting, beyond the card; each claim&apos;s tag says which.</source>
        <translation>Из статьи ZeRO, движков PyTorch и собственного учёта ZeroDesk, сверх карточки; метка каждого утверждения говорит, откуда оно.</translation>
    </message>
    <message>
        <source>see the claim</source>
        <translation>к утверждению</translation>
    </message>
    <message>
        <source>No claim matches the filter.</source>
        <translation>Ни одно утверждение не подходит под фильтр.</translation>
    </message>
    <message>
        <source>Primary sources</source>
        <translation>Первоисточники</translation>
    </message>
    <message>
        <source>Related concepts</source>
        <translation>Связанные понятия</translation>
    </message>
    <message>
        <source>Accounting profile: {name}</source>
        <translation>Профиль учёта: {name}</translation>
    </message>
    <message>
        <source>Scheme: {name}</source>
        <translation>Схема: {name}</translation>
    </message>
    <message>
        <source>Filtered by “{q}”: {n} of {total} claims.</source>
        <translation>Фильтр «{q}»: утверждений {n} из {total}.</translation>
    </message>
</context>
<context>
    <name>GlossaryDock</name>
    <message>
        <source>Glossary</source>
        <translation>Глоссарий</translation>
    </message>
</context>
<context>
    <name>Handouts</name>
    <message>
        <source>Export the lesson as PDF</source>
        <translation>Экспорт урока в PDF</translation>
    </message>
    <message>
        <source>PDF files (*.pdf)</source>
        <translation>Файлы PDF (*.pdf)</translation>
    </message>
    <message>
        <source>Choose a folder for the PNG slides</source>
        <translation>Выберите папку для слайдов PNG</translation>
    </message>
    <message>
        <source>Cannot export the lesson</source>
        <translation>Не удалось экспортировать урок</translation>
    </message>
</context>
<context>
    <name>HfImport</name>
    <message>
        <source>Import &amp;Hugging Face config…</source>
        <translation>Импорт конфигурации &amp;Hugging Face…</translation>
    </message>
    <message>
        <source>Read a model&apos;s config.json (the model is named from the file, its context length kept)</source>
        <translation>Прочитать config.json модели (имя модели берётся из файла, длина контекста сохраняется)</translation>
    </message>
    <message>
        <source>Import Hugging Face config</source>
        <translation>Импорт конфигурации Hugging Face</translation>
    </message>
    <message>
        <source>Model config (config.json *.json);;All files (*)</source>
        <translation>Конфигурация модели (config.json *.json);;Все файлы (*)</translation>
    </message>
    <message>
        <source>Still reading the previous config…</source>
        <translation>Предыдущая конфигурация ещё читается…</translation>
    </message>
    <message>
        <source>Reading {path}…</source>
        <translation>Чтение {path}…</translation>
    </message>
    <message>
        <source>Imported {name}: {n} parameters, context {seq} tokens</source>
        <translation>Импортирована {name}: параметров — {n}, длина контекста в токенах — {seq}</translation>
    </message>
    <message>
        <source>Cannot import the config</source>
        <translation>Не удаётся импортировать конфигурацию</translation>
    </message>
</context>
<context>
    <name>Interpreter</name>
    <message>
        <source>{path} does not answer as a Python 3 interpreter ({why}).</source>
        <translation>{path} не отвечает как интерпретатор Python 3 ({why}).</translation>
    </message>
    <message>
        <source>{path} is Python {version}; the worker needs Python {minimum} or newer.</source>
        <translation>{path} — это Python {version}; рабочему процессу нужен Python {minimum} или новее.</translation>
    </message>
    <message>
        <source>{path} lacks {module}, which the worker needs; install it with: {command}</source>
        <translation>В {path} нет {module}, который нужен рабочему процессу; установите его командой: {command}</translation>
    </message>
    <message>
        <source>{path} has torch, but importing it fails: {error}</source>
        <translation>В {path} есть torch, но его импорт не удаётся: {error}</translation>
    </message>
    <message>
        <source>{path} cannot run the worker.</source>
        <translation>{path} не может запустить измерительный процесс.</translation>
    </message>
    <message>
        <source>{path} is not an executable file.</source>
        <translation>{path} — не исполняемый файл.</translation>
    </message>
    <message>
        <source>Cannot start {path}: {reason}.</source>
        <translation>Не удаётся запустить {path}: {reason}.</translation>
    </message>
    <message>
        <source>{n} GPU(s) visible</source>
        <translation>видно GPU: {n}</translation>
    </message>
    <message>
        <source>no GPU visible: CPU ranks only</source>
        <translation>GPU не видно: только участники на CPU</translation>
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
        <translation>профиль «статья»</translation>
    </message>
    <message>
        <source>torch profile</source>
        <translation>профиль «torch»</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>Параметры</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>Градиенты</translation>
    </message>
    <message>
        <source>FP32 gradient accumulator</source>
        <translation>Буфер накопления градиентов FP32</translation>
    </message>
    <message>
        <source>FP32 master weights</source>
        <translation>Копия параметров FP32</translation>
    </message>
    <message>
        <source>Adam m (momentum)</source>
        <translation>Adam m (первый момент)</translation>
    </message>
    <message>
        <source>Adam v (variance)</source>
        <translation>Adam v (второй момент)</translation>
    </message>
    <message>
        <source>SGD momentum</source>
        <translation>Момент SGD</translation>
    </message>
    <message>
        <source>AdamW state (m, v, step)</source>
        <translation>Состояние AdamW (m, v, шаг)</translation>
    </message>
    <message>
        <source>DDP gradient buckets</source>
        <translation>Бакеты градиентов DDP</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>Активации</translation>
    </message>
    <message>
        <source>Logits and loss</source>
        <translation>Логиты и функция потерь</translation>
    </message>
    <message>
        <source>Gathered 16-bit parameters</source>
        <translation>Собранные 16-битные параметры</translation>
    </message>
    <message>
        <source>All-gather buffer</source>
        <translation>Буфер all-gather</translation>
    </message>
    <message>
        <source>Reduce-scatter buffer</source>
        <translation>Буфер reduce-scatter</translation>
    </message>
    <message>
        <source>Unsharded 16-bit gradients</source>
        <translation>Неразделённые 16-битные градиенты</translation>
    </message>
    <message>
        <source>Gradients kept across micro-batches</source>
        <translation>Градиенты между микробатчами</translation>
    </message>
    <message>
        <source>Backward temporaries</source>
        <translation>Временные тензоры обратного прохода</translation>
    </message>
    <message>
        <source>Optimizer step temporaries</source>
        <translation>Временные тензоры шага оптимизатора</translation>
    </message>
    <message>
        <source>Autocast bf16 weight copies</source>
        <translation>BF16-копии весов autocast</translation>
    </message>
    <message>
        <source>Input tokens and targets</source>
        <translation>Входные токены и цели</translation>
    </message>
    <message>
        <source>CUDA context and allocator (your allowance)</source>
        <translation>Контекст CUDA и аллокатор (ваш запас)</translation>
    </message>
    <message>
        <source>parameter</source>
        <translation>параметр</translation>
    </message>
    <message>
        <source>gradient</source>
        <translation>градиент</translation>
    </message>
    <message>
        <source>optimizer state</source>
        <translation>состояния оптимизатора</translation>
    </message>
    <message>
        <source>Stage 0
plain DP</source>
        <translation>Стадия 0
обычный DP</translation>
    </message>
    <message>
        <source>Stage 1
optimizer sharded</source>
        <translation>Стадия 1
состояния оптимизатора разделены</translation>
    </message>
    <message>
        <source>Stage 2
+ gradients</source>
        <translation>Стадия 2
+ градиенты</translation>
    </message>
    <message>
        <source>Stage 3
+ parameters</source>
        <translation>Стадия 3
+ параметры</translation>
    </message>
    <message>
        <source>Stage {n}</source>
        <translation>Стадия {n}</translation>
    </message>
    <message>
        <source>gated (SwiGLU)</source>
        <translation>с гейтом (SwiGLU)</translation>
    </message>
    <message>
        <source>plain (GELU)</source>
        <translation>обычный (GELU)</translation>
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
        <translation>RoPE</translation>
    </message>
    <message>
        <source>learned table</source>
        <translation>обучаемая таблица</translation>
    </message>
    <message>
        <source>none</source>
        <translation>нет</translation>
    </message>
    <message>
        <source>q, k, v only</source>
        <translation>только q, k, v</translation>
    </message>
    <message>
        <source>all layers</source>
        <translation>во всех слоях</translation>
    </message>
    <message>
        <source>attention only (q, k, v, o)</source>
        <translation>только внимание (q, k, v, o)</translation>
    </message>
    <message>
        <source>MLP only</source>
        <translation>только MLP</translation>
    </message>
    <message>
        <source>LayerNorm without parameters</source>
        <translation>LayerNorm без параметров</translation>
    </message>
    <message>
        <source>ALiBi (no table)</source>
        <translation>ALiBi (без таблицы)</translation>
    </message>
</context>
<context>
    <name>Lesson</name>
    <message>
        <source>The plan in the window: {name}, Nd = {nd}</source>
        <translation>План в окне: {name}, Nd = {nd}</translation>
    </message>
    <message>
        <source>&amp;Lesson: ZeRO Stage by Stage</source>
        <translation>&amp;Урок: ZeRO по стадиям</translation>
    </message>
    <message>
        <source>Walk a class from stage 0 to stage 3 (presenter mode: F11)</source>
        <translation>Провести группу от стадии 0 до стадии 3 (режим докладчика: F11)</translation>
    </message>
    <message>
        <source>Parameters (FP16)</source>
        <translation>Параметры (FP16)</translation>
    </message>
    <message>
        <source>Gradients (FP16)</source>
        <translation>Градиенты (FP16)</translation>
    </message>
    <message>
        <source>Optimizer states (K = 12)</source>
        <translation>Состояния оптимизатора (K = 12)</translation>
    </message>
    <message>
        <source>Optimizer-state bytes per parameter K</source>
        <translation>Байт состояний оптимизатора на параметр K</translation>
    </message>
    <message>
        <source>Model states per rank, stage {n}</source>
        <translation>Состояния модели на участника, стадия {n}</translation>
    </message>
    <message>
        <source>{what} per rank, stage {n}</source>
        <translation>{what} на участника, стадия {n}</translation>
    </message>
    <message>
        <source>Communication per rank per step, stage {n}</source>
        <translation>Обмены на участника за шаг, стадия {n}</translation>
    </message>
    <message>
        <source>Stage 3 communication over stages 0–2</source>
        <translation>Обмены стадии 3 к обменам стадий 0–2</translation>
    </message>
    <message>
        <source>Communication time per step at least, stage {n}</source>
        <translation>Время обменов за шаг, не меньше, стадия {n}</translation>
    </message>
    <message>
        <source>Stage 0 states over stage 3 states</source>
        <translation>Состояния стадии 0 к состояниям стадии 3</translation>
    </message>
    <message>
        <source>Activations saved by the blocks (estimate)</source>
        <translation>Активации, сохранённые блоками (оценка)</translation>
    </message>
    <message>
        <source>Logits kept for the loss (estimate)</source>
        <translation>Логиты для функции потерь (оценка)</translation>
    </message>
    <message>
        <source>Predicted peak of a full step, stage {n}</source>
        <translation>Прогноз пика полного шага, стадия {n}</translation>
    </message>
    <message>
        <source>Parameters P</source>
        <translation>Число параметров P</translation>
    </message>
    <message>
        <source>Data-parallel ranks Nd</source>
        <translation>Число участников параллельного обучения по данным Nd</translation>
    </message>
    <message>
        <source>computed, ZeRO paper profile (§3.1, §5)</source>
        <translation>расчёт, профиль статьи ZeRO (§3.1, §5)</translation>
    </message>
    <message>
        <source>estimated from the model&apos;s shapes (not a measurement)</source>
        <translation>оценка по форме модели (не замер)</translation>
    </message>
    <message>
        <source>predicted from the model&apos;s shapes, as on the Plan chart (not a measurement)</source>
        <translation>прогноз по форме модели, как на диаграмме вкладки «План» (не замер)</translation>
    </message>
    <message>
        <source>{elements} × {size} B</source>
        <translation>{elements} × {size} Б</translation>
    </message>
    <message>
        <source>L × tokens × (what one block saves) + the final norm</source>
        <translation>L × токены × (что сохраняет один блок) + финальная нормализация</translation>
    </message>
    <message>
        <source>tokens × vocab × 10 B (BF16 logits, FP32 copy, log-softmax)</source>
        <translation>токены × словарь × 10 Б (логиты BF16, их копия FP32, log-softmax)</translation>
    </message>
    <message>
        <source>{states} + activations + buffers</source>
        <translation>{states} + активации + буферы</translation>
    </message>
    <message>
        <source>max(in-node bytes / {intra} GB/s, between-node bytes / {inter} GB/s)</source>
        <translation>наибольшее из: байты внутри узла / {intra} ГБ/с и байты между узлами / {inter} ГБ/с</translation>
    </message>
    <message>
        <source>a lower bound: compute is not modelled, overlap hides part</source>
        <translation>нижняя оценка: вычисления не учитываются, перекрытие скрывает часть времени</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>токены</translation>
    </message>
    <message>
        <source>vocab</source>
        <translation>словарь</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>Параметры</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>Градиенты</translation>
    </message>
    <message>
        <source>Optimizer states</source>
        <translation>Состояния оптимизатора</translation>
    </message>
</context>
<context>
    <name>LessonControls</name>
    <message>
        <source>Model:</source>
        <translation>Модель:</translation>
    </message>
    <message>
        <source>Nd:</source>
        <translation>Nd:</translation>
    </message>
    <message>
        <source>Data-parallel ranks Nd: every figure follows</source>
        <translation>Число участников Nd: все рисунки пересчитываются</translation>
    </message>
    <message>
        <source>The model of the lesson: every figure follows</source>
        <translation>Модель урока: все рисунки пересчитываются</translation>
    </message>
    <message>
        <source>Language of the lesson and the window</source>
        <translation>Язык урока и окна</translation>
    </message>
    <message>
        <source>Presenter (F11)</source>
        <translation>Режим докладчика (F11)</translation>
    </message>
    <message>
        <source>Full screen, large type, high contrast; Esc leaves</source>
        <translation>Полный экран, крупный шрифт, высокий контраст; Esc — выход</translation>
    </message>
    <message>
        <source>Handout PDF…</source>
        <translation>Раздаточный материал (PDF)…</translation>
    </message>
    <message>
        <source>Export the lesson as a PDF, one step a page</source>
        <translation>Экспорт урока в PDF, по шагу на страницу</translation>
    </message>
    <message>
        <source>PNG Slides…</source>
        <translation>Слайды PNG…</translation>
    </message>
    <message>
        <source>Export every step as a PNG slide</source>
        <translation>Экспорт каждого шага слайдом PNG</translation>
    </message>
</context>
<context>
    <name>LessonNav</name>
    <message>
        <source>◀ Previous</source>
        <translation>◀ Назад</translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation>Далее ▶</translation>
    </message>
    <message>
        <source>Previous step (Page Up, ←)</source>
        <translation>Предыдущий шаг (Page Up, ←)</translation>
    </message>
    <message>
        <source>Next step (Page Down, →, Space)</source>
        <translation>Следующий шаг (Page Down, →, пробел)</translation>
    </message>
</context>
<context>
    <name>LessonWindow</name>
    <message>
        <source>ZeroDesk lesson: {title}</source>
        <translation>Урок ZeroDesk: {title}</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Cannot open the plan</source>
        <translation>Не удаётся открыть план</translation>
    </message>
    <message>
        <source>Model and cluster</source>
        <translation>Модель и кластер</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>План</translation>
    </message>
    <message>
        <source>Table</source>
        <translation>Таблица</translation>
    </message>
    <message>
        <source>Measure</source>
        <translation>Измерение</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>Что помещается</translation>
    </message>
    <message>
        <source>Views</source>
        <translation>Представления</translation>
    </message>
    <message>
        <source>Cannot compute this plan: {error}</source>
        <translation>Не удаётся рассчитать план: {error}</translation>
    </message>
    <message>
        <source>Exported {path}</source>
        <translation>Экспортировано: {path}</translation>
    </message>
    <message>
        <source>Cannot export the chart</source>
        <translation>Не удаётся экспортировать диаграмму</translation>
    </message>
    <message>
        <source>Could not write {path}.</source>
        <translation>Не удалось записать {path}.</translation>
    </message>
    <message>
        <source>{n} field(s) need attention; the chart shows the last valid plan.</source>
        <translation>Полей с ошибками: {n}; диаграмма показывает последний корректный план.</translation>
    </message>
    <message>
        <source>Computed: model states per rank; not the peak (ZeRO §3.2).</source>
        <translation>Расчёт: состояния модели на участника; это не пик памяти (ZeRO §3.2).</translation>
    </message>
    <message>
        <source>Glossary: {claim}</source>
        <translation>Глоссарий: {claim}</translation>
    </message>
</context>
<context>
    <name>MeasureControls</name>
    <message>
        <source>auto</source>
        <translation>авто</translation>
    </message>
    <message>
        <source>layers ×</source>
        <translation>слои ×</translation>
    </message>
    <message>
        <source>hidden ×</source>
        <translation>ширина ×</translation>
    </message>
    <message>
        <source>sequence ×</source>
        <translation>последовательность ×</translation>
    </message>
    <message>
        <source>vocabulary ×</source>
        <translation>словарь ×</translation>
    </message>
    <message>
        <source>Fraction of the transformer blocks to build (0 &lt; f ≤ 1)</source>
        <translation>Доля блоков трансформера, которые будут построены (0 &lt; f ≤ 1)</translation>
    </message>
    <message>
        <source>Fraction of the head width, hence hidden and FFN (heads keep their count)</source>
        <translation>Доля ширины головы, а с ней ширины модели и FFN (число голов сохраняется)</translation>
    </message>
    <message>
        <source>Fraction of the sequence length</source>
        <translation>Доля длины последовательности</translation>
    </message>
    <message>
        <source>Fraction of the vocabulary</source>
        <translation>Доля словаря</translation>
    </message>
    <message>
        <source>&amp;Device:</source>
        <translation>&amp;Устройство:</translation>
    </message>
    <message>
        <source>CUDA ranks use NCCL, one GPU each; CPU ranks use gloo on this machine</source>
        <translation>Участники на CUDA используют NCCL, по одному GPU на каждого; участники на CPU — gloo на этой машине</translation>
    </message>
    <message>
        <source>&amp;Ranks:</source>
        <translation>&amp;Участники:</translation>
    </message>
    <message>
        <source>Local ranks to start; predictions use this Nd (default: the plan&apos;s Nd, at most 2)</source>
        <translation>Сколько локальных участников запустить; прогноз считается для этого Nd (по умолчанию Nd плана, не больше 2)</translation>
    </message>
    <message>
        <source>Stages:</source>
        <translation>Стадии:</translation>
    </message>
    <message>
        <source>Stage {n}</source>
        <translation>Стадия {n}</translation>
    </message>
    <message>
        <source>Scale down:</source>
        <translation>Уменьшить:</translation>
    </message>
    <message>
        <source>Full size</source>
        <translation>Полный размер</translation>
    </message>
    <message>
        <source>Set every scale back to 1 (the model as planned)</source>
        <translation>Вернуть все множители к 1 (модель как в плане)</translation>
    </message>
    <message>
        <source>&amp;Python with torch:</source>
        <translation>&amp;Python с torch:</translation>
    </message>
    <message>
        <source>path to a Python interpreter that can import torch</source>
        <translation>путь к интерпретатору Python, который может импортировать torch</translation>
    </message>
    <message>
        <source>Python interpreter that runs the ranks</source>
        <translation>Интерпретатор Python, в котором работают участники</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>Обзор…</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>Проверить</translation>
    </message>
    <message>
        <source>Ask this interpreter for its torch version and whether it sees a GPU</source>
        <translation>Спросить у интерпретатора версию torch и видит ли он GPU</translation>
    </message>
    <message>
        <source>&amp;Give up after:</source>
        <translation>&amp;Прервать через:</translation>
    </message>
    <message>
        <source> s</source>
        <translation> с</translation>
    </message>
    <message>
        <source>Stop the run if it has not finished by then (a hung rank cannot stall it)</source>
        <translation>Остановить запуск, если он не завершится к этому времени (зависший участник не задержит его)</translation>
    </message>
    <message>
        <source>a watchdog: a hung rank cannot stall the run</source>
        <translation>сторож: зависший участник не задержит запуск</translation>
    </message>
    <message>
        <source>ZeroDesk itself does not load torch: the ranks run in this interpreter.</source>
        <translation>Сам ZeroDesk не загружает torch: участники работают в этом интерпретаторе.</translation>
    </message>
    <message>
        <source>The running interpreter (ZeroDesk&apos;s own); a frozen bundle needs another Python that has torch.</source>
        <translation>Текущий интерпретатор (тот, в котором работает ZeroDesk); собранному пакету нужен другой Python с torch.</translation>
    </message>
    <message>
        <source>The ranks run in this interpreter; it needs torch (press Check to see its version).</source>
        <translation>Участники работают в этом интерпретаторе; в нём нужен torch (нажмите «Проверить», чтобы узнать версию).</translation>
    </message>
    <message>
        <source>Python interpreter that has torch</source>
        <translation>Интерпретатор Python с torch</translation>
    </message>
    <message>
        <source>Checking {path}…</source>
        <translation>Проверка {path}…</translation>
    </message>
    <message>
        <source>ZeroDesk&apos;s own Python has no torch: install it with {python} -m pip install torch transformers (on Linux add --index-url {cpu_index} for the CPU build), or choose another Python that has torch.</source>
        <translation>В собственном Python ZeroDesk нет torch: установите его командой {python} -m pip install torch transformers (в Linux добавьте --index-url {cpu_index}, чтобы получить сборку для CPU) или выберите другой Python, в котором есть torch.</translation>
    </message>
</context>
<context>
    <name>MeasureTab</name>
    <message>
        <source>Live memory timeline</source>
        <translation>Память во времени</translation>
    </message>
    <message>
        <source>The command, the ranks&apos; messages (stderr) and errors appear here.</source>
        <translation>Здесь появятся команда, сообщения участников (stderr) и ошибки.</translation>
    </message>
    <message>
        <source>Measure</source>
        <translation>Измерение</translation>
    </message>
    <message>
        <source>Tiers side by side</source>
        <translation>Расчёт, симуляция и замер рядом</translation>
    </message>
    <message>
        <source>Ranks of the last run</source>
        <translation>Участники последнего запуска</translation>
    </message>
    <message>
        <source>Peak by module</source>
        <translation>Пик по модулям</translation>
    </message>
    <message>
        <source>Computed, simulated and measured figures per stage</source>
        <translation>Расчётные, симулированные и измеренные значения по стадиям</translation>
    </message>
    <message>
        <source>Results of the last run per rank</source>
        <translation>Результаты последнего запуска по участникам</translation>
    </message>
    <message>
        <source>Run log</source>
        <translation>Журнал запуска</translation>
    </message>
    <message>
        <source>There is no valid plan yet.</source>
        <translation>Корректного плана пока нет.</translation>
    </message>
    <message>
        <source>Simulating needs the model&apos;s architecture (layers, hidden, heads, FFN, vocabulary), not only a parameter count: pick a model preset or enter the architecture in the form.</source>
        <translation>Для симуляции нужна архитектура модели (слои, ширина, головы, FFN, словарь), а не только число параметров: выберите готовую модель или введите архитектуру в форме.</translation>
    </message>
    <message>
        <source>Measuring needs the model&apos;s architecture (layers, hidden, heads, FFN, vocabulary), not only a parameter count: pick a model preset or enter the architecture in the form.</source>
        <translation>Для измерения нужна архитектура модели (слои, ширина, головы, FFN, словарь), а не только число параметров: выберите готовую модель или введите архитектуру в форме.</translation>
    </message>
    <message>
        <source>This scale-down does not give a valid model; change the fractions.</source>
        <translation>С такими множителями модель получается некорректной; измените доли.</translation>
    </message>
    <message>
        <source>The sequence ({seq}) is longer than the learned position table ({n}); shorten it in the form.</source>
        <translation>Последовательность ({seq}) длиннее обучаемой таблицы позиций ({n}); сократите её в форме.</translation>
    </message>
    <message>
        <source>Choose at least one stage to measure.</source>
        <translation>Выберите хотя бы одну стадию для измерения.</translation>
    </message>
    <message numerus="yes">
        <source>The model states of {n} CPU ranks need about {need}, more than this machine can spare ({free} free): scale the model down (layers ×, hidden ×), use fewer ranks, or Simulate.</source>
        <translation>
            <numerusform>{n} участник на CPU потребует для состояний модели около {need} — больше, чем может выделить эта машина (свободно {free}): уменьшите модель (слои ×, ширина ×), возьмите меньше участников или запустите симуляцию.</numerusform>
            <numerusform>{n} участника на CPU потребуют для состояний модели около {need} — больше, чем может выделить эта машина (свободно {free}): уменьшите модель (слои ×, ширина ×), возьмите меньше участников или запустите симуляцию.</numerusform>
            <numerusform>{n} участников на CPU потребуют для состояний модели около {need} — больше, чем может выделить эта машина (свободно {free}): уменьшите модель (слои ×, ширина ×), возьмите меньше участников или запустите симуляцию.</numerusform>
        </translation>
    </message>
    <message>
        <source>Choose the Python interpreter that has torch (this bundle cannot run the ranks itself).</source>
        <translation>Выберите интерпретатор Python, в котором есть torch (эта сборка не может сама запустить участников).</translation>
    </message>
    <message>
        <source>Run: {command}</source>
        <translation>Запуск: {command}</translation>
    </message>
</context>
<context>
    <name>ModuleBreakdown</name>
    <message>
        <source>embedding</source>
        <translation>эмбеддинг</translation>
    </message>
    <message>
        <source>attention</source>
        <translation>внимание</translation>
    </message>
    <message>
        <source>MLP</source>
        <translation>блок MLP</translation>
    </message>
    <message>
        <source>block (norms, residual adds)</source>
        <translation>блок (нормализации, остаточные сложения)</translation>
    </message>
    <message>
        <source>head</source>
        <translation>выходной слой</translation>
    </message>
    <message>
        <source>rest of the model</source>
        <translation>остальная модель</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>функция потерь</translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation>шаг оптимизатора</translation>
    </message>
    <message>
        <source>DDP gradient buckets</source>
        <translation>Бакеты градиентов DDP</translation>
    </message>
    <message>
        <source>other</source>
        <translation>прочее</translation>
    </message>
    <message>
        <source>(rest of the model)</source>
        <translation>(остальная модель)</translation>
    </message>
    <message>
        <source>Simulate or measure to see where the peak&apos;s memory is, module by module; hover a stage on the Plan chart to show its parts.</source>
        <translation>Запустите симуляцию или замер, чтобы увидеть, где память пика, по модулям; наведите курсор на стадию на диаграмме «План», чтобы показать её части.</translation>
    </message>
    <message>
        <source>simulated</source>
        <translation>симуляция</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>замер</translation>
    </message>
    <message>
        <source>{stage}, {tier} peak {peak}: its &lt;a href=&quot;{claim}&quot;&gt;largest parts by module&lt;/a&gt; (terms: {links})</source>
        <translation>{stage}, пик ({tier}) {peak}: его &lt;a href=&quot;{claim}&quot;&gt;крупнейшие части по модулям&lt;/a&gt; (термины: {links})</translation>
    </message>
    <message>
        <source>Part</source>
        <translation>Часть</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Вид</translation>
    </message>
    <message>
        <source>FSDP2 unit</source>
        <translation>Единица FSDP2</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>Всего</translation>
    </message>
    <message>
        <source>(root)</source>
        <translation>(корень)</translation>
    </message>
</context>
<context>
    <name>OffloadChart</name>
    <message>
        <source>host RAM per node {size}</source>
        <translation>память хоста на узел {size}</translation>
    </message>
    <message>
        <source>GPU memory {size}</source>
        <translation>память GPU {size}</translation>
    </message>
    <message>
        <source>memory, {unit}</source>
        <translation>память, {unit}</translation>
    </message>
    <message>
        <source>ZeRO stage</source>
        <translation>стадия ZeRO</translation>
    </message>
    <message>
        <source>NVMe</source>
        <translation>NVMe</translation>
    </message>
    <message>
        <source>host memory</source>
        <translation>память хоста</translation>
    </message>
    <message>
        <source>optimizer states and gradients</source>
        <translation>состояния оптимизатора и градиенты</translation>
    </message>
    <message>
        <source>optimizer states, gradients and parameters</source>
        <translation>состояния оптимизатора, градиенты и параметры</translation>
    </message>
    <message>
        <source>ZeRO-Offload / ZeRO-Infinity bookkeeping</source>
        <translation>учёт ZeRO-Offload / ZeRO-Infinity</translation>
    </message>
    <message>
        <source>PyTorch FSDP2 with CPUOffloadPolicy</source>
        <translation>PyTorch FSDP2 с CPUOffloadPolicy</translation>
    </message>
    <message>
        <source>GPU, per rank, at rest</source>
        <translation>GPU, на участника, в покое</translation>
    </message>
    <message>
        <source>GPU working set</source>
        <translation>рабочий объём GPU</translation>
    </message>
    <message>
        <source>GPU working set: unknown (needs the architecture)</source>
        <translation>рабочий объём GPU: неизвестен (нужна архитектура)</translation>
    </message>
    <message>
        <source>{where}, per node</source>
        <translation>{where}, на узел</translation>
    </message>
    <message>
        <source>Offload: {choice} to {where}</source>
        <translation>Перенос: {choice} → {where}</translation>
    </message>
    <message>
        <source>computed, apart from the stages; {source}</source>
        <translation>расчёт, отдельно от стадий; {source}</translation>
    </message>
    <message>
        <source>traffic {bytes} per step, {ms} ms at {bw} GB/s</source>
        <translation>обмен {bytes} за шаг, {ms} мс при {bw} ГБ/с</translation>
    </message>
    <message>
        <source>give the GPU and host memory to compare</source>
        <translation>укажите память GPU и хоста для сравнения</translation>
    </message>
    <message>
        <source>GPU memory</source>
        <translation>память GPU</translation>
    </message>
    <message>
        <source>host memory per node</source>
        <translation>память хоста на узел</translation>
    </message>
    <message>
        <source>{pct}% of {total}</source>
        <translation>{pct}% от {total}</translation>
    </message>
    <message>
        <source>{name} runs out first ({share})</source>
        <translation>первой заканчивается {name} ({share})</translation>
    </message>
    <message>
        <source>fits; tightest: {name} ({share}), states only</source>
        <translation>помещается; теснее всего: {name} ({share}), только состояния</translation>
    </message>
    <message>
        <source>Stage {n}: {verdict}; {traffic}</source>
        <translation>Стадия {n}: {verdict}; {traffic}</translation>
    </message>
    <message>
        <source>Stage {stages}: {reason}</source>
        <translation>Стадия {stages}: {reason}</translation>
    </message>
</context>
<context>
    <name>Options</name>
    <message>
        <source>Mixed-precision Adam (paper §3.1, 16 B/param)</source>
        <translation>Adam со смешанной точностью (статья, §3.1, 16 Б/параметр)</translation>
    </message>
    <message>
        <source>FP32 Adam (16 B/param)</source>
        <translation>Adam в FP32 (16 Б/параметр)</translation>
    </message>
    <message>
        <source>BF16 + FP32 grad accumulation, Adam (18 B/param)</source>
        <translation>BF16 с накоплением градиентов в FP32, Adam (18 Б/параметр)</translation>
    </message>
    <message>
        <source>Mixed-precision SGD with momentum (12 B/param)</source>
        <translation>SGD с моментом, смешанная точность (12 Б/параметр)</translation>
    </message>
    <message>
        <source>Mixed-precision 8-bit Adam (10 B/param)</source>
        <translation>8-битный Adam, смешанная точность (10 Б/параметр)</translation>
    </message>
    <message>
        <source>ZeRO paper (§3.1, §5)</source>
        <translation>Статья ZeRO (§3.1, §5)</translation>
    </message>
    <message>
        <source>PyTorch engines (DDP, ZeroRedundancyOptimizer, FSDP2)</source>
        <translation>Движки PyTorch (DDP, ZeroRedundancyOptimizer, FSDP2)</translation>
    </message>
    <message>
        <source>none</source>
        <translation>нет</translation>
    </message>
    <message>
        <source>selective (attention)</source>
        <translation>выборочный (внимание)</translation>
    </message>
    <message>
        <source>full (whole block)</source>
        <translation>полный (весь блок)</translation>
    </message>
    <message>
        <source>foreach (CUDA default)</source>
        <translation>foreach (по умолчанию на CUDA)</translation>
    </message>
    <message>
        <source>fused</source>
        <translation>слитое (fused)</translation>
    </message>
    <message>
        <source>for-loop</source>
        <translation>по одному тензору</translation>
    </message>
    <message>
        <source>dim 0 (FSDP2&apos;s default)</source>
        <translation>нулевое измерение (по умолчанию в FSDP2)</translation>
    </message>
    <message>
        <source>auto (experts on their largest dimension)</source>
        <translation>auto (эксперты по наибольшему измерению)</translation>
    </message>
    <message>
        <source>the plan&apos;s device</source>
        <translation>устройство плана</translation>
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
        <translation>состояния оптимизатора + градиенты</translation>
    </message>
    <message>
        <source>+ parameters</source>
        <translation>+ параметры</translation>
    </message>
    <message>
        <source>host memory (CPU)</source>
        <translation>память хоста (CPU)</translation>
    </message>
    <message>
        <source>NVMe</source>
        <translation>NVMe</translation>
    </message>
    <message>
        <source>HSDP: shard in the group, replicate across groups</source>
        <translation>HSDP: разделение в группе, группы — реплики</translation>
    </message>
    <message>
        <source>ZeRO++ hpZ: a second 16-bit parameter shard in the group</source>
        <translation>ZeRO++ hpZ: вторая доля 16-битных параметров в группе</translation>
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
        <translation>FP32 (без смешанной точности)</translation>
    </message>
    <message>
        <source>FP32</source>
        <translation>FP32</translation>
    </message>
    <message>
        <source>on (in the parameter dtype)</source>
        <translation>включён (в типе данных параметров)</translation>
    </message>
    <message>
        <source>off (FP32 compute)</source>
        <translation>выключен (вычисления в FP32)</translation>
    </message>
    <message>
        <source>one unit per block</source>
        <translation>одна единица на блок</translation>
    </message>
    <message>
        <source>one unit per N blocks</source>
        <translation>одна единица на N блоков</translation>
    </message>
    <message>
        <source>the root only</source>
        <translation>только корень</translation>
    </message>
    <message>
        <source>on (FSDP2&apos;s default)</source>
        <translation>включён (по умолчанию в FSDP2)</translation>
    </message>
    <message>
        <source>off</source>
        <translation>выключен</translation>
    </message>
    <message>
        <source>every micro-batch (sharded gradients kept)</source>
        <translation>после каждого микробатча (хранятся доли градиентов)</translation>
    </message>
    <message>
        <source>last micro-batch only (unsharded gradients kept)</source>
        <translation>только в последнем микробатче (хранятся целые градиенты)</translation>
    </message>
    <message>
        <source>GB</source>
        <translation>ГБ</translation>
    </message>
    <message>
        <source>GiB</source>
        <translation>ГиБ</translation>
    </message>
</context>
<context>
    <name>PeakFigure</name>
    <message>
        <source>states {v}</source>
        <translation>состояния {v}</translation>
    </message>
    <message>
        <source>predicted peak</source>
        <translation>прогноз пика</translation>
    </message>
    <message>
        <source>states</source>
        <translation>состояния</translation>
    </message>
    <message>
        <source>On top at the peak (predicted)</source>
        <translation>Сверху в момент пика (прогноз)</translation>
    </message>
    <message numerus="yes">
        <source>{seq} tokens × micro-batch {batch}; 16-bit, no recomputation. With them, per stage: the gathered 16-bit parameters and the communication buffers.</source>
        <translation>
            <numerusform>{seq} токен × микробатч {batch}; 16 бит, без пересчёта активаций. Вместе с ними по стадиям: собранные 16-битные параметры и буферы обменов.</numerusform>
            <numerusform>{seq} токена × микробатч {batch}; 16 бит, без пересчёта активаций. Вместе с ними по стадиям: собранные 16-битные параметры и буферы обменов.</numerusform>
            <numerusform>{seq} токенов × микробатч {batch}; 16 бит, без пересчёта активаций. Вместе с ними по стадиям: собранные 16-битные параметры и буферы обменов.</numerusform>
        </translation>
    </message>
    <message>
        <source>Not estimated: a raw parameter count has no shapes. Choose a model with an architecture (such as {example}) to see the activations.</source>
        <translation>Нет оценки: у одного числа параметров нет формы модели. Выберите модель с архитектурой (например, {example}), чтобы увидеть активации.</translation>
    </message>
    <message>
        <source>Fragmentation</source>
        <translation>Фрагментация</translation>
    </message>
    <message>
        <source>Not predicted, so drawn the same on every bar: measure the peak of a full step.</source>
        <translation>Не прогнозируется, поэтому одинакова у всех столбцов: измерьте пик полного шага.</translation>
    </message>
    <message>
        <source>Per rank, {model}, Nd = {nd}</source>
        <translation>На участника, {model}, Nd = {nd}</translation>
    </message>
</context>
<context>
    <name>PlanForm</name>
    <message>
        <source>Model preset</source>
        <translation>Готовая модель</translation>
    </message>
    <message>
        <source>Parameters P</source>
        <translation>Параметры P</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>Слои</translation>
    </message>
    <message>
        <source>Hidden</source>
        <translation>Ширина</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>Головы</translation>
    </message>
    <message>
        <source>KV heads</source>
        <translation>Головы KV</translation>
    </message>
    <message>
        <source>Head dim</source>
        <translation>Размер головы</translation>
    </message>
    <message>
        <source>FFN</source>
        <translation>FFN</translation>
    </message>
    <message>
        <source>Vocabulary</source>
        <translation>Словарь</translation>
    </message>
    <message>
        <source>Positions</source>
        <translation>Позиции</translation>
    </message>
    <message>
        <source>MLP</source>
        <translation>MLP</translation>
    </message>
    <message>
        <source>Norm</source>
        <translation>Нормализация</translation>
    </message>
    <message>
        <source>Pos. enc.</source>
        <translation>Позиц. код.</translation>
    </message>
    <message>
        <source>Bias</source>
        <translation>Смещения</translation>
    </message>
    <message>
        <source>Layout</source>
        <translation>Компоновка</translation>
    </message>
    <message>
        <source>Experts</source>
        <translation>Эксперты</translation>
    </message>
    <message>
        <source>Routed (top-k)</source>
        <translation>Маршрутизируемые (top-k)</translation>
    </message>
    <message>
        <source>Training scheme</source>
        <translation>Схема обучения</translation>
    </message>
    <message>
        <source>Accounting profile</source>
        <translation>Профиль учёта</translation>
    </message>
    <message>
        <source>Sequence length</source>
        <translation>Длина последовательности</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>Микробатч</translation>
    </message>
    <message>
        <source>Micro-batches per step</source>
        <translation>Микробатчей на шаг</translation>
    </message>
    <message>
        <source>Gradients reduced</source>
        <translation>Сведение градиентов</translation>
    </message>
    <message>
        <source>GPU preset</source>
        <translation>Готовый GPU</translation>
    </message>
    <message>
        <source>GPU memory, {unit}</source>
        <translation>Память GPU, {unit}</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>Узлы</translation>
    </message>
    <message>
        <source>GPUs per node</source>
        <translation>GPU на узел</translation>
    </message>
    <message>
        <source>Data-parallel Nd</source>
        <translation>Параллелизм по данным Nd</translation>
    </message>
    <message>
        <source>Bandwidth, GB/s per rank</source>
        <translation>Пропускная способность на участника, ГБ/с</translation>
    </message>
    <message>
        <source>Units</source>
        <translation>Единицы</translation>
    </message>
    <message>
        <source>Recompute</source>
        <translation>Пересчёт</translation>
    </message>
    <message>
        <source>CUDA allowance, {unit}</source>
        <translation>Запас CUDA, {unit}</translation>
    </message>
    <message>
        <source>Key/value heads (grouped-query attention)</source>
        <translation>Головы ключей и значений (групповое внимание по запросам, GQA)</translation>
    </message>
    <message>
        <source>Head dimension</source>
        <translation>Размер головы внимания</translation>
    </message>
    <message>
        <source>MLP inner width (FFN)</source>
        <translation>Внутренняя ширина MLP (FFN)</translation>
    </message>
    <message>
        <source>Context length (positions)</source>
        <translation>Длина контекста (позиции)</translation>
    </message>
    <message>
        <source>Module layout (Hugging Face model type)</source>
        <translation>Компоновка модулей (тип модели Hugging Face)</translation>
    </message>
    <message>
        <source>Experts per layer (mixture of experts)</source>
        <translation>Экспертов в слое (смесь экспертов)</translation>
    </message>
    <message>
        <source>Experts routed per token</source>
        <translation>Экспертов на токен</translation>
    </message>
    <message>
        <source>Context length (max_position_embeddings); the size of a learned position table</source>
        <translation>Длина контекста (max_position_embeddings); размер обучаемой таблицы позиций</translation>
    </message>
    <message>
        <source>Whose module layout the tensors follow: ZeroDesk&apos;s own, or the Hugging Face model type (names, shapes, fusion), which the torch profile shards exactly</source>
        <translation>Чьей компоновке модулей следуют тензоры: собственной ZeroDesk или типу модели Hugging Face (имена, формы, слияние); профиль torch распределяет их между участниками точно</translation>
    </message>
    <message>
        <source>Every expert counts in P and in the states</source>
        <translation>Каждый эксперт входит в P и в состояния</translation>
    </message>
    <message>
        <source>Only the routed experts count in activations</source>
        <translation>В активациях учитываются только выбранные маршрутизатором эксперты</translation>
    </message>
    <message>
        <source>Position encoding</source>
        <translation>Позиционное кодирование</translation>
    </message>
    <message>
        <source>Hidden size (model width)</source>
        <translation>Скрытый размер (ширина модели)</translation>
    </message>
    <message>
        <source>Parameter count: 2e9, 7B, 350M, 1.5T or plain digits</source>
        <translation>Число параметров: 2e9, 7B, 350M, 1.5T или просто цифры</translation>
    </message>
    <message>
        <source>Empty: same as heads</source>
        <translation>Пусто: столько же, сколько голов</translation>
    </message>
    <message>
        <source>Empty: hidden / heads</source>
        <translation>Пусто: ширина / число голов</translation>
    </message>
    <message>
        <source>Empty: nodes × GPUs per node</source>
        <translation>Пусто: узлы × GPU на узел</translation>
    </message>
    <message>
        <source>Memory of one GPU; empty: no GPU line</source>
        <translation>Память одного GPU; пусто — без линии GPU</translation>
    </message>
    <message>
        <source>Per-rank link bandwidth used for the communication time (1 GB = 10⁹ B)</source>
        <translation>Пропускная способность канала на участника для времени обменов (1 ГБ = 10⁹ байт)</translation>
    </message>
    <message>
        <source>Tokens per sequence (activations estimate)</source>
        <translation>Токенов в последовательности (для оценки активаций)</translation>
    </message>
    <message>
        <source>Activation recomputation per block: none; selective recomputes the attention sub-layer; full recomputes the whole block (the predicted peak follows)</source>
        <translation>Пересчёт активаций по блокам: нет; выборочный пересчитывает подслой внимания; полный — весь блок (прогноз пика учитывает выбор)</translation>
    </message>
    <message>
        <source>Memory per GPU you set aside for the CUDA context and allocator; added to the predicted peak and shown apart. Empty: 0</source>
        <translation>Память на GPU, которую вы откладываете под контекст CUDA и аллокатор; прибавляется к прогнозу пика и показывается отдельно. Пусто: 0</translation>
    </message>
    <message>
        <source>for example 2e9, 7B, 350M</source>
        <translation>например 2e9, 7B, 350M</translation>
    </message>
    <message>
        <source>auto</source>
        <translation>авто</translation>
    </message>
    <message>
        <source>none</source>
        <translation>нет</translation>
    </message>
    <message>
        <source>Offload</source>
        <translation>Перенос</translation>
    </message>
    <message>
        <source>States moved off the GPU, shown apart from the stages</source>
        <translation>Состояния, вынесенные с GPU; показываются отдельно от стадий</translation>
    </message>
    <message>
        <source>Offload to</source>
        <translation>Куда</translation>
    </message>
    <message>
        <source>Host memory (CPU) or NVMe storage</source>
        <translation>Память хоста (CPU) или накопитель NVMe</translation>
    </message>
    <message>
        <source>Host link, GB/s</source>
        <translation>Канал к хосту, ГБ/с</translation>
    </message>
    <message>
        <source>Host↔device bandwidth per GPU for the offload traffic time (1 GB = 10⁹ B)</source>
        <translation>Пропускная способность хост↔устройство на GPU для времени обмена при переносе (1 ГБ = 10⁹ байт)</translation>
    </message>
    <message>
        <source>Host memory per node, {unit}</source>
        <translation>Память хоста на узел, {unit}</translation>
    </message>
    <message>
        <source>RAM of one node; empty: no host line</source>
        <translation>ОЗУ одного узла; пусто — без линии хоста</translation>
    </message>
    <message>
        <source>Offload (apart from the stages)</source>
        <translation>Перенос (отдельно от стадий)</translation>
    </message>
    <message>
        <source>AdamW kernels</source>
        <translation>Ядра AdamW</translation>
    </message>
    <message>
        <source>Sequences per rank per micro-batch (activations estimate)</source>
        <translation>Последовательностей на участника за микробатч (для оценки активаций)</translation>
    </message>
    <message>
        <source>Gradient accumulation: micro-batches before each optimizer step; from 2 on, each rank keeps gradients between them (the predicted peak follows)</source>
        <translation>Накопление градиентов: микробатчей перед каждым шагом оптимизатора; начиная с 2, каждый участник хранит градиенты между ними (прогнозируемый пик это учитывает)</translation>
    </message>
    <message>
        <source>When accumulated gradients are reduced: every micro-batch keeps the stage&apos;s own gradients (sharded from stage 2); only the last (DDP no_sync, FSDP2 set_requires_gradient_sync(False)) keeps the whole model&apos;s</source>
        <translation>Когда сводятся накопленные градиенты: после каждого микробатча хранятся собственные градиенты стадии (доли со стадии 2); только в последнем (no_sync в DDP, синхронизация градиентов выключена в FSDP2) хранятся градиенты всей модели</translation>
    </message>
    <message>
        <source>How AdamW steps: foreach (torch&apos;s default on CUDA) holds an FP32 copy of the rank&apos;s parameters during the step; for-loop two of its largest tensor; fused none (the predicted peak follows)</source>
        <translation>Как AdamW выполняет шаг: foreach (по умолчанию в torch на CUDA) держит на время шага копию параметров участника в FP32; по одному тензору — две копии крупнейшего тензора; слитое (fused) — ни одной (прогноз пика учитывает выбор)</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Модель</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>Обучение</translation>
    </message>
    <message>
        <source>Global batch {g} = {mb} × {k} × Nd {nd}</source>
        <translation>Глобальный батч {g} = {mb} × {k} × Nd {nd}</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>Кластер</translation>
    </message>
    <message>
        <source>Given by</source>
        <translation>Задана через</translation>
    </message>
    <message>
        <source>Parameter count</source>
        <translation>Число параметров</translation>
    </message>
    <message>
        <source>Model given by parameter count</source>
        <translation>Модель задана числом параметров</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>Архитектуру</translation>
    </message>
    <message>
        <source>Model given by architecture</source>
        <translation>Модель задана архитектурой</translation>
    </message>
    <message>
        <source>Tied input/output embeddings</source>
        <translation>Общие эмбеддинги входа/выхода</translation>
    </message>
    <message>
        <source>Load the card&apos;s example (P = 2·10⁹, Nd = 4)</source>
        <translation>Загрузить пример из карточки (P = 2·10⁹, Nd = 4)</translation>
    </message>
    <message>
        <source>The source card&apos;s worked example: 32 / 14 / 11 / 8 GB per rank (Ctrl+K)</source>
        <translation>Учебный расчёт из карточки: 32 / 14 / 11 / 8 ГБ на участника (Ctrl+K)</translation>
    </message>
    <message>
        <source>Load the card example</source>
        <translation>Загрузить пример из карточки</translation>
    </message>
    <message>
        <source>Shard group N</source>
        <translation>Группа разделения N</translation>
    </message>
    <message>
        <source>Shard the states among N consecutive ranks (usually a node&apos;s GPUs) and replicate them across the Nd/N groups; N divides Nd. Empty: N = Nd, no replicas</source>
        <translation>Распределять состояния между N соседними участниками (обычно GPU одного узла) и повторять их в каждой из Nd/N групп; Nd кратно N. Пусто: N = Nd, без реплик</translation>
    </message>
    <message>
        <source>Group means</source>
        <translation>Смысл группы</translation>
    </message>
    <message>
        <source>HSDP (FSDP2 on a 2-D mesh, MiCS): every sharded state among N. ZeRO++ hpZ (paper profile): stage 3 among all Nd, plus a second 16-bit parameter shard among N</source>
        <translation>HSDP (FSDP2 на двумерной сетке, MiCS): все разделённые состояния — между N участниками. ZeRO++ hpZ (профиль «статья»): стадия 3 — между всеми Nd, плюс вторая доля 16-битных параметров между N</translation>
    </message>
    <message>
        <source>Network preset</source>
        <translation>Готовая сеть</translation>
    </message>
    <message>
        <source>Sets the inter-node bandwidth per GPU</source>
        <translation>Задаёт пропускную способность между узлами на GPU</translation>
    </message>
    <message>
        <source>In a node, GB/s</source>
        <translation>Внутри узла, ГБ/с</translation>
    </message>
    <message>
        <source>GPU-to-GPU bandwidth inside a node (NVLink, PCIe), per GPU and per direction; a GPU preset sets it (1 GB = 10⁹ B)</source>
        <translation>Пропускная способность между GPU внутри узла (NVLink, PCIe) на GPU в одном направлении; её задаёт готовый GPU (1 ГБ = 10⁹ байт)</translation>
    </message>
    <message>
        <source>Between nodes, GB/s</source>
        <translation>Между узлами, ГБ/с</translation>
    </message>
    <message>
        <source>Bandwidth between nodes (InfiniBand, Ethernet) per GPU and per direction: its NIC or its share of the node&apos;s (1 GB = 10⁹ B)</source>
        <translation>Пропускная способность между узлами (InfiniBand, Ethernet) на GPU в одном направлении: его сетевой адаптер или его доля адаптеров узла (1 ГБ = 10⁹ байт)</translation>
    </message>
    <message>
        <source>Hybrid sharding and links</source>
        <translation>Гибридное разделение и каналы</translation>
    </message>
    <message>
        <source>Nd</source>
        <translation>Nd</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>Своя</translation>
    </message>
    <message>
        <source>N = Nd = {nd}: flat, no replicas</source>
        <translation>N = Nd = {nd}: без групп и реплик</translation>
    </message>
    <message>
        <source>stage 3 among all {nd}, hpZ&apos;s second shard among {n}</source>
        <translation>стадия 3 — между всеми (Nd = {nd}), вторая доля hpZ — между N = {n}</translation>
    </message>
    <message>
        <source>{r} groups of {n}: sharded in the group, replicated across</source>
        <translation>групп: {r}, N = {n}: разделение внутри группы, реплики между группами</translation>
    </message>
    <message>
        <source>ZeroDesk&apos;s own</source>
        <translation>Собственная ZeroDesk</translation>
    </message>
    <message>
        <source>Custom / none</source>
        <translation>Свой / не задан</translation>
    </message>
    <message>
        <source>Presets unavailable: {error}</source>
        <translation>Готовые наборы недоступны: {error}</translation>
    </message>
    <message>
        <source>= heads</source>
        <translation>= головы</translation>
    </message>
    <message>
        <source>auto: {n}</source>
        <translation>авто: {n}</translation>
    </message>
    <message>
        <source>Empty: 4 × hidden for a plain MLP; 8/3 × hidden rounded up to a multiple of 256 for a gated one (Llama&apos;s rule)</source>
        <translation>Пусто: 4 × ширина для обычного MLP; 8/3 × ширина с округлением вверх до кратного 256 для MLP с гейтом (правило Llama)</translation>
    </message>
    <message>
        <source>Size of the learned position table (learned positions only)</source>
        <translation>Размер обучаемой таблицы позиций (только для обучаемых позиций)</translation>
    </message>
    <message>
        <source>Rotary positions have no table: this size changes nothing</source>
        <translation>У RoPE нет таблицы позиций: этот размер ни на что не влияет</translation>
    </message>
    <message>
        <source>The torch profile counts what PyTorch&apos;s engines keep: fp32 parameters, gradients and AdamW states, bf16 compute.</source>
        <translation>Профиль «torch» учитывает то, что хранят движки PyTorch: параметры, градиенты и состояния AdamW в FP32, вычисления в BF16.</translation>
    </message>
    <message>
        <source>q/k norms</source>
        <translation>нормализация q/k</translation>
    </message>
    <message>
        <source>parallel attention + MLP</source>
        <translation>параллельные внимание и MLP</translation>
    </message>
    <message>
        <source>embedding LayerNorm</source>
        <translation>LayerNorm после эмбеддинга</translation>
    </message>
    <message>
        <source>head bias</source>
        <translation>смещение выходного слоя</translation>
    </message>
    <message>
        <source>no final norm</source>
        <translation>без финальной нормализации</translation>
    </message>
    <message>
        <source>rotary on {n} lanes per head</source>
        <translation>RoPE только на части компонент головы ({n})</translation>
    </message>
    <message>
        <source>{n} extra position rows</source>
        <translation>дополнительных строк позиций: {n}</translation>
    </message>
    <message>
        <source>{n}-wide embeddings projected</source>
        <translation>эмбеддинги ширины {n} с проекцией</translation>
    </message>
    <message>
        <source>two norms per block</source>
        <translation>две нормализации в блоке</translation>
    </message>
    <message>
        <source>activation {name}</source>
        <translation>активация {name}</translation>
    </message>
    <message>
        <source>= {n} parameters, exact from the architecture</source>
        <translation>= {n}: точное число параметров по архитектуре</translation>
    </message>
    <message>
        <source>P = {n} ({short})</source>
        <translation>P = {n} ({short})</translation>
    </message>
    <message>
        <source>Layout also has: {list}</source>
        <translation>В компоновке также: {list}</translation>
    </message>
    <message>
        <source>= {n} parameters in {t} tensors, exact from transformers</source>
        <translation>= {n}: точное число параметров по transformers (тензоров: {t})</translation>
    </message>
    <message>
        <source>= {n} parameters</source>
        <translation>= {n}: число параметров</translation>
    </message>
    <message>
        <source>Nd = {nd} ({nodes} × {gpn} GPUs)</source>
        <translation>Nd = {nd} ({nodes} × {gpn} GPU)</translation>
    </message>
    <message>
        <source>Parameter dtype</source>
        <translation>Тип параметров</translation>
    </message>
    <message>
        <source>MixedPrecisionPolicy&apos;s param_dtype: FSDP2 gathers parameters and computes in it (stages 2-3); autocast&apos;s dtype under DDP (stages 0-1). The states stay FP32 either way</source>
        <translation>param_dtype в MixedPrecisionPolicy: в нём FSDP2 собирает параметры и считает (стадии 2-3); тип autocast под DDP (стадии 0-1). Состояния в любом случае остаются в FP32</translation>
    </message>
    <message>
        <source>Reduce dtype</source>
        <translation>Тип редукции</translation>
    </message>
    <message>
        <source>MixedPrecisionPolicy&apos;s reduce_dtype: FSDP2 reduce-scatters gradients in it (stages 2-3); DDP all-reduces its FP32 gradients as they are</source>
        <translation>reduce_dtype в MixedPrecisionPolicy: в нём FSDP2 выполняет reduce-scatter градиентов (стадии 2-3); DDP выполняет all-reduce своих градиентов FP32 как есть</translation>
    </message>
    <message>
        <source>Autocast (stages 0-1)</source>
        <translation>Autocast (стадии 0-1)</translation>
    </message>
    <message>
        <source>torch.autocast around DDP&apos;s forward, in the parameter dtype; off: FP32 compute</source>
        <translation>torch.autocast вокруг прямого прохода DDP, в типе параметров; выключен: вычисления в FP32</translation>
    </message>
    <message>
        <source>FSDP2 units</source>
        <translation>Единицы FSDP2</translation>
    </message>
    <message>
        <source>Which modules fully_shard wraps before the root: each block, N consecutive blocks together, or the root only (one unit: the whole model gathered at once)</source>
        <translation>Какие модули fully_shard оборачивает до корня: каждый блок, N соседних блоков вместе или только корень (одна единица: вся модель собирается сразу)</translation>
    </message>
    <message>
        <source>Blocks per unit N</source>
        <translation>Блоков в единице N</translation>
    </message>
    <message>
        <source>Blocks in one FSDP2 unit when the units are N blocks</source>
        <translation>Блоков в одной единице FSDP2, когда единица — N блоков</translation>
    </message>
    <message>
        <source>Backward prefetch</source>
        <translation>Сбор заранее (prefetch) в обратном проходе</translation>
    </message>
    <message>
        <source>FSDP2 gathers the next unit while a unit&apos;s backward runs (its default), or each unit only when its own backward starts</source>
        <translation>FSDP2 собирает следующую единицу, пока идёт обратный проход текущей (по умолчанию), или каждую единицу только в начале её собственного обратного прохода</translation>
    </message>
    <message>
        <source>Recompute every k-th block</source>
        <translation>Пересчёт на каждом k-м блоке</translation>
    </message>
    <message>
        <source>The Recompute mode on the k-th, 2k-th, … block only (TorchTitan&apos;s ac_freq); 1: every block</source>
        <translation>Режим «Пересчёт» только на k-м, 2k-м, … блоке (ac_freq в TorchTitan); 1: на каждом блоке</translation>
    </message>
    <message>
        <source>Recompute per block</source>
        <translation>Пересчёт по блокам</translation>
    </message>
    <message>
        <source>One choice per block, in order, e.g. full*16,none*16 (none, selective, full, each optionally ×count); overrides Recompute and every k-th. Empty: not used</source>
        <translation>Выбор для каждого блока по порядку, например full*16,none*16 (режимы пересчёта через запятую, каждый можно ×число); заменяет «Пересчёт» и «каждый k-й». Пусто: не используется</translation>
    </message>
    <message>
        <source>Precision, FSDP2 units, recompute</source>
        <translation>Точность, единицы FSDP2, пересчёт</translation>
    </message>
    <message>
        <source>e.g. full*16,none*16</source>
        <translation>например, full*16,none*16</translation>
    </message>
</context>
<context>
    <name>PlanTab</name>
    <message>
        <source>Per-stage memory chart</source>
        <translation>Диаграмма памяти по стадиям</translation>
    </message>
    <message>
        <source>Memory versus Nd chart</source>
        <translation>Диаграмма памяти в зависимости от Nd</translation>
    </message>
    <message>
        <source>Log scale</source>
        <translation>Лог. шкала</translation>
    </message>
    <message>
        <source>Logarithmic memory axis: small stages and models stay readable</source>
        <translation>Логарифмическая ось памяти: малые стадии и модели остаются читаемыми</translation>
    </message>
    <message>
        <source>Logarithmic Scale</source>
        <translation>Логарифмическая шкала</translation>
    </message>
    <message>
        <source>Export Charts as PNG…</source>
        <translation>Экспорт диаграмм в PNG…</translation>
    </message>
    <message>
        <source>Export Charts as SVG…</source>
        <translation>Экспорт диаграмм в SVG…</translation>
    </message>
    <message>
        <source>{n} field(s) need attention; the chart shows the last valid plan.</source>
        <translation>Полей с ошибками: {n}; диаграмма показывает последний корректный план.</translation>
    </message>
    <message>
        <source>custom architecture</source>
        <translation>своя архитектура</translation>
    </message>
    <message>
        <source>raw parameter count</source>
        <translation>заданное число параметров</translation>
    </message>
    <message>
        <source>Per-rank model-state memory by ZeRO stage</source>
        <translation>Память состояний модели на участника по стадиям ZeRO</translation>
    </message>
    <message>
        <source>Per-rank model states versus Nd</source>
        <translation>Состояния модели на участника в зависимости от Nd</translation>
    </message>
    <message>
        <source>log memory axis</source>
        <translation>логарифмическая ось памяти</translation>
    </message>
    <message>
        <source>{name}: P = {p} ({short}) · Nd = {nd} ({nodes} × {gpn} GPUs) · figures in {unit} ({note})</source>
        <translation>{name}: P = {p} ({short}) · Nd = {nd} ({nodes} × {gpn} GPU) · значения в {unit} ({note})</translation>
    </message>
    <message>
        <source>Note: {note}.</source>
        <translation>Примечание: {note}.</translation>
    </message>
    <message>
        <source>The bars are model states; the hatched top is the predicted peak of a full step (activations, gathered parameters, buffers; sequence {seq} × micro-batch {mb}). Fragmentation is not predicted: Simulate or Measure the step.</source>
        <translation>Столбцы — состояния модели; заштрихованная верхушка — прогноз пика полного шага (активации, собранные параметры, буферы; последовательность {seq} × микробатч {mb}). Фрагментация не прогнозируется: симулируйте или измерьте шаг.</translation>
    </message>
    <message>
        <source>No predicted peak is drawn: without the architecture the activations are unknown (a raw parameter count); pick a preset or give the architecture for it.</source>
        <translation>Прогноз пика не показан: без архитектуры активации неизвестны (задано только число параметров); выберите готовую модель или задайте архитектуру.</translation>
    </message>
    <message>
        <source>computed, {profile}; {unit}; dotted line: current Nd = {nd}</source>
        <translation>расчёт, {profile}; {unit}; пунктир — текущее Nd = {nd}</translation>
    </message>
    <message>
        <source>predicted peak of the step (estimate)</source>
        <translation>прогнозируемый пик шага (оценка)</translation>
    </message>
</context>
<context>
    <name>Provenance</name>
    <message>
        <source>Computed (closed form), {profile}: {source}; AdamW with fp32 states and bf16 compute</source>
        <translation>Расчёт по формулам, {profile}: {source}; AdamW с состояниями в FP32 и вычислениями в BF16</translation>
    </message>
    <message>
        <source>Computed (closed form), {profile}: {source}; scheme: {scheme}</source>
        <translation>Расчёт по формулам, {profile}: {source}; схема: {scheme}</translation>
    </message>
    <message>
        <source>Model states only. Fitting them in GPU memory is not the peak: activations, temporary buffers and fragmentation come on top (ZeRO §3.2). Measure the full step.</source>
        <translation>Только состояния модели. То, что они помещаются в память GPU, не означает, что поместится пик: сверху добавляются активации, временные буферы и фрагментация (ZeRO §3.2). Измерьте полный шаг.</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <source>&amp;Look in:</source>
        <translation>&amp;Папка:</translation>
    </message>
    <message>
        <source>Files of &amp;type:</source>
        <translation>&amp;Тип файлов:</translation>
    </message>
</context>
<context>
    <name>RankFigure</name>
    <message numerus="yes">
        <source>Nd = {nd} ranks, one box each</source>
        <translation>
            <numerusform>Nd = {nd} участник, один прямоугольник</numerusform>
            <numerusform>Nd = {nd} участника, по прямоугольнику на каждого</numerusform>
            <numerusform>Nd = {nd} участников, по прямоугольнику на каждого</numerusform>
        </translation>
    </message>
    <message>
        <source>+{n} more</source>
        <translation>ещё {n}</translation>
    </message>
    <message>
        <source>grey: the part of a split state that the other ranks keep</source>
        <translation>серое: часть разделённого состояния, которую хранят другие участники</translation>
    </message>
    <message>
        <source>One rank at stage {n}</source>
        <translation>Один участник на стадии {n}</translation>
    </message>
    <message>
        <source>Per rank:</source>
        <translation>На участника:</translation>
    </message>
    <message>
        <source> (split)</source>
        <translation> (разделены)</translation>
    </message>
    <message numerus="yes">
        <source>Nd = {nd} ranks; the last box stands for the rest</source>
        <translation>
            <numerusform>Nd = {nd} участник; последний прямоугольник — за всех остальных</numerusform>
            <numerusform>Nd = {nd} участника; последний прямоугольник — за всех остальных</numerusform>
            <numerusform>Nd = {nd} участников; последний прямоугольник — за всех остальных</numerusform>
        </translation>
    </message>
    <message>
        <source>rank {i}</source>
        <translation>участник {i}</translation>
    </message>
    <message>
        <source> (whole)</source>
        <translation> (целиком)</translation>
    </message>
    <message>
        <source>Communication per rank per step (§7)</source>
        <translation>Обмены на участника за шаг (§7)</translation>
    </message>
    <message>
        <source>stages 0–2</source>
        <translation>стадии 0–2</translation>
    </message>
    <message>
        <source>stage 3</source>
        <translation>стадия 3</translation>
    </message>
    <message>
        <source>×{r} the traffic of stages 0–2</source>
        <translation>×{r} к обменам стадий 0–2</translation>
    </message>
</context>
<context>
    <name>Results</name>
    <message>
        <source>Stage</source>
        <translation>Стадия</translation>
    </message>
    <message>
        <source>ZeRO stage (0 = DDP, 1 = ZeroRedundancyOptimizer, 2 and 3 = FSDP2)</source>
        <translation>Стадия ZeRO (0 = DDP, 1 = ZeroRedundancyOptimizer, 2 и 3 = FSDP2)</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>Участник</translation>
    </message>
    <message>
        <source>Rank of the run</source>
        <translation>Участник запуска</translation>
    </message>
    <message>
        <source>Peak
of the step</source>
        <translation>Пик
шага</translation>
    </message>
    <message>
        <source>Tracked peak of the step: model states, activations, temporaries and buffers</source>
        <translation>Отслеженный пик шага: состояния модели, активации, временные данные и буферы</translation>
    </message>
    <message>
        <source>States
simulated</source>
        <translation>Состояния
(симуляция)</translation>
    </message>
    <message>
        <source>States
measured</source>
        <translation>Состояния
(замер)</translation>
    </message>
    <message>
        <source>Parameters, gradients and optimizer state at rest after the optimizer step, from live tensors</source>
        <translation>Параметры, градиенты и состояния оптимизатора в покое после шага оптимизатора, по живым тензорам</translation>
    </message>
    <message>
        <source>States
predicted</source>
        <translation>Состояния
(прогноз)</translation>
    </message>
    <message>
        <source>The same, predicted by the torch profile for the run&apos;s shapes and ranks</source>
        <translation>То же по прогнозу профиля «torch» для форм и участников запуска</translation>
    </message>
    <message>
        <source>Difference
vs torch profile</source>
        <translation>Разница
с «torch»</translation>
    </message>
    <message>
        <source>(run − predicted) / predicted states</source>
        <translation>(запуск − прогноз) / прогноз состояний</translation>
    </message>
    <message>
        <source>DDP buckets
run / pred.</source>
        <translation>Бакеты DDP
запуск / прогн.</translation>
    </message>
    <message>
        <source>DDP&apos;s gradient buckets (stages 0 and 1), from the run / predicted; the Plan tab&apos;s bars include them</source>
        <translation>Бакеты градиентов DDP (стадии 0 и 1), по запуску / по прогнозу; столбцы на вкладке «План» их учитывают</translation>
    </message>
    <message>
        <source>rank {r}</source>
        <translation>участник {r}</translation>
    </message>
    <message>
        <source>{what}: run {m}, predicted {p}</source>
        <translation>{what}: запуск {m}, прогноз {p}</translation>
    </message>
    <message>
        <source>Peak of the step: {v} (activations and temporaries included)</source>
        <translation>Пик шага: {v} (с активациями и временными буферами)</translation>
    </message>
    <message>
        <source>Step time: {t}</source>
        <translation>Время шага: {t}</translation>
    </message>
    <message>
        <source>no run for this plan yet</source>
        <translation>для этого плана запусков ещё не было</translation>
    </message>
    <message>
        <source>ZeRO stage</source>
        <translation>Стадия ZeRO</translation>
    </message>
    <message>
        <source>Computed
states</source>
        <translation>Состояния
(расчёт)</translation>
    </message>
    <message>
        <source>Model states of the largest rank, computed with the {profile} profile (the bars)</source>
        <translation>Состояния модели самого нагруженного участника, рассчитанные по профилю {profile} (столбцы)</translation>
    </message>
    <message>
        <source>Torch profile
states</source>
        <translation>Состояния
по «torch»</translation>
    </message>
    <message>
        <source>Model states of the largest rank as PyTorch&apos;s engines keep them (computed; the reference for every % here)</source>
        <translation>Состояния модели самого нагруженного участника так, как их хранят движки PyTorch (расчёт; от них считаются все % здесь)</translation>
    </message>
    <message>
        <source>Predicted
peak</source>
        <translation>Пик
(прогноз)</translation>
    </message>
    <message>
        <source>The computed peak of the step: states, activations and buffers</source>
        <translation>Расчётный пик шага: состояния, активации и буферы</translation>
    </message>
    <message>
        <source>Simulated
peak</source>
        <translation>Пик
(симуляция)</translation>
    </message>
    <message>
        <source>Simulated
states (Δ)</source>
        <translation>Состояния
(симуляция, Δ)</translation>
    </message>
    <message>
        <source>Δ vs the torch profile</source>
        <translation>Δ относительно профиля «torch»</translation>
    </message>
    <message>
        <source>Measured
peak (Δ)</source>
        <translation>Пик
(замер, Δ)</translation>
    </message>
    <message>
        <source>Δ vs the simulated peak</source>
        <translation>Δ относительно пика симуляции</translation>
    </message>
    <message>
        <source>Measured
states (Δ)</source>
        <translation>Состояния
(замер, Δ)</translation>
    </message>
</context>
<context>
    <name>RunController</name>
    <message>
        <source>Cancel: stopping every process of the run (SIGTERM, then SIGKILL after 1 s).</source>
        <translation>Отмена: остановка всех процессов запуска (SIGTERM, через 1 с — SIGKILL).</translation>
    </message>
    <message>
        <source>Error ({code}): {message}</source>
        <translation>Ошибка ({code}): {message}</translation>
    </message>
    <message>
        <source>Done in {wall}.</source>
        <translation>Готово за {wall}.</translation>
    </message>
    <message>
        <source>Every process of the run stopped {s} after the first signal.</source>
        <translation>Все процессы запуска остановились через {s} после первого сигнала.</translation>
    </message>
    <message>
        <source>Every process of the run has exited.</source>
        <translation>Все процессы запуска завершились.</translation>
    </message>
</context>
<context>
    <name>RunProcess</name>
    <message>
        <source>the measurement was cancelled</source>
        <translation>измерение отменено</translation>
    </message>
    <message>
        <source>could not start {program}: {reason}</source>
        <translation>не удалось запустить {program}: {reason}</translation>
    </message>
    <message>
        <source>the measurement stopped before finishing</source>
        <translation>измерение прервалось, не завершившись</translation>
    </message>
    <message>
        <source>the measurement could not start</source>
        <translation>измерение не смогло начаться</translation>
    </message>
    <message>
        <source>no output</source>
        <translation>вывода нет</translation>
    </message>
    <message>
        <source>{what} (exit status {code}): {why}</source>
        <translation>{what} (код выхода {code}): {why}</translation>
    </message>
    <message>
        <source>the measurement did not finish within {s} s and was stopped</source>
        <translation>измерение не завершилось за {s} с и было остановлено</translation>
    </message>
    <message>
        <source>gave up after SIGKILL: some processes of the run did not stop (group {pgid})</source>
        <translation>ожидание прекращено после SIGKILL: часть процессов запуска не остановилась (группа {pgid})</translation>
    </message>
</context>
<context>
    <name>RunRecords</name>
    <message>
        <source>This plan&apos;s earlier results are back on the chart: {what}.</source>
        <translation>Прежние результаты этого плана снова на диаграмме: {what}.</translation>
    </message>
    <message>
        <source>The plan changed: {what} no longer match it and were taken off the chart (they come back if the plan changes back).</source>
        <translation>План изменился: {what} ему больше не соответствуют и сняты с диаграммы (они вернутся, если план станет прежним).</translation>
    </message>
</context>
<context>
    <name>RunStatus</name>
    <message>
        <source>setting up</source>
        <translation>подготовка</translation>
    </message>
    <message>
        <source>warm-up step</source>
        <translation>разогревочный шаг</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>прямой проход</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>обратный проход</translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation>шаг оптимизатора</translation>
    </message>
    <message>
        <source>S&amp;imulate</source>
        <translation>Симу&amp;лировать</translation>
    </message>
    <message>
        <source>One full-size step of rank 0 under fake tensors: no GPU, little memory — for models this machine cannot hold</source>
        <translation>Один полноразмерный шаг участника 0 в симуляции, на тензорах без данных: без GPU и почти без памяти — для моделей, которые не помещаются в эту машину</translation>
    </message>
    <message>
        <source>&amp;Measure</source>
        <translation>&amp;Измерить</translation>
    </message>
    <message>
        <source>Run one real training step per selected stage on local ranks</source>
        <translation>Выполнить один настоящий шаг обучения для каждой выбранной стадии на локальных участниках</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>&amp;Отмена</translation>
    </message>
    <message>
        <source>Stop every process of the run now</source>
        <translation>Сейчас же остановить все процессы запуска</translation>
    </message>
    <message>
        <source>Run progress</source>
        <translation>Ход запуска</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>остановлено</translation>
    </message>
    <message>
        <source>starting…</source>
        <translation>запуск…</translation>
    </message>
    <message>
        <source>{stage}: selected</source>
        <translation>{stage}: выбрана</translation>
    </message>
    <message>
        <source>{stage}: done ✓</source>
        <translation>{stage}: готово ✓</translation>
    </message>
    <message>
        <source>{stage}: stopped</source>
        <translation>{stage}: остановлена</translation>
    </message>
    <message>
        <source>{stage}: {phase}</source>
        <translation>{stage}: {phase}</translation>
    </message>
    <message>
        <source>{stage}: waiting</source>
        <translation>{stage}: ожидание</translation>
    </message>
    <message>
        <source>{stage}: not simulated</source>
        <translation>{stage}: не симулируется</translation>
    </message>
    <message>
        <source>{stage}: not measured</source>
        <translation>{stage}: не измеряется</translation>
    </message>
</context>
<context>
    <name>RunTexts</name>
    <message>
        <source>&lt;b&gt;Simulate&lt;/b&gt; runs rank 0 of {nd} ranks for stage(s) {stages} as a full-size step under fake tensors: no GPU, little memory — for models this machine cannot hold. Expect about {time}.</source>
        <translation>&lt;b&gt;Симулировать&lt;/b&gt;: полноразмерный шаг участника 0 из {nd} для стадий {stages} на тензорах без данных — без GPU и почти без памяти, для моделей, которые не помещаются в эту машину. Займёт около {time}.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Measure&lt;/b&gt; cannot run: {why}</source>
        <translation>&lt;b&gt;Измерить&lt;/b&gt; нельзя: {why}</translation>
    </message>
    <message>
        <source>CPU ranks (gloo)</source>
        <translation>на CPU (gloo)</translation>
    </message>
    <message>
        <source>CUDA ranks (NCCL, one GPU each)</source>
        <translation>на CUDA (NCCL, по GPU на каждого)</translation>
    </message>
    <message>
        <source>CUDA ranks if this machine has a GPU, else CPU ranks</source>
        <translation>на CUDA, если на машине есть GPU, иначе на CPU</translation>
    </message>
    <message>
        <source>&lt;b&gt;Measure&lt;/b&gt; runs a warm-up and one measured training step for stage(s) {stages} on {ranks} local {where}. Expect about {time}, much of it starting the ranks (each imports torch).</source>
        <translation>&lt;b&gt;Измерить&lt;/b&gt;: разогревочный и один измеряемый шаг обучения для стадий {stages}; локальных участников — {ranks}, {where}. Займёт около {time}, в основном на запуск участников (каждый импортирует torch).</translation>
    </message>
    <message>
        <source>A scaled run is compared here only; the Plan tab&apos;s bars stay those of the full model.</source>
        <translation>Уменьшенная модель сравнивается только здесь; столбцы на вкладке «План» остаются для полной модели.</translation>
    </message>
    <message>
        <source>The Plan tab&apos;s bars are for Nd = {nd}; with {ranks} ranks the comparison stays in this tab (set Ranks to {nd} to put markers on that chart).</source>
        <translation>Столбцы на вкладке «План» посчитаны для Nd = {nd}, а участников в запуске — {ranks}, поэтому сравнение остаётся на этой вкладке (укажите участников: {nd}, чтобы отметки появились на той диаграмме).</translation>
    </message>
    <message>
        <source>Results also land on the Plan tab&apos;s chart beside each bar.</source>
        <translation>Результаты появятся и на диаграмме вкладки «План» рядом с каждым столбцом.</translation>
    </message>
    <message>
        <source>Stopping every process of the run…</source>
        <translation>Остановка всех процессов запуска…</translation>
    </message>
    <message>
        <source>Starting the simulation (it imports torch)…</source>
        <translation>Запуск симуляции (импортируется torch)…</translation>
    </message>
    <message>
        <source>Starting {ranks} ranks (each imports torch)…</source>
        <translation>Запуск участников: {ranks} (каждый импортирует torch)…</translation>
    </message>
    <message>
        <source>Simulating…</source>
        <translation>Симуляция…</translation>
    </message>
    <message>
        <source>Measuring…</source>
        <translation>Измерение…</translation>
    </message>
    <message>
        <source>Simulating stage {n}: {phase}…</source>
        <translation>Симуляция стадии {n}: {phase}…</translation>
    </message>
    <message>
        <source>Measuring stage {n}: {phase}…</source>
        <translation>Измерение стадии {n}: {phase}…</translation>
    </message>
    <message>
        <source>({s} s so far; Cancel stops every process)</source>
        <translation>(прошло {s} с; «Отмена» остановит все процессы)</translation>
    </message>
    <message>
        <source>The run was cancelled; every process of it was stopped.</source>
        <translation>Запуск отменён; все его процессы остановлены.</translation>
    </message>
    <message>
        <source>The run failed: {reason}.</source>
        <translation>Запуск не удался: {reason}.</translation>
    </message>
    <message>
        <source>Details are in the log below.</source>
        <translation>Подробности — в журнале ниже.</translation>
    </message>
    <message>
        <source>The run finished without results.</source>
        <translation>Запуск завершился без результатов.</translation>
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
        <translation>Симуляция участника 0 из {ranks} на тензорах без данных: torch {torch}, за {wall}.</translation>
    </message>
    <message>
        <source>Measured on {device}, {ranks} ranks, torch {torch}, in {wall}.</source>
        <translation>Измерено на {device}, участников: {ranks}, torch {torch}, за {wall}.</translation>
    </message>
    <message>
        <source>Model states at rest match the torch profile on every rank ({d}).</source>
        <translation>Состояния модели в покое совпадают с профилем «torch» у каждого участника ({d}).</translation>
    </message>
    <message>
        <source>Model states at rest differ from the torch profile by up to {d} (stage {s}, rank {r}).</source>
        <translation>Состояния модели в покое отличаются от профиля «torch» не более чем на {d} (стадия {s}, участник {r}).</translation>
    </message>
    <message>
        <source>The plan has changed since this run; its results were set aside.</source>
        <translation>После этого запуска план изменился; его результаты отложены.</translation>
    </message>
    <message>
        <source>On the Plan tab&apos;s chart, beside each bar: the peak and the model states of the largest rank, % against the torch profile.</source>
        <translation>На диаграмме вкладки «План» рядом с каждым столбцом: пик и состояния модели самого нагруженного участника, % — относительно профиля «torch».</translation>
    </message>
    <message>
        <source>Measured on a scaled model: {model}.</source>
        <translation>Измерено на уменьшенной модели: {model}.</translation>
    </message>
    <message>
        <source>The Plan tab&apos;s bars are for the full model, so no markers were put there.</source>
        <translation>Столбцы на вкладке «План» посчитаны для полной модели, поэтому отметки туда не ставятся.</translation>
    </message>
    <message>
        <source>The Plan tab&apos;s bars are for Nd = {nd}; this run used {ranks} ranks, so no markers were put there.</source>
        <translation>Столбцы на вкладке «План» посчитаны для Nd = {nd}, а в этом запуске было участников: {ranks}, поэтому отметки туда не ставятся.</translation>
    </message>
    <message>
        <source>for-loop</source>
        <translation>по одному тензору</translation>
    </message>
    <message>
        <source>AdamW kernels: {impl}; attention kernel: {attention}.</source>
        <translation>Ядра AdamW: {impl}; ядро внимания: {attention}.</translation>
    </message>
    <message>
        <source>AdamW kernels: {impl}.</source>
        <translation>Ядра AdamW: {impl}.</translation>
    </message>
    <message>
        <source>Attention kernel: {attention}.</source>
        <translation>Ядро внимания: {attention}.</translation>
    </message>
    <message>
        <source>CUDA allocator peak {alloc}: {extra} above the tracked peak (what the tracker does not see: cuBLAS/cuDNN workspaces, blocks held for other CUDA streams); reserved but not allocated {frag} (measured; an upper bound on fragmentation: it includes free blocks kept for reuse); outside torch&apos;s allocator {outside} (CUDA context, NCCL buffers, other processes). Attention kernels and autocast differ between CUDA and CPU, so do the activations.</source>
        <translation>Пик аллокатора CUDA {alloc}: на {extra} выше отслеженного пика (то, чего трекер не видит: рабочие области cuBLAS/cuDNN, блоки, удерживаемые для других потоков CUDA); зарезервировано, но не выделено {frag} (замер; верхняя граница потерь из-за фрагментации: сюда входят и свободные блоки, которые аллокатор держит для повторного использования); вне аллокатора torch {outside} (контекст CUDA, буферы NCCL, другие процессы). Ядра внимания и autocast на CUDA и CPU различаются, поэтому различаются и активации.</translation>
    </message>
    <message>
        <source>{layers} layers, hidden {hidden}, {heads} heads, FFN {ffn}, vocabulary {vocab}, sequence {seq} × micro-batch {mb}; P = {p} ({short})</source>
        <translation>слоёв {layers}, ширина {hidden}, голов {heads}, FFN {ffn}, словарь {vocab}, последовательность {seq} × микробатч {mb}; P = {p} ({short})</translation>
    </message>
    <message>
        <source>{l} of {L} layers, hidden {h} of {H}, FFN {f} of {F}, vocabulary {v} of {V}, sequence {s} of {S}; P = {p} ({short}) of {P} ({SHORT})</source>
        <translation>слоёв {l} из {L}, ширина {h} из {H}, FFN {f} из {F}, словарь {v} из {V}, последовательность {s} из {S}; P = {p} ({short}) из {P} ({SHORT})</translation>
    </message>
    <message>
        <source>Model as measured: {model}.</source>
        <translation>Измеряемая модель: {model}.</translation>
    </message>
    <message>
        <source>Scaled model as measured: {model}.</source>
        <translation>Измеряемая уменьшенная модель: {model}.</translation>
    </message>
    <message>
        <source>Predicted model states at rest (torch profile, largest of {n} ranks): up to {v}.</source>
        <translation>Прогноз состояний модели в покое (профиль «torch», самый нагруженный из участников: {n}): до {v}.</translation>
    </message>
</context>
<context>
    <name>StageChart</name>
    <message>
        <source>peak ≈ {v}</source>
        <translation>пик ≈ {v}</translation>
    </message>
    <message>
        <source>(fits)</source>
        <translation>(помещается)</translation>
    </message>
    <message>
        <source>(over)</source>
        <translation>(не помещается)</translation>
    </message>
    <message>
        <source>GPU memory {v}</source>
        <translation>Память GPU {v}</translation>
    </message>
    <message>
        <source>{gpu}, above the chart</source>
        <translation>{gpu} — выше диаграммы</translation>
    </message>
    <message>
        <source>{unit} per rank</source>
        <translation>{unit} на участника</translation>
    </message>
    <message>
        <source>the loss</source>
        <translation>функция потерь</translation>
    </message>
    <message>
        <source>the loss&apos;s backward</source>
        <translation>обратный проход функции потерь</translation>
    </message>
    <message>
        <source>the end of backward</source>
        <translation>конец обратного прохода</translation>
    </message>
    <message>
        <source>the last block</source>
        <translation>последний блок</translation>
    </message>
    <message>
        <source>the first block&apos;s reduce-scatter</source>
        <translation>reduce-scatter первого блока</translation>
    </message>
    <message>
        <source>the root group&apos;s reduce-scatter</source>
        <translation>reduce-scatter корневой группы</translation>
    </message>
    <message>
        <source>the optimizer step</source>
        <translation>шаг оптимизатора</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>прямой проход</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>обратный проход</translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation>шаг оптимизатора</translation>
    </message>
    <message>
        <source>Predicted peak of the step</source>
        <translation>Прогнозируемый пик шага</translation>
    </message>
    <message>
        <source>Phase: {phase} ({moment})</source>
        <translation>Фаза: {phase} ({moment})</translation>
    </message>
    <message>
        <source>Fits in {gpu}</source>
        <translation>Помещается в {gpu}</translation>
    </message>
    <message>
        <source>Over {gpu} by {over}</source>
        <translation>Превышает {gpu} на {over}</translation>
    </message>
    <message>
        <source>Activations left out: they need the architecture.</source>
        <translation>Активации не учтены: для них нужна архитектура.</translation>
    </message>
    <message>
        <source>Predicted (closed form), not measured; fragmentation is not included. Check it with Simulate or Measure.</source>
        <translation>Прогноз (замкнутая формула), не измерение; фрагментация не учтена. Проверьте симуляцией или измерением.</translation>
    </message>
    <message>
        <source>Formula: {f} with P = {p}, Nd = {nd}</source>
        <translation>Формула: {f} при P = {p}, Nd = {nd}</translation>
    </message>
    <message>
        <source>Stage total: {total} = {formula}</source>
        <translation>Всего на стадии: {total} = {formula}</translation>
    </message>
    <message>
        <source>Computed, {profile}. Click it (or press Enter) for the claim it rests on.</source>
        <translation>Расчёт, {profile}. Щёлкните (или нажмите Enter), чтобы открыть утверждение, на котором он основан.</translation>
    </message>
    <message>
        <source>States vs the torch profile {c}: {d}</source>
        <translation>Состояния относительно профиля «torch» {c}: {d}</translation>
    </message>
    <message>
        <source>States vs computed {c}: {d}</source>
        <translation>Состояния относительно расчёта {c}: {d}</translation>
    </message>
    <message>
        <source>Peak of the step: {v}</source>
        <translation>Пик шага: {v}</translation>
    </message>
    <message>
        <source>Model states: {v}</source>
        <translation>Состояния модели: {v}</translation>
    </message>
    <message>
        <source>beside each bar: peak (▲ measured, ■ simulated), model states (◆, ●), % = states vs the torch profile</source>
        <translation>рядом со столбцами: пик (▲ замер, ■ симуляция), состояния модели (◆, ●), % — состояния относительно профиля «torch»</translation>
    </message>
</context>
<context>
    <name>StepView</name>
    <message>
        <source>Step {i} of {n}</source>
        <translation>Шаг {i} из {n}</translation>
    </message>
    <message>
        <source>The glossary has no claim for this step.</source>
        <translation>В глоссарии нет утверждения для этого шага.</translation>
    </message>
    <message>
        <source>Where this holds</source>
        <translation>Граница применимости</translation>
    </message>
    <message>
        <source>Click any highlighted number to see its formula.</source>
        <translation>Щёлкните по выделенному числу, чтобы увидеть формулу.</translation>
    </message>
</context>
<context>
    <name>TableTab</name>
    <message>
        <source>Copy table as text</source>
        <translation>Копировать таблицу как текст</translation>
    </message>
    <message>
        <source>Copy the table, its caption and notes (Ctrl+Shift+C)</source>
        <translation>Копировать таблицу с подписью и примечаниями (Ctrl+Shift+C)</translation>
    </message>
    <message>
        <source>Per-stage memory table</source>
        <translation>Таблица памяти по стадиям</translation>
    </message>
    <message>
        <source>Per rank</source>
        <translation>На участника</translation>
    </message>
    <message>
        <source>Total model states</source>
        <translation>Всего состояний модели</translation>
    </message>
    <message>
        <source>Formula (bytes)</source>
        <translation>Формула (байты)</translation>
    </message>
    <message>
        <source>Ranks: smallest – largest</source>
        <translation>Участники: наименьший – наибольший</translation>
    </message>
    <message>
        <source>fits: {pct}% of {gpu}</source>
        <translation>помещается: {pct}% от {gpu}</translation>
    </message>
    <message>
        <source>over by {over} ({pct}%)</source>
        <translation>превышение на {over} ({pct}%)</translation>
    </message>
    <message>
        <source>States vs GPU memory</source>
        <translation>Состояния и память GPU</translation>
    </message>
    <message>
        <source>Global batch {g} = micro-batch {mb} × {k} accumulation steps × Nd {nd} (sequences per optimizer step).</source>
        <translation>Глобальный батч {g} = микробатч {mb} × {k} (шаги накопления) × Nd {nd} (последовательностей на шаг оптимизатора).</translation>
    </message>
    <message>
        <source>Between micro-batches each rank keeps the whole model&apos;s gradients (reduced in the last micro-batch only); the predicted peak counts them.</source>
        <translation>Между микробатчами каждый участник хранит градиенты всей модели (сведение только в последнем микробатче); прогнозируемый пик их учитывает.</translation>
    </message>
    <message>
        <source>Between micro-batches each rank keeps its stage&apos;s own gradients (reduced every micro-batch); the predicted peak counts them.</source>
        <translation>Между микробатчами каждый участник хранит собственные градиенты своей стадии (сведение после каждого микробатча); прогнозируемый пик их учитывает.</translation>
    </message>
    <message>
        <source>States + activations vs GPU memory</source>
        <translation>Состояния + активации относительно памяти GPU</translation>
    </message>
    <message>
        <source>no GPU memory given</source>
        <translation>память GPU не задана</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>прямой проход</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>обратный проход</translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation>шаг оптимизатора</translation>
    </message>
    <message>
        <source>Predicted peak of the step (estimate)</source>
        <translation>Прогнозируемый пик шага (оценка)</translation>
    </message>
    <message>
        <source>needs the architecture (no activations in a raw count)</source>
        <translation>нужна архитектура (число параметров не даёт активаций)</translation>
    </message>
    <message>
        <source>Predicted peak vs GPU memory</source>
        <translation>Прогноз пика и память GPU</translation>
    </message>
    <message>
        <source>Communication per step</source>
        <translation>Обмены за шаг</translation>
    </message>
    <message numerus="yes">
        <source>Communication per step of {k} micro-batches</source>
        <translation>
            <numerusform>Обмены за шаг из {k} микробатча</numerusform>
            <numerusform>Обмены за шаг из {k} микробатчей</numerusform>
            <numerusform>Обмены за шаг из {k} микробатчей</numerusform>
        </translation>
    </message>
    <message>
        <source>Communication time at {bw} GB/s</source>
        <translation>Время обменов при {bw} ГБ/с</translation>
    </message>
    <message>
        <source>over by {over}: needs {pct}% of {gpu}</source>
        <translation>не помещается на {over}: нужно {pct}% от {gpu}</translation>
    </message>
    <message>
        <source>Per-rank model-state memory, largest rank</source>
        <translation>Память состояний модели на участника, наибольший участник</translation>
    </message>
    <message>
        <source>P = {p} parameters · Nd = {nd} · figures in {unit} ({note})</source>
        <translation>P = {p} (число параметров) · Nd = {nd} · значения в {unit} ({note})</translation>
    </message>
    <message>
        <source>On top, estimated activations for sequence {seq} × micro-batch {mb}: {act} per rank (16-bit, fused attention, recompute: {recompute}; an estimate, not a measurement).</source>
        <translation>Сверху — оценка активаций для последовательности {seq} × микробатч {mb}: {act} на участника (16 бит, слитое (fused) внимание, пересчёт: {recompute}; оценка, а не замер).</translation>
    </message>
    <message>
        <source>On top: activations (give the architecture to estimate them), temporary buffers, fragmentation.</source>
        <translation>Сверху: активации (задайте архитектуру, чтобы их оценить), временные буферы, фрагментация.</translation>
    </message>
    <message>
        <source>Note: {note}.</source>
        <translation>Примечание: {note}.</translation>
    </message>
</context>
<context>
    <name>Timeline</name>
    <message>
        <source>Time since the measured step began, s</source>
        <translation>Время от начала измеряемого шага, с</translation>
    </message>
    <message>
        <source>Rank memory, {unit}</source>
        <translation>Память участника, {unit}</translation>
    </message>
    <message>
        <source>A simulation draws no timeline: it records each phase&apos;s peak under fake tensors, not memory over time. Measure draws one here.</source>
        <translation>Симуляция не строит график во времени: она фиксирует пик каждой фазы шага, считая без настоящих данных, а не память по ходу шага. График строит замер.</translation>
    </message>
    <message>
        <source>No memory samples arrived before the run stopped.</source>
        <translation>До остановки запуска замеры памяти не поступили.</translation>
    </message>
    <message>
        <source>The memory of each rank through the measured step is drawn here during a run.</source>
        <translation>Здесь во время запуска рисуется память каждого участника на протяжении измеряемого шага.</translation>
    </message>
    <message>
        <source>stage {s} · rank {r}</source>
        <translation>стадия {s} · участник {r}</translation>
    </message>
</context>
<context>
    <name>Units</name>
    <message>
        <source>1 GB = 10⁹ B</source>
        <translation>1 ГБ = 10⁹ байт</translation>
    </message>
    <message>
        <source>1 GiB = 2³⁰ B</source>
        <translation>1 ГиБ = 2³⁰ байт</translation>
    </message>
    <message>
        <source>1 MB = 10⁶ B</source>
        <translation>1 МБ = 10⁶ байт</translation>
    </message>
    <message>
        <source>1 MiB = 2²⁰ B</source>
        <translation>1 МиБ = 2²⁰ байт</translation>
    </message>
    <message>
        <source>1 kB = 10³ B</source>
        <translation>1 кБ = 10³ байт</translation>
    </message>
    <message>
        <source>1 KiB = 2¹⁰ B</source>
        <translation>1 КиБ = 2¹⁰ байт</translation>
    </message>
    <message>
        <source>whole bytes</source>
        <translation>целые байты</translation>
    </message>
    <message>
        <source>T</source>
        <translation>трлн</translation>
    </message>
    <message>
        <source>M</source>
        <translation>млн</translation>
    </message>
    <message>
        <source>K</source>
        <translation>тыс.</translation>
    </message>
    <message>
        <source>{v}{suffix}</source>
        <translation>{v} {suffix}</translation>
    </message>
    <message>
        <source>{n} B</source>
        <translation>{n} Б</translation>
    </message>
    <message>
        <source>{v} ms</source>
        <translation>{v} мс</translation>
    </message>
    <message>
        <source>{v} s</source>
        <translation>{v} с</translation>
    </message>
    <message>
        <source>B</source>
        <translation>млрд</translation>
    </message>
    <message>
        <source>{n} s</source>
        <translation>{n} с</translation>
    </message>
    <message>
        <source>{n} min</source>
        <translation>{n} мин</translation>
    </message>
    <message>
        <source>{n} h</source>
        <translation>{n} ч</translation>
    </message>
</context>
<context>
    <name>WindowMenus</name>
    <message>
        <source>&amp;New</source>
        <translation>&amp;Новый</translation>
    </message>
    <message>
        <source>New plan</source>
        <translation>Новый план</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>&amp;Открыть…</translation>
    </message>
    <message>
        <source>Open a plan file (*.zerodesk.json)</source>
        <translation>Открыть файл плана (*.zerodesk.json)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>&amp;Сохранить</translation>
    </message>
    <message>
        <source>Save the plan</source>
        <translation>Сохранить план</translation>
    </message>
    <message>
        <source>Save &amp;As…</source>
        <translation>Сохранить &amp;как…</translation>
    </message>
    <message>
        <source>Save the plan under a new name</source>
        <translation>Сохранить план под новым именем</translation>
    </message>
    <message>
        <source>Export Chart as &amp;PNG…</source>
        <translation>Экспорт диаграммы в &amp;PNG…</translation>
    </message>
    <message>
        <source>Export both charts with their captions as PNG</source>
        <translation>Экспорт обеих диаграмм с подписями в PNG</translation>
    </message>
    <message>
        <source>Export Chart as S&amp;VG…</source>
        <translation>Экспорт диаграммы в S&amp;VG…</translation>
    </message>
    <message>
        <source>Export both charts with their captions as SVG</source>
        <translation>Экспорт обеих диаграмм с подписями в SVG</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Выход</translation>
    </message>
    <message>
        <source>Quit ZeroDesk</source>
        <translation>Выйти из ZeroDesk</translation>
    </message>
    <message>
        <source>&amp;Copy Table as Text</source>
        <translation>&amp;Копировать таблицу как текст</translation>
    </message>
    <message>
        <source>Copy the per-stage table as text</source>
        <translation>Копировать таблицу по стадиям как текст</translation>
    </message>
    <message>
        <source>Card &amp;Example</source>
        <translation>&amp;Пример из карточки</translation>
    </message>
    <message>
        <source>P = 2·10⁹, Nd = 4, paper&apos;s Adam: 32 / 14 / 11 / 8 GB</source>
        <translation>P = 2·10⁹, Nd = 4, Adam из статьи: 32 / 14 / 11 / 8 ГБ</translation>
    </message>
    <message>
        <source>&amp;Plan</source>
        <translation>&amp;План</translation>
    </message>
    <message>
        <source>Show the plan tab: both charts</source>
        <translation>Показать вкладку «План»: обе диаграммы</translation>
    </message>
    <message>
        <source>&amp;Table</source>
        <translation>&amp;Таблица</translation>
    </message>
    <message>
        <source>Show the table tab</source>
        <translation>Показать вкладку с таблицей</translation>
    </message>
    <message>
        <source>&amp;Measure Tab</source>
        <translation>Вкладка «&amp;Измерение»</translation>
    </message>
    <message>
        <source>Show the measure tab: simulate or measure a training step</source>
        <translation>Показать вкладку измерений: симулировать или измерить шаг обучения</translation>
    </message>
    <message>
        <source>Fit Ta&amp;b</source>
        <translation>Вкладка «Что по&amp;мещается»</translation>
    </message>
    <message>
        <source>Show the fit tab: the largest micro-batch and the lowest stage that fit, by Nd (predicted)</source>
        <translation>Показать вкладку «Что помещается»: наибольший микробатч и наименьшая стадия, которые помещаются, по Nd (прогноз)</translation>
    </message>
    <message>
        <source>S&amp;imulate</source>
        <translation>Симу&amp;лировать</translation>
    </message>
    <message>
        <source>Simulate one full-size step of rank 0 under fake tensors (for models this machine cannot hold)</source>
        <translation>Симулировать один полноразмерный шаг участника 0 на тензорах без данных (для моделей, которые не помещаются в эту машину)</translation>
    </message>
    <message>
        <source>Measu&amp;re</source>
        <translation>Из&amp;мерить</translation>
    </message>
    <message>
        <source>Measure one real training step per stage on local ranks</source>
        <translation>Измерить один настоящий шаг обучения для каждой стадии на локальных участниках</translation>
    </message>
    <message>
        <source>&amp;Find Claim…</source>
        <translation>&amp;Найти утверждение…</translation>
    </message>
    <message>
        <source>Filter the glossary&apos;s claims</source>
        <translation>Отфильтровать утверждения глоссария</translation>
    </message>
    <message>
        <source>Switch &amp;Units (GB / GiB)</source>
        <translation>Сменить &amp;единицы (ГБ / ГиБ)</translation>
    </message>
    <message>
        <source>Switch between GB (10⁹ B) and GiB (2³⁰ B)</source>
        <translation>Переключить ГБ (10⁹ байт) и ГиБ (2³⁰ байт)</translation>
    </message>
    <message>
        <source>&amp;About ZeroDesk</source>
        <translation>&amp;О программе ZeroDesk</translation>
    </message>
    <message>
        <source>Next Language</source>
        <translation>Следующий язык</translation>
    </message>
    <message>
        <source>Switch the interface language</source>
        <translation>Сменить язык интерфейса</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Файл</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>&amp;Недавние</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>&amp;Правка</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Вид</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>&amp;Язык</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Справка</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>&amp;Тема</translation>
    </message>
    <message>
        <source>Follow the &amp;System</source>
        <translation>Как в &amp;системе</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>&amp;Светлая</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>&amp;Тёмная</translation>
    </message>
    <message>
        <source>Main toolbar</source>
        <translation>Основная панель</translation>
    </message>
    <message>
        <source>Clear List</source>
        <translation>Очистить список</translation>
    </message>
    <message>
        <source>No recent plans</source>
        <translation>Недавних планов нет</translation>
    </message>
    <message>
        <source>About ZeroDesk</source>
        <translation>О программе ZeroDesk</translation>
    </message>
    <message>
        <source>&lt;b&gt;ZeroDesk {version}&lt;/b&gt;&lt;p&gt;Plans the memory of ZeRO data-parallel training: per-rank model states by stage, from the ZeRO paper&apos;s accounting (§3.1, §5) or PyTorch&apos;s engines.&lt;/p&gt;&lt;p&gt;Figures are computed model states; the peak of a step adds activations, temporary buffers and fragmentation (§3.2).&lt;/p&gt;</source>
        <translation>&lt;b&gt;ZeroDesk {version}&lt;/b&gt;&lt;p&gt;Планирует память обучения с параллелизмом по данным ZeRO: состояния модели на участника по стадиям — по учёту статьи ZeRO (§3.1, §5) или движков PyTorch.&lt;/p&gt;&lt;p&gt;Значения — расчётные состояния модели; к пику шага добавляются активации, временные буферы и фрагментация (§3.2).&lt;/p&gt;</translation>
    </message>
</context>
</TS>
