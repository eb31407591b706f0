"""The cell files' format, netCDF's CDF-5, written and read with numpy alone.

A study writes one small file per cell and reads them all back to build its dataset;
through the netCDF4 library each variable costs a tenth of a millisecond of Python on
the way in and out (its indexing machinery), about 10 ms a cell of some forty
variables, which was a fifth of an analytic study's time through the pipeline. A cell
file holds only fixed-size variables, so its layout is a header followed by each
variable's bytes, big-endian, at the offset the header gives (the format: "The NetCDF
Classic Format", version 5, 64-bit sizes and offsets, as netCDF and PnetCDF define it).

:func:`write` writes what ``netCDF4.Dataset(path, "w", format="NETCDF3_64BIT_DATA")``
would for such a file, and :func:`read` returns what the netCDF4 library returns for
it with automatic masking off: numeric variables as native-endian arrays, a character
variable with an ``_Encoding`` attribute as an array of strings (its last dimension
joined), attributes as a ``str`` or a numpy scalar or array. Anything else (another
format, a record dimension) is not this module's: :func:`read` returns None and
:func:`writable` False, and the caller uses the netCDF4 library. tests/common/test_cdf5.py
holds both against the library, on real cells and on the corners of the format.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

MAGIC = b"CDF\x05"
_DIMENSION, _VARIABLE, _ATTRIBUTE = 0x0A, 0x0B, 0x0C
#: netCDF's external types (nc_type) and their numpy dtypes, big-endian
TYPES = {
    1: np.dtype("i1"),
    2: np.dtype("S1"),
    3: np.dtype(">i2"),
    4: np.dtype(">i4"),
    5: np.dtype(">f4"),
    6: np.dtype(">f8"),
    7: np.dtype("u1"),
    8: np.dtype(">u2"),
    9: np.dtype(">u4"),
    10: np.dtype(">i8"),
    11: np.dtype(">u8"),
}
_CODES = {dtype.newbyteorder("=") if dtype.itemsize > 1 else dtype: code for code, dtype in TYPES.items()}
CHAR = 2


def _pad4(n: int) -> int:
    return -n % 4


# ------------------------------------------------------------------------- reading


class _Header:
    """A cursor over a file's bytes."""

    def __init__(self, data: bytes):
        self.data = data
        self.pos = 4

    def int32(self) -> int:
        (value,) = struct.unpack_from(">i", self.data, self.pos)
        self.pos += 4
        return value

    def int64(self) -> int:
        (value,) = struct.unpack_from(">q", self.data, self.pos)
        self.pos += 8
        return value

    def count(self) -> int:
        n = self.int64()
        if not 0 <= n <= len(self.data):
            raise ValueError(f"a count of {n} at byte {self.pos - 8}, in a file of {len(self.data)} bytes")
        return n

    def name(self) -> str:
        n = self.count()
        text = self.data[self.pos : self.pos + n].decode("utf-8")
        self.pos += n + _pad4(n)
        return text

    def values(self, code: int, n: int) -> np.ndarray:
        dtype = TYPES[code]
        size = n * dtype.itemsize
        out = np.frombuffer(self.data, dtype, n, self.pos)
        self.pos += size + _pad4(size)
        return out

    def listing(self, tag: int) -> int:
        found, n = self.int32(), self.count()
        if found not in (0, tag) or (found == 0 and n != 0):
            raise ValueError(f"malformed header at byte {self.pos - 12}")
        return n

    def attributes(self) -> dict:
        attrs = {}
        for _ in range(self.listing(_ATTRIBUTE)):
            name = self.name()
            code = self.int32()
            attrs[name] = _attribute(code, self.values(code, self.count()))
        return attrs


def _attribute(code: int, raw: np.ndarray):
    """An attribute as the netCDF4 library returns it: text as ``str``, one number as
    a numpy scalar, several as an array (native byte order)."""
    if code == CHAR:  # the library drops NUL characters
        return raw.tobytes().decode("utf-8", "replace").replace("\x00", "")
    native = raw.astype(raw.dtype.newbyteorder("="))
    return native[0] if len(native) == 1 else native


def read(path) -> tuple[dict[str, np.ndarray], dict, dict[str, dict]] | None:
    """``(variables, global attributes, variables' attributes)`` of the CDF-5 file at
    ``path``; None when it is not a CDF-5 file of fixed-size variables. A file that
    starts like one but does not parse raises ValueError."""
    data = Path(path).read_bytes()
    if data[:4] != MAGIC:
        return None
    try:
        return _parse(data)
    except (struct.error, LookupError, ValueError, TypeError, OverflowError) as err:  # a forged or damaged header
        raise ValueError(f"{path}: not a readable CDF-5 file ({type(err).__name__}: {err})") from None


def _parse(data: bytes) -> tuple[dict[str, np.ndarray], dict, dict[str, dict]] | None:
    header = _Header(data)
    if header.int64() != 0:  # records: not a cell file
        return None
    dims = [(header.name(), header.count()) for _ in range(header.listing(_DIMENSION))]
    if any(size == 0 for _, size in dims):  # the record (unlimited) dimension
        return None
    attrs = header.attributes()
    variables: dict[str, np.ndarray] = {}
    var_attrs: dict[str, dict] = {}
    for _ in range(header.listing(_VARIABLE)):
        name = header.name()
        shape = tuple(dims[header.count()][1] for _ in range(header.count()))
        own = header.attributes()
        code = header.int32()
        header.int64()  # vsize: the padded size, implied by the shape
        begin = header.count()
        dtype = TYPES[code]
        raw = np.frombuffer(data, dtype, int(np.prod(shape, dtype=np.int64)), begin).reshape(shape)
        if code == CHAR:
            encoding = own.get("_Encoding")
            values = _strings(raw, encoding) if isinstance(encoding, str) and shape else raw.copy()
        else:
            values = raw.astype(dtype.newbyteorder("="))
        variables[name] = values
        var_attrs[name] = own
    return variables, attrs, var_attrs


