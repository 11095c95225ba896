"""The student's own package, the workspace: where it is, and its current text loaded from disk.

The workbook's notebooks sit beside ``mytok/``, a package that belongs to the student: one module per stage
of the pipeline, in gguftok's order (``metadata``, ``bytemap``, ``merges``, ``pretokenize``, ``merge_queue``,
``special``, ``bos_eos``, ``detokenize``, ``conformance``, ``cache``, ``sentencepiece``, ``wordpiece``, ``unigram``,
``tokenizer``). It is
committed as templates: every function has its signature, a docstring with a tiny example and ``raise
NotImplementedError``. The student edits it in JupyterLab's editor; a check reads the file again every time,
so an edit counts as soon as it is saved, without restarting the kernel, and nothing in a notebook ever
writes to it.

Where it is: ``$GGUFTOK_WORKSPACE`` if set, else ``./mytok`` when the current folder has one (a notebook's
kernel runs in ``notebooks/``), else ``notebooks/mytok`` of the repository this gguftok came from.

>>> mine = load("bytemap")                       # the student's module, read afresh
>>> mine.__name__, callable(mine.bytes_to_unicode)
('mytok.bytemap', True)

The reference solutions live outside the library, in ``solutions/mytok/`` at the top of the repository
(``$GGUFTOK_SOLUTIONS`` overrides): the capstone uses one of them where the student's part is not written yet,
and says so.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from ..errors import WorkspaceError

PACKAGE = "mytok"
SOLUTION_PACKAGE = "mytok_solution"
ENV = "GGUFTOK_WORKSPACE"
SOLUTIONS_ENV = "GGUFTOK_SOLUTIONS"
REPO = Path(__file__).resolve().parent.parent.parent
# The stages in pipeline order: the module of each, and the lesson that writes it (LESSONS).
STAGES = ("metadata", "bytemap", "merges", "pretokenize", "merge_queue", "special", "bos_eos", "detokenize",
          "conformance", "cache", "sentencepiece", "wordpiece", "unigram", "tokenizer")
LESSONS = dict(zip(STAGES, (*range(1, 12), 11, 11, 12), strict=True))


def workspace_dir() -> Path:
    """The folder of the student's package (see the module docstring for the order in which it is looked for)."""
    env = os.environ.get(ENV)
    if env:
        path = Path(env).expanduser()
        if not (path / "__init__.py").is_file():
            raise WorkspaceError(f"${ENV} is {env!r}, which is not a package folder (no __init__.py there)")
        return path.resolve()
    for path in (Path.cwd() / PACKAGE, REPO / "notebooks" / PACKAGE):
        if (path / "__init__.py").is_file():
            return path.resolve()
    raise WorkspaceError(f"no {PACKAGE}/ package found: open the workbook from the repository's notebooks/ folder "
                         f"(make lab), or set ${ENV} to the folder of your package")


def solutions_dir() -> Path | None:
    """The folder of the reference solutions, or ``None`` when this gguftok is not a checkout of the repository."""
    env = os.environ.get(SOLUTIONS_ENV)
    path = Path(env).expanduser() if env else REPO / "solutions" / PACKAGE
    return path.resolve() if (path / "__init__.py").is_file() else None


class _FreshLoader(importlib.machinery.SourceFileLoader):
    """Compiles from the source every time: a cached ``.pyc`` written in the same second as an edit could
    otherwise hide it (Python compares modification times to the second)."""

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        return self.source_to_code(self.get_data(path), path)

    def set_data(self, *args, **kwargs):  # never write __pycache__ into the student's folder
        return None


class _Finder:
    """Finds ``<package>.<module>`` in one folder with the fresh loader (placed first on ``sys.meta_path``)."""

    def __init__(self, package: str, folder: Path):
        self.package, self.folder = package, folder

    def find_spec(self, fullname, path=None, target=None):
        if fullname == self.package:
            init = self.folder / "__init__.py"
            return importlib.util.spec_from_file_location(
                fullname, init, loader=_FreshLoader(fullname, str(init)),
                submodule_search_locations=[str(self.folder)])
        head, _, name = fullname.rpartition(".")
        if head == self.package and "." not in name:
            file = self.folder / f"{name}.py"
            if file.is_file():
                return importlib.util.spec_from_file_location(fullname, file, loader=_FreshLoader(fullname, str(file)))
        return None


def _install(package: str, folder: Path) -> None:
    for k in [k for k in sys.modules if k == package or k.startswith(package + ".")]:
        del sys.modules[k]
    sys.meta_path[:] = [f for f in sys.meta_path if not (isinstance(f, _Finder) and f.package == package)]
    sys.meta_path.insert(0, _Finder(package, folder))


def _import(package: str, folder: Path, module: str | None) -> ModuleType:
    _install(package, folder)
    try:
        pkg = importlib.import_module(package)
        return importlib.import_module(f"{package}.{module}") if module else pkg
    except SyntaxError as e:
        raise WorkspaceError(f"{Path(e.filename or '?').name}, line {e.lineno}: {e.msg}; fix it, save, run again") \
            from None


def load(module: str | None = None) -> ModuleType:
    """The student's package (or one of its modules, ``load("bytemap")``), every file read afresh from disk.

    A syntax error in the student's file is a ``WorkspaceError`` naming the file and line; any other error
    raised while the module runs is the student's own and propagates unchanged.
    """
    if module is not None and module not in STAGES:
        raise WorkspaceError(f"no stage {module!r}; the stages are: {', '.join(STAGES)}")
    return _import(PACKAGE, workspace_dir(), module)


def load_solution(module: str | None = None) -> ModuleType:
    """The reference solution's package or module (imported as ``mytok_solution``), read afresh."""
    folder = solutions_dir()
    if folder is None:
        raise WorkspaceError(f"the reference solutions are not here (no solutions/{PACKAGE}/ beside this gguftok; "
                             f"set ${SOLUTIONS_ENV})")
    return _import(SOLUTION_PACKAGE, folder, module)
