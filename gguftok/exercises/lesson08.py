"""Lesson 08 · ids back to text: one token's piece, a list of ids, and a streaming UTF-8 decoder."""

from __future__ import annotations

import ast
import contextlib
import encodings.utf_8
import inspect
import traceback
from functools import cache
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ..data import vocab_dir
from ..detokenize import Pieces
from ..detokenize import detokenize as _gguftok_detokenize
from ..stream import TextStream
from ..vocab import BYTE, CONTROL, MODEL_TYPES, NORMAL, TYPE_TO_ATTR, UNDEFINED, UNKNOWN, UNUSED, USER_DEFINED
from ._core import Case, Exercise, Property, short
from ._data import random_text, rng, tokenizer

_LESSON = [b" \xf0\x9f", b"\x98\x80", b" ok", b"\xffx"]
_PARAGRAPH = "The llama 🦙 said 你好, 世界! Then it waved 👋🏽 and left 🎉. Ünïcödé? Sure."
_MIXED = "ab Hello  2026 héllo 😀 世界 привет\n\t'?!.,▁<s></s>"


@cache
def vocab_names() -> tuple[str, ...]:
    """Every vocabulary fetched into data/vocab (the lesson uses all 19)."""
    return tuple(sorted(p.name.removeprefix("ggml-vocab-").removesuffix(".gguf")
                        for p in vocab_dir().glob("ggml-vocab-*.gguf")))


_RULE_ORDER = ((CONTROL, 3), (UNKNOWN, 2), (USER_DEFINED, 4), (NORMAL, 1), (BYTE, 6), (UNUSED, 5))


def final_type(attr: int) -> int:
    """The token type that gives a token's piece, from llama.cpp's attribute bits after loading: its rule
    order (unknown and control first, then user-defined, normal, byte) decides a token with several bits."""
    for bit, token_type in _RULE_ORDER:
        if attr & bit:
            return token_type
    return 0


@cache
def final_types(name: str) -> list[int]:
    """:func:`final_type` of every token of a vocabulary (the rules in reverse order over the whole array, so that
    the first rule's type is written last: the same answer, 30 times as fast as one call a token)."""
    return _final_types_of(tokenizer(name).vocab.attrs)


def _final_types_of(attrs) -> list[int]:
    """:func:`final_type` of each of ``attrs``, over the whole array.

    >>> _final_types_of([CONTROL | NORMAL, NORMAL, BYTE | UNUSED, 0])
    [3, 1, 6, 0]
    """
    attrs = np.asarray(attrs, dtype=np.int64)
    out = np.zeros(len(attrs), dtype=np.int64)
    for bit, token_type in reversed(_RULE_ORDER):
        out[(attrs & bit) != 0] = token_type
    return out.tolist()


def _one_token_vocab(texts, types, model: str) -> SimpleNamespace:
    """What gguftok's :class:`~gguftok.detokenize.Pieces` reads of a vocabulary, built from texts and types."""
    return SimpleNamespace(texts=texts, attrs=[TYPE_TO_ATTR.get(t, UNDEFINED) for t in types], n_vocab=len(texts),
                           type=MODEL_TYPES[model], escape_whitespaces=model != "gpt2", add_space_prefix=False,
                           clean_spaces=False, add_bos=False, add_eos=False, special={})


def _with_bytemap(fn, *args):
    """``fn(*args)``; a NotImplementedError raised inside the student's ``bytemap.py`` (notebook 02's code, which
    ``piece`` uses) says so, instead of passing for "not attempted"."""
    try:
        return fn(*args)
    except NotImplementedError as e:
        frames = traceback.extract_tb(e.__traceback__)
        if frames and Path(frames[-1].filename).name == "bytemap.py":
            raise RuntimeError("mytok/bytemap.py (notebook 02) still raises NotImplementedError in "
                               f"{frames[-1].name}: piece needs it, write it first") from None
        raise


# ------------------------------------------------------------------------------------------------ piece
def _ref_piece(text: str, token_type: int, model: str) -> bytes:
    """gguftok's ``Pieces.piece`` (``Tokenizer.token_to_piece``, special=False) of a one-token vocabulary."""
    return Pieces(_one_token_vocab([text], [token_type], model)).piece(0)


