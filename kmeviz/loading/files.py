"""Reading one file as a table: ``read_table`` (CSV, TSV, .npy, .npz, Parquet), with one
clear message for each kind of file it cannot use (see ``kmeviz.loading``)."""

from __future__ import annotations

import codecs
import io
import math
import os
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..budget import check_budget
from .pieces import PieceStack

#: The largest file ``load_samples`` reads (bytes), unless told otherwise.
MAX_BYTES = 512 * 1024**2
#: Extension -> format name.
FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".npy": "npy", ".npz": "npz",
           ".parquet": "parquet"}
#: The group column of a ``.npz`` file (one group per array).
NPZ_GROUP = "array"
#: The most columns a table may have (read from a CSV's first line, a ``.npy`` header),
#: checked before anything is parsed: a 1.9 MB CSV of 100 000 columns held a server's
#: threads for minutes.
MAX_COLUMNS = 10_000
#: The arrays of a ``.npz`` may hold at most this many times ``max_bytes`` once
#: decompressed (read from the archive's directory before any array is built: 389 kB of
#: compressed zeros held 400 MB).
MAX_DECOMPRESSION = 4
#: The most arrays a ``.npz`` file may hold (each is a group; a test compares two): a
#: 23 MB archive of 100 000 one-row arrays held a server for 85 s past its budget.
MAX_ARRAYS = 1000
#: The largest table a served upload may become by default (``kmeviz serve --max-rows``,
#: ``--max-columns``, ``--max-cells``).
UPLOAD_LIMITS = {"rows": 1_000_000, "columns": MAX_COLUMNS, "cells": 10_000_000}


class TooLarge(ValueError):
    """A table past one of its ``TableLimits`` (rows, columns, cells or arrays)."""


@dataclass(frozen=True)
class TableLimits:
    """The largest table ``read_table`` builds, checked before anything is parsed: rows
    and columns from a CSV's line count and first line, a ``.npy`` header's shape, the
    headers of a ``.npz`` archive's arrays (at most ``max_arrays`` of them); cells are
    rows × columns. None: no limit.
    ``raised_by`` names, for a limit, what raises it ({"rows": "kmeviz serve
    --max-rows"}); a refusal says so. A served "Your data" page reads with the server's
    limits (``kmeviz serve --max-rows/--max-columns/--max-cells``)."""

    max_rows: int | None = None
    max_columns: int | None = MAX_COLUMNS
    max_cells: int | None = None
    raised_by: Mapping[str, str] = field(default_factory=dict)
    max_arrays: int | None = MAX_ARRAYS

    def __post_init__(self):
        for name in ("max_rows", "max_columns", "max_cells", "max_arrays"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 1):
                raise ValueError(f"{name} must be a positive integer or None, got {value!r}")

    def check(self, label: str, rows: int, columns: int, *, about: str = "") -> None:
        """Refuse a table of ``rows`` × ``columns`` past a limit (``about``: "about "
        where the count is an estimate), naming the limit and what raises it."""
        for what, count, limit in (("columns", columns, self.max_columns),
                                   ("rows", rows, self.max_rows),
                                   ("cells", rows * columns, self.max_cells)):
            if limit is not None and count > limit:
                how = self.raised_by.get(what)
                raise TooLarge(f"{label} has {about}{count} {what}, over the limit of "
                                 f"{limit}" + (f" ({how} raises it)" if how else ""))


#: A text table past this size is parsed in pieces of about this many bytes, with the
#: time budget checked between them (``kmeviz.budget``): a served upload stops within
#: a fraction of a second of its deadline or of its page's close.
TEXT_PIECE_BYTES = 4 * 1024**2


