"""The rule each side applies at a stage, in words: what an explanation names.

``ours_rule(side, stage)`` reads llama.cpp's rule from a gguftok tokenizer's vocabulary (its ``pre`` string,
flags, token attributes); ``describe_other(side, stage)`` reads the other engine's from its pipeline
(``tokenizer.json``'s normalizer, pre-tokenizer, post-processor and decoder), or from the other GGUF file.
"""

from __future__ import annotations

from typing import Any

from ..vocab import CONTROL, LSTRIP, RSTRIP, UNKNOWN, USER_DEFINED

# GPT-2's pre-tokenizer regex, as ByteLevel(use_regex=True) applies it
GPT2_REGEX = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"


def _pre(v: Any) -> str:
    return v.md.get("tokenizer.ggml.pre", "default")


def _family(v: Any) -> str:
    return {"bpe": "BPE", "spm": "SentencePiece", "wpm": "WordPiece", "ugm": "Unigram", "rwkv": "RWKV",
            "plamo2": "PLaMo-2"}.get(v.type, v.type)


def _token_kind(attr: int) -> str:
    if attr & CONTROL:
        return "a control token"
    if attr & USER_DEFINED:
        return "a user-defined token"
    if attr & UNKNOWN:
        return "the unknown token"
    return "a normal token"


def ours_rule(side: Any, stage: str, **kw: Any) -> str:
    return gguf_rule(side, stage, "llama.cpp", **kw)


def gguf_rule(side: Any, stage: str, who: str, **kw: Any) -> str:
    """A gguftok side's rule at ``stage`` (``who``: "llama.cpp", or "the other GGUF file")."""
    v = side.vocab
    if stage == "pre-tokenizer":
        if v.type == "bpe":
            return f"{who}'s `{_pre(v)}` pre-tokenizer"
        return f"{who} ({_family(v)}: no pre-tokenizer, the whole text goes to the model)"
    if stage == "normalizer":
        if v.type == "spm":
            prefix = "a space in front of the text and " if v.add_space_prefix else ""
            return f"{who}'s SentencePiece session ({prefix}every space written as ▁)"
        if v.type == "ugm":
            return (f"{who}'s Unigram normalizer (its precompiled character map, spaces as ▁"
                    + (", a space prefix" if v.add_space_prefix else "")
                    + (", runs of spaces merged" if v.remove_extra_whitespaces else "") + ")")
        if v.type == "wpm":
            return f"{who}'s WordPiece preprocessing (lowercase, accents stripped, ▁ before each word)"
        if v.type == "bpe" and v.escape_whitespaces:
            return f"{who} (spaces written as ▁ before the merges)"
        return f"{who} (no normalizer: the text as it is)"
    if stage == "model":
        if v.type == "bpe":
            return f"BPE merges ({len(v.merges):,} ranks" + (", ignore_merges" if v.ignore_merges else "") + ")"
        return f"{_family(v)} model"
    if stage == "special-match":
        piece, found, parse_special = kw.get("piece"), kw.get("found"), kw.get("parse_special")
        tid = v.token_to_id.get(piece) if piece is not None else None
        if found is not None:
            kind = _token_kind(v.attrs[found[1]])
            when = "whatever parse_special says" if not v.attrs[found[1]] & (CONTROL | UNKNOWN) \
                else "since parse_special=True"
            return f"{who} reads {piece!r} as token {found[1]} ({kind}, cut out {when})"
        if tid is None:
            return f"{who} reads {piece!r} as plain text (no token of this vocabulary has that text)"
        kind = _token_kind(v.attrs[tid])
        if v.attrs[tid] & (CONTROL | UNKNOWN) and not parse_special:
            return f"{who} reads {piece!r} as plain text: its token {tid} is {kind}, cut out only with parse_special"
        return f"{who} reads {piece!r} as plain text: its token {tid} is {kind}, never cut out whole"
    if stage == "special-context":
        if kw.get("strip"):
            piece = kw.get("piece") or ""
            tid = v.token_to_id.get(piece)
            attr = v.attrs[tid] if tid is not None else 0
            sides = [n for n, bit in (("left", LSTRIP), ("right", RSTRIP)) if attr & bit]
            if sides:
                return f"{who} strips the spaces on the {' and '.join(sides)} of {piece!r} (its token attributes)"
            return f"{who} keeps the spaces beside {piece!r}"
        if v.type == "spm" and v.add_space_prefix:
            return f"{who}'s SentencePiece puts a space in front of every text that follows a special token"
        return f"{who} encodes the text beside a special token as it would alone"
    if stage == "bos-eos":
        added = kw.get("added")
        key = "tokenizer.ggml.add_bos_token"
        why = (f"{key} = {str(v.md[key]).lower()}" if key in v.md
               else f"no {key} key: {who}'s default for a {_family(v)} vocabulary"
               + (f" with pre `{_pre(v)}`" if v.type == "bpe" else ""))
        if added is None:
            return f"{who} adds tokens it does not take back out"
        before, after = added
        if not before and not after:
            return f"{who} adds nothing ({why})"
        parts = [f"{t} {side.token_text(t)!r}" for t in before + after]
        return f"{who} adds {', '.join(parts)} ({why})"
    if stage == "decoding":
        return f"{who}" + (" (clean_spaces)" if v.clean_spaces else "")
    return who


