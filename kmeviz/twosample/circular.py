"""Circular discrepancy: FastMMD seen as an ensemble of 1-D problems on the unit circle.

For a fixed frequency ω both samples are projected on ω and wrapped on the unit
circle (Eqs. (5)–(6) of Zhao & Meng). The circular discrepancy (Def. 2, Eq. (7))
is the amplitude A of the sinusoid Σ_i a_i sin(y - ω'x_i) = A sin(y - θ), a_i = 1/m
on X and -1/n on Y (Claim 5). The objective peaks at y* = θ + π/2 (App. A.5 says
y = θ, but with its own atan2 convention the sine peaks a quarter turn later);
the diameter through y* and y* + π is the *decision diameter*: sin(y* - x) is the
signed distance of a wrapped point x from it, so the samples lie, on average, on
opposite sides.
Averaging A² over ω ~ p(ω) gives MMD²_b (Def. 3, Claim 6).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_pair, check_samples
from ..kernels import check_kernel

TWO_PI = 2.0 * np.pi


@dataclass(frozen=True)
class CircularDiscrepancy:
    """Both samples wrapped on the circle for one ω, and their sinusoid summaries.

    Attributes
    ----------
    omega : array (d,)
    angles_x, angles_y : arrays (m,), (n,)
        mod(ω'x_i, 2π) for each sample (Eqs. (5), (6)).
    amplitude_x, phase_x, amplitude_y, phase_y : float
        A_1, θ_1 and A_2, θ_2 of (1/m) Σ sin(y - ω'x_i) and (1/n) Σ sin(y - ω'y_j)
        (Alg. 1, steps 4–5).
    amplitude, phase : float
        A and θ of the difference, so the objective of Eq. (8) is A sin(y - θ); A is
        the circular discrepancy η (Claim 5).

    Parameters
    ----------
    omega : array (d,)
    angles_x, angles_y : arrays (m,), (n,)
    amplitude_x, phase_x, amplitude_y, phase_y, amplitude, phase : float
        As the attributes above (``circular_discrepancy`` computes them).
    """

    omega: np.ndarray
    angles_x: np.ndarray
    angles_y: np.ndarray
    amplitude_x: float
    phase_x: float
    amplitude_y: float
    phase_y: float
    amplitude: float
    phase: float

    def objective(self, y) -> np.ndarray:
        """Σ_i a_i sin(y - x_i) (Eq. (8)) evaluated directly from the wrapped points."""
        y = np.atleast_1d(np.asarray(y, dtype=np.float64))
        sx = np.sin(y[:, None] - self.angles_x[None, :]).mean(axis=1)
        sy = np.sin(y[:, None] - self.angles_y[None, :]).mean(axis=1)
        return sx - sy

    @property
    def maximiser(self) -> float:
        """y* = θ + π/2 (mod 2π), where the objective reaches its maximum A."""
        return (self.phase + 0.5 * np.pi) % TWO_PI

    @property
    def decision_diameter(self) -> tuple[float, float]:
        """Angles (y*, y* + π mod 2π) of the diameter maximising / minimising Eq. (8)."""
        return self.maximiser, (self.maximiser + np.pi) % TWO_PI


def _amplitude_phase(angles: np.ndarray) -> tuple[float, float]:
    """A, θ with (1/n) Σ sin(y - t_i) = A sin(y - θ) (App. A.5)."""
    c, s = np.cos(angles).mean(), np.sin(angles).mean()
    return float(np.hypot(c, s)), float(np.arctan2(s, c))


def circular_discrepancy(X, Y, omega) -> CircularDiscrepancy:
    """Wrap X and Y on the unit circle along ``omega`` and summarise (Sec. 3).

    Parameters
    ----------
    X : array (m, d)
    Y : array (n, d)
    omega : array (d,)

    Returns
    -------
    CircularDiscrepancy
        The wrapped angles and the amplitudes and phases of Alg. 1, steps 4–6.

    Examples
    --------
    >>> import numpy as np
    >>> cd = circular_discrepancy(np.zeros((4, 1)), np.full((4, 1), np.pi), [1.0])
    >>> round(cd.amplitude, 12)  # the two samples sit at opposite ends of a diameter
    2.0
    """
    X, Y = check_pair(X, Y)
    omega = check_samples(np.reshape(omega, (1, -1)), "omega")[0]
    if omega.shape[0] != X.shape[1]:
        raise ValueError(f"omega has dimension {omega.shape[0]}, X and Y have {X.shape[1]}")
    tx, ty = (X @ omega) % TWO_PI, (Y @ omega) % TWO_PI
    a1, t1 = _amplitude_phase(tx)
    a2, t2 = _amplitude_phase(ty)
    c = a1 * np.cos(t1) - a2 * np.cos(t2)
    s = a1 * np.sin(t1) - a2 * np.sin(t2)
    return CircularDiscrepancy(
        omega, tx, ty, a1, t1, a2, t2, float(np.hypot(c, s)), float(np.arctan2(s, c))
    )


#: the bytes of one block of projections ``circular_ensemble`` holds (per sample)
ENSEMBLE_BLOCK_BYTES = 8 * 1024**2


def circular_ensemble(X, Y, frequencies, *, kernel=None) -> np.ndarray:
    """Squared circular discrepancies η²(ω_k) for each row of ``frequencies`` (L, d).

    ``K(0) * mean(η²)`` over ω ~ p(ω) is the ensemble η̄² of Def. 3, equal to the
    random-feature MMD²_b with the same frequencies (Claim 6). With ``kernel`` the
    values are multiplied by its K(0), so the running mean estimates MMD²_b directly.

    FastMMD Sec. 3: MMD² as the ensemble of circular discrepancies.

    Parameters
    ----------
    X : array (m, d)
    Y : array (n, d)
    frequencies : array (L, d)
        The ω_k, e.g. ``kernel.sample_frequencies(L, d)``.
    kernel : ShiftInvariantKernel, optional
        Multiply by its K(0).

    Returns
    -------
    array (L,)
        η²(ω_k) (times K(0) with ``kernel``).
    """
    X, Y = check_pair(X, Y)
    W = check_samples(frequencies, "frequencies")
    if W.shape[1] != X.shape[1]:
        raise ValueError(f"frequencies have dimension {W.shape[1]}, X and Y have {X.shape[1]}")
    k0 = 1.0 if kernel is None else check_kernel(kernel, shift_invariant=True).value_at_zero
    out = np.empty(W.shape[0])
    # the frequencies in blocks of at most ENSEMBLE_BLOCK_BYTES of projections: O(n) memory
    # whatever L (n = 3000 with L = 8192 held about 800 MB of projections and cosines)
    block = max(1, ENSEMBLE_BLOCK_BYTES // (8 * max(X.shape[0], Y.shape[0])))
    for start in range(0, W.shape[0], block):
        Wb = W[start:start + block].T
        PX, PY = X @ Wb, Y @ Wb
        c = np.cos(PX).mean(axis=0) - np.cos(PY).mean(axis=0)
        s = np.sin(PX).mean(axis=0) - np.sin(PY).mean(axis=0)
        out[start:start + block] = k0 * (c**2 + s**2)
    return out


def running_mean(values) -> np.ndarray:
    """Running mean of a 1-D sequence: the ensemble estimate after L = 1, 2, ... draws."""
    values = np.asarray(values, dtype=np.float64)
    return np.cumsum(values) / np.arange(1, values.size + 1)
