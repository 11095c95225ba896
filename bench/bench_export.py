"""The exported tokenizer (``gguftok.export.to_tokenizers``) in Hugging Face ``tokenizers``, against llama.cpp and
gguftok, measured in one run.

    python bench/bench_export.py                      # every reference vocabulary (data/vocab, 19 files)
    python bench/bench_export.py --vocab qwen2 --vocab llama-spm
    python bench/bench_export.py --quick              # a short run: 3 vocabularies, fewer calls, 1 repeat
    python bench/bench_export.py --markdown           # also print the tables as markdown, for the README

Three workloads, each with ``add_special=False, parse_special=False`` (``add_special_tokens=False`` and
``encode_special_tokens=True`` for the export: a control token's text stays text, as llama.cpp's
``llama_tokenize(..., false, false)`` reads it):

- **one prompt**: one ~1 KB prompt (English prose) encoded ``--rounds`` times, one call at a time, as an
  application calls a tokenizer; every side warm (the same text again: the word caches are full);
- **batch**: ``--batch`` ~1 KB prompts (English prose, C++ source and multilingual text in turn: ~0.5 MB),
  ``encode_batch`` for the export and gguftok (``workers=1``: in this process) and one ``llama_tokenize`` per
  prompt for llama.cpp (it has no batch call); cold (empty word caches: each run starts from a fresh gguftok
  tokenizer and a cleared ``tokenizers`` model cache);
- **large**: the English prose of ``bench/texts.py`` (0.47 MB) in one call, cold.

Clocks: each side's process CPU time (which counts every thread of the process) and wall time, each the best
of ``--repeats`` runs. ``tokenizers`` runs ``encode_batch`` on several threads (``TOKENIZERS_PARALLELISM``, on
unless set otherwise; one thread per core), so its batch CPU time is the work of all its threads and its wall
time can be shorter; every other call timed here runs on one thread. The ratios are speed ratios on CPU time
(MB/s over llama.cpp's MB/s: above 1 is faster than llama.cpp); the batch also gets the export's wall-time
ratio. llama.cpp (llama-cpp-python 0.3.36, vocab-only) is timed in the oracle's own Python (``make oracle``)
by ``bench/_export_peers.py``, through the binding as an application calls it, before and after the Python
sides (each figure the better of the two windows, as ``bench_peers.py`` does).

Checks: the ids of every timed call of the export are compared with gguftok's, text by text, and llama.cpp's
(by digest) too; the mismatch counts are printed with the figures. A vocabulary that refuses an exact export
is exported with ``exact=False`` and marked so; one whose export raises even then is skipped, with the reason.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import importlib.metadata
import json
import os
import platform
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")  # encode_batch on every core, as tokenizers runs it

from _common import run_in_oracle
from texts import code, english, multilingual

from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.errors import ExportError
from gguftok.export import known_differences, to_tokenizers

FAMILIES = {"bpe": "BPE", "spm": "SentencePiece", "wpm": "WordPiece", "ugm": "Unigram", "rwkv": "RWKV",
            "plamo2": "PLaMo-2"}
QUICK_VOCABS = ("qwen2", "llama-spm", "bert-bge")
WORKLOADS = ("one prompt", "batch", "large")
SIDES = ("llama.cpp", "export", "gguftok")


def digest(ids) -> str:
    return hashlib.sha256(json.dumps(list(ids)).encode()).hexdigest()[:16]


def all_vocabs() -> list[str]:
    return sorted(p.name[len("ggml-vocab-"):-len(".gguf")] for p in vocab_dir().glob("ggml-vocab-*.gguf"))


# ------------------------------------------------------------------------------------------------ texts
def chunks(text: str, size: int = 1024):
    """``text`` cut into consecutive pieces of at most ``size`` UTF-8 bytes, each cut before a newline (else a
    space) in its second half, else at a character boundary."""
    data = text.encode("utf-8")
    pos = 0
    while pos < len(data):
        end = min(pos + size, len(data))
        if end < len(data):
            cut = data.rfind(b"\n", pos + size // 2, end)
            if cut < 0:
                cut = data.rfind(b" ", pos + size // 2, end)
            if cut > pos:
                end = cut
            else:
                while (data[end] & 0xC0) == 0x80:  # not inside a character
                    end -= 1
        yield data[pos:end].decode("utf-8")
        pos = end


def batch_prompts(n: int) -> list[str]:
    """``n`` ~1 KB prompts: English prose, C++ source and multilingual text in turn, each from its start."""
    sources = [chunks(english()), chunks(code()), chunks(multilingual())]
    out: list[str] = []
    while len(out) < n:
        out.append(next(sources[len(out) % 3]))
    return out


# ------------------------------------------------------------------------------------------- measuring
@dataclass
class Row:
    """One vocabulary's figures: ``times[side, workload] = (cpu, wall)`` in seconds."""

    name: str
    family: str = "?"
    export: str = ""  # "exact", "exact=False (...)", or why it was skipped
    skipped: bool = False
    build_s: float = 0.0
    times: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)
    mb: dict[str, float] = field(default_factory=dict)  # workload -> MB processed by one run
    texts: dict[str, int] = field(default_factory=dict)  # workload -> texts whose ids are checked
    wrong: dict[tuple[str, str], int] = field(default_factory=dict)  # (side, workload) -> texts not gguftok's ids
    notes: list[str] = field(default_factory=list)


