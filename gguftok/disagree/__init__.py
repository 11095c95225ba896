"""Why two engines disagree: run both pipelines stage by stage and name the stage where they part.

>>> from gguftok import Tokenizer
>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> d = explain(tok, "Hello world", tok.encode("Hello world", add_special=False) + [0])
>>> d.stage, d.narrowed
('bos-eos', True)
>>> explain(tok, "Hello world", tok).stage is None
True

``explain(tok, text, other)`` encodes ``text`` with ``tok`` (llama.cpp's rules) and with ``other``, and if the
ids differ, *proves* where: it runs each side's stages and swaps what one stage gave between the sides. The
other engine's model on llama.cpp's words gives llama.cpp's ids: then the words differ, not the model. The
ids without what post-processing added agree: then only BOS/EOS differ. Each side of a special token, encoded
alone, agrees: then the special's context differs, not the text. With only ids to go on, it narrows the stage
down as far as ids allow, and says so (``narrowed``).

``other`` is a ``tokenizers.Tokenizer``, a transformers tokenizer, the path of a ``tokenizer.json``, another
gguftok :class:`~gguftok.tokenizer.Tokenizer` (two GGUF files of one model: then ``keys`` names the metadata
keys behind the difference), or a list of ids. The flags map one to one: ``add_special`` is
``add_special_tokens``, ``parse_special`` is ``not split_special_tokens``, ``remove_special`` is
``skip_special_tokens``. :func:`transformers_tokenizer` builds transformers' own conversion of a GGUF file
(what ``gguf_file=`` gives), without PyTorch.

The stages, in pipeline order (:data:`STAGES`): ``flags`` (the other ids are these under other flags),
``special-match`` (special/added tokens cut out differently), ``special-context`` (the same specials, the text
beside one treated differently), ``normalizer`` (the characters the model sees), ``pre-tokenizer`` (the same
characters, other words), ``model`` (the same words, other tokens), ``bos-eos`` (what is added around the
ids), ``decoding`` (ids back to text).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ..bytemap import text_to_bytes
from ..conformance.cases import first_difference
from ..tokenizer import text_bytes
from .engines import Engine, OtherEngineError, as_engine, transformers_tokenizer
from .rules import describe_other, ours_rule
from .sides import GgufSide, HFSide, Partition, Words, strip_added

__all__ = ["ONE_CASE_PER_STAGE", "STAGES", "Disagreement", "OtherEngineError", "explain", "explain_decode",
           "transformers_tokenizer", "word_stages"]

STAGES = ("flags", "special-match", "special-context", "normalizer", "pre-tokenizer", "model", "bos-eos",
          "decoding")

# (vocabulary, text, flags): a text on which transformers' own conversion of the file parts from llama.cpp at
# each stage in turn (special-match, special-context, normalizer, pre-tokenizer, model, bos-eos)
ONE_CASE_PER_STAGE = (("qwen2", "Hello </s> world", {"parse_special": True}),
                      ("llama-spm", "a <s>b", {"add_special": False, "parse_special": True}),
                      ("llama-spm", "  42", {"add_special": False}),
                      ("deepseek-coder", "  42", {"add_special": False}),
                      ("llama-bpe", "Cửa Việt", {"add_special": False}),
                      ("deepseek-coder", "Hello", {}))

# the metadata keys that can lie behind each stage (two GGUF files of one model)
STAGE_KEYS = {
    "special-match": ("tokenizer.ggml.token_type", "tokenizer.ggml.tokens"),
    "special-context": ("tokenizer.ggml.token_type", "tokenizer.ggml.add_space_prefix", "tokenizer.ggml.pre"),
    "normalizer": ("tokenizer.ggml.add_space_prefix", "tokenizer.ggml.remove_extra_whitespaces",
                   "tokenizer.ggml.precompiled_charsmap", "tokenizer.ggml.model", "tokenizer.ggml.normalizer"),
    "pre-tokenizer": ("tokenizer.ggml.pre",),
    "model": ("tokenizer.ggml.merges", "tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.pre",
              "tokenizer.ggml.unknown_token_id", "tokenizer.ggml.model"),
    "bos-eos": ("tokenizer.ggml.add_bos_token", "tokenizer.ggml.add_eos_token", "tokenizer.ggml.bos_token_id",
                "tokenizer.ggml.eos_token_id", "tokenizer.ggml.add_sep_token", "tokenizer.ggml.pre",
                "tokenizer.ggml.model"),
    "decoding": ("tokenizer.ggml.token_type", "tokenizer.ggml.pre", "tokenizer.ggml.tokens",
                 "tokenizer.ggml.add_space_prefix"),
}


@dataclass
class Disagreement:
    """Where two tokenizers part on one input. ``stage`` is ``None`` when they agree."""

    kind: str  # "encode" or "decode"
    stage: str | None
    stages: list[str]
    position: int | None  # the first differing id (encode), or the id at which the texts part (decode)
    evidence: dict[str, Any]
    explanation: str
    ours: Any  # llama.cpp's ids (encode) or text (decode)
    theirs: Any
    other: str = "the other engine"
    narrowed: bool = False  # from ids only: the stage is as far as ids can tell
    keys: list[str] = field(default_factory=list)  # two GGUF files: the metadata keys behind the stage

    @property
    def agree(self) -> bool:
        return self.stage is None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (the CLI's ``--json``)."""
        return {"kind": self.kind, "stage": self.stage, "stages": self.stages, "position": self.position,
                "explanation": self.explanation, "evidence": self.evidence, "ours": self.ours,
                "theirs": self.theirs, "other": self.other, "narrowed": self.narrowed, "keys": self.keys}

    def __str__(self) -> str:
        if self.stage is None:
            return f"agree: llama.cpp and {self.other} give the same {'ids' if self.kind == 'encode' else 'text'}"
        lines = [f"stage: {self.stage}" + (" (narrowed from ids alone)" if self.narrowed else ""),
                 f"first difference at {'id' if self.kind == 'encode' else 'token'} {self.position}",
                 self.explanation]
        if len(self.stages) > 1:
            lines.append("stages that differ: " + ", ".join(self.stages))
        if self.keys:
            lines.append("metadata keys: " + ", ".join(self.keys))
        return "\n".join(lines)


