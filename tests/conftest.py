"""Test settings: hypothesis profiles; trace helpers live in ``tracedata.py``."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", deadline=None, max_examples=50,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
