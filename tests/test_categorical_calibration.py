"""Calibration with a categorical X (issue 56, point 2): under H0 the tests reject at
about α when X is a label. HSIC with the delta kernel on X (``CategoricalKernel``) and
KCI on X's integer codes given Z, the kernels the loaders and the command line choose
for a categorical column. Slow: 300 draws per test, the Clopper–Pearson 99 % interval of
the rejection rate must hold α = 0.05."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import kmeviz as K
from kmeviz.kernels.categorical import CategoricalKernel

DRAWS = 300
ALPHA = 0.05


def _holds_alpha(hits: int, draws: int = DRAWS) -> bool:
    ci = stats.binomtest(hits, draws).proportion_ci(0.99, method="exact")
    return ci.low <= ALPHA <= ci.high


def independent_label(n: int, seed: int):
    """X a 4-level label with unequal frequencies, Y a skewed number independent of it."""
    rng = np.random.default_rng(seed)
    X = rng.choice(4, size=(n, 1), p=[0.4, 0.3, 0.2, 0.1]).astype(float)
    Y = rng.exponential(size=(n, 1))
    return X, Y


def label_given_z(n: int, seed: int):
    """A fork through Z: X the tercile label of Z + noise, Y = sin(Z) + noise; X ⫫ Y | Z."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 1))
    X = np.digitize(Z + 0.5 * rng.normal(size=(n, 1)), [-0.5, 0.5]).astype(float)
    Y = np.sin(2 * Z) + 0.3 * rng.normal(size=(n, 1))
    return X, Y, Z


@pytest.mark.slow
@pytest.mark.parametrize("null", ["gamma", "permutation", "spectral"])
def test_hsic_with_the_delta_kernel_holds_its_level(null):
    hits = 0
    for draw in range(DRAWS):
        X, Y = independent_label(200, 20_000 + draw)
        hits += K.hsic_test(X, Y, kernel_x=CategoricalKernel(), estimator="biased",
                            null=null, n_resamples=300, alpha=ALPHA, rng=draw).reject
    assert _holds_alpha(hits), hits


@pytest.mark.slow
@pytest.mark.parametrize("null", ["gamma", "spectral"])
def test_kci_with_a_categorical_x_holds_its_level(null):
    hits = 0
    for draw in range(DRAWS):
        X, Y, Z = label_given_z(300, 30_000 + draw)
        hits += K.ci_test(X, Y, Z, estimator="kci", null=null, n_resamples=300,
                          alpha=ALPHA, rng=draw).reject
    assert _holds_alpha(hits), hits


def test_the_label_is_dependent_marginally_and_the_tests_see_it():
    """The fork is a real test of conditioning: without Z the label and Y depend."""
    X, Y, Z = label_given_z(300, 1)
    assert K.hsic_test(X, Y, kernel_x=CategoricalKernel(), rng=0).p_value < 1e-3