def _agree(kind: str, ours: Any, theirs: Any, other: str) -> Disagreement:
    return Disagreement(kind, None, [], None, {}, f"llama.cpp and {other} agree", ours, theirs, other)


def _text(text: Any) -> str:
    if isinstance(text, str):
        return text
    if isinstance(text, (bytes, bytearray, memoryview)):
        try:
            return bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:  # as a str its bytes would come back otherwise (a surrogate is 3 bytes)
            raise OtherEngineError(f"explain reads text as valid UTF-8; these bytes are not, at byte {e.start}"
                                   ) from None
    raise TypeError(f"text must be str or bytes, not {type(text).__name__}")


# ----------------------------------------------------------------------------------------------- encode
def explain(tok: Any, text: str, other: Any, *, add_special: bool = True, parse_special: bool = False
            ) -> Disagreement:
    """Why ``other`` encodes ``text`` otherwise than ``tok`` (llama.cpp), under the same flags.

    ``add_special`` is transformers' ``add_special_tokens``; ``parse_special`` is ``not split_special_tokens``
    (``tokenizers``: ``not encode_special_tokens``). ``other`` may be a ``tokenizers.Tokenizer``, a transformers
    tokenizer, a ``tokenizer.json`` path, a gguftok Tokenizer, or the ids another engine gave.
    """
    text = _text(text)
    engine = as_engine(other)
    ours_side = GgufSide(tok)
    ours = ours_side.encode(text, add_special, parse_special)
    if engine.kind == "ids":
        return _explain_ids(ours_side, text, engine.ids, add_special, parse_special)
    if engine.kind in ("tokenizers", "transformers"):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as e:
            raise OtherEngineError(f"the other engine reads valid UTF-8 only; the text has {text[e.start]!r} "
                                   f"(not a character) at character {e.start}") from None
    theirs = engine.encode(text, add_special, parse_special)
    if ours == theirs:
        return _agree("encode", ours, theirs, engine.name)
    side = GgufSide(engine.gguf) if engine.kind == "gguf" else _hf_side(engine)
    if engine.kind == "gguf":
        side.name = engine.name
    found: dict[str, dict[str, Any]] = {}
    sentences: dict[str, str] = {}

    # what post-processing added: BOS, EOS, CLS/SEP
    ours_core = ours_side.encode(text, False, parse_special)
    theirs_core = side.encode(text, False, parse_special)
    ours_added, theirs_added = strip_added(ours, ours_core), strip_added(theirs, theirs_core)
    if ours_added != theirs_added:
        found["bos-eos"], sentences["bos-eos"] = _bos_eos(ours_side, side, ours_added, theirs_added)
    if ours_core != theirs_core:
        _explain_core(ours_side, side, text, parse_special, found, sentences)
        if not found.keys() - {"bos-eos"}:  # no stage of the pipeline differs alone: the whole text does
            found["model"] = {"ours": ours_core, "theirs": theirs_core}
            sentences["model"] = ("the ids without BOS/EOS differ, though each stage run alone agrees; "
                                  "the difference is in how the other engine joins its stages")
    stages = [s for s in STAGES if s in found]
    d = Disagreement("encode", stages[0], stages, first_difference(ours, theirs),
                     {s: found[s] for s in stages}, sentences[stages[0]], ours, theirs, engine.name)
    if engine.kind == "gguf":
        _name_keys(d, tok, engine.gguf)
    return d


