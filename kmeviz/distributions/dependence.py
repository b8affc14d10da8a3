"""Paired samples (X, Y) with a known kind and strength of dependence, from the
independence-testing literature: each ``(n, parameter, *, noise, rng) -> (X, Y)`` with
X and Y of shape (n, 1). ``DEPENDENCE_PROBLEMS`` names them with their parameter.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int, check_real, check_rng


def _checked(n, parameter, noise, rng):
    n = check_positive_int(n, "n")
    parameter = check_real(parameter, "parameter")
    noise = check_real(noise, "noise")
    if noise < 0:
        raise ValueError(f"noise must be >= 0, got {noise}")
    return n, parameter, noise, check_rng(rng)


def sinusoid(n: int, frequency: float = 1.0, *, noise: float = 0.0, rng=None):
    """p(x, y) ∝ 1 + sin(ℓx) sin(ℓy) on [−π, π]² (Sejdinovic et al. 2013; the benchmark of
    HSICAgg, Albert et al. 2022), drawn by rejection; ℓ = ``frequency`` (ℓ = 0:
    independent uniforms). The higher ℓ, the finer the checkerboard and the harder the
    test. ``noise`` adds N(0, noise²) to Y."""
    n, ell, noise, rng = _checked(n, frequency, noise, rng)
    out = np.empty((0, 2))
    while out.shape[0] < n:
        proposal = rng.uniform(-np.pi, np.pi, size=(2 * n, 2))
        density = 1.0 + np.sin(ell * proposal[:, 0]) * np.sin(ell * proposal[:, 1])
        out = np.vstack([out, proposal[rng.uniform(0.0, 2.0, size=2 * n) < density]])
    out = out[:n]
    return out[:, :1], out[:, 1:] + noise * rng.standard_normal((n, 1))


def rotated_sources(n: int, angle: float = np.pi / 8, *, noise: float = 0.0, rng=None):
    """Two independent unit-variance uniform sources rotated by ``angle`` θ (Gretton et al.
    2005's ICA benchmark): uncorrelated for every θ, independent only when θ is a
    multiple of π/2, most dependent at π/4."""
    n, theta, noise, rng = _checked(n, angle, noise, rng)
    S = rng.uniform(-np.sqrt(3.0), np.sqrt(3.0), size=(n, 2))
    c, s = np.cos(theta), np.sin(theta)
    Z = S @ np.array([[c, s], [-s, c]])
    return Z[:, :1], Z[:, 1:] + noise * rng.standard_normal((n, 1))


def noisy_circle(n: int, noise: float = 0.1, *, rng=None):
    """(cos t, sin t) + N(0, noise² I), t uniform: uncorrelated, dependent for every
    noise level (the less noise, the plainer)."""
    n, noise, _, rng = _checked(n, noise, 0.0, rng)
    t = rng.uniform(0.0, 2.0 * np.pi, size=n)
    Z = np.column_stack([np.cos(t), np.sin(t)]) + noise * rng.standard_normal((n, 2))
    return Z[:, :1], Z[:, 1:]


def xor(n: int, noise: float = 0.1, *, rng=None):
    """X uniform on [−1, 1]; Y > 0 exactly when |X| < ½ (the XOR of the two bits
    [|X| < ½] and [Y > 0] is 1), |Y| uniform on [0, 1], plus N(0, noise²): E[XY] = 0 by
    symmetry, so Pearson's r is 0, yet Y's sign is a function of X."""
    n, noise, _, rng = _checked(n, noise, 0.0, rng)
    x = rng.uniform(-1.0, 1.0, size=n)
    y = np.where(np.abs(x) < 0.5, 1.0, -1.0) * rng.uniform(0.0, 1.0, size=n)
    return x[:, None], (y + noise * rng.standard_normal(n))[:, None]


def correlated_gaussians(n: int, correlation: float = 0.3, *, noise: float = 0.0, rng=None):
    """(X, Y) standard bivariate normal with correlation ρ: the dependence Pearson's r
    measures (independent exactly when ρ = 0)."""
    n, rho, noise, rng = _checked(n, correlation, noise, rng)
    if not -1.0 <= rho <= 1.0:
        raise ValueError(f"correlation must be in [-1, 1], got {rho}")
    Z = rng.standard_normal((n, 2))
    y = rho * Z[:, 0] + np.sqrt(1.0 - rho**2) * Z[:, 1]
    return Z[:, :1], (y + noise * rng.standard_normal(n))[:, None]


#: name -> (generator, its parameter's name, the parameter's independent value, a default)
DEPENDENCE_PROBLEMS = {
    "sinusoid": (sinusoid, "frequency ℓ", 0.0, 1.0),
    "rotated sources": (rotated_sources, "angle θ", 0.0, np.pi / 8),
    "noisy circle": (noisy_circle, "noise", None, 0.1),
    "xor": (xor, "noise", None, 0.1),
    "correlated Gaussians": (correlated_gaussians, "correlation ρ", 0.0, 0.3),
}
