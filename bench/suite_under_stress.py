"""Run the test suite with CPU burners beside it: the suite must pass on a loaded machine (issue 13).

    python bench/suite_under_stress.py            # two busy loops, the whole suite
    python bench/suite_under_stress.py 4 -- tests/players tests/e2e

Each burner is a Python busy loop in a process of its own (what ``stress --cpu N`` does, without needing
it installed); they are stopped however pytest ends. The exit code is pytest's.
"""

from __future__ import annotations

import subprocess
import sys
import time


def main(argv: list[str]) -> int:
    burners = int(argv[0]) if argv and argv[0].isdigit() else 2
    args = argv[argv.index("--") + 1 :] if "--" in argv else []
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(burners)]
    began = time.monotonic()
    try:
        code = subprocess.call([sys.executable, "-m", "pytest", "-q", "-rfE", *args])
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
    print(f"suite with {burners} CPU burners: exit {code} in {time.monotonic() - began:.0f} s")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
