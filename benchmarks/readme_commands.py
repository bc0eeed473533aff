"""README.md's commands, run as a new user runs them: every line of its bash code blocks, in order, on a fresh clone.

    python benchmarks/readme_commands.py                  # list each command: run, run as changed (and why), skip
    python benchmarks/readme_commands.py --run            # clone this repository into a temporary folder, run them
    python benchmarks/readme_commands.py --run --long     # also the long ones (the full suite, the slow benchmarks)

Each command runs in bash in the folder the one before it left (README's `cd` carries over), with a timeout,
and prints its status and wall time; a summary closes. A command runs as written unless a rule below says
otherwise, with its reason: CHANGE (what cannot be reached from here stands in by what can: the clone's URL is
this repository), WINDOW (opens the window: run offscreen and left open for a few seconds), SKIP (cannot run
on this machine) and LONG (run with --long). Exit status 1 when a command that ran failed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README_URL = "https://github.com/zerodesk/zerodesk.git"

# (pattern, replacement, why): the command as run differs from README's only here.
CHANGE = [
    (re.escape(README_URL), "{mirror}", "a bare clone of this repository, zerodesk.git, stands in for GitHub"),
    (r"^sudo apt-get install", "apt-get install --simulate",
     "checks that every package exists on this Debian, without installing"),
]
# (pattern, environment, why): what a command writes outside the clone goes to a throwaway home instead.
ENV = [
    (r"install-desktop\.sh", {"HOME": "{home}/home"}, "installs into a throwaway home, not this machine's ~/.local"),
]
SKIP = [
    (r"^sudo dnf ", "Fedora's package manager; this machine is Debian"),
    (r"^torchrun ", "needs two nodes"),
]
LONG = [
    (r"pytest -q --durations", "the full test suite, about 10 minutes"),
    (r"benchmarks/(fuzz|accuracy|sim_vs_measured|bench_simulate|bench_gui|bench_estimate|bench_accumulation)\.py", "a benchmark of minutes"),
]
WINDOW_OPEN_S = 8.0  # a window command passes when it is still running (or done, status 0) after this long
TIMEOUT_S = 1800.0


@dataclass
class Command:
    line: str  # as README has it (continuation lines joined)
    section: str
    run: str | None = None  # what runs (None: skipped)
    why: str = ""  # why it differs from `line`, or why it is skipped
    window: bool = False
    env: dict[str, str] | None = None  # set for this command only


def commands(readme: Path) -> list[Command]:
    """Every command of README's bash code blocks, in order, with the heading it sits under."""
    out, section, block, lines = [], "", None, readme.read_text(encoding="utf-8").splitlines()
    pending = ""
    for raw in lines:
        if block is None:
            if raw.startswith("#"):
                section = raw.lstrip("#").strip()
            elif raw.startswith("```"):
                block = raw[3:].strip()
            continue
        if raw.startswith("```"):
            block = None
            continue
        if block not in ("bash", "sh", "shell"):
            continue
        text = pending + raw.strip()
        if text.endswith("\\"):
            pending = text[:-1] + " "
            continue
        pending = ""
        if text and not text.startswith("#"):
            out.append(Command(re.sub(r"\s+", " ", text), section))
    return out


def is_window(command: str) -> bool:
    """`zerodesk` without a command that renders or lists: it opens the window (or the lesson)."""
    words = command.split("#")[0].split()
    if not words or not re.search(r"(^|/)zerodesk(-gui)?$", words[0]):
        return False
    rest = words[1:]
    return not (rest and rest[0] in ("plan", "fit", "measure", "simulate")) and not any(
        w in ("--screenshot", "--list-presets", "--list-gpus", "--help", "-h", "--version") for w in rest)


