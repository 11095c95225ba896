"""gguftok against its peers, measured in one run: load, encode (cold and warm), chat prompts, peak memory.

    python bench/bench_peers.py                      # Qwen2: every peer, every text
    python bench/bench_peers.py --vocab llama-bpe
    python bench/bench_peers.py --all-bpe            # gguftok against llama.cpp on every BPE vocabulary
    python bench/bench_peers.py --all                # every vocabulary and family, cold and warm, every text
    python bench/bench_peers.py --growth             # each family on 1 MB of one character, and without spaces
    python bench/bench_peers.py --scale              # throughput from 100 KB to 50 MB, and the cache's bound
    python bench/bench_peers.py --readme             # also rewrite the table in README.md
    python bench/bench_peers.py --all --clock cpu    # each side's CPU time: steadier on a shared machine

Peers, each asked for exactly gguftok's ids (checked before timing; a peer that differs is reported as not
comparable, with where it differs):

- **llama.cpp** (llama-cpp-python 0.3.36, vocab-only, timed inside the oracle's own Python: ``make oracle``);
- **Hugging Face tokenizers**, built from the GGUF's own tokens and merges (a ``BPE`` model, the pre-type's
  regexes as ``Split`` steps, then ``ByteLevel``; ``ignore_merges`` as the vocabulary says);
- **tiktoken**, built from the same: each token's bytes ranked by the merge that makes it (bytes first),
  so that its lowest-rank-first merging is BPE's, and the pre-type's regex as ``pat_str``.

The texts are in ``bench/texts.py``. *Cold* is a fresh tokenizer (empty word cache) of a prepared vocabulary
(``Tokenizer.prepare``, once per vocabulary, into a folder of this run's own: its time is printed), *warm* the same
text again; the streams of 1 KB prompts are also timed cold before the vocabulary is prepared. Every time is the
best of ``--repeats`` runs; every ratio compares two figures from this run.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import hashlib
import importlib.metadata
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

from _common import HERE, best_cold, best_of, run_in_oracle
from texts import KINDS, chat_prompts, english, multilingual, prompts, sized, text

from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.models.bpe import DEFAULT_CACHE_SIZE, split_merge
from gguftok.vocab import CONTROL

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # one thread, as every other figure here
# prepared tables (gguftok.tables) in this run's own folder: every vocabulary is prepared here, and timed so
os.environ["GGUFTOK_TABLES"] = _TABLES = tempfile.mkdtemp(prefix="gguftok-bench-tables-")
atexit.register(shutil.rmtree, _TABLES, ignore_errors=True)
README = HERE.parent / "README.md"
BEGIN, END = "<!-- bench_peers:begin -->", "<!-- bench_peers:end -->"
BPE_VOCABS = ("aquila", "command-r", "deepseek-coder", "deepseek-llm", "falcon", "gemma-4", "gpt-2", "gpt-neox",
              "llama-bpe", "mpt", "qwen2", "qwen35", "refact", "starcoder")
# the other families' pinned vocabularies, then the synthetic ones of the two families llama.cpp's tests carry none of
OTHER_VOCABS = ("llama-spm", "phi-3", "baichuan", "bert-bge", "nomic-bert-moe")
SYNTHETIC_VOCABS = ("rwkv", "plamo2")
ALL_VOCABS = BPE_VOCABS + OTHER_VOCABS + SYNTHETIC_VOCABS


def digest(ids) -> str:
    return hashlib.sha256(json.dumps(list(ids)).encode()).hexdigest()[:16]


def vocab_path(name: str) -> Path:
    if name in SYNTHETIC_VOCABS:
        return HERE.parent / "data" / "synthetic" / f"{name}.gguf"
    return vocab_dir() / f"ggml-vocab-{name}.gguf"


# ------------------------------------------------------------------------------------------------ peers
def hf_tokenizer(tok: Tokenizer):
    """A Hugging Face tokenizer from the GGUF's tokens (and merges or scores), or why it cannot be built."""
    try:
        from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers
        from tokenizers import Tokenizer as HF
    except ImportError:
        return "not installed (make bench)"
    v = tok.vocab
    if v.type == "spm":
        return _hf_sentencepiece_bpe(v, HF, models, normalizers)
    if v.type == "wpm":
        return _hf_wordpiece(v, HF, models, normalizers, pre_tokenizers)
    if v.type == "ugm":
        return _hf_unigram(v, HF, Regex, models, normalizers, pre_tokenizers)
    if v.type != "bpe" or v.model != "gpt2" or not v.pre_config.byte_encode:
        return f"no Hugging Face model for a {v.model!r} ({v.type}) vocabulary"
    merges = [p for p in map(split_merge, v.merges) if p]
    model = models.BPE(vocab=dict(v.token_to_id), merges=merges, ignore_merges=v.ignore_merges)
    hf = HF(model)
    hf.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Split(Regex(rx), behavior="isolated") for rx in v.pre_config.regexes]
        + [pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    hf.decoder = decoders.ByteLevel()
    hf.add_special_tokens([v.texts[i] for i in v.special_cache if v.attrs[i] & CONTROL])
    return hf


def _first_ids(v) -> dict[str, int]:
    out: dict[str, int] = {}
    for i, t in enumerate(v.texts):
        out.setdefault(t, i)
    return out


def _hf_sentencepiece_bpe(v, HF, models, normalizers):
    """SentencePiece's merging as a ``BPE`` model, as ``transformers`` converts Llama's: a merge for every split
    of a normal token into two tokens, ranked by the merged token's score (highest first), byte fallback."""
    vocab = _first_ids(v)
    ranked = []
    for i, t in enumerate(v.texts):
        if v.types[i] != 1 or len(t) < 2:  # GGUF type 1: a normal token
            continue
        ranked += [(-v.scores[i], i, t[:k], t[k:]) for k in range(1, len(t)) if t[:k] in vocab and t[k:] in vocab]
    ranked.sort()
    unk = v.special["unk"]
    hf = HF(models.BPE(vocab=vocab, merges=[(a, b) for _, _, a, b in ranked], byte_fallback=True, fuse_unk=True,
                       unk_token=v.texts[unk] if unk >= 0 else None))
    steps = [normalizers.Replace(" ", "\u2581")]
    if v.add_space_prefix:
        steps.insert(0, normalizers.Prepend("\u2581"))
    hf.normalizer = normalizers.Sequence(steps)
    return hf


def _hf_wordpiece(v, HF, models, normalizers, pre_tokenizers):
    """WordPiece over ``▁``-prefixed words with no continuation prefix, as the GGUF spells BERT's tokens."""
    hf = HF(models.WordPiece(_first_ids(v), unk_token=v.texts[v.special["unk"]], continuing_subword_prefix="",
                             max_input_chars_per_word=10**9))
    hf.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                               strip_accents=v.strip_accents, lowercase=v.lowercase)
    hf.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.BertPreTokenizer(),
        pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=False)])
    return hf


