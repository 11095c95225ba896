"""Golden fixtures: llama.cpp's answers, recorded once with the oracle, checked by every test run without it.

One xz-compressed JSON-lines file per vocabulary under ``data/golden/``:

- line 1, the header: which file (name, sha256), which relabelling, llama-cpp-python's version, the seed;
- line 2, the facts: special ids, ``add_bos``/``add_eos``/``add_sep``, end-of-generation ids, every token's
  attributes (run-length coded), a digest of every token's piece (``special`` off and on) and a sample of
  pieces to show when the digest differs;
- then one line per case. Encode: ``{"enc": TEXT, "ids": [four answers]}`` for ``(add_special,
  parse_special)`` = (F,F), (T,F), (F,T), (T,T). Decode: ``{"dec": IDS, "out": [four answers]}`` for
  ``(remove_special, unparse_special)`` in the same order. An answer equal to an earlier one is stored as
  that one's index; a crash of llama.cpp as ``{"crash": "SIGABRT"}``. Text that is not valid UTF-8 (inputs
  and decoded outputs) is ``{"b64": ...}``.

Generate with ``python -m gguftok.conformance.golden`` (needs ``make oracle``); see ``--help``.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import lzma
import random
import re
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..data import REPO_DATA, SDIST_MODELS, sdist_path, sha256_of, vocab_dir
from .generate import Generators, id_sequence
from .oracle import LLAMA_CPP_VERSION, Crash, Oracle

GOLDEN_DIR = REPO_DATA / "golden"
FORMAT = 1
ENCODE_FLAGS = [(False, False), (True, False), (False, True), (True, True)]  # (add_special, parse_special)
DECODE_FLAGS = [(False, False), (True, False), (False, True), (True, True)]  # (remove_special, unparse_special)
ATTR_CONTROL, ATTR_USER_DEFINED, ATTR_UNKNOWN, ATTR_BYTE = 8, 16, 1, 32

# ------------------------------------------------------------------------------------------------ format


def pack_text(value: str | bytes) -> Any:
    """A str stays a JSON string; bytes become a string if they are UTF-8, else ``{"b64": ...}``."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return {"b64": base64.b64encode(value).decode()}
    return value


def unpack_text(value: Any) -> str | bytes:
    return base64.b64decode(value["b64"]) if isinstance(value, dict) else value


def _dedupe(answers: list[Any]) -> list[Any]:
    out: list[Any] = []
    for i, a in enumerate(answers):
        same = next((j for j in range(i) if answers[j] == a), None)
        out.append(same if same is not None else a)
    return out


def _redupe(stored: list[Any]) -> list[Any]:
    out: list[Any] = []
    for s in stored:
        out.append(out[s] if isinstance(s, int) else s)
    return out