def read_table(source, *, name: str | None = None, max_bytes: int = MAX_BYTES,
               limits: TableLimits | None = None) -> pd.DataFrame:
    """Read one file (a path, or its bytes with ``name`` giving the format) as a table.

    Parameters
    ----------
    source : str, path-like or bytes
    name : str, optional
        The file name of ``source`` bytes (its extension picks the format).
    max_bytes : int
    limits : TableLimits, optional
        The largest table to build (default: at most ``MAX_COLUMNS`` columns), checked
        before the file is parsed.

    Returns
    -------
    pandas.DataFrame
        A ``.npy`` array's columns are named x0, x1, ...; a ``.npz`` file's arrays are
        stacked with their names in the column ``NPZ_GROUP``.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data, label = bytes(source), name or "the upload"
    else:
        label = name or file_name(source)
        size = os.stat(source).st_size
        if size > max_bytes:
            raise ValueError(_too_large(label, size, max_bytes))
        data = Path(source).read_bytes()
    if len(data) > max_bytes:
        raise ValueError(_too_large(label, len(data), max_bytes))
    if not data.strip():
        raise ValueError(f"{label} is empty")
    kind = FORMATS.get(Path(label).suffix.lower())
    if kind is None:
        raise ValueError(f"{label}: unknown format {Path(label).suffix or '(no extension)'!r};"
                         f" kmeviz reads {', '.join(FORMATS)}")
    if limits is None:
        limits = TableLimits()
    elif not isinstance(limits, TableLimits):
        raise TypeError(f"limits must be a TableLimits, got {type(limits).__name__}")
    reader = {"csv": _read_text, "tsv": _read_text, "npy": _read_npy, "npz": _read_npz,
              "parquet": _read_parquet}[kind]
    frame = reader(data, label, "\t" if kind == "tsv" else ",", limits)
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValueError(f"{label} has no data rows")
    return frame


# -- the readers ------------------------------------------------------------------------
def _read_text(data: bytes, label: str, sep: str, limits: TableLimits) -> pd.DataFrame:
    """A CSV/TSV table, bounded by what pandas' parser reads: its header's width counted
    first (``header_columns``: blank lines skipped, quoted separators and line breaks
    inside a name), then the rows counted exactly, piece by piece, as they are parsed
    (a quoted field may hold a line break, a blank line is skipped), with the time budget
    checked between pieces."""
    if b"\x00" in data[:8192]:
        raise ValueError(f"{label} is not a text table (it contains binary data); kmeviz "
                         f"reads {', '.join(FORMATS)}")
    columns = header_columns(data, sep, stop_after=limits.max_columns)
    if limits.max_columns is not None and columns > limits.max_columns:  # counting stopped
        limits.check(f"{label} (its header)", 0, columns, about="at least ")
    try:
        _check_utf8(data)
    except UnicodeDecodeError:
        raise ValueError(f"{label} is not UTF-8 text; save it as UTF-8 CSV") from None
    # the line count bounds the rows from above: a table within the limits by it is read
    # at once; any other is counted exactly as it is parsed
    lines = max(data.count(b"\n"), data.count(b"\r")) + (not data.endswith((b"\n", b"\r")))
    rows_at_most = max(lines - 1, 0)
    surely_within = not _past(limits, rows_at_most, columns)
    try:
        if len(data) <= TEXT_PIECE_BYTES and surely_within:
            return pd.read_csv(io.BytesIO(data), sep=sep)
        rows = max(1, int(TEXT_PIECE_BYTES * max(lines, 1) / len(data)))
        stack, read = PieceStack(rows_at_most), 0
        for piece in pd.read_csv(io.BytesIO(data), sep=sep, chunksize=rows):
            check_budget()
            read += len(piece)
            limits.check(label, read, piece.shape[1],
                         about="at least " if read < rows_at_most else "")
            stack.add(piece)
        return stack.frame()
    except TooLarge:
        raise
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"{label} could not be read as a table: {first}") from None


def _check_utf8(data: bytes, piece: int = 1 << 20) -> None:
    """Raises UnicodeDecodeError unless ``data`` is UTF-8, without a str of it all."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    for start in range(0, len(data), piece):
        decoder.decode(data[start:start + piece])
    decoder.decode(b"", final=True)


def _past(limits: TableLimits, rows: int, columns: int) -> bool:
    """Whether a table of ``rows`` × ``columns`` is past one of ``limits``."""
    return any(limit is not None and count > limit for count, limit in (
        (rows, limits.max_rows), (columns, limits.max_columns),
        (rows * columns, limits.max_cells)))


