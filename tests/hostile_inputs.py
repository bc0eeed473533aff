"""Hostile inputs for ZeroDesk and a judge of how it answered them (tests/test_fuzz_cli.py, benchmarks/fuzz.py).

The CLI runs in this process (zerodesk.cli.main), so thousands of cases take seconds. Measure and
simulate get an interpreter path that does not exist unless the case names one, so a valid
command line ends at "could not start" instead of training a model.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import signal
import stat
import time
from dataclasses import dataclass
from pathlib import Path

NO_PYTHON = "/nonexistent/zerodesk-fuzz/python"
OUTCOMES = ("ok", "refused", "failed", "traceback", "internal_error", "hang", "non_json", "negative", "multi_line",
            "raw_control")
BAD = ("traceback", "internal_error", "hang", "non_json", "negative", "multi_line", "raw_control")

NUMBERS = [
    "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "-5", "0", "-0", "1", "2", "8", "7B", "2e9", "1.5", "0.5", "1e-320",
    "-1e-320", "1e308", "1e400", "9" * 400, "9" * 5000, "1" + "0" * 30, "0x10", "1_000", " 7 ", "", " ", "65536", "65537",
    "100000", "100000000", "1e18", "1e19", "2**64", "3.000000000000001", "1,000", "٣", "１２", "\x1b[31m5", "5\n6", "5\x00",
]
TEXTS = [
    "", " ", "x", "\x1b[2J\x1b[31mred", "a\nb", "line\r", "\x00", "é", "\u202eevil", "x" * 5000, "--json", "-", "../..",
    "gpt2", "card-example", "A100-80GB", "llama-2-7b\n", "\t", "\x7f", "\x9b31m",
]
NUMERIC_FLAGS = ["--params", "--layers", "--hidden", "--heads", "--kv-heads", "--head-dim", "--ffn", "--vocab",
                 "--max-positions", "--seq", "--batch", "--dp", "--nodes", "--gpus-per-node", "--gpu-memory", "--bandwidth"]
TEXT_FLAGS = ["--preset", "--gpu", "--scheme", "--profile", "--units", "--mlp", "--bias", "--norm", "--positions"]
MEASURE_FLAGS = ["--ranks", "--timeout", "--stage", "--layers-scale", "--hidden-scale", "--seq-scale", "--vocab-scale"]
FILE_FLAGS = ["--plan", "--config"]
BASES = [
    ["--params", "7B"],
    ["--layers", "2", "--hidden", "64", "--heads", "4", "--ffn", "128", "--vocab", "100"],
    ["--preset", "gpt2"],
    [],
]

VALID_PLAN = {"schema_version": 1, "model": {"name": "fuzz", "params": 2_000_000_000},
              "cluster": {"nodes": 1, "gpus_per_node": 4}}


def hostile_files(folder: Path) -> dict[str, Path]:
    """Files an attacker or an accident could hand us, by name; special files only where the system has them."""
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, Path] = {}

    def put(name: str, data: bytes | str) -> None:
        path = folder / f"{name}.zerodesk.json"
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        files[name] = path

    def plan_with(**changes) -> str:
        data = json.loads(json.dumps(VALID_PLAN))
        for dotted, value in changes.items():
            *parents, leaf = dotted.split("__")
            node = data
            for key in parents:
                node = node.setdefault(key, {})
            node[leaf] = value
        return json.dumps(data)

    put("valid", json.dumps(VALID_PLAN))
    put("big_int", '{"schema_version": 1, "model": {"params": ' + "9" * 5000 + "}}")
    put("deep", "[" * 100_000 + "]" * 100_000)
    put("deep_objects", '{"a":' * 50_000 + "1" + "}" * 50_000)
    put("gpu_10e400", plan_with(cluster__gpu_memory_bytes=None).replace("null", "1" + "0" * 400))
    put("float_1e400", plan_with(bandwidth_gbps=None).replace("null", "1e400"))
    put("nan", plan_with(bandwidth_gbps=None).replace("null", "NaN"))
    put("params_true", plan_with(model__params=True))
    put("params_1_5", plan_with(model__params=1.5))
    put("params_text", plan_with(model__params="1.5"))
    put("schema_negative", plan_with(schema_version=-7))
    put("schema_true", plan_with(schema_version=True))
    put("nodes_float", plan_with(cluster__nodes=2.0))
    put("nodes_huge", plan_with(cluster__nodes=100_000))
    put("tied_string", plan_with(model__architecture={"layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 100,
                                                      "tied_embeddings": "false"}, model__params=None))
    put("name_escape", plan_with(model__name="\x1b[2J\x1b]0;pwned\x07evil\nsecond line"))
    put("name_200k", plan_with(model__name="n" * 200_000))
    put("utf16", json.dumps(VALID_PLAN).encode("utf-16"))
    put("binary", bytes(range(256)) * 4)
    put("truncated", json.dumps(VALID_PLAN)[:25])
    put("empty", b"")
    put("array", "[1, 2, 3]")
    put("string", '"plan"')
    put("bom", b"\xef\xbb\xbf" + json.dumps(VALID_PLAN).encode())
    put("hf_tied_string", json.dumps({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
                                      "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
                                      "tie_word_embeddings": "false"}))
    sparse = folder / "sparse_200mb.zerodesk.json"
    with open(sparse, "wb") as fh:
        fh.truncate(200 * 2**20)
    files["sparse_200mb"] = sparse
    directory = folder / "a_folder.zerodesk.json"
    directory.mkdir(exist_ok=True)
    files["folder"] = directory
    files["missing"] = folder / "missing.zerodesk.json"
    files["long_name"] = folder / ("n" * 300 + ".zerodesk.json")
    files["nul_in_name"] = Path(str(folder / "nul") + "\x00.json")
    if hasattr(os, "symlink"):
        loop = folder / "loop.zerodesk.json"
        if not os.path.lexists(loop):
            os.symlink(loop, loop)
        files["symlink_loop"] = loop
    if hasattr(os, "mkfifo"):
        fifo = folder / "fifo.zerodesk.json"
        if not fifo.exists():
            os.mkfifo(fifo)
        files["fifo"] = fifo
    for name, device in (("dev_zero", "/dev/zero"), ("dev_urandom", "/dev/urandom")):
        if os.path.exists(device) and stat.S_ISCHR(os.stat(device).st_mode):
            files[name] = Path(device)
    return files


@dataclass
class Answer:
    argv: list[str]
    status: int | None
    stdout: str
    stderr: str
    seconds: float
    outcome: str


class _Hang(BaseException):
    pass


def run_cli(argv: list[str], limit_s: float = 10.0) -> Answer:
    """Run `zerodesk ARGV` in this process and judge the answer (see judge)."""
    from zerodesk.cli import main

    out, err = io.StringIO(), io.StringIO()
    status: int | None = None
    crashed = hung = False
    alarm = hasattr(signal, "setitimer")

    def on_alarm(_signum, _frame):
        raise _Hang()

    old = signal.signal(signal.SIGALRM, on_alarm) if alarm else None
    t0 = time.perf_counter()
    try:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, limit_s)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    except _Hang:
        hung = True
    except SystemExit as exc:  # --help
        status = exc.code if isinstance(exc.code, int) else 2
    except BaseException:  # noqa: BLE001 - exactly what the judge counts
        crashed = True
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    seconds = time.perf_counter() - t0
    answer = Answer(argv, status, out.getvalue(), err.getvalue(), seconds, "")
    answer.outcome = "hang" if hung else "traceback" if crashed else judge(answer)
    return answer


def judge(a: Answer) -> str:
    """ok | refused (status 2, one line) | failed (status 1, one line) | a BAD outcome."""
    if "internal error" in a.stderr or "Traceback" in a.stderr:
        return "internal_error"
    if any(ch in a.stderr for ch in "\x1b\x00\r\x07\x9b\u202e"):
        return "raw_control"
    if a.status == 0:
        if "--json" in a.argv:
            try:
                data = json.loads(a.stdout, parse_constant=_no_constant)
            except ValueError:
                return "non_json"
            if any(x < 0 for x in _numbers(data)):
                return "negative"
        elif "\x1b" in a.stdout:
            return "raw_control"
        elif any(_NEGATIVE_FIGURE.search(line) for line in a.stdout.splitlines() if not line.startswith("Model:")):
            return "negative"
        return "ok"
    if len(a.stderr.strip().splitlines()) != 1:
        return "multi_line"
    return "refused" if a.status == 2 else "failed"


# a figure with a minus sign in a table or a sentence ("grads -0.46 GB"), not a dash inside a word or a flag
_NEGATIVE_FIGURE = re.compile(r"(?<![\w.\-−/])[-−]\d")


def _numbers(data):
    """Every number in JSON data (every number `plan --json` prints is a figure, a count or a bound: never < 0)."""
    if isinstance(data, bool):
        return
    if isinstance(data, (int, float)):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from _numbers(value)
    elif isinstance(data, list):
        for value in data:
            yield from _numbers(value)


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def with_python(command: str, argv: list[str]) -> list[str]:
    """measure/simulate never start a real run from a fuzz case."""
    if command in ("measure", "simulate") and "--python" not in argv:
        return [*argv, "--python", NO_PYTHON]
    return argv


# --- the second generator: random flag subsets at their bounds, and plan files with random tensor lists ---

def numeric_bounds() -> dict[str, tuple[str, int | float, int | float]]:
    """Each numeric plan flag -> (int or float, lowest, highest allowed), read from the plan's own fields, so a bound
    added or moved later is fuzzed at its edges without touching this file."""
    import annotated_types

    from zerodesk.cli import FIELD_FLAGS
    from zerodesk.core.architecture import Architecture
    from zerodesk.core.plan import Cluster, ModelSpec, Plan

    owners = {"": Plan, "cluster.": Cluster, "model.": ModelSpec, "model.architecture.": Architecture}
    out = {}
    for dotted, flag in FIELD_FLAGS.items():
        prefix, _, name = dotted.rpartition(".")
        info = owners[prefix + "." if prefix else ""].model_fields.get(name)
        if info is None:
            continue
        lo = next((m.ge for m in info.metadata if isinstance(m, annotated_types.Ge)), None)
        hi = next((m.le for m in info.metadata if isinstance(m, annotated_types.Le)), None)
        if lo is not None and hi is not None:
            out[flag] = ("float" if isinstance(lo, float) or isinstance(hi, float) else "int", lo, hi)
    return out


def _edge(rng: random.Random, kind: str, lo, hi) -> str:
    """A value at an edge of [lo, hi] or ordinary inside it, and one time in ten just past an edge."""
    if kind == "int":
        inside = [lo, lo + 1, hi - 1, hi, rng.randint(lo, min(hi, 4096)), min(hi, 2 ** rng.randint(0, 16))]
        return str(rng.choice([lo - 1, hi + 1] if rng.random() < 0.1 else inside))
    inside = [lo, lo * 1.001, hi, hi * 0.999, rng.uniform(lo, hi), 1.0]
    return repr(rng.choice([lo * 0.999, hi * 1.001] if rng.random() < 0.1 else inside))


_MEMORY_EDGES = ["1", "1B", "0", "0B", "1GB", "80GiB", "1000000000000000", "1000000000000001", "0.5", "1PB", "999999999999999B"]
_DIMS = [1, 1, 2, 3, 7, 8, 64, 4096, 11008, 65_536, 10**6, 2**31, 10**15, 10**15 + 1, 0, -1, -15, 10**40]
_NAMES = ["w", "model.layers.0.mlp.w", "embed_tokens.weight", "lm_head", "", "x" * 300, "\x1b[2Jevil", "a\nb",
          "layers.99999.w", "é"]


def random_tensor_list(rng: random.Random) -> list:
    """Mostly valid shapes (so the torch profile runs), with a few out of bounds, of many sizes and ranks."""
    count = rng.choice([1, 2, 5, 20, 100, 1000, 5000])
    hostile = rng.random() < 0.3
    tensors = []
    for i in range(count):
        ndims = rng.choice([0, 1, 2, 2, 2, 3]) if not (hostile and rng.random() < 0.05) else rng.choice([8, 9, 40])
        dims = [rng.choice(_DIMS[:10]) if not (hostile and rng.random() < 0.1) else rng.choice(_DIMS)
                for _ in range(ndims)]
        tensors.append([rng.choice(_NAMES) if hostile else f"layers.{i}.w", dims])
    return tensors


def random_plan(rng: random.Random, bounds: dict) -> dict:
    """A plan file's data: a tensor list, a raw count or an architecture, and a random subset of the plan's fields at
    their edges; sometimes one wrong type or one unknown key."""
    from zerodesk.cli import FIELD_FLAGS

    flag_field = {flag: field for field, flag in FIELD_FLAGS.items()}
    data: dict = {"schema_version": 1}
    kind = rng.choice(["tensors", "tensors", "params", "architecture"])
    if kind == "tensors":
        data["model"] = {"name": "fuzz", "tensors": random_tensor_list(rng)}
    elif kind == "params":
        data["model"] = {"params": rng.choice([1, 7, 2 * 10**9, 10**15, 10**15 + 1, 0, -3])}
    else:
        data["model"] = {"architecture": {"layers": rng.choice([1, 2, 32]), "hidden": 64, "heads": 4, "ffn": 128,
                                          "vocab": rng.choice([1, 100, 256000])}}
    fields = [flag for flag in sorted(bounds) if kind == "architecture" or "architecture" not in flag_field[flag]]
    for flag in rng.sample(fields, rng.randint(0, 5)):
        node, *path = flag_field[flag].split(".")
        kind_, lo, hi = bounds[flag]
        value = json.loads(_edge(rng, kind_, lo, hi))
        target = data
        for key in [node, *path][:-1]:
            target = target.setdefault(key, {})
            if not isinstance(target, dict):
                break
        else:
            target[[node, *path][-1]] = value
    if rng.random() < 0.5:
        data["profile"] = rng.choice(["paper", "torch"])
    if rng.random() < 0.05:
        data[rng.choice(["seq_len", "profile", "cluster", "bogus"])] = rng.choice([2.0, "2", True, None, [], {}])
    return data


def boundary_case(rng: random.Random, bounds: dict, folder: Path, index: int) -> list[str]:
    """`zerodesk plan` with a random subset of flags at their bounds, over a preset, a count, an architecture or a plan
    file with a random tensor list; --json half the time."""
    from zerodesk.core.catalog import gpu_presets, model_presets
    from zerodesk.core.options import OFFLOAD, OFFLOAD_TARGET, OPTIMIZER_IMPL, PROFILE, RECOMPUTE, SCHEME, UNITS

    source = rng.choice(["preset", "params", "architecture", "plan", "plan"])
    if source == "preset":
        argv = ["plan", "--preset", rng.choice(model_presets()).name]
    elif source == "params":
        argv = ["plan", "--params", rng.choice(["1", "7B", "1e15", "2e9", "1.5T", "70B", "124M"])]
    elif source == "architecture":
        argv = ["plan", "--layers", "1", "--hidden", "64", "--heads", "4", "--ffn", "16", "--vocab", "8"]
    else:
        path = folder / f"fuzz-{index % 64}.zerodesk.json"
        path.write_text(json.dumps(random_plan(rng, bounds)))
        argv = ["plan", "--plan", str(path)]
    numeric = [flag for flag in sorted(bounds) if flag not in ("--gpu-memory", "--host-memory", "--cuda-allowance")]
    for flag in rng.sample(numeric, rng.randint(0, 4)):
        argv += [flag, _edge(rng, *bounds[flag])]
    for option in rng.sample([PROFILE, SCHEME, UNITS, RECOMPUTE, OPTIMIZER_IMPL, OFFLOAD, OFFLOAD_TARGET], rng.randint(0, 3)):
        argv += [option.flag, rng.choice(option.values)]
    if rng.random() < 0.2:
        argv += ["--gpu", rng.choice(gpu_presets()).name]
    if rng.random() < 0.2:
        argv += [rng.choice(["--gpu-memory", "--host-memory", "--cuda-allowance"]), rng.choice(_MEMORY_EDGES)]
    if rng.random() < 0.5:
        argv.append("--json")
    return argv
