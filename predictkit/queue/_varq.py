"""VARQ: virtual advance reservations on top of QBETS bounds.

Nurmi, Wolski and Brevik (2008), section 3.1. To have a job running at a
deadline without a scheduler reservation, submit it early enough, asking for
its walltime plus the time left until the deadline (it spins until then).
Submitting later makes the request shorter (easier to backfill) but leaves
less time to start. For each candidate submit time ``s`` (every ``step``
seconds from now to the deadline) the *probability trajectory* (Figure 3,
Figure 4) is the inverted QBETS probability that a job asking for
``walltime + (deadline - s)`` starts within ``deadline - s``. VARQ submits at
the latest time whose probability reaches the user's request (``"latest"``,
the least potential overhead) or at the most probable time (``"max"``), and
reports the worst-case extra allocation ``nodes * (deadline - s)``.
Reservations on machines that behave independently combine as
``1 - prod(1 - p_i)`` (section 4.6).
"""

import copy
import math
from dataclasses import asdict, dataclass
from numbers import Real

import numpy as np
import pandas as pd

from .._deprecation import warn_renamed
from .._validation import (HasMethods, Interval, StrOptions, WholeNumber, check_parameters,
                          invalid_parameter, short_repr)
from ..exceptions import ConfigError, InvalidParameterError

__all__ = ["VARQ", "Reservation", "joint_success_probability"]


@dataclass(frozen=True)
class Reservation:
    """The outcome of :meth:`VARQ.plan`.

    Attributes
    ----------
    possible : bool
        False when no submit time reaches the requested probability ("no
        reservation possible", like a refused hard reservation); the other
        numbers are then ``NaN`` except ``probability``, which holds the best
        probability seen on the trajectory.
    submit_time : float
        When to submit (same clock as ``now`` and ``deadline``).
    wait : float
        ``submit_time - now``: how long to wait before submitting.
    requested_time : float
        The padded walltime to request, ``walltime + (deadline - submit_time)``.
    probability : float
        Predicted probability of starting by the deadline.
    extra_allocation : float
        Worst-case extra allocation, ``nodes * (deadline - submit_time)``
        node-seconds (the job starts at once and spins until the deadline).
    required_allocation : float
        ``nodes * walltime``, the allocation the work itself needs.
    reason : str
        Why no reservation is possible (empty when possible).
    """

    possible: bool
    submit_time: float
    wait: float
    requested_time: float
    probability: float
    extra_allocation: float
    required_allocation: float
    reason: str = ""

    def to_dict(self):
        """The fields as a plain dict."""
        return asdict(self)


def joint_success_probability(probabilities):
    """Probability that at least one of independent reservations succeeds.

    ``1 - prod(1 - p_i)`` (Nurmi et al. 2008, section 4.6): two independent
    0.9 reservations give 0.99.

    Parameters
    ----------
    probabilities : iterable of float or :class:`Reservation`
        Success probabilities (impossible reservations count as 0).
    """
    if isinstance(probabilities, (str, bytes)) or not hasattr(probabilities, "__iter__"):
        raise ConfigError(f"probabilities must be an iterable of numbers or Reservations, "
                          f"got {short_repr(probabilities)}")
    values = []
    for item in probabilities:
        if isinstance(item, Reservation):
            item = item.probability if item.possible else 0.0
        if isinstance(item, (bool, np.bool_)) or not isinstance(item, Real):
            raise ConfigError(f"success probabilities must be numbers in [0, 1], got "
                              f"{short_repr(item)}")
        p = float(item)
        if not 0.0 <= p <= 1.0:
            raise ConfigError(f"success probabilities must be in [0, 1], got {p!r}")
        values.append(p)
    if not values:
        raise ConfigError("joint_success_probability needs at least one probability")
    return 1.0 - float(np.prod([1.0 - p for p in values]))


_POSITIVE = Interval(Real, 0, None, closed="neither")
_ARGUMENT_CONSTRAINTS = {
    "nodes": [WholeNumber(1)],
    "walltime": [_POSITIVE],
    "deadline": [Interval(Real, 0, None, closed="left")],
    "now": [Interval(Real, None, None, closed="neither")],
    "probability": [Interval(Real, 0, 1, closed="right"), None],
    "mode": [StrOptions({"latest", "max"})],
}


MAX_CANDIDATES = 1_000_000
"""Most candidate submit times one plan examines (``(deadline - now) / step``): a
year of 30-second steps; more would only exhaust memory."""


