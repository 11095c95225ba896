"""How soon does instructor mode show something? ``make present``'s voila, timed from the command to the page.

Each run starts ``voila notebooks/instructor.ipynb --no-browser --port=<free>`` with the options of the
Makefile's ``present`` recipe, as a subprocess; opens the page in headless Chromium (Debian's, as
``tests/browser`` drives it) as soon as the server listens; and times, from the start of the command, until the
first widget view is drawn and until every widget view of the page is drawn (one per widget output of the
committed notebook). Prints each run and the median of ``--runs`` (3).

    python bench/bench_present.py [--runs 3] [--flags "..."]   # --flags: other voila options, to compare
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "browser"))

from labdriver import CHROMIUM, CHROMIUM_ARGS, Voila, missing_browser, present_flags  # noqa: E402

NOTEBOOK = REPO / "notebooks" / "instructor.ipynb"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
# widget outputs that are drawn: the view's element is in the page, no "Loading widget..." placeholder left
DRAWN_JS = """() => [...document.querySelectorAll('.jp-OutputArea-output')]
    .filter(o => o.querySelector('.jupyter-widgets') && !o.textContent.includes('Loading widget')).length"""


def widget_outputs(path: Path = NOTEBOOK) -> int:
    """How many widget views the committed notebook displays (one per widget output)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    return sum(WIDGET_MIME in o.get("data", {}) for c in nb["cells"] if c["cell_type"] == "code"
               for o in c.get("outputs", []))


def one_run(browser, expected: int, flags: list[str], timeout: float = 240.0) -> tuple[float, float]:
    """(seconds to the first widget view, seconds to all of them), from the start of the voila command."""
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        server = Voila(Path(tmp), flags=flags)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            page.goto(server.url, timeout=timeout * 1000, wait_until="commit")
            page.wait_for_function(f"() => ({DRAWN_JS})() >= 1", timeout=timeout * 1000, polling=100)
            first = time.perf_counter() - t0
            page.wait_for_function(f"() => ({DRAWN_JS})() >= {expected}", timeout=timeout * 1000, polling=100)
            every = time.perf_counter() - t0
            context.close()
            return first, every
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--flags", default=None, help="voila options instead of the Makefile's (to compare)")
    args = parser.parse_args()
    why = missing_browser()
    if why:
        sys.exit(f"bench_present needs a browser: {why}")
    from playwright.sync_api import sync_playwright

    flags = present_flags() if args.flags is None else shlex.split(args.flags)
    expected = widget_outputs()
    firsts, alls = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            for k in range(args.runs):
                first, every = one_run(browser, expected, flags)
                firsts.append(first)
                alls.append(every)
                print(f"run {k + 1}: first view {first:5.1f} s, all {expected} views {every:5.1f} s", flush=True)
        finally:
            browser.close()
    shown = " ".join(["voila", NOTEBOOK.name, *flags])
    print(f"{shown}: median of {args.runs} runs on {os.cpu_count()} cores: first view "
          f"{statistics.median(firsts):.1f} s, all {expected} views {statistics.median(alls):.1f} s")


if __name__ == "__main__":
    main()
