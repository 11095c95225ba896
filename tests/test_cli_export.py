"""``gguftok export``: the folder written, the refusal (one line per difference), ``--verify`` and
``--all-reference``, and the exit status of each (0 written and agreeing, 1 refused or disagreeing, 2 a bad
command line). Most run in this process (``main``); one runs the command as a child, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO
from test_cli_hostile import in_process

from gguftok import Tokenizer
from gguftok.cli import golden_fixture, reference_vocabulary
from gguftok.export import known_differences

pytest.importorskip("tokenizers")

SYNTHETIC = str(REPO / "data" / "synthetic" / "byte-level-286.gguf")


def export(*argv: str) -> tuple[int, str, str]:
    status, out, err = in_process(["export", *argv])
    return status, out.decode("utf-8"), err


@pytest.fixture(scope="module")
def inexact(vocab_path):
    """Falcon: its overlapping special texts are differences in encoding."""
    return str(vocab_path("falcon"))


@pytest.fixture(scope="module")
def inexact_differences(inexact):
    """Falcon's known differences, found once for the module."""
    return known_differences(Tokenizer.from_gguf(inexact))


def test_writes_the_folder(tmp_path):
    status, out, err = export(SYNTHETIC, "-o", str(tmp_path / "out"))
    assert status == 0 and err == "", err
    assert out == f"wrote {tmp_path / 'out'}: tokenizer.json, tokenizer_config.json, special_tokens_map.json (exact)\n"
    tokenizers = pytest.importorskip("tokenizers")
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "out" / "tokenizer.json"))
    assert hf.encode("Hello world").ids == Tokenizer.from_gguf(SYNTHETIC).encode("Hello world")


def test_verify_prints_the_agreement(tmp_path):
    status, out, err = export(SYNTHETIC, "-o", str(tmp_path), "--verify", "--fuzz", "200", "--seed", "3")
    assert status == 0, (out, err)
    lines = out.splitlines()
    assert lines[1].startswith("verified with ") and len(lines) == 3
    assert lines[2].startswith("byte-level-286.gguf") and " fuzz" in lines[2]


def test_refusal_is_one_line_per_difference(tmp_path, inexact, inexact_differences):
    diffs = inexact_differences
    assert diffs and any(d.stage != "decoder" for d in diffs)
    status, out, err = export(inexact, "-o", str(tmp_path / "out"))
    assert status == 1 and out == ""
    lines = err.splitlines()
    assert len(lines) == len(diffs)
    for line, d in zip(lines, diffs, strict=True):
        assert line.startswith(f"gguftok export: not exact: {d.stage}: ") and d.rule[:30] in line
        assert line.endswith("export anyway with --inexact all")
    assert not (tmp_path / "out").exists()


def test_inexact_all_prints_each_known_difference(tmp_path, inexact, inexact_differences):
    diffs = inexact_differences
    status, out, err = export(inexact, "-o", str(tmp_path), "--inexact", "all")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].endswith(f"({len(diffs)} known differences)")
    assert [line.split(": ")[1] for line in lines[1:]] == [d.stage for d in diffs]
    # decode accepts only differences in decoding: falcon's are in encoding
    status, _, err = export(inexact, "-o", str(tmp_path), "--inexact", "decode")
    assert status == 1 and all(line.endswith("--inexact all") for line in err.splitlines())


def test_verify_fails_with_the_mismatches(tmp_path, inexact):
    """--verify tries the example text of each known difference too: falcon's differ, so exit status 1, with
    at most 5 mismatches shown."""
    status, out, err = export(inexact, "-o", str(tmp_path), "--inexact", "all", "--verify", "--fuzz", "0")
    assert status == 1, (out, err)
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("verified with "))
    assert "golden" in lines[at + 1] and "llama.cpp cases" in lines[at + 1]
    shown = lines[at + 2:]
    assert 1 <= len(shown) <= 5 and all(line.startswith(("  encode(", "  decode(")) for line in shown)
    assert any("[extra]" in line for line in shown)


