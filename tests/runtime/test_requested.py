"""RequestedTime: the user's request, whatever the history."""

import numpy as np
import pandas as pd
from numpy.testing import assert_array_equal

from predictkit.runtime import RequestedTime


def test_predicts_the_request_and_raises_tiny_ones_to_one_second():
    X = pd.DataFrame({"submit_time": [0.0, 1.0, 2.0], "wait_time": [0.0, 0.0, 0.0],
                      "req_time": [60.0, 0.0, np.nan]})
    est = RequestedTime().fit(X, [5.0, 5.0, 5.0])
    assert_array_equal(est.predict(X), [60.0, 1.0, np.nan])
    assert_array_equal(RequestedTime(clip_to_request=False).fit(X, [5.0] * 3).predict(X),
                       [60.0, 0.0, np.nan])
