"""The capstone: the student's package assembled with the reference where a part is not written, graded on
llama.cpp's own cases; the reference solutions pass everything, and a wrong part shows its first mismatch."""

from __future__ import annotations

import shutil

import pytest
from conftest import REPO, _require_vocab
from mutants.capstone import PARTS
from solutions_loader import wrong_variants
from viz_checks import assert_sanitizer_safe

from gguftok.data import vocab_dir
from gguftok.exercises import EXERCISES, capstone, workspace
from gguftok.viz.compare_view import side_by_side
from gguftok.viz.scoreboard_view import mismatch_view, scoreboard, yours_beside

TEMPLATES = REPO / "notebooks" / "mytok"
SOLUTIONS = REPO / "solutions" / "mytok"


@pytest.fixture(scope="module", autouse=True)
def _vocab():
    _require_vocab()


@pytest.fixture(scope="module")
def solved_grade():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(workspace.ENV, str(SOLUTIONS))
        assembly = capstone.assemble()
        return assembly, capstone.grade(assembly, fuzz=300, round_trip=300)


def test_the_solutions_climb_the_whole_ladder(solved_grade):
    assembly, board = solved_grade
    assert [p.status for p in assembly.parts] == ["yours"] * len(workspace.STAGES)
    assert [v.name for v in board.vocabs] == list(capstone.GRADED)
    for v in board.vocabs:
        assert v.error is None and v.ok, mismatch_view(v).text
        assert v.cases[1] >= 40 and v.fuzz == (300, 300) and v.round_trip == (300, 300)
    assert board.ok
    view = scoreboard(board)
    assert_sanitizer_safe(view.html)
    assert view.text.startswith(f"Your tokenizer: {len(workspace.STAGES)} of {len(workspace.STAGES)} stages "
                                f"written by you; {len(capstone.GRADED)} of {len(capstone.GRADED)} vocabularies")


def test_the_untouched_workspace_is_all_reference_and_still_grades(monkeypatch):
    monkeypatch.setenv(workspace.ENV, str(TEMPLATES))
    assembly = capstone.assemble()
    assert [p.status for p in assembly.parts] == ["reference"] * len(workspace.STAGES)
    board = capstone.grade(assembly, names=["gpt-2", "llama-spm"], fuzz=30, round_trip=30)
    assert board.ok, [mismatch_view(v).text for v in board.vocabs]


def _workspace_with(tmp_path, stage: str, source: str):
    """The templates, with ``source`` appended to one stage (a later definition wins)."""
    pkg = tmp_path / "mytok"
    shutil.copytree(TEMPLATES, pkg)
    with open(pkg / f"{stage}.py", "a", encoding="utf-8") as f:
        f.write("\n\n" + source)
    return pkg


def test_a_reference_part_calls_the_students_own_functions(tmp_path, monkeypatch):
    """Only merge_word written, and wrong: the reference word_ids must use it, so the grade fails."""
    pkg = _workspace_with(tmp_path, "merge_queue", "def merge_word(word, ranks):\n    return list(word)\n")
    monkeypatch.setenv(workspace.ENV, str(pkg))
    assembly = capstone.assemble()
    part = next(p for p in assembly.parts if p.stage == "merge_queue")
    assert part.mine == ("merge_word",) and part.status == "partly yours"
    (v,) = capstone.grade(assembly, names=["gpt-2"], fuzz=20, round_trip=0).vocabs
    assert not v.ok and v.cases[0] < v.cases[1]
    first = v.first["cases"]
    assert first.got != first.expected
    text = mismatch_view(v).text
    assert text.startswith("gpt-2, cases: the first mismatch") and repr(first.got) in text
    assert 'GgufTokenizer.from_gguf("../data/vocab/ggml-vocab-gpt-2.gguf")' in text


def test_a_student_class_with_a_syntax_error_or_a_crash_is_reported_not_raised(tmp_path, monkeypatch):
    pkg = _workspace_with(tmp_path, "tokenizer", "class GgufTokenizer:\n    @classmethod\n    def from_gguf(cls, p):\n"
                                                 "        raise RuntimeError('not today')\n")
    monkeypatch.setenv(workspace.ENV, str(pkg))
    (v,) = capstone.grade(names=["gpt-2"], fuzz=5, round_trip=5).vocabs
    assert v.error == "RuntimeError: not today" and not v.ok
    assert mismatch_view(v).text == "gpt-2: GgufTokenizer.from_gguf raised RuntimeError: not today"