def _strings(chars: np.ndarray, encoding: str) -> np.ndarray:
    """A character array's last dimension joined into strings (netCDF4's
    ``chartostring``: trailing NUL bytes dropped, decoded)."""
    width = chars.shape[-1]
    joined = np.ascontiguousarray(chars).view(f"S{width}").reshape(chars.shape[:-1])
    return (np.char.decode(joined, encoding) if joined.size else joined).astype(f"U{width}")


# ------------------------------------------------------------------------- writing


def _encode_attribute(value) -> tuple[int, bytes, int]:
    """``(nc_type, big-endian bytes, number of values)`` of an attribute value: text as
    characters, numbers as the library stores them in this format (Python ints as
    64-bit integers, floats as doubles)."""
    if isinstance(value, str):
        raw = value.encode("utf-8")
        return CHAR, raw, len(raw)
    array = np.atleast_1d(np.asarray(value))
    if array.dtype.kind not in "iuf" or array.ndim != 1:
        raise TypeError(f"attribute value {value!r}: text or numbers only")
    code = _CODES[array.dtype]
    return code, array.astype(TYPES[code]).tobytes(), len(array)


def writable(dims: dict[str, int], variables, attrs: dict) -> bool:
    """Whether :func:`write` takes this content (else the netCDF4 library's): no
    dimension of length 0 (netCDF-3's record dimension), numeric or string variables,
    text or numeric attributes."""
    if any(size <= 0 for size in dims.values()):
        return False
    for _, _, values, own in variables:
        if values.dtype.kind != "U" and values.dtype not in _CODES:
            return False
        for value in own.values():
            try:
                _encode_attribute(value)
            except (TypeError, KeyError):
                return False
    try:
        for value in attrs.values():
            _encode_attribute(value)
    except (TypeError, KeyError):
        return False
    return True


def write(path, dims: dict[str, int], variables, attrs: dict) -> None:
    """Write a CDF-5 file of fixed-size variables at ``path``.

    ``dims``: name to length, in order. ``variables``: ``(name, dimension names,
    values, attributes)`` in order; numeric values are stored as their dtype, a string
    array as characters along a new last dimension ``string<width>`` (width: its
    longest value's UTF-8 bytes, at least 1) with ``_Encoding: utf-8``, as ``write_cell``
    asks the library for. A float variable's ``_FillValue`` is its attributes' to give."""
    dims = dict(dims)
    entries = []  # (name, dimension ids, attributes, nc_type, data bytes)
    for name, var_dims, values, own in variables:
        values = np.asarray(values)
        if values.dtype.kind == "U":
            encoded = np.char.encode(values, "utf-8") if values.size else values.astype("S1")
            width = max(int(encoded.dtype.itemsize), 1)
            chars = f"string{width}"
            dims.setdefault(chars, width)
            data = np.ascontiguousarray(encoded.astype(f"S{width}")).tobytes()
            entries.append((name, [*var_dims, chars], {"_Encoding": "utf-8", **own}, CHAR, data))
        else:
            code = _CODES[values.dtype]
            entries.append((name, list(var_dims), own, code, values.astype(TYPES[code]).tobytes()))
    ids = {name: i for i, name in enumerate(dims)}

    def name_bytes(text: str) -> bytes:
        raw = text.encode("utf-8")
        return struct.pack(">q", len(raw)) + raw + b"\0" * _pad4(len(raw))

    def attribute_list(values: dict) -> bytes:
        if not values:
            return struct.pack(">iq", 0, 0)
        out = [struct.pack(">iq", _ATTRIBUTE, len(values))]
        for key, value in values.items():
            code, raw, n = _encode_attribute(value)
            out.append(name_bytes(key) + struct.pack(">iq", code, n) + raw + b"\0" * _pad4(len(raw)))
        return b"".join(out)

    head = [MAGIC, struct.pack(">q", 0)]
    head.append(struct.pack(">iq", _DIMENSION, len(dims)) if dims else struct.pack(">iq", 0, 0))
    head += [name_bytes(name) + struct.pack(">q", size) for name, size in dims.items()]
    head.append(attribute_list(attrs))
    head.append(struct.pack(">iq", _VARIABLE, len(entries)) if entries else struct.pack(">iq", 0, 0))
    # each variable's entry ends with its offset, known once the header's size is:
    # the entries without it, then the offsets in a second pass
    bodies = []
    for name, var_dims, own, code, data in entries:
        bodies.append(
            name_bytes(name)
            + struct.pack(">q", len(var_dims))
            + b"".join(struct.pack(">q", ids[d]) for d in var_dims)
            + attribute_list(own)
            + struct.pack(">iq", code, len(data) + _pad4(len(data)))
        )
    offset = sum(map(len, head)) + sum(len(b) + 8 for b in bodies)
    out = head
    chunks = []
    for body, (_, _, _, _, data) in zip(bodies, entries):
        out.append(body + struct.pack(">q", offset))
        chunks.append(data + b"\0" * _pad4(len(data)))
        offset += len(chunks[-1])
    with open(path, "wb") as f:
        f.write(b"".join(out + chunks))
