"""A gguftok tokenizer as a Hugging Face ``tokenizers.Tokenizer`` whose ids are exactly llama.cpp's.

:func:`to_tokenizers` builds the pipeline stage by stage from llama.cpp's rules (:func:`plan` shows the stages
and :func:`known_differences` the rules no stage can express, without exporting). By default it refuses, with
one :class:`~gguftok.errors.ExportError` naming every stage and rule, to export a tokenizer it cannot make
exact; ``exact=False`` exports anyway, and ``exact="encode"`` allows differences in decoding only.

>>> from gguftok import Tokenizer
>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> hf = to_tokenizers(tok)
>>> hf.encode("Hello world").ids == tok.encode("Hello world")
True
>>> hf.encode_special_tokens   # parse_special=False, as tok.encode
True
>>> hf.decode(hf.encode("Hello world").ids)
'Hello world'

The flags map one to one. Encoding: ``add_special`` is ``add_special_tokens``; ``parse_special`` is *not*
``encode_special_tokens`` (``hf.encode_special_tokens = True`` leaves special-token texts as text). Decoding
(``tok.decode(ids, remove_special, unparse_special)``):

====================================== ===================================================================
gguftok                                tokenizers
====================================== ===================================================================
``unparse_special=False`` (either      ``hf.decode(ids, skip_special_tokens=True)``: llama.cpp renders
``remove_special``)                    CONTROL and UNKNOWN tokens as nothing, so a leading BOS or
                                       trailing EOS is gone either way
``unparse_special=True``,              ``hf.decode(ids, skip_special_tokens=False)``
``remove_special=False``
``unparse_special=True``,              no single flag: drop a leading BOS (if the vocabulary adds BOS)
``remove_special=True``                and a trailing EOS (if it adds EOS), then ``skip_special_tokens=False``
====================================== ===================================================================

:func:`decode` does exactly that. Inputs: ``tokenizers`` takes ``str`` only, so bytes that are not UTF-8 and
lone surrogates (which ``tok.encode`` accepts) have no counterpart. Pairs of sequences are not llama.cpp's:
the post-processor's ``pair`` template is a plain concatenation.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

from ..errors import ExportError
from ..vocab import CONTROL, UNKNOWN
from .common import Difference, Stages

__all__ = ["Difference", "ExportError", "ExportWarning", "Stages", "build", "decode", "known_differences", "plan",
           "to_tokenizers"]


class ExportWarning(UserWarning):
    """``to_tokenizers(tok, exact=False)`` (or ``"encode"``) exported a pipeline that does not follow every rule
    of llama.cpp's: ``differences`` lists them, each with its stage, rule, example text and the texts it touches."""

    def __init__(self, message: str, differences: list[Difference]) -> None:
        super().__init__(message)
        self.differences = differences

# tokenizer.ggml.model's family (gguftok.vocab.MODEL_TYPES) -> the module that writes its stages
_FAMILIES = {"bpe": "bpe", "spm": "spm", "wpm": "wpm", "ugm": "ugm"}


# why a family has no exact tokenizers model
_NO_MODEL = {
    "rwkv": ": llama.cpp matches the longest token at each byte over the whole text (no words); WordPiece's greedy "
            "match does that only with the whole text as one word, and tries every end of a word (quadratic time)",
    "plamo2": ": llama.cpp's dynamic program costs a piece round(score * 10,000) and an unknown code point "
              "10,000,000, and takes the longer piece on equal cost; Unigram costs an unknown character its lowest "
              "score less 10 and breaks ties in its own order",
}


def _family_stages(tok) -> Stages:
    v = tok.vocab
    name = _FAMILIES.get(v.type)
    if name is None:
        why = _NO_MODEL.get(v.type, "")
        return Stages(model=None, differences=[Difference("model", f"a {v.model!r} ({v.type}) vocabulary has no "
                                                          f"tokenizers model{why}", "", "any text")])
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
        raise ExportError(f"the export of {v.type} vocabularies is not written yet ({v.model!r})") from None
    return module.stages(tok)


def plan(tok) -> Stages:
    """Every stage of the pipeline for ``tok`` (a :class:`gguftok.Tokenizer`), the added tokens and the BOS/EOS
    post-processor included, with the :class:`Difference` list (empty: the export is exact)."""
    from .specials import added_token_differences, added_tokens, post_processor

    stages = _family_stages(tok)
    stages.added_tokens = added_tokens(tok)
    stages.differences = [*stages.differences, *added_token_differences(tok)]
    if stages.post_processor is None:  # a family with its own (BERT's [CLS] ... [SEP]) has set it
        stages.post_processor, diffs = post_processor(tok)
        stages.differences += diffs
    return stages


def known_differences(tok) -> list[Difference]:
    """The rules of llama.cpp's that the exported pipeline would not follow (``[]``: exact), without exporting.

    >>> from gguftok import Tokenizer
    >>> known_differences(Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf"))
    []
    """
    return plan(tok).differences


def _refused(differences: list[Difference], exact: bool | str) -> list[Difference]:
    if exact is False:
        return []
    if exact == "encode":
        return [d for d in differences if d.stage != "decoder"]
    if exact is True:
        return list(differences)
    raise ValueError(f"exact must be True, False or 'encode', not {exact!r}")


