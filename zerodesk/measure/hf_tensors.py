"""Any model type's exact tensor list, read by transformers in a subprocess (the window never imports torch).

`python -m zerodesk.measure.worker.hf_model CONFIG.json` (or - for stdin) builds transformers' model
for that config on the meta device (no weights, no Hub) and prints one JSON object: {"tensors":
[[name, shape], ...]} or {"error": "one sentence"}. read_tensor_list() here is the torch-free caller
the CLI and the GUI use for model types ZeroDesk has no layout for; the list goes into the plan
(ModelSpec.tensors) with the config, so the torch profile, simulate and measure work for it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import threading
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from ..core.hf_config import SUPPORTED, architecture_from_config_dict, model_name, read_hf_config
from ..core.plan import PlanError
from .child import python_command
from .runner import kill_group, measure_env

if TYPE_CHECKING:
    from .job_server import JobServer

NEEDS_TRANSFORMERS = "needs the transformers package"
TENSOR_LIST_MODULE = "zerodesk.measure.worker.hf_model"  # what the subprocess runs
STEP_TEMPLATE_MODULE = "zerodesk.measure.worker.step_template"  # isolated like it: no code from the current folder

# The largest number a config may give a field before transformers builds its model: the plan's own bounds
# (core.architecture) with room for every transformers config class's defaults. Building costs a Python object
# per module (about 2 ms a block) and, in some models, a table per position: an absurd count would hold the caller
# for minutes and gigabytes, so it is refused before anything starts. A field is known by the words of its name
# (`num_hidden_layers`: its last word, `layers`); the first rule that matches applies, other fields are free.
SIZE_RULES: tuple[tuple[str, frozenset[str], int, str], ...] = (  # (which word, the words, limit, what it sizes)
    ("any", frozenset({"position", "positions"}), 10**8, "positions"),
    ("last", frozenset({"layer", "layers", "block", "blocks"}), 1024, "layers"),
    ("last", frozenset({"expert", "experts"}), 65_536, "experts"),
    ("last", frozenset({"head", "heads"}), 4096, "heads"),
    ("last", frozenset({"size", "dim", "dims", "rank", "width", "inner", "embd", "hidden", "intermediate", "ffn",
                        "ff", "vocab", "model", "embed", "embedding", "embeddings"}), 10**7, "sizes"),
    ("last", frozenset({"ctx", "seq", "length", "len", "window"}), 10**8, "positions"),
    ("first", frozenset({"num", "n"}), 65_536, "counts"),
)


def model_from_hf_config(path: str | Path, python: str | None = None, fit_template: bool = False,
                         server: "JobServer | None" = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(ModelSpec fields, hints) from a config.json or its folder; hints: model_type and seq_len.

    A model_type with a ZeroDesk layout becomes an architecture (no torch involved); any other is
    read by transformers in a subprocess into a tensor list stored with its config, and with fit_template its
    step template too (its activations from its own module, a minute or two: `zerodesk plan --config` does it).
    server: a JobServer whose warm worker runs those subprocesses (torch and transformers already imported); without
    one, the two subprocesses of fit_template are forked from a worker of their own (torch imported once: a config's
    import took 15.0 CPU-s as two Pythons, 10.9 so)."""
    path, cfg = read_hf_config(path)
    model_type = cfg.get("model_type")
    name = model_name(cfg)
    if model_type in SUPPORTED or not isinstance(model_type, str) or not model_type:
        arch = architecture_from_config_dict(cfg, path)  # refuses a missing model_type with a sentence
        return {"name": name, "architecture": arch.model_dump(exclude_defaults=True)}, \
            {"model_type": model_type, "seq_len": arch.max_positions}
    if server is None and fit_template:
        from .job_server import JobServer, supported

        if supported():
            with JobServer(python) as own:
                return model_from_hf_config(path, python, fit_template, own)
    try:
        tensors = read_tensor_list(cfg, str(path), python, server=server)
    except PlanError as exc:
        if NEEDS_TRANSFORMERS in str(exc):
            raise PlanError(f"{path} has model_type '{model_type}': ZeroDesk reads {', '.join(SUPPORTED)} by itself, "
                            f"and any other type {NEEDS_TRANSFORMERS} (`{python or sys.executable} -m pip install "
                            "transformers`)") from None
        raise
    template = read_step_template(cfg, python, server=server) if fit_template else None  # from its module
    hints: dict[str, Any] = {"model_type": model_type}
    seq = next((cfg[k] for k in ("max_position_embeddings", "n_positions", "seq_length")
                if isinstance(cfg.get(k), int) and not isinstance(cfg.get(k), bool) and cfg[k] > 0), None)
    if seq:
        hints["seq_len"] = seq
    model: dict[str, Any] = {"name": name, "tensors": tensors, "hf_config": cfg}
    if template is not None:
        model["step_template"] = template
    elif fit_template:
        hints["step_template"] = "not fitted: the predicted peak leaves its activations out"
    return model, hints


