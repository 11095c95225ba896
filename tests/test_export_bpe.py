"""gguftok.export on byte-level BPE: exact on the 14 vocabularies and on the 91 pre-tokenizer types, every refusal
proved by a text on which the two engines give other ids.

The exports are built at test time from the fetched vocabularies. Each is checked against gguftok (which the
golden fixtures and the fuzzer hold to llama.cpp) on llama.cpp's own cases, the golden fixture's inputs and id
sequences, and seeded fuzz, under the four flag combinations of encoding and of decoding. ``make verify-export``
runs the same with 20,000 fuzz inputs a vocabulary.
"""

from __future__ import annotations

import functools

import pytest
from conftest import REPO

pytest.importorskip("tokenizers")

from gguftok import Tokenizer, read_metadata
from gguftok.conformance.golden import fixture_paths, read_fixture
from gguftok.errors import ExportError
from gguftok.export import build, plan, to_tokenizers
from gguftok.export.verify import verify

GOLDEN = REPO / "data" / "golden"
BPE = ["aquila", "command-r", "deepseek-coder", "deepseek-llm", "falcon", "gemma-4", "gpt-2", "gpt-neox",
       "llama-bpe", "mpt", "qwen2", "qwen35", "refact", "starcoder"]
# vocabulary -> the stages whose rules it cannot follow (each proved below)
REFUSED = {"falcon": {"added tokens"}}
PRES = [p.name.removesuffix(".jsonl.xz") for p in fixture_paths() if p.name.startswith("pre-")]
# pre-tokenizer type -> the stages refused on the relabelled GPT-2 vocabulary
REFUSED_PRES = {
    "pre-whitespace": {"model"},  # a space that reaches the merges: llama.cpp aborts
}


@functools.lru_cache(maxsize=1)
def _gpt2_metadata():
    from gguftok.data import vocab_dir

    return read_metadata(vocab_dir() / "ggml-vocab-gpt-2.gguf")


def _pre_tokenizer(name: str) -> tuple[Tokenizer, object]:
    fx = read_fixture(GOLDEN / f"{name}.jsonl.xz")
    return Tokenizer({**_gpt2_metadata(), "tokenizer.ggml.pre": fx.header["pre"]}), fx


_EXPORTS: dict[str, tuple[object, list]] = {}
# the exports that several tests take, all of small vocabularies (GPT-2's, Falcon's): kept for the whole run
_SHARED = {*REFUSED, *REFUSED_PRES, "pre-afmoe", "pre-kimi-k2"}
_KEPT: dict[str, tuple[object, list]] = {}


def _export(key: str, tok: Tokenizer) -> tuple[object, list]:
    """The pipeline of ``tok`` (built whatever its differences) and its differences, built once per run."""
    if key in _KEPT:
        return _KEPT[key]
    if key not in _EXPORTS:
        st = plan(tok)
        _EXPORTS.clear()  # one at a time: a pipeline of a large vocabulary holds hundreds of MB
        _EXPORTS[key] = build(st), st.differences
        if key in _SHARED:
            _KEPT[key] = _EXPORTS[key]
    return _EXPORTS[key]


def _assert_exact(report) -> None:
    assert report.differences == 0, f"{report.line()}\n{report.failing_flags()}\n" + "\n".join(
        str(m) for m in report.mismatches[:5])


@pytest.mark.parametrize("name", BPE)
def test_byte_level_bpe_export_is_exact_or_refused_naming_the_stage(name, toks, vocab_path):
    tok = toks(name)
    hf, diffs = _export(name, tok)
    assert {d.stage for d in diffs} == REFUSED.get(name, set()), diffs
    if name in REFUSED:
        with pytest.raises(ExportError) as e:
            to_tokenizers(tok)
        assert {d.stage for d in e.value.differences} == REFUSED[name]
    report = verify(tok, hf, gguf=vocab_path(name), fixture=read_fixture(GOLDEN / f"{name}.jsonl.xz"), fuzz=150,
                    seed=20261202, name=name)
    assert report.texts.get("golden", 0) > 800 and report.id_sequences > 400
    _assert_exact(report)


def test_afmoe_digits_cut_in_threes_from_the_right_as_llama_cpp_does():
    """AFMoE's hand-written digit splitter (also the pre-types cohere2moe and tiny_aya), as a regex: the text
    before a run of digits joins its first group, the rest of the run comes in threes."""
    tok, _ = _pre_tokenizer("pre-afmoe")
    hf, diffs = _export("pre-afmoe", tok)
    assert diffs == []
    for text in ("abc12345", "x1234567 89", "\u0661\u0662\u0663\u0664\u0665 a", "12", "a 1 22 333 4444 55555 666666"):
        assert hf.encode(text, add_special_tokens=False).ids == tok.encode(text, add_special=False), text


