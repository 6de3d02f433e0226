"""The compile clock counts compiling, not loading from the cache or running."""

import numpy as np
from numba import njit

from predictkit._compile_clock import compile_seconds


def test_compiling_a_kernel_adds_its_time_and_running_it_again_does_not():
    before = compile_seconds()

    @njit(cache=False)
    def doubled(values):
        return values * 2.0

    assert compile_seconds() == before  # defined, not yet compiled
    np.testing.assert_array_equal(doubled(np.arange(3.0)), [0.0, 2.0, 4.0])
    compiled = compile_seconds()
    assert compiled > before
    doubled(np.arange(5.0))
    assert compile_seconds() == compiled
