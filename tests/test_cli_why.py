"""``gguftok why``: the stage where another engine parts from llama.cpp, from the command line.

Each kind of other engine (a tokenizer.json, a second GGUF file, transformers' conversion of the model, the ids
another engine gave), the exit status (0 agree, 1 disagree, 2 anything else), ``--json``, and every error path
as exactly one line on stderr. The other engines are written at test time: a tokenizer.json saved from
transformers' conversion of a vocabulary, and a GGUF file with one key changed (gguftok.writer).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO
from test_cli_hostile import in_process

from gguftok import Tokenizer, read_metadata
from gguftok.disagree import explain, explain_decode, transformers_tokenizer
from gguftok.writer import write_metadata

pytest.importorskip("tokenizers")
pytest.importorskip("transformers")


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TRANSFORMERS_NO_ADVISORY_WARNINGS"} | {"HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "gguftok", *args], input=stdin, capture_output=True, cwd=REPO,
                          timeout=120, env=env)


def why(*argv: str, stdin: bytes = b"") -> tuple[int, str, str]:
    """``gguftok why ARGV`` in this process: exit status, stdout, stderr."""
    status, out, err = in_process(["why", *argv], stdin)
    return status, out.decode("utf-8"), err


def shows(out: str, d) -> None:
    """The plain output of why: the library's own account of ``d`` (str), both results, then the evidence."""
    assert out.startswith(str(d) + "\n"), (out, str(d))
    lines = out.splitlines()
    for stage, evidence in d.evidence.items():
        start = lines.index(f"evidence ({stage}):")
        for i, key in enumerate(evidence):
            assert lines[start + 1 + i].startswith(f"  {key}: "), (lines, key)
    ids = d.kind == "encode"
    assert [line.split()[0] for line in lines if line.startswith(("llama.cpp ", d.other + " "))] \
        == ["llama.cpp", d.other.split()[0]], lines
    if ids:
        assert f"  {json.dumps(d.ours)}" in out and f"  {json.dumps(d.theirs)}" in out


