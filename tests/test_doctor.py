"""The environment check: every line, the fix it names when something is missing, the stable summary, the CLI."""

from __future__ import annotations

from importlib import metadata

import pytest
from viz_checks import assert_sanitizer_safe

import gguftok.conformance.oracle as oracle
from gguftok import doctor
from gguftok.cli import main
from gguftok.doctor import environment_check


@pytest.fixture
def without(monkeypatch):
    """``without("ipywidgets")``: that distribution looks uninstalled."""
    real = metadata.version

    def hide(*names):
        def version(name):
            if name in names:
                raise metadata.PackageNotFoundError(name)
            return real(name)

        monkeypatch.setattr(doctor.metadata, "version", version)

    return hide


def test_the_lines_and_the_summary_when_all_is_there(monkeypatch):
    monkeypatch.setattr(oracle, "why_unavailable", lambda: "not built")
    report = environment_check()
    names = [line.name for line in report.lines]
    assert names == ["Python >= 3.10", "jupyterlab", "ipywidgets", "regex", "gguf", "matplotlib", "numpy", "jupytext",
                     "nbval", "19 reference vocabularies", "the course's data", "widgets in JupyterLab",
                     "llama.cpp oracle", "voila (instructor mode)"]
    assert report.ok and report.summary() == "everything needed is present"  # the oracle is optional
    oracle_line = report.lines[12]
    assert not oracle_line.ok and oracle_line.optional
    assert oracle_line.text().splitlines()[1] == "    optional; to add it: make oracle   (5 to 15 minutes)"
    assert report.text.endswith("\n\neverything needed is present")
    assert_sanitizer_safe(report.rendered().html)


def test_a_missing_package_is_named_with_its_fix(without):
    without("ipywidgets", "jupyterlab_widgets")
    report = environment_check()
    assert not report.ok and report.summary() == "missing: ipywidgets, widgets in JupyterLab"
    line = next(x for x in report.lines if x.name == "ipywidgets")
    assert line.text().startswith("✗ ipywidgets")
    assert "fix: make setup   (or: pip install -e '.[lab,test]')" in line.text()
    assert "pip install jupyterlab_widgets" in report.text
    assert_sanitizer_safe(report.rendered().html)


def test_missing_or_changed_vocabularies(monkeypatch, tmp_path):
    monkeypatch.setenv("GGUFTOK_VOCAB_DIR", str(tmp_path))
    report = environment_check()
    assert report.summary() == "missing: 19 reference vocabularies"
    line = next(x for x in report.lines if x.name == "19 reference vocabularies")
    assert line.found.startswith("49 of 49 files missing or different")
    assert line.fix == "make vocab   (or: python -m gguftok.data fetch)"


def test_the_command(capsys, monkeypatch, tmp_path):
    assert main(["doctor"]) == 0
    assert capsys.readouterr().out.endswith("everything needed is present\n")
    monkeypatch.setenv("GGUFTOK_VOCAB_DIR", str(tmp_path))
    assert main(["doctor"]) == 1
    assert "fix: make vocab" in capsys.readouterr().out


def test_the_course_manifest_lists_every_file_of_the_courses_data():
    """data/course.json is current: every file of data/corpus, data/synthetic and data/golden, with its sha256
    (regenerate with ``python -m gguftok.data write-course-manifest``)."""
    from gguftok import data

    assert data.load_course_manifest() == data.course_files_on_disk()
    assert {"corpus/harbour.txt", "synthetic/tiny-9.gguf", "golden/qwen2.jsonl.xz",
            "golden/chat-builtin.json"} <= set(data.load_course_manifest())


def test_each_file_the_course_reads_is_named_when_it_is_missing(monkeypatch, tmp_path):
    """The course reads its data from data/ only (never from tests/); remove any one file of it and doctor
    names that file, with the fix."""
    from gguftok import data

    root = data.REPO_DATA
    names = list(data.load_course_manifest())
    (tmp_path / "course.json").symlink_to(root / "course.json")
    for folder in data.COURSE_FOLDERS:
        (tmp_path / folder).mkdir()
    for name in names:
        (tmp_path / name).symlink_to(root / name)
    monkeypatch.setenv("GGUFTOK_VOCAB_DIR", str(data.vocab_dir()))
    monkeypatch.setattr(data, "REPO_DATA", tmp_path)
    assert environment_check().ok
    (tmp_path / names[0]).unlink()
    assert environment_check().summary() == "missing: the course's data"
    (tmp_path / names[0]).symlink_to(root / names[0])
    for name in names:
        link = tmp_path / name
        link.unlink()
        line = doctor._course_data()  # the line environment_check shows
        assert not line.ok and not line.optional
        assert line.found == f"1 of {len(names)} files missing or different: data/{name}", line.found
        assert line.fix.startswith("git checkout -- data/")
        link.symlink_to(root / name)
