"""Exercises of notebooks 01 and 02: MMD, its witness, and two-sample tests."""

from __future__ import annotations

import numpy as np

from ..experiments.fastmmd import null_sampler
from ..experiments.runners import binomial_interval, rejection_rates
from ..kernels import GaussianKernel
from ..twosample import mmd2, mmd_test, mmd_witness
from ._feedback import Feedback, _close, _number

# --- 01 MMD and the circular discrepancy -------------------------------------------------

def mmd_data():
    """X ~ 𝒩(0, I₂) and Y ~ 𝒩((0.5, 0), I₂), 200 points each (seeds 1 and 2)."""
    X = np.random.default_rng(1).standard_normal((200, 2))
    Y = np.random.default_rng(2).standard_normal((200, 2)) + np.array([0.5, 0.0])
    return X, Y


def check_mmd2(answer) -> Feedback:
    """The biased MMD² of ``mmd_data()`` with a Gaussian kernel of bandwidth 1 (1e-6)."""
    X, Y = mmd_data()
    value = _number(answer, "MMD²")
    unbiased = mmd2(X, Y, GaussianKernel(1.0), estimator="unbiased")
    hint = ("that is the unbiased estimate: the biased one (FastMMD Eq. 2, a V-statistic) "
            "keeps the i = j terms"
            if not isinstance(value, Feedback) and np.isclose(value, unbiased, rtol=1e-6)
            else "use kmeviz.mmd2 with GaussianKernel(1.0) and estimator='biased'")
    return _close(answer, mmd2(X, Y, GaussianKernel(1.0)), "biased MMD²", hint)


def check_narrow_kernel_floor(answer) -> Feedback:
    """The predicted biased MMD² of ``mmd_data()`` at σ = 0.1: with every off-diagonal
    kernel value ≈ 0, only the diagonal terms remain, 1/n_X + 1/n_Y (within 6 %, so that the
    computed value 1.04 % above it counts too)."""
    X, Y = mmd_data()
    floor = 1 / X.shape[0] + 1 / Y.shape[0]
    value = _number(answer, "predicted MMD²")
    if isinstance(value, Feedback):
        return value
    if abs(value - floor) <= 0.06 * floor:
        return Feedback(True, "that is the diagonal floor 1/n_X + 1/n_Y: the n_X + n_Y terms "
                        "k(x, x) = 1 weighted 1/n_X² and 1/n_Y². Two samples of the same law get "
                        "it too, so the raw biased value ranks narrow bandwidths by sample "
                        "size, not by difference; compare unbiased values, on data you do "
                        "not test")
    if abs(value - floor / 2) <= 0.06 * floor / 2:
        hint = "both samples keep their i = j terms, not only X"
    elif abs(value) <= 0.02 * floor:
        hint = ("the biased estimator keeps the i = j terms: k(x, x) = 1 for every point; "
                "count them and their weights in the formula of §3")
    else:
        hint = ("with the cross sums ≈ 0, only Σ_i k(x_i, x_i) / n_X² and Σ_j k(y_j, y_j) / n_Y² "
                "remain")
    return Feedback(False, hint)


def check_witness_at_origin(answer) -> Feedback:
    """The witness μ̂_X − μ̂_Y of ``mmd_data()`` (σ = 1) at the origin (1e-6)."""
    X, Y = mmd_data()
    truth = float(mmd_witness(X, Y, GaussianKernel(1.0), np.zeros((1, 2)))[0])
    value = _number(answer, "witness value")
    if isinstance(value, Feedback):
        return value
    if abs(value - truth) <= 1e-6 * abs(truth):
        return Feedback(True, "that is f̂(0): positive, because X is centred there and Y half "
                        "a unit to the right, so X's bumps pile up more mass at the origin; "
                        "at (3, 0), nearer Y's centre, the sign flips")
    hint = ("that is μ̂_Y − μ̂_X at the origin: the witness is μ̂_X − μ̂_Y"
            if abs(value + truth) <= 1e-6 * abs(truth) else
            "use kmeviz.mmd_witness(X, Y, GaussianKernel(1.0), np.zeros((1, 2)))")
    return Feedback(False, hint)


# --- 02 two-sample tests -----------------------------------------------------------------

def check_permutation_p_value(answer) -> Feedback:
    """p-value of ``mmd_test`` on the first 20 points of each sample of ``mmd_data()``:
    Gaussian σ = 1, biased, permutation null, 999 resamples, rng=0 (exact: the same seed
    gives the same permutations)."""
    X, Y = mmd_data()
    truth = mmd_test(X[:20], Y[:20], GaussianKernel(1.0), n_resamples=999, rng=0).p_value
    return _close(answer, truth, "p-value", "run mmd_test on X[:20], Y[:20] with "
                  "n_resamples=999 and rng=0 and read .p_value (it is (1 + #{null ≥ "
                  "statistic}) / (1 + B))", rtol=1e-12)


def check_size_interval_upper(answer) -> Feedback:
    """Upper end of the 95 % Clopper–Pearson interval of a rejection rate of 12 / 200."""
    _, high = binomial_interval(12, 200, 0.95)
    return _close(answer, high, "upper end of the 95 % interval", "use "
                  "kmeviz.experiments.binomial_interval(rejections, repeats, level)", rtol=1e-9,
                  why="α = 0.05 is inside the interval, so 12 rejections in 200 are no evidence "
                  "of a wrong level; 200 draws cannot tell 0.05 from 0.06")


SMALL_SAMPLE = {"n": 30, "bandwidth": 0.2, "repeats": 200, "seed": 4}


def check_gamma_size_small_n(answer) -> Feedback:
    """The rejection rate under H0 of the Gamma test at n = 30 with σ = 0.2 (``SMALL_SAMPLE``):
    ``rejection_rates(null_sampler(30), {"gamma": {"kernel": GaussianKernel(0.2), "null":
    "gamma"}}, n_repeats=200, rng=4)`` (exact: the same seed gives the same draws)."""
    value = _number(answer, "rejection rate")
    if isinstance(value, Feedback):
        return value
    cfg = SMALL_SAMPLE
    tests = {"gamma": {"kernel": GaussianKernel(cfg["bandwidth"]), "null": "gamma"}}
    rate = float(rejection_rates(null_sampler(cfg["n"]), tests, n_repeats=cfg["repeats"],
                                 rng=cfg["seed"]).rate.iloc[0])
    if abs(value - rate) <= 1e-9:
        return Feedback(True, "that is the rate: far below α. With σ far below the distances "
                        "between 30 points, the Gamma fit overstates the null's variance, so "
                        "the test keeps H0 too often: a valid level, and almost no power")
    hint = ("that is the nominal α, not the measured rate: run rejection_rates as the cell "
            "says and read .rate" if abs(value - 0.05) <= 1e-9 else
            "run kmeviz.experiments.rejection_rates(null_sampler(30), {'gamma': {'kernel': "
            "GaussianKernel(0.2), 'null': 'gamma'}}, n_repeats=200, rng=4) and read .rate")
    return Feedback(False, hint)
