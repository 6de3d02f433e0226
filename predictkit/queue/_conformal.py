"""Online conformal calibration of wait forecasts, per job class, adaptive to drift.

The score of a job is how far its wait ``w`` fell from its forecast ``F``
on a log scale, ``s = log((w + c) / (F + c))`` with ``c = 60 s`` (so a
forecast of 0 and a wait of a few seconds agree). The bound at level ``l``
is ``(F + c) exp(s_(k)) - c`` with ``s_(k)`` the ``k = ceil(l (n + 1))``-th
smallest of the ``n`` most recent scores of the job's class (split
conformal prediction, Vovk et al. 2005; one sample per class is Mondrian
conformal prediction, which gives coverage within each class).

Queued jobs add the evidence QBETS takes from the queue (Nurmi et al.
2008): a queued job of the class whose score so far is already above the
threshold is a miss known before it starts, and joins the sample.

The bound is then shifted online so that misses stay rare whatever the
drift: ``s_(k) + delta_t``, with ``delta`` moved by ``eta (err_i - (1 -
q*))`` at each outcome (``err_i = 1`` for a job whose wait exceeded its
bound), one ``delta`` per forecast band. This is adaptive conformal
inference (Gibbs & Candes 2021) run on the score threshold instead of the
level -- the quantile tracker of Angelopoulos, Candes & Tibshirani (2023,
"Conformal PID control"), whose long-run share of misses stays within
``(B + eta) / (eta T)`` of ``1 - q*`` for scores bounded by ``B``, whatever
the sequence. Outcomes are applied in the order they became known (time,
hits before misses, then row): a miss as soon as the job has waited longer
than its bound, before it starts; a hit when it starts. ``q*`` is ``q``
raised by a tenth of ``1 - q`` so that the finite-sample wobble of the
guarantee stays above ``q``. The shifted threshold never exceeds the
largest score of the sample (with the queued evidence): a burst of jobs that
all wait longer than their bound (hundreds at once on the grid logs) winds
the shift up by ``eta q*`` per miss, and without that cap the bounds of the
band would stay astronomically high for the tens of thousands of hits it
takes to unwind -- the same cap as the level of Gibbs & Candes reaching 1
(the largest score). Clipping the shift itself instead (a factor of 20
either way) pulled correctness to 0.91 on METACENTRUM-2009-2.
"""

import collections
import math

from ._history import SortedHistory

__all__ = ["OFFSET", "ConformalCalibrator", "job_class"]

OFFSET = 60.0
"""Seconds added to waits and forecasts before taking logs."""

_FORECAST_EDGES = (60.0, 600.0, 3600.0, 4 * 3600.0, 16 * 3600.0, 64 * 3600.0)
_WIDE = 1.0 / 32.0


def job_class(forecast, alone, procs, capacity, request=math.nan, user_score=math.nan):
    """Class of a job: ``(forecast band, room, wide, short, user)``.

    Forecast bands: under 1 min, 10 min, 1 h, 4 h, 16 h, 64 h, more
    (:data:`_FORECAST_EDGES`); room, the band of its start if it were alone:
    under 1 min, 1 h, more (whether the running jobs leave it room now, soon
    or not); wide when it asks for more than 1/32 of the machine; short when
    it requests at most an hour; user, the band of the score of the user's
    job that started last (unknown, below -1, -1 to 1, above 1).
    """
    band = 0
    for edge in _FORECAST_EDGES:
        if forecast >= edge:
            band += 1
    room = 0 if alone < 60.0 else 1 if alone < 3600.0 else 2
    wide = procs == procs and capacity > 0 and procs > _WIDE * capacity
    short = request == request and request <= 3600.0
    if user_score != user_score:
        user = 0
    else:
        user = 1 if user_score < -1.0 else 2 if user_score < 1.0 else 3
    return (band, room, int(wide), int(short), user)


def score(wait, forecast):
    """The conformity score ``log((w + c) / (F + c))``."""
    return math.log((wait + OFFSET) / (forecast + OFFSET))


class _Window:
    """The most recent ``size`` scores, sorted."""

    def __init__(self, size):
        self.size = size
        self.fifo = collections.deque()
        self.sorted = SortedHistory()

    def add(self, value):
        self.fifo.append(value)
        self.sorted.add(value)
        if len(self.fifo) > self.size:
            self.sorted.remove(self.fifo.popleft())

    def __len__(self):
        return len(self.fifo)


