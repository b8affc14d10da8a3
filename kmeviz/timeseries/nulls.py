"""Nulls for rows in time order, shared by MMD, KSD and HSIC: the dependent wild bootstrap
(Chwialkowski, Sejdinovic & Gretton 2014) and circular shifts (Chwialkowski & Gretton
2014), each vectorised over its replicates.

- ``multiplier_process``: W_t = e^{−1/ℓ} W_{t−1} + √(1 − e^{−2/ℓ}) ε_t, ε_t i.i.d.
  N(0, 1), W_1 = ε_1 (2014, Sec. 3): stationary, unit variance, autocovariance
  e^{−|s−t|/ℓ}. At ℓ → 0 it is i.i.d. N(0, 1) (the i.i.d. wild bootstrap's multipliers).
- ``flip_probability``: the ±1 Markov chain of Chwialkowski, Strathmann & Gretton 2016
  (Kalinke et al. Eq. 10) with the same autocovariance e^{−|k|/ℓ}: flip probability
  (1 − e^{−1/ℓ}) / 2 (½ at ℓ → 0, i.i.d. signs).
- ``wild_length``: ℓ from the data (the rule below), ``min_shift``: the shortest shift.
- ``shifted_statistics``: HSIC_b(X, Y shifted by s) for *every* circular shift s in
  O(n² log n), by FFTs along the Grams' circulant diagonals.

The rule for ℓ: the theory needs ℓ → ∞ with ℓ = o(n) (2014, Thm. 1) and the authors'
experiments fix it by hand. kmeviz measures the rows' memory instead: ρ the largest
lag-1 autocorrelation (clipped to [0, 0.99]) over the columns of the samples (for HSIC,
ρ_X · ρ_Y), τ = (1 + ρ)/(1 − ρ) the AR(1) integrated autocorrelation time, and ℓ = scale
· τ, at least 1 and at most a fraction of n (``WILD_SCALES``, ``MAX_LENGTH_FRACTION``),
chosen by the calibration in ``docs/results/timeseries_calibration.txt``.

The multipliers are not centred (the paper's V_b1); the kernel is centred instead: HSIC's
Grams are doubly centred, and MMD's joint Gram by the pooled mean (u ↦ u − ū in uᵀKu). On
AR(1) series with φ = 0.9 at n = 300, centring the multipliers (V_b2) rejected 10–13 % of
independent pairs at α = 0.05: the mean of a slowly varying W absorbs much of its
variance.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import signal

from .._validation import check_rng
from .serial import ljung_box_columns

#: ℓ = scale · τ of each family (module docstring); HSIC's τ is that of ρ_X · ρ_Y
WILD_SCALES = {"two-sample": 3.0, "gof": 5.0, "independence": 2.0}
#: ℓ is at most this fraction of n (ℓ = o(n) in theory), by family: KSD's sign chain at
#: n/5 left a chain of N(0, 2²) tested against N(0, 1) at p ≈ 0.1 (n = 500)
MAX_LENGTH_FRACTION = {"two-sample": 0.2, "gof": 0.1, "independence": 0.2}
#: the shortest circular shift, in integrated autocorrelation times τ (at least MIN_SHIFT)
SHIFT_SCALE = 5.0
MIN_SHIFT = 10


def largest_lag1(*samples) -> float:
    """ρ: the largest lag-1 autocorrelation over every non-constant column of the samples,
    clipped to [0, 0.99] (0 for samples of constant columns)."""
    rho = 0.0
    for Z in samples:
        Z = np.asarray(Z, dtype=float)
        Z = Z[:, None] if Z.ndim == 1 else Z
        if Z.shape[0] < 3:
            continue
        _, _, lag1 = ljung_box_columns(Z, lags=1)
        if np.any(~np.isnan(lag1)):
            rho = max(rho, float(np.nanmax(lag1)))
    return min(max(rho, 0.0), 0.99)


def autocorrelation_time(*samples) -> float:
    """τ = (1 + ρ)/(1 − ρ), ρ = ``largest_lag1(*samples)``: the AR(1) integrated
    autocorrelation time (1 for i.i.d. rows)."""
    rho = largest_lag1(*samples)
    return (1.0 + rho) / (1.0 - rho)


def wild_length(n: int, *samples, scale: float = 1.0, product: bool = False,
                cap: float = 0.2) -> float:
    """The default ℓ of the dependent wild bootstrap (module docstring's rule): ``scale``
    · τ, τ of the largest lag-1 autocorrelation ρ over the samples, or with ``product``
    of ρ_X · ρ_Y (HSIC's terms k̃(x_i, x_j) l̃(y_i, y_j) decorrelate at that rate)."""
    if product:
        rho = float(np.prod([largest_lag1(Z) for Z in samples]))
    else:
        rho = largest_lag1(*samples)
    tau = (1.0 + rho) / (1.0 - rho)
    return float(min(max(1.0, scale * tau), max(1.0, n * cap)))


def min_shift(n: int, *samples) -> int:
    """The default shortest shift: ``SHIFT_SCALE`` · τ, at least ``MIN_SHIFT``, at most
    n / 4."""
    return int(min(max(MIN_SHIFT, math.ceil(SHIFT_SCALE * autocorrelation_time(*samples))),
                   n // 4))


def multiplier_process(n: int, n_resamples: int, length: float, rng) -> np.ndarray:
    """(n, B) independent paths of W_t = a W_{t−1} + √(1 − a²) ε_t, a = e^{−1/ℓ}, W_1 =
    ε_1 (Chwialkowski et al. 2014, Sec. 3), one linear filter down the rows."""
    return multiplier_filter(check_rng(rng).standard_normal((n, n_resamples)), length)


def multiplier_filter(eps: np.ndarray, length: float) -> np.ndarray:
    """The multiplier process of innovations ``eps`` (n, B) (overwritten): W_1 = ε_1, W_t
    = a W_{t−1} + √(1 − a²) ε_t with a = e^{−1/ℓ}, as one linear filter down the rows."""
    a = math.exp(-1.0 / length) if length > 0 else 0.0
    b = math.sqrt(1.0 - a * a)
    if a == 0.0:
        return eps
    eps[0] /= b  # so that W_1 = b · (ε_1 / b) = ε_1
    return signal.lfilter([b], [1.0, -a], eps, axis=0)


def flip_probability(length: float) -> float:
    """The sign chain's flip probability with autocovariance e^{−|k|/ℓ}: (1 − e^{−1/ℓ})/2."""
    return 0.5 * (1.0 - (math.exp(-1.0 / length) if length > 0 else 0.0))


def quadratic_replicates(H: np.ndarray, W: np.ndarray, block: int = 256) -> np.ndarray:
    """wᵀ H w / n² for each column w of W (n, B): H W in column blocks of ``block``."""
    n, B = W.shape
    out = np.empty(B)
    for start in range(0, B, block):
        part = W[:, start:start + block]
        out[start:start + block] = np.einsum("ij,ij->j", H @ part, part)
    return out / n**2


def circulant_diagonals(G: np.ndarray) -> np.ndarray:
    """D with D[i, d] = G[i, (i + d) mod n], in place (row i rolled left by i)."""
    n = G.shape[0]
    for i in range(1, n):
        row = G[i]
        row[:] = np.concatenate((row[i:], row[:i]))
    return G


def shifted_statistics(Kc: np.ndarray, Lc: np.ndarray, block: int = 512) -> np.ndarray:
    """T(s) = (1/n²) Σ_ij K̃_ij L̃_{i+s, j+s} (indices mod n) for every s = 0 … n−1:
    HSIC_b of X against Y circularly shifted by s. With D_K, D_L the circulant diagonals
    (``circulant_diagonals``), T(s) = (1/n²) Σ_d Σ_i D_K[i, d] D_L[i + s, d], a circular
    cross-correlation down each column: one real FFT per column, summed over d, one
    inverse FFT. Overwrites Kc and Lc."""
    n = Kc.shape[0]
    DK, DL = circulant_diagonals(Kc), circulant_diagonals(Lc)
    spectrum = np.zeros(n // 2 + 1, dtype=complex)
    for start in range(0, n, block):
        fk = np.fft.rfft(DK[:, start:start + block], axis=0)
        fl = np.fft.rfft(DL[:, start:start + block], axis=0)
        spectrum += np.einsum("ij,ij->i", np.conj(fk), fl)
    return np.fft.irfft(spectrum, n) / n**2


def effective_count(values: np.ndarray) -> float:
    """S / τ: the number of effectively independent values of a sequence of S correlated
    replicates (neighbouring shifts give nearly equal statistics), τ = 1 + 2 Σ_k ρ̂_k its
    integrated autocorrelation time, summed while ρ̂_k > 0 (at most S/4 lags)."""
    v = np.asarray(values, dtype=float)
    c = v - v.mean()
    energy = float(c @ c)
    if v.size < 4 or energy <= 0:
        return float(v.size)
    tau = 1.0
    for k in range(1, v.size // 4):
        rho = float(c[:-k] @ c[k:]) / energy
        if rho <= 0:
            break
        tau += 2.0 * rho
    return v.size / tau


def max_over_lags(T: np.ndarray, max_lag: int) -> np.ndarray:
    """M(s) = max_{|k| ≤ max_lag} T(s + k) (indices mod n): the lag search's statistic at
    every shift."""
    if max_lag == 0:
        return T.copy()
    n = T.shape[0]
    padded = np.concatenate((T[-max_lag:], T, T[:max_lag]))
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * max_lag + 1)
    return windows.max(axis=1)[:n]


def default_max_lag(n: int) -> int:
    """The lag search's default largest lag K = ⌈log n⌉, hyppo's DcorrX default (Mehta et
    al. 2019), searched in both directions here."""
    return int(math.ceil(math.log(n)))