_SIDES: OrderedDict[int, tuple[Any, HFSide]] = OrderedDict()  # the last few pipelines read, by backend


def _hf_side(engine: Engine) -> HFSide:
    """The other engine's stages, read once per pipeline (its components' JSON, its merges when needed)."""
    backend = engine.backend
    if backend is None:
        raise OtherEngineError(f"{engine.name} has no tokenizers pipeline to run stage by stage")
    hit = _SIDES.get(id(backend))
    if hit is not None and hit[0] is backend:
        _SIDES.move_to_end(id(backend))
        hit[1].engine = engine
        return hit[1]
    side = HFSide(engine)
    _SIDES[id(backend)] = (backend, side)  # the backend kept with it, so its id is not reused meanwhile
    if len(_SIDES) > 8:
        _SIDES.popitem(last=False)
    return side


def _explain_core(ours_side: GgufSide, side: Any, text: str, parse_special: bool,
                  found: dict[str, dict[str, Any]], sentences: dict[str, str]) -> None:
    """The stages of the pipeline proper (specials, normalizer, pre-tokenizer, model) on the text."""
    po, pt = ours_side.partition(text, parse_special), side.partition(text, parse_special)
    keys_o = [(s.id, s.start) for s in po.specials]
    keys_t = [(s.id, s.start) for s in pt.specials]
    if keys_o != keys_t:
        found["special-match"], sentences["special-match"] = _special_match(ours_side, side, po, pt,
                                                                            parse_special)
        return
    for i, (so, st) in enumerate(zip(po.segments, pt.segments, strict=False)):
        if so.ids == st.ids:
            continue
        ao, at_ = ours_side.alone(so.text, parse_special), side.alone(so.text, parse_special)
        if ao == at_:
            if "special-context" not in found:
                found["special-context"], sentences["special-context"] = _special_context(
                    ours_side, side, po, pt, i, ao, parse_special)
            continue
        _drill(ours_side, side, so.text, parse_special, found, sentences)


def word_stages(ours_words: list[str], theirs_words: list[str], theirs_on_ours: list[int] | None,
                ours_ids: list[int], theirs_ids: list[int] | None = None) -> list[str]:
    """Which stages before or at the model make one text's ids differ, proved by swapping words between models.

    ``ours_words`` and ``theirs_words`` are the two model inputs of one text, spelled alike; ``theirs_on_ours``
    is the other model's ids for ``ours_words`` (``None``: it cannot run them); ``ours_ids`` and ``theirs_ids``
    are what each side gave its own words. A difference before the model counts only if it changes the other
    model's answer (``theirs_on_ours != theirs_ids``): other characters are ``"normalizer"``, the same
    characters cut elsewhere ``"pre-tokenizer"``. The model counts if, on the same words, it answers otherwise
    (``theirs_on_ours != ours_ids``): ``"model"``. Without ``theirs_ids``, any difference before the model counts.

    >>> word_stages([" ", " 42"], ["  ", "42"], [1, 2], [1, 2], [3, 4])
    ['pre-tokenizer']
    >>> word_stages(["▁▁42"], ["▁42"], [7], [7], [8])
    ['normalizer']
    >>> word_stages([" Việt"], [" Việt"], [5, 6], [9], [5, 6])
    ['model']
    >>> word_stages(["▁a▁b"], ["▁a", "▁b"], [1, 2], [3], [1, 2])  # the other split changes nothing here
    ['model']
    """
    out = []
    matters = theirs_ids is None or theirs_on_ours is None or theirs_on_ours != theirs_ids
    if "".join(ours_words) != "".join(theirs_words):
        if matters:
            out.append("normalizer")
    elif list(map(len, ours_words)) != list(map(len, theirs_words)) and matters:
        out.append("pre-tokenizer")
    if theirs_on_ours is not None and theirs_on_ours != ours_ids:
        out.append("model")
    return out


def _drill(ours_side: GgufSide, side: Any, segment: str, parse_special: bool,
           found: dict[str, dict[str, Any]], sentences: dict[str, str]) -> None:
    """Normalizer, pre-tokenizer or model, on a segment whose ids differ even alone: proved by handing one
    side's words to the other side's model (:func:`word_stages`)."""
    wo, wt = ours_side.model_input(segment, parse_special), side.model_input(segment, parse_special)
    to_theirs = _spelling(ours_side, side)
    ours_words = [to_theirs(w) for w in wo.words]
    theirs_on_ours = side.run_model(ours_words)
    proved = theirs_on_ours == wo.flat  # the other model, on llama.cpp's words, gives llama.cpp's ids
    for stage in word_stages(ours_words, wt.words, theirs_on_ours, wo.flat, wt.flat):
        if stage in found:
            continue
        if stage == "normalizer":
            found[stage], sentences[stage] = _normalizer(ours_side, side, segment, "".join(ours_words),
                                                         "".join(wt.words), proved)
        elif stage == "pre-tokenizer":
            found[stage], sentences[stage] = _pre_tokenizer(ours_side, side, segment, wo, wt, ours_words, proved)
        else:
            found[stage], sentences[stage] = _model(ours_side, side, wo, ours_words, to_theirs)


