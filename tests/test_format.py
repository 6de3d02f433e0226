"""The number formats of tables (``format_number`` for pages, ``format_fixed`` for the
command line) never write ``3.82e+03``."""

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import numpy as np

from predictkit._format import format_fixed, format_number


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
