"""``predictkit generate``: synthetic workloads, or synthetic estimates for a real log."""


import numpy as np
import pandas as pd

from .._format import format_count, format_given
from .._table import rows_where
from .._time import parse_duration
from ..exceptions import ConfigError
from ..workload import make_workload
from ..workload._synthetic import DEFAULT_LOAD, DEFAULT_MACHINE_PROCS
from ._checks import (check_load, check_positive, check_procs, check_seed, flag_names, is_given,
                      os_errors, refuse_inapplicable)
from ._logs import (StoreLog, add_log_argument, read_done, read_trace_arg, refuse_log_options,
                    source_name)
from ._machine import warn_busier_than_machine
from ._output import output_format, write_swf_output, write_table
from ._parser import DeprecatedAlias, add_command, add_output_options, path_text
from ._progress import Progress

MAX_TMAX = 3650 * 86400
"""Longest --tmax accepted (ten years; real limits are days or weeks)."""

MODELS = ("tsafrir", "joint", "fmodel", "phi", "x2", "shuffle", "sessions")


def register(subparsers):
    parser = add_command(
        subparsers, "generate", help="write a synthetic workload, or replace a log's estimates",
        description=(
            "Without --estimates-for: generate a synthetic workload (Lublin & Feitelson "
            "2003 arrivals and sizes with users, sessions, runtimes and joint requests of "
            "a realistic built-in site, or of the log given with --site, at an offered "
            "load of 0.7 per week) and write it as SWF, CSV or Batsim JSON. With "
            "--estimates-for TRACE: replace the requested times of a real log with a "
            "model's estimates (SWF output drops the original requests; CSV output keeps "
            "them in orig_req_time)."),
    )
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="number of synthetic jobs (default: 10000)")
    parser.add_argument("--machine-procs", type=int, default=None, metavar="P",
                        help="processors of the synthetic machine (default: 128; with --site, "
                             "the machine of the site's log)")
    parser.add_argument("--n-procs", "--procs", type=int, dest="machine_procs",
                        action=DeprecatedAlias, new="--machine-procs")
    parser.add_argument("--tmax", default=None, metavar="DURATION",
                        help="maximal estimate, e.g. 18h (synthetic default 18h, with --site "
                             "the log's longest request; with --estimates-for, learned from "
                             "the log when omitted; given, the log's longer requests become "
                             "it and runtimes up to it are kept)")
    parser.add_argument("--pmax", type=float, default=None, metavar="PERCENT",
                        help="percent of jobs estimating tmax, in [0, 100], with --model "
                             "tsafrir or sessions (default: the log's share, or about 22 for "
                             "a synthetic workload); jobs no shorter estimate covers get tmax "
                             "anyway, so a synthetic workload's share is at least theirs "
                             "(about 9-15%%, which a lower value does not change)")
    parser.add_argument("--load", type=float, default=None,
                        help="offered load of every week of the synthetic workload "
                             "(default: 0.7)")
    parser.add_argument("--site", default=None, metavar="LOG", action=StoreLog, type=path_text,
                        help="fit the runtimes and requests of the synthetic workload to this "
                             "log (SWF or sacct) instead of the built-in site")
    parser.add_argument("--seed", type=int, default=None,
                        help="random seed (default: fresh randomness on each run, as "
                             "make_workload(random_state=None))")
    add_log_argument(parser, dest="estimates_for", flag="--estimates-for",
                     help="the log whose estimates to replace")
    parser.add_argument("--model", choices=MODELS, default=None,
                        help="requests of a synthetic workload: joint (default: each request "
                             "drawn from the job's runtime, user and session) or tsafrir (the "
                             "modal model, whose share at tmax --pmax sets); "
                             "estimate model for --estimates-for (default: tsafrir): tsafrir "
                             "(modal model fitted "
                             "to the log), joint (requests chosen from the runtime, user and "
                             "session, fitted to the log: by default from the user's own "
                             "requests of the time), fmodel, phi, x2 (doubled), shuffle, "
                             "sessions (modal model with session-aware assignment)")
    parser.add_argument("--padding-only", action="store_true",
                        help="with --model joint: draw every request from the log's paddings "
                             "per runtime bin, not from its users' own requests")
    parser.add_argument("--f", type=float, default=None, dest="f",
                        help="f of the f-model (default: 1)")
    parser.add_argument("--fit-modes", type=int, default=None, metavar="K",
                        help="popular estimates of the log the modal model keeps besides "
                             "tmax (0 = vanilla; default: 3)")
    parser.add_argument("--truncate", action="store_true",
                        help="cap runtimes above the longest estimate at it, as jobs killed "
                             "at their limit (status 0) (default: leave those jobs out, and "
                             "say so)")
    parser.add_argument("--min-delay", type=float, default=None, metavar="SECONDS",
                        help="Batsim output: write runtimes below SECONDS as that delay "
                             "(Batsim refuses a delay of 0; default: refuse jobs that ran "
                             "0 s, naming the first)")
    add_output_options(parser, formats=("swf", "csv", "batsim"), fallback="swf (.json: batsim)")
    parser.set_defaults(func=run)


