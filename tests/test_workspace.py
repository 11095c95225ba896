"""The student's package: committed as templates that import nothing of gguftok, with the same functions as the
reference solutions, read afresh on every check, and never written to by a notebook."""

from __future__ import annotations

import ast
import inspect
import json
import sys
from pathlib import Path

import pytest
from conftest import REPO
from solutions_loader import solved

from gguftok.errors import WorkspaceError
from gguftok.exercises import EXERCISES, check, workspace
from gguftok.exercises.capstone import _holds_empty

TEMPLATES = REPO / "notebooks" / "mytok"
SOLUTIONS = REPO / "solutions" / "mytok"
ALLOWED = {"regex", "numpy", "__future__"} | set(sys.stdlib_module_names)


def _modules(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.py"))


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            found.add("__import__")
    return found


@pytest.mark.parametrize("folder", [TEMPLATES, SOLUTIONS], ids=["templates", "solutions"])
def test_the_package_imports_only_the_standard_library_regex_and_numpy(folder):
    for path in _modules(folder):
        bad = _imports(path) - ALLOWED
        assert not bad, f"{path.relative_to(REPO)} imports {sorted(bad)}"
        assert "gguftok" not in path.read_text(encoding="utf-8").replace("gguftok's", ""), path.name


def _public_defs(tree: ast.Module) -> dict[str, ast.AST]:
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_"):
            out[node.name] = node
    return out


def _body_is_a_template(fn: ast.FunctionDef) -> bool:
    body = fn.body[1:] if isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant) else fn.body
    return (len(body) == 1 and isinstance(body[0], ast.Raise)
            and "NotImplementedError" in ast.unparse(body[0].exc))


def test_every_stage_has_a_template_and_a_solution():
    assert [p.stem for p in _modules(TEMPLATES)] == sorted(["__init__", *workspace.STAGES])
    assert [p.stem for p in _modules(SOLUTIONS)] == sorted(["__init__", *workspace.STAGES])


@pytest.mark.parametrize("stage", workspace.STAGES)
def test_the_templates_are_unwritten_and_match_the_solutions(stage):
    template = ast.parse((TEMPLATES / f"{stage}.py").read_text(encoding="utf-8"))
    solution = ast.parse((SOLUTIONS / f"{stage}.py").read_text(encoding="utf-8"))
    assert ast.get_docstring(template), f"mytok/{stage}.py starts with a docstring"
    mine, ref = _public_defs(template), _public_defs(solution)
    assert set(mine) == set(ref), f"mytok/{stage}.py and its solution define different names"
    for name, node in mine.items():
        fns = [node] if isinstance(node, ast.FunctionDef) else [
            f for f in node.body if isinstance(f, ast.FunctionDef) and (not f.name.startswith("_") or f.name in (
                "__init__", "__len__", "__contains__"))]
        ref_fns = {f.name: f for f in ([ref[name]] if isinstance(ref[name], ast.FunctionDef) else ref[name].body)
                   if isinstance(f, ast.FunctionDef)}
        for fn in fns:
            assert ">>> " in (ast.get_docstring(fn) or "") + (ast.get_docstring(node) or ""), \
                f"{stage}.{fn.name}: a tiny example in the docstring"
            assert _body_is_a_template(fn), f"mytok/{stage}.py: {fn.name} is committed unwritten"
            assert ast.unparse(fn.args) == ast.unparse(ref_fns[fn.name].args), f"{stage}.{fn.name}: signature"


def test_every_exercise_of_the_package_names_a_function_of_its_stage():
    for ex in EXERCISES.values():
        if ex.module:
            tree = ast.parse((TEMPLATES / f"{ex.module}.py").read_text(encoding="utf-8"))
            assert ex.name in _public_defs(tree), f"{ex.id}: no {ex.name} in mytok/{ex.module}.py"


