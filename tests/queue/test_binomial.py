"""The binomial order-statistic index against direct scipy computation."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from predictkit.exceptions import ConfigError
from predictkit.queue import min_history, order_statistic_index
from predictkit.queue._binomial import IndexTable


def direct_textbook(n, q, c):
    """Smallest 1-based k with P(Bin(n, q) <= k - 1) >= c, by plain search."""
    if q ** n > 1 - c:
        return 0
    for k in range(1, n + 1):
        if stats.binom.cdf(k - 1, n, q) >= c:
            return k
    raise AssertionError("unreachable")


def direct_reference(n, q, c):
    """Smallest j with P(Bin(n, q) <= j) > c, used as a 1-based index."""
    if q ** n > 1 - c:
        return 0
    for j in range(0, n + 1):
        if stats.binom.cdf(j, n, q) > c:
            return max(j, 1)
    raise AssertionError("unreachable")


@pytest.mark.parametrize("q, n, expected", [
    (0.95, 59, 58), (0.95, 100, 98), (0.95, 200, 195), (0.95, 500, 483),
    (0.95, 1000, 961), (0.5, 100, 58), (0.5, 1000, 526)])
def test_reference_rule_check_values(q, n, expected):
    assert order_statistic_index(n, q, 0.95, "reference") == expected


@given(n=st.integers(1, 500), q=st.sampled_from([0.05, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99]),
       c=st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99]))
def test_exact_rules_match_direct_search(n, q, c):
    assert order_statistic_index(n, q, c) == direct_textbook(n, q, c)
    assert order_statistic_index(n, q, c, "reference") == direct_reference(n, q, c)


@pytest.mark.parametrize("n", [501, 750, 1000, 5000, 20000])
@pytest.mark.parametrize("q", [0.5, 0.75, 0.95])
def test_normal_approximation_is_within_one_of_exact(n, q):
    exact = direct_reference(n, q, 0.95) if n <= 1000 else None
    approx = order_statistic_index(n, q, 0.95, "reference")
    z = stats.norm.ppf(0.95)
    assert approx == math.floor(q * n + z * math.sqrt(n * q * (1 - q)) + 0.5)
    assert order_statistic_index(n, q, 0.95) == approx + 1
    if exact is not None:
        assert abs(approx - exact) <= 1


@given(n=st.integers(501, 30000), q=st.sampled_from([0.05, 0.5, 0.75, 0.9, 0.95, 0.99]),
       c=st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99]))
def test_textbook_keeps_the_stated_confidence_past_the_normal_limit(n, q, c):
    # the approximation plus one, raised to the exact index where that falls short
    k = order_statistic_index(n, q, c)
    z = stats.norm.ppf(c)
    approx = min(math.floor(q * n + z * math.sqrt(n * q * (1 - q)) + 0.5) + 1, n)
    if q ** n <= 1 - c:
        assert stats.binom.cdf(k - 1, n, q) >= c
        assert k == approx or stats.binom.cdf(k - 2, n, q) < c


@pytest.mark.parametrize("n, q, c", [(511, 0.95, 0.5), (546, 0.99, 0.8)])
def test_textbook_cases_the_approximation_alone_got_wrong(n, q, c):
    k = order_statistic_index(n, q, c)
    assert stats.binom.cdf(k - 1, n, q) >= c > stats.binom.cdf(k - 2, n, q)
    assert IndexTable(q, c).array(n)[n] == k


def test_textbook_has_the_stated_confidence_reference_does_not():
    k = order_statistic_index(59, 0.95, 0.95)
    j = order_statistic_index(59, 0.95, 0.95, "reference")
    assert (k, j) == (59, 58)
    assert stats.binom.cdf(k - 1, 59, 0.95) >= 0.95
    assert stats.binom.cdf(j - 1, 59, 0.95) == pytest.approx(0.80, abs=0.01)


@pytest.mark.parametrize("q, c, expected", [(0.95, 0.95, 59), (0.5, 0.95, 5),
                                            (0.75, 0.95, 11), (0.99, 0.99, 459)])
def test_min_history(q, c, expected):
    n = min_history(q, c)
    assert n == expected
    assert q ** n <= 1 - c < q ** (n - 1)
    assert order_statistic_index(n - 1, q, c) == 0
    assert order_statistic_index(n, q, c) > 0


def test_index_table_matches_function():
    table = IndexTable(0.95, 0.95)
    for n in list(range(0, 80)) + [499, 500, 501, 2000]:
        assert table[n] == order_statistic_index(n, 0.95, 0.95)
    assert len(table.array(3000)) > 3000


@pytest.mark.parametrize("q, c", [(0.999, 0.999), (0.995, 0.99), (0.99, 0.999)])
def test_index_table_gives_no_bound_below_the_minimum_history_past_the_normal_limit(q, c):
    """Where min_history exceeds the normal-approximation limit, short histories give no bound."""
    table = IndexTable(q, c)
    n_min = min_history(q, c)
    assert n_min > 500
    for n in (501, 1098, n_min - 1, n_min, n_min + 1, 2 * n_min):
        assert table[n] == order_statistic_index(n, q, c)
    assert table[n_min - 1] == 0 and table[n_min] > 0


@pytest.mark.parametrize("q, c, index", [(0.0, 0.95, "textbook"), (1.0, 0.95, "textbook"),
                                         (0.95, 1.5, "textbook"), (0.95, 0.95, "median"),
                                         (float("nan"), 0.9, "textbook")])
def test_bad_arguments(q, c, index):
    with pytest.raises(ConfigError):
        order_statistic_index(100, q, c, index)


def test_index_table_for_a_quantile_near_one_grows_with_the_histories_only():
    # q = 0.999999999 needs about 3e9 waits before any bound exists: the table must
    # not be laid out up to that length when it is made (22 GiB)
    table = IndexTable(0.999999999, 0.95)
    assert table.n_min > 2_000_000_000
    assert len(table.array(10)) < 1_000
    assert table[10] == 0 and table[5_000] == 0
