"""What a student waits for: every exercise check, cold and warm, and the capstone's grade, against the course's
targets (a check at most 10 s cold and 3 s warm, the grade at most 20 s).

    python bench/bench_checks.py                 # every exercise, the reference solutions as the student's package
    python bench/bench_checks.py 05 12           # the exercises of lessons 05 and 12
    python bench/bench_checks.py --no-grade

Each exercise runs in a fresh Python process started from ``notebooks/``, as a fresh kernel would be: *cold* is
its first check there (the imports, the cases, the reference's answers, the student's file read), *warm* the
same check run again at once (what a student sees on the second try after an edit: the file is read afresh,
the cases and the expected answers are kept). The student's package is the reference solution
(``solutions/mytok``), so that every case runs: a template stops at the first case ("not attempted"). The
wall-clock time is reported (what the student waits), with the machine's load average, since other work on
the machine counts too. The peer is the target itself: the last two columns are the ratios to it (at most
1.00 meets it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COLD, WARM, GRADE = 10.0, 3.0, 20.0  # seconds: the course's targets

_ONE = """
import json, sys, time
t = time.perf_counter()
from gguftok.exercises import check
first = check(sys.argv[1])
cold = time.perf_counter() - t
t = time.perf_counter()
again = check(sys.argv[1])
warm = time.perf_counter() - t
print(json.dumps({"cold": cold, "warm": warm, "status": first.status, "again": again.status, "cases": first.total}))
"""

_GRADE = """
import json, time
t = time.perf_counter()
from gguftok.exercises.capstone import grade
g = grade()
cold = time.perf_counter() - t
t = time.perf_counter()
grade()
print(json.dumps({"cold": cold, "warm": time.perf_counter() - t}))
"""


def _run(code: str, *args: str) -> dict:
    env = dict(os.environ, GGUFTOK_WORKSPACE=str(REPO / "solutions" / "mytok"), HF_HUB_OFFLINE="1")
    out = subprocess.run([sys.executable, "-c", code, *args], cwd=REPO / "notebooks", env=env, capture_output=True,
                         text=True, timeout=900)
    if out.returncode != 0:
        raise SystemExit(f"{args or 'grade'}: {out.stderr.strip().splitlines()[-1] if out.stderr else out.returncode}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lessons", nargs="*", help="two-digit lesson numbers (default: every lesson)")
    parser.add_argument("--no-grade", action="store_true", help="leave out the capstone's grade")
    args = parser.parse_args(argv)
    from gguftok.exercises import EXERCISES

    ids = [i for i in EXERCISES if not args.lessons or i[:2] in args.lessons]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; targets: {COLD:g} s cold, "
          f"{WARM:g} s warm, the grade {GRADE:g} s")
    print(f"{'exercise':24s} {'cases':>6s} {'cold s':>7s} {'warm s':>7s} {'cold/target':>12s} {'warm/target':>12s}")
    missed = 0
    for ex in ids:
        r = _run(_ONE, ex)
        ok = r["status"] == r["again"] == "passed"
        missed += r["cold"] > COLD or r["warm"] > WARM
        print(f"{ex:24s} {r['cases']:6d} {r['cold']:7.2f} {r['warm']:7.2f} {r['cold'] / COLD:12.2f} "
              f"{r['warm'] / WARM:12.2f}" + ("" if ok else f"  ({r['status']})"))
    if not args.no_grade:
        g = _run(_GRADE)
        missed += g["cold"] > GRADE
        print(f"{'the capstone grade':24s} {'':6s} {g['cold']:7.2f} {g['warm']:7.2f} {g['cold'] / GRADE:12.2f} "
              f"{g['warm'] / GRADE:12.2f}")
    print(f"over a target: {missed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