def _hf_unigram(v, HF, Regex, models, normalizers, pre_tokenizers):
    """A ``Unigram`` model with the GGUF's precompiled character map; the tokens llama.cpp never matches
    (control, unknown, byte) scored out of reach."""
    from gguftok.vocab import NORMAL, UNUSED, USER_DEFINED

    pieces = [(t, s if a & (NORMAL | USER_DEFINED | UNUSED) else -1e30)
              for t, s, a in zip(v.texts, v.scores, v.gguf_attrs, strict=True)]
    hf = HF(models.Unigram(pieces, unk_id=v.special["unk"], byte_fallback=False))
    steps = [normalizers.Precompiled(v.charsmap())] if v.charsmap() else []
    if v.remove_extra_whitespaces:
        steps += [normalizers.Strip(left=True, right=True), normalizers.Replace(Regex(" {2,}"), " ")]
    hf.normalizer = normalizers.Sequence(steps)
    hf.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581",
                                                prepend_scheme="always" if v.add_space_prefix else "never")
    return hf


def tiktoken_encoding(tok: Tokenizer):
    """A tiktoken Encoding ranked by the GGUF's merges, plus the map from its ranks to gguftok's ids."""
    try:
        import tiktoken
    except ImportError:
        return "not installed (make bench)", None
    v = tok.vocab
    if v.type != "bpe" or v.model != "gpt2" or not v.pre_config.byte_encode or len(v.pre_config.regexes) != 1:
        return "needs one byte-level regex", None
    from gguftok.bytemap import CHAR_TO_BYTE, bytes_to_text

    def raw(text: str) -> bytes | None:
        try:
            return bytes(CHAR_TO_BYTE[c] for c in text)
        except KeyError:
            return None

    ranks: dict[bytes, int] = {}
    for b in range(256):
        ranks[bytes([b])] = len(ranks)
    for m in v.merges:
        pair = split_merge(m)
        merged = raw(pair[0] + pair[1]) if pair else None
        if merged is not None and merged not in ranks:
            ranks[merged] = len(ranks)
    rank_to_id = {r: v.token_to_id.get(bytes_to_text(b)) for b, r in ranks.items()}
    specials = {v.texts[i]: len(ranks) + k for k, i in enumerate(i for i in v.special_cache if v.attrs[i] & CONTROL)}
    for t, r in specials.items():
        rank_to_id[r] = v.token_to_id[t]
    enc = tiktoken.Encoding(f"gguf-{v.pre}", pat_str=v.pre_config.regexes[0], mergeable_ranks=ranks,
                            special_tokens=specials)
    return enc, rank_to_id


