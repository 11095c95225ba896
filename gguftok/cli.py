"""The ``gguftok`` command: tokenize, detokenize, inspect and check, in llama.cpp's conventions.

    gguftok tokenize -m model.gguf -p "Hello world"          # like llama-tokenize, diffable line for line
    gguftok tokenize -m model.gguf -f prompt.txt --ids
    gguftok detokenize -m model.gguf 9707 1879 0
    gguftok info model.gguf [--json]
    gguftok info hf://Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf
    gguftok chat model.gguf --messages '[{"role": "user", "content": "Hi"}]'
    gguftok conformance                                      # llama.cpp's own cases on every vocabulary
    gguftok why model.gguf "Hello world" --other tokenizer.json  # where another engine parts from llama.cpp
    gguftok export model.gguf -o DIR [--verify]              # a folder transformers' AutoTokenizer loads, same ids
    gguftok fetch                                            # the pinned reference vocabularies
    gguftok cache [list | clear]                             # the kept metadata of remote models

A model is any reference :func:`gguftok.sources.open_source` takes: a path (or the first shard of a split
model), an ``https://`` URL, ``hf://owner/repo/file.gguf[@revision]`` or ``ollama:model[:tag]``; only its
metadata is read (``--allow-full-download``, ``--timeout``, ``--deadline``, ``--no-cache``, ``--offline``,
``--progress`` say how).

Every failure prints one line on stderr: exit status 2 for a bad command line (an option's value, a file
that is not a regular one, an input over ``--max-input-bytes``, JSON that is malformed or nested too deeply),
1 for a failure while carrying it out (a malformed GGUF file, a template error); ``--debug`` shows the
traceback. ``why`` answers with its exit status (0: the engines agree, 1: they disagree), so every failure of
``why`` exits 2. Text inputs (``-f``, ``--stdin``, ``--messages-file``, standard input) are read up to
``--max-input-bytes`` (16 MiB unless raised), and a file argument must be a regular file: a device, FIFO or
directory is refused before it is read (pipe it to standard input instead).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from .errors import GguftokError

DEFAULT_MAX_INPUT = 16 << 20  # bytes of text read from a file or standard input, unless --max-input-bytes
MAX_JSON_DEPTH = 100  # lists and objects inside each other in a JSON argument


def process_escapes(data: bytes) -> bytes:
    """llama.cpp's ``string_process_escapes``: ``\\n \\r \\t \\' \\" \\\\`` and ``\\xHH``; others stay as written.

    >>> process_escapes(rb"a\\nb\\x41\\q\\x4")
    b'a\\nbA\\\\q\\\\x4'
    """
    out = bytearray()
    i, n = 0, len(data)
    simple = {ord("n"): 10, ord("r"): 13, ord("t"): 9, ord("'"): 39, ord('"'): 34, ord("\\"): 92}
    while i < n:
        c = data[i]
        if c == 0x5C and i + 1 < n:
            i += 1
            e = data[i]
            if e in simple:
                out.append(simple[e])
            elif e == ord("x") and i + 2 < n and all(chr(b) in "0123456789abcdefABCDEF" for b in data[i + 1:i + 3]):
                out.append(int(data[i + 1:i + 3], 16))
                i += 2
            else:
                out += bytes([0x5C, e])
        else:
            out.append(c)
        i += 1
    return bytes(out)


def _source(ref: str, args: argparse.Namespace):
    """The source of a model reference, with the command line's options for reading it."""
    from .sources import open_source

    return open_source(ref, allow_full_download=args.allow_full_download, timeout=args.timeout,
                       deadline=args.deadline, cache=not args.no_cache, offline=True if args.offline else None,
                       progress=args.progress, max_metadata=args.max_metadata_bytes)


def _load(ref: str, args: argparse.Namespace):
    from .tokenizer import Tokenizer

    return Tokenizer.from_gguf(_source(ref, args))  # a path that is no regular file is a GGUFError, never read


def parse_size(text: str) -> int:
    """A byte count for ``--max-input-bytes``: ``1000000``, ``64K``, ``16M``, ``2G`` (powers of 1024).

    >>> parse_size("16M"), parse_size("1k"), parse_size("123")
    (16777216, 1024, 123)
    """
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper().removesuffix("B")
    scale = units.get(t[-1:], 1)
    digits = t[:-1] if t[-1:] in units else t
    if not digits.isdigit() or len(digits) > 18 or int(digits) == 0:
        raise argparse.ArgumentTypeError(f"not a positive byte count: {text!r} (e.g. 64M)")
    return int(digits) * scale


def read_input(path: str | None, limit: int, what: str) -> bytes:
    """The bytes of ``path`` (``None``: standard input), at most ``limit`` of them, else a :class:`UsageError`.

    A path must be a regular file: a device never ends, a FIFO blocks, a directory has no bytes. Standard
    input may be anything (a pipe, a terminal, a device): it is read up to ``limit + 1`` bytes, so
    ``< /dev/zero`` stops with an error instead of filling memory.
    """
    from .metadata import open_regular_file

    label = what if path is None else f"{what} {path}"
    too_big = (f"{label} is larger than {limit:,} bytes, the limit of --max-input-bytes; "
               f"raise it (e.g. --max-input-bytes {max(2 * limit, 64 << 20) >> 20}M) to read it")
    if path is None:
        data = _read_at_most(sys.stdin.buffer, limit + 1)
    else:
        fd = open_regular_file(path, lambda why: UsageError(
            f"{label}: {why}; to read from a pipe or device, send it to standard input instead"))
        with os.fdopen(fd, "rb") as f:
            if os.fstat(fd).st_size > limit:
                raise UsageError(too_big)
            data = _read_at_most(f, limit + 1)  # the file may have grown since
    if len(data) > limit:
        raise UsageError(too_big)
    return data


def _read_at_most(f: Any, n: int) -> bytes:
    """Up to ``n`` bytes of ``f``, in blocks: ``f.read(n)`` would allocate all ``n`` at once, however
    little there is to read (and ``--max-input-bytes`` may be large)."""
    blocks, total = [], 0
    while total < n:
        block = f.read(min(1 << 20, n - total))
        if not block:
            break
        blocks.append(block)
        total += len(block)
    return b"".join(blocks)


