"""Runs every benchmark in bench/ (``make bench``), one after the other."""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    failed = 0
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"== {script.stem}", flush=True)
        failed |= subprocess.call([sys.executable, str(script)], cwd=HERE.parent)
    return failed


if __name__ == "__main__":
    sys.exit(main())
