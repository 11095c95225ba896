"""The one check every teaching view's HTML must pass (notebook sanitizers, dark themes)."""

from __future__ import annotations

import re
from html.parser import HTMLParser


def assert_sanitizer_safe(html: str) -> None:
    """Inline styles only, no scripts or event handlers; a coloured box sets its own text colour and a border,
    and a fixed text colour comes with its own background."""
    lower = html.lower()
    assert "<style" not in lower and "class=" not in html and "<script" not in lower
    assert not re.search(r"\son\w+=", html)
    for style in re.findall(r'style="([^"]*)"', html) + re.findall(r"style='([^']*)'", html):
        if "background" in style:  # its own text colour (not just background-color) and a border
            assert re.search(r"(^|;)\s*color:#", style) and "border" in style, style
    _FixedColourOnTheme().check(html)


class _FixedColourOnTheme(HTMLParser):
    """A fixed text colour must sit on a background the view sets (on the element or around it): over a dark
    theme's page, dark text would vanish. The browser tests measure the same thing as contrast."""

    VOID = frozenset({"br", "img", "hr", "input", "meta", "link", "wbr", "col", "area", "source"})

    def check(self, html: str) -> None:
        self.stack: list[bool] = []  # per open element: is there a background on it or around it?
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        style = dict(attrs).get("style") or ""
        covered = "background" in style or (bool(self.stack) and self.stack[-1])
        if re.search(r"(^|;)\s*color:#", style):
            assert covered, f"text colour without a background under it: <{tag} style={style!r}>"
        if tag not in self.VOID:
            self.stack.append(covered)

    def handle_endtag(self, tag):
        if tag not in self.VOID and self.stack:
            self.stack.pop()
