"""The number formats of tables (``format_number`` for pages, ``format_fixed`` for the
command line) never write ``3.82e+03``."""

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import numpy as np

from predictkit._format import format_fixed, format_given, format_number, format_percent


@pytest.mark.parametrize("value, text", [
    (3820.0, "3,820"), (3820.4, "3,820"), (1.5e7, "15,000,000"), (38.24, "38.2"),
    (3.824, "3.82"), (0.3824, "0.382"), (0.000123, "0.000"), (-1234.5, "-1,234"),
    (3000, "3,000"), (float("nan"), "n/a"), (None, "n/a"), (float("inf"), "inf"),
])
def test_examples(value, text):
    assert format_number(value) == text


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e20, max_value=1e20))
def test_never_scientific_and_close(value):
    text = format_number(value)
    assert not re.search(r"[eE]", text)
    read = float(text.replace(",", ""))
    assert math.isclose(read, value, rel_tol=5e-3, abs_tol=5e-4)


@pytest.mark.parametrize("value, text", [
    (3820, "3,820"), (np.int64(28476), "28,476"), (0.3824, "0.382"), (1234.5, "1,234.500"),
    (3.0, "3.000"), (float("nan"), "n/a"), (None, "n/a"), (float("-inf"), "-inf"),
    (True, "True"), ("easy", "easy"),
])
def test_fixed_examples(value, text):
    assert format_fixed(value) == text


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e20, max_value=1e20))
def test_fixed_is_three_decimals_and_never_scientific(value):
    text = format_fixed(value)
    assert re.fullmatch(r"-?\d{1,3}(,\d{3})*\.\d{3}", text)
    assert abs(float(text.replace(",", "")) - value) <= 5e-4 * max(1.0, abs(value) * 1e-12)


@pytest.mark.parametrize(("value", "text"), [
    (0.9999999, "0.9999999"), (0.95, "0.95"), (1.0, "1"), (3600.0, "3600"), (1e-07, "1e-07"),
    (2.5, "2.5"), (-0.25, "-0.25")])
def test_given_examples(value, text):
    assert format_given(value) == text


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_given_reads_back_as_the_same_number(value):
    assert float(format_given(value)) == value


@pytest.mark.parametrize(("share", "text"), [
    (0.995, "99.5%"), (0.95, "95%"), (0.9999999, "99.99999%"), (0.07, "7%"), (1.0, "100%")])
def test_percent_is_never_rounded_up(share, text):
    assert format_percent(share) == text


def test_a_name_that_is_no_utf8_is_displayable_on_a_strict_stream():
    import os

    from predictkit._format import displayable

    name = os.fsdecode(b"report\xff/page")
    assert displayable(name) == "report\ufffd/page"
    displayable(name).encode("utf-8", "strict")
    assert displayable("caf\u00e9") == "caf\u00e9"
