"""Files written whole or not at all, and checked before they are trusted.

Every file the package writes goes through :func:`atomic_write`: the content goes to a
temporary file beside the target (``.<name>.<pid>.tmp``), which is renamed onto the
target only once complete, so a killed job or a full disk never leaves a partial
file under the target's name. A temporary file a killed job left behind is removed by
:func:`sweep_temporaries` once no job can be writing it (the aggregate step).

A result that later steps build on (a cell file) carries its SHA-256 in a file beside
it, ``<name>.sha256`` (:func:`write_checksummed`), written before the result itself is
renamed into place: wherever the result exists, so does the checksum it must match.
:func:`damage` says why a file is not to be trusted (missing checksum, unreadable,
mismatch), and the pipeline then recomputes it.

The study dataset is replaced only by a complete new one: Snakemake removes a job's
outputs before it runs, so the aggregate keeps a second name for the dataset it wrote
(:func:`keep_previous`), and the Snakefile brings it back when a rebuild fails
(:func:`restore_previous`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = [
    "CHECKSUM_SUFFIX",
    "atomic_write",
    "checksum_path",
    "damage",
    "discard",
    "keep_previous",
    "previous_path",
    "restore_previous",
    "sha256_file",
    "sweep_temporaries",
    "write_bytes",
    "write_checksummed",
    "write_text",
]

CHECKSUM_SUFFIX = ".sha256"
_CHUNK = 1 << 20


def _temporary(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


@contextlib.contextmanager
def atomic_write(path) -> Iterator[Path]:
    """``with atomic_write(path) as tmp:`` write ``tmp``, a temporary file beside ``path``,
    which is renamed onto ``path`` when the block ends (the parent folder is created); on
    any error the temporary file goes and ``path`` is left as it was. A context, not a
    function taking the writer: the writer is the caller's code, and this module is below
    every caller (calls run down the layers)."""
    with _replacing(path, checksum=False) as tmp:
        yield tmp


@contextlib.contextmanager
def _replacing(path, checksum: bool) -> Iterator[Path]:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temporary(path)
    try:
        yield tmp
        if checksum:
            write_text(checksum_path(path), sha256_file(tmp) + "\n")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_text(path, text: str) -> Path:
    """Write ``text`` to ``path`` whole or not at all (:func:`atomic_write`)."""
    with atomic_write(path) as tmp:
        tmp.write_text(text)
    return Path(path)


def write_bytes(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` whole or not at all (:func:`atomic_write`)."""
    with atomic_write(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def sha256_file(path) -> str:
    """The SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def checksum_path(path) -> Path:
    """The checksum file beside ``path``: ``<name>.sha256``."""
    path = Path(path)
    return path.with_name(path.name + CHECKSUM_SUFFIX)


@contextlib.contextmanager
def write_checksummed(path) -> Iterator[Path]:
    """Like :func:`atomic_write`, with the content's SHA-256 written beside it before the
    content is renamed into place."""
    with _replacing(path, checksum=True) as tmp:
        yield tmp


def damage(path) -> str:
    """Why the file at ``path`` is not to be trusted ("" when it matches its checksum,
    or does not exist: a missing file is merely not computed yet)."""
    path = Path(path)
    if not path.exists():
        return ""
    try:
        recorded = checksum_path(path).read_text().strip()
    except FileNotFoundError:
        return "it has no checksum (written by an interrupted job or another version)"
    except (OSError, UnicodeDecodeError) as err:
        return f"its checksum is unreadable ({err})"
    try:
        actual = sha256_file(path)
    except OSError as err:
        return f"it is unreadable ({err})"
    return "" if actual == recorded else "its content does not match its checksum"


def discard(path) -> None:
    """Remove a file and its checksum."""
    for p in (Path(path), checksum_path(path)):
        p.unlink(missing_ok=True)


def previous_path(path) -> Path:
    """The second name the previous study dataset keeps beside ``path``:
    ``.previous-<name>``."""
    path = Path(path)
    return path.with_name(f".previous-{path.name}")


def keep_previous(path) -> None:
    """Keep a second name for the file at ``path`` (a hard link, or a copy where the file
    system has none), so that :func:`restore_previous` can bring it back after Snakemake
    removed it to rebuild it and the rebuild failed."""
    path = Path(path)

    with atomic_write(previous_path(path)) as tmp:
        try:
            os.link(path, tmp)
        except OSError:
            shutil.copy2(path, tmp)


def restore_previous(path) -> bool:
    """Bring back the file :func:`keep_previous` kept, where ``path`` is gone (its old
    time stamp makes Snakemake rebuild it on the next run). True if it did."""
    path, kept = Path(path), previous_path(path)
    if path.exists() or not kept.exists():
        return False
    try:
        os.link(kept, path)
    except OSError:
        shutil.copy2(kept, path)
    return True


def sweep_temporaries(folders: Iterable) -> list[Path]:
    """Remove the temporary files of :func:`atomic_write` under ``folders`` (left by
    killed jobs); call only where no job can be writing one. Returns what went."""
    gone = []
    for folder in folders:
        folder = Path(folder)
        if not folder.is_dir():
            continue
        for tmp in folder.rglob(".*.tmp"):
            if tmp.is_file():
                tmp.unlink(missing_ok=True)
                gone.append(tmp)
    return gone
