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
                     "nbval", "19 reference vocabularies", "widgets in JupyterLab", "llama.cpp oracle",
                     "voila (instructor mode)"]
    assert report.ok and report.summary() == "everything needed is present"  # the oracle is optional
    oracle_line = report.lines[11]
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