def first_difference(a: list[int], b: list[int]) -> str:
    k = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"ids differ from token {k:,} of {len(a):,}"


# ------------------------------------------------------------------------------------------- measuring
@dataclass
class Row:
    """One vocabulary's figures."""

    name: str
    load: dict[str, float] = field(default_factory=dict)
    rss_mb: dict[str, float] = field(default_factory=dict)
    mbps: dict[tuple[str, str], float] = field(default_factory=dict)  # (peer, text) -> MB/s
    chat_us: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    digests: dict[str, str] = field(default_factory=dict)  # of gguftok's ids, per text and for the prompts


# The peak resident memory of this process (VmHWM; ru_maxrss would start at the parent's peak after exec).
PEAK_KB = ("def peak_kb():\n"
           "    for line in open('/proc/self/status'):\n"
           "        if line.startswith('VmHWM:'):\n"
           "            return int(line.split()[1])\n"
           "    import resource\n"
           "    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n")


def gguftok_rss_mb(path: Path) -> float:
    """Growth of the peak resident memory over ``Tokenizer.from_gguf`` in a fresh process."""
    code = PEAK_KB + ("import sys\nfrom gguftok import Tokenizer\nbefore = peak_kb()\n"
                      "tok = Tokenizer.from_gguf(sys.argv[1])\nprint(peak_kb() - before)\n")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 1024


def size_key(kind: str, size: int | str) -> str:
    """The key of ``kind`` at ``size`` (bytes, ``"prompts"`` for its stream of 1 KB prompts, ``"full"``)."""
    return kind if size == "full" else f"{kind}@{size}"


def measure(name: str, kinds: tuple[str, ...], repeats: int, peers: bool | str, chat: bool = True,
            sizes: tuple[int | str, ...] = ()) -> Row:
    """One vocabulary's figures; ``peers``: True (every peer), ``"hf"`` (Hugging Face tokenizers only) or False;
    ``chat``: also the chat prompts and the memory of the load; ``sizes``: also each text's start of these
    many bytes, and with ``"prompts"`` its stream of distinct 1 KB prompts (against llama.cpp only)."""
    path = vocab_path(name)
    row = Row(name)
    texts = {k: text(k) for k in kinds}
    texts |= {size_key(k, n): sized(k, n) for n in sizes if isinstance(n, int) for k in kinds}
    streams = {size_key(k, "prompts"): list(prompts(k)) for k in kinds} if "prompts" in sizes else {}
    chat_texts = chat_prompts()
    tok = Tokenizer.from_gguf(path)
    if not tok.prepared:  # once per vocabulary, as `gguftok prepare` does: every fresh tokenizer below reads it
        t0 = time.process_time()
        if tok.prepare() is not None:
            what = (f"{len(tok.model.junctions):,} pairs of characters a merge can join" if tok.vocab.type == "spm"
                    else f"{len(tok.model.apart):,} tokens merge apart")
            row.notes.append(f"prepared once (Tokenizer.prepare) in {time.process_time() - t0:.2f} s of CPU: "
                             f"{what}; every cold run reads the table")
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for k, t in texts.items():
            files[k] = Path(tmp) / f"{k}.txt"
            files[k].write_bytes(t.encode("utf-8", "surrogatepass"))
        for k, ps in streams.items():
            files[k] = Path(tmp) / f"{k}.stream.json"
            files[k].write_text(json.dumps(ps))
        (Path(tmp) / "prompts.json").write_text(json.dumps(chat_texts))
        args = ("llama_peer.py", str(path), str(repeats), str(Path(tmp) / "prompts.json"), *map(str, files.values()))
        ref = run_in_oracle(*args)
        _measure_ours(row, path, tok, texts, chat_texts, repeats, peers, chat)
        _measure_streams(row, path, tok, streams, repeats)
        # llama.cpp again, after ours: the machine's load drifts, so each side keeps its best of both windows
        again = run_in_oracle(*args)
        if isinstance(ref, dict) and isinstance(again, dict):
            for key in ("load", "rss_kb"):
                ref[key] = min(ref[key], again[key])
            for f, r in again["files"].items():
                ref["files"][f]["seconds"] = min(ref["files"][f]["seconds"], r["seconds"])
            ref["chat"]["per_call"] = min(ref["chat"]["per_call"], again["chat"]["per_call"])
    _llama_figures(row, ref, texts | {k: "".join(ps) for k, ps in streams.items()}, files, chat)
    return row