def test_kimi_k2_splitter_as_a_regex_cuts_as_llama_cpp_loop():
    """Kimi K2's hand-written splitter: Han runs apart from other letters, one leading non-letter, contractions
    in any case, numbers in threes, and the whitespace rules; also Han-block code points no letter (U+9FFF)."""
    from tokenizers import Regex, pre_tokenizers

    from gguftok.export.bpe import onig_pattern
    from gguftok.pretokenize.splitters import CUSTOM, cut, kimi_k2

    rx = next(r for r, fn in CUSTOM.items() if fn is kimi_k2)
    split = pre_tokenizers.Split(Regex(onig_pattern(rx)), "isolated")
    for text in ("漢字abc's 1234", "\u9fff\u9ffe.x", "  abc", "x\r\n \n  y", "IT'RE it'Ll 'd", "é\u0301ß漢a",
                 "a.\n\n b", "\u3000\u3000\u0085", "½٣12345", "-- \t"):
        cps = [ord(c) for c in text]
        want = ["".join(map(chr, p)) for p in cut(cps, kimi_k2(cps, [len(cps)]))]
        assert [w for w, _ in split.pre_tokenize_str(text)] == want, text
    tok, _ = _pre_tokenizer("pre-kimi-k2")
    hf, diffs = _export("pre-kimi-k2", tok)
    assert diffs == []
    assert hf.encode("漢字abc's 1234", add_special_tokens=False).ids == tok.encode("漢字abc's 1234", add_special=False)


@pytest.mark.parametrize("name", PRES)
def test_every_pre_tokenizer_type_exports_exactly_on_a_synthetic_vocabulary(name):
    tok, fx = _pre_tokenizer(name)
    if "load_error" in fx.header:
        pytest.skip(f"llama.cpp refuses this pre-tokenizer type: {fx.header['load_error'][:80]}")
    hf, diffs = _export(name, tok)
    stages = {d.stage for d in diffs}
    assert stages == REFUSED_PRES.get(name, set()), diffs
    if stages:
        return  # proved below
    _assert_exact(verify(tok, hf, fixture=fx, fuzz=0, name=name))


def _differs(tok, hf, d) -> bool:
    """Whether the exported ``hf`` and ``tok`` part on the difference's example: its ids under some flags, or,
    for a decoder rule, the text of those ids under ``hf.decode``'s one flag."""
    text = d.example
    for add in (False, True):
        for parse in (False, True):
            hf.encode_special_tokens = not parse
            try:
                want = tok.encode(text, add, parse)
            except ValueError:
                return True  # llama.cpp aborts here; the export gives ids
            finally:
                got = hf.encode(text, add_special_tokens=add).ids
                hf.encode_special_tokens = False
            if want != got:
                return True
            for unparse in (False, True):
                if tok.decode(want, unparse_special=unparse) != hf.decode(want, skip_special_tokens=not unparse):
                    return True
    return False


def _proof_cases():
    for name in REFUSED:
        yield name, None
    for name in REFUSED_PRES:
        yield None, name


@pytest.mark.parametrize(("vocab", "pre"), list(_proof_cases()), ids=lambda x: x or "")
def test_every_declared_difference_is_real_on_its_example(vocab, pre, toks):
    """Each rule named as impossible comes with a text on which the exported pipeline does give other ids than
    llama.cpp: the refusal is not a guess."""
    tok = toks(vocab) if vocab else _pre_tokenizer(pre)[0]
    hf, diffs = _export(vocab or pre, tok)
    for d in diffs:
        assert d.example, f"no example for {d}"
        assert _differs(tok, hf, d), f"{vocab or pre}: no difference on {d.example!r} ({d.stage}: {d.rule})"


def test_falcon_overlap_example_by_hand(toks):
    """The text ``>>ABSTRACT<<|endoftext|>`` shows why no ``tokenizers`` option can follow llama.cpp here: its
    added tokens are always matched leftmost-longest, and llama.cpp cuts ``<|endoftext|>`` (the longer) first."""
    tok = toks("falcon")
    hf, _ = _export("falcon", tok)
    text = ">>ABSTRACT<<|endoftext|>"
    eot = tok.vocab.token_to_id["<|endoftext|>"]
    abstract = tok.vocab.token_to_id[">>ABSTRACT<<"]
    assert eot in tok.encode(text, parse_special=True) and abstract not in tok.encode(text, parse_special=True)
    assert abstract in hf.encode(text).ids and eot not in hf.encode(text).ids
