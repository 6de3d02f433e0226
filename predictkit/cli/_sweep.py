"""``predictkit sweep GRID -o results.csv``: a declarative parameter sweep, local or on Dask."""

import sys
import warnings
from pathlib import Path

from .._format import format_count
from .._time import format_duration
from ..exceptions import ConfigError
from ..experiments import (cell_key, check_cells, evaluate_cell, expand_grid, load_grid,
                           run_grid)
from ..experiments._grid import STDIN_NAME
from ..experiments._runner import BACKENDS
from ._checks import refuse_inapplicable
from ._output import result_stream, write_table
from ._parser import DeprecatedAlias, add_command, add_quiet_option, path_text
from ._progress import Progress, one_line_warning


def register(subparsers):
    parser = add_command(
        subparsers,
        "sweep", help="run a grid of traces x predictors x parameters x policies x priorities",
        description=(
            "Run every cell of a grid file (TOML or YAML: traces, predictors with "
            "parameter lists, policies, priorities, options) and write one tidy table. "
            "Finished cells are kept beside the table and not recomputed when the sweep "
            "is run again, unless their trace file has changed (cells are keyed on the "
            "configuration and on the trace's size, modification time and first and last "
            "MiB). Every value is checked before the first cell runs, an option that no "
            "cell uses is refused, and each trace file is read once to check that it has "
            "usable jobs (a size, a runtime and a requested time). The same grid runs "
            "in-process, on local cores (--backend loky) or on a Dask cluster "
            "(--scheduler tcp://host:8786). Progress goes to stderr: a bar on a terminal, "
            "else one line per cell with the elapsed time."),
    )
    parser.add_argument("grid", metavar="GRID", type=path_text,
                        help="grid file (.toml, .yaml or .yml); '-' reads a TOML grid from "
                             "standard input. Relative trace paths in a grid file are taken "
                             "from the grid file's folder (from standard input: the working "
                             "folder)")
    parser.add_argument("-o", "--output", required=True, type=path_text,
                        help="results table (.csv or .parquet; '-', a FIFO or a device get "
                             "CSV and keep no finished cells)")
    parser.add_argument("--backend", choices=["serial"] + [b for b in BACKENDS if b],
                        help="where cells run (default: serial, in-process; dask with "
                             "--scheduler)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="Dask scheduler address, e.g. tcp://host:8786 (implies dask)")
    parser.add_argument("--workers", type=int, dest="workers",
                        help="local workers for --backend loky or threading (default 2)")
    parser.add_argument("--n-jobs", type=int, dest="workers", action=DeprecatedAlias,
                        new="--workers")
    add_quiet_option(parser, "the table still goes to -o")
    parser.set_defaults(func=run)


def _describe(row):
    params = " ".join(f"{k[6:]}={v}" for k, v in row.items() if k.startswith("param_"))
    parts = [row["predictor"], params, row.get("policy") or "", row.get("priority") or ""]
    trace = str(row["trace"]).rsplit("/", 1)[-1]
    return " ".join(p for p in parts if p) + f" on {trace}"


def _cell_lines(progress):
    """A ``run_grid`` callback: one progress line per finished cell (count, time, what)."""
    def report(state):
        if state.row is None:
            reused = f", {state.reused} reused from earlier runs" if state.reused else ""
            progress.say(f"{format_count(state.total, 'cell')} to compute{reused}")
        else:
            progress.say(f"cell {state.done}/{state.total} done, elapsed "
                         f"{format_duration(state.elapsed)}: {_describe(state.row)}")
    return report


def _check_backend(args):
    """Refuse --backend, --scheduler and --workers that would be ignored; set their defaults."""
    if args.scheduler and args.backend not in (None, "dask"):
        raise ConfigError(f"--scheduler runs the cells on Dask; it cannot be combined with "
                          f"--backend {args.backend}")
    if args.backend == "dask" and not args.scheduler:
        raise ConfigError("--backend dask needs --scheduler tcp://host:port")
    if args.workers is not None and args.workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {args.workers}")
    args.backend = args.backend or ("dask" if args.scheduler else "serial")
    refuse_inapplicable(args, [("workers", "--workers", ("loky", "threading"))], args.backend,
                        "--backend")
    if args.workers is None:
        args.workers = 2


def _say_where_it_stopped(output, cells):
    """On an interruption: the table was not written, and what is kept to resume."""
    parts = Path(f"{output}.parts")
    keys = {cell_key(cell) for cell in cells}
    kept = sum(1 for file in parts.glob("*.json") if file.stem in keys) if parts.is_dir() else 0
    before = (f"{output} is an earlier table, not this grid's" if Path(output).exists()
              else f"{output} was not written")
    print(f"predictkit sweep: stopped: {before}; {kept:,} of {format_count(len(cells), 'cell')} "
          f"finished in {parts}: the same command computes the rest", file=sys.stderr)


def run(args):
    from .._atomic import is_stream, refuse_inputs
    from ..experiments._identity import cell_trace

    to_stdout = args.output == "-"
    streamed = is_stream(args.output)  # '-', a FIFO or a device: CSV, no finished cells kept
    if not streamed and not args.output.lower().endswith((".csv", ".parquet")):
        raise ConfigError(f"--output must end in .csv or .parquet (or be '-', a FIFO or a "
                          f"device), got {args.output!r}")
    _check_backend(args)
    source = STDIN_NAME if args.grid == "-" else args.grid
    cells = expand_grid(load_grid(args.grid), source=source)
    # the grid's traces are inputs too: -o must not write over one of them
    refuse_inputs(args.output, {cell_trace(cell) for cell in cells} - {None}, name="-o")
    if args.quiet:
        progress = False
    else:
        progress = True if sys.stderr.isatty() else _cell_lines(Progress("sweep"))
    with warnings.catch_warnings():
        # said as they come (a sweep may stop early), each once: the cells repeat them
        warnings.simplefilter("always")
        warnings.showwarning = one_line_warning("sweep", once=True)
        check_cells(cells, source=source)
        try:
            table = run_grid(cells, evaluate_cell, results=None if streamed else args.output,
                             backend=None if args.backend == "serial" else args.backend,
                             scheduler=args.scheduler, n_workers=args.workers,
                             progress=progress, source=source)
        except KeyboardInterrupt:
            if not streamed:
                _say_where_it_stopped(args.output, cells)
            raise
    if streamed:
        write_table(table, args.output, "csv")
    if not args.quiet:
        print(f"{format_count(len(table), 'cell')} -> "
              f"{'standard output' if to_stdout else args.output}",
              file=result_stream(args.output))
    return 0

