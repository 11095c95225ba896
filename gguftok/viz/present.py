"""Instructor mode: the workbook's step-through views in large type, for a projector.

``notebooks/instructor.ipynb`` shows only widgets; served with voila (``make present``) its code is hidden.
:func:`large_type` returns one HTML output with a style block that enlarges every widget and output on the
page (voila and trusted notebooks apply it; JupyterLab's sanitizer drops it from an untrusted notebook,
which then simply shows normal type).

>>> "font-size" in PRESENT_CSS and "<script" not in PRESENT_CSS
True
"""

from __future__ import annotations

SCALE = 1.6  # of the normal type size

PRESENT_CSS = f"""<style>
:root {{ --jp-widgets-font-size: {13 * SCALE:.0f}px; --jp-ui-font-size1: {13 * SCALE:.0f}px;
         --jp-content-font-size1: {14 * SCALE:.0f}px; --jp-code-font-size: {13 * SCALE:.0f}px; }}
.widget-html-content, .jp-RenderedHTMLCommon, .jp-RenderedText pre {{ font-size: {SCALE * 100:.0f}% !important;
  line-height: 1.5 !important; }}
.widget-label, .widget-readout, .widget-text input, .widget-textarea textarea, .widget-dropdown select,
.widget-toggle-button, .widget-button {{ font-size: {13 * SCALE:.0f}px !important; }}
.jupyter-widgets.widget-inline-hbox {{ min-height: {28 * SCALE:.0f}px; }}
</style>"""


def large_type():
    """Display this first: every view below it on the page in large type."""
    from IPython.display import HTML

    return HTML(PRESENT_CSS)
