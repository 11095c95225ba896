"""gguftok.offsets: each token's character span, on all 19 vocabularies, against computations of their own.

- every vocabulary, hostile texts: the ids are ``Tokenizer.encode``'s, spans are ordered and inside the text,
  and every character that yields a token is covered (only whitespace, controls and marks may be dropped);
- byte-level BPE, Gemma 4 and SentencePiece: the spans again from the token pieces' bytes alone
  (``token_to_piece``, laid end to end over the text's UTF-8);
- WordPiece: each token's text is its span, lower-cased and stripped of accents by ``unicodedata``;
- Hugging Face ``tokenizers`` (the GGUF converted by transformers' own converter) where its ids equal ours.
"""

from __future__ import annotations

import itertools
import unicodedata

import pytest
from conftest import VOCAB_NAMES

from gguftok import Tokenizer
from gguftok.offsets import encode_with_offsets, token_offsets
from gguftok.synthetic import byte_level_vocab
from gguftok.writer import write_tokenizer

HOSTILE = [
    "Hello world",
    "日本語のテキストと中文，混ざる。",
    "emoji 😀👍🏽 and a family 👩‍👩‍👧!",
    "e\u0301 a\u0308\u0301 ñ Ünïcödé X\u0301",
    "  spaces   run  \t\t tabs ",
    "a\n\nb\n\n\n",
    "2026 3.14159 1,000,000 0x1F",
    "ﬁ ＡＢＣ ① ǅ İstanbul",
    "",
    " ",
]
SPECIALS = "<s>Hi</s> <|endoftext|>x<|im_start|>user\n<unk> [CLS] <bos>"


@pytest.fixture(scope="module")
def all_toks(toks):
    return {name: toks(name) for name in VOCAB_NAMES}


def _uncoverable(c: str) -> bool:
    """A character WordPiece or Unigram may drop: whitespace, a control or format character, a mark, U+FFFD."""
    return c.isspace() or c == "\ufffd" or unicodedata.category(c) in ("Cc", "Cf", "Mn", "Mc", "Me", "Zs")


def _check_shape(tok, text, ids, spans, add_special=False, parse_special=False):
    assert ids == tok.encode(text, add_special, parse_special)
    assert len(spans) == len(ids)
    for (a, b), (c, d) in itertools.pairwise(spans):
        assert a <= c and b <= d, (spans, text)
    assert all(0 <= a <= b <= len(text) for a, b in spans)
    covered = {k for a, b in spans for k in range(a, b)}
    missing = [text[k] for k in range(len(text)) if k not in covered]
    if tok.vocab.type in ("wpm", "ugm"):
        assert all(_uncoverable(c) for c in missing), missing
    elif not parse_special:  # BPE, SentencePiece: every character (a special may swallow whitespace)
        assert not missing, missing


def char_spans_of_bytes(text: str, byte_spans):
    """Byte spans of text's UTF-8 as character spans, written out here with str.encode per character."""
    bounds = [0]
    for c in text:
        bounds.append(bounds[-1] + len(c.encode("utf-8", "surrogatepass")))
    out = []
    for a, b in byte_spans:
        first = max(k for k in range(len(text) + 1) if bounds[k] <= a)
        if b == a:
            out.append((first, first))
        else:
            last = max(k for k in range(len(text)) if bounds[k] < b)
            out.append((first, last + 1))
    return out


def piece_spans(tok, text: str, ids, prefix: bool):
    """The spans from the pieces alone: the pieces, end to end, spell the text (after one space, for a
    SentencePiece prefix); a piece over the prefix only is an empty span at 0."""
    data = text.encode("utf-8", "surrogatepass")
    pieces = [tok.token_to_piece(i) for i in ids]
    assert b"".join(pieces) == (b" " if prefix else b"") + data
    spans, pos = [], -1 if prefix else 0
    for p in pieces:
        a, b = max(pos, 0), max(pos + len(p), 0)
        spans.append((a, b))
        pos += len(p)
    return char_spans_of_bytes(text, spans)


