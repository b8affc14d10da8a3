"""Exercises of notebooks 08 and 09: a researcher's own data and the kernel's choice."""

from __future__ import annotations

import numpy as np

from ..compare import compare_tests
from ..distributions.datasets import blobs_two_sample
from ..distributions.real import load_dataset
from ..kernels import GaussianKernel, median_heuristic
from ..kernels.collection import KernelCollection, mmdagg_kernels
from ..loading import samples_from_frame
from ..twosample import mmd_test
from ._feedback import Feedback, _choice, _close, _number

# --- 08 your own data --------------------------------------------------------------------

def penguin_table():
    """The Palmer penguins without the bill length: the "researcher's file" of notebook 08."""
    return load_dataset("penguins").drop(columns="bill_length_mm")


def penguin_samples():
    """Adelie (X) and Chinstrap (Y) penguins from ``penguin_table()``, standardized, as
    ``load_samples(..., group="species", groups=("Adelie", "Chinstrap"), standardize=True)``
    reads them."""
    return samples_from_frame(penguin_table(), group="species", groups=("Adelie", "Chinstrap"),
                              standardize=True)


def check_dropped_rows(answer) -> Feedback:
    """How many rows of X and Y together did the loader drop for missing values?"""
    truth = sum(penguin_samples().report.dropped_rows)
    value = _number(answer, "number of dropped rows")
    if isinstance(value, Feedback):
        return value
    if value == truth:
        return Feedback(True, "that is the number of dropped rows")
    everywhere = int(penguin_table()[lambda f: f.species.isin(["Adelie", "Chinstrap"])]
                     .isna().any(axis=1).sum())
    hint = ("that counts every row with a missing value anywhere; the loader drops a row only "
            "when a column it uses is missing (is 'sex' used?)" if value == everywhere
            else "read report.dropped_rows (one count per sample)")
    return Feedback(False, hint)


def check_narrow_kernel_decision(answer) -> Feedback:
    """At σ = 0.1 × the median heuristic, does the biased permutation test on
    ``penguin_samples()`` (B = 999, rng=0) "reject" or "keep" H0 at α = 0.05?"""
    X, Y, _ = penguin_samples()
    kernel = GaussianKernel(0.1 * median_heuristic(X, Y))
    # the penguins file is sorted by island and year: distinct animals (rows="iid")
    truth = "reject" if mmd_test(X, Y, kernel, n_resamples=999, rng=0,
                                 rows="iid").reject else "keep"
    return _choice(answer, truth, ("reject", "keep"), "decision",
                   "run it: with a kernel much narrower than the distances between points, "
                   "each point only sees itself, and the Gram matrix is nearly the identity "
                   "whatever the labels")


def check_small_sample_tests(answer) -> Feedback:
    """On the first 30 points of each sample, which reject at α = 0.05 (default kernel,
    rng=0): "biased/permutation", "linear/normal", "both" or "neither"?"""
    X, Y, _ = penguin_samples()
    table = compare_tests(X[:30], Y[:30], tests=["biased/permutation", "linear/normal"],
                          rng=0, rows="iid").set_index("test")["reject"]
    truth = {(True, True): "both", (True, False): "biased/permutation",
             (False, True): "linear/normal", (False, False): "neither"}[
        (bool(table["biased/permutation"]), bool(table["linear/normal"]))]
    return _choice(answer, truth, ("biased/permutation", "linear/normal", "both", "neither"),
                   "answer", "run compare_tests on X[:30], Y[:30] with those two tests: the "
                   "linear-time statistic averages only n/2 independent terms")


# --- 09 choosing the kernel ----------------------------------------------------------------

#: The ten Gaussian bandwidths of notebook 09's single tests.
NB09_SIGMAS = tuple(float(s) for s in np.geomspace(0.2, 50.0, 10))


def min_p_rejection_rate(n_draws: int = 200, n: int = 100, alpha: float = 0.05,
                         seed: int = 9) -> float:
    """Under H0 (both samples from the round blob grid), how often the rule "reject when
    the smallest of the ten single-bandwidth p-values (``NB09_SIGMAS``) is ≤ α" rejects."""
    rng = np.random.default_rng(seed)
    collection = KernelCollection([GaussianKernel(s) for s in NB09_SIGMAS])
    rejections = 0
    for _ in range(n_draws):
        X, Y = blobs_two_sample(n, epsilon=1.0, rng=rng)
        table = mmd_test(X, Y, collection, estimator="mmdagg", n_resamples=199,
                         rng=rng).fitted["kernels"]
        rejections += bool(table["p_value"].min() <= alpha)
    return rejections / n_draws


def check_min_p_size(answer) -> Feedback:
    """Under H0, how often does "the smallest of ten single-bandwidth p-values ≤ 0.05"
    reject: "about 0.05", "between 0.1 and 0.4" or "above 0.5"?"""
    rate = min_p_rejection_rate()
    truth = ("about 0.05" if rate < 0.1 else "between 0.1 and 0.4" if rate <= 0.4
             else "above 0.5")
    return _choice(answer, truth, ("about 0.05", "between 0.1 and 0.4", "above 0.5"),
                   "rate", "ten tests each wrong 5 % of the time are not independent (their "
                   "bandwidths see overlapping features), but neither are they one test: "
                   "run min_p_rejection_rate()")


def check_smallest_collection_sigma(answer) -> Feedback:
    """The smallest σ of ``mmdagg_kernels(X, Y, family="gaussian")`` on
    ``blobs_two_sample(500, epsilon=3.0, rng=5)`` (the authors' bandwidth rule)."""
    X, Y = blobs_two_sample(500, epsilon=3.0, rng=5)
    truth = float(mmdagg_kernels(X, Y, family="gaussian").scales().min())
    return _close(answer, truth, "smallest σ", "read .scales() of the collection: the rule "
                  "starts at half the 5 % quantile of the X–Y distances, divided by √2 for "
                  "the Gaussian's σ", rtol=1e-6,
                  why="same-blob pairs are only 4 % of the X–Y pairs, so the 5 % quantile "
                  "already reaches the distance between neighbouring blobs, and even the "
                  "narrowest kernel (σ ≈ 2.7) is five times wider than the blob-scale "
                  "difference: the collection misses the scale that matters")