def fails(status: int, err: str, *needles: str, expected: int = 2) -> None:
    """Exactly one line on stderr, no traceback, exit status 2 (why's 1 means "they disagree")."""
    assert status == expected, (status, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "internal error" not in err, err
    for needle in needles:
        assert needle in err, err


@pytest.fixture(scope="module")
def coder(vocab_path):
    return str(vocab_path("deepseek-coder"))


@pytest.fixture(scope="module")
def qwen(vocab_path):
    return str(vocab_path("qwen2"))


@pytest.fixture(scope="module")
def coder_json(coder, tmp_path_factory):
    """transformers' conversion of deepseek-coder, saved as a tokenizer.json."""
    path = tmp_path_factory.mktemp("why") / "tokenizer.json"
    transformers_tokenizer(coder).backend_tokenizer.save(str(path))
    return str(path)


@pytest.fixture(scope="module")
def coder_default_pre(coder, tmp_path_factory):
    """deepseek-coder with one key changed: tokenizer.ggml.pre is `default` (GPT-2's pattern)."""
    path = tmp_path_factory.mktemp("why") / "coder-default-pre.gguf"
    write_metadata(path, read_metadata(coder), {"tokenizer.ggml.pre": "default"})
    return str(path)


# ------------------------------------------------------------------------- each kind of other engine


def test_a_tokenizer_json(coder, coder_json):
    status, out, err = why(coder, "\\tThe cat", "--other", coder_json, "--no-add-special")
    assert status == 1 and err == "", err
    lines = out.splitlines()
    assert lines[0] == "stage: pre-tokenizer" and lines[1] == "first difference at id 0"
    assert "tokenizer.json  [184, 546, 5939]" in out and "llama.cpp       [25859, 5939]" in out
    shows(out, explain(Tokenizer.from_gguf(coder), "\tThe cat", coder_json, add_special=False))
    status, out, err = why(coder, "The cat", "--other", coder_json, "--no-add-special")
    assert status == 0 and out.startswith("agree: llama.cpp and tokenizer.json give the same ids"), (out, err)


def test_a_second_gguf_file_names_the_key(coder, coder_default_pre):
    status, out, err = why(coder, "\\tThe cat", "--other", coder_default_pre)
    assert status == 1 and err == "", err
    assert out.startswith("stage: pre-tokenizer\n") and "metadata keys: tokenizer.ggml.pre\n" in out
    assert "'deepseek-coder' here, 'default' there" in out
    tok = Tokenizer.from_gguf(coder)
    shows(out, explain(tok, "\tThe cat", Tokenizer.from_gguf(coder_default_pre)))
    status, out, _ = why(coder, "\\tThe cat", "--other", coder_default_pre, "--json")
    assert status == 1 and json.loads(out)["keys"] == ["tokenizer.ggml.pre"]
    assert why(coder, "Hello world", "--other", coder_default_pre)[0] == 0
    assert why(coder, "Hello world", "--other", coder)[0] == 0  # the same file: agree


def test_the_kind_of_file_is_read_from_its_content(coder, coder_json, coder_default_pre, tmp_path):
    """--other tells a GGUF file (its magic) from a tokenizer.json (JSON), whatever the names say."""
    gguf_named_json = tmp_path / "other.json"
    gguf_named_json.write_bytes(Path(coder_default_pre).read_bytes())
    json_named_gguf = tmp_path / "other.gguf"
    json_named_gguf.write_bytes(b"\n  " + Path(coder_json).read_bytes())  # white space first
    status, out, _ = why(coder, "\\tThe cat", "--other", str(gguf_named_json))
    assert status == 1 and "metadata keys: tokenizer.ggml.pre" in out
    status, out, err = why(coder, "\\tThe cat", "--other", str(json_named_gguf), "--no-add-special")
    assert status == 1 and "other.gguf  [184, 546, 5939]" in out, (out, err)
    status, out, err = why(coder, "\\tThe cat", "--other", json_named_gguf.as_uri(), "--no-add-special")
    assert status == 1 and "other.gguf  [184, 546, 5939]" in out, (out, err)  # a file:// URL is a path


def test_transformers_conversion_of_the_model(qwen):
    """In a child: the exit status, and stderr stays empty (no advisory about PyTorch from transformers)."""
    r = run("why", qwen, "Hello </s> world", "--transformers", "--parse-special")
    assert r.returncode == 1 and r.stderr == b"", r.stderr
    out = r.stdout.decode()
    assert out.startswith("stage: special-match\nfirst difference at id 1\n") and "'</s>'" in out.splitlines()[2]
    assert "llama.cpp                        [9707, 220, 128247, 1879]" in out
    r = run("why", qwen, "Hello world", "--transformers")
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    assert r.stdout.decode().startswith("agree: llama.cpp and transformers' TokenizersBackend give the same ids")


def test_the_ids_another_engine_gave(qwen):
    status, out, err = why(qwen, "Hello world", "--ids", "[9707, 1879, 0]")
    assert status == 1 and err == ""
    assert out.startswith("stage: bos-eos (narrowed from ids alone)\nfirst difference at id 2\n")
    assert "the ids given  [9707, 1879, 0]" in out
    shows(out, explain(Tokenizer.from_gguf(qwen), "Hello world", [9707, 1879, 0]))
    assert why(qwen, "Hello world", "--ids", "[9707, 1879]")[0] == 0
    status, out, _ = why(qwen, "Hello world", "--ids", "[]", "--json")
    assert status == 1 and json.loads(out)["narrowed"] is True


def test_decode(qwen, coder, coder_json, coder_default_pre):
    status, out, err = why(qwen, "--decode", "[151645]", "--remove-special", "--transformers")
    assert status == 1 and err == "" and out.startswith("stage: decoding\nfirst difference at token 0\n")
    assert 'llama.cpp                        "<|im_end|>"' in out
    tok = Tokenizer.from_gguf(qwen)
    shows(out, explain_decode(tok, [151645], transformers_tokenizer(tok), remove_special=True))
    assert why(qwen, "--decode", "[9707, 1879, 0]", "--transformers")[0] == 0
    ids = Tokenizer.from_gguf(coder).encode("Hello world")
    for other in (coder_json, coder_default_pre):
        status, out, _ = why(coder, "--decode", json.dumps(ids), "--other", other, "--json")
        d = json.loads(out)
        assert status == (0 if d["agree"] else 1) and d["kind"] == "decode" and d["input"]["decode"] == ids


def test_json_is_the_disagreement_and_the_input(coder, coder_json):
    status, out, _ = why(coder, "\\tThe cat", "--other", coder_json, "--no-add-special", "--json")
    assert status == 1
    d = json.loads(out)
    assert d["input"] == {"model": coder, "other": coder_json, "text": "\tThe cat", "add_special": False,
                          "parse_special": False}
    expected = explain(Tokenizer.from_gguf(coder), "\tThe cat", coder_json, add_special=False).to_dict()
    assert {k: v for k, v in d.items() if k not in ("input", "agree")} == json.loads(json.dumps(expected))
    assert d["agree"] is False and d["stage"] == "pre-tokenizer" and d["stages"] == ["pre-tokenizer"]
    status, out, _ = why(coder, "The cat", "--other", coder_json, "--no-add-special", "--json")
    assert status == 0 and json.loads(out)["stage"] is None and json.loads(out)["agree"] is True


def test_json_of_a_decoding_matches_the_library(qwen):
    status, out, _ = why(qwen, "--decode", "[151645]", "--remove-special", "--transformers", "--json")
    d = json.loads(out)
    tok = Tokenizer.from_gguf(qwen)
    expected = explain_decode(tok, [151645], transformers_tokenizer(tok), remove_special=True).to_dict()
    assert status == 1 and d["input"] == {"model": qwen, "other": "transformers", "decode": [151645],
                                          "remove_special": True}
    assert d["evidence"] == json.loads(json.dumps(expected["evidence"])) and d["stage"] == "decoding"


def test_the_text_from_a_file_standard_input_and_escapes(coder, coder_json, tmp_path):
    f = tmp_path / "text.txt"
    f.write_bytes(b"\tThe cat")
    plain = why(coder, "\\tThe cat", "--other", coder_json, "--no-add-special", "--json")
    assert json.loads(plain[1])["input"]["text"] == "\tThe cat"
    from_file = why(coder, "-f", str(f), "--other", coder_json, "--no-add-special", "--json")
    from_stdin = why(coder, "--stdin", "--other", coder_json, "--no-add-special", "--json", stdin=b"\tThe cat")
    assert plain == from_file == from_stdin
    _, out, _ = why(coder, "\\tThe cat", "--no-escape", "--other", coder_json, "--no-add-special", "--json")
    assert json.loads(out)["input"]["text"] == "\\tThe cat"
    f.write_bytes(b"\\tThe cat")  # a file is read as exact bytes: no escapes
    assert json.loads(why(coder, "-f", str(f), "--other", coder_json, "--json")[1])["input"]["text"] == "\\tThe cat"


def test_help_states_the_exit_status():
    r = run("why", "--help")
    assert r.returncode == 0 and b"usage: gguftok why" in r.stdout
    assert b"0 the engines agree, 1 they disagree, 2" in b" ".join(r.stdout.split())


# ------------------------------------------------------------------------- errors: one line, status 2


def test_a_bad_tokenizer_json(coder, tmp_path):
    for content, needle in [(b'{"version": "1.0"}', "not a tokenizer.json that tokenizers can load"),
                            (b'{"model": ', "not a tokenizer.json that tokenizers can load"),
                            (b"hello", "neither a GGUF file (no GGUF magic) nor a tokenizer.json"),
                            (b"", "neither a GGUF file")]:
        bad = tmp_path / "bad.json"
        bad.write_bytes(content)
        fails(*why(coder, "x", "--other", str(bad))[::2], f"{bad}", needle)


def test_a_missing_file(coder, tmp_path):
    fails(*why(coder, "x", "--other", str(tmp_path / "nope.json"))[::2], "no such file")
    fails(*why(str(tmp_path / "nope.gguf"), "x", "--ids", "[1]")[::2], "no such file")
    fails(*why(coder, "-f", str(tmp_path / "nope.txt"), "--ids", "[1]")[::2], "nope.txt")
    fails(*why(coder, "x", "--other", str(tmp_path))[::2], "a directory, not a regular file")


def test_a_malformed_model_is_status_2_not_1(tmp_path):
    """1 is why's answer (they disagree): a failure while carrying it out is 2, unlike the other commands."""
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF\x03\x00\x00\x00" + bytes(8) + b"\xff" * 8)
    fails(*why(str(bad), "x", "--ids", "[1]")[::2], "key/value pairs")
    fails(*why(str(bad), "x", "--other", str(bad))[::2], "key/value pairs")


@pytest.mark.parametrize("option", ["--ids", "--decode"])
def test_malformed_ids_json(qwen, option):
    other = () if option == "--ids" else ("--transformers",)
    text = ("x",) if option == "--ids" else ()
    for bad, needle in [("[1, 2", "is not JSON"), ("{}", "must be a JSON list of integers"),
                        ("[1.5]", "must be a JSON list of integers"), ("[true]", "must be a JSON list of integers"),
                        ('["1"]', "must be a JSON list of integers"), ("[" * 200 + "]" * 200, "nested more than"),
                        ("", "is not JSON")]:
        fails(*why(qwen, *text, option, bad, *other)[::2], option, needle)


def test_ids_cannot_explain_a_decoding(qwen):
    fails(*why(qwen, "--decode", "[1]", "--ids", "[1]")[::2], "--ids gives another engine's encoding")


def test_a_missing_text(qwen):
    fails(*why(qwen, "--transformers")[::2], "must give the text to explain: TEXT, --file or --stdin")
    fails(*why(qwen, "--ids", "[1]")[::2], "must give the text")


def test_options_that_do_not_go_together(qwen, tmp_path):
    f = tmp_path / "t.txt"
    f.write_text("x")
    fails(*why(qwen, "x", "-f", str(f), "--ids", "[1]")[::2], "give the text once")
    fails(*why(qwen, "x", "--remove-special", "--ids", "[1]")[::2], "--remove-special is for decoding")
    for extra, name in [(("x",), "TEXT"), (("-f", str(f)), "--file"), (("--parse-special",), "--parse-special"),
                        (("--no-add-special",), "--no-add-special")]:
        fails(*why(qwen, "--decode", "[1]", "--transformers", *extra)[::2], f"{name} is for encoding")
    fails(*why(qwen, "--decode", "[999999]", "--transformers")[::2], "token id 999999 is out of range")


def test_command_line_errors(qwen):
    fails(*why(qwen, "x")[::2], "one of the arguments --other --transformers --ids is required")
    fails(*why(qwen, "x", "--ids", "[1]", "--transformers")[::2], "not allowed with")
    fails(*why(qwen, "x", "--ids", "[1]", "--max-input-bytes", "0")[::2], "not a positive byte count")
    r = run("why", qwen, "x", "--transformers", "--frob")
    assert r.returncode == 2 and r.stderr.decode().strip() == \
        "gguftok: error: unrecognized arguments: --frob (see gguftok --help)"


def test_text_that_is_not_utf8(qwen, tmp_path):
    fails(*why(qwen, "caf\\xff", "--ids", "[1]")[::2], "the text is not UTF-8 (byte 3")
    f = tmp_path / "t.txt"
    f.write_bytes(b"caf\xe9")
    fails(*why(qwen, "-f", str(f), "--transformers")[::2], "not UTF-8")


def test_input_limits(qwen, tmp_path):
    big = tmp_path / "big.txt"
    big.write_bytes(b"Hello world " * 200)
    fails(*why(qwen, "-f", str(big), "--ids", "[1]", "--max-input-bytes", "1K")[::2], "larger than 1,024 bytes")
    fails(*why(qwen, "--stdin", "--ids", "[1]", "--max-input-bytes", "1K", stdin=b"x" * 2000)[::2],
          "standard input is larger than 1,024 bytes")
    if os.path.exists("/dev/zero"):
        fails(*why(qwen, "-f", "/dev/zero", "--ids", "[1]")[::2], "a character device, not a regular file")
        fails(*why(qwen, "x", "--other", "/dev/zero")[::2], "a character device, not a regular file")


def test_an_engine_that_cannot_be_built(vocab_path):
    """transformers has no conversion for WordPiece (BERT) vocabularies."""
    fails(*why(str(vocab_path("bert-bge")), "x", "--transformers")[::2], "transformers cannot convert")


def test_a_reference_of_no_known_kind(qwen):
    fails(*why(qwen, "x", "--other", "gopher://host/x")[::2], "cannot read gopher:// references")


def test_debug_shows_the_traceback(qwen, tmp_path):
    r = run("--debug", "why", qwen, "x", "--other", str(tmp_path / "bad.json"))
    assert r.returncode != 0 and b"Traceback" in r.stderr


def test_text_may_come_after_the_options(qwen):
    """argparse alone leaves an optional positional after an option unrecognized; why takes it as TEXT."""
    assert why(qwen, "--ids", "[9707]", "Hello")[0] == 0
    assert why(qwen, "--ids", "[12]", "--", "-")[0] == 0  # a text that looks like an option, after --
    fails(*why(qwen, "--ids", "[1]", "x", "y")[::2], "unrecognized arguments: x y")


ODD = ["", "-", "--", "-1", "0", "1", "99999999999999999999", "1e999", "NaN", "null", "true", "[]", "{}", "[1]",
       "[[]]", "[-1]", "[0, 1, 2]", "[1, 2.5]", "[" * 300 + "]" * 300, '"x"', "\n", "\x1b[2J", "\udcff", "é",
       "x" * 3000, "/", "/nonexistent/file", "\\x41\\", "\\xff", "<s>", "</s> <|im_end|>", "hf://", "ollama:", "gopher://x"]


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="POSIX")
def test_fuzz_the_arguments(tmp_path_factory):
    """Odd values in every option (in this process): 0 or 1 with nothing on stderr, or 2 with exactly one line;
    never an internal error."""
    from datetime import timedelta

    from hypothesis import HealthCheck, event, given, settings
    from hypothesis import strategies as st

    small = str(REPO / "data" / "synthetic" / "byte-level-286.gguf")
    folder = tmp_path_factory.mktemp("fuzz")
    small_json = folder / "tokenizer.json"
    transformers_tokenizer(small).backend_tokenizer.save(str(small_json))
    other_gguf = folder / "other.gguf"
    write_metadata(other_gguf, read_metadata(small), {"tokenizer.ggml.add_bos_token": True})
    odd = st.sampled_from(ODD)
    ids = st.lists(st.integers(-3, 300), max_size=6).map(json.dumps) | odd

    @settings(max_examples=int(os.environ.get("GGUFTOK_FUZZ_EXAMPLES", "100")), deadline=timedelta(seconds=20),
              suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def fuzz(data):
        argv = [data.draw(st.sampled_from([small, small, small]) | odd)]
        decoding = data.draw(st.booleans())
        if decoding:
            argv += ["--decode", data.draw(ids)]
        argv += data.draw(st.sampled_from([[data.draw(st.text(max_size=12) | odd)], ["-f", data.draw(odd)],
                                           ["--stdin"], []]))
        argv += data.draw(st.sampled_from([["--other", str(small_json)], ["--other", str(other_gguf)],
                                           ["--other", data.draw(odd)], ["--transformers"], ["--ids", data.draw(ids)],
                                           []]))
        argv += data.draw(st.lists(st.sampled_from(["--no-add-special", "--parse-special", "--remove-special",
                                                    "--no-escape", "--json"]), max_size=3, unique=True))
        if data.draw(st.booleans()):
            argv += ["--max-input-bytes", data.draw(st.sampled_from(["1", "2K"]) | odd)]
        stdin = data.draw(st.sampled_from([b"", b"Hello world", b"\xff\xfe", b"<s>" * 100]))
        status, _, err = why(*argv, stdin=stdin)
        event(f"exit {status}")
        lines = err.splitlines()
        assert status in (0, 1, 2), (argv, status, lines)
        assert len(lines) == (1 if status == 2 else 0), (argv, status, lines)
        assert not lines or "internal error" not in lines[0], (argv, lines)

    fuzz()
