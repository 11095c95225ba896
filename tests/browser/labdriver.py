"""Drive the workbook the way a student does: JupyterLab on loopback, Debian's Chromium through Playwright.

Nothing here downloads a browser: Playwright's Python package brings only its driver, and the browser is the
system's ``/usr/bin/chromium`` (``GGUFTOK_CHROMIUM`` names another). ``make test`` installs it with apt-get
where it runs as root (``scripts/install_browser.sh``); elsewhere the tests skip and say why, except under CI,
where a missing browser fails the run.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "build" / "screenshots"
CHROMIUM = Path(os.environ.get("GGUFTOK_CHROMIUM", "/usr/bin/chromium"))
# The flags a closed network needs: without the background-networking ones Chromium keeps dialling out.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LIGHT, DARK = "JupyterLab Light", "JupyterLab Dark"
# The bound of a wait for something to show. Every wait is on a condition and returns as soon as it holds, so the
# bound costs nothing when all is well; it is wide because a kernel on a loaded machine (a load of 4 on 2 cores)
# answers a change in seconds where a quiet one takes milliseconds.
WAIT_MS = 120_000

# Lab settings for a test run: every cell in the DOM (no windowing, so a cell far down can be found by its
# text), no news or update pop-ups, the light theme to start with.
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                      "checkForUpdates": False},
    "@jupyterlab/apputils-extension/themes.jupyterlab-settings": {"theme": LIGHT},
}


def missing_browser() -> str | None:
    """Why the browser layer cannot run here, or None when it can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (it is in the [test] extra: make test installs it)"
    if not CHROMIUM.exists():
        return (f"no Chromium at {CHROMIUM} (install Debian's chromium: sudo apt-get install chromium, "
                "or set GGUFTOK_CHROMIUM)")
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(proc: subprocess.Popen) -> None:
    """Stop a server started in its own process group: TERM, then KILL after 15 s."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


class Lab:
    """A JupyterLab server on loopback over a temporary copy of ``notebooks/``, with no token.

    The copy sits beside a link to ``data/`` because the notebooks read ``../data/...``, and beside no
    ``tests/``: the course reads nothing of the tests. Running them never writes into the repository.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        shutil.copytree(REPO / "notebooks", root / "notebooks",
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        (root / "data").symlink_to(REPO / "data", target_is_directory=True)
        settings = root / "settings"
        for rel, value in SETTINGS.items():
            (settings / rel).parent.mkdir(parents=True, exist_ok=True)
            (settings / rel).write_text(json.dumps(value), encoding="utf-8")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings),
                   JUPYTERLAB_WORKSPACES_DIR=str(root / "workspaces"))
        cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={self.port}", "--ip=127.0.0.1",
               "--ServerApp.port_retries=0", "--IdentityProvider.token=", "--ServerApp.password=",
               "--ServerApp.disable_check_xsrf=True",
               f"--ServerApp.root_dir={root / 'notebooks'}", "--LabApp.news_url=None",
               # window.jupyterapp, so that the next notebook opens in the running page (open_notebook)
               "--LabApp.expose_app_in_browser=True"]
        if os.getuid() == 0:
            cmd.append("--allow-root")
        self.log = (root / "jupyterlab.log").open("w")
        # a session of its own, so that stopping it also stops the kernels it started
        self.proc = subprocess.Popen(cmd, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self._wait_ready(60)

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with {self.proc.returncode}: {self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status", timeout=2):
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"JupyterLab did not answer within {timeout} s: {self.log_tail()}")

    def log_tail(self, n: int = 2000) -> str:
        self.log.flush()
        return (self.root / "jupyterlab.log").read_text(encoding="utf-8", errors="replace")[-n:]

    def api(self, path: str, method: str = "GET"):
        req = urllib.request.Request(f"{self.url}{path}", method=method)
        with urllib.request.urlopen(req, timeout=10) as r:
            body = r.read()
        return json.loads(body) if body else None

    def shutdown_kernels(self) -> None:
        """Stop every kernel, so that one notebook's kernel does not hold memory during the next."""
        for session in self.api("/api/sessions"):
            self.api(f"/api/sessions/{session['id']}", "DELETE")

    def stop(self) -> None:
        _stop(self.proc)
        self.log.close()


# --------------------------------------------------------------------------------------------- the page


NO_DOCUMENT = "() => ![...window.jupyterapp.shell.widgets('main')].some(w => w.context)"


def open_notebook(page, lab: Lab, name: str, timeout_ms: int = 60_000) -> None:
    """Open one notebook, alone in the main area, with its kernel idle.

    The first time, the page loads JupyterLab in a fresh workspace (``?reset``). After that, the page's own
    JupyterLab opens it, as a double click in the file browser does, once :func:`close_notebooks` has closed
    the last one: loading JupyterLab again would cost each notebook about 4 s of a 2-core machine.
    """
    if page.evaluate("() => window.jupyterapp === undefined"):
        page.goto(f"{lab.url}/lab/tree/{name}?reset")
    else:
        assert page.evaluate(NO_DOCUMENT), "a document is still open: close_notebooks() first"
        page.evaluate("name => { window.jupyterapp.commands.execute('docmanager:open', {path: name}); }", name)
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=timeout_ms)
    # the status bar reads "<kernel name> | Idle" once a kernel has started and connected ("No Kernel" before)
    page.wait_for_function(
        """() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]
                 .some(e => / \\| Idle$/.test(e.textContent) && !e.textContent.startsWith('No Kernel'))""",
        timeout=timeout_ms, polling=200)


