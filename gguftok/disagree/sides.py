"""Each side's pipeline, run one stage at a time, in a form the two sides share.

A side answers, for a text:

- ``partition``: the special/added tokens it cuts out (id, character span) and the plain segments between
  them, each with the ids it gives that segment where it stands (:class:`Partition`);
- ``alone(segment)``: the ids of a segment's text encoded on its own;
- ``model_input(segment)``: what its model is handed: the words, spelled as the vocabulary spells its tokens
  (``Ġ`` for a byte-level space, ``▁`` for SentencePiece's), each with its ids;
- ``run_model(words)``: its model on words handed to it (the other side's words, to prove a stage);
- ``added(text)``: what post-processing adds around the ids (BOS, EOS, CLS/SEP).

:class:`GgufSide` reads a gguftok :class:`~gguftok.tokenizer.Tokenizer`'s own stages (nothing re-implemented);
:class:`HFSide` runs a ``tokenizers.Tokenizer``'s normalizer, pre-tokenizer and model through a
``PreTokenizedString``, which keeps each word's offsets in the original text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..tokenizer import text_bytes
from .engines import Engine, hf_encode


@dataclass
class Special:
    """A special or added token one side cut out of the text: its id, text and character span."""

    id: int
    text: str
    start: int
    end: int


@dataclass
class Segment:
    """Plain text between two specials (characters ``start:end`` of the text) and the ids it got there."""

    start: int
    end: int
    text: str
    ids: list[int]


@dataclass
class Partition:
    specials: list[Special] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)  # len(specials) + 1: before, between, after each


@dataclass
class Words:
    """The model's input for one segment: words as the vocabulary spells them, and each word's ids."""

    words: list[str]
    ids: list[list[int]]

    @property
    def flat(self) -> list[int]:
        return [i for w in self.ids for i in w]


def char_offsets(text: str) -> list[int]:
    """``out[b]``: the character at byte ``b`` of ``text``'s UTF-8 (``out[len(bytes)]`` is ``len(text)``)."""
    out: list[int] = []
    for i, c in enumerate(text):
        out += [i] * len(c.encode("utf-8", "surrogatepass"))
    out.append(len(text))
    return out


def strip_added(full: list[int], core: list[int]) -> tuple[list[int], list[int]] | None:
    """``(prefix, suffix)`` with ``full == prefix + core + suffix``, the shortest prefix first; ``None`` if no
    such split exists."""
    n, m = len(full), len(core)
    for a in range(n - m + 1):
        if full[a:a + m] == core:
            return full[:a], full[a + m:]
    return None


class GgufSide:
    """The stages of a gguftok tokenizer (llama.cpp's pipeline)."""

    name = "llama.cpp"

    def __init__(self, tok: Any) -> None:
        self.tok = tok
        self.vocab = tok.vocab

    def encode(self, text: str, add_special: bool, parse_special: bool) -> list[int]:
        return self.tok.encode(text, add_special=add_special, parse_special=parse_special)

    def token_text(self, tid: int) -> str:
        return self.vocab.texts[tid] if 0 <= tid < self.vocab.n_vocab else f"<id {tid}>"

    def partition(self, text: str, parse_special: bool) -> Partition:
        tok = self.tok
        data = text_bytes(text)
        at = char_offsets(text)
        out = Partition()
        cursor = 0
        seg: Segment | None = None  # the plain text since the last special, if any
        for frag in tok.fragments(data, parse_special):
            if isinstance(frag, int):
                piece = tok._special_bytes[frag]
                b = data.find(piece, cursor)
                out.segments.append(seg or Segment(at[cursor], at[cursor], "", []))
                out.specials.append(Special(frag, self.token_text(frag), at[b], at[b + len(piece)]))
                cursor, seg = b + len(piece), None
            else:
                off, ln = frag
                ids = tok._encode_fragments(data, [frag], False)
                seg = Segment(at[off], at[off + ln], text[at[off]:at[off + ln]], ids)
                cursor = off + ln
        out.segments.append(seg or Segment(at[cursor], at[cursor], "", []))
        return out

    def alone(self, segment: str, parse_special: bool) -> list[int]:
        return self.tok.encode(segment, add_special=False, parse_special=parse_special)

    def model_input(self, segment: str, parse_special: bool) -> Words:
        tok, v = self.tok, self.vocab
        data = text_bytes(segment)
        if v.type == "bpe" and tok.pre is not None and v.model not in ("whitespace", "hybriddna"):
            # the words as encode cuts them (the segment holds no special token), spelled as the merges spell them
            text = segment.replace(" ", "\u2581") if v.escape_whitespaces else segment
            words = [w for w in tok.pre.words(text) if w]
            return Words([tok.model.spell(w) for w in words], [tok.model.text_word_ids(w) for w in words])
        ids = self.alone(segment, parse_special)
        if v.type == "spm":
            raw = (b" " + data) if v.add_space_prefix else data
            return Words([raw.decode("utf-8", "replace").replace(" ", "\u2581")], [ids])
        if v.type == "ugm":
            return Words([tok.model.normalize(data).decode("utf-8", "replace")], [ids])
        if v.type == "wpm":
            from ..models.wpm import preprocess

            words = preprocess(data, v.lowercase, v.strip_accents)
            return Words(["\u2581" + w for w in words], [tok.model.match(w) for w in words])
        return Words([segment], [ids])

    def run_model(self, words: list[str]) -> list[int] | None:
        """This side's model on words spelled as its vocabulary spells them (``None``: it cannot take them)."""
        tok, v = self.tok, self.vocab
        out: list[int] = []
        for w in words:
            if v.type == "bpe" and tok.pre is not None:
                out += tok.model.word_ids(w)
            elif v.type == "spm":
                out += tok.model.encode(w.encode("utf-8", "surrogatepass"))
            elif v.type == "ugm":
                out += tok.model._viterbi(w.encode("utf-8", "surrogatepass"))[0]
            elif v.type == "wpm":
                out += tok.model.match(w.removeprefix("\u2581"))
            else:
                return None
        return out

    def unk_id(self) -> int | None:
        unk = self.vocab.special.get("unk", -1)
        return unk if unk >= 0 else None


