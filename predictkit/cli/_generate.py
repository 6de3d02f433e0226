"""``predictkit generate``: synthetic workloads, or synthetic estimates for a real log."""


from .._time import parse_duration
from ..exceptions import ConfigError
from ..workload import make_workload
from ._checks import check_positive, check_procs, check_seed, flag_names, os_errors
from ._common import (DeprecatedAlias, Progress, add_command, add_output_options, output_format,
                      read_trace_arg, write_swf_output, write_table)

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
    parser.add_argument("--jobs", type=int, default=10_000, metavar="N",
                        help="number of synthetic jobs")
    parser.add_argument("--machine-procs", type=int, default=128, metavar="P",
                        help="processors of the synthetic machine")
    parser.add_argument("--n-procs", "--procs", type=int, dest="machine_procs",
                        action=DeprecatedAlias, new="--machine-procs")
    parser.add_argument("--tmax", default=None, metavar="DURATION",
                        help="maximal estimate, e.g. 18h (synthetic default 18h; with "
                             "--estimates-for, learned from the log when omitted)")
    parser.add_argument("--pmax", type=float, default=None, metavar="PERCENT",
                        help="percent of jobs estimating tmax, in [0, 100] (default: the model's, "
                             "about 22); jobs no shorter estimate covers get tmax anyway")
    parser.add_argument("--load", type=float, default=0.7,
                        help="offered load of every week of the synthetic workload "
                             "(default: 0.7)")
    parser.add_argument("--site", default=None, metavar="LOG",
                        help="fit the runtimes and requests of the synthetic workload to this "
                             "log (SWF or sacct) instead of the built-in site")
    parser.add_argument("--seed", type=int, default=None,
                        help="random seed (default: fresh randomness on each run, as "
                             "make_workload(random_state=None))")
    from ._common import add_log_argument
    add_log_argument(parser, dest="estimates_for", flag="--estimates-for",
                     help="the log whose estimates to replace")
    parser.add_argument("--model", choices=MODELS, default="tsafrir",
                        help="estimate model for --estimates-for: tsafrir (modal model fitted "
                             "to the log), joint (requests chosen from the runtime, user and "
                             "session, fitted to the log: by default from the user's own "
                             "requests of the time), fmodel, phi, x2 (doubled), shuffle, "
                             "sessions (modal model with session-aware assignment)")
    parser.add_argument("--padding-only", action="store_true",
                        help="with --model joint: draw every request from the log's paddings "
                             "per runtime bin, not from its users' own requests")
    parser.add_argument("--f", type=float, default=1.0, dest="f",
                        help="f of the f-model")
    parser.add_argument("--fit-modes", type=int, default=3, metavar="K",
                        help="popular estimates of the log the modal model keeps besides "
                             "tmax (0 = vanilla)")
    parser.add_argument("--truncate", action="store_true",
                        help="cap runtimes above the longest estimate at it (default: leave "
                             "those jobs out, and say so)")
    add_output_options(parser, formats=("swf", "csv", "batsim"))
    parser.set_defaults(func=run)


