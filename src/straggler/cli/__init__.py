"""The ``straggler`` command.

Every subcommand's ``--help`` ends with examples that run as they are on the default
study (``config/config.yaml``, ``results/default/default.nc``); tests/cli/test_cli.py
runs every one of them.

A user error is never a traceback. It is one line on stderr,
``straggler <command>: <what was wrong>; <what is allowed>``, except that a refused
config keeps the form check-config has always printed: ``FILE: invalid
configuration:`` and then one line per problem. The exit status says which kind of
error it was:

- 0: done (``verify``: the archive checks out);
- 1: a failure: a file that is missing, a directory, unreadable or not what it should
  be (a config, a study dataset, an archive), a config refused, an archive refused,
  a verification that failed, an output that cannot be written, a study run by
  ``recommend`` that failed or was interrupted (the same command then resumes it);
- 2: a usage error: the arguments name something that does not exist, the files being
  fine: what argparse refuses (an unknown option, a missing argument), a cell id not
  in the config's grid, a ``best --at`` point that is malformed or not on the
  dataset's grid (one line per problem), a question that ``recommend`` refuses (one
  line per problem, in the question's own key paths, before anything runs);
- 141 (128 + SIGPIPE, what a shell reports for a command killed by a closed pipe):
  stdout was closed before the output was written, as in
  ``straggler cells config/config.yaml | head -1``; nothing is printed on stderr.

Any other exception is a bug and shows its traceback.

This module holds the parser and :func:`main`; the commands are in the modules of
what they act on: :mod:`.policies`, :mod:`.study`, :mod:`.workloads`, :mod:`.bench`,
:mod:`.results` and :mod:`.question`, and what they share in :mod:`.errors`.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap

from . import bench, policies, question, results, study, workloads
from .errors import Refused, UserError

BROKEN_PIPE = 141
"""The exit status when stdout is closed early (128 + SIGPIPE)."""


def _version() -> str:
    """The installed distribution's version, else the package's ``__version__``."""
    from importlib import metadata

    try:
        return metadata.version("straggler")
    except metadata.PackageNotFoundError:
        from .. import __version__

        return __version__


def _examples(*lines: str) -> str:
    """An ``examples:`` epilog; a line of a command begins with two spaces and
    ``straggler`` (tests/cli/test_cli.py runs them), others are comments."""
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def build_parser() -> argparse.ArgumentParser:
    """The ``straggler`` parser: a subparser per command, each with its examples."""
    parser = argparse.ArgumentParser(
        prog="straggler",
        description="Parameter studies of redundancy policies.",
        epilog="Each command's --help ends with examples on the default study. Exit status: 0 done, "
        "1 a failure (a file missing or refused, a verification failed), 2 a usage error.",
    )
    parser.add_argument("--version", action="version", version=f"straggler {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, help: str, *examples: str) -> argparse.ArgumentParser:
        return sub.add_parser(
            name,
            help=help,
            description=textwrap.fill(help[0].upper() + help[1:] + ".", 79),  # the examples' formatter wraps nothing
            epilog=_examples(*examples),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    # in the order of straggler --help's listing
    policies.add_commands(command)
    study.add_check_config(command)
    workloads.add_commands(command)
    study.add_commands(command)
    bench.add_commands(command)
    results.add_commands(command)
    question.add_commands(command)
    return parser


def _quiet_stdout() -> None:
    """stdout was closed by its reader: what is left to write goes to /dev/null, so
    that the interpreter's final flush does not fail too (the recipe of the Python
    documentation, "Note on SIGPIPE")."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def main(argv=None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``); return the exit status
    (the module docstring says which)."""
    args = build_parser().parse_args(argv)
    try:
        status = args.func(args)
        sys.stdout.flush()  # here, not at exit: a closed pipe is then caught below
    except Refused:
        return 1
    except UserError as err:
        for message in err.args:
            print(f"straggler {args.command}: {message}", file=sys.stderr)
        return err.status
    except BrokenPipeError:
        _quiet_stdout()
        return BROKEN_PIPE
    return status


if __name__ == "__main__":
    sys.exit(main())