def _spelling(ours_side: GgufSide, side: Any):
    """How a word of llama.cpp's model input is spelled for the other model (WordPiece: llama.cpp writes ``▁``
    before each word, Hugging Face's WordPiece takes the bare word)."""
    if isinstance(side, HFSide) and side.config["model"]["type"] == "WordPiece" and ours_side.vocab.type == "wpm":
        return lambda w: w.removeprefix("\u2581")
    return lambda w: w


def _shown(side: Any, word: str) -> str:
    """A spelled word as text (byte-level ``Ġcat`` is `` cat``), for people."""
    model = getattr(getattr(side, "tok", None), "model", None)
    if model is not None and hasattr(model, "unspell"):
        text = model.unspell(word)
        if text is not None:
            return text
    try:
        return text_to_bytes(word).decode("utf-8")
    except (KeyError, UnicodeDecodeError):
        return word


def _window(ours_words: list[str], theirs_words: list[str]) -> tuple[list[str], list[str]]:
    """The words of each split between the last cut both make before they first part and the next cut both make
    after it (the two splits cover one string)."""
    def cuts(words):
        out, pos = [], 0
        for w in words:
            out.append((pos, pos + len(w)))
            pos += len(w)
        return out

    so, st = cuts(ours_words), cuts(theirs_words)
    bo, bt = {e for _, e in so}, {e for _, e in st}
    parted = min(bo ^ bt, default=0)
    common = sorted(bo & bt | {0})
    a = max((c for c in common if c < parted), default=0)
    b = min((c for c in common if c > parted), default=max(bo | bt | {0}))
    return ([w for w, (x, y) in zip(ours_words, so, strict=True) if a <= x and y <= b],
            [w for w, (x, y) in zip(theirs_words, st, strict=True) if a <= x and y <= b])


def _pre_tokenizer(ours_side, side, segment, wo: Words, wt: Words, ours_words, proved: bool):
    wo_part, wt_part = _window(ours_words, wt.words)
    o = [_shown(ours_side, w) for w in wo_part]
    t = [_shown(ours_side, w) for w in wt_part]
    rule_o, rule_t = ours_rule(ours_side, "pre-tokenizer"), describe_other(side, "pre-tokenizer")
    sentence = (f"{rule_o} cuts {''.join(o)!r} into {o} where {rule_t} makes {t}"
                + ("; the other engine's model on llama.cpp's words gives llama.cpp's ids, so the split is the"
                   " difference" if proved else "; the models differ too"))
    return {"segment": segment, "ours_words": o, "theirs_words": t, "proved": proved}, sentence


def _normalizer(ours_side, side, segment, joined_o, joined_t, proved: bool):
    i = first_difference(joined_o, joined_t) or 0
    rule_o, rule_t = ours_rule(ours_side, "normalizer"), describe_other(side, "normalizer")
    o, t = joined_o[max(0, i - 8):i + 12], joined_t[max(0, i - 8):i + 12]
    sentence = (f"the model sees {o!r} from {rule_o} and {t!r} from {rule_t}"
                + ("; the other engine's model on llama.cpp's text gives llama.cpp's ids" if proved else ""))
    return {"segment": segment, "char": i, "ours": joined_o, "theirs": joined_t, "proved": proved}, sentence


