"""What one explanation costs: ``gguftok.disagree.explain`` (and ``explain_decode``) on one disagreement, for
each stage case on Qwen2 and a few other vocabularies, against a peer timed in the same run.

    python bench/bench_disagree.py                   # every case below, 9 runs each
    python bench/bench_disagree.py --vocab qwen2     # only Qwen2's cases
    python bench/bench_disagree.py --repeats 21 --clock cpu

The other engine is transformers' own conversion of the vocabulary (``transformers_tokenizer``), built once
before timing, as a caller holding both tokenizers would. Each case is checked first: it must disagree at the
stage it is named for (the label of tests/disagree/cases.json); a case where ``explain`` names another stage is
timed all the same and marked ``!``, with the stage it named.

The peer is what the comparison costs without the explanation: the plain encode of the same text by both
engines (gguftok's ``tok.encode`` plus the other engine's encode, under the same flags), or for a decoding case
the two decodes. So the last column reads "explain costs N x two encodes". Every time is the median of
``--repeats`` runs after one untimed warm-up (both tokenizers' caches are warm, for the explanation and the peer
alike); each run starts after a full garbage collection. The acceptance target: under 1 s per explanation on
Qwen2, including the long text.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from _common import clock
from texts import english

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # one thread, as every other figure here
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")  # (it says at import that PyTorch is missing)

from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.disagree import explain, explain_decode, transformers_tokenizer

TARGET = 1.0  # seconds per explanation on Qwen2


@dataclass
class Case:
    vocab: str
    stage: str  # the stage it must disagree at
    text: str | None = None  # an encoding case
    ids: list[int] | None = None  # a decoding case
    flags: dict[str, Any] = field(default_factory=dict)
    label: str = ""


def long_text() -> str:
    """About 10 KB of English prose with `</s>` (a special-match case on Qwen2) two thirds of the way in."""
    prose = english()[:10_000]
    cut = prose.rfind(" ", 0, 6_700)
    return prose[:cut] + " </s>" + prose[cut:]


def cases() -> list[Case]:
    ps = {"parse_special": True}
    return [
        Case("qwen2", "special-match", "Hello </s> world", flags=ps),
        Case("qwen2", "special-match", long_text(), flags=ps, label="10 KB of prose"),
        Case("qwen2", "decoding", ids=[9707, 151645], flags={"remove_special": True}),
        Case("llama-bpe", "bos-eos", "ied 4 ½ months", flags=ps),
        Case("llama-bpe", "model", "Cửa Việt", flags={"add_special": False, "parse_special": True}),
        Case("llama-bpe", "special-match", "<|endoftext|>", flags={"add_special": False, "parse_special": True}),
        Case("deepseek-coder", "pre-tokenizer", "\tThe cat", flags={"add_special": False}),
        Case("deepseek-coder", "bos-eos", "Äpfel", flags=ps),
        Case("deepseek-coder", "special-match", "<|endoftext|>", flags={"add_special": False, "parse_special": True}),
        Case("llama-spm", "normalizer", " Hello world", flags=ps),
        Case("llama-spm", "special-context", "<s>Hello", flags=ps),
        Case("nomic-bert-moe", "normalizer", " ½", flags=ps),
        Case("nomic-bert-moe", "model", "🦙.cpp", flags=ps),
        Case("nomic-bert-moe", "special-match", "<extra_id_99>", flags=ps),
    ]


def median_of(repeats: int, fn: Callable[[], object]) -> float:
    """The median of ``repeats`` timed runs of ``fn`` (in seconds), after one untimed run; each run starts after
    a full garbage collection (untimed)."""
    now = clock()
    fn()
    times = []
    for _ in range(repeats):
        gc.collect()
        t = now()
        fn()
        times.append(now() - t)
    return statistics.median(times)


def timings(case: Case, tok: Tokenizer, hf: Any, repeats: int) -> tuple[float, float, str, str | None]:
    """(explain, peer, peer name, the stage explain named when it is not the case's)."""
    f = case.flags
    if case.ids is not None:
        remove = f.get("remove_special", False)

        def run():
            return explain_decode(tok, case.ids, hf, remove_special=remove)

        def peer():
            tok.decode(case.ids, remove_special=remove)
            hf.decode(case.ids, skip_special_tokens=remove)

        name = "two decodes"
    else:
        add, parse = f.get("add_special", True), f.get("parse_special", False)

        def run():
            return explain(tok, case.text, hf, add_special=add, parse_special=parse)

        def peer():
            tok.encode(case.text, add_special=add, parse_special=parse)
            hf(case.text, add_special_tokens=add, split_special_tokens=not parse)

        name = "two encodes"
    found = run().stage
    return median_of(repeats, run), median_of(repeats, peer), name, None if found == case.stage else found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vocab", action="append", help="only this vocabulary's cases (repeatable)")
    ap.add_argument("--repeats", type=int, default=9, help="timed runs per figure (the median is shown)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall time, or this process's CPU time (steadier on a shared machine)")
    args = ap.parse_args()
    if args.clock == "cpu":
        os.environ["GGUFTOK_BENCH_CLOCK"] = "cpu"
    import tokenizers
    import transformers

    print(f"Python {platform.python_version()}, transformers {transformers.__version__}, tokenizers "
          f"{tokenizers.__version__}; median of {args.repeats} runs ({args.clock} clock)\n")
    chosen = [c for c in cases() if not args.vocab or c.vocab in args.vocab]
    engines: dict[str, tuple[Tokenizer, Any]] = {}
    rows, worst_qwen = [], 0.0
    for case in chosen:
        if case.vocab not in engines:
            tok = Tokenizer.from_gguf(vocab_dir() / f"ggml-vocab-{case.vocab}.gguf")
            engines[case.vocab] = (tok, transformers_tokenizer(tok))
        tok, hf = engines[case.vocab]
        what = case.label or repr(case.text if case.ids is None else case.ids)
        if len(what) > 24:
            what = what[:21] + "..."
        result = timings(case, tok, hf, args.repeats)
        rows.append((case, what, result))
        if case.vocab == "qwen2":
            worst_qwen = max(worst_qwen, result[0])
    print(f"{'vocabulary':15s} {'stage':16s} {'input':25s} {'explain':>10s} {'peer':>10s}  {'ratio':>7s}")
    for case, what, (t, p, name, found) in rows:
        stage = case.stage if found is None else f"{case.stage}!"
        print(f"{case.vocab:15s} {stage:16s} {what:25s} {t * 1e3:8.2f} ms {p * 1e3:7.3f} ms  "
              f"{t / p:6.0f} x {name}")
    if any(c.vocab == "qwen2" for c in chosen):
        verdict = "met" if worst_qwen < TARGET else "MISSED"
        print(f"\nslowest Qwen2 explanation: {worst_qwen * 1e3:.1f} ms (target: under {TARGET:.0f} s, {verdict})")
    for case, what, (*_, found) in rows:
        if found is not None:
            print(f"! {case.vocab} {what}: explain names {found!r}, not {case.stage!r}")


if __name__ == "__main__":
    main()