class ConformalCalibrator:
    """Per-class windows of scores and the adaptive level (see the module docstring).

    Parameters
    ----------
    quantile : float
        The coverage ``q`` promised.
    window : int
        Scores kept per class.
    step : float
        The step ``eta`` of the shift (log units).
    min_scores : int
        A class with fewer scores uses the pooled window of every class.
    """

    def __init__(self, quantile, *, window, step, min_scores):
        self.quantile = quantile
        self.target = quantile + 0.1 * (1.0 - quantile)
        self.step = step
        self.min_scores = min_scores
        self.classes = {}
        self.pooled = _Window(window)
        self.window = window
        self.delta = {}
        self.n_outcomes = 0

    def add(self, label, value):
        """Add the score of a job of class ``label`` whose wait became known."""
        for key in (label, label[:-1], label[:1]):
            win = self.classes.get(key)
            if win is None:
                win = self.classes[key] = _Window(self.window)
            win.add(value)
        self.pooled.add(value)

    def outcome(self, label, missed):
        """Record whether the bound of a job of class ``label`` was missed (moves its shift)."""
        key = label[:1]
        self.delta[key] = (self.delta.get(key, 0.0)
                           + self.step * (float(missed) - (1.0 - self.target)))
        self.n_outcomes += 1

    def shift(self, label):
        """The current shift ``delta_t`` of the score threshold of a class (log units).

        One shift per forecast band (``label[:1]``): a burst of misses in one
        band leaves the others alone.
        """
        return self.delta.get(label[:1], 0.0)

    def _windows(self, label):
        """The windows with enough scores, finest first: the class, coarser classes, all."""
        for key in (label, label[:-1], label[:1]):
            win = self.classes.get(key)
            if win is not None and len(win) >= self.min_scores:
                yield win
        if len(self.pooled) >= self.min_scores:
            yield self.pooled

    def bound(self, label, forecast, shift, queued=None):
        """The bound (seconds) of a job with this class and forecast.

        From the finest window whose scores reach the level ``q*``
        (``ceil(q* (n + 1)) <= n``), shifted by ``shift`` but not past the
        largest score; infinite when none does, NaN before any has
        ``min_scores`` scores.

        ``queued`` -- ``(now, submit, forecast)`` arrays of the queued jobs
        of the same class -- adds the evidence QBETS takes from the queue
        (Nurmi et al. 2008; :meth:`Engine.queued_bound`): a queued job whose
        score is already above the threshold (``now - submit + c >
        (F + c) exp(s)``) is a miss known before it starts; its score so far,
        a lower bound, joins the sample and the order statistic is taken
        again, so the bound can only rise.
        """
        out = math.nan
        for win in self._windows(label):
            n = len(win)
            k = max(math.ceil(self.target * (n + 1)), 1)
            if k > n:
                out = math.inf  # the level is beyond what n scores can bound
                continue
            s = win.sorted.kth(k)
            top = win.sorted.kth(n)
            if queued is not None and len(queued[1]):
                s, top = self._with_queue(win, k, s, queued)
            return max(0.0, (forecast + OFFSET) * math.exp(min(s + shift, top)) - OFFSET)
        return out

    def _with_queue(self, win, k, s, queued):
        now, submit, forecast = queued
        above = (now - submit + OFFSET) > (forecast + OFFSET) * math.exp(s)
        top = win.sorted.kth(len(win))
        if not above.any():
            return s, top
        aged = sorted(math.log((now - a + OFFSET) / (f + OFFSET))
                      for a, f in zip(submit[above].tolist(), forecast[above].tolist()))
        n, m = len(win), len(aged)
        k2 = max(math.ceil(self.target * (n + m + 1)), 1)
        top = max(top, aged[-1])
        if k2 > n + m:
            return math.inf, math.inf
        # the k2-th smallest of the window and the aged scores (all above s)
        i, j, value = k, 0, s
        for _ in range(k2 - k):
            nxt = win.sorted.kth(i + 1) if i < n else math.inf
            if j < m and aged[j] < nxt:
                value = aged[j]
                j += 1
            else:
                value = nxt
                i += 1
        return value, top

    def probability(self, label, forecast, within):
        """Share of the class's scores at or under that of a wait of ``within``."""
        win = next(self._windows(label), None)
        if win is None:
            return math.nan
        return win.sorted.count_lt(math.nextafter(score(within, forecast), math.inf)) / len(win)
