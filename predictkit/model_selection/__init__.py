"""Evaluation the way a scheduler sees a trace: online replay and time-ordered splits."""

from ._replay import known_times, replay
from ._schedule_scorer import make_schedule_scorer
from ._split import TraceSplit, replay_cross_validate

__all__ = ["replay", "known_times", "TraceSplit", "replay_cross_validate",
           "make_schedule_scorer"]
