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
import signal
import stat
import time
from dataclasses import dataclass
from pathlib import Path

NO_PYTHON = "/nonexistent/zerodesk-fuzz/python"
OUTCOMES = ("ok", "refused", "failed", "traceback", "internal_error", "hang", "non_json", "multi_line", "raw_control")
BAD = ("traceback", "internal_error", "hang", "non_json", "multi_line", "raw_control")

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
                json.loads(a.stdout, parse_constant=_no_constant)
            except ValueError:
                return "non_json"
        elif "\x1b" in a.stdout:
            return "raw_control"
        return "ok"
    if len(a.stderr.strip().splitlines()) != 1:
        return "multi_line"
    return "refused" if a.status == 2 else "failed"


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def with_python(command: str, argv: list[str]) -> list[str]:
    """measure/simulate never start a real run from a fuzz case."""
    if command in ("measure", "simulate") and "--python" not in argv:
        return [*argv, "--python", NO_PYTHON]
    return argv