def rle(values: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for v in values:
        if runs and runs[-1][0] == v:
            runs[-1][1] += 1
        else:
            runs.append([v, 1])
    return runs


def unrle(runs: list[list[int]]) -> list[int]:
    return [v for v, n in runs for _ in range(n)]


def pieces_digest(pieces: list[bytes]) -> str:
    """The SHA-256 of the pieces, each after its length (4 bytes, little-endian)."""
    return hashlib.sha256(b"".join([len(p).to_bytes(4, "little") + p for p in pieces])).hexdigest()


@dataclass
class EncodeCase:
    text: str | bytes
    answers: list[list[int] | Crash]  # by ENCODE_FLAGS


@dataclass
class DecodeCase:
    ids: list[int]
    answers: list[bytes | Crash]  # by DECODE_FLAGS


@dataclass
class Fixture:
    header: dict[str, Any]
    facts: dict[str, Any]
    encode: list[EncodeCase] = field(default_factory=list)
    decode: list[DecodeCase] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.header["name"]

    @property
    def attrs(self) -> list[int]:
        return unrle(self.facts["attrs_rle"])


def _answer_out(a: Any) -> Any:
    if isinstance(a, Crash):
        return {"crash": a.reason}
    return pack_text(a) if isinstance(a, bytes) else a


def _answer_in(a: Any, decode: bool) -> Any:
    if isinstance(a, dict) and "crash" in a:
        return Crash(a["crash"], "")
    if decode:
        t = unpack_text(a)
        return t if isinstance(t, bytes) else t.encode()
    return a


def ours(fn, *args, **kwargs) -> Any:
    """gguftok's answer to compare with llama.cpp's: the result, or a ``Crash`` if it raised ValueError."""
    try:
        return fn(*args, **kwargs)
    except ValueError as e:
        return Crash("ValueError", str(e))


def agree(reference: Any, answer: Any) -> bool:
    """Equal answers; a crash of llama.cpp agrees only with an error from gguftok."""
    if isinstance(reference, Crash) or isinstance(answer, Crash):
        return isinstance(reference, Crash) and isinstance(answer, Crash)
    return reference == answer


def write_fixture(fx: Fixture, path: Path) -> None:
    lines = [fx.header, fx.facts]
    lines += [{"enc": pack_text(c.text), "ids": _dedupe([_answer_out(a) for a in c.answers])} for c in fx.encode]
    lines += [{"dec": c.ids, "out": _dedupe([_answer_out(a) for a in c.answers])} for c in fx.decode]
    data = "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    with lzma.open(path, "wt", encoding="utf-8", preset=9) as f:
        f.write(data)


def read_fixture(path: Path) -> Fixture:
    with lzma.open(path, "rt", encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]
    if lines[0].get("format") != FORMAT:
        raise ValueError(f"{path}: fixture format {lines[0].get('format')}, this code reads {FORMAT}")
    fx = Fixture(lines[0], lines[1])
    for line in lines[2:]:
        if "enc" in line:
            fx.encode.append(EncodeCase(unpack_text(line["enc"]), [_answer_in(a, False) for a in _redupe(line["ids"])]))
        else:
            fx.decode.append(DecodeCase(line["dec"], [_answer_in(a, True) for a in _redupe(line["out"])]))
    return fx


def fixture_paths(folder: Path = GOLDEN_DIR) -> list[Path]:
    return sorted(folder.glob("*.jsonl.xz"))


# -------------------------------------------------------------------------------------------- generation


def pre_strings_from_source() -> list[str]:
    """Every ``tokenizer.ggml.pre`` string llama.cpp knows, read from the pinned ``src/llama-vocab.cpp``."""
    with tarfile.open(sdist_path(log=lambda m: None), "r:gz") as tar:
        name = SDIST_MODELS.replace("models/", "src/llama-vocab.cpp")
        src = tar.extractfile(name).read().decode()
    start = src.index('if (tokenizer_pre.empty())')
    end = src.index('unknown pre-tokenizer type', start)
    found = re.findall(r'tokenizer_pre == "([^"]+)"', src[start:end])
    return list(dict.fromkeys(found))


def collect(oracle: Oracle, header: dict[str, Any], seed: int, n_encode: int, n_decode: int,
            n_long: int = 4, n_sample: int = 300, progress=None) -> Fixture:
    """Ask llama.cpp everything a fixture records, on inputs drawn with ``seed``."""
    facts = oracle.facts()
    if isinstance(facts, Crash):
        raise RuntimeError(f"{header['name']}: {facts}")
    n_vocab, attrs = facts["n_vocab"], facts.pop("attrs")
    plain, special = oracle.pieces(special=False), oracle.pieces(special=True)
    rng = random.Random(seed)
    sample = []
    if n_sample:
        sample = sorted(set(rng.sample(range(n_vocab), min(n_vocab, n_sample)))
                        | {i for i, a in enumerate(attrs) if a & (ATTR_CONTROL | ATTR_USER_DEFINED | ATTR_UNKNOWN)})
        sample = sample[:2000]
    facts.update({
        "attrs_rle": rle(attrs),
        "pieces_sha256": [pieces_digest(plain), pieces_digest(special)],
        "pieces_sample": {"ids": sample, "plain": [pack_text(plain[i]) for i in sample],
                          "special": [pack_text(special[i]) for i in sample]},
    })
    fx = Fixture(header, facts)
    special_ids = [i for i, a in enumerate(attrs) if a & (ATTR_CONTROL | ATTR_USER_DEFINED | ATTR_UNKNOWN)]
    specials = [special[i].decode("utf-8", "replace") for i in special_ids if special[i]]
    gen = Generators(plain, specials)

    texts: list[str | bytes] = [""]
    kinds = list(gen.kinds)
    for i in range(n_encode - 1 - n_long):
        texts.append(gen.named(kinds[i % len(kinds)], rng) if i < 8 * len(kinds) else gen.text(rng))
    texts += [gen.long_text(rng, rng.choice([2000, 5000, 9000])) for _ in range(n_long)]
    for i, text in enumerate(texts):
        fx.encode.append(EncodeCase(text, [oracle.tokenize(text, a, p) for a, p in ENCODE_FLAGS]))
        if progress and i % 200 == 0:
            progress(f"{header['name']}: encode {i}/{len(texts)}")

    byte_ids = [i for i, a in enumerate(attrs) if a & ATTR_BYTE] or [i for i in range(n_vocab) if len(plain[i]) == 1]
    for _ in range(n_decode):
        if rng.random() < 0.3:  # the ids of a real text, so that decoding sees realistic neighbours
            ids = fx.encode[rng.randrange(len(fx.encode))].answers[1]
            ids = ids if isinstance(ids, list) and ids else [0]
        else:
            ids = id_sequence(rng, n_vocab, special_ids, byte_ids)
        fx.decode.append(DecodeCase(ids, [oracle.detokenize(ids, r, u) for r, u in DECODE_FLAGS]))
    return fx


@dataclass
class Target:
    """One fixture to generate: a vocabulary file, perhaps relabelled with another pre-tokenizer."""

    name: str
    path: Path
    pre: str | None = None  # relabel with this tokenizer.ggml.pre
    n_encode: int = 1000
    n_decode: int = 200
    n_long: int = 4  # inputs of 2,000 to 9,000 characters
    n_sample: int = 300  # pieces kept verbatim (besides every special token's), to show when the digest differs


def targets(relabel_base: str = "gpt-2") -> Iterator[Target]:
    from ..synthetic import SYNTHETIC

    for p in sorted(vocab_dir().glob("ggml-vocab-*.gguf")):
        yield Target(p.name.removeprefix("ggml-vocab-").removesuffix(".gguf"), p)
    synthetic = REPO_DATA / "synthetic"
    for name in SYNTHETIC:
        if name not in ("tiny-9.gguf",):
            yield Target("synthetic-" + name.removesuffix(".gguf"), synthetic / name, n_encode=400, n_decode=100)
    for pre in pre_strings_from_source():
        # the relabelled files share their tokens: no piece samples, one long input
        yield Target(f"pre-{pre}", vocab_dir() / f"ggml-vocab-{relabel_base}.gguf", pre=pre,
                     n_encode=150, n_decode=30, n_long=1, n_sample=0)


def generate(target: Target, seed: int, out_dir: Path = GOLDEN_DIR, log=print) -> Path:
    from ..metadata import read_metadata
    from ..writer import write_metadata

    header = {"format": FORMAT, "name": target.name, "file": target.path.name, "sha256": sha256_of(target.path),
              "pre": target.pre, "llama_cpp_python": LLAMA_CPP_VERSION, "seed": seed}
    with tempfile.TemporaryDirectory() as tmp:
        path = target.path
        if target.pre is not None:
            path = write_metadata(Path(tmp) / f"{target.name}.gguf", read_metadata(path),
                                  {"tokenizer.ggml.pre": target.pre})
        t0 = time.perf_counter()
        with Oracle(path) as oracle:
            try:
                fx = collect(oracle, header, seed, target.n_encode, target.n_decode, target.n_long, target.n_sample)
            except Exception as e:  # llama.cpp refused the file itself
                fx = Fixture({**header, "load_error": str(e)}, {})
            fx.header["crashes"] = oracle.crashes
    out = out_dir / f"{target.name}.jsonl.xz"
    write_fixture(fx, out)
    log(f"{target.name:34s} {len(fx.encode):5d} encode {len(fx.decode):4d} decode "
        f"{fx.header.get('crashes', 0):3d} crashes {time.perf_counter() - t0:6.1f} s {out.stat().st_size:8,d} bytes")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gguftok.conformance.golden",
                                     description="Record llama.cpp's answers as golden fixtures (needs `make oracle`).")
    parser.add_argument("names", nargs="*", help="fixtures to (re)generate (default: all); e.g. qwen2 pre-tekken")
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--out", type=Path, default=GOLDEN_DIR)
    args = parser.parse_args(argv)
    chosen = [t for t in targets() if not args.names or t.name in args.names]
    if args.names and len(chosen) != len(args.names):
        known = {t.name for t in targets()}
        print(f"unknown fixture names: {sorted(set(args.names) - known)}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    for target in chosen:
        # each fixture's seed derives from the run's seed and its name, so one can be regenerated alone
        generate(target, seed=args.seed + int(hashlib.sha256(target.name.encode()).hexdigest()[:8], 16),
                 out_dir=args.out)
    print(f"{len(chosen)} fixtures in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