_DEFAULTS = {"jobs": 10_000, "machine_procs": DEFAULT_MACHINE_PROCS, "load": DEFAULT_LOAD,
             "model": "tsafrir", "f": 1.0, "fit_modes": 3}
"""Defaults of the options whose use is checked (they default to None on the parser)."""

_SYNTHETIC_ONLY = (("jobs", "--jobs"), ("machine_procs", "--machine-procs"),
                   ("load", "--load"))
_ESTIMATES_ONLY = (("f", "--f"), ("fit_modes", "--fit-modes"),
                   ("truncate", "--truncate"), ("padding_only", "--padding-only"))
_SYNTHETIC_MODELS = {"joint": "joint", "tsafrir": "modal"}
"""The request models of a synthetic workload (--model) and make_workload's names for them."""
_MODEL_OPTIONS = (
    ("tmax", "--tmax", ("tsafrir", "sessions", "joint", "phi")),
    ("pmax", "--pmax", ("tsafrir", "sessions", "joint")),
    ("f", "--f", ("fmodel",)),
    ("fit_modes", "--fit-modes", ("tsafrir", "sessions")),
    ("truncate", "--truncate", ("tsafrir", "sessions", "joint", "shuffle")),
    ("padding_only", "--padding-only", ("joint",)),
)
"""Options of --estimates-for and the models that use them; the others would ignore them."""


def _refuse_unused_options(args):
    """Refuse an option the chosen mode would ignore, naming it and where it applies."""
    refuse_log_options(args, args.estimates_for is not None or args.site is not None,
                       "--estimates-for or --site")
    if args.estimates_for is None:
        for dest, flag in _ESTIMATES_ONLY:
            if is_given(args, dest):
                raise ConfigError(f"{flag} applies to --estimates-for (new requests for a real "
                                  "log); a synthetic workload takes its requests from its site")
        if args.model is not None and args.model not in _SYNTHETIC_MODELS:
            raise ConfigError(f"--model {args.model} applies to --estimates-for; a synthetic "
                              f"workload's requests come from --model joint (default) or "
                              f"tsafrir")
        if args.site is not None and args.model is not None:
            raise ConfigError(f"--model sets the built-in site's requests; --site {args.site} "
                              "takes the log's requests (--tmax caps them)")
        if args.pmax is not None and args.model != "tsafrir":
            raise ConfigError(
                "--pmax sets the share of jobs at tmax of --model tsafrir (the modal model); "
                + (f"--site {args.site} takes the log's requests (--tmax caps them)"
                   if args.site is not None else
                   "the joint model (the default) draws each request from the job's runtime, "
                   "which sets that share"))
        return
    if args.site is not None:
        raise ConfigError("--site fits a synthetic workload; it cannot be combined with "
                          "--estimates-for")
    for dest, flag in _SYNTHETIC_ONLY:
        if is_given(args, dest):
            raise ConfigError(f"{flag} applies to synthetic workloads; --estimates-for keeps "
                              f"the jobs of {args.estimates_for}")
    refuse_inapplicable(args, _MODEL_OPTIONS, args.model or _DEFAULTS["model"], "--model")