def test_side_by_side_shows_the_students_rows_beside_gguftok(tmp_path, monkeypatch):
    """Notebook 12's view: the assembled class gives gguftok's ids row for row; a class that raises, or returns
    what is not a list of the file's ids, says so in its own row and the others still show."""
    monkeypatch.setenv(workspace.ENV, str(TEMPLATES))
    text = "Hello wörld! <|im_end|> 2026 😀"
    rows = yours_beside(capstone.assemble().GgufTokenizer, ["gpt-2", "llama-spm"])
    assert list(rows) == ["gpt-2 · gguftok", "gpt-2 · yours", "llama-spm · gguftok", "llama-spm · yours"]
    for name in ("gpt-2", "llama-spm"):
        assert rows[f"{name} · yours"].encode(text) == rows[f"{name} · gguftok"].encode(text, add_special=False)
    lines = side_by_side(rows, text).text.splitlines()[1:]
    assert [line.split("  ", 1)[1].lstrip() for line in lines[0::2]] == [
        line.split("  ", 1)[1].lstrip() for line in lines[1::2]]

    class Raises:
        @classmethod
        def from_gguf(cls, path):
            return cls()

        def encode(self, text, add_special=True, parse_special=False):
            raise KeyError("Ġ")

    class Strings(Raises):
        def encode(self, text, add_special=True, parse_special=False):
            return ["Hello"]

    class Unloadable:
        @classmethod
        def from_gguf(cls, path):
            raise RuntimeError("not today")

    shown = {}
    for label, cls in [("raises", Raises), ("strings", Strings), ("unloadable", Unloadable)]:
        shown |= {f"{label} {k}": v for k, v in yours_beside(cls, ["gpt-2"]).items()}
    view = side_by_side(shown, "Hello")
    assert_sanitizer_safe(view.html)
    text_rows = view.text.splitlines()
    assert "your encode raised KeyError: 'Ġ'" in text_rows[2]
    assert "your encode returned ['Hello'], not a list of ids below 50,257" in text_rows[4]
    assert "GgufTokenizer.from_gguf raised RuntimeError: not today" in text_rows[6]
    assert all("1 tokens" in row for row in text_rows[1::2])


# Every stage's wrong variant, put into the assembled reference, makes some vocabulary fail: the grade can fail
# for a mistake in any part. tests/mutants/capstone.py's mistake for the stage is tried first where there is one (the
# exercises' own wrong variants of those stages change no graded answer, and each costs a whole grade), then the
# exercises' wrong variants. Not
# the runner of 09 (the grade reads llama.cpp's files with gguftok's reader, so that a wrong runner cannot hide a
# failure) and not the class itself (its exercise has a wrong variant).
GRADED_STAGES = [s for s in workspace.STAGES if s not in ("conformance", "tokenizer")]


def _smallest_first() -> list[str]:
    """The graded vocabularies, the smallest file first: a grade that stops at its first failure gets there
    sooner (loading a vocabulary in the student's pure-Python reader is most of a vocabulary's grade)."""
    return sorted(capstone.GRADED, key=lambda n: (vocab_dir() / f"ggml-vocab-{n}.gguf").stat().st_size)


@pytest.mark.parametrize("stage", GRADED_STAGES)
def test_a_wrong_part_fails_the_grade(stage, solved_grade, monkeypatch):
    wrong = wrong_variants()
    tries = [PARTS[stage]] if stage in PARTS else []
    tries += [(EXERCISES[i].name, wrong[i]) for i in EXERCISES if EXERCISES[i].module == stage and i in wrong]
    assembly, _ = solved_grade
    module = getattr(assembly.package, stage)
    caught = []
    for name, fn in tries:
        monkeypatch.setattr(module, name, fn)
        board = capstone.grade(assembly, _smallest_first(), fuzz=60, round_trip=60, until_failure=True)
        monkeypatch.undo()
        if not board.ok:
            failing = board.vocabs[-1]  # the grade stopped there
            assert not failing.ok and all(v.ok for v in board.vocabs[:-1])
            text = mismatch_view(failing).text
            assert "the first mismatch" in text or "raised" in text, text
            caught.append(name)
            break  # one wrong variant the grade catches is what this asks
    assert caught, f"no wrong variant of {stage} changes any graded answer"


def test_the_assembly_is_kept_until_a_file_of_the_package_changes(tmp_path, monkeypatch):
    """A check run again on unchanged files reuses the assembled class (and so the tokenizers built from it);
    an edit, even one that keeps the file's size, assembles again."""
    import os

    pkg = _workspace_with(tmp_path, "merge_queue", "def merge_word(word, ranks):\n    return list(word)\n")
    monkeypatch.setenv(workspace.ENV, str(pkg))
    first = capstone.assembled()
    assert capstone.assembled() is first
    assert capstone.assembled().GgufTokenizer is first.GgufTokenizer
    path = pkg / "merge_queue.py"
    path.write_text(path.read_text().replace("list(word)", "[*word]"))
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    second = capstone.assembled()
    assert second is not first
    assert next(p for p in second.parts if p.stage == "merge_queue").mine == ("merge_word",)
    monkeypatch.setenv(workspace.ENV, str(TEMPLATES))  # another package: assembled afresh
    assert capstone.assembled() is not second


def test_a_class_graded_again_reads_each_unchanged_vocabulary_once(tmp_path):
    """The scoreboard's button grades the same class again: its tokenizers are kept while the file is
    unchanged; a changed file, or another class, reads it again."""
    import os

    path = tmp_path / "ggml-vocab-x.gguf"
    path.write_bytes(b"GGUF")
    made = []

    class Counted:
        @classmethod
        def from_gguf(cls, p):
            made.append((cls, p))
            return object()

    class Other(Counted):
        pass

    first = capstone._built(Counted, path)
    assert capstone._built(Counted, path) is first and len(made) == 1
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert capstone._built(Counted, path) is not first and len(made) == 2
    capstone._built(Other, path)
    capstone._built(Counted, path)  # only the last class's are kept
    assert [c for c, _ in made] == [Counted, Counted, Other, Counted]