def _model(ours_side, side, wo: Words, ours_words, to_theirs):
    per_word = [side.run_model([w]) for w in ours_words]
    i = next((k for k, (a, b) in enumerate(zip(wo.ids, per_word, strict=False)) if a != b), 0)
    word = ours_words[i] if ours_words else ""
    ids_o, ids_t = wo.ids[i] if wo.ids else [], per_word[i] if per_word else []
    ev: dict[str, Any] = {"word": _shown(ours_side, word), "ours": ids_o, "theirs": ids_t,
                          "ours_tokens": [ours_side.token_text(t) for t in ids_o],
                          "theirs_tokens": [side.token_text(t) for t in ids_t],
                          "ours_text": [_shown(ours_side, ours_side.token_text(t)) for t in ids_o],
                          "theirs_text": [_shown(ours_side, side.token_text(t)) for t in ids_t]}
    v = ours_side.vocab
    unk_o, unk_t = ours_side.unk_id(), side.unk_id()
    if v.type == "bpe" and v.ignore_merges and len(ids_o) == 1 and len(ids_t) > 1:
        sentence = (f"llama.cpp's `{_pre(ours_side)}` vocabulary ignores merges for a word that is a token: "
                    f"{ev['word']!r} is token {ids_o[0]} whole; {describe_other(side, 'model')} merges it pair by "
                    f"pair into {ev['theirs_text']}")
        ev["rule"] = "ignore_merges"
    elif (unk_t is not None and unk_t in ids_t) or (unk_o is not None and unk_o in ids_o):
        ev["unknown"] = {"ours": unk_o, "theirs": unk_t}
        ev["rule"] = "unknown"
        k = first_difference(ids_o, ids_t) or 0
        a = ids_o[k] if k < len(ids_o) else None
        b = ids_t[k] if k < len(ids_t) else None
        sentence = (f"in {ev['word']!r}, where llama.cpp's {ours_rule(ours_side, 'model')} gives "
                    f"{a} ({ours_side.token_text(a) if a is not None else 'nothing'!r}) the other engine gives "
                    f"{b} ({side.token_text(b) if b is not None else 'nothing'!r}): a piece the vocabulary lacks is "
                    f"the unknown id, {unk_o} for llama.cpp and {unk_t} for the other engine's model")
    else:
        step = _merge_parting(ours_side, side, word, to_theirs)
        if step is not None:
            ev["merge"] = step
        sentence = (f"the same word {ev['word']!r} becomes {ev['ours_text']} in llama.cpp's "
                    f"{ours_rule(ours_side, 'model')} and {ev['theirs_text']} in {describe_other(side, 'model')}"
                    + (f"; the merges part at step {step['step']}: llama.cpp merges {step['ours']!r}, the other "
                       f"{step['theirs']!r}" if step else ""))
    return ev, sentence


def _merge_parting(ours_side, side, word: str, to_theirs) -> dict[str, Any] | None:
    """The first merge at which the two BPE merge sequences of ``word`` part (both sides BPE with merges)."""
    from ..models.bpe import merge_word

    ranks_t = side.merge_ranks() if hasattr(side, "merge_ranks") else None
    tok = getattr(ours_side, "tok", None)
    if ranks_t is None or tok is None or ours_side.vocab.type != "bpe" or len(word) > 256:
        return None
    steps_o: list = []
    steps_t: list = []
    merge_word(word, tok.model.ranks, steps_o)
    merge_word(to_theirs(word), ranks_t, steps_t)
    done_o = [s.pair for s in steps_o if s.merged]
    done_t = [s.pair for s in steps_t if s.merged]
    k = first_difference(done_o, done_t)
    if k is None:
        return None
    return {"step": k + 1, "ours": done_o[k] if k < len(done_o) else None,
            "theirs": done_t[k] if k < len(done_t) else None}


def _special_match(ours_side, side, po: Partition, pt: Partition, parse_special: bool):
    ko = [(s.start, s.id, s.text) for s in po.specials]
    kt = [(s.start, s.id, s.text) for s in pt.specials]
    i = first_difference(ko, kt) or 0
    a = ko[i] if i < len(ko) else None
    b = kt[i] if i < len(kt) else None
    first = min((x for x in (a, b) if x is not None), key=lambda x: x[0])
    at, piece = first[0], first[2]
    ours_here = next((x for x in ko if x[0] == at), None)
    theirs_here = next((x for x in kt if x[0] == at), None)
    say_o = ours_rule(ours_side, "special-match", piece=piece, found=ours_here, parse_special=parse_special)
    say_t = describe_other(side, "special-match", piece=piece, found=theirs_here, parse_special=parse_special)
    ev = {"at": at, "piece": piece, "ours": [list(x) for x in ko], "theirs": [list(x) for x in kt]}
    return ev, f"at character {at}, {say_o}; {say_t}"


def _special_context(ours_side, side, po: Partition, pt: Partition, i: int, alone: list[int],
                     parse_special: bool):
    so, st = po.segments[i], pt.segments[i]
    before = po.specials[i - 1] if i > 0 else None
    after = po.specials[i] if i < len(po.specials) else None
    near = before or after
    ev = {"segment": i, "ours_text": so.text, "theirs_text": st.text, "ours": so.ids, "theirs": st.ids,
          "alone": alone, "special": near.text if near else None}
    name = f"`{near.text}`" if near else "a special token"
    if so.text != st.text:
        sentence = (f"beside {name}, llama.cpp encodes {so.text!r} and the other engine {st.text!r}: "
                    f"{ours_rule(ours_side, 'special-context', strip=True, piece=near.text if near else '')}; "
                    f"{describe_other(side, 'special-context', strip=True, piece=near.text if near else '')}")
        ev["rule"] = "strip"
    else:
        sentence = (f"{so.text!r} alone gives the same ids on both sides, but "
                    f"{'after' if before else 'before'} {name} llama.cpp gives {so.ids} and the other engine "
                    f"{st.ids}: {ours_rule(ours_side, 'special-context')}; "
                    f"{describe_other(side, 'special-context')}")
        ev["rule"] = "context"
    return ev, sentence


