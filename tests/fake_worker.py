"""A scripted stand-in for the measuring launcher: no torch, exact bytes, exact timing.

Usage: python fake_worker.py SCRIPT_JSON, or with the script in $ZERODESK_FAKE_SCRIPT (then any
arguments are ignored: a tab that thinks it starts `python -m zerodesk.measure.worker.launcher ...` can be
given this as its "Python with torch"). The script is a list of steps, each one of
  {"out": "text"}           write these bytes to stdout (no newline added) and flush
  {"err": "text"}           the same on stderr
  {"sleep": seconds}
  {"ignore_term": true}     ignore SIGTERM from now on (a rank that lingers until SIGKILL)
  {"exit": code}
  {"escape": seconds, "pid_file": path}   fork a process that leaves the run's process group (setsid) and
                            sleeps, holding stdout and stderr open; its pid goes to pid_file ("spew": true:
                            it writes to stdout all along instead of sleeping)
After the last step it exits 0. Tests build the protocol lines with zerodesk.measure.protocol.encode.
"""

import json
import os
import signal
import sys
import time

for step in json.loads(os.environ.get("ZERODESK_FAKE_SCRIPT") or sys.argv[1]):
    if "out" in step:
        os.write(1, step["out"].encode())
    elif "err" in step:
        os.write(2, step["err"].encode())
    elif "sleep" in step:
        time.sleep(step["sleep"])
    elif step.get("ignore_term"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    elif "exit" in step:
        sys.exit(step["exit"])
    elif "escape" in step:
        if os.fork() == 0:
            os.setsid()
            with open(step["pid_file"], "w") as fh:
                fh.write(str(os.getpid()))
            end = time.monotonic() + step["escape"]
            while time.monotonic() < end:
                if step.get("spew"):
                    try:
                        os.write(1, b"x" * 65536)
                    except OSError:  # the reader closed the pipe
                        os._exit(3)
                else:
                    time.sleep(0.05)
            os._exit(0)
