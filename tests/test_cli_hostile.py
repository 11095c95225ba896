"""The ``gguftok`` command against hostile arguments and inputs (issue 19, items 5, 8 and 9).

The contract: whatever the command line, the command ends with exit status 0, 1 (a failure while carrying it
out) or 2 (a bad command line), and a failure is exactly one line on stderr, never a traceback. Inputs are
read with a bound: a file argument must be a regular file, and text is read up to ``--max-input-bytes``.

Subprocess runs get a 1 GiB address-space limit and a timeout, so that a regression (``/dev/zero`` read
whole, a FIFO waited on) fails the test instead of filling the machine's memory or hanging it. A child spends
most of its time starting Python and importing gguftok, so where a check is only a command line's exit status
and output, the cases of a test run together in one such child (:func:`run_cases`, ``tests/cli_driver.py``),
beside at least one case of each kind in a ``python -m gguftok`` of its own; a case that reads standard input
always runs in a ``python -m gguftok`` of its own.
"""

from __future__ import annotations

import functools
import io
import json
import math
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from contextlib import redirect_stderr, redirect_stdout
from datetime import timedelta

import numpy as np
import pytest
from cli_driver import run_many
from conftest import REPO
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gguftok import Tokenizer, read_metadata
from gguftok.cli import MAX_JSON_DEPTH, main, reserved_variables
from gguftok.metadata import ValueType
from gguftok.writer import write_metadata

POSIX = pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"),
                           reason="needs POSIX devices and FIFOs")