_PIECE_EXAMPLES = [("Ġworld", 1, "gpt2"), ("▁Hello", 1, "llama"), ("<0x0A>", 6, "llama"), ("ðŁ", 1, "gpt2"),
                   ("<|endoftext|>", 3, "gpt2"), ("<unk>", 2, "llama"), ("<tool_call>", 4, "gpt2"),
                   ("▁▁", 4, "llama"), ("Hello▁world", 1, "gemma4"), ("ĠâĢĻ", 1, "gpt2"), ("‼", 1, "gpt2"),
                   ("[PAD]", 5, "llama"), ("x", 0, "gpt2"), ("##ing", 1, "bert")]


def _piece_generated() -> list[Case]:
    r = rng(811)
    cases = []
    for name in vocab_names():
        tok = tokenizer(name)
        texts, types, model = tok.vocab.texts, final_types(name), tok.vocab.model
        kinds = np.asarray(types)
        by_type = {int(t): np.flatnonzero(kinds == t).tolist() for t in np.unique(kinds)}  # ids in order
        ids = r.sample(range(len(texts)), 6)
        for t in sorted(by_type):
            ids += r.sample(by_type[t], min(2, len(by_type[t])))
        if name == "command-r":  # normal tokens with characters outside the byte-level alphabet
            ids += [265, 268, 264]
        cases += [Case((texts[i], types[i], model)) for i in ids]
    return cases


piece = Exercise(
    id="08.piece",
    title="one token's bytes",
    statement=(
        "Write `piece(text, token_type, model)`: the bytes of one token, as llama.cpp's `llama_token_to_piece`\n"
        "gives them with special tokens not written out. `text` is the token's text, `model` the file's\n"
        "`tokenizer.ggml.model`, `token_type` the token's type once loaded (1 normal, 2 unknown, 3 control,\n"
        "4 user-defined, 5 unused, 6 byte, 0 undefined):\n\n"
        "- unknown, control, unused, undefined: nothing, `b\"\"`;\n"
        "- user-defined: the text as written, in UTF-8;\n"
        "- byte: the text is `<0xNN>`, and the piece is that one byte;\n"
        "- normal, model `\"gpt2\"`: each character is one byte of notebook 02's alphabet (your\n"
        "  `unicode_to_bytes()`); a character outside it (Command-R has such tokens) becomes llama.cpp's marker:\n"
        "  `[UNK_BYTE_0x`, its UTF-8 bytes in lower-case hex, the whole token text, `]`;\n"
        "- normal, any other model (`\"llama\"`, `\"gemma4\"`, `\"bert\"`, `\"t5\"`): the text with every `▁`\n"
        "  replaced by a space, in UTF-8.\n\n"
        "So `piece(\"Ġworld\", 1, \"gpt2\")` is `b\" world\"` and `piece(\"ðŁ\", 1, \"gpt2\")` is `b\"\\xf0\\x9f\"`,\n"
        "half of an emoji. The check uses the tokens above and tokens of every type from all 19 vocabularies,\n"
        "against gguftok's `Tokenizer.token_to_piece`."),
    template="",
    reference=_ref_piece,
    reference_name="gguftok's Tokenizer.token_to_piece",
    examples=lambda: [Case(args) for args in _PIECE_EXAMPLES],
    generated=_piece_generated,
    call=_with_bytemap,
    module="detokenize",
)


# ------------------------------------------------------------------------------------------- detokenize
_VOCAB_PIECES: list[tuple[list, list, str, Pieces]] = []  # one Pieces per real vocabulary, found by identity


def _pieces_for(texts: list, types: list, model: str) -> Pieces:
    for t, y, m, pieces in _VOCAB_PIECES:
        if t is texts and y is types and m == model:
            return pieces
    pieces = Pieces(_one_token_vocab(texts, types, model))
    if len(texts) > 1000:
        _VOCAB_PIECES.append((texts, types, model, pieces))
    return pieces


def _ref_detokenize(ids: list[int], texts: list[str], types: list[int], model: str,
                    remove_space: bool = False) -> bytes:
    """gguftok's ``detokenize`` (``Tokenizer.decode_bytes``) without its clean-up of spaces, on these texts and
    types, with ``remove_space`` as the vocabulary's ``add_space_prefix``."""
    pieces = _pieces_for(texts, types, model)
    pieces.vocab.add_space_prefix = remove_space
    return _gguftok_detokenize(pieces, ids)


