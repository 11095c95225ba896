"""The repository's set-up promises: environment.yml agrees with pyproject.toml, the two commands, CI."""

from __future__ import annotations

import re
import sys

import yaml
from conftest import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def _split(requirement: str) -> tuple[str, str]:
    m = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*([^;]*?)\s*(;.*)?", requirement)
    assert m, requirement
    name = m.group(1).lower().replace("_", "-")
    spec = ",".join(sorted(part.strip() for part in m.group(2).split(",") if part.strip()))
    return name, spec


def pyproject_requirements() -> dict[str, str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"])
    for extra in ("lab", "test", "bench"):
        reqs += project["optional-dependencies"][extra]
    # Back-ports for old Pythons (tomli) have nothing to match in a conda environment of a newer Python.
    return dict(_split(r) for r in reqs if "python_version" not in r)


def environment_requirements() -> dict[str, str]:
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    assert env["channels"] == ["conda-forge"]
    reqs: list[str] = []
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            reqs += [r for r in dep["pip"] if not r.startswith("-e")]
        elif not re.match(r"(python|pip)\b", dep):
            reqs.append(dep)
    return dict(_split(r) for r in reqs)


def test_environment_yml_matches_pyproject():
    assert environment_requirements() == pyproject_requirements()


def test_environment_yml_asks_for_the_same_python():
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    requires = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["requires-python"]
    assert f"python{requires}" in env["dependencies"]


def test_runtime_dependencies_are_only_regex_gguf_numpy_jinja2():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert sorted(_split(r)[0] for r in project["dependencies"]) == ["gguf", "jinja2", "numpy", "regex"]


def test_readme_starts_with_the_two_commands():
    readme = (REPO / "README.md").read_text()
    head = readme[: readme.index("\n## ")]
    assert "make lab" in head and "make test" in head


def test_ci_calls_the_readme_test_command():
    assert "make test" in (REPO / ".ci" / "run").read_text()


def test_core_does_not_import_the_workbook_packages():
    core = [p for p in (REPO / "gguftok").rglob("*.py") if "viz" not in p.parts and p.name != "cli.py"]
    assert core
    pattern = re.compile(r"^\s*(import|from)\s+(ipywidgets|matplotlib|IPython|jupyter\w*)\b", re.M)
    offenders = [str(p.relative_to(REPO)) for p in core if pattern.search(p.read_text())]
    assert offenders == []


def test_the_source_layer_is_exported():
    """What a user of remote files needs comes from ``gguftok`` itself, and importing it loads no HTTP client."""
    import subprocess

    import gguftok
    import gguftok.errors
    import gguftok.sources

    assert all(hasattr(gguftok, name) for name in gguftok.__all__)
    assert gguftok.open_source is gguftok.sources.open_source and gguftok.Source is gguftok.sources.Source
    assert gguftok.ReadReport is gguftok.sources.ReadReport and gguftok.SourceError is gguftok.errors.SourceError
    assert {"open_source", "SourceError", "Source", "ReadReport"} <= set(gguftok.__all__)
    src = gguftok.open_source(str(REPO / "data" / "synthetic" / "tiny-9.gguf"), timeout=5)
    assert isinstance(src, gguftok.Source) and isinstance(gguftok.read_metadata(src).origin, gguftok.ReadReport)
    try:
        gguftok.read_metadata("hf://owner/model.gguf")
    except OSError as e:  # a SourceError is caught as an OSError too
        assert isinstance(e, gguftok.SourceError) and e.reason == "bad-reference"
    else:
        raise AssertionError("hf://owner/model.gguf names no file")
    probe = ("import sys, gguftok; print(sorted(m for m in ('huggingface_hub', 'tqdm', 'urllib.request', "
             "'http.client', 'ssl') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def _package_imports(path) -> set[str]:
    """The gguftok modules a file imports (relative or absolute), at any depth of the code, as dotted names."""
    import ast

    tree = ast.parse(path.read_text())
    here = path.relative_to(REPO).with_suffix("").parts  # ("gguftok", "sources", "http")
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(here[: len(here) - node.level])
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.startswith("gguftok"):
                names |= {f"{mod}.{a.name}" if mod == "gguftok" else mod for a in node.names}
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names if a.name.startswith("gguftok")}
    return names


def test_the_byte_layers_know_nothing_of_tokenizers():
    """The source layer and the GGUF reader import only the errors, the version and the data paths: never the
    package's face (``gguftok/__init__.py``), which loads the tokenizer."""
    allowed = {"gguftok.errors", "gguftok.version", "gguftok.data", "gguftok.metadata"}
    files = [*sorted((REPO / "gguftok" / "sources").glob("*.py")), REPO / "gguftok" / "metadata.py"]
    offenders = {}
    for path in files:
        bad = {m for m in _package_imports(path) if not m.startswith("gguftok.sources") and m not in allowed}
        if bad:
            offenders[str(path.relative_to(REPO))] = sorted(bad)
    assert offenders == {}
