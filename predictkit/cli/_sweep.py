"""``predictkit sweep GRID -o results.csv``: a declarative parameter sweep, local or on Dask."""

import sys

from ..exceptions import ConfigError
from ..experiments import evaluate_cell, expand_grid, load_grid, run_grid
from ._common import result_stream, write_table


def register(subparsers):
    parser = subparsers.add_parser(
        "sweep", help="run a grid of traces x predictors x parameters x policies x priorities",
        description=(
            "Run every cell of a grid file (TOML or YAML: traces, predictors with "
            "parameter lists, policies, priorities, options) and write one tidy table. "
            "Finished cells are kept beside the table and not recomputed when the sweep "
            "is run again. The same grid runs in-process, on local cores (--backend loky) "
            "or on a Dask cluster (--scheduler tcp://host:8786)."),
    )
    parser.add_argument("grid", metavar="GRID", help="grid file (.toml, .yaml or .yml)")
    parser.add_argument("-o", "--output", required=True,
                        help="results table (.csv or .parquet; '-' prints CSV to standard "
                             "output and keeps no finished cells)")
    parser.add_argument("--backend", choices=("serial", "loky", "threading", "dask"),
                        default="serial", help="where cells run (default: serial, in-process)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="Dask scheduler address, e.g. tcp://host:8786 (implies dask)")
    parser.add_argument("--n-jobs", type=int, default=2, help="local workers (default 2)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    parser.set_defaults(func=run)


def run(args):
    to_stdout = args.output == "-"
    if not to_stdout and not args.output.endswith((".csv", ".parquet")):
        raise ConfigError(f"--output must end in .csv or .parquet, got {args.output!r}")
    if args.backend == "dask" and not args.scheduler:
        raise ConfigError("--backend dask needs --scheduler tcp://host:port")
    cells = expand_grid(load_grid(args.grid))
    backend = None if args.backend == "serial" else args.backend
    table = run_grid(cells, evaluate_cell, results=None if to_stdout else args.output,
                     backend=backend, scheduler=args.scheduler, n_jobs=args.n_jobs,
                     progress=not args.quiet and sys.stderr.isatty())
    if to_stdout:
        write_table(table, "-", "csv")
    if not args.quiet:
        print(f"{len(table)} cells -> {'standard output' if to_stdout else args.output}",
              file=result_stream(args.output))
    return 0