_SPM_TEXTS = ["<unk>", "<s>", "</s>", "▁Hello", "▁world", "!", "<0xF0>", "<0x9F>", "<0xA6>", "<0x99>", "▁"]
_SPM_TYPES = [2, 3, 3, 1, 1, 1, 6, 6, 6, 6, 1]
_BPE_TEXTS = ["Hello", "Ġworld", "!", "<|endoftext|>", "ĠðŁ", "¦", "Ļ", "<tool_call>"]
_BPE_TYPES = [1, 1, 1, 3, 1, 1, 1, 4]


def _detokenize_examples() -> list[Case]:
    spm, bpe = (_SPM_TEXTS, _SPM_TYPES, "llama"), (_BPE_TEXTS, _BPE_TYPES, "gpt2")
    return [Case(([3, 4], *spm, True), copy=False), Case(([3, 4], *spm, False), copy=False),
            Case(([1, 3, 4, 2], *spm, True), copy=False), Case(([10, 3], *spm, True), copy=False),
            Case(([3, 6, 7, 8, 9, 5], *spm, True), copy=False), Case(([], *spm, True), copy=False),
            Case(([0, 1, 2], *spm, False), copy=False), Case(([0, 4, 5, 6, 3, 7, 2], *bpe, False), copy=False),
            Case(([11], *spm, True), copy=False), Case(([-1], *spm, False), copy=False)]


def _detokenize_label(ids: list[int], name: str, model: str, remove_space: bool) -> str:
    return f"detokenize({short(ids, 100)}, texts, types, {model!r}, remove_space={remove_space}) with {name}'s tokens"


def _detokenize_generated() -> list[Case]:
    r = rng(812)
    cases = []
    for name in vocab_names():
        tok = tokenizer(name)
        texts, types, model, n = tok.vocab.texts, final_types(name), tok.vocab.model, tok.n_vocab
        runs = [[r.randrange(n) for _ in range(r.randint(1, 12))] for _ in range(2)]
        runs += [tok.encode(random_text(r, _MIXED, 1, 24), add_special=True) for _ in range(2)]
        runs.append(tok.encode(random_text(r, _MIXED, 1, 24), add_special=False))
        for ids in runs:
            remove_space = r.random() < 0.5
            cases.append(Case((ids, texts, types, model, remove_space),
                              _detokenize_label(ids, name, model, remove_space), copy=False))
        if name in ("qwen2", "llama-spm", "gemma-4"):
            for ids in ([r.randrange(n), n], [n + 5]):
                cases.append(Case((ids, texts, types, model, False), _detokenize_label(ids, name, model, False),
                                  copy=False))
    return cases


detokenize = Exercise(
    id="08.detokenize",
    title="ids back to bytes",
    statement=(
        "Write `detokenize(ids, texts, types, model, remove_space=False)`: the `piece` of each id joined, as bytes\n"
        "(they need not be valid UTF-8). `texts` and `types` are the vocabulary's token texts and types, indexed\n"
        "by id; `model` is passed on to `piece`. With `remove_space`, one space is taken off the front of the\n"
        "*first token's* piece only: after a BOS, whose piece is empty, the space of a `▁Hello` stays, as in\n"
        "llama.cpp. An id outside `0` to `len(texts) - 1` raises `IndexError` (a negative one too). Removing\n"
        "BOS/EOS and `clean_spaces` are not part of it. The check uses a few ids of two small vocabularies, and\n"
        "random ids and encoded mixed-script texts of all 19 vocabularies, with and without `remove_space`,\n"
        "against gguftok's `Tokenizer.decode_bytes` without `clean_spaces`."),
    template="",
    reference=_ref_detokenize,
    reference_name="gguftok's Tokenizer.decode_bytes (without clean_spaces)",
    examples=_detokenize_examples,
    generated=_detokenize_generated,
    call=_with_bytemap,
    module="detokenize",
)


# ---------------------------------------------------------------------------------------- StreamDecoder
def _drive(cls, ops: list[bytes | None]) -> list[str]:
    """A fresh decoder through ``ops``: ``push(op)`` for bytes, ``flush()`` for ``None``; every answer."""
    decoder = cls()
    return [decoder.flush() if op is None else decoder.push(op) for op in ops]


def _ref_stream(ops: list[bytes | None]) -> list[str]:
    """Python's incremental UTF-8 decoder with ``errors="replace"``, as gguftok's ``TextStream`` holds it."""
    stream = TextStream(bytes)
    return [stream.flush() if op is None else stream.push(op) for op in ops]


