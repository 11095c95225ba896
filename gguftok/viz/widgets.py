"""Thin ipywidgets factories around the pure views (ipywidgets is imported only here)."""

from __future__ import annotations

from functools import cache

from .vocab import vocab_page


def vocab_browser(tok, per_page: int = 25):
    """A text filter and a page number over :func:`~gguftok.viz.vocab.vocab_page`: browse 150,000 tokens
    without ever putting them in a Dropdown."""
    import ipywidgets as W

    query = W.Text(placeholder="filter: part of a token's text", description="filter")
    page = W.BoundedIntText(value=1, min=1, max=10**7, description="page")
    out = W.HTML()

    def update(*_):
        view = vocab_page(tok, query.value, page.value - 1, per_page)
        out.value = view.html

    query.observe(lambda change: (setattr(page, "value", 1), update()), names="value")
    page.observe(update, names="value")
    update()
    return W.VBox([W.HBox([query, page]), out])


def vocab_playground(render, controls, *, folder=None, vocab: str = "qwen2", short: bool = True,
                     description: str = "vocabulary", layout=None):
    """The pattern of the lessons' playgrounds: a choice of the reference vocabularies, some input
    ``controls``, and an HTML output showing ``render(tokenizer, short_name, *values)``.

    Only file names go into the Dropdown (19 entries, never a vocabulary's tokens); each tokenizer is loaded on
    first choice and kept. ``short`` names them ``qwen2`` instead of ``ggml-vocab-qwen2.gguf``. A
    ``ValueError`` from ``render`` (ids that do not parse, text a vocabulary rejects) is shown as text. Returns
    ``(choice, out)`` for the caller to lay out; ``render`` is called again when any of them changes.
    """
    import html
    from pathlib import Path

    import ipywidgets as W

    from ..data import vocab_dir
    from ..tokenizer import Tokenizer

    def label(p: Path) -> str:
        return p.name.removeprefix("ggml-vocab-").removesuffix(".gguf") if short else p.name

    files = {label(p): p for p in sorted(Path(folder or vocab_dir()).glob("ggml-vocab-*.gguf"))}
    wanted = vocab if short else f"ggml-vocab-{vocab}.gguf" if not vocab.endswith(".gguf") else vocab
    choice = W.Dropdown(options=list(files), value=wanted if wanted in files else next(iter(files)),
                        description=description, **({"layout": layout} if layout is not None else {}))
    out = W.HTML()
    loaded: dict[str, Tokenizer] = {}

    def update(*_):
        name = choice.value
        if name not in loaded:
            loaded[name] = Tokenizer.from_gguf(files[name])
        try:
            shown = render(loaded[name], files[name].name.removeprefix("ggml-vocab-").removesuffix(".gguf"),
                           *(c.value for c in controls))
        except ValueError as e:
            shown = f"<div>{html.escape(str(e))}</div>"
        if shown is not None:
            out.value = shown

    for w in (choice, *controls):
        w.observe(update, names="value")
    update()
    return choice, out


def frames_player(make_frames, controls, *, interval: int = 900, above=()):
    """A player over frames that ``make_frames(*values of controls)`` computes again at every change of the
    ``controls`` (a word box, a vocabulary choice): Play, a frame slider and a speed control (milliseconds per
    step) over a Stack of the frames, linked in JavaScript, so playing costs no kernel round trip. A
    ``ValueError`` from ``make_frames`` is shown as a frame of text. ``above``: more widgets between the
    controls and the player. Returns the whole box.

    Each change builds a new Play, slider and Stack, at frame 0, and closes the old ones. Resetting the old
    ones would race the browser: steps a student just took with the keys are still on their way to the
    kernel (the browser sends them one at a time), arrive after the reset, and leave the new frames at the
    old step."""
    import html

    import ipywidgets as W

    speed = W.IntSlider(value=interval, min=100, max=3000, step=100, description="ms / step")
    speed.style.description_width = "initial"  # "ms / step" whole, in large type too
    for c in controls:
        if hasattr(c, "style") and hasattr(c.style, "description_width"):
            c.style.description_width = "initial"  # "vocabulary" whole
    row, box = W.HBox(), W.VBox()
    live: list = []  # the widgets and links of the frames shown, closed when new frames replace them

    def update(*_):
        try:
            shown = [f.html for f in make_frames(*(c.value for c in controls))]
        except ValueError as e:
            shown = [f"<div>{html.escape(str(e))}</div>"]
        shown = shown or ["<div>(nothing to show)</div>"]
        last = len(shown) - 1
        pages = [W.HTML(h) for h in shown]
        stack = W.Stack(pages, selected_index=0)
        play = W.Play(value=0, min=0, max=last, step=1, interval=speed.value, description="play")
        slider = W.IntSlider(value=0, min=0, max=last, description="step")
        for c in (play, slider):
            c.style.description_width = "initial"
        links = [W.jslink((play, "value"), (stack, "selected_index")),
                 W.jslink((slider, "value"), (stack, "selected_index")),
                 W.jslink((speed, "value"), (play, "interval"))]
        row.children = [play, slider, speed]
        box.children = [box.children[0] if box.children else W.HBox(list(controls)), *above, row, stack]
        for old in live:
            old.close()
        live[:] = [*links, play, slider, stack, *pages]

    for c in controls:
        c.observe(update, names="value")
    update()
    return box


def vocab_models(folder=None) -> dict[str, tuple[object, str]]:
    """``{short name: (path, tokenizer.ggml.model)}`` of every fetched ``ggml-vocab-*.gguf``, for a choice of
    vocabularies that loads only the one chosen; each file's metadata is read once per folder."""
    from pathlib import Path

    from ..data import vocab_dir

    return dict(_vocab_models(str(Path(folder or vocab_dir()))))


@cache
def _vocab_models(folder: str) -> tuple[tuple[str, tuple[object, str]], ...]:
    from pathlib import Path

    from ..metadata import read_metadata

    paths = sorted(Path(folder).glob("ggml-vocab-*.gguf"))
    return tuple((p.name.removeprefix("ggml-vocab-").removesuffix(".gguf"),
                  (p, read_metadata(p).get("tokenizer.ggml.model"))) for p in paths)
