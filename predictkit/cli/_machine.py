"""The machine a command simulates or learns from: ``--machine-procs``, the warning when a
log keeps more processors busy than it, and the size handed to the library."""

import warnings

from .._format import format_count

__all__ = ["add_machine_procs_option", "warn_busier_than_machine", "with_machine_size"]


def add_machine_procs_option(parser):
    """Add ``--machine-procs P``, the machine size of a log's simulation, to a parser."""
    parser.add_argument("--machine-procs", type=int, default=None, metavar="P",
                        help="machine size in processors (default: the header's MaxProcs, "
                             "else the widest job)")


def warn_busier_than_machine(jobs, machine_procs, *, kept=False):
    """Warn when ``jobs`` keep more processors busy than the machine the command assumes.

    The warning (:func:`predictkit._summary.busier_than_machine`, the note
    of the report too) is one ``predictkit CMD: warning: ...`` line on
    standard error, which ``--quiet`` keeps: it says the results are for a
    machine smaller than the log's.

    Parameters
    ----------
    jobs : DataFrame
        The jobs the command simulates or learns from.
    machine_procs : int or None
        ``--machine-procs``.
    kept : bool, default False
        Whether ``jobs`` are the jobs of the log the command kept (those it can
        simulate), not the whole log: the warning then says so, as their
        schedule in the log may keep fewer processors busy than the whole log's.
    """
    from .._summary import busier_than_machine

    subject = (f"in the log, the {format_count(len(jobs), 'job')} kept "
               f"{'keeps' if len(jobs) == 1 else 'keep'}" if kept else "the log keeps")
    note = busier_than_machine(jobs, machine_procs, subject=subject)
    if note is not None:
        warnings.warn(note, UserWarning, stacklevel=2)


def with_machine_size(jobs, machine_procs):
    """``jobs`` with ``attrs["max_procs"]`` set to a ``--machine-procs`` given for a
    log (a copy; unchanged when it is None). The report and demo simulate the
    log on that machine and size WaitPredictor's capacity by it."""
    if machine_procs is None:
        return jobs
    jobs = jobs.copy()
    jobs.attrs["max_procs"] = int(machine_procs)
    return jobs
