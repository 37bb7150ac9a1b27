"""Runs every benchmark in bench/ (``make bench``), one after the other, then the bot pairings
(``bench/bots.py``) with a short run: ``BENCH_BOTS_ARGS`` overrides its arguments (a full run,
``--games 200 --budget 1``, takes hours)."""

import os
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BOTS_ARGS = os.environ.get("BENCH_BOTS_ARGS", "--games 10 --budget 0.1")


def main() -> int:
    failed = 0
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"== {script.stem}", flush=True)
        failed |= subprocess.call([sys.executable, str(script)], cwd=HERE.parent)
    print("== bots", flush=True)
    command = [sys.executable, str(HERE / "bots.py"), *shlex.split(BOTS_ARGS)]
    failed |= subprocess.call(command, cwd=HERE.parent)
    return failed


if __name__ == "__main__":
    sys.exit(main())