def _measure_streams(row: Row, path: Path, tok: Tokenizer, streams: dict[str, list[str]], repeats: int) -> None:
    """Each stream of prompts encoded one after another, one call each: by a fresh tokenizer (cold: the first
    pass), then by one that has seen them (warm: the same prompts again)."""
    for k, ps in streams.items():
        size = sum(len(p.encode("utf-8", "surrogatepass")) for p in ps) / 1e6

        def run(t: Tokenizer, ps=ps) -> None:
            for p in ps:
                t.encode(p, add_special=False)

        row.mbps["gguftok cold", k] = size / best_cold(repeats, lambda: Tokenizer.from_gguf(path), run)
        if tok.prepared:  # the same, before `gguftok prepare`
            row.mbps["gguftok cold, unprepared", k] = size / best_cold(
                repeats, lambda: Tokenizer.from_gguf(path, tables=False), run)
        row.digests[k] = digest([i for p in ps for i in tok.encode(p, add_special=False)])
        row.mbps["gguftok warm", k] = size / best_of(repeats, lambda ps=ps: run(tok))


def _measure_ours(row: Row, path: Path, tok: Tokenizer, texts: dict[str, str], prompts: list[str], repeats: int,
                  peers: bool | str, chat: bool = True) -> None:
    """gguftok's figures, and the Python peers' (built from this vocabulary, checked to give its ids)."""
    # load and memory
    row.load["gguftok"] = best_of(repeats, lambda: Tokenizer.from_gguf(path))
    if chat:
        row.rss_mb["gguftok"] = gguftok_rss_mb(path)
    hf = tk = None
    if peers:
        t0 = time.perf_counter()
        hf = hf_tokenizer(tok)
        if isinstance(hf, str):
            row.notes.append(f"HF tokenizers: {hf}")
            hf = None
        else:
            row.load["HF tokenizers (built from lists)"] = time.perf_counter() - t0
            hf_json = hf.to_str()
        t0 = time.perf_counter()
        tk, rank_to_id = tiktoken_encoding(tok) if peers is True else (None, None)
        if isinstance(tk, str):
            row.notes.append(f"tiktoken: {tk}")
            tk = None
        else:
            row.load["tiktoken (built from lists)"] = time.perf_counter() - t0
    # encode
    for k, t in texts.items():
        size = len(t.encode("utf-8", "surrogatepass")) / 1e6
        ours = tok.encode(t, add_special=False)
        full = k in KINDS  # the Python peers on the whole texts only

        row.mbps["gguftok cold", k] = size / best_cold(repeats, lambda: Tokenizer.from_gguf(path),
                                                       lambda fresh, t=t: fresh.encode(t, add_special=False))
        row.mbps["gguftok warm", k] = size / best_of(repeats, lambda t=t: tok.encode(t, add_special=False))
        row.digests[k] = digest(ours)
        if hf is not None and full:
            from tokenizers import Tokenizer as HF
            theirs = hf.encode(t, add_special_tokens=False).ids
            if theirs != ours:
                row.notes.append(f"HF tokenizers on {k}: not comparable, {first_difference(ours, theirs)}")
            else:
                row.mbps["HF tokenizers cold", k] = size / best_cold(
                    repeats, lambda: HF.from_str(hf_json), lambda fresh, t=t: fresh.encode(t, add_special_tokens=False))
                row.mbps["HF tokenizers warm", k] = size / best_of(
                    repeats, lambda t=t: hf.encode(t, add_special_tokens=False))
        if tk is not None and full:
            theirs = [rank_to_id[r] for r in tk.encode_ordinary(t)]
            if theirs != ours:
                row.notes.append(f"tiktoken on {k}: not comparable, {first_difference(ours, theirs)}")
            else:
                row.mbps["tiktoken", k] = size / best_of(repeats, lambda t=t: tk.encode_ordinary(t))
    if not chat:
        return
    # chat prompts, one call each, with a warm tokenizer as an application has
    ids = [tok.encode(p, add_special=False, parse_special=True) for p in prompts]
    rounds = 200

    def per_call(fn) -> float:
        def run():
            for _ in range(rounds):
                for p in prompts:
                    fn(p)
        return best_of(repeats, run) / (rounds * len(prompts))

    row.chat_us["gguftok"] = 1e6 * per_call(lambda p: tok.encode(p, add_special=False, parse_special=True))
    row.digests["chat"] = digest([i for one in ids for i in one])
    if hf is not None and [hf.encode(p, add_special_tokens=False).ids for p in prompts] == ids:
        row.chat_us["HF tokenizers"] = 1e6 * per_call(lambda p: hf.encode(p, add_special_tokens=False))
    if tk is not None and [[rank_to_id[r] for r in tk.encode(p, allowed_special="all")] for p in prompts] == ids:
        row.chat_us["tiktoken"] = 1e6 * per_call(lambda p: tk.encode(p, allowed_special="all"))


