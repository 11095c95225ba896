"""Write the snapshot of the workbook's own text that notebook 10 (and the instructor page) replay through a
word cache: the markdown and the code of lessons 01 to 06, up to their exercises, as they stood when this was
run. A fixed snapshot keeps notebook 10's figures put while the lessons' prose is edited.

    python scripts/corpus_snapshot.py      # then: python -m gguftok.data write-course-manifest
"""

from __future__ import annotations

from pathlib import Path

from gguftok.viz.cache_view import WORKBOOK_LESSONS, notebook_text, workbook_text_path

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    sources = [REPO / "notebooks" / "twins" / f"{name}.py" for name in WORKBOOK_LESSONS]
    for part in ("markdown", "code"):
        path = workbook_text_path(part)
        path.write_text(notebook_text(sources, part) + "\n", encoding="utf-8")
        print(f"wrote {path.relative_to(REPO)} ({path.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
