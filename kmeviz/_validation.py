"""Input checks for the public API: the only place where user input is coerced.

Every public function calls these helpers once; private helpers assume clean input.
Errors name the offending argument and show what was found.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .registry import GOF_TESTS, MMD_TESTS

#: The public functions and estimators, other than registered tests, that take dask arrays
#: (the registered tests say it in their entries: ``TestSpec.dask``).
DASK_FUNCTIONS = ("NystromKME", "mmd2_nystrom", "mmd2_fastmmd", "mmd2_linear", "mmd2_block",
                  "RandomFeatureKME", "ksd2_nystrom")


def dask_estimators() -> tuple[str, ...]:
    """Every public name that takes dask arrays: ``DASK_FUNCTIONS`` and the registered
    tests whose entry says ``dask=True`` (read from the registries, never copied)."""
    tests = [f"{registry.function}(estimator={spec.estimator!r}, null={spec.null!r})"
             for registry in (MMD_TESTS, GOF_TESTS) for spec in registry.dask_capable()]
    return (*DASK_FUNCTIONS, *tests)


def is_dask_array(x) -> bool:
    """True for a ``dask.array.Array`` (checked without importing dask)."""
    return type(x).__module__.split(".")[0] == "dask" and hasattr(x, "to_delayed")


class NotFittedError(ValueError, AttributeError, RuntimeError):
    """An estimator was used before ``fit``: a ValueError and an AttributeError as in
    scikit-learn, and a RuntimeError, the type kmeviz raised before it had this class.
    """


def check_is_fitted(estimator, attribute: str, fit_call: str = "fit(X)") -> None:
    """Raise NotFittedError unless ``estimator`` has the fitted ``attribute``."""
    if not hasattr(estimator, attribute):
        raise NotFittedError(f"this {type(estimator).__name__} is not fitted yet; call "
                             f"{fit_call} first")


def check_samples(X, name: str = "X", *, min_samples: int = 1) -> np.ndarray:
    """Return ``X`` as a finite float64 array of shape (n, d).

    Raises
    ------
    TypeError
        If ``X`` is complex, of object/string dtype, or not array-like.
    ValueError
        If ``X`` is not 2-D, is empty, has fewer than ``min_samples`` rows or
        contains NaN or inf.
    """
    if isinstance(X, (str, bytes)) or X is None:
        raise TypeError(f"{name} must be a 2-D array of real numbers, got {type(X).__name__}")
    if is_dask_array(X):  # np.asarray would load all of it
        raise TypeError(f"{name} is a dask array, which this function needs in memory; the "
                        f"estimators that take dask arrays are {', '.join(dask_estimators())} "
                        f"(or pass {name}.compute())")
    try:
        arr = np.asarray(X)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"{name} could not be converted to an array: {exc}") from None
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must be real-valued, got complex dtype {arr.dtype}")
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if arr.ndim != 2:
        hint = " (for 1-D data use X.reshape(-1, 1))" if arr.ndim == 1 else ""
        raise ValueError(f"{name} must be 2-D of shape (n, d), got shape {arr.shape}{hint}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must be non-empty, got shape {arr.shape}")
    if arr.shape[0] < min_samples:
        raise ValueError(f"{name} needs at least {min_samples} samples, got {arr.shape[0]}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s)")
    return arr


def check_pair(X, Y, *, min_samples: int = 1, names=("X", "Y")) -> tuple[np.ndarray, np.ndarray]:
    """Check two samples and that they live in the same dimension."""
    X = check_samples(X, names[0], min_samples=min_samples)
    Y = check_samples(Y, names[1], min_samples=min_samples)
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"{names[0]} and {names[1]} must have the same dimension, "
            f"got {names[0]}.shape={X.shape} and {names[1]}.shape={Y.shape}"
        )
    return X, Y


def check_rng(rng) -> np.random.Generator:
    """Turn ``rng`` (Generator, int seed, SeedSequence or None) into a Generator."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (numbers.Integral, np.random.SeedSequence)):
        if isinstance(rng, numbers.Integral) and rng < 0:
            raise ValueError(f"rng seed must be non-negative, got {rng}")
        return np.random.default_rng(rng)
    raise TypeError(
        f"rng must be a numpy Generator, an int seed or None, got {type(rng).__name__}"
    )


def check_real(value, name: str) -> float:
    """Return ``value`` as a finite Python float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return value


def check_positive(value, name: str) -> float:
    """Return ``value`` as a float, raising unless it is finite and > 0."""
    value = check_real(value, name)
    if value <= 0:
        raise ValueError(f"{name} must be > 0, got {value}")
    return value


#: The range of a kernel's length scale whose square and inverse square are finite floats.
SCALE_RANGE = (1e-150, 1e150)


def check_scale(value, name: str) -> float:
    """Return a kernel length scale (bandwidth, c) as a float, raising unless it is > 0
    and within ``SCALE_RANGE``, where its square and inverse square are finite (a
    bandwidth of 1e-300 would make every Gram entry NaN)."""
    value = check_positive(value, name)
    low, high = SCALE_RANGE
    if not low <= value <= high:
        raise ValueError(f"{name} must lie between {low:g} and {high:g} (its square and "
                         f"inverse square must be finite), got {value:g}")
    return value


def check_in_interval(value, name: str, low: float, high: float) -> float:
    """Return ``value`` as a float, raising unless ``low < value < high``."""
    value = check_real(value, name)
    if not low < value < high:
        raise ValueError(f"{name} must lie in the open interval ({low}, {high}), got {value}")
    return value


def check_positive_int(value, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an int, raising unless it is an integer >= ``minimum``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def check_choice(value, name: str, choices) -> str:
    """Raise unless ``value`` is one of ``choices``."""
    if value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return value


def table_and_columns(table, columns, what: str):
    """(a DataFrame of ``table`` — an array's columns named x0, x1, ... —, the chosen
    column names, at least 2 and all in it); ``what`` names the caller in the message."""
    frame = table if isinstance(table, pd.DataFrame) else pd.DataFrame(
        np.asarray(table)).rename(columns=lambda j: f"x{j}")
    names = list(frame.columns) if columns is None else list(columns)
    missing = [c for c in names if c not in frame.columns]
    if missing:
        raise ValueError(f"columns {missing} are not in the table")
    if len(names) < 2:
        raise ValueError(f"columns: {what} needs at least 2 columns")
    return frame, names