class HFSide:
    """The stages of a Hugging Face ``tokenizers`` pipeline (and of a transformers tokenizer over one)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.hf = engine.backend
        self.name = "the other engine"
        self.added = self.hf.get_added_tokens_decoder()
        self._config: dict | None = None

    @property
    def config(self) -> dict:
        """The pipeline as ``tokenizer.json`` has it, but for the model's vocabulary and merges: each component's
        own JSON (the whole file's JSON is 5 MB for Qwen2), the model's type and flags."""
        if self._config is None:
            hf = self.hf
            cfg: dict[str, Any] = {}
            for name in ("normalizer", "pre_tokenizer", "post_processor", "decoder"):
                part = getattr(hf, name)
                cfg[name] = None if part is None else json.loads(part.__getstate__())
            model = hf.model
            cfg["model"] = {"type": type(model).__name__}
            for flag in ("ignore_merges", "byte_fallback", "unk_token", "continuing_subword_prefix"):
                if hasattr(model, flag):
                    cfg["model"][flag] = getattr(model, flag)
            self._config = cfg
        return self._config

    def encode(self, text: str, add_special: bool, parse_special: bool) -> list[int]:
        return self.engine.encode(text, add_special, parse_special)

    def token_text(self, tid: int) -> str:
        t = self.hf.id_to_token(tid)
        return f"<id {tid}>" if t is None else t

    def partition(self, text: str, parse_special: bool) -> Partition:
        enc = hf_encode(self.hf, text, False, parse_special)
        out = Partition()
        seg_ids: list[int] = []
        seg_start = 0
        for tid, (s, e) in zip(enc.ids, enc.offsets, strict=False):
            added = self.added.get(tid)
            content = added.content if added is not None and (parse_special or not added.special) else ""
            # an added token cut out of the text has its text there (its span may hold stripped spaces); one the
            # model made from plain text (an unknown character as id 2, say) has not
            start = text.find(content, s, max(e, s + len(content))) if content else -1
            if start >= 0 and not text[s:start].strip():
                end = start + len(content)
                out.segments.append(Segment(seg_start, start, text[seg_start:start], seg_ids))
                out.specials.append(Special(tid, content, start, end))
                seg_ids, seg_start = [], end
            else:
                seg_ids.append(tid)
        out.segments.append(Segment(seg_start, len(text), text[seg_start:], seg_ids))
        return out

    def alone(self, segment: str, parse_special: bool) -> list[int]:
        return hf_encode(self.hf, segment, False, parse_special).ids

    def model_input(self, segment: str, parse_special: bool) -> Words:
        from tokenizers import PreTokenizedString

        hf = self.hf
        pts = PreTokenizedString(segment)
        if hf.normalizer is not None:
            pts.normalize(hf.normalizer.normalize)
        if hf.pre_tokenizer is not None:
            hf.pre_tokenizer.pre_tokenize(pts)
        words = [w for w, _, _ in pts.get_splits(offset_referential="original", offset_type="char")]
        words = [w for w in words if w]
        return Words(words, [[t.id for t in hf.model.tokenize(w)] for w in words])

    def run_model(self, words: list[str]) -> list[int] | None:
        out: list[int] = []
        for w in words:
            out += [t.id for t in self.hf.model.tokenize(w)]
        return out

    def unk_id(self) -> int | None:
        """The model's unknown id (a Unigram model keeps it in its state, read from the first bytes only)."""
        if not hasattr(self, "_unk"):
            unk = getattr(self.hf.model, "unk_token", None)
            if isinstance(unk, str):
                self._unk = self.hf.token_to_id(unk)
            else:  # its state is the whole vocabulary: read once
                m = re.search(rb'"unk_id":(\d+)', self.hf.model.__getstate__()[:200])
                self._unk = int(m.group(1)) if m else None
        return self._unk

    def merge_ranks(self) -> dict[str, int] | None:
        """The other BPE model's merges as gguftok's rank table (``None`` for another model)."""
        if not hasattr(self, "_ranks"):
            from ..models.bpe import rank_table

            model = json.loads(self.hf.model.__getstate__()) if self.config["model"]["type"] == "BPE" else {}
            merges = model.get("merges")
            self._ranks = None if merges is None else rank_table(
                [m if isinstance(m, str) else " ".join(m) for m in merges])
        return self._ranks