def parse_json(text: str | bytes, what: str) -> Any:
    """``text`` as JSON, or a :class:`UsageError` saying why not: malformed, not UTF-8, or lists and objects
    nested more than :data:`MAX_JSON_DEPTH` deep (which would exhaust the stack of whatever walks them)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError as e:
            raise UsageError(f"{what} is not UTF-8 (byte {e.start}: {e.reason})") from None
    else:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as e:  # bytes of the command line that are not UTF-8 (surrogateescape)
            raise UsageError(f"{what} is not UTF-8 (character {e.start})") from None
    too_deep = UsageError(f"{what}: lists and objects are nested more than {MAX_JSON_DEPTH} deep")
    try:
        value = json.loads(text)
    except RecursionError:  # json's scanner stops cleanly at the interpreter's recursion limit
        raise too_deep from None
    except ValueError as e:  # JSONDecodeError, or an integer of more digits than Python converts
        raise UsageError(f"{what} is not JSON: {e}") from None
    stack = [(value, 1)]
    while stack:  # the depth, without recursion
        v, depth = stack.pop()
        if isinstance(v, (list, dict)):
            if depth > MAX_JSON_DEPTH:
                raise too_deep
            stack.extend((item, depth + 1) for item in (v.values() if isinstance(v, dict) else v))
    return value


def cmd_tokenize(args: argparse.Namespace) -> int:
    if args.stdin:
        data = read_input(None, args.max_input_bytes, "standard input")
    elif args.file is not None:  # exact bytes: no newline translation, no decoding
        data = read_input(args.file, args.max_input_bytes, "--file")
    elif args.prompt is not None:
        data = args.prompt.encode("utf-8", "surrogateescape")
    else:
        raise UsageError("must specify one of: --stdin, --file or --prompt")
    if not args.no_escape:
        data = process_escapes(data)
    tok = _load(args.model, args)
    # llama-tokenize passes add_special = (the model adds BOS) and not --no-bos
    ids = tok.encode(data, add_special=tok.add_bos and not args.no_bos, parse_special=not args.no_parse_special)
    out = sys.stdout.buffer
    if args.ids:
        out.write(("[" + ", ".join(map(str, ids)) + "]\n").encode())
    else:
        for i in ids:
            piece = tok.token_to_piece(i, special=True).split(b"\0")[0]  # printf("%s") stops at a NUL
            out.write(f"{i:6d} -> '".encode() + piece + b"'\n")
    if args.show_count:
        out.write(f"Total number of tokens: {len(ids)}\n".encode())
    out.flush()
    return 0


def cmd_detokenize(args: argparse.Namespace) -> int:
    tok = _load(args.model, args)
    data = tok.decode_bytes(args.ids, remove_special=args.remove_special, unparse_special=args.unparse_special)
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.buffer.flush()
    return 0


def info(path: Any) -> dict[str, Any]:
    """What the file says about its tokenizer. The file's own values come first, printed whatever their type;
    when they cannot make a tokenizer, the facts stop there and ``"error"`` says why (the key at fault).
    ``path`` is any model reference, or a source (:mod:`gguftok.sources`); ``"source"`` says where the bytes
    came from and how many were read."""
    from .errors import VocabError
    from .metadata import read_metadata
    from .sources import as_source, check_shard
    from .tokenizer import Tokenizer

    source = as_source(path)
    check_shard(source)
    md = read_metadata(source)
    check_shard(source, md)
    origin = md.origin.as_dict() if md.origin is not None else None
    facts: dict[str, Any] = {
        "file": source.reference,
        "source": origin,
        "gguf_version": md.version,
        "architecture": plain_value(md.get("general.architecture")),
        "name": plain_value(md.get("general.name")),
        "model": plain_value(md.get("tokenizer.ggml.model")),
        "pre": plain_value(md.get("tokenizer.ggml.pre")),
        "chat_template": "tokenizer.chat_template" in md,
    }
    try:
        v = Tokenizer(md).vocab
    except VocabError as e:
        return facts | {"error": str(e)}

    def named(tid: int) -> dict[str, Any] | None:
        return None if tid < 0 else {"id": tid, "text": v.texts[tid]}

    return {
        "file": facts["file"],
        "source": origin,
        "gguf_version": md.version,
        "architecture": facts["architecture"],
        "name": facts["name"],
        "model": v.model,
        "vocab_type": v.type,
        "pre": facts["pre"],
        "pre_type": v.pre_config.type if v.pre_config else None,
        "n_vocab": v.n_vocab,
        "n_merges": len(v.merges),
        "special": {k: named(t) for k, t in v.special.items() if t >= 0},
        "add_bos": v.add_bos,
        "add_eos": v.add_eos,
        "add_sep": v.add_sep,
        "add_space_prefix": v.add_space_prefix,
        "clean_spaces": v.clean_spaces,
        "eog": [named(t) for t in sorted(v.eog)],
        "n_special_tokens": len(v.special_cache),
        "chat_template": facts["chat_template"],
    }


def plain_value(value: Any) -> Any:
    """A metadata value as plain JSON data, whatever its GGUF type: NumPy arrays become lists, a float that
    JSON cannot hold (NaN, infinity) its name. The keys ``info`` shows are strings in any sane file, but a
    file may hold any of the 13 types under any key.

    >>> import numpy as np
    >>> plain_value(np.array([1, 2], dtype=np.int32)), plain_value(float("nan")), plain_value("llama")
    ([1, 2], 'nan', 'llama')
    """
    if hasattr(value, "tolist"):  # a NumPy array or scalar
        value = value.tolist()
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return [plain_value(v) for v in value]
    return value


def _shown(value: Any, limit: int = 200) -> str:
    """One line of text for the plain output: printable strings as they are, anything else as JSON or repr
    (so a name holding a newline or a terminal escape cannot break the line or drive the terminal)."""
    if value is None:
        return "-"
    if isinstance(value, str):
        text = value if value.isprintable() else repr(value)
    elif isinstance(value, (bool, int, float)):
        text = str(value)
    else:
        text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def cmd_info(args: argparse.Namespace) -> int:
    facts = info(_source(args.file, args))
    if args.json:
        # JSON is UTF-8 whatever the locale; a token text that is not UTF-8 (a lone surrogate here) is
        # written as the JSON escape \udcXX, which is what backslashreplace writes for it.
        text = json.dumps(facts, ensure_ascii=False, indent=1) + "\n"
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8", "backslashreplace"))
        sys.stdout.buffer.flush()
        return _info_status(facts)
    width = max(map(len, facts))
    for key, value in facts.items():
        if key == "error":
            continue  # on stderr, below
        if key == "source":
            continue  # on the file's line
        if key == "file" and facts.get("source"):
            origin = facts["source"]
            print(f"{key:{width}s}  {_shown(value, 400)}: {_where(origin)}; read {_read_summary(origin)}")
            continue
        if key == "special":
            value = ", ".join(f"{k}={s['id']} {s['text']!r}" for k, s in value.items()) or "-"
        elif key == "eog":
            value = ", ".join(f"{s['id']} {s['text']!r}" for s in value) or "-"
        else:
            value = _shown(value)
        print(f"{key:{width}s}  {value}")
    return _info_status(facts)


def _where(origin: dict[str, Any]) -> str:
    """Where the bytes came from, in words: ``local file``, ``Hugging Face Hub, from https://cdn/... (revision
    main is commit ...)``, ..."""
    kinds = {"file": "local file", "ollama": "Ollama blob", "hf": "Hugging Face Hub", "https": "https", "http": "http"}
    text = kinds.get(origin["kind"], origin["kind"])
    if origin["location"] != origin["reference"]:
        text += f" {_shown(origin['location'], 400)}"
    notes = [n for n in origin.get("notes") or [] if isinstance(n, str)]
    return text + (f" ({', '.join(_shown(n) for n in notes)})" if notes else "")


def _read_summary(origin: dict[str, Any]) -> str:
    from .sources import ReadReport

    fields = {k: origin[k] for k in ReadReport.__dataclass_fields__ if k in origin}
    return ReadReport(**fields).summary()


def _info_status(facts: dict[str, Any]) -> int:
    """0, or 1 with the error on stderr (as every error) when the facts could not make a tokenizer."""
    if "error" not in facts:
        return 0
    print(f"gguftok: error: {one_line(facts['error'])}", file=sys.stderr)
    return 1


def cmd_conformance(args: argparse.Namespace) -> int:
    from .conformance.cases import run_cases
    from .data import vocab_dir
    from .metadata import open_regular_file
    from .tokenizer import Tokenizer

    folder = Path(args.vocab_dir) if args.vocab_dir else vocab_dir()
    files = sorted(folder.glob("ggml-vocab-*.gguf"))
    if not files:
        raise FileNotFoundError(f"no ggml-vocab-*.gguf in {folder}: run `gguftok fetch`")
    failed = 0
    print(f"{'vocabulary':18s} {'model':10s} {'pre':16s} {'passed':>9s}")
    for path in files:
        name = path.name.removeprefix("ggml-vocab-").removesuffix(".gguf")
        for case_file in (Path(f"{path}.inp"), Path(f"{path}.out")):
            if case_file.exists():  # run_cases reads them whole: only regular files of a bounded size
                fd = open_regular_file(case_file, lambda why, f=case_file: ValueError(f"{f}: {why}"))
                size = os.fstat(fd).st_size
                os.close(fd)
                if size > DEFAULT_MAX_INPUT:
                    raise ValueError(f"{case_file} has {size:,} bytes; llama.cpp's case files have under 1 MB")
        tok = Tokenizer.from_gguf(path)
        results = run_cases(tok, path)
        v = tok.vocab
        pre = v.md.get("tokenizer.ggml.pre") or "-"
        if results is None:
            print(f"{name:18s} {v.model:10s} {pre:16s} {'no cases':>9s}")
            continue
        ok = sum(r.ok for r in results)
        print(f"{name:18s} {v.model:10s} {pre:16s} {ok:>4d}/{len(results):<4d}")
        def pieces(ids: list[int] | str, tok=tok) -> list[str] | str:
            if isinstance(ids, str):
                return ids
            return [tok.token_to_piece(i, special=True).decode("utf-8", "replace") for i in ids]

        for r in results:
            if not r.ok:
                failed += 1
                print(f"    {r.text[:60]!r}\n      llama.cpp {pieces(r.expected)}\n      gguftok   {pieces(r.got)}")
    return 1 if failed else 0


def why_other(ref: str, args: argparse.Namespace) -> Any:
    """What ``--other`` names, by what the file is: a GGUF file (its magic) becomes a gguftok Tokenizer, a JSON
    file a ``tokenizers.Tokenizer``; a remote reference (``https://``, ``hf://``, ``ollama:``) is a GGUF."""
    from .disagree.engines import load_tokenizer_json
    from .metadata import open_regular_file
    from .sources import kind_of

    if kind_of(ref) != "file":
        return _load(ref, args)
    if ref.startswith("file://"):
        import urllib.parse

        ref = urllib.parse.unquote(urllib.parse.urlsplit(ref).path)
    try:
        fd = open_regular_file(ref, lambda why: UsageError(f"--other {ref}: {why}"))
    except FileNotFoundError:
        raise UsageError(f"--other {ref}: no such file (a tokenizer.json or a GGUF file)") from None
    with os.fdopen(fd, "rb") as f:
        head = f.read(64)
    if head[:4] == b"GGUF":
        return _load(ref, args)
    if head.removeprefix(b"\xef\xbb\xbf").lstrip()[:1] == b"{":
        load_tokenizer_json(ref)  # an OtherEngineError now, before the model is read, if it does not load
        return ref  # the path itself: the explanation names the other engine by its file name
    raise UsageError(f"--other {ref}: neither a GGUF file (no GGUF magic) nor a tokenizer.json (not a JSON object)")


def parse_ids(text: str, what: str) -> list[int]:
    """A JSON list of token ids (``--ids``, ``--decode``), or a :class:`UsageError` saying what is wrong."""
    ids = parse_json(text, what)
    if not isinstance(ids, list) or not all(type(i) is int for i in ids):
        raise UsageError(f"{what} must be a JSON list of integers, e.g. [9707, 1879]")
    return ids


def cmd_why(args: argparse.Namespace) -> int:
    """Why another engine tokenizes (or decodes) otherwise than llama.cpp: the stage, the rule, the evidence."""
    if args.decode is not None:
        if args.ids is not None:
            raise UsageError("--ids gives another engine's encoding; it cannot explain a decoding (--decode): "
                             "use --other or --transformers")
        for given, option in ((args.text is not None, "TEXT"), (args.file is not None, "--file"),
                              (args.stdin, "--stdin"), (args.no_add_special, "--no-add-special"),
                              (args.parse_special, "--parse-special")):
            if given:
                raise UsageError(f"{option} is for encoding; --decode explains the decoding of its ids")
        decode_ids = parse_ids(args.decode, "--decode")
        text = None
    else:
        if args.remove_special:
            raise UsageError("--remove-special is for decoding (--decode IDS)")
        if args.text is not None and (args.file is not None or args.stdin):
            raise UsageError("give the text once: TEXT, --file or --stdin")
        if args.stdin:
            data = read_input(None, args.max_input_bytes, "standard input")
        elif args.file is not None:  # exact bytes
            data = read_input(args.file, args.max_input_bytes, "--file")
        elif args.text is not None:
            data = args.text.encode("utf-8", "surrogateescape")
            if not args.no_escape:
                data = process_escapes(data)
        else:
            raise UsageError("must give the text to explain: TEXT, --file or --stdin (or --decode IDS)")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise UsageError(f"the text is not UTF-8 (byte {e.start}: {e.reason}); the engines compared take "
                             "Unicode text") from None
        decode_ids = None
    their_ids = parse_ids(args.ids, "--ids") if args.ids is not None else None
    from .disagree import explain, explain_decode, transformers_tokenizer

    tok = _load(args.model, args)
    if their_ids is not None:
        other: Any = their_ids
    elif args.transformers:
        other = transformers_tokenizer(tok)
    else:
        other = why_other(args.other, args)
    if decode_ids is not None:
        n = tok.n_vocab
        bad = next((i for i in decode_ids if not 0 <= i < n), None)
        if bad is not None:
            raise UsageError(f"--decode: token id {bad} is out of range: the vocabulary has {n} tokens")
        d = explain_decode(tok, decode_ids, other, remove_special=args.remove_special)
    else:
        d = explain(tok, text, other, add_special=not args.no_add_special, parse_special=args.parse_special)
    if args.json:
        given = {"model": args.model, "other": "transformers" if args.transformers else
                 ("ids" if their_ids is not None else args.other)}
        if decode_ids is not None:
            given |= {"decode": decode_ids, "remove_special": args.remove_special}
        else:
            given |= {"text": text, "add_special": not args.no_add_special, "parse_special": args.parse_special}
            if their_ids is not None:
                given["ids"] = their_ids
        out = {"input": given, "agree": d.stage is None, **d.to_dict()}
        data = json.dumps(out, ensure_ascii=False, indent=1, default=_json_default) + "\n"
        sys.stdout.flush()
        sys.stdout.buffer.write(data.encode("utf-8", "backslashreplace"))
        sys.stdout.buffer.flush()
    else:
        print(why_text(d))
    return 0 if d.stage is None else 1


def _json_default(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "backslashreplace")
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _ids_around(ids: list[int], at: int | None, width: int = 8) -> str:
    """Ids as ``[1, 2, 3]``; a long list as the window around ``at``, with ``...`` for the rest."""
    if len(ids) <= 2 * width + 4:
        return "[" + ", ".join(map(str, ids)) + "]"
    at = 0 if at is None else at
    lo, hi = max(0, at - width), min(len(ids), at + width + 1)
    inner = ", ".join(map(str, ids[lo:hi]))
    return (f"[{'... ' if lo else ''}{inner}{' ...' if hi < len(ids) else ''}] "
            f"({len(ids)} ids; shown from {lo})")


def why_text(d: Any) -> str:
    """The plain output of ``why``: the verdict, the explanation, both sides' results and the evidence."""
    lines = [str(d)]
    label = max(len("llama.cpp"), len(d.other))
    if d.kind == "encode":
        lines.append(f"{'llama.cpp':{label}s}  {_ids_around(d.ours, d.position)}")
        lines.append(f"{d.other:{label}s}  {_ids_around(d.theirs, d.position)}")
    else:
        lines.append(f"{'llama.cpp':{label}s}  {_json_shown(d.ours, 400)}")
        lines.append(f"{d.other:{label}s}  {_json_shown(d.theirs, 400)}")
    for stage, evidence in d.evidence.items():
        lines.append(f"evidence ({stage}):")
        items = evidence.items() if isinstance(evidence, dict) else [("", evidence)]
        for key, value in items:
            lines.append(f"  {key}: {_json_shown(value)}" if key else f"  {_json_shown(value)}")
    return "\n".join(lines)


def _json_shown(value: Any, limit: int = 300) -> str:
    """A value as one line of JSON (strings quoted, so spaces show), escaped to ASCII if it holds anything a
    terminal would not print as it is."""
    text = json.dumps(value, ensure_ascii=False, default=_json_default)
    if not text.isprintable():
        text = json.dumps(value, ensure_ascii=True, default=_json_default)
    return text if len(text) <= limit else text[:limit - 3] + "..."


# What a --var cannot name: the parameters of the calls it is passed to (they would collide with it), and
# for those that have one, the option that sets it instead.
_OPTION_FOR = {"messages": "--messages or --messages-file", "tools": "--tools", "documents": "--documents",
               "template": "--template", "add_generation_prompt": "--no-generation-prompt", "add_special": "--no-bos",
               "unsafe_parse_special_in_content": "--unsafe-parse-special-in-content"}


def reserved_variables() -> set[str]:
    """The names a ``--var`` may not take: every named parameter of the functions ``chat`` calls with the
    variables as keyword arguments (read from their signatures, so the list cannot fall behind them)."""
    import inspect

    from .chat import ChatTemplate, encode_chat
    from .tokenizer import Tokenizer

    names = set(_OPTION_FOR)
    for f in (Tokenizer.encode_chat, encode_chat, ChatTemplate.render):  # (a bound method's self collides too)
        names |= {p.name for p in inspect.signature(f).parameters.values()
                  if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
    return names


def chat_variables(pairs: list[str]) -> dict[str, Any]:
    """The ``--var KEY=JSON`` options as a dict, or a :class:`UsageError` naming the one at fault."""
    reserved = reserved_variables()
    variables: dict[str, Any] = {}
    for pair in pairs:
        name, eq, value = pair.partition("=")
        if not eq:
            raise UsageError(f"--var {pair!r}: expected KEY=JSON, e.g. --var enable_thinking=true")
        if not name.isidentifier():
            raise UsageError(f"--var {name!r}: a template variable is a name (letters, digits, _)")
        if name in reserved:
            how = f"use {_OPTION_FOR[name]}" if name in _OPTION_FOR else "it is a parameter of gguftok's own"
            raise UsageError(f"--var {name}: not a template variable the command line can set; {how}")
        if name in variables:
            raise UsageError(f"--var {name} is given twice")
        variables[name] = parse_json(value, f"--var {name}")
    return variables


def cmd_chat(args: argparse.Namespace) -> int:
    if args.messages is not None:
        messages = parse_json(args.messages, "--messages")
    else:
        what = "standard input" if args.messages_file is None else "--messages-file"
        data = read_input(args.messages_file, args.max_input_bytes, what)
        messages = parse_json(data, what if args.messages_file is None else f"{what} {args.messages_file}")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise UsageError("--messages must be a JSON list of {\"role\": ..., \"content\": ...} objects")
    lists = {}
    for option in ("tools", "documents"):
        text = getattr(args, option)
        if text is not None:
            lists[option] = parse_json(text, f"--{option}")
            if not isinstance(lists[option], list):
                raise UsageError(f"--{option} must be a JSON list")
    variables = chat_variables(args.var)
    tok = _load(args.file, args)
    agp = not args.no_generation_prompt
    out = sys.stdout.buffer
    if args.text:
        text = tok.chat_template(args.template).render(messages, agp, **lists, **variables)
        out.write(text.encode("utf-8", "surrogatepass"))
        out.flush()
        return 0
    ids = tok.encode_chat(messages, agp, template=args.template, add_special=not args.no_bos,
                          unsafe_parse_special_in_content=args.unsafe_parse_special_in_content, **lists, **variables)
    if args.ids:
        out.write(("[" + ", ".join(map(str, ids)) + "]\n").encode())
    else:
        for i in ids:
            piece = tok.token_to_piece(i, special=True).split(b"\0")[0]
            out.write(f"{i:6d} -> '".encode() + piece + b"'\n")
    out.flush()
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    """``gguftok cache list`` (the default) and ``gguftok cache clear``: gguftok's cache of remote metadata."""
    from .sources.cache import MetadataCache

    cache = MetadataCache()
    if args.action == "clear":
        files, freed = cache.clear()
        print(f"removed {files} file{'s' if files != 1 else ''} ({freed:,} bytes) from {cache.root}")
        return 0
    kept = cache.entries()
    if args.json:
        print(json.dumps({"root": str(cache.root), "files": [
            {"blob": e.blob, "path": str(e.path), "bytes": e.length, "size": e.size, "location": e.location,
             "stored": e.stored, "references": e.references, "keys": e.keys} for e in kept]}, indent=1))
        return 0
    total = sum(e.length for e in kept)
    print(f"{cache.root}: {len(kept)} kept file start{'s' if len(kept) != 1 else ''}, {total:,} bytes")
    for e in kept:
        names = ", ".join(e.references) or e.location or e.blob
        print(f"  {e.stored or '?':20s} {e.length:>13,} of {e.size:>16,} bytes  {one_line(names)}")
    return 0


def cmd_prepare(args: argparse.Namespace) -> int:
    """``gguftok prepare MODEL...``: what makes new words cheap, found once per vocabulary and kept on disk."""
    for ref in args.files:
        tok = _load(ref, args)
        if tok.prepared and not args.force:
            print(f"{ref}: already prepared")
            continue
        kept = tok.prepare()
        if not tok.prepared:
            why = ("ignore_merges: a word that is a token is taken whole already" if tok.vocab.ignore_merges
                   else f"nothing to prepare for a {tok.vocab.type} vocabulary")
            print(f"{ref}: {why}")
            continue
        where = f"kept in {kept}" if kept else "not kept (no digest of its tokens and merges)"
        if tok.vocab.type == "spm":
            print(f"{ref}: {len(tok.model.junctions):,} pairs of characters that a merge can join; {where}")
            continue
        apart = len(tok.model.apart)
        print(f"{ref}: {apart:,} of {tok.n_vocab:,} tokens do not merge back into themselves; {where}")
    return 0


def cmd_fetch(args: argparse.Namespace) -> int:
    from .data import fetch

    fetch(Path(args.dest) if args.dest else None)
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from .doctor import environment_check

    report = environment_check()
    print(report.text)
    return 0 if report.ok else 1


EXPORT_FUZZ = 2000  # fuzz texts of export --verify, unless --fuzz
_INEXACT = {None: True, "decode": "encode", "all": False}  # --inexact -> to_tokenizers(exact=...)


def _count(text: str) -> int:
    """A number of inputs (``--fuzz``): 0 or more.

    >>> _count("20000")
    20000
    """
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"not a count (0 or more): {text!r}")
    return int(text)


def _difference_text(d: Any) -> str:
    return f"{d.stage}: {d.rule}" + (f" (e.g. {d.example!r})" if d.example else "")


def reference_vocabulary(path: str | os.PathLike[str]) -> tuple[str, str] | None:
    """``(name, sha256)`` when the file at ``path`` is one of llama.cpp's reference vocabularies (by the sha256
    of ``data/manifest.json``, computed only for a file of a manifest size), else ``None``."""
    from .data import load_manifest, sha256_of

    try:
        size = os.stat(path).st_size
    except OSError:
        return None
    manifest = load_manifest()
    candidates = {str(f["sha256"]): n for n, f in manifest.items() if n.endswith(".gguf") and f["size"] == size}
    if not candidates:
        return None
    digest = sha256_of(Path(path))
    name = candidates.get(digest)
    return None if name is None else (name.removeprefix("ggml-vocab-").removesuffix(".gguf"), digest)


def golden_fixture(name: str, sha256: str) -> Any:
    """The golden fixture recorded from llama.cpp for the reference vocabulary ``name`` (``None`` if there is
    none, or it was recorded from another file: its header's sha256)."""
    from .conformance.golden import GOLDEN_DIR, read_fixture

    path = GOLDEN_DIR / f"{name}.jsonl.xz"
    if not path.is_file():
        return None
    fixture = read_fixture(path)
    return fixture if fixture.header.get("sha256") == sha256 else None


def _engine(folder: Path) -> tuple[Any, str]:
    """The exported folder loaded back (:func:`gguftok.export.files.load_back`)."""
    from .export.files import load_back

    return load_back(folder)


def _verify_folder(tok: Any, folder: Path, gguf: Path | None, fuzz: int, seed: int, name: str,
                   differences: list) -> tuple[Any, str]:
    """:func:`gguftok.export.verify.verify` of the folder written for ``tok``, on llama.cpp's cases (beside
    ``gguf``, else beside the reference vocabulary it is), the golden fixture of a reference vocabulary,
    ``fuzz`` texts and the example text of each known difference; the
    :class:`~gguftok.export.verify.Verification`, and what read the folder."""
    from .data import vocab_dir
    from .export.verify import verify

    fixture = None
    cases = gguf if gguf is not None and Path(f"{gguf}.inp").exists() else None
    ref = reference_vocabulary(gguf) if gguf is not None else None
    if ref is not None:
        fixture = golden_fixture(*ref)
        if cases is None and Path(f"{vocab_dir() / f'ggml-vocab-{ref[0]}.gguf'}.inp").exists():
            cases = vocab_dir() / f"ggml-vocab-{ref[0]}.gguf"
    engine, label = _engine(folder)
    examples = [d.example for d in differences if d.example]
    return verify(tok, engine, gguf=cases, fixture=fixture, fuzz=fuzz, seed=seed, extra=examples, name=name,
                  keep=5), label


def _local_path(ref: str) -> Path | None:
    from .sources import kind_of

    if kind_of(ref) != "file":
        return None
    if ref.startswith("file://"):
        import urllib.parse

        ref = urllib.parse.unquote(urllib.parse.urlsplit(ref).path)
    return Path(ref) if Path(ref).is_file() else None


def cmd_corpus(args: argparse.Namespace) -> int:
    """Token ids of every document of a corpus, to Parquet, on Dask (a local cluster, or --scheduler)."""
    from .corpus import run

    progress = args.progress if args.progress is not None else sys.stderr.isatty()
    summary = run(args.model, args.inputs, args.output, column=args.column, lang_column=args.lang_column,
                  lines=args.lines, scheduler=args.scheduler, workers=args.workers, add_special=not args.no_add_special,
                  parse_special=args.parse_special, progress=progress)
    n, tokens, chars = summary["documents"], summary["tokens"], summary["chars"]
    print(f"wrote {args.output}: {n} documents, {tokens} tokens, {chars} characters "
          f"({tokens / max(1, chars):.4f} tokens per character)")
    for lang, c in summary.get("by_language", {}).items():
        print(f"  {lang}: {c['tokens']} tokens, {c['chars']} characters ({c['tokens'] / max(1, c['chars']):.4f})")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """The model's tokenizer as a folder transformers' AutoTokenizer loads, refused unless its ids are exact."""
    if args.all_reference:
        for given, option in ((args.model is not None, "MODEL"), (args.inexact is not None, "--inexact"),
                              (args.verify, "--verify")):
            if given:
                raise UsageError(f"{option} is for one model; --all-reference exports and verifies every "
                                 "reference vocabulary, each with its known differences")
        return _export_all_reference(args)
    if args.vocab_dir is not None:
        raise UsageError("--vocab-dir is for --all-reference")
    if args.model is None:
        raise UsageError("must give the MODEL to export (or --all-reference)")
    if args.output is None:
        raise UsageError("must give the folder to write: -o DIR")
    if args.fuzz is not None and not args.verify:
        raise UsageError("--fuzz is for --verify")
    from .export import build, plan
    from .export.files import save_pretrained

    exact = _INEXACT[args.inexact]
    tok = _load(args.model, args)
    stages = plan(tok)
    diffs = stages.differences
    refused = [] if exact is False else [d for d in diffs if exact is True or d.stage != "decoder"]
    if refused:
        how = "--inexact decode" if all(d.stage == "decoder" for d in refused) else "--inexact all"
        for d in refused:
            print(f"gguftok export: not exact: {one_line(_difference_text(d))}; export anyway with {how}",
                  file=sys.stderr)
        return 1
    folder = Path(args.output)
    paths = save_pretrained(tok, folder, exact, tokenizer=build(stages), split_special_tokens=args.split_special_tokens)
    what = "exact" if not diffs else f"{len(diffs)} known difference{'s' if len(diffs) != 1 else ''}"
    print(f"wrote {one_line(str(folder))}: {', '.join(p.name for p in paths)} ({what})")
    for d in diffs:
        print(f"known difference: {one_line(_difference_text(d))}")
    if not args.verify:
        return 0
    fuzz = EXPORT_FUZZ if args.fuzz is None else args.fuzz
    local = _local_path(args.model)
    report, engine = _verify_folder(tok, folder, local, fuzz, args.seed, local.name if local else args.model, diffs)
    print(f"verified with {engine}:")
    print(one_line(report.line()))
    for m in report.mismatches[:5]:
        print(f"  {one_line(str(m))[:400]}")
    return 1 if report.differences else 0


def _export_all_reference(args: argparse.Namespace) -> int:
    """Every reference vocabulary exported (known differences and all), written, loaded back and verified: one
    agreement line each. Exit status 1 if one that exports exactly disagrees anywhere."""
    import tempfile

    from .data import vocab_dir
    from .errors import ExportError
    from .export import build, plan
    from .export.files import save_pretrained
    from .tokenizer import Tokenizer

    folder = Path(args.vocab_dir) if args.vocab_dir else vocab_dir()
    files = sorted(folder.glob("ggml-vocab-*.gguf"))
    if not files:
        raise FileNotFoundError(f"no ggml-vocab-*.gguf in {folder}: run `gguftok fetch`")
    fuzz = 20000 if args.fuzz is None else args.fuzz
    failed = 0
    with tempfile.TemporaryDirectory(prefix="gguftok-export-") as scratch:
        out = Path(args.output) if args.output else Path(scratch)
        for path in files:
            name = path.name.removeprefix("ggml-vocab-").removesuffix(".gguf")
            tok = Tokenizer.from_gguf(path)
            try:
                stages = plan(tok)
            except ExportError as e:
                print(f"{name:24s} not exported: {one_line(str(e))}", flush=True)
                continue
            save_pretrained(tok, out / name, tokenizer=build(stages), split_special_tokens=args.split_special_tokens)
            diffs = stages.differences
            report, _ = _verify_folder(tok, out / name, path, fuzz, args.seed, name, diffs)
            stages_named = sorted({d.stage for d in diffs})
            status = "exact" if not diffs else f"{len(diffs)} known differences: {', '.join(stages_named)}"
            print(f"{one_line(report.line())} [{status}]", flush=True)
            if report.differences and not diffs:
                failed += 1
            for m in report.mismatches[:5 if not diffs else 2]:
                print(f"  {one_line(str(m))[:400]}", flush=True)
    return 1 if failed else 0


class UsageError(GguftokError):
    """A command line that cannot be carried out (exit status 2)."""


def one_line(text: str) -> str:
    """``text`` on one line of printable characters: a newline, a tab or a terminal escape (from a file name,
    a metadata value, a template) is written as its escape, so an error message is always one line.

    >>> one_line("bad\\nname\\x1b[2J")
    'bad\\\\nname\\\\x1b[2J'
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


class _ArgumentParser(argparse.ArgumentParser):
    """argparse, with its errors on one line (the usage is one ``--help`` away) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see {self.prog} --help)\n")


