"""Agreement with llama.cpp, per reference vocabulary, of three engines on the same inputs, in one run.

The inputs are llama.cpp's own test cases (``.inp``/``.out``, add_special and parse_special off, as
``test-tokenizer-0`` runs them) and the golden fixture's recorded llama.cpp answers: its texts under the four
``(add_special, parse_special)`` combinations, and its id sequences decoded under ``remove_special=False``
with ``unparse_special`` off and on (the two settings one ``skip_special_tokens`` flag stands for). The engines:

- **export**: ``gguftok.export.to_tokenizers(tok)`` (``exact=False`` where it refuses), as a user of
  ``tokenizers`` calls it: ``encode_special_tokens = not parse_special``, ``add_special_tokens``,
  ``decode(ids, skip_special_tokens=not unparse_special)``;
- **transformers**: transformers' own conversion of the GGUF file (what ``gguf_file=`` builds, without
  PyTorch: :func:`gguftok.disagree.transformers_tokenizer`), called with ``add_special_tokens``,
  ``split_special_tokens`` and ``skip_special_tokens``;
- **gguftok**: ``Tokenizer.encode`` / ``decode``.

    python scripts/export_agreement.py [--vocab NAME ...] [--readme]

``--readme`` rewrites the table between the ``<!-- export-agreement -->`` markers of README.md.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gguftok import Tokenizer  # noqa: E402
from gguftok.conformance.cases import read_cases  # noqa: E402
from gguftok.conformance.golden import DECODE_FLAGS, ENCODE_FLAGS, Crash, read_fixture  # noqa: E402
from gguftok.data import load_manifest, vocab_dir  # noqa: E402

MARK = "<!-- export-agreement -->"


class Tally:
    def __init__(self) -> None:
        self.ok = 0
        self.n = 0

    def add(self, agree: bool) -> None:
        self.ok += agree
        self.n += 1

    def cell(self) -> str:
        if not self.n:
            return "refused"
        pct = 100 * self.ok / self.n
        return f"{pct:.2f}%" if self.ok < self.n else "**100%**"


def _text(value):
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return value


def engines(tok):
    """name -> (encode(text, add, parse), decode(ids, unparse)) or the reason it cannot run."""
    from gguftok.disagree import transformers_tokenizer
    from gguftok.disagree.engines import hf_encode
    from gguftok.export import to_tokenizers

    out = {"gguftok": (lambda t, a, p: tok.encode(t, a, p), lambda ids, u: tok.decode(ids, unparse_special=u))}
    try:
        hf = to_tokenizers(tok, exact=False)
        out["export"] = (lambda t, a, p: hf_encode(hf, t, a, p).ids,
                         lambda ids, u: hf.decode(ids, skip_special_tokens=not u))
    except Exception as e:
        out["export"] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
    try:
        tf = transformers_tokenizer(tok)
        out["transformers"] = (
            lambda t, a, p: list(tf(t, add_special_tokens=a, split_special_tokens=not p)["input_ids"]),
            lambda ids, u: tf.decode(list(ids), skip_special_tokens=not u))
    except Exception as e:
        out["transformers"] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
    return out


def measure(name: str) -> dict[str, Tally | str]:
    path = vocab_dir() / f"ggml-vocab-{name}.gguf"
    tok = Tokenizer.from_gguf(path)
    fx = read_fixture(ROOT / "data" / "golden" / f"{name}.jsonl.xz")
    cases = []
    if Path(f"{path}.inp").exists():
        cases = read_cases(Path(f"{path}.inp").read_bytes(), Path(f"{path}.out").read_text(encoding="utf-8"))
    result: dict[str, Tally | str] = {}
    for engine, fns in engines(tok).items():
        if isinstance(fns, str):
            result[engine] = fns
            continue
        enc, dec = fns
        tally = Tally()

        def check(fn, want, *args, tally=tally):
            if isinstance(want, Crash):
                try:
                    fn(*args)
                except Exception:
                    tally.add(True)
                else:
                    tally.add(False)
                return
            try:
                got = fn(*args)
            except Exception:
                tally.add(False)
                return
            tally.add(got == want)

        for raw, want in cases:
            text = _text(raw)
            if text is not None:
                check(enc, want, text, False, False)
        for case in fx.encode:
            text = _text(case.text)
            if text is None:
                continue
            for (add, parse), want in zip(ENCODE_FLAGS, case.answers, strict=True):
                check(enc, want, text, add, parse)
        for case in fx.decode:
            for (remove, unparse), want in zip(DECODE_FLAGS, case.answers, strict=True):
                if remove:
                    continue
                want = want if isinstance(want, Crash) else want.decode("utf-8", "replace")
                check(dec, want, case.ids, unparse)
        result[engine] = tally
    return result


def table(names: list[str], log=print) -> str:
    rows = ["| vocabulary | export (`gguftok.export`) | transformers' conversion | gguftok | calls |",
            "|---|---:|---:|---:|---:|"]
    notes = []
    for name in names:
        t0 = time.perf_counter()
        r = measure(name)
        cells = []
        for engine in ("export", "transformers", "gguftok"):
            v = r[engine]
            if isinstance(v, str):
                cells.append("refused")
                notes.append(f"{name}, {engine}: {v[:160]}")
            else:
                cells.append(v.cell())
        n = next((v.n for v in r.values() if not isinstance(v, str)), 0)
        rows.append(f"| {name} | " + " | ".join(cells) + f" | {n:,} |")
        log(f"{rows[-1]}   ({time.perf_counter() - t0:.0f} s)")
    out = "\n".join(rows)
    if notes:
        out += "\n\n" + "\n".join(f"- {n}" for n in notes)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vocab", nargs="*", help="reference vocabularies (default: all 19)")
    p.add_argument("--readme", action="store_true", help="rewrite the table in README.md")
    args = p.parse_args(argv)
    names = args.vocab or sorted(n.removeprefix("ggml-vocab-").removesuffix(".gguf")
                                 for n in load_manifest() if n.endswith(".gguf"))
    out = table(names, log=lambda line: print(line, file=sys.stderr, flush=True))
    print(out)
    if args.readme:
        readme = ROOT / "README.md"
        text = readme.read_text(encoding="utf-8")
        pattern = re.compile(f"{re.escape(MARK)}\n.*?\n{re.escape(MARK)}", re.S)
        if not pattern.search(text):
            raise SystemExit(f"README.md has no {MARK} markers")
        readme.write_text(pattern.sub(lambda m: f"{MARK}\n{out}\n{MARK}", text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
