"""Write the lessons' synthetic vocabularies into data/synthetic/ (or the folder given)."""

import sys
from pathlib import Path

from gguftok.synthetic import SYNTHETIC
from gguftok.writer import write_tokenizer


def main(dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for name, make in SYNTHETIC.items():
        path = write_tokenizer(dest / name, **make())
        print(f"{path}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "data" / "synthetic")