def plan(cmds: list[Command], mirror: str, home: str, long: bool) -> list[Command]:
    for c in cmds:
        skip = next((why for pattern, why in SKIP if re.search(pattern, c.line)), None)
        slow = next((why for pattern, why in LONG if re.search(pattern, c.line)), None)
        if skip or (slow and not long):
            c.why = skip or f"long: {slow} (run with --long)"
            continue
        c.run, whys = c.line, []
        for pattern, replacement, why in CHANGE:
            if re.search(pattern, c.run):
                c.run = re.sub(pattern, replacement.format(mirror=mirror), c.run)
                whys.append(why)
        for pattern, env, why in ENV:
            if re.search(pattern, c.run):
                c.env = {k: v.format(home=home) for k, v in env.items()}
                whys.append(why)
        c.window = is_window(c.run)
        if c.window:
            whys.append(f"opens the window: run offscreen, closed after {WINDOW_OPEN_S:g} s")
        c.why = "; ".join(whys)
    return cmds


def run_one(c: Command, cwd: Path, env: dict[str, str], state: Path) -> tuple[str, float, Path, str]:
    """(status, seconds, the folder it left, the last lines of its output)."""
    script = f"cd {shlex_quote(str(cwd))} || exit 97\n{c.run}\nrc=$?\npwd > {shlex_quote(str(state))}\nexit $rc\n"
    run_env = dict(env, **(c.env or {}), **({"QT_QPA_PLATFORM": "offscreen"} if c.window else {}))
    for folder in (c.env or {}).values():
        Path(folder).mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen(["bash", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=run_env, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=WINDOW_OPEN_S if c.window else TIMEOUT_S)
        status = "ok" if proc.returncode == 0 else f"FAILED (status {proc.returncode})"
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, _ = proc.communicate()
        status = "ok (window open)" if c.window else f"FAILED (timeout {TIMEOUT_S:g} s)"
    seconds = time.perf_counter() - t0
    left = Path(state.read_text().strip()) if state.exists() and state.read_text().strip() else cwd
    state.unlink(missing_ok=True)
    tail = "\n".join(out.decode(errors="replace").rstrip().splitlines()[-6:])
    return status, seconds, left, tail


def shlex_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run them (else only list)")
    parser.add_argument("--long", action="store_true", help="also the long commands")
    parser.add_argument("--source", default=str(ROOT), help="the repository to clone (default: this one)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary clone")
    args = parser.parse_args(argv)
    home = Path(tempfile.mkdtemp(prefix="zerodesk-readme-"))
    mirror = home / "mirror" / "zerodesk.git"
    cmds = plan(commands(Path(args.source) / "README.md"), str(mirror), str(home), args.long)
    if not args.run:
        shutil.rmtree(home)
        for c in cmds:
            what = "run " if c.run == c.line else ("skip" if c.run is None else "CHANGED")
            print(f"[{what}] {c.line}" + (f"\n        -> {c.run}" if c.run not in (None, c.line) else "")
                  + (f"\n        ({c.why})" if c.why else ""))
        return 0
    subprocess.run(["git", "clone", "-q", "--bare", args.source, str(mirror)], check=True)
    cwd = home / "user"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "VIRTUAL_ENV", "PYTHONPATH")}
    env["PIP_RETRIES"] = "0"  # no network here: pip falls back to this machine's wheels at once
    failed, total = 0, 0.0
    print(f"fresh clone of {args.source} under {home}; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    for c in cmds:
        if c.run is None:
            print(f"  skip           {c.line}\n                 ({c.why})")
            continue
        status, seconds, cwd, tail = run_one(c, cwd, env, home / ".state")
        total += seconds
        failed += not status.startswith("ok")
        print(f"  {seconds:7.1f} s  {status:<9} {c.line}" + (f"\n                 ({c.why})" if c.why else ""))
        shown = tail.splitlines() if not status.startswith("ok") else tail.splitlines()[-1:]
        print("\n".join(f"                 | {line[:160]}" for line in shown))
    print(f"{len([c for c in cmds if c.run])} commands run in {total:.0f} s, {failed} failed; "
          f"{len([c for c in cmds if c.run is None])} skipped; load {os.getloadavg()[0]:.1f}")
    if not args.keep:
        shutil.rmtree(home, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