def _model(args):
    from ..workload import (DoubledEstimates, FModel, JointEstimates, PhiModel,
                            ShuffledEstimates, TsafrirEstimates)

    if args.model == "joint":
        return JointEstimates(t_max=args.tmax, p_max=args.pmax, truncate=args.truncate,
                              user_requests=not args.padding_only, random_state=args.seed)
    if args.model in ("tsafrir", "sessions"):
        return TsafrirEstimates(
            t_max=args.tmax, p_max=args.pmax, n_fit_modes=args.fit_modes,
            assignment="sessions" if args.model == "sessions" else "shuffle",
            truncate=args.truncate, random_state=args.seed)
    if args.model == "fmodel":
        return FModel(f=args.f, random_state=args.seed)
    if args.model == "phi":
        kwargs = {"t_max": args.tmax} if args.tmax is not None else {}
        return PhiModel(random_state=args.seed, **kwargs)
    if args.model == "x2":
        return DoubledEstimates()
    return ShuffledEstimates(truncate=args.truncate, random_state=args.seed)


def _work_share(jobs, mask):
    """Share of the processor-seconds of ``jobs`` held by the jobs in ``mask``, as text."""
    work = (jobs["run_time"].to_numpy(dtype=float)
            * jobs["n_procs"].to_numpy(dtype=float)) if "n_procs" in jobs.columns else None
    if work is None or not np.nansum(work) > 0:
        return f"{mask.mean():.1%} of the jobs"
    return (f"{mask.mean():.1%} of the jobs, {np.nansum(work[mask]) / np.nansum(work):.1%} of "
            "the processor-seconds")


def _clean_source(args, source, note):
    """The jobs of the log the model can give estimates to, saying what was left out."""
    from ..jobs import clean_jobs, describe_cleaning

    needs_request = args.model in ("shuffle", "x2")
    kept = clean_jobs(source, for_simulation=True, require_request=needs_request)
    if describe_cleaning(kept):
        note(f"left out {describe_cleaning(kept)} "
             f"(of {format_count(len(source), 'job')} in {args.estimates_for})", warn=True)
    if not len(kept):
        needed = "runtime, submit time, width" + (" and request" if needs_request else "")
        raise ConfigError(f"--estimates-for {args.estimates_for}: no job has a known "
                          f"{needed} (--model {args.model} needs them)")
    return kept


def _fit_to_requests(args, model, source, note):
    """Fit the modal or joint model to the log's requests (or refuse what cannot be done)."""
    log = args.estimates_for
    known = (source["req_time"].notna() & (source["req_time"] > 0)
             if "req_time" in source.columns else pd.Series(False, index=source.index))
    if not known.any():
        if args.tmax is None:
            raise ConfigError(f"--estimates-for {log}: the log has no requested times to learn "
                              f"the {args.model} model from; give --tmax (e.g. --tmax 18h) for "
                              "its built-in settings")
        if "fit_modes" in args.given:
            raise ConfigError(f"--fit-modes takes popular requests of the log, and {log} has "
                              "none; leave it out (the vanilla modal model)")
        note(f"{log} has no requested times: the {args.model} model's built-in "
             f"settings with --tmax {args.tmax}")
        return
    if args.model == "joint" and args.pmax is not None:
        raise ConfigError(f"--pmax sets the built-in modal requests; --model joint fitted to "
                          f"{log} takes every request share from the log")
    if not known.all():
        note(f"learning the estimate model from the {int(known.sum()):,} of "
             f"{format_count(len(source), 'job')} that have a requested time")
    modal = args.model in ("tsafrir", "sessions")
    learned = {**_FLAGS, "t_max": "the maximal estimate learned from the log's longest "
                                  "request (--tmax sets it" + (
                                      "; --model joint takes a shorter one" if modal else "")
                                  + ")"}
    with flag_names(learned):
        model.fit(source[known])


def _longest_estimate(args, model, jobs):
    """The largest estimate the model can give (runtimes above it cannot be covered)."""
    if args.model in ("tsafrir", "sessions"):
        return model.t_max_ if hasattr(model, "t_max_") else parse_duration(args.tmax)
    if args.model == "joint":
        return model.largest_request(len(jobs))
    if args.model == "shuffle":
        return float(jobs["req_time"].max())
    return None