def _pre(side: GgufSide) -> str:
    return side.vocab.md.get("tokenizer.ggml.pre", "default")


def _bos_eos(ours_side, side, ours_added, theirs_added):
    def named(part, s):
        return [[t, s.token_text(t)] for t in part]

    ev: dict[str, Any] = {}
    if ours_added is not None:
        ev["ours"] = {"before": named(ours_added[0], ours_side), "after": named(ours_added[1], ours_side)}
    if theirs_added is not None:
        ev["theirs"] = {"before": named(theirs_added[0], side), "after": named(theirs_added[1], side)}
    return ev, f"{ours_rule(ours_side, 'bos-eos', added=ours_added)}; " \
               f"{describe_other(side, 'bos-eos', added=theirs_added, n_vocab=ours_side.vocab.n_vocab)}"


# ------------------------------------------------------------------------------------------- ids only
_FLAG_COMBOS = [(a, p) for a in (True, False) for p in (False, True)]


def _explain_ids(ours_side: GgufSide, text: str, ids: list[int], add_special: bool, parse_special: bool
                 ) -> Disagreement:
    tok = ours_side.tok
    ours = ours_side.encode(text, add_special, parse_special)
    name = "the ids given"
    if ours == ids:
        return _agree("encode", ours, ids, name)
    pos = first_difference(ours, ids)

    def done(stage: str, ev: dict[str, Any], sentence: str) -> Disagreement:
        return Disagreement("encode", stage, [stage], pos, {stage: ev},
                            sentence + " (From ids alone this is a narrowing: the other engine's stages cannot be "
                            "run.)", ours, ids, name, narrowed=True)

    for a, p in _FLAG_COMBOS:
        if (a, p) != (add_special, parse_special) and ours_side.encode(text, a, p) == ids:
            return done("flags", {"add_special": a, "parse_special": p},
                        f"the ids are llama.cpp's with add_special={a}, parse_special={p} (asked: "
                        f"add_special={add_special}, parse_special={parse_special}): the other engine was called "
                        f"with other flags (add_special_tokens={a}, split_special_tokens={not p})")
    core = ours_side.encode(text, False, parse_special)
    split = strip_added(ids, core)
    if split is not None:
        ours_added = strip_added(ours, core)
        return done("bos-eos", {"theirs": {"before": split[0], "after": split[1]},
                                "ours": {"before": ours_added[0], "after": ours_added[1]} if ours_added else None},
                    f"without what each adds around them the ids agree: llama.cpp adds "
                    f"{_added_words(tok, ours_added)}, the other ids {_added_words(tok, split)}")
    n = tok.n_vocab
    if any(not 0 <= i < n for i in ids):
        bad = next(i for i in ids if not 0 <= i < n)
        return done("model", {"id": bad, "n_vocab": n},
                    f"id {bad} is past the end of this vocabulary ({n} tokens): the ids come from another "
                    "vocabulary, or the other engine added tokens of its own")
    # the specials in the text: llama.cpp's with or without those it adds at the ends
    specials = tok.vocab.special_cache
    so = [i for i in ours if i in specials]
    st = [i for i in ids if i in specials]
    if st not in (so, [i for i in core if i in specials]):
        return done("special-match", {"ours": so, "theirs": st},
                    f"the special tokens differ: llama.cpp has {[tok.token_text(i) for i in so]}, the other "
                    f"ids {[tok.token_text(i) for i in st]}")
    mine = tok.decode_bytes(core, unparse_special=True)
    theirs_bytes = tok.decode_bytes(ids, unparse_special=True)
    if theirs_bytes.removeprefix(b" ") != mine.removeprefix(b" ") and mine not in theirs_bytes:
        return done("normalizer", {"ours": mine.decode("utf-8", "replace"),
                                   "theirs": theirs_bytes.decode("utf-8", "replace")},
                    "read as this vocabulary's tokens, the other ids spell another text: the other engine changed "
                    "characters before its model (or the ids are of another vocabulary)")
    # token boundaries against llama.cpp's word boundaries
    cuts = _word_cuts(ours_side, text, parse_special)
    if cuts is not None:
        crossing = _crossings(tok, ids, cuts, text_bytes(text))
        if crossing is not None:
            return done("pre-tokenizer", {"token": list(crossing), "word_ends": sorted(cuts)[:50]},
                        f"token {crossing[0]} ({tok.token_text(crossing[0])!r}) spans a place where llama.cpp's "
                        f"`{_pre(ours_side)}` pre-tokenizer ends a word: the other engine split the text otherwise")
    return done("model", {}, "the other ids keep within llama.cpp's words but cut them into other tokens: the "
                             "merges (or the pieces) differ")