@pytest.mark.parametrize("name", VOCAB_NAMES)
def test_every_vocabulary_on_hostile_texts(all_toks, name):
    tok = all_toks[name]
    for text in HOSTILE:
        ids, spans = encode_with_offsets(tok, text)
        _check_shape(tok, text, ids, spans)
        assert token_offsets(tok, text) == spans
        if tok.vocab.type in ("bpe", "spm"):
            prefix = bool(text) and tok.vocab.type == "spm" and tok.vocab.add_space_prefix
            assert spans == piece_spans(tok, text, ids, prefix)


@pytest.mark.parametrize("name", VOCAB_NAMES)
def test_special_tokens_and_added_ones(all_toks, name):
    """Added BOS/CLS cover (0, 0), added EOS/SEP (len, len); a special token read out of the text covers the
    place its text stands (found here with str.find, in the partition's order)."""
    tok = all_toks[name]
    for text in (SPECIALS, "x" + SPECIALS + " tail", HOSTILE[2]):
        ids, spans = encode_with_offsets(tok, text, add_special=True, parse_special=True)
        _check_shape(tok, text, ids, spans, True, True)
        plain = tok.encode(text, False, True)
        head = next(k for k in range(len(ids) - len(plain) + 1) if ids[k:k + len(plain)] == plain)
        tail = len(ids) - len(plain) - head
        assert spans[:head] == [(0, 0)] * head and spans[len(ids) - tail:] == [(len(text), len(text))] * tail
        read = [f for f in tok.fragments(text.encode(), True) if isinstance(f, int)]
        expected, pos = [], 0
        for tid in read:
            at = text.find(tok.token_text(tid), pos)
            expected.append((at, at + len(tok.token_text(tid))))
            pos = at + len(tok.token_text(tid))
        inner = spans[head:len(ids) - tail]
        got = [span for tid, span in zip(plain, inner, strict=True)
               if tid in read and text[span[0]:span[1]] == tok.token_text(tid)]
        assert got == expected


def test_wordpiece_tokens_are_their_spans_folded(toks):
    tok = toks("bert-bge")

    def fold(s: str) -> str:
        return "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn").lower()

    for text in ["Héllo, Wörld! naïve CAFÉ", "e\u0301 ñ Ünïcödé", "日本語 2026 3.14"]:
        ids, spans = encode_with_offsets(tok, text)
        for tid, (a, b) in zip(ids, spans, strict=True):
            if tid != tok.vocab.special["unk"]:
                assert fold(text[a:b]) == tok.token_text(tid).removeprefix("▁"), (text, tid, text[a:b])


def test_the_rules_on_examples(toks):
    spm = toks("llama-spm")
    text = "Hi 😀"
    ids, spans = encode_with_offsets(spm, text, add_special=True)
    assert ids == [1, 6324, 29871, 243, 162, 155, 131]  # <s> ▁Hi ▁ and the emoji's four byte tokens
    assert spans == [(0, 0), (0, 2), (2, 3)] + [(3, 4)] * 4  # BOS empty; the byte tokens share the emoji
    assert token_offsets(spm, "2")[0] == (0, 0)  # the added prefix ▁ alone covers nothing
    ugm = toks("nomic-bert-moe")
    ids, spans = encode_with_offsets(ugm, "ﬁx a  b")
    assert [ugm.token_text(i) for i in ids] == ["▁fix", "▁a", "▁b"]
    assert spans == [(0, 2), (2, 4), (4, 7)]  # ﬁ -> fi; a word's ▁ covers the spaces before it
    bert = toks("bert-bge")
    assert token_offsets(bert, "Nai\u0308ve 😀", add_special=True) == [(0, 0), (0, 6), (7, 8), (8, 8)]


def test_only_text_and_supported_models(toks, tmp_path):
    with pytest.raises(TypeError):
        token_offsets(toks("qwen2"), b"bytes")
    from gguftok.synthetic import hash_vocab

    v = hash_vocab()
    path = write_tokenizer(tmp_path / "hash.gguf", v["tokens"], model="test", pre=None, token_types=v["token_types"])
    with pytest.raises(NotImplementedError):
        token_offsets(Tokenizer.from_gguf(path), "hello")