#: bytes that end a header field or line, or may open a quoted field
_TOKEN = {sep: re.compile(b'"|' + re.escape(sep.encode()) + b"|\r|\n") for sep in ",\t"}
#: a blank line as pandas skips it: blanks other than the separator, then a line end
_BLANK_LINE = {sep: re.compile(b"[" + (b" \t" if sep != "\t" else b" ") + b"]*(?:\r\n|\r|\n)")
               for sep in ",\t"}


def header_columns(data: bytes, sep: str = ",", *, stop_after: int | None = None) -> int:
    """The number of columns of the header that ``pandas.read_csv(sep=sep)`` reads from
    ``data``, counted without parsing it: a UTF-8 byte-order mark and blank (or blank-only)
    lines before it are skipped; a field that starts with a double quote is quoted
    (separators and line breaks inside it belong to the name, ``""`` is a quote); a quote
    elsewhere is a character; the header ends at a line break (\\n, \\r\\n or \\r) outside
    quotes. Counting stops once past ``stop_after`` (a limit: the rest is not read).

    A header whose quotes never close is counted up to the end (pandas refuses it).

    Examples
    --------
    >>> header_columns(b"\\n\\n" + b'g,"c\\n0",c1' + b"\\n1,2,3\\n")
    3
    """
    if sep not in _TOKEN:
        raise ValueError(f"sep must be ',' or a tab, got {sep!r}")
    position = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    blank, token, separator = _BLANK_LINE[sep], _TOKEN[sep], sep.encode()
    while (line := blank.match(data, position)) is not None:
        position = line.end()
    fields, field_start = 1, position
    while True:
        found = token.search(data, position)
        if found is None:
            return fields
        byte, position = found.group(), found.end()
        if byte == b'"':
            if found.start() != field_start:
                continue  # a quote inside an unquoted field is a character
            while True:  # a quoted field: up to its closing quote ("" is a quote)
                close = data.find(b'"', position)
                if close < 0:
                    return fields
                if data[close + 1:close + 2] != b'"':
                    position = close + 1
                    break
                position = close + 2
        elif byte == separator:
            fields += 1
            field_start = position
            if stop_after is not None and fields > stop_after:
                return fields
        else:
            return fields


def npy_shape(stream, label: str, size: int | None = None,
              limits: TableLimits | None = None) -> tuple:
    """The shape in a ``.npy`` header, read without reading the array; ValueError for
    a header that is not one, a shape past ``limits`` (default: ``MAX_COLUMNS``
    columns), or (given the file's ``size`` in bytes) more values than the file holds: a
    header may claim 10¹² values, which ``np.load`` would try to allocate."""
    try:
        version = np.lib.format.read_magic(stream)
        read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                else np.lib.format.read_array_header_2_0)
        shape, _, dtype = read(stream)
    except (ValueError, OSError, EOFError):
        raise ValueError(f"{label} is not a numpy .npy file of numbers") from None
    if len(shape) in (1, 2):
        (limits or TableLimits()).check(label, shape[0], shape[1] if len(shape) == 2 else 1)
    claimed = math.prod(shape) * dtype.itemsize
    if size is not None and claimed > size:
        raise ValueError(f"{label}: its header claims {_size(claimed)} of values, more than "
                         f"the file's {_size(size)} (a truncated or forged .npy file)")
    return tuple(shape)


def _read_npy(data: bytes, label: str, sep: str, limits: TableLimits) -> pd.DataFrame:
    npy_shape(io.BytesIO(data), label, len(data), limits)
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError, MemoryError):
        raise ValueError(f"{label} is not a numpy .npy file of numbers") from None
    return _array_frame(array, label)


