"""The one check every teaching view's HTML must pass (notebook sanitizers, dark themes)."""

from __future__ import annotations

import re


def assert_sanitizer_safe(html: str) -> None:
    """Inline styles only, no scripts or event handlers; a coloured box sets its own text colour and a border."""
    lower = html.lower()
    assert "<style" not in lower and "class=" not in html and "<script" not in lower
    assert not re.search(r"\son\w+=", html)
    for style in re.findall(r'style="([^"]*)"', html) + re.findall(r"style='([^']*)'", html):
        if "background" in style:  # its own text colour (not just background-color) and a border
            assert re.search(r"(^|;)\s*color:#", style) and "border" in style, style
