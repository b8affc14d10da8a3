"""Conditional independence tests (``ci_test``): each (estimator, null) pair is one entry of
``kmeviz.registry.CONDITIONAL_TESTS``, registered below on the function computing it.

- ``"kci"`` (Zhang et al. 2011, ``kci``): exact, cubic in n; Gamma or spectral null.
- ``"nystrom"``: KCI with Nyström features of the same kernels (``features``); linear.
- ``"rcit"``, ``"rcot"`` (Strobl et al. 2019, ``features``): random Fourier features;
  linear.

Every column is z-scored first (as in the authors' codes). p-values of simulated nulls
are (1 + #{null ≥ statistic}) / (1 + B).
"""

from __future__ import annotations

from functools import partial

import numpy as np
from scipy import stats

from ..chunked import is_dask_array
from ..independence.hsic import weighted_chi2_draws
from ..independence.large_scale import nystrom_map, rff_map
from ..independence.measures import default_variable_kernel
from ..kernels.engine import single_threaded_blas
from ..needs import Needs
from ..registry import CONDITIONAL_TESTS, SPECTRAL_FLOPS, NullsByEstimator, Outcome
from .features import RCOT_RIDGE, FeatureResiduals
from .kci import KernelTriple, augmented, default_kci_kernels, residual_grams

#: Default landmarks of Nyström KCI: (Ẍ and Y, Z). Its null costs (m_X m_Y)² per row.
NYSTROM_LANDMARKS = (30, 100)
#: Default frequencies of RCIT/RCoT: (X and Y, Z), as [cos, sin] pairs: 6 and 100
#: features (the authors' defaults are 5 and 100 cosines).
RCOT_FREQUENCIES = (3, 50)


def _cubic(N, d, B) -> float:
    return 3.0 * N * N * (2.0 * d + 40) + 8.0 * N**3 / 4 + 2e8


def _gamma_outcome(moments: dict, statistic: float, fitted: dict) -> Outcome:
    return Outcome(statistic, null_dist=stats.gamma(moments["shape"], scale=moments["scale"]),
                   null_params=moments, fitted=fitted, one_pass=False)


def _spectral_outcome(weights, statistic, n_resamples, rng, fitted) -> Outcome:
    return Outcome(statistic, null_samples=weighted_chi2_draws(weights, n_resamples, rng),
                   null_params={"eigenvalues": weights}, fitted=fitted, one_pass=False)


# -- KCI ----------------------------------------------------------------------------------
def _kci(X, Y, Z, kernel, epsilon, eigen_threshold):
    eps_x, eps_y = epsilon
    grams = residual_grams(augmented(X, Z), Y, Z, kernel, eps_x, eps_y)
    fitted = {"epsilon": epsilon, "factor_ranks": tuple(
        None if g.factor is None else g.factor.shape[1] for g in (grams.x, grams.y))}
    return grams.statistic(), grams.truncated(eigen_threshold), fitted


def kci_kernels(X, Y, Z) -> KernelTriple:
    """KCI's and Nyström KCI's defaults: the authors' empirical Gaussian widths."""
    return default_kci_kernels(X.shape[0], Z.shape[1])


def rcot_kernels(X, Y, Z) -> KernelTriple:
    """RCoT's defaults: the median heuristic of each (z-scored) variable."""
    return KernelTriple(*(default_variable_kernel(V, name)
                          for V, name in ((X, "X"), (Y, "Y"), (Z, "Z"))))


def rcit_kernels(X, Y, Z) -> KernelTriple:
    """RCIT's defaults: as RCoT's, with Y's kernel on Ÿ = (Y, Z)."""
    return rcot_kernels(X, np.hstack([Y, Z]), Z)


@CONDITIONAL_TESTS.register("kci", "gamma", cost="cubic", options=("epsilon",
                            "eigen_threshold"), work=_cubic, default_kernel=kci_kernels,
                            summary="KCI (Zhang et al. 2011), Gamma null from traces")
def kci_gamma(X, Y, Z, kernel, *, estimator, n_resamples, rng, epsilon,
              eigen_threshold) -> Outcome:
    """KCI with the Gamma null (``ResidualGrams.gamma_moments``)."""
    statistic, grams, fitted = _kci(X, Y, Z, kernel, epsilon, eigen_threshold)
    return _gamma_outcome(grams.gamma_moments(), statistic, fitted)


@CONDITIONAL_TESTS.register("kci", "spectral", cost="cubic", options=("epsilon",
                            "eigen_threshold"), default_kernel=kci_kernels,
                            work=lambda N, d, B: _cubic(N, d, B) + 2 * N**3 + SPECTRAL_FLOPS,
                            summary="KCI, weighted χ² null from the eigenvalues of W")
def kci_spectral(X, Y, Z, kernel, *, estimator, n_resamples, rng, epsilon,
                 eigen_threshold) -> Outcome:
    """KCI with the spectral null (``ResidualGrams.spectral_weights``)."""
    statistic, grams, fitted = _kci(X, Y, Z, kernel, epsilon, eigen_threshold)
    return _spectral_outcome(grams.spectral_weights(), statistic, n_resamples, rng, fitted)


# -- the feature tests --------------------------------------------------------------------
def _joined(A, B):
    """[A, B] side by side; a dask result rechunked to whole rows (the row-block passes
    read one column chunk)."""
    out = np.hstack([A, B])
    return out.rechunk({1: -1}) if is_dask_array(out) else out


