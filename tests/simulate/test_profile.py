"""The availability profile's edits that reuse redundant breakpoints give the
same free counts as the plain edits (``predictkit/simulate/_profile.py``)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from predictkit.simulate._engine import Profile
from predictkit.simulate._profile import profile_add, profile_add_reusing, profile_compact


def new_profile(capacity, free):
    profile = Profile(times=np.zeros(capacity), free=np.zeros(capacity, dtype=np.int64),
                      length=np.ones(1, dtype=np.int64), running_max=np.zeros(capacity,
                      dtype=np.int64), running_min=np.zeros(capacity, dtype=np.int64))
    profile.free[0] = free
    return profile


def free_at(profile, t):
    """Free processors at ``t`` read off the breakpoints (plain search)."""
    p = profile.length[0]
    k = max(i for i in range(p) if profile.times[i] <= t)
    return profile.free[k]


edits = st.lists(st.tuples(st.integers(0, 60), st.integers(1, 20), st.integers(-3, 3)),
                 min_size=1, max_size=80)


@settings(max_examples=200)
@given(edits=edits, capacity=st.sampled_from([90, 400]))
def test_reusing_edits_give_the_plain_free_counts(edits, capacity):
    plain = new_profile(400, 10)
    reusing = new_profile(capacity, 10)
    for start, length, delta in edits:
        profile_add(plain, float(start), float(start + length), delta)
        profile_add_reusing(reusing, float(start), float(start + length), delta)
        n = reusing.length[0]
        assert np.all(np.diff(reusing.times[:n]) > 0)
        for t in np.arange(0.0, 82.0, 0.5):
            assert free_at(reusing, t) == free_at(plain, t)
    profile_compact(plain)
    profile_compact(reusing)
    n = plain.length[0]
    assert reusing.length[0] == n
    np.testing.assert_array_equal(reusing.times[:n], plain.times[:n])
    np.testing.assert_array_equal(reusing.free[:n], plain.free[:n])