def _llama_figures(row: Row, ref: dict | str, texts: dict[str, str], files: dict[str, Path],
                   chat: bool = True) -> None:
    if not isinstance(ref, dict):
        row.notes.append(ref)
        return
    row.load["llama.cpp"] = ref["load"]
    row.rss_mb["llama.cpp"] = ref["rss_kb"] / 1024
    for k, t in texts.items():
        r = ref["files"][str(files[k])]
        if r["digest"] != row.digests[k]:
            row.notes.append(f"llama.cpp on {k}: {r['tokens']:,} tokens: NOT THE SAME IDS as gguftok")
        row.mbps["llama.cpp", k] = len(t.encode("utf-8", "surrogatepass")) / 1e6 / r["seconds"]
    if not chat:
        return
    if ref["chat"]["digest"] != row.digests["chat"]:
        row.notes.append("llama.cpp on the chat prompts: NOT THE SAME IDS as gguftok")
    row.chat_us["llama.cpp"] = 1e6 * ref["chat"]["per_call"]
    row.notes.append(f"chat prompts: {ref['chat']['tokens']:.0f} tokens on average")


# ------------------------------------------------------------------------------------------- reporting
TEXT_NAMES = {"english": "English prose", "code": "C++ source", "multilingual": "multilingual"}


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a and b else "-"


def markdown(row: Row, kinds: tuple[str, ...]) -> str:
    sizes = {k: len(text(k).encode("utf-8", "surrogatepass")) / 1e6 for k in kinds}
    head = "| " + row.name + " | " + " | ".join(f"{TEXT_NAMES[k]} ({sizes[k]:.2f} MB)" for k in kinds) + " |"
    lines = [head, "|---|" + "---:|" * len(kinds)]
    peers = sorted({p for p, _ in row.mbps}, key=lambda p: ("gguftok" not in p, p))
    for p in peers:
        lines.append(f"| {p}, MB/s | " + " | ".join(f"{row.mbps[p, k]:.2f}" if (p, k) in row.mbps else "n/c"
                                                    for k in kinds) + " |")
    for ours, theirs in (("gguftok cold", "llama.cpp"), ("gguftok cold", "HF tokenizers cold"),
                         ("gguftok warm", "HF tokenizers warm"), ("gguftok warm", "tiktoken")):
        lines.append(f"| {ours} / {theirs} | " + " | ".join(
            ratio(row.mbps.get((ours, k)), row.mbps.get((theirs, k))) for k in kinds) + " |")
    out = ["\n".join(lines), ""]
    load = row.load
    out.append(f"| {row.name} | gguftok | llama.cpp | ratio |\n|---|---:|---:|---:|")
    out.append(f"| load to a ready tokenizer | {load['gguftok'] * 1e3:.0f} ms | "
               f"{load.get('llama.cpp', 0) * 1e3:.0f} ms | {ratio(load['gguftok'], load.get('llama.cpp'))} |")
    out.append(f"| peak memory of the load | {row.rss_mb['gguftok']:.0f} MB | {row.rss_mb.get('llama.cpp', 0):.0f} MB |"
               f" {ratio(row.rss_mb['gguftok'], row.rss_mb.get('llama.cpp'))} |")
    out.append(f"| chat prompt, per call | {row.chat_us['gguftok']:.0f} µs | {row.chat_us.get('llama.cpp', 0):.0f} µs"
               f" | {ratio(row.chat_us['gguftok'], row.chat_us.get('llama.cpp'))} |")
    return "\n".join(out)


def machine() -> str:
    versions = []
    for pkg in ("tokenizers", "tiktoken"):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            versions.append(f"{pkg} {importlib.metadata.version(pkg)}")
    load1, load5, _ = os.getloadavg()
    clock = "CPU time" if os.environ.get("GGUFTOK_BENCH_CLOCK") == "cpu" else "wall time"
    return (f"CPython {platform.python_version()}, {os.cpu_count()} cores ({platform.machine()}), load average "
            f"{load1:.1f} (1 min) / {load5:.1f} (5 min); {clock}; llama-cpp-python 0.3.36; {', '.join(versions)}")