def close_notebooks(page) -> None:
    """Close every document in the main area without saving it (what Run All changed stays unsaved)."""
    page.evaluate("""() => {
        const app = window.jupyterapp;
        for (const w of [...app.shell.widgets('main')]) {
            if (w.context) w.context.model.dirty = false;  // no "save your work?" dialog
            w.close();
        }
    }""")
    page.wait_for_function(NO_DOCUMENT, timeout=WAIT_MS, polling=100)  # (JupyterLab opens its Launcher there)


def run_all(page, timeout_ms: int = 240_000) -> None:
    """Run > Run All Cells, as a student would, then wait until every code cell has its execution count."""
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    page.wait_for_function(
        """() => {
            const prompts = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) '
                                                          + '.jp-CodeCell .jp-InputArea-prompt')];
            return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
        }""", timeout=timeout_ms, polling=250)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=timeout_ms)


def expand_going_deeper(page) -> int:
    """Click each "N cells hidden" button a collapsed heading still shows (a lesson's "Going deeper" opens
    collapsed, from its cell's ``jp-MarkdownHeadingCollapsed`` metadata); return how many there were."""
    selector = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-showHiddenCellsButton"
    buttons = page.locator(selector)
    n = buttons.count()
    for left in range(n - 1, -1, -1):
        buttons.first.click()
        # the heading has opened once its button is gone
        page.wait_for_function("([s, n]) => document.querySelectorAll(s).length <= n", arg=[selector, left],
                               timeout=WAIT_MS, polling=100)
    return n


def folded_answers(page) -> list[str]:
    """Open every ``<details>`` of the notebook's rendered markdown (the self-check answers) and return what a
    reader sees in each, its ``<code>`` and ``<pre>`` left out: markdown that was not rendered shows there as
    literal backticks or asterisks."""
    return page.evaluate(
        """() => [...document.querySelectorAll(
                    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownOutput details')].map(d => {
            d.open = true;
            const copy = d.cloneNode(true);
            copy.querySelectorAll('code, pre').forEach(e => e.remove());
            return copy.textContent;
        })""")


def error_outputs(page) -> list[str]:
    """The text of every error or stderr output, and every widget that failed to display."""
    found = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").all_inner_texts()
    found += page.get_by_text("Error displaying widget").all_inner_texts()
    return found


def output_texts(page) -> list[str]:
    """What a reader sees in each output of the open notebook, as text (one string per output)."""
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output").all_inner_texts()


def code_cell(page, marker: str):
    """The code cell whose source contains ``marker`` (exactly one)."""
    cells = page.locator(".jp-CodeCell").filter(has=page.locator(".jp-InputArea-editor", has_text=marker))
    if cells.count() != 1:
        raise AssertionError(f"{cells.count()} code cells contain {marker!r}, expected 1")
    return cells.first


def widget_of(cell):
    """The interactive view a cell displayed (the outermost ipywidgets box of its output)."""
    return cell.locator(".jp-OutputArea-output .widget-vbox").first


def shown_html_text(widget) -> str:
    """The text of the last visible HTML output inside a widget: what a student reads now."""
    return widget.evaluate(
        """w => {
            const parts = [...w.querySelectorAll('.widget-html-content')].filter(e => e.offsetParent !== null);
            return parts.length ? parts[parts.length - 1].textContent : null;
        }""")


def html_text(page, html: str) -> str:
    """The text a browser reads out of ``html`` (how the widget's value will look as text)."""
    return page.evaluate("h => { const d = document.createElement('div'); d.innerHTML = h; return d.textContent; }",
                         html)


def wait_for_text(page, widget, expected: str, timeout_ms: int | None = None) -> None:
    """Wait until the widget shows ``expected`` (the kernel answers a change asynchronously)."""
    try:
        page.wait_for_function(
            """([w, want]) => {
                const parts = [...w.querySelectorAll('.widget-html-content')].filter(e => e.offsetParent !== null);
                return parts.length && parts[parts.length - 1].textContent === want;
            }""", arg=[widget.element_handle(), expected], timeout=timeout_ms or WAIT_MS, polling=100)
    except Exception as e:  # show what was there instead
        raise AssertionError(f"the view never showed the expected text.\nexpected: {expected[:400]!r}\n"
                             f"shown:    {(shown_html_text(widget) or '')[:400]!r}") from e


