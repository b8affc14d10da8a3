"""Reading one file as a table: ``read_table`` (CSV, TSV, .npy, .npz, Parquet), with one
clear message for each kind of file it cannot use (see ``kmeviz.loading``)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pandas as pd

#: The largest file ``load_samples`` reads (bytes), unless told otherwise.
MAX_BYTES = 512 * 1024**2
#: Extension -> format name.
FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".npy": "npy", ".npz": "npz",
           ".parquet": "parquet"}
#: The group column of a ``.npz`` file (one group per array).
NPZ_GROUP = "array"


def read_table(source, *, name: str | None = None, max_bytes: int = MAX_BYTES
               ) -> pd.DataFrame:
    """Read one file (a path, or its bytes with ``name`` giving the format) as a table.

    Parameters
    ----------
    source : str, path-like or bytes
    name : str, optional
        The file name of ``source`` bytes (its extension picks the format).
    max_bytes : int

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
    reader = {"csv": _read_text, "tsv": _read_text, "npy": _read_npy, "npz": _read_npz,
              "parquet": _read_parquet}[kind]
    frame = reader(data, label, "\t" if kind == "tsv" else ",")
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValueError(f"{label} has no data rows")
    return frame


# -- the readers ------------------------------------------------------------------------
def _read_text(data: bytes, label: str, sep: str) -> pd.DataFrame:
    if b"\x00" in data[:8192]:
        raise ValueError(f"{label} is not a text table (it contains binary data); kmeviz "
                         f"reads {', '.join(FORMATS)}")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{label} is not UTF-8 text; save it as UTF-8 CSV") from None
    try:
        return pd.read_csv(io.BytesIO(data), sep=sep)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"{label} could not be read as a table: {first}") from None


def _read_npy(data: bytes, label: str, sep: str) -> pd.DataFrame:
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError):
        raise ValueError(f"{label} is not a numpy .npy file of numbers") from None
    return _array_frame(array, label)


def _read_npz(data: bytes, label: str, sep: str) -> pd.DataFrame:
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in archive.files}
    except (ValueError, OSError, EOFError):
        raise ValueError(f"{label} is not a numpy .npz file of numbers") from None
    if not arrays:
        raise ValueError(f"{label} holds no arrays")
    frames = [_array_frame(a, f"{label}[{key}]").assign(**{NPZ_GROUP: key})
              for key, a in arrays.items()]
    widths = {f.shape[1] for f in frames}
    if len(widths) != 1:
        raise ValueError(f"{label}: the arrays have different numbers of columns")
    return pd.concat(frames, ignore_index=True)


def _read_parquet(data: bytes, label: str, sep: str) -> pd.DataFrame:
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