def _nystrom(X, Y, Z, kernel, epsilon, n_landmarks, rng) -> tuple[FeatureResiduals, dict]:
    m_xy, m_z = n_landmarks or NYSTROM_LANDMARKS
    Xa = _joined(X, 0.5 * Z)  # Ẍ = (X, Z/2), ``kci.augmented``
    maps = (nystrom_map(kernel.x, Xa, m_xy, rng), nystrom_map(kernel.y, Y, m_xy, rng),
            nystrom_map(kernel.z, Z, m_z, rng))
    res = FeatureResiduals(maps, (Xa, Y, Z), ridge=epsilon[0] / X.shape[0])
    return res, {"epsilon": epsilon, "n_landmarks": (m_xy, m_z)}


_NYSTROM = {"cost": "linear", "dask": True, "options": ("epsilon", "n_landmarks"),
            "default_kernel": kci_kernels,
            "work": lambda N, d, B: N * (30.0**4 + 2 * 100**2 + 300 * (2 * d + 40)) + 1e8}
#: the spectral null's (m_X m_Y)-dimensional eigenproblem and its simulation, on top
_NYSTROM_SPECTRAL = {**_NYSTROM, "work": lambda N, d, B: 2.5 * _NYSTROM["work"](N, d, B)
                     + 8e8}


@CONDITIONAL_TESTS.register("nystrom", "gamma", **_NYSTROM,
                            summary="KCI of Nyström features (30, 30, 100 landmarks), Gamma")
def nystrom_gamma(X, Y, Z, kernel, *, estimator, n_resamples, rng, epsilon,
                  n_landmarks) -> Outcome:
    """Nyström KCI with the Gamma null."""
    res, fitted = _nystrom(X, Y, Z, kernel, epsilon, n_landmarks, rng)
    return _gamma_outcome(res.gamma_moments(), res.statistic(), fitted)


@CONDITIONAL_TESTS.register("nystrom", "spectral", **_NYSTROM_SPECTRAL,
                            summary="KCI of Nyström features, weighted χ² null")
def nystrom_spectral(X, Y, Z, kernel, *, estimator, n_resamples, rng, epsilon,
                     n_landmarks) -> Outcome:
    """Nyström KCI with the spectral null."""
    res, fitted = _nystrom(X, Y, Z, kernel, epsilon, n_landmarks, rng)
    return _spectral_outcome(res.spectral_weights(), res.statistic(), n_resamples, rng,
                             fitted)


def _fourier(X, Y, Z, kernel, n_features, rng, condition_y: bool) -> FeatureResiduals:
    """RCoT's residual features (its callers hold BLAS to one thread: the products are
    n × 100 and the eigendecompositions 100 × 100, too small for BLAS's threads, whose
    wake-ups made the whole test take 0.01 s or 0.2 s by chance at n = 2000)."""
    L_xy, L_z = n_features or RCOT_FREQUENCIES
    Yc = _joined(Y, Z) if condition_y else Y
    maps = (rff_map(kernel.x, X, L_xy, rng), rff_map(kernel.y, Yc, L_xy, rng),
            rff_map(kernel.z, Z, L_z, rng))
    return FeatureResiduals(maps, (X, Yc, Z), ridge=RCOT_RIDGE)


_RFF_WORK = {"cost": "linear", "dask": True, "options": ("n_features",),
             "needs": Needs.SHIFT_INVARIANT_KERNEL,
             "work": lambda N, d, B: 1.8e5 * N}  # fitted at n = 2000 and 20 000


def fourier_spectral(X, Y, Z, kernel, *, estimator, n_resamples, rng, n_features,
                     condition_y=False) -> Outcome:
    """RCoT (RCIT with ``condition_y``: Ÿ = (Y, Z)) with the weighted χ² null of the
    product features' covariance."""
    with single_threaded_blas():
        res = _fourier(X, Y, Z, kernel, n_features, rng, condition_y=condition_y)
        return _spectral_outcome(res.spectral_weights(), res.statistic(), n_resamples,
                                 rng, {"n_features": n_features or RCOT_FREQUENCIES})


CONDITIONAL_TESTS.register("rcit", "spectral", **_RFF_WORK, default_kernel=rcit_kernels,
                           summary="RCIT: RCoT with Ÿ = (Y, Z)")(
    partial(fourier_spectral, condition_y=True))
CONDITIONAL_TESTS.register("rcot", "spectral", **_RFF_WORK, default_kernel=rcot_kernels,
                           summary="RCoT (Strobl et al. 2019): Fourier features, χ² mixture")(
    fourier_spectral)


@CONDITIONAL_TESTS.register("rcot", "gamma", **_RFF_WORK, default_kernel=rcot_kernels,
                            summary="RCoT, Satterthwaite–Welch Gamma null")
def rcot_gamma(X, Y, Z, kernel, *, estimator, n_resamples, rng, n_features) -> Outcome:
    """RCoT with the Gamma law of the same mean and variance."""
    with single_threaded_blas():
        res = _fourier(X, Y, Z, kernel, n_features, rng, condition_y=False)
        return _gamma_outcome(res.gamma_moments(), res.statistic(),
                              {"n_features": n_features or RCOT_FREQUENCIES})


#: Estimator -> the nulls that are valid for it (a live view of the registry).
VALID_CONDITIONAL_NULLS = NullsByEstimator(CONDITIONAL_TESTS)