MEMORY_LIMIT = 1 << 30


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(*args: str, stdin: bytes | str | None = None, timeout: float = 60,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``gguftok ARGS`` in a child with 1 GiB of address space; ``stdin`` is bytes or a path to read from."""
    src = open(stdin, "rb") if isinstance(stdin, str) else None  # noqa: SIM115 - closed below
    try:
        return subprocess.run([sys.executable, "-m", "gguftok", *args], input=stdin if src is None else None,
                              stdin=src, capture_output=True, cwd=REPO, timeout=timeout,
                              env=None if env is None else os.environ | env,
                              preexec_fn=_limit_memory if os.name == "posix" else None)
    finally:
        if src is not None:
            src.close()


def run_cases(cases: Sequence[Sequence[str]], real: Iterable[Sequence[str]] = ()) -> list[subprocess.CompletedProcess]:
    """``gguftok ARGS`` for each of ``cases``, answered in order: the cases in ``real`` each in a child of its own
    (:func:`run`), the others together in one child that calls ``main`` for each as ``python -m gguftok`` does
    (:func:`cli_driver.run_many`: the same exit status, stdout and stderr), with the same 1 GiB limit and the
    timeout of one :func:`run`. Each case reads an empty standard input."""
    cases = [tuple(argv) for argv in cases]
    real = {tuple(argv) for argv in real}
    assert real <= set(cases), real - set(cases)
    shared = [argv for argv in cases if argv not in real]
    answers = iter(run_many(shared, timeout=60, preexec_fn=_limit_memory if os.name == "posix" else None)
                   if shared else [])
    return [run(*argv) if argv in real else next(answers) for argv in cases]


def in_process(argv: list[str], stdin: bytes = b"") -> tuple[int, bytes, str]:
    """``main(argv)`` in this process (much faster than a child): exit status, stdout bytes, stderr text."""
    out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as e:  # argparse
                status = e.code
            out.flush()
    finally:
        sys.stdin = saved
    return status, out.buffer.getvalue(), err.getvalue()


def one_line_failure(r: subprocess.CompletedProcess, status: int, *needles: str) -> str:
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == status, (r.returncode, err[-2000:])
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "internal error" not in err, err[-2000:]
    for needle in needles:
        assert needle in err, err
    return err


@pytest.fixture(scope="module")
def llama(vocab_path):
    return str(vocab_path("llama-bpe"))


@pytest.fixture(scope="module")
def qwen(vocab_path):
    return str(vocab_path("qwen2"))


@pytest.fixture
def specials(tmp_path):
    """A FIFO (opening it would wait for a writer), a directory, and a symlink to /dev/zero."""
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    os.symlink("/dev/zero", tmp_path / "zero.txt")
    return {"/dev/zero": "a character device", str(tmp_path / "zero.txt"): "a character device",
            str(tmp_path / "fifo"): "a named pipe (FIFO)", str(tmp_path / "dir"): "a directory"}


# ------------------------------------------------------------------ item 8: inputs that never end


@POSIX
def test_file_arguments_must_be_regular_files(llama, qwen, specials):
    """``tokenize -f /dev/zero`` and ``chat --messages-file /dev/zero`` ended in MemoryError tracebacks, a
    FIFO hung: each is refused before it is opened, saying to use standard input instead. (A text file and a
    model, a device and a FIFO, each in a child of its own; every case under the memory limit and timeout.)"""
    cases = []  # (command line, exit status, what stderr says)
    for path, kind in specials.items():
        cases.append((("tokenize", "-m", llama, "-f", path), 2,
                      (f"--file {path}: {kind}, not a regular file", "standard input")))
        cases.append((("chat", qwen, "--messages-file", path), 2,
                      (f"--messages-file {path}: {kind}, not a regular file", "standard input")))
        for argv in (("tokenize", "-m", path, "-p", "x"), ("info", path), ("chat", path, "--messages", "[]"),
                     ("detokenize", "-m", path, "1")):
            cases.append((argv, 1, (f"{path}: {kind}, not a regular file: a GGUF file must be",)))
    fifo = next(p for p, kind in specials.items() if "FIFO" in kind)
    real = [("tokenize", "-m", llama, "-f", "/dev/zero"), ("chat", qwen, "--messages-file", fifo),
            ("tokenize", "-m", "/dev/zero", "-p", "x"), ("info", fifo)]
    for (_, status, needles), r in zip(cases, run_cases([argv for argv, _, _ in cases], real), strict=True):
        one_line_failure(r, status, *needles)


@POSIX
def test_standard_input_is_read_up_to_the_limit(llama, qwen, tmp_path):
    r = run("tokenize", "-m", llama, "--stdin", stdin="/dev/zero")
    one_line_failure(r, 2, "standard input is larger than 16,777,216 bytes", "--max-input-bytes")
    one_line_failure(run("chat", qwen, stdin="/dev/zero"), 2, "standard input is larger than 16,777,216 bytes")
    text = b"Hello world " * 200  # 2,400 bytes
    r = run("tokenize", "-m", llama, "--stdin", "--ids", "--max-input-bytes", "2K", stdin=text)
    one_line_failure(r, 2, "standard input is larger than 2,048 bytes")
    r = run("tokenize", "-m", llama, "--stdin", "--ids", "--max-input-bytes", "3K", stdin=text)
    assert r.returncode == 0 and json.loads(r.stdout) == Tokenizer.from_gguf(llama).encode(text)
    # a limit far above memory costs nothing: the input is read in blocks, not into one buffer of that size
    r = run("tokenize", "-m", llama, "--stdin", "--ids", "--max-input-bytes", "4000G", stdin=b"hi")
    assert r.returncode == 0, r.stderr
    # no standard input from here on: a file, and byte counts refused (the first in a child of its own)
    big = tmp_path / "big.txt"
    big.write_bytes(text)
    bad_counts = [("tokenize", "-m", llama, "-p", "x", "--max-input-bytes", bad)
                  for bad in ("0", "-5", "1x", "K", "99999999999999999999")]
    r, *refused = run_cases([("tokenize", "-m", llama, "-f", str(big), "--max-input-bytes", "1K"), *bad_counts],
                            real=bad_counts[:1])
    one_line_failure(r, 2, f"--file {big} is larger than 1,024 bytes")
    for r in refused:
        one_line_failure(r, 2, "byte count")


@POSIX
def test_conformance_refuses_case_files_that_are_not_files(vocab_path, tmp_path):
    gpt2 = vocab_path("gpt-2")
    os.symlink(gpt2, tmp_path / gpt2.name)
    os.symlink("/dev/zero", tmp_path / (gpt2.name + ".inp"))
    os.symlink(vocab_path("gpt-2", ".gguf.out"), tmp_path / (gpt2.name + ".out"))
    r = run("conformance", "--vocab-dir", str(tmp_path))
    one_line_failure(r, 1, f"{gpt2.name}.inp: a character device, not a regular file")


@POSIX
def test_fetch_refuses_a_cached_sdist_that_is_no_file(tmp_path):
    """The sdist's checksum was read from whatever the cache held: a FIFO there hung ``gguftok fetch``."""
    from gguftok.data import SDIST_NAME

    (tmp_path / "cache").mkdir()
    os.mkfifo(tmp_path / "cache" / SDIST_NAME)
    r = run("fetch", "--dest", str(tmp_path / "vocab"), env={"GGUFTOK_CACHE": str(tmp_path / "cache")}, timeout=30)
    one_line_failure(r, 1, f"{SDIST_NAME} is not a regular file")


# --------------------------------------------------------------- item 9: arguments that crashed


COLLIDING = ["messages", "tools", "template", "tok", "add_generation_prompt", "documents", "add_special",
             "unsafe_parse_special_in_content", "self"]


def _colliding_var(qwen: str, name: str, extra: tuple[str, ...]) -> tuple[str, ...]:
    return ("chat", qwen, "--messages", '[{"role": "user", "content": "hi"}]', "--var", f"{name}=[]", *extra)


@pytest.fixture(scope="module")
def colliding_runs(qwen):
    """The command lines of every name below, run once for them all (:func:`run_cases`: the first name's in
    children of their own)."""
    cases = [_colliding_var(qwen, name, extra) for name in COLLIDING for extra in ((), ("--text",))]
    return dict(zip(cases, run_cases(cases, real=cases[:2]), strict=True))


@pytest.mark.parametrize("name", COLLIDING)
def test_a_var_cannot_collide_with_the_calls_own_parameters(qwen, colliding_runs, name):
    """``--var messages=[]`` (and tools=, template=, tok=, add_generation_prompt=) raised TypeError: multiple
    values for the argument. Every named parameter of the calls the variables go to is refused, naming the
    option that sets it where there is one; --text renders through another call, refused the same."""
    for extra in ((), ("--text",)):
        r = colliding_runs[_colliding_var(qwen, name, extra)]
        one_line_failure(r, 2, f"--var {name}: not a template variable the command line can set")


def test_the_reserved_names_follow_the_signatures():
    import inspect

    from gguftok.chat import ChatTemplate, encode_chat

    names = reserved_variables()
    for f in (Tokenizer.encode_chat, encode_chat, ChatTemplate.render):
        for p in inspect.signature(f).parameters.values():
            assert p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) or p.name in names, (f, p.name)
    assert "enable_thinking" not in names and "bos_token" not in names