# ------------------------------------------------------------------------------------- the other engine
def _components(node: Any) -> list[dict]:
    """The components of a normalizer/pre-tokenizer/decoder JSON node, Sequences flattened."""
    if not node:
        return []
    if node.get("type") == "Sequence":
        items = node.get("pretokenizers") or node.get("normalizers") or node.get("decoders") or \
            node.get("processors") or []
        return [c for item in items for c in _components(item)]
    return [node]


def _describe(comp: dict) -> str:
    t = comp.get("type")
    if t == "ByteLevel":
        return "GPT-2's regex (ByteLevel)" if comp.get("use_regex", True) else "ByteLevel (bytes only)"
    if t == "Split":
        pat = comp.get("pattern") or {}
        regex = pat.get("Regex") or pat.get("String") or ""
        if regex == GPT2_REGEX:
            return "GPT-2's regex (Split)"
        return f"a Split regex ({regex[:40]}{'...' if len(regex) > 40 else ''})"
    if t == "Metaspace":
        return (f"Metaspace (prepend_scheme {comp.get('prepend_scheme')!r}, "
                f"split {comp.get('split', True)})")
    if t == "Prepend":
        return f"Prepend {comp.get('prepend')!r}"
    if t == "Replace":
        pat = comp.get("pattern") or {}
        return f"Replace {pat.get('String') or pat.get('Regex')!r} with {comp.get('content')!r}"
    if t == "Precompiled":
        return "a precompiled character map"
    return str(t)


def describe_other(side: Any, stage: str, **kw: Any) -> str:
    """The other side's rule at ``stage``, in words."""
    if hasattr(side, "vocab"):  # another GGUF file
        return gguf_rule(side, stage, "the other GGUF file", **kw)
    cfg = side.config
    if stage == "pre-tokenizer":
        comps = [_describe(c) for c in _components(cfg.get("pre_tokenizer"))]
        return "the other engine, splitting with " + (" then ".join(comps) if comps else "no pre-tokenizer")
    if stage == "normalizer":
        comps = [_describe(c) for c in _components(cfg.get("normalizer"))]
        spaces = [_describe(c) for c in _components(cfg.get("pre_tokenizer")) if c.get("type") == "Metaspace"]
        return "the other engine's " + (" then ".join(comps) if comps else "missing normalizer") + \
            (f" and {spaces[0]}" if spaces else "")
    if stage == "model":
        model = cfg.get("model") or {}
        extra = []
        if model.get("type") == "BPE":
            extra.append("ignore_merges" if model.get("ignore_merges") else "no ignore_merges")
        return f"the other engine's {model.get('type', 'model')} model" + (f" ({', '.join(extra)})" if extra else "")
    if stage == "special-match":
        piece, found, parse_special = kw.get("piece"), kw.get("found"), kw.get("parse_special")
        added = {t.content: (i, t) for i, t in side.added.items()}
        hit = added.get(piece)
        if found is not None:
            t = side.added[found[1]]
            return (f"the other engine reads it as added token {found[1]} (special={t.special}, "
                    f"normalized={t.normalized})")
        if hit is None:
            return "the other engine reads it as plain text (it has no added token with that text)"
        if hit[1].special and not parse_special:
            return (f"the other engine reads it as plain text: its added token {hit[0]} is special, split "
                    "with split_special_tokens")
        return f"the other engine reads it as plain text, though it has an added token {hit[0]} with that text"
    if stage == "special-context":
        if kw.get("strip"):
            piece = kw.get("piece") or ""
            t = next((t for t in side.added.values() if t.content == piece), None)
            sides = [n for n, on in (("left", getattr(t, "lstrip", False)), ("right", getattr(t, "rstrip", False)))
                     if on]
            if sides:
                return f"the other engine strips the {' and '.join(sides)} of it (added token lstrip/rstrip)"
            return "the other engine keeps those spaces (its added token has no lstrip/rstrip)"
        meta = [c for c in _components(cfg.get("pre_tokenizer")) if c.get("type") == "Metaspace"]
        if meta:
            return (f"the other engine's Metaspace (prepend_scheme {meta[0].get('prepend_scheme')!r}) adds the ▁ "
                    "only where its scheme says")
        return "the other engine treats that text otherwise next to the special token"
    if stage == "bos-eos":
        added, n_vocab = kw.get("added"), kw.get("n_vocab")
        post = cfg.get("post_processor") or {}
        how = _post(post)
        if added is None:
            return f"the other engine's post-processor ({how}) adds tokens it does not take back out"
        before, after = added
        if not before and not after:
            return f"the other engine adds nothing (its post-processor: {how})"
        parts = []
        for t in before + after:
            past = f", past the end of the vocabulary ({n_vocab:,} tokens)" if n_vocab and t >= n_vocab else ""
            parts.append(f"{t} {side.token_text(t)!r}{past}")
        return f"the other engine adds {', '.join(parts)} (its post-processor: {how})"
    if stage == "decoding":
        comps = [_describe(c) for c in _components(cfg.get("decoder"))]
        return "the other engine's decoder (" + (" then ".join(comps) if comps else "none") + ")"
    return "the other engine"


def _post(post: dict) -> str:
    comps = _components(post) if post else []
    if not comps:
        return "no post-processor"
    for c in comps:
        if c.get("type") == "TemplateProcessing":
            single = c.get("single") or []
            parts = [x["SpecialToken"]["id"] if "SpecialToken" in x else "$A" for x in single]
            return "template " + " ".join(parts)
    return "post-processor " + "+".join(str(c.get("type")) for c in comps)
