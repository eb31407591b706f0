"""What an answer assumes of a request's copies (straggler.decide.assumption): the bisection of
the margin in c, its words, and the dependence in words. The whole path, a question's
study swept over c and the margin located by the rounds `straggler recommend` runs, is
tests/workflow/test_recommend.py's."""

from __future__ import annotations

import pytest

from straggler.decide.assumption import RESOLUTION, dependence_words, margin_words, walk


def holds_below(edge: float, seen: list[float]):
    def holds(c: float) -> bool:
        seen.append(c)
        return c < edge

    return holds


def test_the_walk_bisects_to_the_resolution_and_asks_for_each_midpoint():
    values = [0.0, 0.25, 0.5, 1.0]
    asked = []
    while True:
        seen: list[float] = []
        last, fail, need = walk(values, 0.0, 1.0, holds_below(0.3, seen))
        assert set(seen) <= set(values)  # only values it has are judged
        if need is None:
            break
        asked.append(need)
        values = sorted(values + [need])
    assert asked == [0.375, 0.3125, 0.28125]
    assert last < 0.3 <= fail and fail - last <= RESOLUTION
    assert (last, fail) == (0.28125, 0.3125)


def test_the_walk_over_the_sweep_and_its_midpoints_is_the_bisection_s_bracket():
    # a rerun reads the sweep with the midpoints its bisection added: the same bracket
    values = [0.0, 0.25, 0.28125, 0.3125, 0.375, 0.5, 1.0]
    assert walk(values, 0.0, 1.0, holds_below(0.3, [])) == (0.28125, 0.3125, None)


def test_the_walk_goes_both_ways_and_says_when_every_value_holds():
    values = [0.0, 0.25, 0.4, 0.5, 1.0]
    assert walk(values, 0.4, 1.0, lambda c: True) == (1.0, None, None)
    last, fail, need = walk(values, 0.4, -1.0, lambda c: c > 0.2)
    assert (last, fail, need) == (0.25, 0.0, 0.125)


@pytest.mark.parametrize(
    ("walked", "words"),
    [
        ((1.0, None, None), "for c up to 1 (every value checked)"),
        ((0.28125, 0.3125, None), "for c up to 0.281 (at 0.312, load 0.5: CoC d=3)"),
        ((0.0, 0.03125, None), "at c = 0 only (at 0.0312, load 0.5: CoC d=3)"),
    ],
)
def test_the_margin_in_words(walked, words):
    assert margin_words(walked, "up to", 0.0, "load 0.5: CoC d=3") == words


def test_the_dependence_in_words():
    assert "i.i.d. copies, c = 0" in dependence_words(0.0)
    assert "identical copies, c = 1" in dependence_words(1.0)
    assert "probability c = 0.3" in dependence_words(0.3)
    assert "slowdown" in dependence_words(None, "sx")