def test_var_syntax_errors(qwen):
    msgs = "[]"
    cases = [(("chat", qwen, "--messages", msgs, "--var", var), needle)
             for var, needle in [("nokv", "expected KEY=JSON"), ("=1", "a template variable is a name"),
                                 ("a b=1", "a template variable is a name"),
                                 ("a\n=1", "a template variable is a name"), ("x={", "--var x is not JSON"),
                                 ("x=" + "9" * 5000, "--var x is not JSON")]]
    cases.append((("chat", qwen, "--messages", msgs, "--var", "a=1", "--var", "a=2"), "given twice"))
    for (_, needle), r in zip(cases, run_cases([argv for argv, _ in cases], real=[cases[0][0]]), strict=True):
        one_line_failure(r, 2, needle)


def test_json_nested_too_deep_is_refused_before_anything_walks_it(qwen, tmp_path):
    """A 50,000-deep array in --messages raised RecursionError from json. Every JSON argument is bounded."""
    deep = "[" * 50_000 + "]" * 50_000
    too_deep = f"nested more than {MAX_JSON_DEPTH} deep"
    one_line_failure(run("chat", qwen, stdin=deep.encode()), 2, "standard input:", too_deep)
    (tmp_path / "deep.json").write_text(deep)
    cases = [(("chat", qwen, "--messages", deep), ("--messages:", too_deep)),
             (("chat", qwen, "--messages-file", str(tmp_path / "deep.json")), (too_deep,))]
    for option in ("--tools", "--documents"):
        cases.append((("chat", qwen, "--messages", "[]", option, deep), (f"{option}:", too_deep)))
    cases.append((("chat", qwen, "--messages", "[]", "--var", "x=" + deep), ("--var x:", too_deep)))
    # just past the bound, without recursion in json: refused by the depth walk
    msg = '[{"role": "user", "content": ' + "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH + "}]"
    cases.append((("chat", qwen, "--messages", msg), (too_deep,)))
    for (_, needles), r in zip(cases, run_cases([argv for argv, _ in cases], real=[cases[0][0]]), strict=True):
        one_line_failure(r, 2, *needles)