def build(stages: Stages) -> Any:
    """The ``tokenizers.Tokenizer`` of ``stages``, the added tokens given their own ids."""
    from tokenizers import Tokenizer

    if stages.model is None:
        raise ExportError("no tokenizers model can stand for this vocabulary", differences=stages.differences)
    hf = Tokenizer(stages.model)
    if stages.normalizer is not None:
        hf.normalizer = stages.normalizer
    if stages.pre_tokenizer is not None:
        hf.pre_tokenizer = stages.pre_tokenizer
    if stages.post_processor is not None:
        hf.post_processor = stages.post_processor
    if stages.decoder is not None:
        hf.decoder = stages.decoder
    if stages.added_tokens:
        hf.add_tokens([t for _, t in stages.added_tokens])
        wrong = [(i, t.content) for i, t in stages.added_tokens if hf.token_to_id(t.content) != i]
        if wrong:
            hf = _with_ids(hf, stages.added_tokens)
    return hf


def _with_ids(hf: Any, added: list[tuple[int, Any]]) -> Any:
    """``hf`` with its added tokens rewritten to the given ids (a family whose model lacks some of them)."""
    import json

    from tokenizers import Tokenizer

    data = json.loads(hf.to_str())
    data["added_tokens"] = [{"id": i, "content": t.content, "single_word": t.single_word, "lstrip": t.lstrip,
                             "rstrip": t.rstrip, "normalized": t.normalized, "special": t.special} for i, t in added]
    out = Tokenizer.from_str(json.dumps(data))
    wrong = [(i, t.content) for i, t in added if out.token_to_id(t.content) != i]
    if wrong:
        raise ExportError(f"added tokens did not keep their ids: {wrong[:5]}")
    return out


def to_tokenizers(tok, exact: bool | str = True) -> Any:
    """A ``tokenizers.Tokenizer`` that gives ``tok.encode``'s ids on every input (see the module's table for the
    flags), set to read special-token texts as text (``encode_special_tokens = True``: ``parse_special=False``,
    as ``tok.encode``; a ``tokenizer.json`` does not keep that setting, which loads as ``False``).
    ``exact=True`` refuses with an :class:`~gguftok.errors.ExportError` naming each rule the pipeline
    cannot follow; ``"encode"`` refuses only for differences in encoding; ``False`` exports anyway, and then
    warns with an :class:`ExportWarning` whose ``differences`` list what the pipeline does not follow (also
    :func:`known_differences`, without exporting; or ``plan`` then ``build``, to have both from one pass)."""
    stages = plan(tok)
    refused = _refused(stages.differences, exact)
    if refused:
        raise ExportError(f"{tok.vocab.model!r} cannot be exported exactly ({len(refused)} differences); "
                          "to_tokenizers(tok, exact=False) exports anyway", differences=refused)
    hf = build(stages)
    if stages.differences and exact is False:
        import warnings

        warnings.warn(ExportWarning(f"{tok.vocab.model!r} exported with {len(stages.differences)} known differences "
                                    "(their list: the warning's .differences, or known_differences(tok)): "
                                    + "; ".join(f"{d.stage}: {d.rule}" for d in stages.differences[:3]),
                                    stages.differences), stacklevel=2)
    hf.encode_special_tokens = True  # parse_special=False, gguftok's default: user text never becomes a control token
    return hf


def decode(hf: Any, tok, ids: Iterable[int], remove_special: bool = False, unparse_special: bool = False) -> str:
    """``tok.decode(ids, remove_special, unparse_special)`` through the exported ``hf``, with the flags mapped as
    the module's table says.

    >>> from gguftok import Tokenizer
    >>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
    >>> ids = tok.encode("<|im_start|>hi", parse_special=True)
    >>> decode(to_tokenizers(tok), tok, ids, unparse_special=True) == tok.decode(ids, unparse_special=True)
    True
    """
    ids = list(ids)
    v = tok.vocab
    if unparse_special and remove_special:
        if v.add_eos and ids and ids[-1] == v.special["eos"]:
            ids = ids[:-1]
        if v.add_bos and ids and ids[0] == v.special["bos"]:
            # llama.cpp drops the BOS and, with it, the strip of the next piece's leading space: decoded after
            # the BOS's text (which starts no space to strip), that text then cut off
            head = hf.decode(ids[:1], skip_special_tokens=False)
            text = hf.decode(ids, skip_special_tokens=False)
            if head and text.startswith(head):
                return text[len(head):]
            ids = ids[1:]
    if not unparse_special and v.add_space_prefix and ids and 0 <= ids[0] < len(v.attrs) and \
            v.attrs[ids[0]] & (CONTROL | UNKNOWN):
        # a leading special renders as nothing and takes llama.cpp's strip of the first space with it: the rest
        # decoded after a token "A" (which strips no space), that "A" then cut off
        probe = v.token_to_id.get("<0x41>")
        if probe is None and "A" in v.token_to_id and not v.attrs[v.token_to_id["A"]] & (CONTROL | UNKNOWN):
            probe = v.token_to_id["A"]  # no byte tokens (Unigram): the plain token "A" strips no space either
        if probe is not None:
            text = hf.decode([probe, *ids[1:]], skip_special_tokens=True)
            if text.startswith("A"):
                return text[1:]
    return hf.decode(ids, skip_special_tokens=not unparse_special)
