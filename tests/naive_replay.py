"""The no-peeking reference of every online predictor's tests: one fresh fit per job."""

import numpy as np
from sklearn.base import clone


def naive_replay(estimator, X, y):
    """For each job, a fresh clone fitted on exactly the jobs submitted before it
    and ended by its submission (never the job itself)."""
    known = (X["submit_time"] + X["wait_time"]).to_numpy() + y
    submit = X["submit_time"].to_numpy()
    out = np.empty(len(X))
    for j in range(len(X)):
        done = (known <= submit[j]) & (submit < submit[j]) & np.isfinite(y)
        out[j] = clone(estimator).fit(X[done], y[done]).predict(X.iloc[[j]])[0]
    return out