def _stream_label(ops: list[bytes | None]) -> str:
    calls = ", ".join("d.flush()" if op is None else f"d.push({op!r})" for op in ops)
    return f"d = StreamDecoder(); [{calls}]"


def _stream_case(ops: list[bytes | None], label: str | None = None) -> Case:
    text = _stream_label(ops)
    return Case((ops,), text if label is None or len(text) <= 200 else label)


_STREAM_ALPHABET = ["a", " ", "é", "世", "😀", "\n"]
_STRAY = [0x80, 0x8F, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE4, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]


def _random_stream(r) -> list[bytes | None]:
    data = bytearray()
    for _ in range(r.randint(0, 8)):
        if r.random() < 0.6:
            data += r.choice(_STREAM_ALPHABET).encode()
        else:  # a stray byte, or a character cut short
            data += bytes([r.choice(_STRAY)]) if r.random() < 0.6 else r.choice("é世😀").encode()[:r.randint(1, 2)]
    ops: list[bytes | None] = []
    k = 0
    while k < len(data):
        step = r.choice([0, 1, 1, 2, 3, 5])
        ops.append(bytes(data[k:k + step]))
        k += step
        if r.random() < 0.08:
            ops.append(None)  # a stream can go on after a flush
    return [*ops, None]


def _stream_examples() -> list[Case]:
    return [_stream_case([*_LESSON, None]), _stream_case([b"ok \xf0\x9f", b"\x98", None]),
            _stream_case([b"\xe4\xb8", b"A", None]), _stream_case([None]), _stream_case([b"\xf0\x80\x80", None]),
            _stream_case([b"\xed\xa0", b"\x80", None]), _stream_case([b"\xe4", None, b"\xb8\x96", None])]


def _stream_generated() -> list[Case]:
    r = rng(813)
    cases = [_stream_case(_random_stream(r)) for _ in range(300)]
    for name in ("qwen2", "llama-bpe", "llama-spm", "gpt-2", "gemma-4"):
        tok = tokenizer(name)
        for text in (_PARAGRAPH, random_text(r, "ab 😀👋🏽世界語é\n", 10, 30)):
            ids = tok.encode(text, add_special=False)
            ops = [*(tok.token_to_piece(i) for i in ids), None]
            cases.append(_stream_case(ops, f"<the {len(ids)} pieces of {name} for {short(text, 50)}, pushed one by "
                                           f"one, then flush()>"))
    return cases


_CODECS_NAMES = {"codecs", "getincrementaldecoder", "iterdecode", "IncrementalDecoder", "TextIOWrapper",
                 "utf_8_decode", "BufferedIncrementalDecoder"}


