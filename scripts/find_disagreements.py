"""Find where llama.cpp's tokenizer (gguftok) and transformers' conversion of the same GGUF file disagree.

For every reference vocabulary in data/vocab/ that transformers converts, run llama.cpp's own ``.inp`` texts,
the ordinary strings of ``tests/disagree/ordinary.txt`` and a few texts around the vocabulary's special
tokens, under every flag combination (``add_special`` x ``parse_special``), and decode gguftok's ids of each
text with ``remove_special`` False and True. Every case where the two sides' ids (or decoded texts) differ
is a candidate; they are printed as a summary and written as JSON (default
``/tmp/gguftok-disagreements.json``) for labelling by hand.

    HF_HUB_OFFLINE=1 .venv/bin/python scripts/find_disagreements.py [--vocab NAME ...] [--out PATH] [-v]

``ordinary.txt`` holds one text a line; ``\\n``, ``\\t``, ``\\r``, ``\\\\`` and ``\\uXXXX`` are escapes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gguftok import Tokenizer  # noqa: E402
from gguftok.conformance.cases import read_cases  # noqa: E402


def _engines():
    """gguftok.disagree.engines; loaded on its own if the package's __init__ does not import (work in progress)."""
    try:
        from gguftok.disagree import engines
    except ImportError:
        import importlib.util
        import types

        sys.modules.pop("gguftok.disagree", None)
        pkg = types.ModuleType("gguftok.disagree")
        pkg.__path__ = [str(ROOT / "gguftok" / "disagree")]
        sys.modules["gguftok.disagree"] = pkg
        spec = importlib.util.spec_from_file_location("gguftok.disagree.engines", pkg.__path__[0] + "/engines.py")
        engines = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = engines
        spec.loader.exec_module(engines)
    return engines


_ENGINES = _engines()
OtherEngineError, transformers_tokenizer = _ENGINES.OtherEngineError, _ENGINES.transformers_tokenizer

VOCAB_DIR = ROOT / "data" / "vocab"
ORDINARY = ROOT / "tests" / "disagree" / "ordinary.txt"
FLAGS = [(a, p) for a in (True, False) for p in (True, False)]
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|[ntr\\])")


def unescape(line: str) -> str:
    def one(m: re.Match[str]) -> str:
        s = m.group(1)
        return chr(int(s[1:], 16)) if s[0] == "u" else {"n": "\n", "t": "\t", "r": "\r", "\\": "\\"}[s]

    return _ESCAPE.sub(one, line)


def ordinary_texts(path: Path = ORDINARY) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [unescape(line) for line in lines]


def inp_texts(gguf: Path) -> list[str]:
    inp, out = Path(f"{gguf}.inp"), Path(f"{gguf}.out")
    if not (inp.exists() and out.exists()):
        return []
    texts = []
    for raw, _ in read_cases(inp.read_bytes(), out.read_text(encoding="utf-8")):
        try:
            texts.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            continue
    return texts


def special_texts(tok: Tokenizer, hf, limit: int = 12) -> list[str]:
    """Texts around this vocabulary's special tokens: gguftok's special cache and transformers' added tokens."""
    v = tok.vocab
    seen: list[str] = []
    for tid in sorted(v.special_cache)[:limit]:
        seen.append(v.texts[tid])
    for _tid, added in sorted(hf.backend_tokenizer.get_added_tokens_decoder().items())[:limit]:
        seen.append(added.content)
    out: list[str] = []
    for s in dict.fromkeys(seen):
        if not s or len(s) > 40:
            continue
        out += [s, f"Hello{s}world", f"Hello {s} world", f"{s}Hello", f"{s} Hello", f"Hello {s}", f" {s}\n"]
    return out


def vocab_names(selected: list[str] | None) -> list[str]:
    names = sorted(p.name[len("ggml-vocab-"):-len(".gguf")] for p in VOCAB_DIR.glob("ggml-vocab-*.gguf"))
    return [n for n in names if not selected or n in selected]


def _encode_hf(hf, text: str, add_special: bool, parse_special: bool) -> list[int] | str:
    try:
        return list(hf(text, add_special_tokens=add_special, split_special_tokens=not parse_special)["input_ids"])
    except Exception as e:  # any failure of the other side is a difference
        return f"{type(e).__name__}: {e}"


def _encode_gguf(tok: Tokenizer, text: str, add_special: bool, parse_special: bool) -> list[int] | str:
    try:
        return tok.encode(text, add_special=add_special, parse_special=parse_special)
    except ValueError as e:
        return f"{type(e).__name__}: {e}"


def _decode_hf(hf, ids: list[int], remove_special: bool) -> str:
    try:
        return hf.decode(ids, skip_special_tokens=remove_special)
    except Exception as e:
        return f"<error {type(e).__name__}: {e}>"


def candidates_for(name: str, verbose: bool = False) -> list[dict]:
    gguf = VOCAB_DIR / f"ggml-vocab-{name}.gguf"
    tok = Tokenizer.from_gguf(gguf)
    try:
        hf = transformers_tokenizer(tok)
    except OtherEngineError as e:
        print(f"{name}: skipped ({e})")
        return []
    texts = list(dict.fromkeys(inp_texts(gguf) + ordinary_texts() + special_texts(tok, hf)))
    found: list[dict] = []
    decoded: set[tuple[int, ...]] = set()
    for text in texts:
        for add_special, parse_special in FLAGS:
            g = _encode_gguf(tok, text, add_special, parse_special)
            h = _encode_hf(hf, text, add_special, parse_special)
            if g != h:
                found.append({"vocab": name, "kind": "encode", "text": text, "add_special": add_special,
                              "parse_special": parse_special, "remove_special": False, "unparse_special": True,
                              "gguftok": g, "transformers": h})
            if isinstance(g, str) or tuple(g) in decoded:
                continue
            decoded.add(tuple(g))
            for remove_special in (False, True):
                gd = tok.decode(g, remove_special=remove_special, unparse_special=True)
                hd = _decode_hf(hf, g, remove_special)
                if gd != hd:
                    found.append({"vocab": name, "kind": "decode", "ids": g, "source_text": text,
                                  "add_special": add_special, "parse_special": parse_special,
                                  "remove_special": remove_special, "unparse_special": True,
                                  "gguftok": gd, "transformers": hd})
    counts = Counter(c["kind"] for c in found)
    print(f"{name}: {len(texts)} texts, {counts['encode']} encode and {counts['decode']} decode differences")
    if verbose:
        for c in found:
            what = repr(c["text"]) if c["kind"] == "encode" else c["ids"]
            print(f"  {c['kind']} {what} A={c['add_special']} P={c['parse_special']} R={c['remove_special']}: "
                  f"{c['gguftok']!r} != {c['transformers']!r}")
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocab", nargs="*", help="only these vocabularies (names as in ggml-vocab-NAME.gguf)")
    ap.add_argument("--out", default="/tmp/gguftok-disagreements.json", help="where to write the candidates")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every candidate")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    found: list[dict] = []
    for name in vocab_names(args.vocab):
        found += candidates_for(name, args.verbose)
    Path(args.out).write_text(json.dumps(found, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(found)} candidates written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