def _estimate(args, source, note):
    """Replace the requests of ``source``; the modal and joint models learn from the known ones.

    ``note(text, warn=False)`` reports each change to the log's jobs (the
    command prints it, as a warning that ``--quiet`` keeps when ``warn``:
    a job left out or a value changed, and writes it into the SWF header).
    """
    model = _model(args)
    source = _clean_source(args, source, note)
    if args.model in ("tsafrir", "sessions", "joint"):
        _fit_to_requests(args, model, source, note)
    longest = _longest_estimate(args, model, source)
    over = (source["run_time"].to_numpy(dtype=float) > longest if longest is not None
            else np.zeros(len(source), dtype=bool))
    if over.any() and not args.truncate:
        if over.all():
            raise ConfigError(f"every job ran longer than the longest estimate ({longest:g} s); "
                              "raise --tmax or give --truncate")
        note(f"left out {format_count(int(over.sum()), 'job')} ({_work_share(source, over)}) that "
             f"ran longer than the longest estimate ({longest:g} s); --truncate keeps "
             "them with runtimes capped at it"
             + (", --tmax raises it" if "tmax" in _options_of(args.model) else ""), warn=True)
        source = rows_where(source, ~over).reset_index(drop=True)
    elif over.any():
        note(f"capped the runtimes of {format_count(int(over.sum()), 'job')} "
             f"({_work_share(source, over)}) at the longest estimate ({longest:g} s), "
             "as killed at their limit (status 0)", warn=True)
    with flag_names(_FLAGS):
        jobs = model.transform(source)
    return _whole_seconds(jobs, note)


def _options_of(model):
    return {dest for dest, _, models in _MODEL_OPTIONS if model in models}


def _whole_seconds(jobs, note):
    """Requests rounded up to whole seconds, as schedulers and SWF take them."""
    requests = jobs["req_time"].to_numpy(dtype=float)
    whole = np.ceil(requests)
    fractional = np.isfinite(requests) & (whole != requests)
    if fractional.any():
        note(f"rounded {format_count(int(fractional.sum()), 'fractional request')} up to whole "
             "seconds", warn=True)
        jobs = jobs.copy()
        jobs["req_time"] = whole
    return jobs


_FLAGS = {"n_jobs": "--jobs", "machine_procs": "--machine-procs", "t_max": "--tmax", "p_max": "--pmax",
          "load": "--load", "n_fit_modes": "--fit-modes", "random_state": "--seed",
          "site": "--site"}
"""Parameters of the workload models and the flags that set them."""


def _fit_site(args, progress):
    """The site model of ``--site LOG``: runtimes, requests and sessions fitted to the log."""
    from ..jobs import clean_jobs, describe_cleaning
    from ..workload import SiteModel

    with progress.step(lambda: read_done(log, args.site)):
        log = read_trace_arg(args.site)
    kept = clean_jobs(log, for_simulation=True, require_request=True)
    if describe_cleaning(kept):
        progress.left_out(f"{describe_cleaning(kept)} (of {format_count(len(log), 'job')} "
                          f"in {args.site})")
    if not len(kept):
        raise ConfigError(f"--site {args.site}: no job has a known runtime, width and "
                          "requested time to fit the site to")
    warn_busier_than_machine(kept, args.machine_procs if "machine_procs" in args.given else None,
                             kept=True)
    with progress.step(f"fitted the site to {format_count(len(kept), 'job')} with a runtime, "
                       "width and request (runtimes, requests and its users' sessions)"):
        return SiteModel(random_state=args.seed).fit(kept)


def _check_args(args):
    """Refuse bad values before any work, each naming its flag."""
    if not args.output:
        raise ConfigError("give the output file with -o/--output (e.g. -o synth.swf)")
    _refuse_unused_options(args)
    args.synthetic_model = args.model or "joint"  # before --model gets its default below
    args.given = {dest for dest in _DEFAULTS if getattr(args, dest) is not None}
    for dest, default in _DEFAULTS.items():
        if getattr(args, dest) is None:
            setattr(args, dest, default)
    check_positive(args.jobs, "--jobs")
    if args.estimates_for is None:
        from ..workload._synthetic import _check_memory

        with flag_names(_FLAGS):
            _check_memory(args.jobs)
    check_procs(args.machine_procs)
    check_seed(args.seed)
    if args.tmax is not None and parse_duration(args.tmax, name="--tmax") > MAX_TMAX:
        raise ConfigError(f"--tmax must be at most {MAX_TMAX // 86400:,} days, got {args.tmax}")
    if args.pmax is not None and not 0 <= args.pmax <= 100:
        raise ConfigError(f"--pmax is a percent and must be in [0, 100], got {format_given(args.pmax)}")
    if args.load is not None:
        check_load(args.load)
    if not 0 <= args.f < float("inf"):
        raise ConfigError(f"--f must be a number >= 0, got {format_given(args.f)}")
    check_positive(args.fit_modes, "--fit-modes", allow_zero=True)
    with flag_names(_FLAGS):
        if args.tmax is not None and (args.estimates_for is None
                                      or args.model in ("tsafrir", "sessions", "joint")):
            from ..workload import TsafrirEstimates

            TsafrirEstimates._check_t_max(args.tmax)
        if args.estimates_for is not None:
            check_params = getattr(_model(args), "_check_params", None)
            if check_params is not None:
                check_params()
    fmt = output_format(args.output, args.format, ("swf", "csv", "batsim"), default="swf",
                        extensions={"batsim": "json"})  # Batsim workloads are JSON
    if args.min_delay is not None:
        if fmt != "batsim":
            raise ConfigError(f"--min-delay is for Batsim output; this output is {fmt}")
        if not 0 < args.min_delay < float("inf"):
            raise ConfigError(f"--min-delay must be a positive number of seconds, got "
                              f"{format_given(args.min_delay)}")
    return fmt


