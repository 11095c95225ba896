"""Thin ipywidgets factories around the pure views (ipywidgets is imported only here)."""

from __future__ import annotations

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