def best(repeats: int, run, setup=lambda: None) -> tuple[float, float, object]:
    """The shortest CPU time and the shortest wall time of ``repeats`` runs of ``run(setup())`` (``setup`` is not
    timed; a full garbage collection before each run, also untimed), and the last run's result."""
    cpu = wall = float("inf")
    result = None
    for _ in range(repeats):
        arg = setup()
        gc.collect()
        c, w = time.process_time(), time.perf_counter()
        result = run(arg)
        cpu, wall = min(cpu, time.process_time() - c), min(wall, time.perf_counter() - w)
        del arg
    return cpu, wall, result


def export(tok: Tokenizer) -> tuple[object | None, str]:
    """The exported tokenizer, exact if it can be, and how it was made (or ``None`` and why not)."""
    try:
        return to_tokenizers(tok), "exact"
    except ExportError:
        pass  # refused: export anyway, and say so
    try:
        diffs = known_differences(tok)
        hf = to_tokenizers(tok, exact=False)
    except Exception as e:  # any failure of the export is a reason to skip, printed
        return None, f"skipped: {type(e).__name__}: {e}"
    stages = sorted({d.stage for d in diffs})
    return hf, f"exact=False ({len(diffs)} known differences: {', '.join(stages)})"


def clear_cache(hf) -> object:
    """``hf`` with its model's word cache emptied (WordPiece has none)."""
    clear = getattr(hf.model, "_clear_cache", None)
    if clear is not None:
        clear()
    return hf


def measure(name: str, repeats: int, rounds: int, prompts: list[str], large: str) -> Row:
    path = vocab_dir() / f"ggml-vocab-{name}.gguf"
    tok = Tokenizer.from_gguf(path)
    row = Row(name, FAMILIES.get(tok.vocab.type, tok.vocab.type))
    c = time.process_time()
    hf, row.export = export(tok)
    row.build_s = time.process_time() - c
    if hf is None:
        row.skipped = True
        return row
    hf.encode_special_tokens = True  # parse_special=False: control tokens' texts stay text
    prompt = prompts[0]
    size = {"one prompt": rounds * len(prompt.encode()), "batch": sum(len(p.encode()) for p in prompts),
            "large": len(large.encode())}
    row.mb = {w: n / 1e6 for w, n in size.items()}
    row.texts = {"one prompt": 1, "batch": len(prompts), "large": 1}
    with tempfile.TemporaryDirectory() as tmp:
        files = [Path(tmp) / f for f in ("prompt.txt", "batch.json", "large.txt")]
        files[0].write_bytes(prompt.encode())
        files[1].write_text(json.dumps(prompts), encoding="utf-8")
        files[2].write_bytes(large.encode())
        args = ("_export_peers.py", str(path), str(repeats), str(rounds), *map(str, files))
        ref = run_in_oracle(*args)
        ours = _measure_ours(row, path, tok, hf, repeats, rounds, prompts, large)
        again = run_in_oracle(*args)  # the machine's load drifts: llama.cpp keeps its best of both windows
    if isinstance(ref, dict) and isinstance(again, dict):
        for w in ref:
            for clock in ("cpu", "wall"):
                ref[w][clock] = min(ref[w][clock], again[w][clock])
    if not isinstance(ref, dict):
        row.notes.append(" ".join(ref.split()))
        return row
    keys = {"one prompt": "single", "batch": "batch", "large": "large"}
    for w, k in keys.items():
        row.times["llama.cpp", w] = (ref[k]["cpu"], ref[k]["wall"])
        theirs = ref[k]["digests"] if k == "batch" else [ref[k]["digest"]]
        row.wrong["llama.cpp", w] = sum(a != digest(b) for a, b in zip(theirs, ours[w], strict=True))
    return row