class VARQ:
    """Virtual advance reservations from a fitted bounds estimator.

    Parameters
    ----------
    bounds : estimator
        A fitted estimator with ``start_probability(X, within=seconds)``
        (``P(wait <= within)`` per job) such as
        :class:`~predictkit.queue.QBETS`; it is used as is (VARQ does not fit
        it). An estimator with only the deprecated ``predict_proba(X,
        within=...)`` is still accepted, with a ``DeprecationWarning``, until
        0.3. Keep it updated (``partial_fit``) as waits become known. An
        estimator whose queries record the jobs asked (``records_queries``,
        such as :class:`~predictkit.queue.WaitPredictor`) is asked through a
        copy, so that the candidate submissions leave it as it was.
    step : float, default=30
        Spacing of candidate submit times in seconds (30 in the paper).

    Both are checked when a trajectory or a plan is asked for; invalid values
    raise :class:`~predictkit.exceptions.InvalidParameterError` naming them.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from predictkit.queue import QBETS, VARQ
    >>> jobs = pd.DataFrame({"req_procs": 4.0, "req_time": 3600.0,
    ...                      "submit_time": np.arange(200.0)})
    >>> qbets = QBETS(clustering=None, changepoint=None).fit(jobs, np.linspace(0, 1990, 200))
    >>> plan = VARQ(qbets, step=60).plan(4, 3600, deadline=7200, probability=0.9, now=0)
    >>> plan.possible, plan.submit_time
    (True, 5280.0)
    """

    _parameter_constraints = {"bounds": [HasMethods(["start_probability"]),
                                         HasMethods(["predict_proba"])],
                              "step": [_POSITIVE]}

    def __init__(self, bounds, *, step=30):
        self.bounds = bounds
        self.step = step

    def _check(self, nodes, walltime, deadline, now):
        """One request's arguments, as floats (the estimator's are checked once per call)."""
        check_parameters(_ARGUMENT_CONSTRAINTS, {"nodes": nodes, "walltime": walltime,
                                                 "deadline": deadline, "now": now}, "VARQ")
        if deadline <= now:
            raise invalid_parameter("deadline", "VARQ",
                                    f"after now ({now:g}): a reservation cannot start in "
                                    "the past", deadline)
        if (deadline - now) / self.step > MAX_CANDIDATES:
            raise invalid_parameter(
                "step", "VARQ", f"at least {(deadline - now) / MAX_CANDIDATES:g} s for a "
                f"deadline {deadline - now:g} s after now (at most {MAX_CANDIDATES:,} "
                "candidate submit times)", self.step)
        return float(self.step), float(nodes), float(walltime), float(deadline), float(now)

    def _start_probability(self, jobs, within):
        bounds = self.bounds
        if getattr(bounds, "records_queries", False):
            # the candidates are what-if submissions: asked of a copy, under labels
            # that no job the estimator has seen can have
            bounds = copy.deepcopy(bounds)
            jobs = jobs.set_axis([f"VARQ candidate {k}" for k in range(len(jobs))])
        method = getattr(bounds, "start_probability", None)
        if method is None:
            warn_renamed(f"a bounds estimator with predict_proba(X, within) "
                         f"({type(bounds).__name__})", "start_probability(X, within)",
                         stacklevel=4)
            method = bounds.predict_proba
        return method(jobs, within=within)

    def trajectory(self, nodes, walltime, deadline, now):
        """The probability trajectory (Figure 3 of the paper).

        Parameters
        ----------
        nodes : int
            Requested nodes (processors in SWF terms: ``req_procs``).
        walltime : float
            Seconds of work the job needs once the deadline comes.
        deadline : float
            When the job must be running (same clock as ``now``, e.g. the
            trace's ``submit_time`` seconds).
        now : float
            The current time; candidate submit times are ``now``,
            ``now + step``, ... while before ``deadline``.

        Returns
        -------
        DataFrame
            ``submit_time``, ``wait`` (from now), ``within`` (``deadline -
            submit_time``), ``requested_time`` (``walltime + within``) and
            ``probability`` (inverted QBETS; ``NaN`` without history).
        """
        return self.trajectories([nodes], [walltime], [deadline], now).drop(columns="request")

    def trajectories(self, nodes, walltime, deadline, now):
        """The probability trajectories of several requests at one instant, asked at once.

        Each request's rows are its :meth:`trajectory` (Nurmi et al. 2008,
        section 3.1, Figure 3), as when VARQ plans several waiting requests
        again at one instant; a request's
        probabilities do not depend on the others asked with it.

        Parameters
        ----------
        nodes, walltime, deadline : array-like
            One value per request, as in :meth:`trajectory`.
        now : float
            The current time.

        Returns
        -------
        DataFrame
            ``request`` (the request's position) and the columns of
            :meth:`trajectory`, each request's rows in order of submit time.
        """
        check_parameters(self._parameter_constraints,
                         {"bounds": self.bounds, "step": self.step}, "VARQ")
        given = {"nodes": nodes, "walltime": walltime, "deadline": deadline}
        for name, values in given.items():
            if isinstance(values, (str, bytes)) or np.ndim(values) != 1:
                raise invalid_parameter(name, "VARQ.trajectories", "a sequence of one value "
                                        "per request (trajectory() takes one request)", values)
        lengths = {name: len(values) for name, values in given.items()}
        if len(set(lengths.values())) > 1:
            raise InvalidParameterError(
                "VARQ.trajectories takes one value per request in nodes, walltime and "
                "deadline; got " + ", ".join(f"{n} {name}" for name, n in lengths.items()),
                parameter="nodes", owner="VARQ.trajectories")
        checked = [self._check(n, w, d, now) for n, w, d in zip(nodes, walltime, deadline)]
        times = []
        for step, _, _, d, start in checked:
            submit = start + step * np.arange(int(math.ceil((d - start) / step)))
            times.append(submit[submit < d])
        counts = [len(t) for t in times]
        submit = np.concatenate(times) if times else np.zeros(0)
        width = np.repeat([c[1] for c in checked], counts).astype(np.float64)
        work = np.repeat([c[2] for c in checked], counts).astype(np.float64)
        within = np.repeat([c[3] for c in checked], counts).astype(np.float64) - submit
        # jobs of these shapes from no user in particular
        jobs = pd.DataFrame({"submit_time": submit, "req_procs": width, "n_procs": width,
                             "req_time": work + within, "user_id": np.nan})
        prob = (np.asarray(self._start_probability(jobs, within), dtype=np.float64)
                if len(jobs) else np.zeros(0))
        return pd.DataFrame({"request": np.repeat(np.arange(len(checked)), counts),
                             "submit_time": submit, "wait": submit - float(now),
                             "within": within, "requested_time": work + within,
                             "probability": prob})

    def plan(self, nodes, walltime, deadline, probability, now, *, mode="latest"):
        """When to submit so that the job runs at ``deadline`` with ``probability``.

        Parameters
        ----------
        nodes, walltime, deadline, now
            As in :meth:`trajectory`.
        probability : float in (0, 1]
            Required success probability (``mode="max"``: the minimum
            accepted; ``None`` accepts any).
        mode : {"latest", "max"}
            ``"latest"`` (Figure 3): the latest submit time whose probability
            reaches ``probability`` (least potential overhead). ``"max"``: the
            most probable submit time (the latest of ties).

        Returns
        -------
        Reservation
            ``possible=False`` with a reason when no submit time qualifies, or
            when the job is wider than the machine the bounds were fitted on
            (their ``machine_procs_``, where they know it).
        """
        check_parameters(_ARGUMENT_CONSTRAINTS, {"probability": probability, "mode": mode},
                         "VARQ.plan")
        if probability is None and mode == "latest":
            raise invalid_parameter("probability", "VARQ.plan",
                                    "a number in (0, 1] with mode='latest'", probability)
        if probability is not None:
            probability = float(probability)
        machine = getattr(self.bounds, "machine_procs_", None)
        if machine is not None and isinstance(nodes, Real) and nodes > machine:
            check_parameters(_ARGUMENT_CONSTRAINTS, {"nodes": nodes, "walltime": walltime},
                             "VARQ.plan")
            return Reservation(False, math.nan, math.nan, math.nan, math.nan, math.nan,
                               float(nodes) * float(walltime),
                               f"{int(nodes):,} nodes is more than the machine holds "
                               f"({machine:,}, the bounds' history's attrs['max_procs'])")
        traj = self.trajectory(nodes, walltime, deadline, now)
        nodes, walltime = float(nodes), float(walltime)
        probs = traj["probability"].to_numpy()
        valid = np.isfinite(probs)
        best = float(np.max(probs[valid])) if valid.any() else math.nan
        if mode == "latest":
            ok = np.flatnonzero(valid & (probs >= probability))
            pick = int(ok[-1]) if len(ok) else None
        elif valid.any():
            top = np.flatnonzero(valid & (probs == best))
            pick = int(top[-1])
            if probability is not None and best < probability:
                pick = None
        else:
            pick = None
        if pick is None:
            reason = ("no history for this kind of job" if not valid.any() else
                      f"no submit time reaches probability {probability:g} "
                      f"(best {best:.2f})")
            return Reservation(False, math.nan, math.nan, math.nan, best, math.nan,
                               nodes * walltime, reason)
        row = traj.iloc[pick]
        return Reservation(True, float(row["submit_time"]), float(row["wait"]),
                           float(row["requested_time"]), float(row["probability"]),
                           nodes * float(row["within"]), nodes * walltime)
