#!/usr/bin/env bash
# ZeroDesk CUDA/NCCL smoke test: about 3-5 minutes on a 1- or 2-GPU Linux machine.
# It writes nothing into the checkout; logs go under $OUT. (From ../shared/gpu-smoke.sh, with the
# expectations of issue 16's fixes, and step 17: predicted vs measured peaks per AdamW kernel on CUDA.)
#
#   cd <zerodesk checkout> && PY=.venv/bin/python bash benchmarks/gpu_smoke.sh
#   DEV=cpu bash benchmarks/gpu_smoke.sh     # the dry run on any machine
#
# PY must be a Python with a CUDA build of torch and pydantic (torch 2.13 is the floor CI tests; the H200 run in
# docs/ had 2.11). Optional settings:
#   SMOKE_OOM=1     also provoke a real CUDA OOM (1 rank, about 1 minute, uses the whole GPU)
#   SMOKE_PYTEST=1  also run the CPU (gloo) measure tests on this CUDA build (fork path)
#   DEV=cpu         run the same script on gloo: a dry run of the script itself; CUDA-only checks are skipped
# Lines: PASS, FAIL (a regression), KNOWN (a failure predicted from reading the code), INFO.
set -uo pipefail
REPO=${REPO:-$PWD}
cd "$REPO" || exit 2
PY=${PY:-.venv/bin/python}
DEV=${DEV:-cuda}
TORCHRUN=${TORCHRUN:-$(dirname "$PY")/torchrun}
OUT=${OUT:-${TMPDIR:-/tmp}/zd-gpu-smoke}
rm -rf "$OUT" && mkdir -p "$OUT"
export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}" OMP_NUM_THREADS=1 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
unset ZERODESK_MEASURE_FAULT