def test_shapes_of_the_json_arguments(qwen, tmp_path):
    cases = [(("chat", qwen, "--messages", messages), "--messages must be a JSON list")
             for messages in ("{}", "5", '"hi"', "[1]", "[[]]", 'null')]
    for option in ("--tools", "--documents"):
        cases.append((("chat", qwen, "--messages", "[]", option, "{}"), f"{option} must be a JSON list"))
    (tmp_path / "latin1.json").write_bytes(b'[{"role": "user", "content": "caf\xe9"}]')
    cases.append((("chat", qwen, "--messages-file", str(tmp_path / "latin1.json")), "is not UTF-8"))
    for (_, needle), r in zip(cases, run_cases([argv for argv, _ in cases], real=[cases[0][0]]), strict=True):
        one_line_failure(r, 2, needle)
    one_line_failure(run("chat", qwen, stdin=b"\xff["), 2, "standard input is not UTF-8")
    # a byte-order mark, as Windows editors write, is allowed
    bom = b'\xef\xbb\xbf[{"role": "user", "content": "hi"}]'
    r = run("chat", qwen, "--ids", stdin=bom)
    assert r.returncode == 0 and json.loads(r.stdout) == Tokenizer.from_gguf(qwen).encode_chat(json.loads(bom[3:]))


# ------------------------------------------------------------ item 5 (CLI half): info on any value


@functools.cache
def _metadata(vocab):
    return read_metadata(vocab)  # read once per vocabulary: each test writes many variants of it


def _with(vocab, tmp_path, name, changes):
    path = tmp_path / f"{name}.gguf"
    write_metadata(path, _metadata(vocab), changes)
    return str(path)


def _strict_json(text: bytes):
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text.decode("utf-8"), parse_constant=refuse)


def test_info_prints_values_json_cannot_hold_as_is(vocab_path, tmp_path):
    """``info --json`` raised TypeError (ndarray is not JSON serializable) on an array-typed
    general.architecture, and UnicodeEncodeError on a general.name that is not UTF-8; a name with a newline
    or a terminal escape broke the plain output's lines. The file's values are printed as plain JSON data,
    whatever their GGUF type, even when they cannot make a tokenizer (then ``"error"`` names the key, on
    stderr too, and the exit status is 1); the plain output keeps one line per fact. (Three of the runs in
    children of their own, the others in one child: :func:`run_cases`.)"""
    gpt2 = vocab_path("gpt-2")
    files = {
        "arch_i32": ({"general.architecture": (ValueType.INT32, [5])}, "architecture", [5]),
        "arch_f32": ({"general.architecture": (ValueType.FLOAT32, [1.5, float("nan")])}, "architecture",
                     [1.5, "nan"]),
        "arch_bool": ({"general.architecture": (ValueType.BOOL, [True])}, "architecture", [True]),
        "arch_strings": ({"general.architecture": (ValueType.STRING, ["a", "b"])}, "architecture", ["a", "b"]),
        "name_u64": ({"general.name": (ValueType.UINT64, 2**64 - 1)}, "name", 2**64 - 1),
        "name_bytes": ({"general.name": b"\xff\xfe name"}, "name", "\udcff\udcfe name"),
        "name_escape": ({"general.name": "evil\n\x1b[2Jname"}, "name", "evil\n\x1b[2Jname"),
    }
    paths = {name: _with(gpt2, tmp_path, name, changes) for name, (changes, _, _) in files.items()}
    argv = {(name, form): ("info", path, *([form] if form == "--json" else []))
            for name, path in paths.items() for form in ("--json", "--plain")}
    real = [argv["arch_i32", "--json"], argv["name_bytes", "--json"], argv["name_escape", "--plain"]]
    runs = dict(zip(argv, run_cases(list(argv.values()), real), strict=True))
    for name, (changes, fact, expected) in files.items():
        key = next(iter(changes))
        for form in ("--json", "--plain"):
            r = runs[name, form]
            err = r.stderr.decode("utf-8", "replace")
            assert r.returncode in (0, 1) and "Traceback" not in err, (name, err[-1500:])
            assert len(err.splitlines()) == r.returncode and (r.returncode == 0 or key in err), (name, err)
            if form == "--json":
                facts = _strict_json(r.stdout)
                assert facts[fact] == expected and (r.returncode == 0) == ("error" not in facts), (name, facts)
            else:
                lines = r.stdout.decode("utf-8").splitlines()
                assert len(lines) == (19 if r.returncode == 0 else 7) and b"\x1b" not in r.stdout, (name, lines)