def _check_npz(data: bytes, label: str, limits: TableLimits) -> None:
    """Refuse an archive whose arrays would hold more than ``MAX_DECOMPRESSION`` times
    its size once decompressed, or a stacked table past ``limits``, from its directory
    and headers (nothing decompressed)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            if limits.max_arrays is not None and len(members) > limits.max_arrays:
                raise TooLarge(f"{label} holds {len(members)} arrays, over the limit of "
                               f"{limits.max_arrays} (each array is a group: stack the "
                               "rows of a group into one array)")
            total = sum(member.file_size for member in members)
            if total > MAX_DECOMPRESSION * max(len(data), 1 << 20):
                raise ValueError(f"{label} would hold {_size(total)} decompressed, over "
                                 f"{MAX_DECOMPRESSION}× its size")
            rows, columns = 0, 0
            for member in members:
                check_budget()
                with archive.open(member) as stream:
                    shape = npy_shape(stream, f"{label}[{member.filename}]",
                                      member.file_size, limits)
                rows += shape[0] if shape else 1
                columns = max(columns, shape[1] if len(shape) == 2 else 1)
            limits.check(f"{label} (its arrays stacked)", rows, columns + 1)
    except zipfile.BadZipFile:
        raise ValueError(f"{label} is not a numpy .npz file of numbers") from None


def _read_npz(data: bytes, label: str, sep: str, limits: TableLimits) -> pd.DataFrame:
    _check_npz(data, label, limits)
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            arrays = {}
            for key in archive.files:
                check_budget()
                arrays[key] = archive[key]
    except (ValueError, OSError, EOFError, MemoryError):
        raise ValueError(f"{label} is not a numpy .npz file of numbers") from None
    if not arrays:
        raise ValueError(f"{label} holds no arrays")
    frames = []
    for key, array in arrays.items():
        check_budget()
        frames.append(_array_frame(array, f"{label}[{key}]").assign(**{NPZ_GROUP: key}))
    widths = {f.shape[1] for f in frames}
    if len(widths) != 1:
        raise ValueError(f"{label}: the arrays have different numbers of columns")
    return pd.concat(frames, ignore_index=True)


def _read_parquet(data: bytes, label: str, sep: str, limits: TableLimits) -> pd.DataFrame:
    try:
        import pyarrow.parquet
    except ImportError:
        pyarrow = None
    if pyarrow is not None:  # the shape from the file's metadata, before any column
        try:
            meta = pyarrow.parquet.ParquetFile(io.BytesIO(data)).metadata
        except (ValueError, OSError, pyarrow.lib.ArrowException) as exc:
            raise ValueError(f"{label} could not be read as Parquet: {exc}") from None
        limits.check(label, meta.num_rows, meta.num_columns)
    try:
        return pd.read_parquet(io.BytesIO(data))
    except ImportError:
        raise ValueError(f"{label}: reading Parquet needs pyarrow or fastparquet, which "
                         "kmeviz does not install (pip install pyarrow), or save the "
                         "table as CSV") from None
    except (ValueError, OSError) as exc:
        raise ValueError(f"{label} could not be read as Parquet: {exc}") from None


def _array_frame(array: np.ndarray, label: str) -> pd.DataFrame:
    if array.dtype.kind not in "biuf":
        raise ValueError(f"{label} holds {array.dtype} values, not numbers")
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2:
        raise ValueError(f"{label} is a {array.ndim}-D array; a sample is 2-D (n, d)")
    return pd.DataFrame(array, columns=[f"x{j}" for j in range(array.shape[1])])


def numeric_columns(frame: pd.DataFrame) -> list:
    """The table's numeric (and boolean) columns, in order."""
    return list(frame.select_dtypes(include=["number", "bool"]).columns)


def listed(values) -> str:
    """Values quoted and joined for a message (the first 8, then how many more)."""
    values = [str(v) for v in values]
    shown = ", ".join(repr(v) for v in values[:8])
    return shown + (f" and {len(values) - 8} more" if len(values) > 8 else "") or "none"


def file_name(path) -> str:
    """The last part of a path, as messages name a file."""
    return Path(os.fspath(path)).name


def _too_large(label: str, size: int, limit: int) -> str:
    return f"{label} is {_size(size)}, over the limit of {_size(limit)}"


def _size(n_bytes: int) -> str:
    """A file size for a message: MB from 1 MB up, kB below (so a small limit reads)."""
    if n_bytes >= 1024**2:
        return f"{n_bytes / 1024**2:.3g} MB"
    return f"{n_bytes / 1024:.3g} kB"