def set_theme(page, theme: str) -> None:
    """Settings > Theme > ``theme``, then wait until the page has switched."""
    page.get_by_role("menuitem", name="Settings", exact=True).click()
    page.locator(".lm-Menu-itemLabel").filter(has_text=re.compile("^Theme$")).click()
    page.locator(".lm-Menu-itemLabel").filter(has_text=re.compile(f"^{re.escape(theme)}$")).click()
    light = "true" if theme == LIGHT else "false"
    page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{light}'", timeout=WAIT_MS)
    # the new stylesheet is applied once the notebook's own background is light or dark as the theme is
    page.wait_for_function(
        """light => {
            let e = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
            for (; e; e = e.parentElement) {  // the nearest background that is drawn
                const [r, g, b, a = 1] = getComputedStyle(e).backgroundColor.match(/[\\d.]+/g).map(Number);
                if (a > 0) return (0.2126 * r + 0.7152 * g + 0.0722 * b > 128) === light;
            }
            return false;
        }""", arg=theme == LIGHT, timeout=WAIT_MS, polling=100)


# The WCAG contrast ratio of every piece of text inside an element: its computed colour against the
# background it is drawn on (the nearest ancestor with a background, translucent layers composited).
CONTRAST_JS = """
root => {
  const parse = c => { const m = c.match(/[\\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const over = (top, under) => top.slice(0, 3).map((v, i) => v * top[3] + under[i] * (1 - top[3])).concat([1]);
  const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
                     return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const background = el => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const bg = parse(getComputedStyle(e).backgroundColor);
      if (bg[3] > 0) { layers.push(bg); if (bg[3] >= 1) break; }
    }
    let c = [255, 255, 255, 1];
    for (const layer of layers.reverse()) c = over(layer, c);
    return c;
  };
  const out = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || el.offsetParent === null) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.opacity === '0') continue;
    const bg = background(el);
    const fg = over(parse(style.color), bg);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    out.push({text: n.textContent.slice(0, 40), ratio: (a + 0.05) / (b + 0.05), color: style.color,
              background: 'rgb(' + bg.slice(0, 3).map(Math.round).join(', ') + ')'});
  }
  return out;
}
"""


def contrast(locator) -> list[dict]:
    return locator.evaluate(CONTRAST_JS)


def screenshot(locator, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    locator.scroll_into_view_if_needed()
    locator.screenshot(path=str(path))
    return path


# ------------------------------------------------------------------------------ lesson inputs, not answers


def notebook_literal(notebook: str, name: str):
    """The literal a notebook's py:percent twin assigns to ``name`` (or passes as the first argument of the
    call it assigns), so the tests feed gguftok the same lesson inputs without a second copy of them."""
    tree = ast.parse((REPO / "notebooks" / "twins" / f"{notebook}.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            value = node.value.args[0] if isinstance(node.value, ast.Call) else node.value
            return ast.literal_eval(value)
    raise LookupError(f"{notebook}.py assigns no literal to {name}")


# ------------------------------------------------------------------------------------ instructor mode


def present_flags() -> list[str]:
    """The voila options ``make present`` serves the instructor's page with (read from the Makefile's recipe,
    so the tests and the benchmark serve it the same way)."""
    import shlex

    lines = (REPO / "Makefile").read_text(encoding="utf-8").splitlines()
    recipe = lines[lines.index("present: setup") + 1]
    words = shlex.split(recipe)
    return [w for w in words[words.index("notebooks/instructor.ipynb") + 1:] if not w.startswith("$(")]


class Voila:
    """``voila notebooks/instructor.ipynb`` on loopback, as ``make present`` starts it (``--no-browser``, a free
    port), from the repository (the page reads ``twins/`` and ``../data`` relative to ``notebooks/``)."""

    def __init__(self, root: Path, notebook: str = "notebooks/instructor.ipynb",
                 flags: list[str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.root = root
        flags = present_flags() if flags is None else flags
        cmd = [sys.executable, "-m", "voila", notebook, *flags, "--no-browser", f"--port={self.port}",
               "--Voila.ip=127.0.0.1", "--Voila.port_retries=0"]
        self.log = (root / "voila.log").open("w")
        self.proc = subprocess.Popen(cmd, cwd=REPO, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
                                     env=dict(os.environ, HF_HUB_OFFLINE="1"))
        deadline = time.monotonic() + 60
        while True:  # listening (a GET of the page would run the notebook: that is the test's to do)
            if self.proc.poll() is not None:
                raise RuntimeError(f"voila exited with {self.proc.returncode}: {self.log_tail()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"voila did not listen within 60 s: {self.log_tail()}") from None
                time.sleep(0.1)

    def log_tail(self, n: int = 2000) -> str:
        if not self.log.closed:
            self.log.flush()
        return (self.root / "voila.log").read_text(encoding="utf-8", errors="replace")[-n:]

    def stop(self) -> None:
        _stop(self.proc)
        self.log.close()