def _source_problem(cls) -> str | None:
    """A line of the class's module that hands decoding to Python: codecs, or a decode with an error handler."""
    try:  # the file of its push method (a class needs no entry in sys.modules for this)
        path = Path(inspect.getsourcefile(cls.push))
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (AttributeError, OSError, TypeError, SyntaxError, ValueError):
        return None  # a class without a source file (written in a notebook cell): the run below still watches
    for node in ast.walk(tree):
        names = set()
        if isinstance(node, ast.Import):
            names = {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names = {(node.module or "").split(".")[0], *(a.name for a in node.names)}
        elif isinstance(node, ast.Attribute):
            names = {node.attr}
        elif isinstance(node, ast.Name):
            names = {node.id}
        if names & _CODECS_NAMES:
            return f"{path.name}, line {node.lineno}, uses {sorted(names & _CODECS_NAMES)[0]}"
        if isinstance(node, ast.Call) and (getattr(node.func, "attr", None) == "decode"
                                           or getattr(node.func, "id", None) == "str"):
            position = 1 if getattr(node.func, "attr", None) == "decode" else 2  # bytes.decode(enc, errors)
            handlers = [k.value for k in node.keywords if k.arg == "errors"] + node.args[position:position + 1]
            if any(not (isinstance(h, ast.Constant) and h.value == "strict") for h in handlers):
                return f"{path.name}, line {node.lineno}, decodes with an error handler: {ast.unparse(node)}"
    return None


@contextlib.contextmanager
def _watching_codecs(used: list[str]):
    """While inside, a call of Python's UTF-8 decoding machinery (the incremental decoder, utf_8_decode) is
    recorded in ``used``."""
    import codecs

    decoder_class = encodings.utf_8.IncrementalDecoder
    saved = decoder_class.__dict__["_buffer_decode"], codecs.utf_8_decode

    def watched(name, fn):
        def call(*args, **kwargs):
            used.append(name)
            return fn(*args, **kwargs)
        return call

    decoder_class._buffer_decode = staticmethod(watched("Python's incremental UTF-8 decoder", saved[1]))
    codecs.utf_8_decode = watched("codecs.utf_8_decode", saved[1])
    try:
        yield
    finally:
        decoder_class._buffer_decode, codecs.utf_8_decode = saved


def _own_utf8(cls) -> str | None:
    problem = _source_problem(cls)
    if problem is None:
        used: list[str] = []
        with _watching_codecs(used):
            _drive(cls, [b" \xf0\x9f", b"\x98\x80 ok \xe4", b"\xb8", None])
        problem = f"StreamDecoder calls {used[0]}" if used else None
    return None if problem is None else f"{problem}: write the UTF-8 rules yourself"


_HELD_KINDS = (bytes, bytearray, memoryview, str, list, tuple, dict)


def _sizes(decoder) -> dict[str, int]:
    """The length of every attribute of ``decoder`` that has one (bytes, strings, lists, ...)."""
    fields = dict(vars(decoder)) if hasattr(decoder, "__dict__") else {}
    for name in getattr(type(decoder), "__slots__", ()):
        if hasattr(decoder, name):
            fields[name] = getattr(decoder, name)
    return {name: len(value) for name, value in fields.items() if isinstance(value, _HELD_KINDS)}


def _keeps_little(cls) -> str | None:
    data = ("The llama 🦙 said 你好, 世界! " * 110).encode() + b"." * 37 + "😀".encode()[:3]  # 4,000 bytes
    decoder = cls()
    decoder.push(data[:1])
    before = _sizes(decoder)
    for k in range(1, len(data)):
        decoder.push(data[k:k + 1])
    grown = {name: size for name, size in _sizes(decoder).items() if size > before.get(name, 0) + 8}
    if not grown:
        return None
    name, size = max(grown.items(), key=lambda kv: kv[1])
    return (f"after {len(data):,} bytes pushed one at a time (the last three the start of 😀), StreamDecoder's "
            f"self.{name} has length {size:,}: keep only the bytes of the unfinished character")


StreamDecoder = Exercise(
    id="08.StreamDecoder",
    title="a streaming UTF-8 decoder",
    statement=(
        "Write the class `StreamDecoder`, a UTF-8 decoder for bytes that arrive in pieces: `push(data)` takes the\n"
        "next bytes and returns the text they complete; `flush()` ends the stream, returns what is left and\n"
        "starts afresh. What it must return:\n\n"
        "- **the same text as decoding at once:** a stream's answers joined (every push, then the flush) equal\n"
        "  `b\"\".join(pieces).decode(\"utf-8\", errors=\"replace\")`, U+FFFD for U+FFFD;\n"
        "- **nothing late:** a push returns every character whose last byte has arrived, and every U+FFFD that\n"
        "  no later byte can change;\n"
        "- **nothing early:** the start of a character that later bytes could still complete waits for them, for\n"
        "  a byte that cannot continue it, or for the flush; like Python's decoder, yours also waits on `ED`\n"
        "  followed by `A0`..`BF` at the end (it then gives two U+FFFD);\n"
        "- **little kept:** between pushes it keeps only the bytes it holds back.\n\n"
        "Do the UTF-8 work yourself, from the rules above: handing it to Python (`codecs`, or `decode` with an\n"
        "`errors=` handler) does not pass. The check pushes the streams above, 300 random byte streams cut at\n"
        "random places and the pieces of mixed-script texts in five vocabularies, and compares every answer\n"
        "with Python's own decoder fed the same pushes; then it pushes 4,000 bytes one at a time and looks at\n"
        "what your decoder keeps."),
    template="",
    reference=_ref_stream,
    reference_name="Python's incremental UTF-8 decoder (gguftok.stream.TextStream)",
    examples=_stream_examples,
    generated=_stream_generated,
    call=_drive,
    module="detokenize",
    properties=lambda: [
        Property("StreamDecoder must do the UTF-8 work itself", _own_utf8),
        Property("StreamDecoder must keep only an unfinished character between pushes", _keeps_little),
    ],
)

EXERCISES = [piece, detokenize, StreamDecoder]