def test_reference_vocabularies_are_known_by_their_bytes(tmp_path, vocab_path):
    path = vocab_path("starcoder")
    name, digest = reference_vocabulary(path)
    assert name == "starcoder" and golden_fixture(name, digest).header["file"] == path.name
    copy = tmp_path / "renamed.gguf"
    copy.write_bytes(path.read_bytes())
    assert reference_vocabulary(copy) == (name, digest)
    assert golden_fixture(name, "0" * 64) is None
    assert reference_vocabulary(SYNTHETIC) is None and reference_vocabulary(tmp_path / "missing") is None


def test_all_reference(tmp_path, vocab_path):
    """One line each, in a folder of two of them (with their cases); exit status 0: the exact one agrees and
    falcon's disagreements are its declared ones."""
    folder = tmp_path / "vocab"
    folder.mkdir()
    for name in ("falcon", "starcoder"):
        for suffix in (".gguf", ".gguf.inp", ".gguf.out"):
            (folder / f"ggml-vocab-{name}{suffix}").symlink_to(vocab_path(name, suffix))
    status, out, err = export("--all-reference", "--vocab-dir", str(folder), "--fuzz", "50",
                              "-o", str(tmp_path / "out"))
    assert status == 0, (out, err)
    lines = [line for line in out.splitlines() if not line.startswith("  ")]
    assert [line.split()[0] for line in lines] == ["falcon", "starcoder"]
    assert "known differences: " in lines[0] and lines[1].endswith("[exact]") and "golden" in lines[1]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["falcon", "starcoder"]


@pytest.mark.parametrize("argv, needle", [
    ([SYNTHETIC], "-o DIR"),
    ([], "MODEL"),
    ([SYNTHETIC, "-o", "x", "--fuzz", "10"], "--fuzz is for --verify"),
    ([SYNTHETIC, "--all-reference"], "MODEL is for one model"),
    (["--all-reference", "--inexact", "all"], "--inexact is for one model"),
    ([SYNTHETIC, "-o", "x", "--vocab-dir", "y"], "--vocab-dir is for --all-reference"),
    ([SYNTHETIC, "-o", "x", "--verify", "--fuzz", "-3"], "not a count"),
    ([SYNTHETIC, "-o", "x", "--inexact", "some"], "invalid choice"),
])
def test_bad_command_lines_exit_2(argv, needle):
    status, out, err = export(*argv)
    assert status == 2 and out == "" and len(err.splitlines()) == 1 and needle in err, err


def test_failures_are_one_line(tmp_path):
    (tmp_path / "chat_template.jinja").write_text("{{ messages }}")
    status, _, err = export(SYNTHETIC, "-o", str(tmp_path))
    assert status == 1 and len(err.splitlines()) == 1 and "chat_template.jinja" in err, err
    status, _, err = export(str(tmp_path / "missing.gguf"), "-o", str(tmp_path))
    assert status == 1 and err.startswith("gguftok: error: no such file"), err


def test_as_a_command(tmp_path, inexact):
    env = {k: v for k, v in os.environ.items() if k != "TRANSFORMERS_NO_ADVISORY_WARNINGS"} | {"HF_HUB_OFFLINE": "1"}
    r = subprocess.run([sys.executable, "-m", "gguftok", "export", inexact, "-o", str(tmp_path)], capture_output=True,
                       cwd=REPO, timeout=120, env=env)
    assert r.returncode == 1 and b"Traceback" not in r.stderr and r.stdout == b""
    assert all(line.startswith(b"gguftok export: not exact: ") for line in r.stderr.splitlines())
    r = subprocess.run([sys.executable, "-m", "gguftok", "export", "--help"], capture_output=True, cwd=REPO,
                       timeout=120, env=env)
    assert r.returncode == 0 and b"--all-reference" in r.stdout
    assert Path(tmp_path).is_dir() and not list(Path(tmp_path).iterdir())
