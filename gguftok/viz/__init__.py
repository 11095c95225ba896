"""Teaching views: pure renderers that return sanitizer-safe HTML plus a plain-text form, and thin
ipywidgets factories around them (imported only when a widget is asked for).

>>> from gguftok.viz import chips
>>> view = chips([("Hi", 1), (" ", 2)])
>>> print(view.text)
[Hi] [␣]
"""

from .render import Rendered, chips, escape_visible, token_chips

__all__ = ["Rendered", "chips", "escape_visible", "token_chips"]
