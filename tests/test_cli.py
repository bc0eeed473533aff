"""`zerodesk plan` end to end through a subprocess: table, stable JSON, bad input, no Qt/torch."""

import json
import os
import subprocess
import sys

import pytest

GB = 10**9


def run(*args, check=True):
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    proc = subprocess.run([sys.executable, "-m", "zerodesk", *args], capture_output=True, text=True, env=env, timeout=60)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_card_example_json():
    out = json.loads(run("plan", "--params", "2e9", "--dp", "4", "--json").stdout)
    assert out["schema"] == 1 and out["params"] == 2 * 10**9 and out["dp"] == 4 and out["profile"] == "paper"
    assert [s["stage"] for s in out["stages"]] == [0, 1, 2, 3]
    assert [s["total_bytes"] for s in out["stages"]] == [32 * GB, 14 * GB, 11 * GB, 8 * GB]
    for s in out["stages"]:
        assert sum(s["components"].values()) == s["total_bytes"]
        assert isinstance(s["comm_bytes"], int)
    assert out["stages"][3]["comm_bytes"] == 3 * 2 * 10**9 * 2 * 3 // 4  # ring factor (Nd-1)/Nd


def test_card_example_table_says_units_and_source():
    text = run("plan", "--preset", "card-example").stdout
    assert "1 GB = 10^9 B" in text and "profile paper" in text and "computed" in text
    totals = [line.split()[-6] for line in text.splitlines() if line[:2] in ("0 ", "1 ", "2 ", "3 ")]
    assert totals == ["32.00", "14.00", "11.00", "8.00"]
    assert "not the peak" in text


def test_gib_units_and_gpu_fit():
    text = run("plan", "--params", "7B", "--dp", "8", "--units", "GiB", "--gpu-memory", "80GiB").stdout
    assert "GiB (1 GiB = 2^30 B)" in text and "fits" in text and " GB " not in text.split("Per-rank")[1].split("\n")[0]


def test_architecture_flags_and_json_stage_order():
    out = json.loads(run("plan", "--layers", "32", "--hidden", "4096", "--heads", "32", "--ffn", "11008",
                         "--vocab", "32000", "--dp", "8", "--profile", "torch", "--json").stdout)
    assert out["params"] == 6_738_415_616 and out["profile"] == "torch" and out["exact_shapes"] is True
    assert [s["stage"] for s in out["stages"]] == [0, 1, 2, 3]


def test_plan_file_round_trip(tmp_path):
    from zerodesk.core.plan import Cluster, ModelSpec, Plan, save_plan

    path = tmp_path / "p.zerodesk.json"
    save_plan(Plan(model=ModelSpec(params=2 * 10**9), cluster=Cluster(nodes=1, gpus_per_node=4)), path)
    out = json.loads(run("plan", "--plan", str(path), "--json").stdout)
    assert out["stages"][1]["total_bytes"] == 14 * GB


@pytest.mark.parametrize("args,needle", [
    (["--params", "2x"], "--params"),
    (["--params", "2e9", "--dp", "0"], "zerodesk: --dp must be at least 1, not 0"),
    (["--params", "2e9", "--nodes", "1", "--gpus-per-node", "8", "--dp", "3"], "dp (3) must divide"),
    (["--params", "2e9", "--gpus-per-node", "2000"], "zerodesk: --gpus-per-node must be at most 1,024, not 2,000"),
    (["--params", "2e9", "--units", "MB"], "--units"),
    (["--plan", "/nonexistent/x.zerodesk.json"], "cannot read plan file"),
    (["--layers", "2", "--hidden", "10", "--heads", "3", "--ffn", "8", "--vocab", "9"], "heads"),
    ([], "no model given"),
    (["--params", "1e9", "--bogus"], "unrecognized arguments"),
])
def test_bad_input_is_one_line_no_traceback(args, needle):
    proc = run("plan", *args, check=False)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert needle in proc.stderr


WHOLE_NUMBER_FLAGS = ("--dp", "--nodes", "--gpus-per-node", "--seq", "--batch", "--layers", "--hidden", "--heads",
                      "--kv-heads", "--head-dim", "--ffn", "--vocab", "--max-positions")


@pytest.mark.parametrize("flag", WHOLE_NUMBER_FLAGS)
def test_an_out_of_range_value_names_the_flag_typed(flag, capsys):
    """One sentence that names the flag and its bound, never the plan's internal field (cluster.dp, seq_len)."""
    from zerodesk.cli import main

    arch = ["--layers", "2", "--hidden", "64", "--heads", "4", "--ffn", "128", "--vocab", "100"]
    assert main(["plan", *arch, flag, str(10**17)]) == 2
    err = capsys.readouterr().err.strip()
    named = "--dp (Nd GPUs on one node)" if flag == "--dp" else flag  # --dp alone makes one node of Nd GPUs
    assert err.startswith(f"zerodesk: {named} must be at most ") and err.endswith(", not 100,000,000,000,000,000"), err


def test_bad_plan_file_contents(tmp_path):
    bad = tmp_path / "bad.zerodesk.json"
    bad.write_text('{"schema_version": 99, "model": {"params": 5}}')
    proc = run("plan", "--plan", str(bad), check=False)
    assert proc.returncode == 2 and "newer ZeroDesk" in proc.stderr and "Traceback" not in proc.stderr


def test_plan_imports_neither_qt_nor_torch():
    code = (
        "import sys, io, contextlib; from zerodesk.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()): main(['plan', '--params', '7B', '--dp', '8', '--json'])\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('torch', 'PySide6', 'pyqtgraph')]\n"
        "print(bad)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "[]", proc.stderr


def test_core_modules_import_neither_qt_nor_torch():
    code = (
        "import sys, pkgutil, importlib, zerodesk.core as c\n"
        "for m in pkgutil.iter_modules(c.__path__): importlib.import_module('zerodesk.core.' + m.name)\n"
        "print([m for m in sys.modules if m.split('.')[0] in ('torch', 'PySide6', 'pyqtgraph')])"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "[]", proc.stderr