def print_row(row: Row, kinds: tuple[str, ...]) -> None:
    print(f"\n## {row.name}")
    print(markdown(row, kinds))
    if "HF tokenizers (built from lists)" in row.load:
        print(f"(HF built from lists in {row.load['HF tokenizers (built from lists)']:.2f} s, tiktoken in "
              f"{row.load.get('tiktoken (built from lists)', 0):.2f} s)")
    for n in row.notes:
        print("note:", n)
    sys.stdout.flush()


def all_bpe(repeats: int) -> str:
    """Cold encode of English prose and C++ source, and load, against llama.cpp, for every BPE vocabulary."""
    lines = ["| vocabulary | load time / llama.cpp's | cold encode speed / llama.cpp's, English | "
             "same, C++ |",
             "|---|---:|---:|---:|"]
    for name in BPE_VOCABS:
        row = measure(name, ("english", "code"), repeats, peers=False)
        lines.append(f"| {name} | {ratio(row.load['gguftok'], row.load.get('llama.cpp'))} | " + " | ".join(
            ratio(row.mbps[("gguftok cold", k)], row.mbps.get(("llama.cpp", k))) for k in ("english", "code"))
            + " |")
        print(lines[-1], *[f"  note: {n}" for n in row.notes if "NOT" in n], sep="\n", flush=True)
    return "\n".join(lines)


FAMILIES = {"bpe": "BPE", "spm": "SentencePiece", "wpm": "WordPiece", "ugm": "Unigram", "rwkv": "RWKV",
            "plamo2": "PLaMo-2"}


SIZES: tuple[int | str, ...] = ("prompts", 1_000, 10_000, 100_000)  # and each whole text, about 1 MB
SIZE_NAMES = {"prompts": "1 KB prompts", 1_000: "1 KB", 10_000: "10 KB", 100_000: "100 KB", "full": "1 MB"}


def size_tables(rows: list[tuple[str, str, Row]], sizes: tuple[int | str, ...]) -> list[str]:
    """For each text, one table: per vocabulary, gguftok's cold and warm speed over llama.cpp's at each size,
    and what a 1 KB prompt costs each side."""
    out = []
    cols = [*sizes, "full"]
    for k in KINDS:
        whole = len(text(k).encode("utf-8", "surrogatepass")) / 1e6
        names = [SIZE_NAMES[n] if n != "full" else f"{whole:.2f} MB" for n in cols]
        streamed = "prompts" in sizes
        head = ["| vocabulary | family | " + " | ".join(f"{n}, cold | warm" for n in names)
                + (" | 1 KB prompts, cold unprepared | µs a prompt: gguftok cold / warm / llama.cpp |" if streamed
                   else " |"),
                "|---|---|" + "---:|---:|" * len(cols) + ("---:|---:|" if streamed else "")]
        lines = [f"**{TEXT_NAMES[k]}**: gguftok's speed over llama.cpp's (above 1x: gguftok faster); *1 KB "
                 f"prompts*: {len(prompts(k))} distinct prompts of 1 KB, one call each, by one fresh tokenizer "
                 "(cold: the first pass; warm: the same prompts again); *unprepared*: before `gguftok prepare` "
                 "(byte pair encoding, SentencePiece; - where there is nothing to prepare)", "", *head]
        for name, family, row in rows:
            cells = []
            for n in cols:
                key = size_key(k, n)
                llama = row.mbps.get(("llama.cpp", key))
                cells += [ratio(row.mbps.get(("gguftok cold", key)), llama),
                          ratio(row.mbps.get(("gguftok warm", key)), llama)]
            if streamed:
                key, count = size_key(k, "prompts"), len(prompts(k))
                cells.append(ratio(row.mbps.get(("gguftok cold, unprepared", key)), row.mbps.get(("llama.cpp", key))))
                mb = sum(len(p.encode("utf-8", "surrogatepass")) for p in prompts(k)) / 1e6
                cells.append(" / ".join(f"{1e6 * mb / row.mbps[p, key] / count:.0f}" if (p, key) in row.mbps
                                        else "-" for p in ("gguftok cold", "gguftok warm", "llama.cpp")))
            lines.append(f"| {name} | {family} | " + " | ".join(cells) + " |")
        out += [*lines, ""]
    return out


