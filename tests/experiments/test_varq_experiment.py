"""The VARQ simulation experiment on a small window of a real trace."""

import pytest
from tracedata import load_trace

from predictkit.exceptions import ConfigError, JobTableError
from predictkit.experiments import varq_experiment


def test_experiment_small_window():
    jobs = load_trace("KTH-SP2-1996-2.1-cln", 6000)
    first = float(jobs["submit_time"].min())
    table = varq_experiment(jobs, fractions=(0.2, 0.5), probabilities=(0.5, 0.9),
                            window=(first + 20 * 86400, first + 23 * 86400))
    assert len(table) == 4
    assert (table["count"] + table["refused"] == table["selected"]).all()
    # nested selections: a larger fraction selects at least as many jobs
    assert table["selected"].iloc[2] >= table["selected"].iloc[0] > 0
    accepted = table[table["count"] > 0]
    assert ((accepted["predicted"] >= accepted["probability"]) | accepted["predicted"].isna()).all()
    assert accepted["observed"].between(0, 1).all()
    # VARQ never uses less than the work needs (spinning only adds)
    assert (accepted["ratio"] >= 0.999).all()
    # a request is refused only when its trajectory never reaches the probability
    refused = table[table["refused"] > 0]
    assert len(refused) and (refused["highest_refused"] < refused["probability"]).all()
    assert table.loc[table["refused"] == 0, "highest_refused"].isna().all()


@pytest.mark.parametrize("kwargs", [dict(fractions=(0.0,)), dict(probabilities=(1.5,)),
                                    dict(period=0), dict(replan_every=0)])
def test_bad_arguments(kwargs):
    jobs = load_trace("KTH-SP2-1996-2.1-cln", 100)
    with pytest.raises(ConfigError):
        varq_experiment(jobs, **kwargs)


def removed_before(table):
    return {r["rule"]: r["removed"] for r in table.attrs["cleaning"]}[
        "size unknown or not positive"]


def test_jobs_without_a_width_are_left_out_and_req_procs_stands_in():
    jobs = load_trace("KTH-SP2-1996-2.1-cln", 1500)
    first = float(jobs["submit_time"].min())
    window = (first + 2 * 86400, first + 4 * 86400)
    kwargs = dict(fractions=(0.5,), probabilities=(0.5,), window=window)
    base = varq_experiment(jobs, **kwargs)
    # a job with no width at all is left out, not an error deep in the simulator
    holed = jobs.copy()
    holed.loc[holed.index[10], ["n_procs", "req_procs"]] = float("nan")
    holed_table = varq_experiment(holed, **kwargs)
    assert len(holed_table) == 1
    removed = {r["rule"]: r["removed"] for r in holed_table.attrs["cleaning"]}
    assert removed["size unknown or not positive"] == 1 + removed_before(base)
    # a missing allocation falls back on the request
    swapped = jobs.assign(n_procs=float("nan"), req_procs=jobs["n_procs"])
    assert varq_experiment(swapped, **kwargs).equals(base)
    with pytest.raises(JobTableError, match="n_procs or req_procs"):
        varq_experiment(jobs.drop(columns=["n_procs", "req_procs"]), **kwargs)


def test_machine_procs_sets_the_machine_and_n_procs_is_its_deprecated_name():
    jobs = load_trace("KTH-SP2-1996-2.1-cln", 1500)
    first = float(jobs["submit_time"].min())
    kwargs = dict(fractions=(0.5,), probabilities=(0.5,),
                  window=(first + 2 * 86400, first + 4 * 86400))
    machine = int(jobs["n_procs"].max())
    new = varq_experiment(jobs, machine_procs=machine, **kwargs)
    with pytest.warns(DeprecationWarning, match=r"varq_experiment\(n_procs=\.\.\.\)"):
        old = varq_experiment(jobs, n_procs=machine, **kwargs)
    assert old.equals(new)


def test_a_log_with_no_simulable_job_names_what_left_each_out():
    import pandas as pd

    jobs = pd.DataFrame({"job_id": [1, 2], "submit_time": [0.0, 10.0], "wait_time": [0.0, 0.0],
                         "run_time": [5.0, 6.0], "n_procs": [1.0, 1.0],
                         "req_time": [float("nan")] * 2})
    with pytest.raises(JobTableError, match=r"^no job can be simulated: every job was left out "
                                            r"\(2 jobs with req_time unknown or not positive\)"):
        varq_experiment(jobs)


