"""Durations for people: ``format_duration`` (``5 min``, ``5 h 9 min``, ``2 d 3 h``)."""

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from predictkit._time import format_duration

UNITS = {"d": 86400, "h": 3600, "min": 60, "s": 1}
seconds = st.floats(min_value=0, max_value=1e9, allow_nan=False)


def read_back(text):
    """Seconds of a ``format_duration`` text (a plain reference reader)."""
    sign = -1 if text.startswith("-") else 1
    parts = re.fullmatch(r"-?(\d[\d,]*) (d|h|min|s)(?: (\d+) (h|min|s))?", text)
    assert parts, text
    total = int(parts.group(1).replace(",", "")) * UNITS[parts.group(2)]
    if parts.group(3):
        assert UNITS[parts.group(4)] < UNITS[parts.group(2)], text
        total += int(parts.group(3)) * UNITS[parts.group(4)]
    return sign * total


@pytest.mark.parametrize("value, text", [
    (0, "0 s"), (42, "42 s"), (300, "5 min"), (330, "5 min 30 s"), (3600, "1 h"),
    (5 * 3600 + 9 * 60, "5 h 9 min"), (5 * 3600 + 9 * 60 + 29, "5 h 9 min"),
    (2 * 86400 + 3 * 3600, "2 d 3 h"), (86370, "1 d"), (-300, "-5 min"),
    (float("nan"), "n/a"), (None, "n/a"), (float("inf"), "inf"),
])
def test_examples(value, text):
    assert format_duration(value) == text


@given(seconds)
def test_reads_back_within_half_of_the_smallest_unit_shown(value):
    text = format_duration(value)
    smallest = UNITS[text.split()[-1]]
    assert abs(read_back(text) - value) <= smallest / 2
    # two units at most: the error is under 1/48 of the value for anything over a minute
    if value >= 60:
        assert abs(read_back(text) - value) <= value / 48


@given(seconds, seconds)
def test_monotonic(a, b):
    low, high = min(a, b), max(a, b)
    assert read_back(format_duration(low)) <= read_back(format_duration(high))


@given(seconds)
def test_symmetric_in_sign(value):
    text = format_duration(value)
    assert format_duration(-value) == (text if read_back(text) == 0 else "-" + text)


@given(st.integers(min_value=0, max_value=10**7))
def test_whole_minutes_under_a_day_are_exact(minutes):
    value = 60 * minutes
    if value < 86400:
        assert read_back(format_duration(value)) == value
    assert not math.isnan(read_back(format_duration(value)))