def all_vocabs(repeats: int, names: tuple[str, ...] = ALL_VOCABS, sizes: tuple[int | str, ...] = SIZES) -> str:
    """Every vocabulary, every text: gguftok cold and warm against llama.cpp (and Hugging Face tokenizers where
    it gives the same ids), load too; RWKV and PLaMo-2 on the synthetic vocabularies (llama.cpp ships none).
    With ``sizes``, also each text at those sizes and as a stream of 1 KB prompts, against llama.cpp."""
    kinds = KINDS
    rows: list[tuple[str, str, Row]] = []
    ratios = ["| vocabulary | family | load / llama.cpp | " + " | ".join(
        f"{TEXT_NAMES[k]}, cold | warm" for k in kinds) + " |", "|---|---|---:|" + "---:|---:|" * len(kinds)]
    speeds = ["| vocabulary | text | gguftok cold | gguftok warm | llama.cpp | HF tokenizers cold | "
              "HF tokenizers warm |", "|---|---|---:|---:|---:|---:|---:|"]
    notes: list[str] = []
    for name in names:
        row = measure(name, kinds, repeats, peers="hf", chat=False, sizes=sizes)
        family = FAMILIES.get(Tokenizer.from_gguf(vocab_path(name)).vocab.type, "?")
        rows.append((name, family, row))
        cells = []
        for k in kinds:
            llama = row.mbps.get(("llama.cpp", k))
            cells += [ratio(row.mbps[("gguftok cold", k)], llama), ratio(row.mbps[("gguftok warm", k)], llama)]
        ratios.append(f"| {name} | {family} | {ratio(row.load['gguftok'], row.load.get('llama.cpp'))} | "
                      + " | ".join(cells) + " |")
        hf_built = "HF tokenizers (built from lists)" in row.load
        for k in kinds:
            speeds.append(f"| {name} | {TEXT_NAMES[k]} | " + " | ".join(
                f"{row.mbps[p, k]:.2f}" if (p, k) in row.mbps else "n/c" if p.startswith("HF") and hf_built else "-"
                for p in ("gguftok cold", "gguftok warm", "llama.cpp", "HF tokenizers cold", "HF tokenizers warm"))
                + " |")
        notes += [f"{name}: {n}" for n in row.notes]
        print(ratios[-1], *speeds[-len(kinds):], *[f"  note: {n}" for n in row.notes], sep="\n", flush=True)
        if sizes:
            print(*size_tables(rows[-1:], sizes), sep="\n", flush=True)
    # by size: a table for each text; then the speeds behind the ratios, folded so that the ratios read first
    by_size = size_tables(rows, sizes) if sizes else []
    return "\n".join(ratios + ["", *by_size, "<details><summary>The speeds behind these ratios, in MB/s</summary>", ""]
                     + speeds + [""] + [f"- {n}" for n in notes] + ["", "</details>"])