def _settings(args):
    """The settings in effect, only those the chosen mode uses."""
    if args.estimates_for is None:
        tmax = args.tmax or ("the site's longest request" if args.site else "18h")
        machine = ("the site's" if args.site and "machine_procs" not in args.given
                   else args.machine_procs)
        settings = dict(jobs=args.jobs, machine_procs=machine, tmax=tmax)
        if args.site is None:
            settings["model"] = args.synthetic_model
        if args.synthetic_model == "tsafrir":
            settings["pmax"] = args.pmax
        return {**settings, "load": args.load, "site": args.site, "seed": args.seed}
    used = _options_of(args.model)
    settings = dict(estimates_for=args.estimates_for, model=args.model)
    for dest, value in (("tmax", args.tmax or "from the log"), ("pmax", args.pmax),
                        ("fit_modes", args.fit_modes), ("f", args.f),
                        ("truncate", args.truncate), ("padding_only", args.padding_only)):
        if dest in used:
            settings[dest] = value
    return {**settings, "seed": args.seed}


def run(args):
    fmt = _check_args(args)
    progress = Progress("generate", quiet=args.quiet)
    progress.settings(**_settings(args))
    if args.estimates_for is None:
        site = _fit_site(args, progress) if args.site is not None else None
        machine, done = args.machine_procs, f"generated {format_count(args.jobs, 'job')}"
        if site is not None and "machine_procs" not in args.given:
            machine = site.machine_procs_  # the fitted log's machine
            done += f" for its machine of {format_count(machine, 'processor')}"
        with flag_names(_FLAGS), progress.step(done):
            jobs = make_workload(args.jobs, machine_procs=machine, random_state=args.seed,
                                 t_max=args.tmax, p_max=args.pmax, load=args.load, site=site,
                                 estimates=_SYNTHETIC_MODELS[args.synthetic_model])
        comments = []
    else:
        with progress.step(lambda: read_done(source, args.estimates_for)):
            source = read_trace_arg(args.estimates_for)
        comments = [f"requested times replaced by the {args.model} estimate model (predictkit)"]

        def note(text, *, warn=False):
            (progress.warn if warn else progress.say)(text)
            comments.append(text)

        with progress.step(
                lambda: f"gave {format_count(len(jobs), 'job')} {args.model} estimates"):
            jobs = _estimate(args, source, note)
    wrote = f"wrote {format_count(len(jobs), 'job')} to {source_name(args.output, 'output')}"
    with progress.step(wrote):
        if fmt == "csv":
            with os_errors("-o", args.output):
                write_table(jobs, args.output, "csv")
        elif fmt == "batsim":
            from ..io import write_batsim

            with os_errors("-o", args.output):
                write_batsim(jobs, args.output, min_delay=args.min_delay)
            if args.min_delay is not None:
                raised = int((jobs["run_time"] < args.min_delay).sum())
                if raised:
                    progress.warn(f"{format_count(raised, 'job')} that ran less than "
                                  f"{args.min_delay:g} s written with a delay of "
                                  f"{args.min_delay:g} s (--min-delay)")
        else:
            write_swf_output(jobs, args.output, comments=comments)
    return 0

