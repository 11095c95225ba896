"""The widget factories' own behaviour, apart from the views they wrap."""

import pytest

from gguftok.viz.render import Rendered


def test_a_change_of_controls_plays_new_frames_from_their_first_step():
    """A player whose step a student moved, then whose word they changed, shows the new word's first frame:
    the Play, slider and Stack are new widgets created at step 0 (a reset of the old ones could lose the race
    against steps still on their way from the browser), the old ones are closed, the speed chosen is kept."""
    w = pytest.importorskip("ipywidgets")
    from gguftok.viz.widgets import frames_player

    word = w.Text(value="abc")
    box = frames_player(lambda t: [Rendered(f"<b>{c}</b>", c) for c in t], [word], interval=700)
    _, row, stack = box.children
    play, slider, speed = row.children
    assert [p.value for p in stack.children] == ["<b>a</b>", "<b>b</b>", "<b>c</b>"]
    assert play.max == slider.max == 2 and play.interval == speed.value == 700
    slider.value, speed.value = 2, 300  # what the browser's links would report after a student's steps
    word.value = "xy"
    _, row, stack2 = box.children
    play2, slider2, speed2 = row.children
    assert [p.value for p in stack2.children] == ["<b>x</b>", "<b>y</b>"]
    assert (play2.value, slider2.value, stack2.selected_index, play2.max, slider2.max) == (0, 0, 0, 1, 1)
    assert {id(play2), id(slider2), id(stack2)}.isdisjoint({id(play), id(slider), id(stack)})
    assert speed2 is speed and play2.interval == 300
    assert all(x.comm is None for x in (play, slider, stack, *stack.children))  # closed: no model left behind
    word.value = ""  # no frames: one frame saying so
    assert [p.value for p in box.children[-1].children] == ["<div>(nothing to show)</div>"]
