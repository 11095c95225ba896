"""The ``gguftok`` command, run as a subprocess: every subcommand and its error paths.

Each test runs ``python -m gguftok`` in a child of its own at least once; its other command lines that read no
standard input run together in one child (``tests/cli_driver.py``: ``main`` for each as ``python -m gguftok``
calls it, the same exit status and output), which starts Python and imports gguftok once for them all.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from cli_driver import run_many
from conftest import REPO

from gguftok import Tokenizer


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gguftok", *args], input=stdin, capture_output=True, cwd=REPO,
                          timeout=120)


def run_each(*cases: tuple[str, ...]) -> list[subprocess.CompletedProcess]:
    """``gguftok ARGS`` for each case, in one child (:func:`cli_driver.run_many`), with an empty standard input."""
    return run_many(cases, timeout=120)


@pytest.fixture(scope="module")
def llama(vocab_path):
    return str(vocab_path("llama-bpe"))


def test_tokenize_prints_as_llama_tokenize(llama):
    r = run("tokenize", "-m", llama, "-p", "Hello world\\n<|eot_id|>", "--show-count")
    assert r.returncode == 0, r.stderr
    assert r.stdout == (b"128000 -> '<|begin_of_text|>'\n  9906 -> 'Hello'\n  1917 -> ' world'\n"
                        b"   198 -> '\n'\n128009 -> '<|eot_id|>'\nTotal number of tokens: 5\n")


def test_tokenize_flags_and_sources(llama, tmp_path):
    assert run("tokenize", "-m", llama, "-p", "Hello world", "--ids").stdout == b"[128000, 9906, 1917]\n"
    f = tmp_path / "p.txt"
    f.write_bytes(b"caf\xc3\xa9\r\n")
    no_bos, no_special, from_file = (r.stdout for r in run_each(
        ("tokenize", "-m", llama, "-p", "Hello", "--ids", "--no-bos"),
        ("tokenize", "-m", llama, "-p", "<|eot_id|>", "--ids", "--no-bos", "--no-parse-special"),
        ("tokenize", "-m", llama, "-f", str(f), "--ids", "--no-bos")))
    assert no_bos == b"[9906]\n"
    assert no_special != b"[128009]\n"
    assert from_file == run("tokenize", "-m", llama, "--stdin", "--ids", "--no-bos", stdin=b"caf\xc3\xa9\r\n").stdout
    tok = Tokenizer.from_gguf(llama)
    ids = tok.encode(b"caf\xc3\xa9\r\n", add_special=False)
    assert from_file == f"[{', '.join(map(str, ids))}]\n".encode() and tok.token_to_piece(ids[-1]) == b"\r\n"


def test_detokenize(vocab_path):
    qwen = str(vocab_path("qwen2"))
    assert run("detokenize", "-m", qwen, "9707", "1879", "0").stdout == b"Hello world!\n"
    eot, unparsed = run_each(("detokenize", "-m", qwen, "151645"),
                             ("detokenize", "-m", qwen, "--unparse-special", "151645"))
    assert eot.stdout == b"\n"
    assert unparsed.stdout == b"<|im_end|>\n"


def test_info(vocab_path):
    r = run("info", str(vocab_path("qwen2")), "--json")
    facts = json.loads(r.stdout)
    assert facts["n_vocab"] == 151936 and facts["special"]["eot"] == {"id": 151645, "text": "<|im_end|>"}
    assert facts["chat_template"] is True and facts["pre"] == "qwen2"
    assert b"n_vocab" in run("info", str(vocab_path("llama-spm"))).stdout


def test_conformance_table(vocab_path):
    r = run("conformance", "--vocab-dir", str(vocab_path("qwen2").parent))
    assert r.returncode == 0, r.stdout.decode()
    lines = r.stdout.decode().splitlines()
    assert len(lines) == 20 and "46/46" in next(line for line in lines if line.startswith("qwen2 "))


def test_errors_are_one_line_and_nonzero(tmp_path, llama):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF\x03\x00\x00\x00" + bytes(8) + b"\xff" * 8)
    nope, bad_info, no_vocab = run_each(("tokenize", "-m", str(tmp_path / "nope.gguf"), "-p", "x"),
                                        ("info", str(bad)), ("conformance", "--vocab-dir", str(tmp_path)))
    assert nope.returncode == 1
    assert nope.stderr.decode().strip() == f"gguftok: error: no such file: {tmp_path / 'nope.gguf'}"
    err = bad_info.stderr.decode().strip()
    assert bad_info.returncode == 1 and len(err.splitlines()) == 1 and "key/value pairs" in err
    r = run("detokenize", "-m", llama, "999999")
    assert r.returncode == 1 and "out of range" in r.stderr.decode() and b"Traceback" not in r.stderr
    r = run("--debug", "detokenize", "-m", llama, "999999")
    assert b"Traceback" in r.stderr
    assert run("tokenize", "-m", llama).returncode == 2
    assert no_vocab.returncode == 1


def test_every_subcommand_has_help():
    commands = ("tokenize", "detokenize", "info", "chat", "conformance", "fetch", "doctor", "why", "cache")
    for cmd, r in zip(commands, [run(commands[0], "--help"), *run_each(*((cmd, "--help") for cmd in commands[1:]))],
                      strict=True):
        assert r.returncode == 0 and b"usage: gguftok " + cmd.encode() in r.stdout


def test_chat_reads_only_the_templates_special_tokens(vocab_path):
    qwen2 = str(vocab_path("qwen2"))
    messages = json.dumps([{"role": "user", "content": "Hi<|im_end|>"}])
    tok = Tokenizer.from_gguf(qwen2)
    r = run("chat", qwen2, "--messages", messages, "--ids")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == tok.encode_chat(json.loads(messages))
    unsafe, plain = run_each(("chat", qwen2, "--messages", messages, "--ids", "--unsafe-parse-special-in-content"),
                             ("chat", qwen2, "--messages", messages))
    unsafe = json.loads(unsafe.stdout)
    assert unsafe.count(151645) == json.loads(r.stdout).count(151645) + 1
    text = run("chat", qwen2, "--text", "--no-generation-prompt", stdin=messages.encode()).stdout.decode()
    assert text == tok.chat_template().render(json.loads(messages), add_generation_prompt=False)
    lines = plain.stdout.decode().splitlines()
    assert lines[0] == "151644 -> '<|im_start|>'"


def test_chat_errors(vocab_path):
    r = run("chat", str(vocab_path("gpt-2")), "--messages", "[]")
    assert r.returncode == 1 and b"no tokenizer.chat_template" in r.stderr
    r = run("chat", str(vocab_path("qwen2")), "--messages", "{")
    assert r.returncode == 2 and b"not JSON" in r.stderr


def test_chat_documents_and_variables(vocab_path):
    command_r = str(vocab_path("command-r"))
    tok = Tokenizer.from_gguf(command_r)
    messages = [{"role": "user", "content": "Where is it?"}]
    documents = [{"title": "Atlas", "text": "It is in the harbour."}]
    r = run("chat", command_r, "--template", "rag", "--messages", json.dumps(messages),
            "--documents", json.dumps(documents), "--ids")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == tok.encode_chat(messages, template="rag", documents=documents)
    qwen2 = str(vocab_path("qwen2"))
    text, r = run_each(("chat", command_r, "--template", "rag", "--messages", json.dumps(messages),
                        "--documents", json.dumps(documents), "--text"),
                       ("chat", qwen2, "--messages", json.dumps(messages), "--var", "x=[1, 2]", "--ids",
                        "--template", "{{ messages[0].content }}{{ x }}", "--no-bos"))
    assert b"harbour" in text.stdout
    assert r.returncode == 0 and json.loads(r.stdout) == Tokenizer.from_gguf(qwen2).encode(
        "Where is it?[1, 2]", add_special=False)


def test_cache_lists_and_clears_the_kept_metadata(loopback, metadata_cache, vocab_path):
    """``gguftok cache``: what remote loads kept (the bytes up to each file's key/value end), then nothing."""
    import os

    from gguftok import read_metadata

    env = {**os.environ, "GGUFTOK_METADATA_CACHE": str(metadata_cache)}

    def cache(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "gguftok", "cache", *args], capture_output=True, text=True,
                              cwd=REPO, timeout=120, env=env)

    assert cache().stdout == f"{metadata_cache}: 0 kept file starts, 0 bytes\n"
    urls = {name: loopback.serve(f"/cli-cache/{name}.gguf", vocab_path(name)) for name in ("qwen2", "gpt-2")}
    for url in urls.values():
        assert read_metadata(url).origin.cache == "stored"
    local = {name: (read_metadata(vocab_path(name)).kv_end, vocab_path(name).stat().st_size) for name in urls}
    listed = json.loads(cache("list", "--json").stdout)
    assert listed["root"] == str(metadata_cache)
    assert sorted((f["references"], f["bytes"], f["size"]) for f in listed["files"]) == sorted(
        ([urls[name]], *local[name]) for name in urls)
    r = cache()
    assert r.returncode == 0 and r.stdout.startswith(f"{metadata_cache}: 2 kept file starts, "
                                                     f"{sum(kv for kv, _ in local.values()):,} bytes\n")
    assert all(urls[name] in r.stdout and f"{local[name][0]:,} of" in r.stdout for name in urls)
    (metadata_cache / "mine.txt").write_text("not the cache's")  # $GGUFTOK_METADATA_CACHE may be any folder
    records = len(list((metadata_cache / "index").iterdir()))
    freed = sum(p.stat().st_size for d in ("index", "blobs") for p in (metadata_cache / d).iterdir())
    r = cache("clear")
    assert r.stdout == f"removed {records + 2} files ({freed:,} bytes) from {metadata_cache}\n"
    assert sorted(p.name for p in metadata_cache.iterdir()) == ["mine.txt"]
    assert cache().stdout == f"{metadata_cache}: 0 kept file starts, 0 bytes\n"
    assert read_metadata(urls["qwen2"]).origin.cache == "stored"  # read from the server again
