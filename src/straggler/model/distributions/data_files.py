"""Measured samples read from data files, and the digest that identifies a file's content.

A law backed by a data file (:class:`straggler.model.distributions.Empirical`) names the file
by its path; the config records the file's content digest beside it
(:func:`content_digest`), so a cell's identity changes when the file's content does and
its results are computed again, whatever the file's modification time.

The formats (each may be gzip-compressed, with ``.gz`` after its own suffix):

- ``.csv`` and ``.tsv``: a header line, then one record a line; ``column`` names the
  column by its header (or its index from 0), and may be omitted when there is one;
- ``.npy``: a one-dimensional array, or a two-dimensional one whose column ``column``
  (an index) is read;
- anything else: plain text, one value a line; blank lines and everything after a
  ``#`` are ignored.

A relative path is read from the directory the process runs in: the workflow's
directory under Snakemake, as for every path in a Snakemake config.

A text file of the plain form is read by numpy's C reader (:func:`numpy.loadtxt`): no
NUL, in a table no carriage return but before a line feed and a header on one line, in
plain text none of the line breaks that only :meth:`str.splitlines` knows. It parses a
value with ``PyOS_string_to_double``, as ``float()`` does (the correctly rounded
double), so the values are the same; it reads a table of 10^7 rows (260 MB) in 2 to 6 s
and 0.4 GB on two cores, where the line-by-line parser below takes 17 s or more and 2
GB. Its values are kept when every one is allowed; anything else (a value that is not a
number or not allowed, a short row, bytes that are not UTF-8, a file not of that form)
is read by the line-by-line parser, which names the line and the value.
"""

from __future__ import annotations

import csv
import functools
import gzip
import hashlib
import io
import math
import warnings
from pathlib import Path

import numpy as np

from .base import ParameterError, format_value

DIGEST_PREFIX = "sha256:"
"""How a digest is spelled: the algorithm, a colon, the hexadecimal digest."""

_DELIMITERS = {".csv": ",", ".tsv": "\t"}


def located(file: str) -> Path:
    """The path of ``file``; a :class:`ParameterError` when there is no such file."""
    path = Path(file).expanduser()
    if not path.is_file():
        where = "" if path.is_absolute() else f" (a relative path is read from {Path.cwd()})"
        raise ParameterError("file", f"file {format_value(file)} does not exist{where}")
    return path


def _stamp(path: Path) -> tuple[str, int, int]:
    """What the caches below are keyed on: a file that changes gets read again."""
    st = path.stat()
    return (str(path.resolve()), st.st_mtime_ns, st.st_size)


def content_digest(file: str) -> str:
    """``sha256:<hex>`` of the file's bytes, as stored (a ``.gz`` file's compressed bytes)."""
    return _digest(*_stamp(located(file)))


