"""The compiled simulator agrees job by job with the plain reference."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _workloads import POLICY_CASES, PRIORITY_CASES, compare, workloads


@pytest.mark.parametrize("priority", PRIORITY_CASES)
@pytest.mark.parametrize("policy,depth", POLICY_CASES)
@settings(max_examples=30)
@given(case=workloads(), kill=st.booleans(), under=st.sampled_from(["double", "increments", "request"]))
def test_agrees_with_reference(policy, depth, priority, case, kill, under):
    jobs, machine, est, score = case
    compare(jobs, machine, est, score, policy=policy, depth=depth, priority=priority,
            kill=kill, under=under)


@pytest.mark.parametrize("policy,depth", POLICY_CASES)
@settings(max_examples=30)
@given(case=workloads(), priority=st.sampled_from(["fcfs", "wfp", "sjf"]),
       bf=st.sampled_from(["priority", "sjf"]))
def test_selective_and_backfill_order_agree(policy, depth, case, priority, bf):
    jobs, machine, est, score = case
    compare(jobs, machine, est, score, policy=policy, depth=depth, priority=priority,
            selective=True, bf=bf, kill=False)