def test_a_check_reads_the_file_again_so_an_edit_counts_without_a_restart(tmp_path, monkeypatch):
    pkg = tmp_path / "mytok"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    monkeypatch.setenv(workspace.ENV, str(pkg))
    (pkg / "bytemap.py").write_text("def bytes_to_unicode():\n    raise NotImplementedError\n")
    first = workspace.load("bytemap")
    with pytest.raises(NotImplementedError):
        first.bytes_to_unicode()
    # the same size and the same second: a cached .pyc would hide this edit
    (pkg / "bytemap.py").write_text("def bytes_to_unicode():\n    return 'edited!!!!!!!!!!!!!'\n")
    assert workspace.load("bytemap").bytes_to_unicode() == "edited!!!!!!!!!!!!!"
    assert not (pkg / "__pycache__").exists(), "nothing is written into the student's folder"
    (pkg / "bytemap.py").write_text("def bytes_to_unicode(:\n")
    with pytest.raises(WorkspaceError, match=r"bytemap.py, line 1: .*fix it, save, run again"):
        workspace.load("bytemap")


def test_the_workspace_is_found_and_a_wrong_setting_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.delenv(workspace.ENV, raising=False)
    monkeypatch.chdir(REPO / "notebooks")
    assert workspace.workspace_dir() == TEMPLATES
    monkeypatch.setenv(workspace.ENV, str(tmp_path))
    with pytest.raises(WorkspaceError, match="not a package folder"):
        workspace.workspace_dir()
    with pytest.raises(WorkspaceError, match="no stage 'bytemaps'"):
        workspace.load("bytemaps")


def test_a_missing_function_is_named(tmp_path, monkeypatch):
    ex = next(ex for ex in EXERCISES.values() if ex.module)
    pkg = tmp_path / "mytok"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / f"{ex.module}.py").write_text("def renamed():\n    pass\n")
    monkeypatch.setenv(workspace.ENV, str(pkg))
    with pytest.raises(WorkspaceError, match=f"mytok/{ex.module}.py has no {ex.name}"):
        check(ex.id)


def test_the_committed_workspace_is_not_attempted_and_the_solutions_pass_by_name(monkeypatch):
    ids = [ex.id for ex in EXERCISES.values() if ex.module]
    assert ids
    monkeypatch.setenv(workspace.ENV, str(TEMPLATES))
    assert all(check(i).status == "not attempted" for i in ids)
    monkeypatch.setenv(workspace.ENV, str(SOLUTIONS))
    # By name, each check reads the solution's function from the package the variable names (that it passes is
    # tests/test_exercises.py's test_the_solution_passes); one check runs whole by name, end to end.
    for i in ids:
        ex, mine = EXERCISES[i], solved(i)
        found = ex.student()
        assert Path(inspect.getsourcefile(found)).resolve() == (SOLUTIONS / f"{ex.module}.py").resolve(), i
        assert (found.__qualname__, inspect.getsource(found)) == (mine.__qualname__, inspect.getsource(mine)), i
    result = check(ids[0])
    assert result.ok and result.total == len(EXERCISES[ids[0]].cases()), result.text


def test_no_notebook_writes_into_the_package():
    for path in (REPO / "notebooks").glob("*.ipynb"):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            src = "".join(cell["source"])
            assert "%%writefile" not in src, path.name
            assert not ("mytok" in src and (".write_text(" in src or "'w')" in src or '"w")' in src)), path.name



@pytest.mark.parametrize("stage", workspace.STAGES)
def test_the_given_tables_are_the_same_in_the_templates_and_the_solutions(stage, monkeypatch):
    """What a template gives (type codes, regex lists, texts llama.cpp looks for) is the solution's too: a
    student never starts from data that differs from the reference's."""
    monkeypatch.setenv(workspace.ENV, str(TEMPLATES))
    mine, ref = workspace.load(stage), workspace.load_solution(stage)
    given = [k for k, v in vars(mine).items() if k.isupper() and v != "" and not callable(v)
             and not isinstance(v, type(sys))]
    for name in given:
        if name in vars(ref) and not _holds_empty(getattr(mine, name)):
            assert getattr(mine, name) == getattr(ref, name), f"mytok/{stage}.py: {name} differs from the solution's"
