"""Serially dependent data for the time-series tests: AR(1) series, a lagged non-linear
dependence, a change between two stretches, and a random-walk Metropolis chain.

Examples
--------
>>> import numpy as np
>>> x = ar1_series(2000, 0.9, rng=0)
>>> round(float(np.corrcoef(x[1:, 0], x[:-1, 0])[0, 1]), 1)
0.9
"""

from __future__ import annotations

import numpy as np
from scipy import signal

from .._validation import check_in_interval, check_positive_int, check_rng

#: steps run before an AR(1) series or a chain is kept (it starts near stationarity)
BURN_IN = 500


def ar1_series(n: int, phi: float, *, dim: int = 1, rng=None) -> np.ndarray:
    """(n, dim) stationary AR(1) series x_t = φ x_{t−1} + √(1 − φ²) e_t, e_t ~ N(0, I):
    unit marginal variance, lag-k autocorrelation φ^k."""
    n = check_positive_int(n, "n")
    phi = check_in_interval(phi, "phi", -1.0, 1.0)
    e = check_rng(rng).normal(size=(n + BURN_IN, check_positive_int(dim, "dim")))
    return signal.lfilter([np.sqrt(1.0 - phi * phi)], [1.0, -phi], e, axis=0)[BURN_IN:]


def independent_ar1_pair(n: int, phi: float, *, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """Two independent AR(1) series (H0 of independence, serially dependent)."""
    rng = check_rng(rng)
    return ar1_series(n, phi, rng=rng), ar1_series(n, phi, rng=rng)


def lagged_dependence(n: int, lag: int, strength: float, *, phi: float = 0.5,
                      rng=None) -> tuple[np.ndarray, np.ndarray]:
    """X an AR(1) series, Y_t = strength · cos(2 X_{t−lag}) + N(0, 1) noise: dependent
    only through a lag and not linearly (Pearson's r ≈ 0)."""
    rng = check_rng(rng)
    lag = check_positive_int(lag, "lag", minimum=0)
    x = ar1_series(n + lag, phi, rng=rng)
    y = strength * np.cos(2.0 * x[: n]) + rng.normal(size=(n, 1))
    return x[lag:], y


def stretches(n: int, phi: float, *, shift: float = 0.0, gap: int = 0,
              rng=None) -> tuple[np.ndarray, np.ndarray]:
    """Two stretches of n steps of one AR(1) series, ``gap`` steps apart, the second
    shifted by ``shift`` (H0 of the two-sample test when 0)."""
    z = ar1_series(2 * n + gap, phi, rng=rng)
    return z[:n], z[n + gap:] + shift


def random_walk_metropolis(n: int, step: float, *, target_scale: float = 1.0,
                           rng=None) -> np.ndarray:
    """(n, 1) random-walk Metropolis chain targeting N(0, target_scale²), proposals
    N(x, step²), started from the target (``BURN_IN`` steps dropped)."""
    rng = check_rng(rng)
    n = check_positive_int(n, "n")
    total = n + BURN_IN
    z, u = rng.normal(size=total) * step, np.log(rng.uniform(size=total))
    out = np.empty(total)
    current = rng.normal() * target_scale
    inv = 0.5 / target_scale**2
    for t in range(total):
        proposal = current + z[t]
        if u[t] < inv * (current * current - proposal * proposal):
            current = proposal
        out[t] = current
    return out[BURN_IN:, None]