FAILS=0 KNOWNS=0
pass()  { echo "PASS  $*"; }
fail()  { echo "FAIL  $*"; FAILS=$((FAILS + 1)); }
known() { echo "KNOWN $*"; KNOWNS=$((KNOWNS + 1)); }
info()  { echo "INFO  $*"; }
zd()    { timeout 300 "$PY" -m zerodesk "$@"; }
port()  { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
last()  { grep -v '^\s*$' "$1" | tail -1; }

TINY=(--layers 2 --hidden 64 --heads 4 --ffn 128 --vocab 256 --seq 16 --batch 1)
ODD=(--layers 2 --hidden 30 --heads 3 --kv-heads 1 --ffn 50 --vocab 101 --positions learned --max-positions 18
     --bias qkv --norm layernorm --mlp plain --seq 16 --batch 1)
PLAN=$("$PY" -c 'from zerodesk.core.plan import Plan; print(Plan.model_validate({"model": {"architecture": {
    "layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 256}}, "seq_len": 16, "micro_batch": 1}).model_dump_json(exclude_none=True))')
echo "$PLAN" >"$OUT/plan.json"

# check.py FILE DEVICE RANKS STAGES: the CLI's --json object -> states == predicted, CUDA figures sane.
cat >"$OUT/check.py" <<'EOF'
import json, sys
path, dev, ranks, stages = sys.argv[1], sys.argv[2], int(sys.argv[3]), [int(s) for s in sys.argv[4].split(",")]
d = json.load(open(path))
problems = []
if d["device"] != dev:
    problems.append(f"device {d['device']} != {dev}")
if d["ranks"] != ranks:
    problems.append(f"ranks {d['ranks']} != {ranks}")
got = sorted((r["stage"], r["rank"]) for r in d["results"])
want = [(s, r) for s in stages for r in range(ranks)]
if got != want:
    problems.append(f"results {got} != {want}")
for r in d["results"]:
    key = f"stage {r['stage']} rank {r['rank']}"
    if r["states"] != r["predicted_states"]:
        problems.append(f"{key}: states {r['states']} != predicted {r['predicted_states']}")
    phases = {k: v.get("total") for k, v in r.get("phase_peaks", {}).items()}
    line = f"  {key}: tracked peak {r['peak_bytes']:,}; phase totals {phases}"
    if dev == "cuda":
        ma, mr = r.get("max_allocated_bytes"), r.get("max_reserved_bytes")
        if ma is None or mr is None:
            problems.append(f"{key}: no CUDA max allocated/reserved")
        else:
            line += (f"; CUDA max allocated {ma:,} (at start {r.get('allocated_at_start_bytes', 0):,}, untracked "
                     f"{r.get('untracked_bytes', 0):,}), max reserved {mr:,}")
            if mr < ma:
                problems.append(f"{key}: max reserved below max allocated")
            if r["peak_bytes"] > ma:
                problems.append(f"{key}: tracked peak above CUDA max allocated")
    print(line)
for p in problems:
    print("  PROBLEM", p)
sys.exit(1 if problems else 0)
EOF

# stream.py FILE RANKS STAGES: protocol lines from a torchrun'd worker -> no error, one Result per rank, states exact.
cat >"$OUT/stream.py" <<'EOF'
import sys
from zerodesk.measure.protocol import Error, Result, Started, decode
path, ranks, stages = sys.argv[1], int(sys.argv[2]), [int(s) for s in sys.argv[3].split(",")]
msgs = [decode(line) for line in open(path) if line.strip()]
errors = [m for m in msgs if isinstance(m, Error)]
if errors:
    sys.exit(f"  error: {errors[0].code}: {errors[0].message}")
started = [m for m in msgs if isinstance(m, Started)]
res = sorted((m.stage, m.rank) for m in msgs if isinstance(m, Result))
want = [(s, r) for s in stages for r in range(ranks)]
bad = [(m.stage, m.rank) for m in msgs if isinstance(m, Result) and m.states != m.predicted_states]
print(f"  started: {started[0].device} {started[0].device_name} x{started[0].ranks}" if started else "  no Started line")
if res != want or bad or not started:
    sys.exit(f"  results {res} (want {want}); states != predicted for {bad}")
EOF

echo "== 0. environment"
nvidia-smi -L 2>&1 | head -16
nvidia-smi --query-gpu=index,name,memory.total,compute_mode,mig.mode.current --format=csv 2>&1 | head -17
if [ -e /dev/nvidiactl ]; then info "/dev/nvidiactl present"; else
    info "/dev/nvidiactl ABSENT (no matter: 'auto' is decided by the launcher, which asks torch)"; fi
info "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-<unset>}"
"$PY" - <<'EOF' 2>&1 | tee "$OUT/env.txt"
import torch
c = torch.cuda.is_available()
print("torch", torch.__version__, "cuda", torch.version.cuda, "available", c, "count", torch.cuda.device_count() if c else 0)
if c:
    print("nccl", torch.cuda.nccl.version(), "cudnn", torch.backends.cudnn.version(), "bf16", torch.cuda.is_bf16_supported())
    for i in range(torch.cuda.device_count()):
        print("  gpu", i, torch.cuda.get_device_name(i), "sm", torch.cuda.get_device_capability(i),
              f"{torch.cuda.get_device_properties(i).total_memory / 2**30:.1f} GiB")
EOF
NGPU=$("$PY" -c 'import torch; print(torch.cuda.device_count() if torch.cuda.is_available() else 0)')
if [ "$DEV" = cuda ] && [ "$NGPU" -lt 1 ]; then echo "no GPU visible to $PY: nothing to smoke"; exit 2; fi
if [ "$DEV" = cuda ]; then NR=$((NGPU >= 2 ? 2 : 1)); else NR=2; fi
IFS=, read -r -a VIS <<<"${CUDA_VISIBLE_DEVICES:-$(seq -s, 0 $((NGPU > 0 ? NGPU - 1 : 0)))}"
info "device $DEV, $NGPU GPU(s) visible, multi-rank checks use $NR rank(s)"

echo "== 1. every stage on $NR $DEV rank(s) (launcher: spawn on CUDA), resting states exact"
if zd measure "${TINY[@]}" --device "$DEV" --ranks "$NR" --stage 0,1,2,3 --timeout 240 --json >"$OUT/t1.json" 2>"$OUT/t1.err"; then
    if "$PY" "$OUT/check.py" "$OUT/t1.json" "$DEV" "$NR" 0,1,2,3; then pass "1 stages 0-3"; else fail "1 stages 0-3 (above)"; fi
else fail "1 exit $?: $(last "$OUT/t1.err")"; fi

echo "== 2. uneven ZeRO-1 ranks and FSDP2 padding (ODD shapes, GQA, head_dim 10)"
if zd measure "${ODD[@]}" --device "$DEV" --ranks "$NR" --stage 1,3 --timeout 240 --json >"$OUT/t2.json" 2>"$OUT/t2.err"; then
    if "$PY" "$OUT/check.py" "$OUT/t2.json" "$DEV" "$NR" 1,3; then pass "2 odd shapes"; else fail "2 odd shapes (above)"; fi
else fail "2 exit $?: $(last "$OUT/t2.err")"; fi

if [ "$DEV" = cuda ]; then
    echo "== 3. 'auto' picks CUDA"
    if zd measure "${TINY[@]}" --device auto --ranks 1 --stage 3 --timeout 240 --json >"$OUT/t3.json" 2>"$OUT/t3.err"; then
        if "$PY" "$OUT/check.py" "$OUT/t3.json" cuda 1 3; then pass "3 auto -> cuda"; else fail "3 auto (above)"; fi
    else fail "3 exit $?: $(last "$OUT/t3.err")"; fi

    echo "== 4. stage 3 alone vs stage 3 after stages 0-2: earlier stages must not leak into its CUDA peak"
    if zd measure "${TINY[@]}" --device cuda --ranks "$NR" --stage 3 --timeout 240 --json >"$OUT/t4.json" 2>"$OUT/t4.err" \
        && [ -s "$OUT/t1.json" ]; then
        "$PY" - "$OUT/t1.json" "$OUT/t4.json" <<'EOF'
import json, sys
after = {(r["stage"], r["rank"]): r for r in json.load(open(sys.argv[1]))["results"]}
alone = {(r["stage"], r["rank"]): r for r in json.load(open(sys.argv[2]))["results"]}
worst = 0
for key, r in alone.items():
    d = after[key]["max_allocated_bytes"] - r["max_allocated_bytes"]
    worst = max(worst, d)
    print(f"  stage 3 rank {key[1]}: max allocated alone {r['max_allocated_bytes']:,}, after 0-2 "
          f"{after[key]['max_allocated_bytes']:,} ({d:+,}); tracked peak alone {r['peak_bytes']:,}, "
          f"after 0-2 {after[key]['peak_bytes']:,}")
sys.exit(1 if worst > 2 * 2**20 else 0)
EOF
        if [ $? -eq 0 ]; then pass "4 no leak between stages (<= 2 MiB)"; else fail "4 stage 3's CUDA peak grows after stages 0-2"; fi
    else fail "4 exit: $(last "$OUT/t4.err")"; fi

    echo "== 5. more ranks than GPUs is refused with a clear sentence"
    if zd measure "${TINY[@]}" --device cuda --ranks $((NGPU + 1)) --stage 0 --timeout 120 >"$OUT/t5.out" 2>"$OUT/t5.err"; then
        fail "5 $((NGPU + 1)) ranks on $NGPU GPU(s) ran"
    elif grep -q "GPU" "$OUT/t5.err"; then pass "5 $(last "$OUT/t5.err")"; else fail "5 unclear: $(last "$OUT/t5.err")"; fi
fi

echo "== 6. CPU ranks on this machine (fork after 'import torch' of a CUDA build)"
if zd measure "${TINY[@]}" --device cpu --ranks 2 --stage 0,3 --timeout 240 --json >"$OUT/t6.json" 2>"$OUT/t6.err"; then
    if "$PY" "$OUT/check.py" "$OUT/t6.json" cpu 2 0,3; then pass "6 cpu/gloo"; else fail "6 cpu/gloo (above)"; fi
else fail "6 exit $?: $(last "$OUT/t6.err")"; fi

echo "== 7. live samples through the runner (the GUI's path) on $DEV"
"$PY" - "$OUT/plan.json" "$DEV" >"$OUT/t7.out" 2>"$OUT/t7.err" <<'EOF'
import sys
from zerodesk.core.plan import Plan
from zerodesk.measure.protocol import Error, Result, Sample
from zerodesk.measure.runner import run_measure
plan = Plan.model_validate_json(open(sys.argv[1]).read())
msgs = list(run_measure(plan, [0, 3], 1, sys.argv[2], timeout=240, samples=True))
errors = [m for m in msgs if isinstance(m, Error)]
if errors:
    sys.exit(f"{errors[0].code}: {errors[0].message}")
for r in (m for m in msgs if isinstance(m, Result)):
    s = [m.bytes for m in msgs if isinstance(m, Sample) and m.stage == r.stage]
    print(f"  stage {r.stage}: {len(s)} samples, max {max(s, default=0):,}; tracked peak {r.peak_bytes:,}; "
          f"CUDA max allocated {r.max_allocated_bytes}")
    if not s or max(s) <= 0:
        sys.exit(f"stage {r.stage}: no samples")
EOF
rc=$?; cat "$OUT/t7.out"
if [ $rc -eq 0 ]; then pass "7 samples"; else fail "7 $(last "$OUT/t7.err")"; fi

echo "== 8. unchanged under torchrun --standalone ($NR proc)"
if [ -x "$TORCHRUN" ]; then
    timeout 300 "$TORCHRUN" --standalone --nproc-per-node "$NR" -m zerodesk.measure.worker --plan-json "$PLAN" \
        --stage 0,2,3 --no-samples --device "$DEV" >"$OUT/t8.out" 2>"$OUT/t8.err"
    rc=$?
    if [ $rc -eq 0 ] && "$PY" "$OUT/stream.py" "$OUT/t8.out" "$NR" 0,2,3; then pass "8 torchrun standalone"
    else fail "8 torchrun exit $rc: $(last "$OUT/t8.err")"; fi
else info "8 skipped: no $TORCHRUN"; fi

if [ "$DEV" = cuda ] && [ "$NGPU" -ge 2 ] && [ -x "$TORCHRUN" ]; then
    echo "== 9. two torchrun 'nodes' on this host, one GPU each (RANK 0/1, LOCAL_RANK 0 on both)"
    P=$(port)
    for n in 0 1; do
        CUDA_VISIBLE_DEVICES=${VIS[$n]} timeout 300 "$TORCHRUN" --nnodes 2 --node-rank "$n" --nproc-per-node 1 \
            --master-addr 127.0.0.1 --master-port "$P" -m zerodesk.measure.worker --plan-json "$PLAN" \
            --stage 1,3 --no-samples --device cuda >"$OUT/t9.$n.out" 2>"$OUT/t9.$n.err" &
    done
    wait
    if "$PY" "$OUT/stream.py" "$OUT/t9.0.out" 2 1,3 && ! grep -q . "$OUT/t9.1.out"; then pass "9 two nodes"
    else fail "9 two nodes: $(last "$OUT/t9.0.err") / $(last "$OUT/t9.1.err")"; fi
fi

if [ "$DEV" = cuda ]; then
    echo "== 10. a launcher that gives each rank its own single GPU (LOCAL_RANK=1, one device visible)"
    CUDA_VISIBLE_DEVICES=${VIS[0]} RANK=0 WORLD_SIZE=1 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 \
        MASTER_PORT=$(port) timeout 180 "$PY" -m zerodesk.measure.worker --plan-json "$PLAN" --stage 0 --no-samples \
        --device cuda >"$OUT/t10.out" 2>"$OUT/t10.err"
    if "$PY" "$OUT/stream.py" "$OUT/t10.out" 1 0 >/dev/null 2>&1; then pass "10 single visible GPU used"
    else fail "10 $(last "$OUT/t10.out") $(last "$OUT/t10.err")"; fi

    echo "== 11. an NCCL failure at init is reported with its reason"
    NCCL_SOCKET_IFNAME=zd_no_such_if NCCL_IB_DISABLE=1 zd measure "${TINY[@]}" --device cuda --ranks "$NR" --stage 0 \
        --timeout 120 >"$OUT/t11.out" 2>"$OUT/t11.err"
    rc=$?
    if [ $rc -eq 0 ]; then info "11 NCCL did not fail with a bogus NCCL_SOCKET_IFNAME here; nothing to check"
    elif grep -qi "nccl" "$OUT/t11.err"; then pass "11 $(last "$OUT/t11.err")"
    elif grep -q "lost contact" "$OUT/t11.err"; then fail "11 an NCCL failure read as lost peers: $(last "$OUT/t11.err")"
    else fail "11 $(last "$OUT/t11.err")"; fi

    echo "== 12. simulated (CPU fake tensors) vs measured (CUDA) phase totals, stage 3, $NR rank(s)"
    if zd simulate "${TINY[@]}" --dp "$NR" --stage 3 --timeout 240 --json >"$OUT/t12.json" 2>"$OUT/t12.err" && [ -s "$OUT/t1.json" ]; then
        "$PY" - "$OUT/t12.json" "$OUT/t1.json" <<'EOF'
import json, sys
sim = next(r for r in json.load(open(sys.argv[1]))["results"] if r["stage"] == 3)
real = next(r for r in json.load(open(sys.argv[2]))["results"] if r["stage"] == 3 and r["rank"] == 0)
for ph in ("forward", "backward", "optimizer"):
    s, m = sim["phase_peaks"][ph], real["phase_peaks"][ph]
    diff = {k: m.get(k, 0) - s.get(k, 0) for k in sorted(set(s) | set(m)) if m.get(k, 0) != s.get(k, 0)}
    print(f"  {ph}: simulated {s['total']:,}, measured {m['total']:,}; measured - simulated by category {diff}")
EOF
        info "12 expect: optimizer phase equal up to 512 B rounding (foreach set explicitly on both), forward/backward differ (SDPA backend)"
    else fail "12 simulate: $(last "$OUT/t12.err")"; fi

  if [ "${SMOKE_MID:-1}" = 1 ]; then
    echo "== 13. a mid-size model, 1 rank, stages 0 and 3: how big the untracked and foreach shares are"
    if zd measure --layers 4 --hidden 1024 --heads 8 --ffn 4096 --vocab 32000 --seq 512 --batch 1 --device cuda --ranks 1 \
        --stage 0,3 --timeout 240 --json >"$OUT/t13.json" 2>"$OUT/t13.err"; then
        "$PY" "$OUT/check.py" "$OUT/t13.json" cuda 1 0,3 || fail "13 (above)"
        "$PY" - "$OUT/t13.json" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    s, opt = r["states"], r["phase_peaks"]["optimizer"]
    at_rest = s["params"] + s["grads"] + s["optimizer"]
    print(f"  stage {r['stage']}: optimizer-phase peak {opt['total']:,} vs states at rest {at_rest:,} "
          f"(+{opt['total'] - at_rest:,}; params {s['params']:,}: foreach AdamW adds about one fp32 copy of them)")
EOF
    else fail "13 exit: $(last "$OUT/t13.err")"; fi
  fi

    if [ "${SMOKE_OOM:-0}" = 1 ]; then
        echo "== 14. a real CUDA OOM becomes out_of_memory"
        VOCAB=$("$PY" -c 'import torch; print(int(0.1 * torch.cuda.get_device_properties(0).total_memory / 16384))')
        zd measure --layers 1 --hidden 8192 --heads 64 --ffn 8192 --vocab "$VOCAB" --no-tied --seq 16 --device cuda --ranks 1 \
            --stage 0 --timeout 240 >"$OUT/t14.out" 2>"$OUT/t14.err"
        if grep -q "ran out of memory" "$OUT/t14.err"; then pass "14 $(last "$OUT/t14.err" | cut -c1-160)"
        else fail "14 $(last "$OUT/t14.err" | cut -c1-200)"; fi
    fi
fi

if [ "${SMOKE_PYTEST:-0}" = 1 ]; then
    echo "== 15. the CPU measure tests on this CUDA build"
    if timeout 400 "$PY" -m pytest -q -x -p no:cacheprovider tests/test_measure.py tests/test_simulate.py >"$OUT/t15.out" 2>&1
    then pass "15 $(last "$OUT/t15.out")"; else fail "15 $(last "$OUT/t15.out")"; fi
fi

if [ "$DEV" = cuda ]; then
    echo "== 17. predicted (core.peak, torch profile) vs measured peak per phase on CUDA, AdamW foreach and fused"
    MID=(--layers 4 --hidden 1024 --heads 8 --kv-heads 4 --ffn 2816 --vocab 32000 --seq 1024 --batch 2)
    for impl in foreach fused; do
        [ $impl = foreach ] && st=0,1,2,3 || st=0,3
        if zd measure "${MID[@]}" --optimizer-impl $impl --device cuda --ranks 1 --stage $st --timeout 240 --json \
            >"$OUT/t17.$impl.json" 2>"$OUT/t17.$impl.err"; then
            "$PY" - "$OUT/t17.$impl.json" "$impl" <<'EOF'
import json, sys
from zerodesk.core.plan import Plan
from zerodesk.core.peak import predict
d, impl = json.load(open(sys.argv[1])), sys.argv[2]
plan = Plan.model_validate({"model": {"architecture": d["architecture"]}, "seq_len": d["seq_len"],
                            "micro_batch": d["micro_batch"], "profile": "torch", "optimizer_impl": impl,
                            "cluster": {"nodes": 1, "gpus_per_node": d["ranks"]}})
pred = {p.stage: p for p in predict(plan)}
print(f"  AdamW {d.get('optimizer_impl')}, attention {d.get('attention')}, {d['params']:,} params")
for r in d["results"]:
    p = pred[r["stage"]]
    row = []
    for ph in ("forward", "backward", "optimizer"):
        m = r["phase_peaks"][ph]["total"]
        row.append(f"{ph} {m / 2**20:8.1f} MiB vs {p.phase_totals[ph] / 2**20:8.1f} ({100 * (p.phase_totals[ph] - m) / m:+5.1f}%)")
    print(f"  stage {r['stage']}: " + "; ".join(row))
    print(f"           tracked peak {r['peak_bytes'] / 2**20:.1f} MiB, max allocated {r['max_allocated_bytes'] / 2**20:.1f} "
          f"(at start {r.get('allocated_at_start_bytes', 0) / 2**20:.1f}, untracked {r.get('untracked_bytes', 0) / 2**20:.1f}), "
          f"max reserved {r['max_reserved_bytes'] / 2**20:.1f}, "
          f"outside the allocator {r.get('device_overhead_bytes', 0) / 2**20:.1f} MiB")
EOF
            pass "17 $impl ran"
        else fail "17 $impl: $(last "$OUT/t17.$impl.err")"; fi
    done
fi

echo "== 16. nothing left behind"
sleep 2
left=$(pgrep -af "zerodesk\.measure" || true)
if [ -n "$left" ]; then fail "16 processes left: $left"; else pass "16 no zerodesk.measure process left"; fi
[ "$DEV" = cuda ] && nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader 2>&1 | sed 's/^/  gpu app: /'

echo "== done: $FAILS FAIL, $KNOWNS KNOWN; logs in $OUT"
[ "$FAILS" -eq 0 ]
