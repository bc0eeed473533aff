"""Whole-process time of `zerodesk plan` (target: well under 0.5 s). Prints figures; asserts nothing."""

import statistics
import subprocess
import sys
import time

CASES = {
    "card example (raw P)": ["plan", "--params", "2e9", "--dp", "4"],
    "Llama 2 7B, torch profile, Nd=64, --json": ["plan", "--preset", "llama-2-7b", "--dp", "64", "--profile", "torch", "--json"],
    "Llama 3 70B, torch profile, Nd=1024": ["plan", "--preset", "llama-3-70b", "--dp", "1024", "--profile", "torch"],
}


def main(repeats: int = 7) -> None:
    print(f"python {sys.version.split()[0]}; {repeats} runs each; whole process, wall time")
    for label, args in CASES.items():
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "zerodesk", *args], capture_output=True)
            times.append(time.perf_counter() - t0)
            if proc.returncode:
                print(f"{label}: failed: {proc.stderr.decode().strip()}")
                break
        else:
            print(f"{label:45} median {statistics.median(times) * 1e3:6.0f} ms   min {min(times) * 1e3:6.0f} ms")


if __name__ == "__main__":
    main()
