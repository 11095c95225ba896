"""The one exception hierarchy of gguftok.

Every error the library raises on purpose is a :class:`GguftokError`; each subclass also derives from the
built-in exception a caller would naturally catch (``ValueError`` for bad input, ``RuntimeError`` for a
failed download), and its message says what went wrong and where.

>>> from gguftok import read_metadata, GGUFError
>>> try:
...     read_metadata(b"GGML" + bytes(20))
... except GGUFError as e:
...     print(e.offset, e)
0 <bytes>: not a GGUF file: magic is b'GGML', expected b'GGUF' (at offset 0)
"""

from __future__ import annotations


class GguftokError(Exception):
    """Base class of every error gguftok raises on purpose."""


class GGUFError(GguftokError, ValueError):
    """A GGUF file is malformed or unsupported.

    ``source`` names the file, ``offset`` is the byte offset where reading failed, and ``key`` is the
    metadata key being read at the time (``None`` while reading the header or a key's name).
    """

    def __init__(self, message: str, *, source: str = "<bytes>", offset: int | None = None,
                 key: str | None = None) -> None:
        self.source = source
        self.offset = offset
        self.key = key
        where = []
        if key is not None:
            where.append(f"key {key!r}")
        if offset is not None:
            where.append(f"at offset {offset}")
        suffix = f" ({', '.join(where)})" if where else ""
        super().__init__(f"{source}: {message}{suffix}")


class VocabError(GguftokError, ValueError):
    """The tokenizer metadata cannot make a tokenizer (llama.cpp would refuse to load it, or abort).

    ``key`` names the metadata key at fault and ``token_id`` the token, when there is one.
    """

    def __init__(self, message: str, *, key: str | None = None, token_id: int | None = None) -> None:
        self.key = key
        self.token_id = token_id
        where = [f"key {key!r}"] if key else []
        if token_id is not None:
            where.append(f"token {token_id}")
        super().__init__(message + (f" ({', '.join(where)})" if where else ""))


class EncodeError(GguftokError, ValueError):
    """An input llama.cpp cannot tokenize: it would abort the process; we raise this instead.

    ``reason`` says what is wrong; ``offset`` is the byte offset in the input where it starts, when known.
    """

    def __init__(self, reason: str, *, offset: int | None = None) -> None:
        self.reason = reason
        self.offset = offset
        super().__init__(reason if offset is None else f"{reason} (at byte offset {offset} of the input)")

    def shifted(self, by: int) -> EncodeError:
        """The same error with its offset counted from ``by`` bytes earlier (a fragment's start)."""
        return EncodeError(self.reason, offset=None if self.offset is None else self.offset + by)


class ChatTemplateError(GguftokError, ValueError):
    """A chat template cannot be rendered: a syntax error, ``raise_exception`` in the template, an unsafe
    operation the sandbox refused, a time or size limit, or messages it cannot take.

    ``template`` names the template (its metadata key, e.g. ``'tokenizer.chat_template'``) and ``line`` is the
    template line where it happened, when known.
    """

    def __init__(self, reason: str, *, template: str | None = None, line: int | None = None) -> None:
        self.reason = reason
        self.template = template
        self.line = line
        where = []
        if template is not None:
            where.append(template)
        if line is not None:
            where.append(f"line {line}")
        super().__init__(f"{', '.join(where)}: {reason}" if where else reason)


class DataError(GguftokError, RuntimeError):
    """Fetching or verifying the pinned reference files failed (offline, checksum mismatch, missing file)."""


class WorkspaceError(GguftokError, RuntimeError):
    """The workbook cannot find or import the student's own package (``notebooks/mytok/``), or its solutions."""


class SourceError(GguftokError, OSError):
    """The bytes of a model file could not be had from where it was said to be: a Hub file, URL or Ollama model
    that is not there (404), no permission (401/403), a server that ignores range requests, a truncated or
    inconsistent response, a time-out, the later shard of a split model. An ``OSError``, like the errors of a
    local file.

    ``reference`` is what was asked for (a path, a URL, ``hf://...``, ``ollama:...``); ``reason`` a short code
    (``"not-found"``, ``"forbidden"``, ``"no-range"``, ``"truncated"``, ``"bad-range"``, ``"timeout"``,
    ``"unreachable"``, ``"http-error"``, ``"offline"``, ``"shard"``, ``"missing-extra"``, ``"bad-reference"``,
    ``"changed"``, ``"too-many-redirects"``, ``"insecure"``, ``"protocol"``: the server's answer is not valid
    HTTP, ``"too-large"``); ``status`` the HTTP status, when there is one. The
    message says what went wrong and what to do.

    >>> e = SourceError("no such file on the server (HTTP 404)", reference="https://example.org/m.gguf",
    ...                 reason="not-found", status=404)
    >>> print(e)
    https://example.org/m.gguf: no such file on the server (HTTP 404)
    >>> isinstance(e, OSError), e.reason
    (True, 'not-found')
    """

    def __init__(self, message: str, *, reference: str = "", reason: str = "error", status: int | None = None) -> None:
        self.reference = reference
        self.reason = reason
        self.status = status
        super().__init__(f"{reference}: {message}" if reference else message)


class ExportError(GguftokError, ValueError):
    """A tokenizer cannot be written as a Hugging Face ``tokenizers`` pipeline that gives llama.cpp's ids exactly.

    ``differences`` lists each rule no stage can express (:class:`gguftok.export.Difference`: the stage, the rule,
    a text on which the ids would differ); the message names them all.
    """

    def __init__(self, message: str, *, differences: tuple = ()) -> None:
        self.differences = tuple(differences)
        lines = [message] + [f"  {d.stage}: {d.rule}" + (f" (e.g. {d.example!r})" if d.example else "")
                             for d in self.differences]
        super().__init__("\n".join(lines))



class CorpusError(GguftokError, RuntimeError):
    """A corpus job could not run: Dask is not installed (``pip install gguftok[dask]``), the scheduler named is
    not reachable, or an input has no column of the text."""