def _model(args):
    from ..workload import (DoubledEstimates, FModel, JointEstimates, PhiModel,
                            ShuffledEstimates, TsafrirEstimates)

    if args.model == "joint":
        return JointEstimates(t_max=args.tmax, truncate=args.truncate,
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


def _clean_source(args, source, progress):
    """The jobs of the log the model can give estimates to, saying what was left out."""
    from ..jobs import clean_jobs, describe_cleaning

    kept = clean_jobs(source, for_simulation=True, require_request=args.model == "shuffle")
    if describe_cleaning(kept):
        progress.say(f"left out {describe_cleaning(kept)} "
                     f"(of {len(source):,} jobs in {args.estimates_for})")
    if not len(kept):
        raise ConfigError(f"--estimates-for {args.estimates_for}: no job has a known "
                          "runtime, submit time and width")
    return kept


def _longest_estimate(args, model, jobs):
    """The largest estimate the model can give (runtimes above it cannot be covered)."""
    if args.model in ("tsafrir", "sessions"):
        return model.t_max_ if hasattr(model, "t_max_") else parse_duration(args.tmax)
    if args.model == "joint":
        return model.largest_request(len(jobs))
    if args.model == "shuffle":
        return float(jobs["req_time"].max())
    return None


def _estimate(args, source, progress):
    """Replace the requests of ``source``; the modal model learns from the known ones."""
    model = _model(args)
    source = _clean_source(args, source, progress)
    if args.model in ("tsafrir", "sessions", "joint") and (args.tmax is None
                                                           or args.model == "joint"):
        known = source["req_time"].notna() if "req_time" in source.columns else None
        if (known is None or not known.any()) and args.model == "joint":
            raise ConfigError(f"--model joint: --estimates-for {args.estimates_for} has no "
                              "requested times to learn from; use --model tsafrir with --tmax")
        if known is None or not known.any():
            raise ConfigError("the log has no requested times to learn t_max from; "
                              "give --tmax (e.g. --tmax 18h)")
        if not known.all():
            progress.say(f"learning the estimate model from the {int(known.sum()):,} of "
                         f"{len(source):,} jobs that have a requested time")
        learned = {**_FLAGS, "t_max": "the maximal estimate learned from the log's longest "
                                      "request (--tmax sets it)"}
        with flag_names(learned):
            model.fit(source[known])
    longest = _longest_estimate(args, model, source)
    if longest is not None and not args.truncate:
        over = source["run_time"].to_numpy(dtype=float) > longest
        if over.all():
            raise ConfigError(f"every job ran longer than the longest estimate ({longest:g} s); "
                              "raise --tmax or give --truncate")
        if over.any():
            progress.say(f"left out {int(over.sum()):,} jobs that ran longer than the longest "
                         f"estimate ({longest:g} s); --truncate keeps them with runtimes "
                         "capped at it, --tmax raises it")
            attrs = dict(source.attrs)
            source = source.loc[~over].reset_index(drop=True)
            source.attrs = attrs
    with flag_names(_FLAGS):
        return model.transform(source)


_FLAGS = {"n_jobs": "--jobs", "machine_procs": "--machine-procs", "t_max": "--tmax", "p_max": "--pmax",
          "load": "--load", "n_fit_modes": "--fit-modes", "random_state": "--seed",
          "site": "--site"}
"""Parameters of the workload models and the flags that set them."""


def _fit_site(args, progress):
    """The site model of ``--site LOG``: runtimes and requests fitted to the log."""
    from ..jobs import clean_jobs
    from ..workload import SiteModel

    with progress.step(lambda: f"read {len(log):,} jobs from {args.site}"):
        log = read_trace_arg(args.site)
    kept = clean_jobs(log, for_simulation=True, require_request=True)
    if not len(kept):
        raise ConfigError(f"--site {args.site}: no job has a known runtime, width and "
                          "requested time to fit the site to")
    with progress.step(f"fitted the site to {len(kept):,} jobs with a request"):
        return SiteModel(random_state=args.seed).fit(kept)


def _check_args(args):
    """Refuse bad values before any work, each naming its flag."""
    if not args.output:
        raise ConfigError("give the output file with -o/--output (e.g. -o synth.swf)")
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
        raise ConfigError(f"--pmax is a percent and must be in [0, 100], got {args.pmax:g}")
    if args.load is not None and not 0 < args.load < float("inf"):
        raise ConfigError(f"--load must be a positive number, got {args.load:g}")
    if not 0 <= args.f < float("inf"):
        raise ConfigError(f"--f must be a number >= 0, got {args.f:g}")
    check_positive(args.fit_modes, "--fit-modes", allow_zero=True)
    if args.padding_only and (args.estimates_for is None or args.model != "joint"):
        raise ConfigError("--padding-only applies to --estimates-for with --model joint")
    with flag_names(_FLAGS):
        if args.tmax is not None and (args.estimates_for is None
                                      or args.model in ("tsafrir", "sessions", "joint")):
            from ..workload import TsafrirEstimates

            TsafrirEstimates._check_t_max(args.tmax)
        if args.estimates_for is not None:
            check_params = getattr(_model(args), "_check_params", None)
            if check_params is not None:
                check_params()
    if args.site is not None and args.estimates_for is not None:
        raise ConfigError("--site fits a synthetic workload; it cannot be combined with "
                          "--estimates-for")
    fmt = args.format
    if fmt is None and str(args.output).lower().endswith(".json"):
        fmt = "batsim"  # Batsim workloads are JSON
    return output_format(args.output, fmt, ("swf", "csv", "batsim"), default="swf")


def run(args):
    fmt = _check_args(args)
    progress = Progress("generate", quiet=args.quiet)
    if args.estimates_for is None:
        progress.settings(jobs=args.jobs, machine_procs=args.machine_procs, tmax=args.tmax or "18h",
                          pmax=args.pmax, load=args.load, site=args.site, seed=args.seed)
        site = _fit_site(args, progress) if args.site is not None else None
        with flag_names(_FLAGS), progress.step(f"generated {args.jobs:,} jobs"):
            jobs = make_workload(args.jobs, machine_procs=args.machine_procs, random_state=args.seed,
                                 t_max=args.tmax, p_max=args.pmax, load=args.load, site=site)
        comments = []
    else:
        progress.settings(estimates_for=args.estimates_for, model=args.model,
                          tmax=args.tmax or "from the log",
                          pmax=args.pmax, fit_modes=args.fit_modes, f=args.f,
                          truncate=args.truncate, seed=args.seed)
        with progress.step(lambda: f"read {len(source):,} jobs from {args.estimates_for}"):
            source = read_trace_arg(args.estimates_for)
        with progress.step(lambda: f"gave {len(jobs):,} jobs {args.model} estimates"):
            jobs = _estimate(args, source, progress)
        comments = [f"requested times replaced by the {args.model} estimate model (predictkit)"]
    where = "standard output" if args.output == "-" else args.output
    with progress.step(f"wrote {len(jobs):,} jobs to {where}"):
        if fmt == "csv":
            with os_errors("-o", args.output):
                write_table(jobs, args.output, "csv")
        elif fmt == "batsim":
            from ..io import write_batsim

            with os_errors("-o", args.output):
                write_batsim(jobs, args.output)
        else:
            write_swf_output(jobs, args.output, comments=comments)
    return 0