def scale(name: str, cache_size: int = DEFAULT_CACHE_SIZE) -> str:
    """Throughput from 100 KB to 50 MB, and the word cache's size after each: English prose repeated (cold,
    then warm: the same text again), and fresh multilingual text (many distinct words: the cache fills to its
    bound and stays there)."""
    base = english()
    lines = [f"| {name} | English prose repeated, MB/s cold | warm | words cached | multilingual, MB/s cold | "
             "words cached |", "|---|---:|---:|---:|---:|---:|"]
    for size in (100_000, 1_000_000, 10_000_000, 50_000_000):
        t = (base * (size // len(base) + 1))[:size]
        tok = Tokenizer.from_gguf(vocab_path(name), cache_size=cache_size)
        gc.collect()
        cold = best_of(1, lambda tok=tok, t=t: tok.encode(t, add_special=False))
        warm = best_of(1, lambda tok=tok, t=t: tok.encode(t, add_special=False))
        cells = [f"{len(t.encode()) / 1e6 / cold:.2f}", f"{len(t.encode()) / 1e6 / warm:.2f}",
                 f"{len(tok.model._cache):,}"]
        del tok
        m = multilingual(size, seed=size)
        tok = Tokenizer.from_gguf(vocab_path(name), cache_size=cache_size)
        cold = best_of(1, lambda tok=tok, m=m: tok.encode(m, add_special=False))
        cells += [f"{len(m.encode()) / 1e6 / cold:.2f}", f"{len(tok.model._cache):,}"]
        del tok
        lines.append(f"| {size / 1e6:g} MB | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return "\n".join(lines)


GROWTH_VOCABS = ("qwen2", "llama-spm", "bert-bge", "nomic-bert-moe", "rwkv", "plamo2")


def growth(repeats: int = 1, sizes: tuple[int, ...] = (250_000, 500_000, 1_000_000)) -> str:
    """Encode time of a fresh tokenizer at three sizes of two hostile texts, for each family: one character
    repeated (one word as long as the text, no place to cut), and the multilingual text without whitespace
    (no spaces to cut at). The growth from one size to the next (each doubles) is x2 for linear time, x2.1-2.3
    for n log n, x4 for quadratic."""
    base = re.sub(r"\s+", "", multilingual(2 * max(sizes)))
    lines = ["| vocabulary | text | " + " | ".join(f"{n / 1e6:g} MB" for n in sizes) + " | growth per doubling |",
             "|---|---|" + "---:|" * len(sizes) + "---:|"]
    for name in GROWTH_VOCABS:
        path = vocab_path(name)
        for label, t in (("one character", "a" * max(sizes)), ("no whitespace", base)):
            times = []
            for n in sizes:
                piece = t[:n]
                times.append(best_cold(repeats, lambda path=path: Tokenizer.from_gguf(path),
                                       lambda fresh, piece=piece: fresh.encode(piece, add_special=False)))
            steps = " / ".join(f"x{b / a:.2f}" for a, b in pairwise(times))
            lines.append(f"| {name} | {label} | " + " | ".join(f"{x:.2f} s" for x in times) + f" | {steps} |")
            print(lines[-1], flush=True)
    return "\n".join(lines)


def rewrite_readme(block: str) -> None:
    readme = README.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(readme):
        raise SystemExit(f"README.md has no {BEGIN} ... {END} markers")
    README.write_text(pattern.sub(lambda _: f"{BEGIN}\n{block}\n{END}", readme), encoding="utf-8")
    print(f"rewrote the table in {README}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vocab", action="append", help="repeatable; default qwen2")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--all-bpe", action="store_true", help="every BPE vocabulary against llama.cpp")
    parser.add_argument("--all", action="store_true",
                        help="every vocabulary of every family (and the synthetic RWKV and PLaMo-2), cold and warm, "
                             "on every text, against llama.cpp and Hugging Face tokenizers")
    parser.add_argument("--only", help="with --all: these vocabularies only (comma-separated)")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)),
                        help="with --all: besides each whole text (about 1 MB), its start of these many bytes, and "
                             "'prompts' for its stream of distinct 1 KB prompts (comma-separated; '' for none; "
                             "default %(default)s)")
    parser.add_argument("--markdown", action="store_true",
                        help="also print every table as one markdown block at the end (what --readme writes)")
    parser.add_argument("--growth", action="store_true",
                        help="each family on one character repeated and on text without whitespace, 0.25-1 MB")
    parser.add_argument("--scale", action="store_true", help="throughput from 100 KB to 50 MB")
    parser.add_argument("--readme", action="store_true", help="rewrite the table in README.md")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="cpu: each side's CPU time, which the machine's other work disturbs far less")
    args = parser.parse_args()
    os.environ["GGUFTOK_BENCH_CLOCK"] = args.clock  # read by bench/_common.py and by the oracle's scripts
    print(f"# {machine()}")
    blocks = [f"Measured by `{' '.join(['python', 'bench/bench_peers.py', *sys.argv[1:]])}` on: {machine()}. "
              "Encode figures are speeds (MB/s; a ratio above 1 is gguftok faster); load, memory and per-call "
              "figures are costs (a ratio below 1 is gguftok cheaper). Each figure is the best of "
              f"{args.repeats} runs; this 2-core machine is shared, so figures move by 20-40% between runs.", ""]
    for name in args.vocab or ([] if args.all or args.growth else ["qwen2"]):
        row = measure(name, KINDS, args.repeats, peers=True)
        print_row(row, KINDS)
        blocks += [markdown(row, KINDS), ""]
        blocks += [f"- {n}" for n in row.notes] + [""]
    if args.all_bpe:
        print("\n## every BPE vocabulary against llama.cpp (load: below 1 is faster; encode: above 1 is faster)")
        blocks += [all_bpe(args.repeats), ""]
    if args.all:
        print("\n## every vocabulary against llama.cpp (encode speed ratios: above 1 is faster; load: below 1)")
        sizes = tuple(int(n) if n.isdigit() else n for n in args.sizes.split(",") if n)
        if unknown := [n for n in sizes if n not in SIZE_NAMES or n == "full"]:
            parser.error(f"--sizes: {unknown} (known: {', '.join(map(str, SIZES))})")
        blocks += [all_vocabs(args.repeats, tuple(args.only.split(",")) if args.only else ALL_VOCABS, sizes), ""]
    if args.growth:
        print("\n## growth: a fresh tokenizer on hostile texts of three sizes")
        blocks += [growth(), ""]
    if args.scale:
        print("\n## scale")
        blocks += [scale((args.vocab or ["qwen2"])[0]), ""]
    if args.markdown:
        print("\n<!-- bench_peers markdown -->\n" + "\n".join(blocks).strip())
    if args.readme:
        rewrite_readme("\n".join(blocks).strip())


if __name__ == "__main__":
    main()