def _measure_ours(row: Row, path: Path, tok: Tokenizer, hf, repeats: int, rounds: int, prompts: list[str],
                  large: str) -> dict[str, list[list[int]]]:
    """gguftok's and the export's figures; the export's ids checked against gguftok's. Returns gguftok's ids
    per workload (for llama.cpp's check)."""
    prompt = prompts[0]

    def loop(encode):
        def run(_):
            for _ in range(rounds):
                ids = encode(prompt)
            return [ids]
        return run

    results: dict[tuple[str, str], list[list[int]]] = {}
    # one prompt, warm: a call before the timing fills the caches (and whatever a first call builds)
    for side, encode in (("gguftok", lambda p: tok.encode(p, add_special=False)),
                         ("export", lambda p: hf.encode(p, add_special_tokens=False).ids)):
        encode(prompt)
        c, w, results[side, "one prompt"] = best(repeats, loop(encode))
        row.times[side, "one prompt"] = (c, w)
    # batch and large, cold
    fresh = lambda: Tokenizer.from_gguf(path)  # noqa: E731
    c, w, results["gguftok", "batch"] = best(repeats, lambda t: t.encode_batch(prompts, add_special=False), fresh)
    row.times["gguftok", "batch"] = (c, w)
    c, w, results["export", "batch"] = best(
        repeats, lambda h: [e.ids for e in h.encode_batch(prompts, add_special_tokens=False)], lambda: clear_cache(hf))
    row.times["export", "batch"] = (c, w)
    c, w, ids = best(repeats, lambda t: t.encode(large, add_special=False), fresh)
    results["gguftok", "large"] = [ids]
    row.times["gguftok", "large"] = (c, w)
    c, w, ids = best(repeats, lambda h: h.encode(large, add_special_tokens=False).ids, lambda: clear_cache(hf))
    results["export", "large"] = [ids]
    row.times["export", "large"] = (c, w)
    for workload in WORKLOADS:
        ours, theirs = results["gguftok", workload], results["export", workload]
        row.wrong["export", workload] = sum(a != b for a, b in zip(ours, theirs, strict=True))
    return {w: results["gguftok", w] for w in WORKLOADS}


# ------------------------------------------------------------------------------------------- reporting
def speed_ratio(row: Row, side: str, workload: str, clock: int = 0) -> str:
    a, b = row.times.get((side, workload)), row.times.get(("llama.cpp", workload))
    return f"{b[clock] / a[clock]:.2f}x" if a and b else "-"


def cell(row: Row, side: str, workload: str, clock: int = 0) -> str:
    t = row.times.get((side, workload))
    if t is None:
        return "-"
    return f"{t[clock]:.3f} s, {row.mb[workload] / t[clock]:.2f} MB/s"


def wrong_cell(row: Row, workload: str) -> str:
    n = row.texts.get(workload, 0)
    return " / ".join(f"{row.wrong[side, workload]}/{n}" if (side, workload) in row.wrong else "-"
                      for side in ("export", "llama.cpp"))


def workload_label(workload: str, rounds: int, prompts: list[str], large: str) -> str:
    if workload == "one prompt":
        return f"one {len(prompts[0].encode()) / 1e3:.1f} KB prompt x{rounds}"
    if workload == "batch":
        return f"batch of {len(prompts)} (~1 KB, {sum(len(p.encode()) for p in prompts) / 1e6:.2f} MB)"
    return f"large text ({len(large.encode()) / 1e6:.2f} MB)"