def read_step_template(config: dict[str, Any], python: str | None = None, timeout: float = 600.0,
                       server: "JobServer | None" = None) -> dict | None:
    """The config's step template (zerodesk.measure.worker.step_template --config), or None when it cannot be fitted."""
    try:
        stdout, _ = _run_module(STEP_TEMPLATE_MODULE, ["--config"], json.dumps(config), timeout, python, server)
    except (subprocess.TimeoutExpired, OSError):
        return None
    lines = [line for line in stdout.splitlines() if line.strip()]
    try:
        answer = json.loads(lines[-1]) if lines else {}
    except json.JSONDecodeError:
        return None
    answer.pop("fit_s", None)
    return answer if "steps" in answer else None


def _numbers(config: dict[str, Any]) -> Iterator[tuple[str, str, float]]:
    """(where, field name, value) of every number in a config, nested objects and lists included."""
    todo = deque((str(key), str(key), value) for key, value in config.items())
    while todo:  # breadth first, in the file's order: no recursion, whatever the nesting
        where, name, value = todo.popleft()
        if isinstance(value, dict):
            todo.extend((f"{where}.{key}", str(key), item) for key, item in value.items())
        elif isinstance(value, list):
            todo.extend((f"{where}[{i}]", name, item) for i, item in enumerate(value))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            yield where, name, value


def _shown(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() and abs(value) < 1e21 else f"{value:g}"


def size_rule(name: str) -> tuple[int, str] | None:
    """(limit, what it sizes) for a config field's name, or None when no rule knows it."""
    words = [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w] or [""]
    for which, names, limit, what in SIZE_RULES:
        if (which == "any" and names.intersection(words)) or (which == "last" and words[-1] in names) or (
                which == "first" and words[0] in names):
            return limit, what
    return None


def size_problem(config: dict[str, Any], source: str) -> str | None:
    """One sentence naming the first number of `config` beyond its SIZE_RULES limit, or None."""
    for where, name, value in _numbers(config):
        rule = size_rule(name)
        if rule is not None and abs(value) > rule[0]:
            return f"{source}: {where} is {_shown(value)}, above the {rule[0]:,} ZeroDesk allows for a model's {rule[1]}"
    return None


def read_tensor_list(config: dict[str, Any], source: str, python: str | None = None, timeout: float = 120.0,
                     server: "JobServer | None" = None) -> list[tuple[str, tuple[int, ...]]]:
    """The tensor list of `config` (a config.json dict read from `source`); failures are one PlanError.

    Absurd sizes are refused first, from the config's numbers. The child starts as every child of a run
    does (child.py): isolated from the current folder, and gone when its parent goes."""
    problem = size_problem(config, source)
    if problem:
        raise PlanError(problem)
    try:
        stdout, stderr = _run_module(TENSOR_LIST_MODULE, [], json.dumps(config), timeout, python, server)
    except subprocess.TimeoutExpired:
        raise PlanError(f"reading {source} with transformers took longer than {timeout:.0f} s") from None
    except OSError as exc:
        raise PlanError(f"cannot start Python to read {source} with transformers: {exc.strerror or exc}") from None
    lines = [line for line in stdout.splitlines() if line.strip()]
    try:
        answer = json.loads(lines[-1]) if lines else {}
    except json.JSONDecodeError:
        answer = {}
    if "error" in answer:
        raise PlanError(f"{source}: {answer['error']}")
    if not isinstance(answer.get("tensors"), list) or not answer["tensors"]:
        tail = stderr.strip().splitlines()[-1:] or ["no output"]
        raise PlanError(f"reading {source} with transformers failed ({tail[0]})")
    return [(str(n), tuple(int(d) for d in s)) for n, s in answer["tensors"]]


def _run_module(module: str, args: list[str], text: str, timeout: float, python: str | None,
                server: "JobServer | None") -> tuple[str, str]:
    """(stdout, stderr) of `python -m module *args -`, `text` on its stdin: as its own Python, or forked from the
    server's warm worker (a job has no stdin: the text travels in a temporary file named in its place).
    Raises subprocess.TimeoutExpired (the child killed) or OSError."""
    python = python or sys.executable
    if server is not None and server.python == python:
        with tempfile.TemporaryDirectory(prefix="zerodesk-") as folder:
            path = Path(folder) / "config.json"
            path.write_text(text, encoding="utf-8")
            job = server.start(python_command(python, module, [*args, str(path)]), measure_env())
            if job is not None:
                return _job_output(job, timeout)
    out = subprocess.run(python_command(python, module, [*args, "-"]), input=text, capture_output=True, text=True,
                         timeout=timeout, env=measure_env())
    return out.stdout, out.stderr


def _job_output(job: Any, timeout: float) -> tuple[str, str]:
    """A warm worker's job read to its end: (stdout, stderr); past timeout it is killed (TimeoutExpired)."""
    chunks: dict[str, bytes] = {}

    def read(name: str, pipe: Any) -> None:
        chunks[name] = b"".join(iter(lambda: pipe.read(65536), b""))
        pipe.close()

    readers = [threading.Thread(target=read, args=(name, pipe), daemon=True)
               for name, pipe in (("out", job.stdout), ("err", job.stderr))]
    for reader in readers:
        reader.start()
    try:
        job.wait(timeout)
    except subprocess.TimeoutExpired:
        kill_group(job)
        raise
    finally:
        for reader in readers:
            reader.join(10)
    return (chunks.get("out", b"").decode(errors="replace"), chunks.get("err", b"").decode(errors="replace"))
