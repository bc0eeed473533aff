"""Fit the built-in structures' step templates into resources/step_templates/ (needs torch, transformers).

Usage: python scripts/make_step_templates.py [--refit] [--only WORD] [--list] [--from-bundle FILE]
  Every structure of the model presets, of tests/hf_configs/*.json and of ZeroDesk's own decoder in its usual
  shapes is fitted once (python -m zerodesk.measure.worker.step_template, one process each) and kept by its structure key;
  structures already in the file are kept unless --refit. --only: structures whose key or source names WORD.
  --list: print the structures and whether the file has them, fit nothing.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from zerodesk.core.architecture import Architecture  # noqa: E402
from zerodesk.core.catalog import model_presets  # noqa: E402
from zerodesk.core.hf_config import architecture_from_hf_config  # noqa: E402
from zerodesk.core.step_template import TEMPLATE_VERSION, TEMPLATES_DIR, structure_key, template_file  # noqa: E402

OUT = ROOT / "resources" / TEMPLATES_DIR
# ZeroDesk's own decoder as the form builds it: both norms, both position kinds, gated or plain, MHA or GQA
CUSTOM = [
    dict(layers=2, hidden=64, heads=4, ffn=128, vocab=256),
    dict(layers=2, hidden=48, heads=4, kv_heads=2, ffn=100, vocab=1003),
    dict(layers=2, hidden=64, heads=4, ffn=256, vocab=256, mlp="plain", norm="layernorm", positions="learned",
         bias="all"),
    dict(layers=2, hidden=64, heads=4, kv_heads=2, ffn=256, vocab=256, mlp="plain", norm="layernorm",
         positions="learned", bias="all"),
    dict(layers=2, hidden=64, heads=4, ffn=128, vocab=256, norm="layernorm"),
    dict(layers=2, hidden=64, heads=4, ffn=128, vocab=256, positions="learned"),
]


def structures() -> dict[str, tuple[str, Architecture]]:
    """key -> (where it comes from, an architecture of it)."""
    found: dict[str, tuple[str, Architecture]] = {}

    def add(source: str, arch: Architecture) -> None:
        found.setdefault(structure_key(arch), (source, arch))

    for preset in model_presets():
        if preset.architecture is not None:
            add(f"preset {preset.name}", preset.architecture)
    for path in sorted((ROOT / "tests" / "hf_configs").glob("*.json")):
        if path.name != "published.json":
            add(f"config {path.stem}", architecture_from_hf_config(path)[0])
    for i, data in enumerate(CUSTOM):
        add(f"custom {i}", Architecture(**data))
    return found


def load() -> dict[str, dict]:
    out = {}
    for path in sorted(OUT.glob("*.json.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            t = json.load(fh)
        if t.get("version") == TEMPLATE_VERSION:
            out[t["key"]] = t
    return out


def save(template: dict) -> None:
    OUT.mkdir(exist_ok=True)
    with gzip.GzipFile(OUT / template_file(template["key"]), "wb", mtime=0) as fh:  # reproducible bytes
        fh.write(json.dumps(template, separators=(",", ":"), sort_keys=True).encode())


def fit(arch: Architecture) -> dict:
    out = subprocess.run([sys.executable, "-m", "zerodesk.measure.worker.step_template", "-"], cwd=ROOT,
                         input=arch.model_dump_json(), capture_output=True, text=True,
                         env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    if not lines:
        return {"error": (out.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(lines[-1])


def main() -> int:
    if "--from-bundle" in sys.argv:  # one gzipped {"templates": [...]} split into the per-structure files
        with gzip.open(sys.argv[sys.argv.index("--from-bundle") + 1], "rt", encoding="utf-8") as fh:
            for t in json.load(fh)["templates"]:
                save(t)
        return 0
    refit, listing = "--refit" in sys.argv, "--list" in sys.argv
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    have = load()
    todo = structures()
    failed = 0
    for key, (source, arch) in todo.items():
        if only and only not in key and only not in source:
            continue
        if listing:
            print(f"{'have' if key in have else 'MISSING':8} {source:40} {key}")
            continue
        if key in have and not refit:
            continue
        t0 = time.perf_counter()
        answer = fit(arch)
        if "error" in answer:
            failed += 1
            print(f"FAILED {source}: {answer['error']}", flush=True)
            continue
        answer.pop("fit_s", None)
        answer["source"] = source
        have[key] = answer
        save(answer)
        print(f"{source}: {len(answer['steps'])} steps in {time.perf_counter() - t0:.0f} s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