DETAIL_HEAD = ["vocabulary", "workload", "llama.cpp, CPU", "export, CPU", "gguftok, CPU", "export / llama.cpp",
               "gguftok / llama.cpp", "export, wall", "export / llama.cpp, wall",
               "ids not gguftok's: export / llama.cpp"]


def detail_cells(row: Row, workload: str, label: str) -> list[str]:
    return [row.name, label, cell(row, "llama.cpp", workload), cell(row, "export", workload),
            cell(row, "gguftok", workload), speed_ratio(row, "export", workload),
            speed_ratio(row, "gguftok", workload), cell(row, "export", workload, 1),
            speed_ratio(row, "export", workload, 1), wrong_cell(row, workload)]


SUMMARY_HEAD = ["vocabulary", "family", "export", "one prompt: export / llama.cpp", "gguftok / llama.cpp",
                "batch: export / llama.cpp", "export / llama.cpp, wall", "gguftok / llama.cpp",
                "large: export / llama.cpp", "gguftok / llama.cpp", "ids not gguftok's (export / llama.cpp)"]


def summary_cells(row: Row) -> list[str]:
    kind = "exact" if row.export == "exact" else "skipped" if row.skipped else "exact=False"
    if row.skipped:
        return [row.name, row.family, kind] + ["-"] * (len(SUMMARY_HEAD) - 3)
    n = sum(row.texts.values())
    wrong = " / ".join(f"{sum(row.wrong.get((s, w), 0) for w in WORKLOADS)}/{n}"
                       if any((s, w) in row.wrong for w in WORKLOADS) else "-" for s in ("export", "llama.cpp"))
    return [row.name, row.family, kind,
            speed_ratio(row, "export", "one prompt"), speed_ratio(row, "gguftok", "one prompt"),
            speed_ratio(row, "export", "batch"), speed_ratio(row, "export", "batch", 1),
            speed_ratio(row, "gguftok", "batch"),
            speed_ratio(row, "export", "large"), speed_ratio(row, "gguftok", "large"), wrong]


def md_table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(head) - 2)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def text_line(cells: list[str], widths: list[int]) -> str:
    return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True)))


WIDTHS = [15, 34, 22, 22, 22, 9, 9, 22, 9, 12]
TEXT_HEAD = ["vocabulary", "workload", "llama.cpp, CPU", "export, CPU", "gguftok, CPU", "exp/llama", "ggt/llama",
             "export, wall", "wall", "wrong ids"]


def machine() -> str:
    load1, load5, _ = os.getloadavg()
    threads = os.environ.get("RAYON_NUM_THREADS") or str(len(os.sched_getaffinity(0)))
    par = os.environ.get("TOKENIZERS_PARALLELISM")
    return (f"CPython {platform.python_version()}, {os.cpu_count()} cores ({platform.machine()}), load average "
            f"{load1:.1f} (1 min) / {load5:.1f} (5 min); llama-cpp-python 0.3.36; tokenizers "
            f"{importlib.metadata.version('tokenizers')} (TOKENIZERS_PARALLELISM={par}: encode_batch on up to "
            f"{threads} threads)")


def explanation(repeats: int) -> str:
    return ("Times are each side's process CPU time (all of a process's threads) unless marked *wall*; each the "
            f"best of {repeats} runs. Ratios are speeds against llama.cpp's (above 1 is faster than llama.cpp). "
            "*export* is the `tokenizers.Tokenizer` of `gguftok.export.to_tokenizers`; `tokenizers` runs "
            "`encode_batch` on several threads, so its batch CPU time sums them and its wall time can be shorter; "
            "gguftok (`encode_batch`, `workers=1`) and llama.cpp (one `llama_tokenize` per prompt) run the batch on "
            "one thread. *one prompt* is warm (the same text again); *batch* and *large* are cold (empty word "
            "caches). No BOS/EOS, special-token texts read as text. *ids not gguftok's* counts the texts of each "
            "timed call whose ids differ from gguftok's.")