def _plans_one_by_one(base, candidates, probabilities, period, step, replan_every, params):
    """Each candidate planned alone at its submission, then at every multiple of
    ``replan_every`` s while it waits, by a QBETS fitted afresh on the waits known at that
    instant and shown the queue of the VARQ-free schedule (the paper's rule, sec. 3.1)."""
    import numpy as np

    from predictkit.queue import QBETS, VARQ

    submit, start = base["submit_time"].to_numpy(), base["start_time"].to_numpy()
    rows = np.arange(len(base))
    order = np.lexsort((rows, submit, start))
    plans = {p: {} for p in probabilities}
    for j in candidates:
        deadline = (np.floor(submit[j] / period) + 1.0) * period
        now, first = float(submit[j]), True
        while True:
            known = order[start[order] <= now]
            model = QBETS(**params).partial_fit(base.iloc[known],
                                                base["wait_time"].to_numpy()[known])
            model.observe_queue(base.iloc[np.flatnonzero((submit < now) & (start > now))],
                                now=now)
            traj = VARQ(model, step=step).trajectory(base["n_procs"].iloc[j],
                                                     base["req_time"].iloc[j], deadline, now)
            probs = traj["probability"].to_numpy()
            for p in probabilities:
                if not first and (j not in plans[p] or plans[p][j][0] <= now):
                    continue
                ok = np.flatnonzero(np.isfinite(probs) & (probs >= p))
                if first and not len(ok):
                    continue
                at = int(ok[-1]) if len(ok) else 0
                promised = probs[at] if first else plans[p][j][2]
                plans[p][j] = (traj["submit_time"].iloc[at], traj["requested_time"].iloc[at],
                               promised)
            waiting = [plans[p][j][0] for p in probabilities
                       if j in plans[p] and plans[p][j][0] > now]
            tick = next(k * replan_every for k in range(int(now // replan_every), 2**62)
                        if k * replan_every > now)
            if not waiting or tick >= max(waiting):
                break
            now, first = float(tick), False
    return plans


def test_a_waiting_request_is_planned_again_from_the_qbets_of_the_moment():
    import numpy as np

    from predictkit.experiments._varq_experiment import _plan_all
    from predictkit.simulate import simulate

    jobs = load_trace("KTH-SP2-1996-2.1-cln", 3000)
    schedule = simulate(jobs, policy="easy", estimates="requested").jobs
    base = schedule.reset_index(drop=True)
    first = float(base["submit_time"].min())
    window = np.flatnonzero(base["submit_time"].between(first + 15 * 86400,
                                                        first + 16 * 86400))
    candidates = window[::3]
    params = dict(clustering=None, changepoint=None)
    args = (base, candidates, (0.5, 0.8), 21600.0, 60.0)
    plans, highest, replans = _plan_all(*args, 1800.0, params)
    assert replans > 0 and len(highest) == len(candidates)
    expected = _plans_one_by_one(*args, 1800.0, params)
    for p in (0.5, 0.8):
        assert plans[p].keys() == expected[p].keys() and len(plans[p])
        for j, (at, asked, promised) in plans[p].items():
            assert (at, asked, promised) == pytest.approx(expected[p][j], rel=0, abs=1e-9)
    once, _, none = _plan_all(*args, float("inf"), params)
    assert none == 0 and {p: set(v) for p, v in once.items()} == \
        {p: set(v) for p, v in plans.items()}
    moved = sum(once[p][j][0] != plans[p][j][0] for p in once for j in once[p])
    assert moved > 0  # planning again changed some submit times


@pytest.mark.parametrize("every", [0.7, 0.1, 599.9, 600.0])
def test_the_instants_of_planning_again_always_move_on(every):
    from predictkit.experiments._varq_experiment import _next_tick

    now, ticks = 0.0, []
    for _ in range(2000):
        now = _next_tick(now, every)
        ticks.append(now)
    assert all(b > a for a, b in zip(ticks, ticks[1:]))
    assert ticks[0] == every and abs(ticks[-1] - 2000 * every) < 1e-6 * every * 2000
    assert _next_tick(123.0, float("inf")) == float("inf")


def test_planning_again_every_fraction_of_a_second_ends():
    import numpy as np
    import pandas as pd

    from predictkit.experiments._varq_experiment import _plan_all

    n = 200
    submit = np.arange(n, dtype=float)
    waits = np.linspace(0.0, 50.0, n)
    base = pd.DataFrame({"submit_time": submit, "wait_time": waits,
                         "start_time": submit + waits, "n_procs": 1.0, "req_procs": 1.0,
                         "req_time": 10.0, "run_time": 5.0})
    params = dict(clustering=None, changepoint=None)
    plans, _, replans = _plan_all(base, np.array([n - 1]), (0.5,), 400.0, 1.0, 0.7, params)
    assert replans > 0 and set(plans[0.5]) == {n - 1}
    assert n - 1 <= plans[0.5][n - 1][0] < 400.0