def _added_words(tok: Any, added: tuple[list[int], list[int]] | None) -> str:
    """``before`` and ``after`` ids in words: "128000 '<|begin_of_text|>' before", "nothing"."""
    if not added or not (added[0] or added[1]):
        return "nothing"
    def name(t: int) -> str:
        return f"{t} {tok.token_text(t)!r}" if 0 <= t < tok.n_vocab else f"{t} (past the vocabulary)"

    parts = [f"{', '.join(map(name, ids))} {where}" for ids, where in zip(added, ("before", "after"), strict=True)
             if ids]
    return " and ".join(parts)


def _word_cuts(ours_side: GgufSide, text: str, parse_special: bool) -> set[int] | None:
    """Byte offsets where llama.cpp's words end (its BPE pre-tokenizer), or None for other models."""
    tok = ours_side.tok
    if tok.pre is None:
        return None
    cuts: set[int] = set()
    data = text_bytes(text)
    for frag in tok.fragments(data, parse_special):
        if isinstance(frag, int):
            continue
        off, ln = frag
        pos = off
        seg = data[off:off + ln].decode("utf-8", "surrogatepass")
        for w in tok.pre.split(seg):
            pos += len(w.encode("utf-8", "surrogatepass"))
            cuts.add(pos)
        cuts.add(off)
    return cuts


def _crossings(tok: Any, ids: list[int], cuts: set[int], data: bytes) -> tuple[int, int] | None:
    """The first token (id, byte offset) whose bytes run across one of ``cuts``; a special token that is not
    in the text here (an added BOS) takes no bytes."""
    pos = 0
    specials = tok.vocab.special_cache
    for i in ids:
        piece = tok.token_to_piece(i, special=True)
        if i in specials and data[pos:pos + len(piece)] != piece:
            continue
        end = pos + len(piece)
        if any(c in cuts for c in range(pos + 1, end)):
            return i, pos
        pos = end
    return None


# ----------------------------------------------------------------------------------------------- decode
def explain_decode(tok: Any, ids: list[int], other: Any, *, remove_special: bool = False,
                   unparse_special: bool = True) -> Disagreement:
    """Why ``other`` decodes ``ids`` to another text than ``tok`` (llama.cpp's ``llama_detokenize``).

    ``remove_special`` is transformers' ``skip_special_tokens``; the other engine always writes special tokens
    it keeps as their text, as llama.cpp does with ``unparse_special=True``. ``other`` as for :func:`explain`,
    except a list of ids.
    """
    engine = as_engine(other)
    if engine.kind == "ids":
        raise OtherEngineError("explain_decode needs an engine that decodes, not a list of ids")
    ids = [int(i) for i in ids]
    ours = tok.decode(ids, remove_special=remove_special, unparse_special=unparse_special)
    theirs = engine.decode(ids, remove_special)
    if ours == theirs:
        return _agree("decode", ours, theirs, engine.name)
    # the token at which the texts part: the shortest prefix whose decodings differ
    lo, hi = 0, len(ids)
    while lo < hi:
        mid = (lo + hi) // 2
        a = tok.decode(ids[:mid + 1], remove_special=remove_special, unparse_special=unparse_special)
        b = engine.decode(ids[:mid + 1], remove_special)
        if a == b:
            lo = mid + 1
        else:
            hi = mid
    pos = min(lo, len(ids) - 1) if ids else None
    k = first_difference(list(ours), list(theirs)) or 0
    ev: dict[str, Any] = {"ours": ours[max(0, k - 12):k + 12], "theirs": theirs[max(0, k - 12):k + 12], "char": k}
    side = GgufSide(engine.gguf) if engine.kind == "gguf" else _hf_side(engine)
    sentence = _decode_sentence(GgufSide(tok), side, ours, theirs, k)
    if pos is not None and sentence is None:
        # what each side writes for the token at which the texts part
        def piece(decode):
            before, upto = decode(ids[:pos]), decode(ids[:pos + 1])
            return upto[len(before):] if upto.startswith(before) else upto

        tid = ids[pos]
        po = piece(lambda x: tok.decode(x, remove_special=remove_special, unparse_special=unparse_special))
        pt = piece(lambda x: engine.decode(x, remove_special))
        ev["token"] = {"id": tid, "ours": po, "theirs": pt}
        sentence = (f"token {tid} ({tok.token_text(tid) if 0 <= tid < tok.n_vocab else 'past the vocabulary'!r}) "
                    f"is written {po!r} by llama.cpp ({_why_piece_ours(tok, tid, pos, len(ids), remove_special)}) "
                    f"and {pt!r} by the other engine ({_why_piece_theirs(side, tid, pt, remove_special)})")
    if sentence is None:
        sentence = (f"the texts part at character {k}: llama.cpp writes {ours[k:k + 12]!r}, "
                    f"the other {theirs[k:k + 12]!r}")
    d = Disagreement("decode", "decoding", ["decoding"], pos, {"decoding": ev}, sentence, ours, theirs,
                     engine.name)
    if engine.kind == "gguf":
        _name_keys(d, tok, engine.gguf)
    return d