def print_row(row: Row, rounds: int, prompts: list[str], large: str) -> None:
    if row.skipped:
        print(f"{row.name:15s}  {row.export}", flush=True)
        return
    for w in WORKLOADS:
        print(text_line(detail_cells(row, w, workload_label(w, rounds, prompts, large)), WIDTHS))
    print(f"{'':15s}  export: {row.export}, built in {row.build_s:.2f} s CPU", flush=True)
    for n in row.notes:
        print(f"{'':15s}  note: {n}", flush=True)
    for (side, w), k in row.wrong.items():
        if k:
            print(f"{'':15s}  WRONG IDS: {side} on {w}: {k} of {row.texts[w]} texts differ from gguftok's", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vocab", action="append",
                        help="a reference vocabulary (ggml-vocab-NAME.gguf), repeatable or comma-separated; "
                             "default every one (with --quick: " + ", ".join(QUICK_VOCABS) + ")")
    parser.add_argument("--quick", action="store_true",
                        help="a short run: 1 repeat, 100 calls of the prompt, a batch of 96, 3 vocabularies")
    parser.add_argument("--repeats", type=int, help="runs per figure, the best kept (default 3; --quick 1)")
    parser.add_argument("--rounds", type=int, help="calls of the one prompt per run (default 1000; --quick 100)")
    parser.add_argument("--batch", type=int, help="prompts in the batch (default 512; --quick 96)")
    parser.add_argument("--markdown", action="store_true", help="also print the tables as markdown (README)")
    args = parser.parse_args()
    repeats = args.repeats or (1 if args.quick else 3)
    rounds = args.rounds or (100 if args.quick else 1000)
    n_batch = args.batch or (96 if args.quick else 512)
    names = [n for v in args.vocab for n in v.split(",")] if args.vocab else (
        list(QUICK_VOCABS) if args.quick else all_vocabs())
    missing = [n for n in names if not (vocab_dir() / f"ggml-vocab-{n}.gguf").exists()]
    if missing:
        raise SystemExit(f"no such reference vocabulary: {', '.join(missing)} (make vocab; known: "
                         f"{', '.join(all_vocabs())})")

    start = time.perf_counter()
    prompts, large = batch_prompts(n_batch), english()
    print(f"# {machine()}")
    print(f"# {explanation(repeats)}")
    print(text_line(TEXT_HEAD, WIDTHS), flush=True)
    rows = []
    for name in names:
        row = measure(name, repeats, rounds, prompts, large)
        rows.append(row)
        print_row(row, rounds, prompts, large)
    duration = time.perf_counter() - start
    bad = [f"{r.name}: {s} on {w} ({k})" for r in rows for (s, w), k in r.wrong.items() if k]
    print(f"\n# ids not gguftok's: {'; '.join(bad) if bad else 'none, on every text of every vocabulary measured'}")
    print("\n## summary (speed ratios on CPU time; above 1 is faster than llama.cpp)")
    widths = [15, 13, 11, 10, 10, 10, 10, 10, 10, 10, 14]
    print(text_line(["vocabulary", "family", "export", "prompt/exp", "prompt/ggt", "batch/exp", "b/exp wall",
                     "batch/ggt", "large/exp", "large/ggt", "wrong ids"], widths))
    for r in rows:
        print(text_line(summary_cells(r), widths))
    print(f"\n# run took {duration / 60:.1f} min (wall)")
    if args.markdown:
        command = " ".join(["python", "bench/bench_export.py", *sys.argv[1:]])
        notes = [f"- {r.name}: export {r.export}" for r in rows if r.export != "exact"]
        notes += [f"- {r.name}: {n}" for r in rows for n in r.notes]
        notes += [f"- WRONG IDS: {b}" for b in bad]
        details = [detail_cells(r, w, workload_label(w, rounds, prompts, large)) for r in rows if not r.skipped
                   for w in WORKLOADS]
        block = [f"Measured by `{command}` ({duration / 60:.0f} min) on: {machine()}. {explanation(repeats)}", "",
                 md_table(SUMMARY_HEAD, [summary_cells(r) for r in rows]), "", *notes, "",
                 "<details><summary>The times behind these ratios</summary>", "", md_table(DETAIL_HEAD, details),
                 "", "</details>"]
        print("\n<!-- bench_export markdown -->\n" + "\n".join(block))


if __name__ == "__main__":
    main()
