"""Evaluation the way a scheduler sees a trace: online replay and time-ordered splits."""

from ._replay import known_times, replay
from ._schedule_criteria import SCHEDULE_CRITERIA, cross_validation_scores
from ._schedule_scorer import make_schedule_scorer
from ._schedule_search import (EASY_PLUS_PLUS, ScheduleCandidate, ScheduleSelection,
                               schedule_candidates, select_by_schedule)
from ._split import TraceSplit, replay_cross_validate

__all__ = ["replay", "known_times", "TraceSplit", "replay_cross_validate",
           "make_schedule_scorer", "select_by_schedule", "schedule_candidates",
           "ScheduleCandidate", "ScheduleSelection", "EASY_PLUS_PLUS",
           "cross_validation_scores", "SCHEDULE_CRITERIA"]