def _decode_sentence(ours_side: GgufSide, side: Any, ours: str, theirs: str, k: int) -> str | None:
    v = ours_side.vocab
    a, b = ours[k:k + 1], theirs[k:k + 1]
    if (v.clean_spaces and b == " " and theirs[:k] + theirs[k + 1:] == ours[:k] + ours[k + 1:]) \
            or (v.clean_spaces and b == " " and ours[k:].startswith(theirs[k + 1:k + 2])):
        return (f"llama.cpp cleans up spaces when decoding this vocabulary (the `{_pre(ours_side)}` "
                f"pre-tokenizer sets clean_spaces): it drops the space before {theirs[k + 1:k + 2]!r}; "
                f"{describe_other(side, 'decoding')} keeps it")
    if a == " " and k == 0 and theirs == ours[1:]:
        return f"llama.cpp keeps a leading space; {describe_other(side, 'decoding')} drops it"
    if b == " " and k == 0 and ours == theirs[1:]:
        return f"llama.cpp drops the leading space of the first token; {describe_other(side, 'decoding')} keeps it"
    return None


def _why_piece_ours(tok: Any, tid: int, pos: int, n: int, remove_special: bool) -> str:
    v = tok.vocab
    if tid in v.special_cache:
        ends = (pos == 0 and tid == v.special["bos"]) or (pos == n - 1 and tid == v.special["eos"])
        if remove_special and ends:
            return "remove_special drops the BOS/EOS it adds, at the ends"
        if remove_special:
            return "remove_special drops only the BOS/EOS it adds at the ends; this one stays"
        return "a special token, written as its text"
    return "an ordinary token"


def _why_piece_theirs(side: Any, tid: int, piece: str, remove_special: bool) -> str:
    added = getattr(side, "added", {}).get(tid)
    if "\ufffd" in piece:
        return "bytes it cannot read as a character"
    if added is not None and added.special:
        return "skip_special_tokens drops every special token" if remove_special else "a special added token"
    if added is not None:
        return "an added token"
    return "an ordinary token of its vocabulary"


# ------------------------------------------------------------------------------------- two GGUF files
def _key_diffs(a: Any, b: Any) -> dict[str, str]:
    """The ``tokenizer.*`` keys whose values differ between two tokenizers' files, each with a short story."""
    ma, mb = a.vocab.md, b.vocab.md
    out: dict[str, str] = {}
    for key in sorted(set(ma) | set(mb)):
        if not key.startswith("tokenizer.") or key.startswith("tokenizer.chat_template"):
            continue
        va, vb = ma.get(key), mb.get(key)
        if _same(va, vb):
            continue
        if va is None or vb is None:
            here, there = ("absent" if x is None else _short(x) for x in (va, vb))
            out[key] = f"{key} is {here} here, {there} there"
        elif key in ("tokenizer.ggml.token_type", "tokenizer.ggml.tokens", "tokenizer.ggml.scores",
                     "tokenizer.ggml.merges"):
            la, lb = list(va), list(vb)
            diff = [i for i, (x, y) in enumerate(zip(la, lb, strict=False)) if x != y]
            extra = "" if len(la) == len(lb) else f", {len(la)} entries here against {len(lb)}"
            shown = ", ".join(f"{i}: {_short(la[i])} -> {_short(lb[i])}" for i in diff[:3])
            out[key] = f"{key} differs at {len(diff)} entries ({shown}){extra}"
        else:
            out[key] = f"{key} = {_short(va)} here, {_short(vb)} there"
    return out


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    if hasattr(a, "tolist") or hasattr(b, "tolist"):
        a = a.tolist() if hasattr(a, "tolist") else list(a)
        b = b.tolist() if hasattr(b, "tolist") else list(b)
    return a == b


def _short(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def _keys_behind(tok: Any, other: Any, stages: list[str]) -> tuple[list[str], str]:
    """The differing metadata keys that can lie behind ``stages``, and their story in words."""
    diffs = _key_diffs(tok, other)
    wanted = [k for s in stages for k in STAGE_KEYS.get(s, ())]
    keys = [k for k in dict.fromkeys(wanted) if k in diffs]
    return keys, "; ".join(diffs[k] for k in keys)


def _name_keys(d: Disagreement, tok: Any, other: Any) -> None:
    """Two GGUF files: the keys behind ``d``'s stages, named in its explanation too."""
    d.keys, story = _keys_behind(tok, other, d.stages)
    if d.keys:
        d.explanation += f". The metadata behind it: {story}"
