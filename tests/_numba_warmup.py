"""Compile the package's cached numba kernels once, before the test workers start.

Each ``pytest -n`` worker would otherwise compile the same kernels at the same
time on a fresh checkout (numba's on-disk cache is written only once a
compilation ends). Run by ``conftest.py`` in the controlling process; with a
warm cache it only loads them.
"""

import warnings

import numpy as np


def warm_up(part):
    """Run the compiled paths of one ``part`` (0 or 1) once on a small synthetic workload.

    The two parts compile different kernels, so two processes can share the work.
    """
    from predictkit.datasets import make_workload
    from predictkit.metrics import fairness_metrics
    from predictkit.model_selection import replay
    from predictkit.queue import QBETS, WaitPredictor
    from predictkit.runtime import make_predictor
    from predictkit.simulate import PRIORITIES, simulate

    jobs = make_workload(n_jobs=300, random_state=0)
    run = jobs["run_time"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if part == 0:
            for policy in ("conservative", "fcfs"):
                for priority in PRIORITIES:
                    simulate(jobs, policy=policy, priority=priority)
            for name in ("tang", "usage-max", "recent-average"):
                simulate(jobs, policy="conservative", estimates=make_predictor(name),
                         selective=True)
            schedule = simulate(jobs, policy="easy")
            fairness_metrics(schedule)
            waited = schedule.jobs.drop(columns=["start_time", "end_time"])
            waits = waited["wait_time"].to_numpy()
            replay(WaitPredictor(), waited, waits, method="fast")
            replay(QBETS(random_state=0), waited, waits, method="fast")
        else:
            for policy in ("easy", "no_guarantee"):
                for priority in PRIORITIES:
                    simulate(jobs, policy=policy, priority=priority)
            simulate(jobs, policy="easy", reservation_depth=3)
            simulate(jobs, policy="no_guarantee", starvation_after="1h")
            simulate(jobs, policy="easy", estimates="perfect", max_runtime="2h")
            for name in ("tang", "usage-max", "recent-average", "learned"):
                predictor = make_predictor(name)
                if name == "learned":
                    predictor.fit(jobs.assign(end_time=jobs["submit_time"] + run), run)
                simulate(jobs, policy="easy", estimates=predictor, selective=name != "learned")
                replay(make_predictor(name), jobs, run, known_time=jobs["submit_time"] + run,
                       method="fast" if name != "learned" else "auto")
    return np.True_
