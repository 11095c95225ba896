"""The ``gguftok`` command: tokenize, detokenize, inspect and check, in llama.cpp's conventions.

    gguftok tokenize -m model.gguf -p "Hello world"          # like llama-tokenize, diffable line for line
    gguftok tokenize -m model.gguf -f prompt.txt --ids
    gguftok detokenize -m model.gguf 9707 1879 0
    gguftok info model.gguf [--json]
    gguftok chat model.gguf --messages '[{"role": "user", "content": "Hi"}]'
    gguftok conformance                                      # llama.cpp's own cases on every vocabulary
    gguftok fetch                                            # the pinned reference vocabularies

Errors print one line on stderr and exit 1 (2 for a bad command line); ``--debug`` shows the traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .errors import GguftokError


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


def _load(path: str):
    from .tokenizer import Tokenizer

    if not Path(path).is_file():
        raise FileNotFoundError(f"no such file: {path}")
    return Tokenizer.from_gguf(path)


def cmd_tokenize(args: argparse.Namespace) -> int:
    if args.stdin:
        data = sys.stdin.buffer.read()
    elif args.file is not None:
        data = Path(args.file).read_bytes()  # exact bytes: no newline translation, no decoding
    elif args.prompt is not None:
        data = args.prompt.encode("utf-8", "surrogateescape")
    else:
        raise UsageError("must specify one of: --stdin, --file or --prompt")
    if not args.no_escape:
        data = process_escapes(data)
    tok = _load(args.model)
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
    tok = _load(args.model)
    data = tok.decode_bytes(args.ids, remove_special=args.remove_special, unparse_special=args.unparse_special)
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.buffer.flush()
    return 0


def info(path: str) -> dict[str, Any]:
    from .metadata import read_metadata
    from .tokenizer import Tokenizer

    md = read_metadata(path)
    tok = Tokenizer(md)
    v = tok.vocab

    def named(tid: int) -> dict[str, Any] | None:
        return None if tid < 0 else {"id": tid, "text": v.texts[tid]}

    return {
        "file": str(path),
        "gguf_version": md.version,
        "architecture": md.get("general.architecture"),
        "name": md.get("general.name"),
        "model": v.model,
        "vocab_type": v.type,
        "pre": md.get("tokenizer.ggml.pre"),
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
        "chat_template": "tokenizer.chat_template" in md,
    }


def cmd_info(args: argparse.Namespace) -> int:
    if not Path(args.file).is_file():
        raise FileNotFoundError(f"no such file: {args.file}")
    facts = info(args.file)
    if args.json:
        print(json.dumps(facts, ensure_ascii=False, indent=1))
        return 0
    width = max(map(len, facts))
    for key, value in facts.items():
        if key == "special":
            value = ", ".join(f"{k}={s['id']} {s['text']!r}" for k, s in value.items()) or "-"
        elif key == "eog":
            value = ", ".join(f"{s['id']} {s['text']!r}" for s in value) or "-"
        print(f"{key:{width}s}  {value if value is not None else '-'}")
    return 0


def cmd_conformance(args: argparse.Namespace) -> int:
    from .conformance.cases import run_cases
    from .data import vocab_dir
    from .tokenizer import Tokenizer

    folder = Path(args.vocab_dir) if args.vocab_dir else vocab_dir()
    files = sorted(folder.glob("ggml-vocab-*.gguf"))
    if not files:
        raise FileNotFoundError(f"no ggml-vocab-*.gguf in {folder}: run `gguftok fetch`")
    failed = 0
    print(f"{'vocabulary':18s} {'model':10s} {'pre':16s} {'passed':>9s}")
    for path in files:
        name = path.name.removeprefix("ggml-vocab-").removesuffix(".gguf")
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


def cmd_chat(args: argparse.Namespace) -> int:
    if args.messages is not None:
        raw = args.messages
    elif args.messages_file is not None:
        raw = Path(args.messages_file).read_text(encoding="utf-8")
    else:
        raw = sys.stdin.read()
    try:
        messages = json.loads(raw)
        variables = {k: json.loads(v) for k, v in (kv.split("=", 1) for kv in args.var)}
        tools = json.loads(args.tools) if args.tools else None
    except (json.JSONDecodeError, ValueError) as e:
        raise UsageError(f"not JSON: {e}") from None
    if not isinstance(messages, list):
        raise UsageError("--messages must be a JSON list of {\"role\": ..., \"content\": ...} objects")
    tok = _load(args.file)
    agp = not args.no_generation_prompt
    out = sys.stdout.buffer
    if args.text:
        text = tok.chat_template(args.template).render(messages, agp, tools=tools, **variables)
        out.write(text.encode("utf-8", "surrogatepass"))
        out.flush()
        return 0
    ids = tok.encode_chat(messages, agp, template=args.template, tools=tools, add_special=not args.no_bos,
                          unsafe_parse_special_in_content=args.unsafe_parse_special_in_content, **variables)
    if args.ids:
        out.write(("[" + ", ".join(map(str, ids)) + "]\n").encode())
    else:
        for i in ids:
            piece = tok.token_to_piece(i, special=True).split(b"\0")[0]
            out.write(f"{i:6d} -> '".encode() + piece + b"'\n")
    out.flush()
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


class UsageError(GguftokError):
    """A command line that cannot be carried out (exit status 2)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gguftok", description="The tokenizer inside a GGUF file, with "
                                     "llama.cpp's exact token ids.")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("tokenize", help="text to token ids, printed as llama-tokenize prints them",
                       description="Text to token ids, as llama.cpp's llama-tokenize: by default special "
                       "tokens are added (if the model adds BOS) and special text is parsed.")
    p.add_argument("-m", "--model", required=True, help="the GGUF file (only its metadata is read)")
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
    p.set_defaults(func=cmd_tokenize)

    p = sub.add_parser("detokenize", help="token ids to text, as llama_detokenize",
                       description="Token ids to text (raw bytes on standard output, then a newline).")
    p.add_argument("-m", "--model", required=True, help="the GGUF file")
    p.add_argument("--remove-special", action="store_true", help="drop a leading BOS / trailing EOS")
    p.add_argument("--unparse-special", action="store_true", help="render control tokens as their text")
    p.add_argument("ids", nargs="+", type=int, metavar="ID")
    p.set_defaults(func=cmd_detokenize)

    p = sub.add_parser("info", help="what a GGUF file says about its tokenizer",
                       description="Vocabulary type, pre-tokenizer, sizes, special ids and texts, flags, EOG set. "
                       "Reads only the metadata, so a multi-GB model is fast.")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("chat", help="a conversation through the model's chat template, to token ids",
                       description="Renders the messages with the file's chat template (sandboxed) and tokenizes "
                       "them: the template's special tokens are read, special-token text inside messages is not.")
    p.add_argument("file", help="the GGUF file")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--messages", help='a JSON list, e.g. \'[{"role": "user", "content": "Hi"}]\'')
    src.add_argument("--messages-file", help="read the JSON list from this file (default: standard input)")
    p.add_argument("--template", help="a named template (tokenizer.chat_template.NAME)")
    p.add_argument("--tools", help="a JSON list of tool definitions for the template")
    p.add_argument("--var", action="append", default=[], metavar="KEY=JSON",
                   help="a template variable, e.g. enable_thinking=true (repeatable)")
    p.add_argument("--no-generation-prompt", action="store_true", help="do not open an assistant turn at the end")
    p.add_argument("--no-bos", action="store_true", help="add no special tokens beyond what the template writes")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--ids", action="store_true", help="print only the ids, as [1, 2, 3]")
    out.add_argument("--text", action="store_true", help="print the rendered text instead of tokens")
    p.add_argument("--unsafe-parse-special-in-content", action="store_true",
                   help="read special-token text inside messages as tokens too (what most engines do)")
    p.set_defaults(func=cmd_chat)

    p = sub.add_parser("conformance", help="llama.cpp's own test cases on every vocabulary",
                       description="Runs llama.cpp's .inp/.out cases for every ggml-vocab-*.gguf in the folder; "
                       "exit status 1 if any case differs.")
    p.add_argument("--vocab-dir", help="default: the fetched data/vocab")
    p.set_defaults(func=cmd_conformance)

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
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:  # the reader went away (``gguftok info x | head``): stop quietly, as Unix tools do
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except UsageError as e:
        if args.debug:
            raise
        parser.error(str(e))  # exits 2
    except (GguftokError, OSError, ValueError, IndexError, NotImplementedError) as e:
        if args.debug:
            raise
        print(f"gguftok: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
