"""What the commands share: the user errors that :func:`straggler.cli.main` prints as one
line on stderr and turns into an exit status, the words that say what a file should have
been, and the checks of the paths and numbers a command is given.

The exit statuses themselves are documented with :func:`straggler.cli.main`, in the
package's docstring.
"""

from __future__ import annotations

import argparse
from pathlib import Path

CONFIG_EXPECTED = "expected a YAML study file, e.g. config/config.yaml"
DATASET_EXPECTED = "expected the dataset of a finished study, e.g. results/default/default.nc"
ARCHIVE_EXPECTED = "expected an archive written by straggler archive, e.g. archives/default.tar.gz"
QUESTION_EXPECTED = "expected a YAML question file, e.g. config/questions/example.yaml"


class Refused(Exception):
    """A config was refused; the message has been printed."""


class UserError(Exception):
    """A user error: each of its messages (its arguments, one problem each) is printed
    as a line ``straggler <command>: <message>`` and the command exits with
    :attr:`status`."""

    status = 1


class Failure(UserError):
    """A file missing, unreadable or not what it should be, or an output that cannot be
    written (exit status 1)."""


class Usage(UserError):
    """Arguments that name something that does not exist (exit status 2)."""

    status = 2


def positive_int(text: str) -> int:
    """An argument that must be a whole number >= 1 (argparse names the option when it is not)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed; expected a whole number >= 1")
    return value


def os_reason(err: OSError) -> str:
    return str(err.strerror or err)


def readable(path: str, expected: str, unreadable: str = "cannot read {path}") -> None:
    """Refuse (:class:`Failure`) a path that is not a readable file; ``unreadable``
    says what a file that cannot be opened is."""
    if Path(path).is_dir():
        raise Failure(f"{path} is a directory; {expected}")
    try:
        with open(path, "rb"):
            pass
    except OSError as err:
        raise Failure(f"{unreadable.format(path=path)} ({os_reason(err)}); {expected}") from None


def writable(path: str, what: str) -> None:
    """Refuse (:class:`Failure`), before any work, an output path that is a directory
    or under a file (its missing folders are created when it is written)."""
    out = Path(path)
    if out.is_dir():
        raise Failure(f"{path} is a directory; expected the path of the {what} to write")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise Failure(f"{parent} is not a directory; expected the path of the {what} to write")
            break
