"""The command line's parsers: one-line usage errors, the help layout, and the options
every command shares (``-o/--output``, ``--format``, ``--quiet``, deprecated spellings)."""

import argparse

from ._progress import print_warning

__all__ = ["ArgumentParser", "HelpFormatter", "add_command", "DeprecatedAlias",
           "add_output_options", "add_quiet_option"]


class ArgumentParser(argparse.ArgumentParser):
    """A parser whose usage errors are one line, like every other error of the
    command line: ``predictkit CMD: error: ...; see predictkit CMD --help``
    (argparse prints the whole usage synopsis first). Subcommand parsers
    inherit the class."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())}; "
                     f"see {self.prog} --help\n")


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` text that shows each option's default (and its choices).

    Options whose help already states the default, flags (``store_true``)
    and options without a default are left as written.
    """

    def _get_help_string(self, action):
        text = action.help or ""
        if ("%(default)" in text or "(default" in text
                or action.default in (None, argparse.SUPPRESS)
                or isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction))
                or not action.option_strings):
            return text
        return text + " (default: %(default)s)"


def add_command(subparsers, name, **kwargs):
    """Add the parser of subcommand ``name`` with the shared help layout."""
    kwargs.setdefault("formatter_class", HelpFormatter)
    return subparsers.add_parser(name, **kwargs)


class DeprecatedAlias(argparse.Action):
    """A hidden old spelling of an option: stores into the new option and warns once.

    Use as ``parser.add_argument("--n-procs", dest="machine_procs", type=int,
    action=DeprecatedAlias, new="--machine-procs")`` (hidden from ``--help``).
    """

    def __init__(self, option_strings, dest, *, new, **kwargs):
        self.new = new
        kwargs.setdefault("help", argparse.SUPPRESS)
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print_warning(parser.prog, f"{option_string} is deprecated; use {self.new}")
        setattr(namespace, self.dest, values)


def path_text(text):
    """``type=`` of every file or folder argument: the text, refused when empty (an empty
    name is no file; ``open`` would read it as the working folder, or an ``if`` as not given)."""
    if text == "":
        raise argparse.ArgumentTypeError("an empty name is no file; give a path")
    return text


def add_output_options(parser, *, formats=("swf", "csv", "json"), default=None, fallback=None):
    """Add ``-o/--output``, ``--format`` and ``--quiet`` to a subcommand parser.

    ``fallback``: the format written when the output's extension names none
    (the ``default`` of :func:`._output.output_format`), for the help text.
    """
    parser.add_argument("-o", "--output", metavar="PATH", type=path_text,
                        help="where to write the result ('-' for standard output)")
    otherwise = f", else {fallback}" if fallback else ""
    parser.add_argument("--format", choices=formats, default=default,
                        help=f"output format (default: from the file extension{otherwise})")
    add_quiet_option(parser)


def add_quiet_option(parser, still="the result still goes to -o, or without -o to standard "
                                   "output"):
    """Add ``-q/--quiet``: no progress lines or notes, but errors, warnings and the result
    (``still`` says where the result goes)."""
    parser.add_argument("-q", "--quiet", action="store_true",
                        help=f"print no progress lines or notes, only errors and warnings; "
                             f"{still}")