def positive_seconds(text: str) -> float:
    """A number of seconds for ``--timeout`` / ``--deadline``.

    >>> positive_seconds("2.5")
    2.5
    """
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"not a positive number of seconds: {text!r}")
    return value


MODEL_HELP = ("the model: a GGUF path (or the first shard of a split model), an https:// URL, "
              "hf://owner/repo/file.gguf[@revision] or ollama:model[:tag]; only its metadata is read")


def add_source_options(p: argparse.ArgumentParser) -> None:
    """The options of every subcommand that reads a model: how a remote one is read."""
    g = p.add_argument_group("reading the model", "A remote model is read with HTTP range requests until its "
                             "metadata ends, and that metadata is kept in gguftok's cache (so a second load is "
                             "local).")
    g.add_argument("--allow-full-download", action="store_true",
                   help="if the server ignores range requests, read its full response from the start anyway "
                   "(refused otherwise: a whole model file is never downloaded unasked)")
    g.add_argument("--timeout", type=positive_seconds, default=30.0, metavar="S",
                   help="give up when a remote read waits S seconds for data (default 30)")
    g.add_argument("--deadline", type=positive_seconds, default=300.0, metavar="S",
                   help="give up when a remote read takes more than S seconds in all (default 300)")
    g.add_argument("--no-cache", action="store_true", help="neither use nor fill gguftok's cache of remote metadata")
    g.add_argument("--offline", action="store_true",
                   help="no network: read remote models from gguftok's cache only (also GGUFTOK_OFFLINE=1)")
    g.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="show a progress bar for remote reads (default: when standard error is a terminal)")
    g.add_argument("--max-metadata-bytes", type=parse_size, default=256 << 20, metavar="N",
                   help="read at most this much of a remote model (default 256M; K, M, G suffixes)")


