"""Matplotlib figures for the lessons (matplotlib is imported only here)."""

from __future__ import annotations

from collections.abc import Mapping

from .render import PALETTE
from .vocab import _TYPE_COLOUR

_HATCH = {"normal": "", "control": "//", "user-defined": "..", "byte": "xx", "unknown": "\\\\", "unused": "--",
          "undefined": "oo"}


def token_type_chart(counts: Mapping[str, Mapping[str, int]]):
    """Horizontal stacked bars: each vocabulary's tokens by GGUF type (log scale; hatching as well as colour)."""
    import matplotlib.pyplot as plt

    names = list(counts)
    kinds = ["normal", "byte", "control", "user-defined", "unknown", "unused", "undefined"]
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(names) + 1.2))
    for kind in kinds:
        values = [counts[n].get(kind, 0) for n in names]
        if not any(values):
            continue
        border, fill = PALETTE[_TYPE_COLOUR[kind]]
        ax.scatter(values, names, label=kind, marker="o" if kind == "normal" else "s", s=40,
                   color=fill, edgecolors=border, hatch=_HATCH[kind], linewidths=1.2)
    ax.set_xscale("log")
    ax.set_xlabel("tokens of that type (log scale)")
    ax.invert_yaxis()
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, frameon=False)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig
