"""The numbers notebook 05's prose states that no cell prints: each computed from the code it describes."""

from __future__ import annotations

import inspect

from gguftok.exercises import lesson05
from gguftok.viz.queue_view import queue_cost_figure


def _figure_default(name: str):
    return inspect.signature(queue_cost_figure).parameters[name].default


COMPUTED = {
    # the word lengths 05.merge_word's cost check measures
    "500": lambda: lesson05.SHORT,
    "2,000": lambda: 4 * lesson05.SHORT,
    # the figure in "Going deeper": pops are counted up to this length, times measured up to the longest
    "1,024": lambda: _figure_default("traced_up_to"),
    "4,096": lambda: max(_figure_default("lengths")),
}
