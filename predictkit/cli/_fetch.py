"""``predictkit fetch NAME...``: download archive logs into the cache, or list them."""

import warnings
from pathlib import Path

import pandas as pd

from ..datasets import fetch_pwa, list_traces
from ..datasets._catalogue import lookup, matching_names
from ..datasets._fetch import data_home_path
from .._format import format_count, format_fixed
from ..exceptions import ConfigError, DatasetError
from ._checks import flag_names, os_errors
from ._parser import add_command, add_quiet_option, path_text
from ._progress import Progress

_LIST_COLUMNS = ("name", "machine", "processors", "jobs", "period")


def register(subparsers):
    parser = add_command(
        subparsers, "fetch", help="download Parallel Workloads Archive logs into the local cache",
        description="Download each named log from the Parallel Workloads Archive into the "
                    "cache (--data-home, else $PREDICTKIT_DATA, else ~/.cache/predictkit), "
                    "verifying its length, that it is an SWF log, and, where the catalogue "
                    "knows them, its sha256 and job count; a download that fails a check "
                    "is not kept. "
                    "A log already in the cache is not downloaded again. Names may be "
                    "unambiguous prefixes such as KTH-SP2; --list shows them all.",
    )
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="catalogue name of a log (see --list)")
    parser.add_argument("--data-home", metavar="DIR", type=path_text,
                        help="cache directory (default: $PREDICTKIT_DATA or ~/.cache/predictkit)")
    parser.add_argument("--list", action="store_true",
                        help="print the catalogue of known logs and exit; with names, only "
                             "the logs they name (a prefix such as LLNL lists every log it "
                             "starts)")
    add_quiet_option(parser, "the logs are still downloaded")
    parser.set_defaults(func=run)


def _text_table(table):
    """Left-aligned text, right-aligned numbers, blanks for unknown values."""
    cells = {c: ["" if pd.isna(v) else format_fixed(v) for v in table[c]]
             for c in table.columns}
    numeric = {c: pd.api.types.is_numeric_dtype(table[c]) for c in table.columns}
    widths = {c: max([len(c), *map(len, cells[c])]) for c in table.columns}

    def line(values):
        return "  ".join(v.rjust(widths[c]) if numeric[c] else v.ljust(widths[c])
                         for c, v in zip(table.columns, values)).rstrip()

    rows = [line(table.columns)]
    rows += [line([cells[c][k] for c in table.columns]) for k in range(len(table))]
    return "\n".join(rows)


def _check_data_home(data_home):
    """Refuse a cache location that is a file, or lies under one, naming where it came from."""
    import os

    path = data_home_path(data_home)
    where = ("--data-home" if data_home is not None
             else "$PREDICTKIT_DATA" if os.environ.get("PREDICTKIT_DATA") else "the cache")
    for folder in (path, *path.parents):
        if folder.exists():
            if not folder.is_dir():
                raise ConfigError(f"{where} {path}: {folder} is a file, not a folder")
            break
    return where


def _listed(catalogue, names):
    """The catalogue rows that the names stand for (all rows when no name is given)."""
    if not names:
        return catalogue
    every = catalogue["name"].tolist()
    wanted = set()
    for name in names:
        found = matching_names(name, every)
        if not found:
            with flag_names({}):
                lookup(name)  # raises, with the closest names
        wanted.update(found)
    return catalogue[catalogue["name"].isin(wanted)]


def run(args):
    progress = Progress("fetch", quiet=args.quiet)
    if args.list:
        table = _listed(list_traces(), args.names)
        print(_text_table(table.loc[:, list(_LIST_COLUMNS)]))
        print(f"\n{format_count(len(table), 'log')}; downloadable from "
              f"{table['url'].ne('').sum()} archive URLs; cache: "
              f"{data_home_path(args.data_home)}")
        return 0
    if not args.names:
        raise DatasetError("name at least one log to fetch (predictkit fetch NAME), or list "
                           "them with predictkit fetch --list")
    where = _check_data_home(args.data_home)
    for name in args.names:
        if not Path(name).is_file():
            with flag_names({}):
                lookup(name)
    home = data_home_path(args.data_home)
    for name in args.names:
        # the settings of a fetch are the name and the cache, both in its progress line
        with flag_names({}), os_errors(where, home), progress.step(
                f"fetched {name} (cache: {home})"):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                jobs = fetch_pwa(name, data_home=args.data_home)
        for warning in caught:  # after the progress line of the fetch they concern
            warnings.showwarning(warning.message, warning.category, warning.filename,
                                 warning.lineno)
        print(f"{name}: {format_count(len(jobs), 'job')} in {jobs.attrs['source']}")
    return 0