@functools.lru_cache(maxsize=64)
def _digest(path: str, _mtime_ns: int, _size: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return DIGEST_PREFIX + h.hexdigest()


def read_sample(file: str, column: str | int | list | tuple | None = None) -> np.ndarray:
    """The values of ``column`` of ``file`` (a read-only float64 array, in the file's
    order). Errors are :class:`~straggler.model.distributions.ParameterError` naming ``file``
    or ``column``, the value and what is allowed."""
    if isinstance(column, (list, tuple)):  # several columns pooled (paired durations)
        return np.concatenate([read_sample(file, c) for c in column])
    return _read(*_stamp(located(file)), file, column)


@functools.lru_cache(maxsize=16)
def _read(path: str, _mtime_ns: int, _size: int, file: str, column: str | int | None) -> np.ndarray:
    data, suffix = file_bytes(path)
    if suffix == ".npy":
        values = _from_npy(data, file, column)
    else:
        values = values_in_c(data, suffix, file, column)
        if values is None:
            values = values_by_line(data, suffix, file, column)
    if values.size == 0:
        raise ParameterError("file", f"file {format_value(file)} holds no values")
    values.setflags(write=False)
    return values


def file_bytes(path: str | Path) -> tuple[bytes, str]:
    """The bytes of the file at ``path`` (a ``.gz`` file's decompressed) and the suffix that
    says its format, in lower case (``.csv``, ``.tsv``, ``.npy`` or any other: plain
    text), the ``.gz`` left out."""
    name = str(path).lower()
    compressed = name.endswith(".gz")
    suffix = Path(name.removesuffix(".gz") if compressed else name).suffix
    with open(path, "rb") as raw:
        data = gzip.decompress(raw.read()) if compressed else raw.read()
    return data, suffix


def column_name(file: str, column: str | int | None) -> str | None:
    """The header of the column ``column`` of a CSV or TSV file (the file's only one when
    None), or None: a file of another format, or a header that cannot be read (reading the
    values names why)."""
    if isinstance(column, str):
        return column
    try:
        data, suffix = file_bytes(located(file))
    except (OSError, ValueError, ParameterError):
        return None
    if suffix not in _DELIMITERS:
        return None
    end = data.find(b"\n")
    try:
        head = (data if end < 0 else data[:end]).decode("utf-8-sig")
        header = [h.strip() for h in next(csv.reader([head], delimiter=_DELIMITERS[suffix]), [])]
        return header[_column_index(header, file, column)]
    except (UnicodeDecodeError, csv.Error, ParameterError, IndexError):
        return None


def values_by_line(data: bytes, suffix: str, file: str, column: str | int | None) -> np.ndarray:
    """The values of a text file read line by line, each checked: an error names the line
    and the value."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParameterError("file", f"file {format_value(file)} is not UTF-8 text ({exc.reason})") from None
    if suffix in _DELIMITERS:
        return _from_table(text, _DELIMITERS[suffix], file, column)
    if column not in (None, 0):
        raise ParameterError(
            "column",
            f"column {format_value(column)} is not allowed for {format_value(file)}: a plain text "
            f"file has one value a line (omit column, or use a .csv or .tsv file with a header)",
        )
    return _from_lines(text, file)


def _number(text: str, file: str, line: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ParameterError(
            "file", f"file {format_value(file)}, line {line}: {text.strip()!r} is not a number"
        ) from None
    if not math.isfinite(value) or value < 0:
        raise ParameterError(
            "file", f"file {format_value(file)}, line {line}: {text.strip()} is not allowed; expected a size >= 0"
        )
    return value


def _from_lines(text: str, file: str) -> np.ndarray:
    out = []
    for line, content in enumerate(text.splitlines(), start=1):
        content = content.split("#", 1)[0].strip()
        if content:
            out.append(_number(content, file, line))
    return np.array(out, dtype=np.float64)


# str.splitlines() ends a line at these too, numpy's reader does not: plain text that holds
# one is read line by line
_SPLITLINES_ONLY = tuple(c.encode() for c in "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def values_in_c(data: bytes, suffix: str, file: str, column: str | int | None) -> np.ndarray | None:
    """The values of a text file read by numpy's C reader, when the file has the plain
    form on which it reads exactly the records and fields of the parsers below and every
    value is allowed; None otherwise (:func:`values_by_line` then reads it, and names any
    problem)."""
    if b"\0" in data:
        return None
    if suffix in _DELIMITERS:
        delimiter = _DELIMITERS[suffix]
        # numpy's reader splits records and fields as csv's (excel dialect: a field that
        # starts with '"' is quoted, '""' in it is a '"', after its closing '"' the field goes
        # on unquoted), but ends a line at a lone '\r', where csv's reader stops with an error
        if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
            return None
        end = data.find(b"\n")
        try:  # the header, on the first line (skiprows skips lines, not records)
            head = (data if end < 0 else data[:end]).decode("utf-8-sig")
            header = [h.strip() for h in next(csv.reader([head], delimiter=delimiter, strict=True), [])]
            index = _column_index(header, file, column)
        except (UnicodeDecodeError, csv.Error, ParameterError):
            return None
        options: dict = {
            "delimiter": delimiter,
            "quotechar": '"',
            "comments": None,
            "skiprows": 1,
            "usecols": index,
            "ndmin": 1,
        }
    else:
        if column not in (None, 0) or any(c in data for c in _SPLITLINES_ONLY):
            return None
        # whitespace-separated: a line of two words is two columns, which is refused below
        options = {"delimiter": None, "quotechar": None, "comments": "#", "ndmin": 2}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "input contained no data": the precise parser says it
            text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig")
            values = np.loadtxt(text, dtype=np.float64, **options)
    except (ValueError, OverflowError):  # not a number, a short row, not UTF-8 (UnicodeDecodeError)
        return None
    if values.ndim == 2:
        if values.shape[1] != 1:
            return None
        values = values.reshape(-1)
    if values.size == 0 or not (values.min() >= 0 and values.max() < math.inf):  # NaN fails both
        return None
    return values


def _column_index(header: list[str], file: str, column: str | int | None) -> int:
    """The index of ``column`` among the table's ``header``."""
    if column is None:
        if len(header) != 1:
            raise ParameterError(
                "column",
                f"file {format_value(file)} has {len(header)} columns ({', '.join(header)}): column must "
                f"name the one that holds the sizes",
            )
        return 0
    if isinstance(column, int):
        if not 0 <= column < len(header):
            raise ParameterError(
                "column",
                f"column {column} is not allowed: file {format_value(file)} has columns 0 to "
                f"{len(header) - 1} ({', '.join(header)})",
            )
        return column
    if column in header:
        return header.index(column)
    raise ParameterError(
        "column",
        f"column {format_value(column)} is not allowed: file {format_value(file)} has the columns {', '.join(header)}",
    )


def _from_table(text: str, delimiter: str, file: str, column: str | int | None) -> np.ndarray:
    rows = csv.reader(io.StringIO(text), delimiter=delimiter)
    header = next(rows, None)
    if header is None:
        return np.empty(0)
    header = [h.strip() for h in header]
    index = _column_index(header, file, column)
    out = []
    try:
        for line, record in enumerate(rows, start=2):
            if not record or all(not c.strip() for c in record):
                continue
            if index >= len(record):
                raise ParameterError("file", f"file {format_value(file)}, line {line}: no column {header[index]!r}")
            out.append(_number(record[index], file, line))
    except csv.Error as exc:
        what = "a carriage return alone inside a record" if "new-line character" in str(exc) else str(exc)
        raise ParameterError(
            "file", f"file {format_value(file)}, line {rows.line_num}: {what}; expected lines ending in \\n or \\r\\n"
        ) from None
    return np.array(out, dtype=np.float64)


def _from_npy(data: bytes, file: str, column: str | int | None) -> np.ndarray:
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError) as exc:
        raise ParameterError("file", f"file {format_value(file)} is not a .npy array ({exc})") from None
    if array.ndim == 2:
        if not isinstance(column, int) or not 0 <= column < array.shape[1]:
            raise ParameterError(
                "column",
                f"column {format_value(column)} is not allowed: file {format_value(file)} holds a "
                f"{array.shape[0]} x {array.shape[1]} array; expected a column index 0 to {array.shape[1] - 1}",
            )
        array = array[:, column]
    elif array.ndim != 1 or column not in (None, 0):
        raise ParameterError(
            "file" if array.ndim != 1 else "column",
            f"file {format_value(file)} holds an array of shape {array.shape}; expected one dimension, or two "
            f"with column naming the column",
        )
    if not np.issubdtype(array.dtype, np.number) or np.issubdtype(array.dtype, np.complexfloating):
        raise ParameterError("file", f"file {format_value(file)} holds {array.dtype} values; expected numbers")
    values = np.asarray(array, dtype=np.float64).copy()
    bad = np.flatnonzero(~np.isfinite(values) | (values < 0))
    if bad.size:
        raise ParameterError(
            "file",
            f"file {format_value(file)}, entry {int(bad[0])}: {values[bad[0]]!r} is not allowed; expected a size >= 0",
        )
    return values


def sorted_sample(file: str, column: str | int | list | tuple | None = None) -> np.ndarray:
    """:func:`read_sample` in increasing order (read-only; kept while the file is unchanged).
    ``column`` a list of columns: their values pooled (the two servers' durations of paired
    measurements: the law of one copy)."""
    if isinstance(column, (list, tuple)):
        pooled = np.sort(np.concatenate([sorted_sample(file, c) for c in column]))
        pooled.setflags(write=False)
        return pooled
    return _sorted(*_stamp(located(file)), file, column)


@functools.lru_cache(maxsize=16)
def _sorted(path: str, mtime_ns: int, size: int, file: str, column: str | int | None) -> np.ndarray:
    values = np.sort(_read(path, mtime_ns, size, file, column))
    values.setflags(write=False)
    return values