@pytest.mark.parametrize("name", ["rwkv", "plamo2"])
def test_synthetic_rwkv_and_plamo2(name):
    tok = Tokenizer.from_gguf(f"data/synthetic/{name}.gguf")
    for text in ["Hello world", "日本 é 😀 zq", "\ufeffHello"]:
        ids, spans = encode_with_offsets(tok, text)
        bom = text.startswith("\ufeff") and name == "plamo2"  # PLaMo-2 drops a leading byte-order mark
        _check_shape(tok, text[bom:], ids, [(a - bom, b - bom) for a, b in spans])
        assert spans == [(a + bom, b + bom) for a, b in piece_spans(tok, text[bom:], ids, prefix=False)]


def test_byte_fallback_with_missing_bytes_and_surrogates(tmp_path):
    """A symbol that is no token falls back to its bytes' tokens, and llama.cpp drops bytes without one: the
    kept tokens keep their own bytes' spans. A lone surrogate is three bytes, one character."""
    v = byte_level_vocab()
    tokens = [t for t in v["tokens"]]
    tokens[0xA9] = "[gone-a9]"  # the byte 0xA9 (second byte of é) has no token any more
    path = write_tokenizer(tmp_path / "v.gguf", tokens, model="gpt2", pre="qwen2", token_types=v["token_types"],
                           merges=v["merges"], special_ids=v["special_ids"])
    tok = Tokenizer.from_gguf(path)
    ids, spans = encode_with_offsets(tok, "aé\ud800b")
    assert ids == tok.encode("aé\ud800b", add_special=False)
    assert [tok.token_text(i) for i in ids][:2] == ["a", "Ã"]  # é's 0xA9 is dropped
    assert spans[:2] == [(0, 1), (1, 2)] and spans[-1] == (3, 4) and set(spans[2:-1]) == {(2, 3)}


# ------------------------------------------------------------------------------------ Hugging Face


@pytest.fixture(scope="module")
def hf_converter():
    pytest.importorskip("tokenizers")
    mapping = pytest.importorskip("transformers.integrations.gguf.gguf_tokenizer_mapping")
    from gguftok.metadata import read_metadata

    def convert(path):
        """What ``AutoTokenizer.from_pretrained(dir, gguf_file=...)`` builds, from gguftok's reading of the keys
        (transformers' own GGUF reader needs PyTorch, which the test extra does not install)."""
        md = read_metadata(path)
        d = {name: md[f"tokenizer.{key}"] for key, name in mapping.GGUF_TOKENIZER_MAPPING["tokenizer"].items()
             if f"tokenizer.{key}" in md}
        for key in ("tokens", "merges", "scores", "token_type"):
            if key in d:
                d[key] = list(d[key])
        if "precompiled_charsmap" in d:
            d["precompiled_charsmap"] = bytes(md["tokenizer.ggml.precompiled_charsmap"])
        try:
            return mapping.convert_gguf_tokenizer(md["general.architecture"], d)[0]
        except ValueError as e:  # a tokenizer kind it cannot build (WordPiece)
            pytest.skip(f"transformers cannot convert this vocabulary: {e}")

    return convert


def _allowed(tok, text, tid, mine, theirs) -> bool:
    """The two documented differences: a token of the added ``▁`` only is an empty span here (Hugging Face
    gives it the next character); a Unigram word's ``▁`` covers the spaces before the word here (Hugging Face:
    none of them)."""
    if mine == theirs:
        return True
    if not tok.token_text(tid).strip("\u2581") and not text[mine[0]:mine[1]].strip() and theirs[0] == mine[1]:
        return True
    return tok.vocab.type == "ugm" and mine[1] == theirs[1] and not text[mine[0]:theirs[0]].strip()


@pytest.mark.parametrize("name", VOCAB_NAMES)
def test_against_hugging_face_offsets(all_toks, hf_converter, vocab_path, name):
    tok = all_toks[name]
    hf = hf_converter(vocab_path(name))
    compared = 0
    for text in HOSTILE:
        ids, spans = encode_with_offsets(tok, text)
        enc = hf.encode(text, add_special_tokens=False)
        if enc.ids != ids:
            continue  # Hugging Face tokenizes this text otherwise: its offsets are of other tokens
        compared += 1
        for tid, mine, theirs in zip(ids, spans, enc.offsets, strict=True):
            assert _allowed(tok, text, tid, mine, tuple(theirs)), (text, tid, tok.token_text(tid), mine, theirs)
    assert compared >= 3, f"Hugging Face agreed on the ids of only {compared} texts"
