"""What the workbook needs, checked: Python, the packages, the 19 vocabularies, the course's own data (every file
of ``data/`` a notebook or a check reads), the widgets front end, and the optional llama.cpp oracle. Each line
says ✓ or ✗ and, when something is missing, the command that fixes it.

>>> report = environment_check()                 # after `make setup`
>>> [line.name for line in report.lines][:3], report.ok, report.summary()
(['Python >= 3.10', 'jupyterlab', 'ipywidgets'], True, 'everything needed is present')

From the shell: ``gguftok doctor`` (exit status 1 when something needed is missing).
"""

from __future__ import annotations

import html
import sys
from dataclasses import dataclass
from importlib import metadata

from .data import load_manifest, missing_or_wrong, vocab_dir
from .errors import DataError
from .viz.render import PALETTE, TEXT, Rendered

# (distribution, what it is for); all installed by ``make setup`` (pip install -e '.[lab,test]')
PACKAGES = [("jupyterlab", "the notebooks"), ("ipywidgets", "the interactive views"), ("regex", "pre-tokenizers"),
            ("gguf", "writing the synthetic vocabularies"), ("matplotlib", "the figures"), ("numpy", "the reader"),
            ("jupytext", "the .py twin of each notebook"), ("nbval", "re-running a notebook against its outputs")]
SETUP_FIX = "make setup   (or: pip install -e '.[lab,test]')"


@dataclass(frozen=True)
class Line:
    """One requirement: its name, whether it is met, what was found, how to fix it, and whether it is optional."""

    name: str
    ok: bool
    found: str
    fix: str = ""
    optional: bool = False

    def text(self) -> str:
        mark = "✓" if self.ok else ("-" if self.optional else "✗")
        out = f"{mark} {self.name:28s} {self.found}"
        if not self.ok:
            out += f"\n    {'optional; to add it' if self.optional else 'fix'}: {self.fix}"
        return out


@dataclass(frozen=True)
class Report:
    """Every line of the check; ``ok`` when nothing that is needed is missing (optional lines do not count)."""

    lines: list[Line]

    @property
    def ok(self) -> bool:
        return all(line.ok or line.optional for line in self.lines)

    def summary(self) -> str:
        """One line without versions or paths (stable across machines, so a notebook can show it)."""
        missing = [line.name for line in self.lines if not line.ok and not line.optional]
        return "everything needed is present" if not missing else "missing: " + ", ".join(missing)

    @property
    def text(self) -> str:
        return "\n".join([*(line.text() for line in self.lines), "", self.summary()])

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return self.rendered().html

    def rendered(self) -> Rendered:
        rows = []
        for line in self.lines:
            border, fill = PALETTE[2] if line.ok else PALETTE[7] if line.optional else PALETTE[5]
            word = "✓ present" if line.ok else "– optional, absent" if line.optional else "✗ missing"
            fix = "" if line.ok else html.escape(line.fix)
            rows.append(f'<tr><td style="padding:1px 6px;border:1px solid {border};background:{fill};color:{TEXT};'
                        f'white-space:nowrap">{html.escape(word)}</td><td style="padding:1px 6px">'
                        f'{html.escape(line.name)}</td><td style="padding:1px 6px;font-family:monospace">'
                        f'{html.escape(line.found)}</td><td style="padding:1px 6px;font-family:monospace">{fix}</td>'
                        "</tr>")
        body = (f"<table>{''.join(rows)}</table>"
                f'<div style="font-weight:bold;margin-top:4px">{html.escape(self.summary())}</div>')
        return Rendered(body, self.text)


def _package(name: str, purpose: str) -> Line:
    try:
        return Line(name, True, f"{metadata.version(name)} ({purpose})")
    except metadata.PackageNotFoundError:
        return Line(name, False, f"not installed ({purpose})", SETUP_FIX)


def _vocabularies() -> Line:
    try:
        manifest = load_manifest()
    except DataError as e:
        return Line("19 reference vocabularies", False, str(e), "run gguftok from a checkout of the repository")
    names = [n for n in manifest if n.endswith(".gguf")]
    bad = missing_or_wrong(vocab_dir(), manifest, deep=True)
    if not bad:
        return Line(f"{len(names)} reference vocabularies", True, f"all {len(manifest)} files match their sha256")
    return Line(f"{len(names)} reference vocabularies", False,
                f"{len(bad)} of {len(manifest)} files missing or different (e.g. {bad[0]})",
                "make vocab   (or: python -m gguftok.data fetch)")


def _course_data() -> Line:
    from . import data

    try:
        manifest = data.load_course_manifest()
    except DataError as e:
        return Line("the course's data", False, str(e), "run gguftok from a checkout of the repository")
    bad = missing_or_wrong(data.REPO_DATA, manifest, deep=True)
    if not bad:
        return Line("the course's data", True, f"all {len(manifest)} files of data/ match their sha256")
    shown = ", ".join(f"data/{name}" for name in bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
    return Line("the course's data", False, f"{len(bad)} of {len(manifest)} files missing or different: {shown}",
                "git checkout -- data/   (they are committed with the workbook)")


def _widgets_frontend() -> Line:
    try:
        version = metadata.version("jupyterlab_widgets")
    except metadata.PackageNotFoundError:
        return Line("widgets in JupyterLab", False, "jupyterlab_widgets is not installed: widgets show as text",
                    "pip install jupyterlab_widgets   (make setup installs it with ipywidgets)")
    return Line("widgets in JupyterLab", True, f"jupyterlab_widgets {version}")


def _oracle() -> Line:
    from .conformance.oracle import LLAMA_CPP_VERSION, why_unavailable

    why = why_unavailable()
    if why is None:
        return Line("llama.cpp oracle", True, f"llama-cpp-python {LLAMA_CPP_VERSION} built", optional=True)
    return Line("llama.cpp oracle", False, "not built (needed only to compare with a live llama.cpp)",
                "make oracle   (5 to 15 minutes)", optional=True)


def _voila() -> Line:
    try:
        return Line("voila (instructor mode)", True, metadata.version("voila"), optional=True)
    except metadata.PackageNotFoundError:
        return Line("voila (instructor mode)", False, "not installed (only make present needs it)",
                    "pip install voila", optional=True)


def environment_check() -> Report:
    """Check everything the workbook needs (and the optional extras); see :class:`Report`."""
    py = sys.version_info
    lines = [Line("Python >= 3.10", py >= (3, 10), f"{py.major}.{py.minor}.{py.micro}",
                  "install Python 3.10 or newer, then make setup")]
    lines += [_package(name, purpose) for name, purpose in PACKAGES]
    lines += [_vocabularies(), _course_data(), _widgets_frontend(), _oracle(), _voila()]
    return Report(lines)
