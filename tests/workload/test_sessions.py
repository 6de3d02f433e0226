"""Session detection by user and think time."""

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from predictkit.workload._sessions import session_ids


def reference_sessions(users, submit, run, think):
    """Row-by-row: a job opens a session when its user's previous jobs all ended
    more than ``think`` seconds before it was submitted."""
    frame = pd.DataFrame({"u": users, "s": submit, "r": run}).reset_index()
    frame = frame.sort_values(["u", "s", "index"], kind="stable")
    labels, latest, current_user, label = {}, -np.inf, None, -1
    for row in frame.itertuples():
        if row.u != current_user or row.s - latest > think:
            label += 1
            latest = -np.inf
        current_user = row.u
        latest = max(latest, row.s + row.r)
        labels[row.index] = label
    return np.array([labels[i] for i in range(len(users))])


def same_partition(a, b):
    return len(set(zip(a, b))) == len(set(a)) == len(set(b))


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 5000), st.integers(0, 2000)),
                min_size=1, max_size=80), st.sampled_from([0, 600, 1200]))
def test_sessions_match_reference(rows, think):
    users, submit, run = (np.array(c, dtype=float) for c in zip(*rows))
    fast = session_ids(users, submit, run, think)
    assert same_partition(fast, reference_sessions(users, submit, run, think))
    assert set(fast) == set(range(fast.max() + 1))


def test_sessions_split_on_long_think_times_and_users():
    users = np.array([1, 1, 1, 2, 1], dtype=float)
    submit = np.array([0, 100, 10_000, 150, 10_050], dtype=float)
    run = np.array([50, 50, 50, 50, 50], dtype=float)
    ids = session_ids(users, submit, run, 1200)
    assert ids[0] == ids[1] != ids[2] == ids[4]
    assert ids[3] not in (ids[0], ids[2])
