"""The tokenizer of a GGUF file: text to llama.cpp's token ids, and back.

>>> tok = Tokenizer.from_gguf("data/synthetic/byte-level-286.gguf")
>>> tok.encode("Hello world")
[259, 264]
>>> tok.decode([259, 264])
'Hello world'
>>> tok.encode("<|im_start|>user", parse_special=True), len(tok.encode("<|im_start|>user"))
([283, 273], 13)

The pipeline, each step in its own module: :mod:`gguftok.metadata` (read the keys),
:mod:`gguftok.vocab` (what llama.cpp derives from them), :mod:`gguftok.special` (cut special tokens out),
:mod:`gguftok.pretokenize` (cut the rest into words), :mod:`gguftok.models` (merge each word into tokens);
and back, :mod:`gguftok.detokenize` and :mod:`gguftok.stream`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .batch import encode_batch
from .detokenize import Pieces, as_token_id, detokenize
from .errors import EncodeError
from .metadata import read_metadata
from .models.bpe import DEFAULT_CACHE_SIZE, BPEModel, MergeStep
from .models.plamo2 import PLaMo2Model
from .models.rwkv import RWKVModel
from .models.spm import SPMModel
from .models.test import HashModel
from .models.ugm import UGMModel
from .models.wpm import WPMModel
from .pretokenize import PreTokenizer
from .pretokenize.unicode import WHITESPACE_SET, decode_for_text, to_lower
from .special import Fragment, SpecialIndex, partition
from .stream import TextStream
from .tables import SPM_TABLE, TableStore
from .vocab import DEFAULT_IDS, DNA_KMER_MARKER, NULL, SPECIAL_NAMES, VOCAB_TYPE_IDS, Vocab, chat_template_text

_CHAT_KEY = "tokenizer.chat_template"


def text_bytes(text: Any, what: str = "text") -> bytes:
    """The bytes a text stands for: a ``str`` as UTF-8 (a lone surrogate kept as its three bytes, as llama.cpp
    would be handed them), a bytes-like object (``bytes``, ``bytearray``, ``memoryview``, an array) as its bytes.
    Anything else is a ``TypeError`` naming ``what``: ``bytes(5)`` would be five NUL bytes, and ``bytes(10**10)``
    ten gigabytes of them."""
    if isinstance(text, str):
        return text.encode("utf-8", "surrogatepass")
    if isinstance(text, bytes):
        return text
    try:
        view = memoryview(text)
    except TypeError:
        raise TypeError(f"{what} must be str or a bytes-like object, not {type(text).__name__}") from None
    with view:
        return view.tobytes()


@dataclass
class WordTrace:
    """How one word became tokens: the merge steps, the final symbols, their ids."""

    word: str
    steps: list[MergeStep]
    symbols: list[str]
    ids: list[int]


class Tokenizer:
    """llama.cpp's tokenizer for one vocabulary, built from GGUF metadata alone.

    ``encode`` matches ``llama_tokenize``, ``decode_bytes`` matches ``llama_detokenize`` byte for byte, and
    ``token_to_piece`` matches ``llama_token_to_piece``. Where llama.cpp would abort the process, these raise
    :class:`~gguftok.errors.EncodeError` (a ``ValueError``) instead.
    """

    def __init__(self, metadata: Mapping[str, Any], *, cache_size: int = DEFAULT_CACHE_SIZE,
                 tables: TableStore | bool = True) -> None:
        """``tables``: where to look for what :meth:`prepare` kept for this vocabulary (``True``: the default
        :class:`~gguftok.tables.TableStore`; ``False``: nowhere, every new word is merged)."""
        self.vocab = v = Vocab(metadata)
        self.cache_size = cache_size
        self.source_path: str | None = None  # the GGUF file, when loaded by from_gguf (encode_batch's workers read it)
        default_pad = DEFAULT_IDS[v.type][4]  # the pad id before the file's keys: llama.cpp's newline fallback
        self.pieces = Pieces(v)
        self._special_bytes = {tid: v.texts[tid].encode("utf-8", "surrogateescape") for tid in v.special_cache}
        self._special_index = SpecialIndex(v.special_cache, self._special_bytes.__getitem__)
        self.pre = self.model = None
        if v.type == "bpe":
            self.pre = PreTokenizer(v.pre_config)
            self.model = BPEModel(v.token_to_id, v.merges, byte_encode=v.pre_config.byte_encode,
                                  ignore_merges=v.ignore_merges, newline_runs_whole=v.pre_config.type == "GEMMA4",
                                  cut_marker="\u2581" if v.escape_whitespaces else None, cache_size=cache_size)
        # the other models keep at most cache_size pieces (words, or text between places no token spans)
        elif v.type == "spm":
            self.model = SPMModel(v.texts, v.scores, cache_size=cache_size)
        elif v.type == "wpm":
            self.model = WPMModel(v.texts, v.special["unk"], v.lowercase, v.strip_accents, cache_size=cache_size)
        elif v.type == "rwkv":
            self.model = RWKVModel(v.texts, v.special["unk"], cache_size=cache_size)
        elif v.type == "plamo2":
            self.model = PLaMo2Model(v.texts, v.types, v.scores, cache_size=cache_size)
        elif v.type == "test":
            self.model = HashModel(v.n_vocab)
        elif v.type == "ugm":
            charsmap = v.charsmap()
            self.model = UGMModel(v.texts, v.scores, v.gguf_attrs, v.attrs, v.special["unk"], charsmap,
                                  v.add_space_prefix, v.remove_extra_whitespaces, cache_size=cache_size)
        # the tables prepare() kept, named by the bytes of the tokens and merges, or of the tokens alone for
        # SentencePiece (a plain dict has neither)
        spm = isinstance(self.model, SPMModel)
        self._digest: str | None = getattr(metadata, "tokens_digest" if spm else "merges_digest", None)
        self._tables = TableStore() if tables is True else tables or None
        if self._digest and self._tables:
            if isinstance(self.model, BPEModel) and not v.ignore_merges:
                table = self._tables.get(self.model.table_kind, self._digest, v.n_vocab, len(v.merges))
                if table is not None:
                    self.model.use_prepared(table.ids, table.joins)
            elif spm and self.model.can_cut:
                table = self._tables.get(SPM_TABLE, self._digest, v.n_vocab, v.n_vocab)
                if table is not None and table.joins is not None and not table.ids:
                    self.model.use_prepared(table.joins)
        v.nl = self._newline_id(default_pad)
        v.apply_strip_rules()
        # Chat templates, as llama_model_chat_template reads them: None is tokenizer.chat_template, a name is
        # tokenizer.chat_template.<name>. Compiled by gguftok.chat on first use.
        # A template is read as llama.cpp reads it: a number is its text, an array is no template.
        keys = [k for k in metadata if isinstance(k, str) and (k == _CHAT_KEY or k.startswith(_CHAT_KEY + "."))]
        texts = {k: chat_template_text(metadata, k) for k in keys}
        self.chat_templates: dict[str | None, str] = {
            (None if k == _CHAT_KEY else k[len(_CHAT_KEY) + 1:]): t for k, t in texts.items() if t is not None}
        self._chat_cache: dict[str | None, Any] = {}

    def _newline_id(self, pad: int) -> int:
        """``llama_vocab_nl``: computed at load, before any special token is known."""
        v = self.vocab
        if v.type == "spm":
            tid = v.token_to_id.get("<0x0A>", v.token_to_id.get("\n"))
            return pad if tid is None else tid
        if v.type == "wpm":
            return pad
        if self.model is None:
            return pad
        try:
            ids = self._encode_fragment(b"\n")
        except EncodeError:
            ids = []
        return ids[0] if ids else pad

    @classmethod
    def from_gguf(cls, path: str | os.PathLike[str], **kwargs: Any) -> Tokenizer:
        """Load from a GGUF file, reading only its metadata (the tensors are never touched).

        ``path`` is a local path (or the first shard of a split model), an ``https://`` URL,
        ``hf://owner/repo/file.gguf[@revision]``, ``ollama:model[:tag]``, or a source made by
        :func:`gguftok.sources.open_source` with its options (``allow_full_download``, ``timeout``, ...).
        ``tok.vocab.md.origin`` says where the bytes came from and how many were read. A later shard of a split
        model is a :class:`~gguftok.errors.SourceError` naming the first.
        """
        from .sources import as_source, check_shard

        source = as_source(path)
        check_shard(source)
        md = read_metadata(source)
        check_shard(source, md)
        tok = cls(md, **kwargs)
        tok.source_path = source.local_path  # the file, or the cached copy of a remote file's metadata, or None
        return tok

    def prepare(self, store: TableStore | None = None) -> Path | None:
        """Find, once, what makes this vocabulary's new words cheap, and keep it on disk for every later load of
        the same tokens and merges (:mod:`gguftok.tables`): for byte pair encoding, the tokens whose text does
        not merge back into them (:meth:`BPEModel.merged_apart <gguftok.models.bpe.BPEModel.merged_apart>`),
        so that any other new word that is a token is looked up instead of merged; and where the vocabulary's
        long words are cut (Gemma 4's lines), where no merge joins two characters. The ids are the same either
        way; a new word of English costs a lookup instead of about 10 µs.

        For SentencePiece, the pairs of characters that some token a merge can build holds
        (:func:`~gguftok.models.spm.merge_junctions`): a fresh tokenizer then cuts a long piece at them from its
        first prompt on, where an unprepared one merges long pieces whole until it has merged 8,192 characters.

        Takes seconds (Qwen2: 2.5 s, Command R: 4.8 s; SentencePiece: 30-60 ms). Returns where the table was
        kept, or ``None`` if there is nothing to prepare (WordPiece, Unigram and the others; ``ignore_merges``: a
        word that is a token is taken whole anyway) or nowhere to keep it (``tables=False``, or metadata not read
        from a file: then it is used by this tokenizer only). ``store``: another
        :class:`~gguftok.tables.TableStore` than the one this tokenizer reads.
        """
        store = store or self._tables
        if isinstance(self.model, SPMModel) and self.model.can_cut:
            joins = self.model.prepared_joins()
            self.model.use_prepared(joins)
            if store is None or not self._digest:
                return None
            return store.put(SPM_TABLE, self._digest, self.vocab.n_vocab, [], joins)
        if not isinstance(self.model, BPEModel) or self.vocab.ignore_merges:
            return None
        apart, joins = self.model.merged_apart(), self.model.prepared_joins()
        self.model.use_prepared(apart, joins)
        if store is None or not self._digest:
            return None
        return store.put(self.model.table_kind, self._digest, self.vocab.n_vocab, apart, joins)

    @property
    def prepared(self) -> bool:
        """Whether this tokenizer uses a table :meth:`prepare` made (here or in an earlier process)."""
        return isinstance(self.model, (BPEModel, SPMModel)) and self.model.prepared

    # ----------------------------------------------------------------------------------------- facts
    @property
    def n_vocab(self) -> int:
        return self.vocab.n_vocab

    @property
    def bos_id(self) -> int:
        return self.vocab.special["bos"]

    @property
    def eos_id(self) -> int:
        return self.vocab.special["eos"]

    @property
    def eot_id(self) -> int:
        return self.vocab.special["eot"]

    @property
    def eog_ids(self) -> frozenset[int]:
        return self.vocab.eog

    @property
    def add_bos(self) -> bool:
        return self.vocab.add_bos

    @property
    def add_eos(self) -> bool:
        return self.vocab.add_eos

    @property
    def attrs(self) -> list[int]:
        """Every token's final attribute bits (``gguftok.vocab.CONTROL`` and friends)."""
        return self.vocab.attrs

    def is_eog(self, token_id: int) -> bool:
        """Whether generation should stop at this token."""
        return (token_id if type(token_id) is int else as_token_id(token_id)) in self.vocab.eog

    def token_text(self, token_id: int) -> str:
        return self.vocab.texts[self.pieces.check(token_id)]

    def token_id(self, text: str | bytes) -> int | None:
        """The id of the token with exactly this text (``bytes``: these bytes), or ``None``."""
        if not isinstance(text, str):
            text = text_bytes(text).decode("utf-8", "surrogateescape")  # how token texts are kept
        return self.vocab.token_to_id.get(text)

    def facts(self) -> dict[str, Any]:
        """The vocabulary facts llama.cpp reports (special ids are -1 when absent)."""
        v = self.vocab
        out: dict[str, Any] = {"n_vocab": v.n_vocab, "vocab_type": VOCAB_TYPE_IDS[v.type]}
        for name in SPECIAL_NAMES:
            if name not in ("eom", "unk"):
                out[name] = v.special[name]
        out["nl"] = v.nl
        out.update(add_bos=v.add_bos, add_eos=v.add_eos, add_sep=v.add_sep, eog=sorted(v.eog))
        return out

    # ---------------------------------------------------------------------------------------- encode
    def encode(self, text: str | bytes, add_special: bool = True, parse_special: bool = False) -> list[int]:
        """Token ids of ``text`` (a ``str``, or a bytes-like object: its bytes), as ``llama_tokenize(text,
        add_special, parse_special)``. Anything else is a ``TypeError``.

        Keep ``parse_special=False`` for text that comes from users: with ``True``, anyone can write the text
        of a control token (``<|im_end|>``) and have it read as that token.
        """
        data = text_bytes(text)
        return self._encode_fragments(data, self.fragments(data, parse_special), add_special)

    def _encode_fragments(self, data: bytes, fragments: list[Fragment], add_special: bool) -> list[int]:
        """The ids of ``data`` already partitioned into ``fragments``, with the specials ``add_special`` asks for."""
        v = self.vocab
        if self.model is None:
            raise EncodeError(f"a {v.model!r} vocabulary has no tokenizer (llama.cpp aborts on tokenize)")
        # Which specials a model type adds: WordPiece always BOS (CLS) and SEP; SentencePiece, BPE and
        # Unigram the BOS/EOS their flags ask for; RWKV and PLaMo-2 never any.
        bos = eos = False
        if add_special and v.type == "wpm":
            bos = eos = True
        elif add_special and v.type in ("spm", "bpe", "ugm"):
            bos, eos = v.add_bos, v.add_eos
        out: list[int] = []
        if bos:
            out.append(self._required("bos"))
        prev_special = True  # SentencePiece puts a space before every raw fragment that follows a special
        for frag in fragments:
            if isinstance(frag, int):
                out.append(frag)
                prev_special = True
                continue
            raw = data[frag[0]:frag[0] + frag[1]]
            if v.type == "spm" and v.add_space_prefix and prev_special:
                raw = b" " + raw
            out += self._encode_fragment(raw, frag[0])
            prev_special = False
        if eos:
            out.append(self._required("sep" if v.type == "wpm" else "eos"))
        return out

    def chat_template(self, name: str | None = None):
        """The vocabulary's chat template (``tokenizer.chat_template``, or ``tokenizer.chat_template.<name>``),
        compiled in gguftok's sandbox: a :class:`gguftok.chat.ChatTemplate` with this vocabulary's BOS/EOS texts."""
        from .chat import template_of

        return template_of(self, name)

    def encode_chat(self, messages: Sequence[Mapping[str, Any]], add_generation_prompt: bool = True,
                    **kwargs: Any) -> list[int]:
        """Token ids of a conversation rendered with the chat template: the template's markup is read with
        ``parse_special=True``, the special-token texts inside messages stay text. See :func:`gguftok.chat.encode_chat`
        for the options (``template``, ``tools``, ``add_special``, the unsafe whole-string mode, ...)."""
        from .chat import encode_chat

        return encode_chat(self, messages, add_generation_prompt, **kwargs)

    def encode_batch(self, texts: Iterable[str | bytes], add_special: bool = True, parse_special: bool = False, *,
                     workers: int = 1, progress: bool = False, chunk_size: int | None = None) -> list[list[int]]:
        """:meth:`encode` of each text, in order, over ``workers`` processes (``0``: one per CPU; ``1``, the
        default: in this process), with a tqdm progress bar if ``progress``. See :mod:`gguftok.batch`."""
        return encode_batch(self, texts, add_special, parse_special, workers=workers, progress=progress,
                            chunk_size=chunk_size)

    def _required(self, name: str) -> int:
        tid = self.vocab.special[name]
        if tid == NULL:
            raise EncodeError(f"the vocabulary asks for a {name.upper()} token but has none (llama.cpp aborts)")
        return tid

    def fragments(self, data: bytes, parse_special: bool = False,
                  protected: Sequence[tuple[int, int]] = ()) -> list[Fragment]:
        """The special-token partition of ``data``: ids, and ``(offset, length)`` runs of raw text.

        No special token is read where it would overlap a ``protected`` byte range (see :mod:`gguftok.special`).
        """
        v = self.vocab
        if not isinstance(data, bytes):
            data = text_bytes(data, "data")
        # only the special tokens that can occur in data: the same partition, without a search per token
        return partition(data, self._special_index.candidates(data), self._special_bytes.__getitem__,
                         v.attrs.__getitem__, parse_special, protected)

    def _encode_fragment(self, raw: bytes, offset: int = 0) -> list[int]:
        """One raw-text fragment through the model's session."""
        v = self.vocab
        try:
            if v.type == "spm":
                return self.model.encode(raw.replace(b" ", "\u2581".encode()))
            if v.type != "bpe":
                return self.model.encode(raw)
            if v.escape_whitespaces:
                raw = raw.replace(b" ", "\u2581".encode())
            if v.model == "whitespace":
                return self._whitespace_session(raw)
            if self.vocab.model == "hybriddna":
                return self._dna_session(raw)
            return self._bpe_session(raw)
        except EncodeError as e:
            raise e.shifted(offset) from None  # offsets in the fragment become offsets in the input

    def _bpe_session(self, raw: bytes) -> list[int]:
        # zero-length matches give empty words, which the session skips
        return self.model.encode_text_words(self.pre.words(decode_for_text(raw, "input")))

    def _whitespace_session(self, raw: bytes) -> list[int]:
        """The ``whitespace`` model: drop every whitespace code point, lowercase (if the vocabulary says so),
        and run BPE on each remaining run."""
        text = decode_for_text(raw, "input")
        if self.vocab.lowercase:
            text = "".join(chr(to_lower(ord(c))) for c in text)
        out: list[int] = []
        segment: list[str] = []
        for c in text + " ":
            if ord(c) in WHITESPACE_SET:
                if segment:
                    out += self._bpe_session("".join(segment).encode("utf-8", "surrogatepass"))
                    segment = []
            else:
                segment.append(c)
        return out

    def _dna_session(self, raw: bytes) -> list[int]:
        """The ``hybriddna`` model: BPE outside ``<dna>...</dna>``, 6-mers inside (``<oov>`` when unknown)."""
        t2i = self.vocab.token_to_id
        begin, end_tag, oov = t2i.get("<dna>"), t2i.get("</dna>"), t2i.get("<oov>")
        if begin is None or end_tag is None or oov is None:
            return self._bpe_session(raw)
        out: list[int] = []

        def bpe(a: int, b: int) -> list[int]:
            try:
                return self._bpe_session(raw[a:b])
            except EncodeError as e:
                raise e.shifted(a) from None

        pos = 0
        while pos < len(raw):
            start = raw.find(b"<dna>", pos)
            if start < 0:
                out += bpe(pos, len(raw))
                break
            if start > pos:
                out += bpe(pos, start)
            out.append(begin)
            content = start + len(b"<dna>")
            stop = raw.find(b"</dna>", content)
            # ASCII upper case, byte by byte (bytes.upper() does exactly that)
            seq = raw[content:len(raw) if stop < 0 else stop].upper()
            for i in range(0, len(seq), 6):
                kmer = seq[i:i + 6].ljust(6, b"A")
                key = (kmer + DNA_KMER_MARKER.encode()).decode("utf-8", "surrogateescape")
                out.append(t2i.get(key, oov))
            if stop < 0:
                break
            out.append(end_tag)
            pos = stop + len(b"</dna>")
        return out

    def words(self, text: str | bytes, parse_special: bool = False) -> list[str | int]:
        """What the model sees: special tokens as ids, the rest as pre-tokenized words (for teaching). A BPE
        vocabulary's only: the other models have no pre-tokenizer, their text goes to the model whole."""
        data = text_bytes(text)
        if self.pre is None:
            raise NotImplementedError(f"words() and trace() show the words of a BPE vocabulary's pre-tokenizer; "
                                      f"a {self.vocab.model!r} ({self.vocab.type}) vocabulary has no pre-tokenizer")
        out: list[str | int] = []
        for frag in self.fragments(data, parse_special):
            if isinstance(frag, int):
                out.append(frag)
            else:
                t = decode_for_text(data[frag[0]:frag[0] + frag[1]], "input")
                if self.vocab.escape_whitespaces:
                    t = t.replace(" ", "\u2581")
                out += [w for w in self.pre.split(t) if w]
        return out

    def trace(self, text: str | bytes, parse_special: bool = False) -> list[WordTrace]:
        """Every step of encoding ``text`` without special tokens added: for each word, the queue pops and
        the resulting ids (a special token shows as a word of its own, with no steps). Same code as
        :meth:`encode`, so the ids are the same (a test checks it)."""
        out: list[WordTrace] = []
        for item in self.words(text, parse_special):
            if isinstance(item, int):
                out.append(WordTrace(self.vocab.texts[item], [], [self.vocab.texts[item]], [item]))
                continue
            steps: list[MergeStep] = []
            symbols = self.model.symbols(item, steps)
            out.append(WordTrace(item, steps, symbols, self.model.symbol_ids(symbols)))
        return out

    # ---------------------------------------------------------------------------------------- decode
    def token_to_piece(self, token_id: int, special: bool = False, lstrip: int = 0) -> bytes:
        """The bytes of one token, as ``llama_token_to_piece``."""
        return self.pieces.piece(token_id, special=special, lstrip=lstrip)

    def decode_bytes(self, ids: Iterable[int], remove_special: bool = False, unparse_special: bool = False) -> bytes:
        """The bytes of ``ids``, as ``llama_detokenize`` (not necessarily valid UTF-8). An id is an int (a NumPy
        integer too); a float, a bool or anything else is a ``TypeError`` naming its position."""
        return detokenize(self.pieces, ids, remove_special, unparse_special)

    def decode(self, ids: Iterable[int], remove_special: bool = False, unparse_special: bool = False,
               errors: str = "replace") -> str:
        """:meth:`decode_bytes` as text; invalid UTF-8 becomes U+FFFD (``errors`` as for ``bytes.decode``)."""
        return self.decode_bytes(ids, remove_special, unparse_special).decode("utf-8", errors)

    def stream(self, special: bool = False) -> TextStream:
        """An incremental decoder: push ids as they are generated, get text as soon as it is whole."""
        return TextStream(lambda i: self.pieces.piece(i, special=special),
                          lambda value, position: as_token_id(value, position, " of the stream"))

    def decode_stream(self, ids: Iterable[int], special: bool = False) -> Iterable[str]:
        """The text of each id in turn (``""`` while a character is incomplete), then what remains."""
        return self.stream(special).feed(ids)