def test_plain_value_of_every_gguf_type():
    from gguftok.cli import plain_value

    for dtype in ("u1", "i1", "u2", "i2", "u4", "i4", "f4", "?", "u8", "i8", "f8"):
        value = plain_value(np.array([1, 0], dtype=dtype))
        assert json.loads(json.dumps(value, allow_nan=False)) == value
    assert plain_value([np.array([math.inf]), ["a"]]) == [["inf"], ["a"]]
    assert plain_value(math.nan) == "nan" and plain_value(-math.inf) == "-inf" and plain_value(2**64 - 1) == 2**64 - 1


ONE_OF_EACH = {
    ValueType.UINT8: 7, ValueType.INT8: -7, ValueType.UINT16: 7, ValueType.INT16: -7, ValueType.UINT32: 7,
    ValueType.INT32: -7, ValueType.FLOAT32: float("nan"), ValueType.BOOL: True, ValueType.STRING: "x\n\x1b",
    ValueType.UINT64: 2**64 - 1, ValueType.INT64: -(2**63), ValueType.FLOAT64: float("inf"),
}


@pytest.mark.parametrize("key", ["general.architecture", "general.name", "tokenizer.ggml.pre"])
def test_info_on_each_gguf_type_of_the_keys_it_shows(vocab_path, tmp_path, key):
    """Each of the 13 types (12 scalars and arrays of each) under each key info shows: info prints the
    value as strict JSON, and either the facts (exit 0) or the error naming the key (exit 1, one line)."""
    for vocab in (vocab_path("gpt-2"), vocab_path("llama-spm")):
        for vt, value in ONE_OF_EACH.items():
            for form, change in (("scalar", (vt, value)), ("array", (vt, [value, value]))):
                path = _with(vocab, tmp_path, f"{vt.name}-{form}", {key: change})
                status, out, err = in_process(["info", path, "--json"])
                assert status in (0, 1) and len(err.splitlines()) == status, (key, vt, form, err)
                assert "internal error" not in err, (key, vt, form, err)
                facts = _strict_json(out)
                assert status == 0 or key in facts["error"], (key, vt, form, facts)


# ------------------------------------------------------------------------ a fuzz of the arguments


@pytest.fixture(scope="module")
def tiny_chat(tmp_path_factory):
    """The 9-token synthetic vocabulary with a chat template: fast to load, for many runs in this process."""
    path = tmp_path_factory.mktemp("tiny") / "tiny-chat.gguf"
    write_metadata(path, read_metadata(REPO / "data" / "synthetic" / "tiny-9.gguf"),
                   {"tokenizer.chat_template": "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}"
                                               "{% if tools %}{{ tools }}{% endif %}{{ documents }}{{ x }}"})
    return str(path)