def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(prog="gguftok", description="The tokenizer inside a GGUF file, with "
                             "llama.cpp's exact token ids.")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("tokenize", help="text to token ids, printed as llama-tokenize prints them",
                       description="Text to token ids, as llama.cpp's llama-tokenize: by default special "
                       "tokens are added (if the model adds BOS) and special text is parsed.")
    p.add_argument("-m", "--model", required=True, help=MODEL_HELP)
    src = p.add_mutually_exclusive_group()
    src.add_argument("-p", "--prompt", help="the text to tokenize")
    src.add_argument("-f", "--file", help="read the text from this file, as exact bytes")
    src.add_argument("--stdin", action="store_true", help="read the text from standard input")
    p.add_argument("--ids", action="store_true", help="print only the ids, as [1, 2, 3]")
    p.add_argument("--no-bos", action="store_true", help="do not add BOS (nor other special tokens)")
    p.add_argument("--no-parse-special", action="store_true", help="treat special-token text as plain text")
    p.add_argument("--show-count", action="store_true", help="print the number of tokens at the end")
    p.add_argument("--no-escape", action="store_true",
                   help="do not process escapes (\\n, \\t, \\xHH, ...) as llama.cpp does by default")
    p.add_argument("--log-disable", action="store_true", help="accepted for compatibility (gguftok never logs)")
    p.add_argument("--max-input-bytes", type=parse_size, default=DEFAULT_MAX_INPUT, metavar="N",
                   help="read at most this much text from --file or --stdin (default 16M; K, M, G suffixes)")
    add_source_options(p)
    p.set_defaults(func=cmd_tokenize)

    p = sub.add_parser("detokenize", help="token ids to text, as llama_detokenize",
                       description="Token ids to text (raw bytes on standard output, then a newline).")
    p.add_argument("-m", "--model", required=True, help=MODEL_HELP)
    p.add_argument("--remove-special", action="store_true", help="drop a leading BOS / trailing EOS")
    p.add_argument("--unparse-special", action="store_true", help="render control tokens as their text")
    p.add_argument("ids", nargs="+", type=int, metavar="ID")
    add_source_options(p)
    p.set_defaults(func=cmd_detokenize)

    p = sub.add_parser("info", help="what a GGUF file says about its tokenizer",
                       description="Vocabulary type, pre-tokenizer, sizes, special ids and texts, flags, EOG set; "
                       "where the bytes came from and how many were read. Reads only the metadata, so a multi-GB "
                       "model is fast, on disk, on the Hub or behind a URL.")
    p.add_argument("file", metavar="MODEL", help=MODEL_HELP)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_source_options(p)
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("chat", help="a conversation through the model's chat template, to token ids",
                       description="Renders the messages with the file's chat template (sandboxed) and tokenizes "
                       "them: the template's special tokens are read, special-token text inside messages is not.")
    p.add_argument("file", metavar="MODEL", help=MODEL_HELP)
    src = p.add_mutually_exclusive_group()
    src.add_argument("--messages", help='a JSON list, e.g. \'[{"role": "user", "content": "Hi"}]\'')
    src.add_argument("--messages-file", help="read the JSON list from this file (default: standard input)")
    p.add_argument("--template", help="a named template (tokenizer.chat_template.NAME)")
    p.add_argument("--tools", help="a JSON list of tool definitions for the template")
    p.add_argument("--documents", help="a JSON list of documents for the template (retrieval, e.g. Command-R)")
    p.add_argument("--var", action="append", default=[], metavar="KEY=JSON",
                   help="a template variable, e.g. enable_thinking=true (repeatable)")
    p.add_argument("--no-generation-prompt", action="store_true", help="do not open an assistant turn at the end")
    p.add_argument("--no-bos", action="store_true", help="add no special tokens beyond what the template writes")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--ids", action="store_true", help="print only the ids, as [1, 2, 3]")
    out.add_argument("--text", action="store_true", help="print the rendered text instead of tokens")
    p.add_argument("--unsafe-parse-special-in-content", action="store_true",
                   help="read special-token text inside messages as tokens too (what most engines do)")
    p.add_argument("--max-input-bytes", type=parse_size, default=DEFAULT_MAX_INPUT, metavar="N",
                   help="read at most this much JSON from --messages-file or standard input (default 16M)")
    add_source_options(p)
    p.set_defaults(func=cmd_chat)

    p = sub.add_parser("cache", help="list or clear gguftok's cache of remote metadata",
                       description="The start of each remote model read (its metadata) is kept on disk, so a "
                       "second load is local: list shows what is kept (when, how many bytes of how large a file, "
                       "asked for as what), clear removes it all. Where: $GGUFTOK_METADATA_CACHE, else metadata/ "
                       "in gguftok's cache folder.")
    p.add_argument("action", nargs="?", choices=("list", "clear"), default="list")
    p.add_argument("--json", action="store_true", help="machine-readable output (list)")
    p.set_defaults(func=cmd_cache)

    p = sub.add_parser("prepare", help="make a model's new words cheap to encode, once (kept on disk)",
                       description="Byte pair encoding: finds the few tokens whose own text does not merge back "
                       "into them (seconds), and keeps their ids on disk, named by the bytes of the file's tokens "
                       "and merges, so that every later load takes any other new word that is a token with a "
                       "lookup instead of a merge loop. The ids are the same either way. Where: $GGUFTOK_TABLES, "
                       "else tables/ in gguftok's cache folder.")
    p.add_argument("files", nargs="+", metavar="MODEL", help=MODEL_HELP)
    p.add_argument("--force", action="store_true", help="prepare again, even where a table is kept")
    add_source_options(p)
    p.set_defaults(func=cmd_prepare)

    p = sub.add_parser("conformance", help="llama.cpp's own test cases on every vocabulary",
                       description="Runs llama.cpp's .inp/.out cases for every ggml-vocab-*.gguf in the folder; "
                       "exit status 1 if any case differs.")
    p.add_argument("--vocab-dir", help="default: the fetched data/vocab")
    p.set_defaults(func=cmd_conformance)

    p = sub.add_parser("why", help="why another engine tokenizes a text otherwise than llama.cpp",
                       description="Encodes TEXT with MODEL (llama.cpp's rules) and with another engine under the "
                       "same flags; if the ids differ, runs both pipelines stage by stage and names the stage where "
                       "they part (flags, special-match, special-context, normalizer, pre-tokenizer, model, bos-eos), "
                       "the rule on each side and the evidence. --decode IDS explains a decoding instead. Exit "
                       "status: 0 the engines agree, 1 they disagree, 2 anything else (a bad command line, a file "
                       "that cannot be read, a tokenizer that does not load).")
    p.add_argument("model", metavar="MODEL", help=MODEL_HELP)
    p.add_argument("text", nargs="?", metavar="TEXT",
                   help="the text to explain; escapes (\\n, \\t, \\xHH, ...) are processed as in tokenize -p")
    src = p.add_mutually_exclusive_group()
    src.add_argument("-f", "--file", help="read the text from this file, as exact bytes (UTF-8)")
    src.add_argument("--stdin", action="store_true", help="read the text from standard input, as exact bytes")
    other = p.add_mutually_exclusive_group(required=True)
    other.add_argument("--other", metavar="TOKENIZER",
                       help="the other engine: a tokenizer.json, or a second GGUF file (a path, https://, hf:// "
                       "or ollama: reference); a local file is told apart by its content")
    other.add_argument("--transformers", action="store_true",
                       help="the other engine is transformers' own conversion of MODEL (what gguf_file= builds)")
    other.add_argument("--ids", metavar="JSON",
                       help="the ids another engine gave for TEXT, as a JSON list (the stage is then narrowed "
                       "down from the ids alone)")
    p.add_argument("--decode", metavar="IDS", help="explain the decoding of these ids (a JSON list) instead")
    p.add_argument("--no-add-special", action="store_true",
                   help="add no BOS/EOS on either side (transformers: add_special_tokens=False)")
    p.add_argument("--parse-special", action="store_true",
                   help="read special-token text as tokens on both sides (transformers: split_special_tokens="
                   "False)")
    p.add_argument("--remove-special", action="store_true",
                   help="with --decode: drop special tokens (transformers: skip_special_tokens=True)")
    p.add_argument("--no-escape", action="store_true", help="take TEXT as written, without processing escapes")
    p.add_argument("--json", action="store_true",
                   help="machine-readable output: the input, and the stage, explanation and evidence")
    p.add_argument("--max-input-bytes", type=parse_size, default=DEFAULT_MAX_INPUT, metavar="N",
                   help="read at most this much text from --file or --stdin (default 16M; K, M, G suffixes)")
    add_source_options(p)
    p.set_defaults(func=cmd_why, failure_status=2)

    p = sub.add_parser("export", help="the tokenizer as a folder transformers' AutoTokenizer loads, same ids",
                       description="Writes tokenizer.json, tokenizer_config.json and special_tokens_map.json into "
                       "DIR (gguftok.export.files): AutoTokenizer.from_pretrained(DIR) and tokenizers then give "
                       "llama.cpp's ids. A tokenizer whose pipeline cannot follow every one of llama.cpp's rules is "
                       "refused (exit status 1, one line per difference) unless --inexact says which differences "
                       "to accept. --verify loads the folder back and compares it with gguftok on llama.cpp's test "
                       "cases, the golden fixture of a reference vocabulary and fuzz texts (exit status 1 if any "
                       "differ). --all-reference does that for every reference vocabulary.")
    p.add_argument("model", nargs="?", metavar="MODEL", help=MODEL_HELP)
    p.add_argument("-o", "--output", metavar="DIR",
                   help="the folder to write (made if missing; files of the same names are replaced); with "
                   "--all-reference, each vocabulary in DIR/NAME (default: a temporary folder)")
    p.add_argument("--inexact", choices=("decode", "all"),
                   help="export anyway: decode accepts differences in decoding only, all accepts every known "
                   "difference (each is printed)")
    p.add_argument("--split-special-tokens", action="store_true",
                   help="make transformers' default llama.cpp's parse_special=False (special-token text stays "
                   "text unless split_special_tokens=False is passed)")
    p.add_argument("--verify", action="store_true",
                   help="load the folder back and compare it with gguftok on every input source (see above)")
    p.add_argument("--fuzz", type=_count, metavar="N",
                   help=f"fuzz texts to verify on (default {EXPORT_FUZZ}; 20000 with --all-reference)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the fuzz texts' seed (default 0)")
    p.add_argument("--all-reference", action="store_true",
                   help="export and verify each of the reference vocabularies (in --vocab-dir), one line each; "
                   "exit status 1 if one that exports exactly differs anywhere")
    p.add_argument("--vocab-dir", help="with --all-reference: default the fetched data/vocab")
    add_source_options(p)
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("corpus", help="token ids of every document of a corpus, to Parquet, on Dask",
                       description="Reads Parquet files or folders (the text in --column) or text files (one "
                       "document each, or one per line with --lines), encodes every document on a Dask cluster "
                       "(local worker processes, or the scheduler at --scheduler tcp://host:8786), and writes the ids "
                       "(list<int32>), n_tokens and n_chars of each to OUT, with the file name or --lang-column. Each "
                       "worker loads the tokenizer once from MODEL's reference. Needs pip install gguftok[dask].")
    p.add_argument("model", metavar="MODEL", help=MODEL_HELP)
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="Parquet files or folders, or text files")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="the Parquet folder to write")
    p.add_argument("--column", default="text", help="the text's column in Parquet inputs (default text)")
    p.add_argument("--lang-column", metavar="COLUMN", help="a language column: kept, and counts per language")
    p.add_argument("--lines", action="store_true", help="a text file holds one document per line")
    p.add_argument("--scheduler", metavar="ADDR", help="a running Dask scheduler (default: a local cluster)")
    p.add_argument("--workers", type=_count, default=0, metavar="N",
                   help="local worker processes (default: one per CPU)")
    p.add_argument("--no-add-special", action="store_true", help="no BOS/EOS (add_special=False)")
    p.add_argument("--parse-special", action="store_true",
                   help="read special-token text as control tokens (never for untrusted text)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar on stderr (default: when stderr is a terminal)")
    p.set_defaults(func=cmd_corpus)

    p = sub.add_parser("fetch", help="download and verify llama.cpp's 19 reference vocabularies",
                       description="Downloads the pinned llama-cpp-python sdist once, checks it, extracts the "
                       "vocabularies and their test cases.")
    p.add_argument("--dest", help="default: data/vocab of the repository")
    p.set_defaults(func=cmd_fetch)

    p = sub.add_parser("doctor", help="check what the workbook needs, with the fix for anything missing",
                       description="Python, the packages, the 19 vocabularies (sha256), the widgets front end, the "
                       "optional oracle and voila; exit status 1 if something needed is missing.")
    p.set_defaults(func=cmd_doctor)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and getattr(args, "command", None) == "why" and args.text is None:
        # argparse fills an optional positional only beside the other positionals (MODEL TEXT): a TEXT after
        # an option (why MODEL --transformers TEXT, or -- TEXT) comes back unrecognized, and is that TEXT
        rest = extra[1:] if extra[0] == "--" else extra
        if len(rest) == 1 and (extra[0] == "--" or not rest[0].startswith("-")):
            args.text, extra = rest[0], []
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if hasattr(sys.stdout, "reconfigure"):  # text a locale cannot show is escaped, never a crash halfway
        sys.stdout.reconfigure(errors="backslashreplace")
    prog = f"{parser.prog} {args.command}"
    failed = getattr(args, "failure_status", 1)  # why: 1 is its answer (they disagree), so a failure is 2
    try:
        return args.func(args)
    except BrokenPipeError:  # the reader went away (``gguftok info x | head``): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        if args.debug:
            raise
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except UsageError as e:
        if args.debug:
            raise
        print(f"{prog}: error: {one_line(str(e))} (see {prog} --help)", file=sys.stderr)
        return 2
    except (GguftokError, OSError, ValueError, IndexError, NotImplementedError) as e:
        if args.debug:
            raise
        print(f"gguftok: error: {one_line(str(e))}", file=sys.stderr)
        return failed
    except Exception as e:  # a bug: still one line, with the way to see more
        if args.debug:
            raise
        print(f"gguftok: internal error (please report it, with the traceback --debug shows): "
              f"{type(e).__name__}: {one_line(str(e))}", file=sys.stderr)
        return failed


if __name__ == "__main__":
    sys.exit(main())