ODD = ["", "-", "--", "-1", "0", "1", "8", "9", "99999999999999999999", "1e999", "NaN", "null", "true", "[]", "{}",
       "[1]", "[[]]", '[{"role": "user"}]', '[{"role": "user", "content": "ab"}]',
       '[{"role": 5, "content": [1, {"a": null}]}]', '"x"', "[" * 300 + "]" * 300, "{{", "{% for %}", "{{ 1/0 }}",
       "\n", "\x1b[2J", "\udcff", "é", "x" * 5000, "a=1", "=", "messages=[]", "tok=1", "x=[1]", "x=" + "[" * 2000,
       "/", "/nonexistent/file", "\\x41\\", "2K", "1x"]


@POSIX
@settings(max_examples=int(os.environ.get("GGUFTOK_FUZZ_EXAMPLES", "150")), deadline=timedelta(seconds=20),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_the_arguments(tiny_chat, data):
    """Odd values in every option of every subcommand (run in this process, so a crash is the exception's
    own): exit status 0, 1 or 2, at most one line on stderr and exactly one on failure, no internal error."""
    odd = st.sampled_from(ODD)
    model = st.one_of(st.just(tiny_chat), st.just(tiny_chat), st.just(tiny_chat), odd)
    json_value = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.sampled_from(ODD),
                              lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(
                                  ["role", "content", "type", "text", "name", "x"]), inner, max_size=3), max_leaves=8)
    message = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system"]) | json_value,
                                     "content": json_value})
    messages = st.lists(message, max_size=3).map(json.dumps) | odd
    ids = st.integers(-3, 12).map(str) | odd
    flags = {"tokenize": ["--ids", "--no-bos", "--no-parse-special", "--show-count", "--no-escape"],
             "chat": ["--ids", "--text", "--no-bos", "--no-generation-prompt", "--unsafe-parse-special-in-content"],
             "detokenize": ["--remove-special", "--unparse-special"], "info": ["--json"]}
    command = data.draw(st.sampled_from(["tokenize", "detokenize", "info", "chat"]))
    argv = [command]
    if command == "tokenize":
        argv += ["-m", data.draw(model)]
        argv += data.draw(st.sampled_from([["-p", data.draw(odd)], ["-f", data.draw(odd)], ["--stdin"], []]))
    elif command == "detokenize":
        argv += ["-m", data.draw(model), "--", *data.draw(st.lists(ids, min_size=0, max_size=3))]
    elif command == "info":
        argv += [data.draw(model)]
    else:
        argv += [data.draw(model)]
        argv += data.draw(st.sampled_from([["--messages", data.draw(messages)], ["--messages", data.draw(messages)],
                                           ["--messages-file", data.draw(odd)], []]))
        for option in ("--var", "--tools", "--documents", "--template", "--var"):
            if data.draw(st.integers(0, 3)) == 0:
                value = data.draw(odd | json_value.map(json.dumps))
                if option == "--var" and data.draw(st.booleans()):
                    value = "x=" + json.dumps(data.draw(json_value))
                argv += [option, value]
    limit = ["--max-input-bytes"] if command in ("tokenize", "chat") else []
    argv += data.draw(st.lists(st.sampled_from(flags[command] + limit), max_size=3, unique=True))
    if argv[-1] == "--max-input-bytes":
        argv.append(data.draw(st.sampled_from(["1", "40", "2K", "16M"]) | odd))
    if "--ids" in argv and "--text" in argv:
        argv.remove("--text")
    stdin = data.draw(st.sampled_from([b"", b'[{"role": "user", "content": "hi"}]', b"\xff\xfe", b"[" * 5000]))
    status, _, err = in_process(argv, stdin)
    event(f"{command} exit {status}")  # pytest --hypothesis-show-statistics: how deep the fuzz gets
    lines = err.splitlines()
    assert status in (0, 1, 2), (argv, status, lines)
    assert len(lines) == (0 if status == 0 else 1), (argv, status, lines)
    assert not lines or "internal error" not in lines[0], (argv, lines)
