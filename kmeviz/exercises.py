"""Exercises of the teaching notebooks, with checkers that say right or wrong and give a
hint, never the answer.

Each exercise has a data function (the notebook and the checker use the same draws) and a
``check_…`` function that recomputes the answer from those data, compares with a stated
tolerance and returns a ``Feedback`` (shown as one line in a notebook, truthy when right).
The solutions live in ``tests/exercise_solutions.py``, where the tests run them through
the checkers together with plausible wrong answers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .compare import compare_tests
from .conditional import ConditionalMeanEmbedding, sparse_cme
from .distributions import GaussianMixture, NormalTarget
from .distributions.datasets import blobs_two_sample
from .distributions.real import load_dataset
from .embeddings import NystromKME, effective_dimension, gram_spectrum
from .experiments.runners import binomial_interval, rejection_rates
from .gof import ksd2, ksd_test
from .kernels import GaussianKernel, IMQKernel, median_heuristic
from .kernels.collection import KernelCollection, mmdagg_kernels
from .loading import samples_from_frame
from .twosample import mmd2, mmd_test, mmd_witness


@dataclass(frozen=True)
class Feedback:
    """The verdict on an answer: ``right`` and a message (a hint when wrong)."""

    right: bool
    message: str

    def __bool__(self) -> bool:
        return self.right

    def __repr__(self) -> str:
        return f"{'✓ Right' if self.right else '✗ Not yet'}: {self.message}"

    def _repr_markdown_(self) -> str:
        return f"**{'✓ Right' if self.right else '✗ Not yet'}**: {self.message}"


def _number(answer, name: str):
    """The answer as a float, or a Feedback saying what was expected."""
    if answer is None:
        return Feedback(False, f"replace None with your {name}")
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return Feedback(False, f"the {name} is one number, got {type(answer).__name__}")
    return value if np.isfinite(value) else Feedback(False, f"the {name} must be finite")


def _close(answer, truth: float, name: str, hint: str, rtol: float = 1e-6,
           why: str = "") -> Feedback:
    """Right within ``rtol``; ``why``, when given, explains the answer once it is right."""
    value = _number(answer, name)
    if isinstance(value, Feedback):
        return value
    if abs(value - truth) <= rtol * abs(truth):
        return Feedback(True, f"that is the {name}" + (f": {why}" if why else ""))
    return Feedback(False, hint)


def _choice(answer, truth, options, name: str, hint: str, why: str = "") -> Feedback:
    """Right when ``answer == truth``; ``why``, when given, explains it once right."""
    if answer is None:
        return Feedback(False, f"replace None with one of {list(options)}")
    if answer not in options:
        return Feedback(False, f"the {name} is one of {list(options)}, got {answer!r}")
    if answer != truth:
        return Feedback(False, hint)
    return Feedback(True, f"that is the {name}" + (f": {why}" if why else ""))


# --- 01 MMD and the circular discrepancy -------------------------------------------------

def mmd_data():
    """X ~ N(0, I₂) and Y ~ N((0.5, 0), I₂), 200 points each (seeds 1 and 2)."""
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
    kernel value ≈ 0, only the diagonal terms remain, 1/m + 1/n (within 6 %, so that the
    computed value 1.04 % above it counts too)."""
    X, Y = mmd_data()
    floor = 1 / X.shape[0] + 1 / Y.shape[0]
    value = _number(answer, "predicted MMD²")
    if isinstance(value, Feedback):
        return value
    if abs(value - floor) <= 0.06 * floor:
        return Feedback(True, "that is the diagonal floor 1/m + 1/n: the m + n terms "
                        "k(x, x) = 1 weighted 1/m² and 1/n². Two samples of the same law get "
                        "it too, so the raw biased value ranks narrow bandwidths by sample "
                        "size, not by difference; compare unbiased values, on data you do "
                        "not test")
    if abs(value - floor / 2) <= 0.06 * floor / 2:
        hint = "both samples keep their i = j terms, not only X"
    elif abs(value) <= 0.02 * floor:
        hint = ("the biased estimator keeps the i = j terms: k(x, x) = 1 for every point; "
                "count them and their weights in the formula of §3")
    else:
        hint = ("with the cross sums ≈ 0, only Σ_i k(x_i, x_i) / m² and Σ_j k(y_j, y_j) / n² "
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
    from .experiments.fastmmd import null_sampler

    cfg = SMALL_SAMPLE
    tests = {"gamma": {"kernel": GaussianKernel(cfg["bandwidth"]), "null": "gamma"}}
    rate = float(rejection_rates(null_sampler(cfg["n"]), tests, n_repeats=cfg["repeats"],
                                 rng=cfg["seed"]).rate.iloc[0])
    value = _number(answer, "rejection rate")
    if isinstance(value, Feedback):
        return value
    if abs(value - rate) <= 1e-9:
        return Feedback(True, "that is the rate: far below α. With σ far below the distances "
                        "between 30 points, the Gamma fit overstates the null's variance, so "
                        "the test keeps H0 too often: a valid level, and almost no power")
    hint = ("that is the nominal α, not the measured rate: run rejection_rates as the cell "
            "says and read .rate" if abs(value - 0.05) <= 1e-9 else
            "run kmeviz.experiments.rejection_rates(null_sampler(30), {'gamma': {'kernel': "
            "GaussianKernel(0.2), 'null': 'gamma'}}, n_repeats=200, rng=4) and read .rate")
    return Feedback(False, hint)


# --- 03 Nyström kernel mean embeddings ---------------------------------------------------

def nystrom_data():
    """The mixture, 2000 points from it (seed 3) and the Gaussian kernel σ = 1."""
    mixture = GaussianMixture(np.array([[-2.0, 0.0], [2.0, 0.0], [0.0, 2.5]]), [0.5, 0.8, 0.3])
    return mixture, mixture.sample(2000, rng=3), GaussianKernel(1.0)


LANDMARK_COUNTS = (5, 10, 20, 50, 100)


def check_weight_sum(answer) -> Feedback:
    """Σ α of ``NystromKME(kernel, 50, rng=0).fit(X)`` on ``nystrom_data()`` (1e-8)."""
    _, X, kernel = nystrom_data()
    truth = float(NystromKME(kernel, 50, rng=0).fit(X).weights_.sum())
    return _close(answer, truth, "sum of the Nyström weights", "fit NystromKME(kernel, 50, "
                  "rng=0) and sum its weights_ (they need not sum to 1: α = K_mm⁺ K_mn 1/n)",
                  rtol=1e-8)


def check_landmarks_for_error(answer) -> Feedback:
    """The smallest m of ``LANDMARK_COUNTS`` whose Nyström KME (rng=0) has exact error
    below 0.02 (``mixture.error_of``) on ``nystrom_data()``."""
    mixture, X, kernel = nystrom_data()
    truth = next((m for m in LANDMARK_COUNTS
                  if mixture.error_of(NystromKME(kernel, m, rng=0).fit(X)) < 0.02), None)
    return _choice(answer, truth, LANDMARK_COUNTS, "smallest m",
                   "fit each m with rng=0 and compute mixture.error_of(estimator); take the "
                   "first m whose error is below 0.02",
                   why="the empirical embedding of these 2000 points is itself 0.017 from μ, "
                   "so 0.02 asks Nyström to come within 20 % of that floor; m = 50 still adds "
                   "projection error (0.024), and by m = 100, near √n log √n ≈ 170, the "
                   "Nyström error sits on the floor")


# --- 04 effective dimension --------------------------------------------------------------

def check_effective_dimension(answer) -> Feedback:
    """N(λ) at λ = 1e-3 of the Gram spectrum of ``nystrom_data()``'s first 500 points."""
    _, X, kernel = nystrom_data()
    truth = float(effective_dimension(gram_spectrum(X[:500], kernel), 1e-3))
    return _close(answer, truth, "effective dimension N(1e-3)", "N(λ) = Σ σ_i / (σ_i + λ) "
                  "over the eigenvalues σ_i of K/n (kmeviz.gram_spectrum, then "
                  "kmeviz.effective_dimension)", rtol=1e-6)


HALVING_SPECTRUM = 0.5 ** np.arange(1, 13)


def check_halving_effective_dimension(answer) -> Feedback:
    """N(0.01) of the spectrum 0.5, 0.25, …, 0.5¹² (``HALVING_SPECTRUM``), to 1e-6."""
    truth = effective_dimension(HALVING_SPECTRUM, 0.01)
    above = int(np.sum(HALVING_SPECTRUM > 0.01))
    value = _number(answer, "effective dimension")
    if isinstance(value, Feedback):
        return value
    if abs(value - truth) <= 1e-6 * truth:
        return Feedback(True, "that is N(0.01), close to the count of eigenvalues above λ "
                        "but not equal: each of those counts σ/(σ + λ), a little less than 1, "
                        "and each one below λ still adds σ/(σ + λ) — 0.44 for the eigenvalue "
                        "0.0078 just under λ — so here the soft count ends above the hard one")
    hint = ("that is the count of eigenvalues above λ; N(λ) weighs each eigenvalue by "
            "σ/(σ + λ): compute the sum" if abs(value - above) < 1e-9 else
            "call kmeviz.effective_dimension(0.5 ** np.arange(1, 13), 0.01)")
    return Feedback(False, hint)


# --- 05 kernel Stein discrepancy ---------------------------------------------------------

def stein_data():
    """N(0, I₂) target; a sample of 300 from the target (seed 4) and one from Laplace with
    unit variance (seed 5)."""
    target = NormalTarget(np.zeros(2))
    same = np.random.default_rng(4).standard_normal((300, 2))
    laplace = np.random.default_rng(5).laplace(scale=1 / np.sqrt(2), size=(300, 2))
    return target, same, laplace


def check_ksd2(answer) -> Feedback:
    """The V-statistic KSD² of the Laplace sample of ``stein_data()``, IMQ(c=1, β=-½)."""
    target, _, laplace = stein_data()
    return _close(answer, ksd2(laplace, target, IMQKernel()), "KSD² (V-statistic)",
                  "use kmeviz.ksd2(sample, target, IMQKernel()) with the default "
                  "estimator='biased'")


def close_modes_data():
    """The target ½ N(−e₁, I₂) + ½ N(e₁, I₂) and 500 points (seed 0) of the same modes
    weighted 0.9 and 0.1."""
    means, variances = [[-1.0, 0.0], [1.0, 0.0]], [1.0, 1.0]
    target = GaussianMixture(means, variances=variances, weights=[0.5, 0.5])
    sample = GaussianMixture(means, variances=variances, weights=[0.9, 0.1]).sample(500, rng=0)
    return target, sample


def check_close_modes_p_value(answer) -> Feedback:
    """The p-value of ``ksd_test(sample, target, IMQKernel(), rng=0)`` on
    ``close_modes_data()`` (exact: the same seed gives the same bootstrap)."""
    target, sample = close_modes_data()
    truth = ksd_test(sample, target, IMQKernel(), rng=0).p_value
    return _close(answer, truth, "p-value", "build the two GaussianMixture objects as the "
                  "exercise says (weights=[0.5, 0.5] for the target), sample 500 points with "
                  "rng=0 and run kmeviz.ksd_test(sample, target, IMQKernel(), rng=0)",
                  rtol=1e-12, why="the test rejects. With modes 2 apart they overlap, so the "
                  "score between them depends on the weights, and KSD sees them; 8 apart, the "
                  "score near each mode is that of its own Gaussian whatever the weights")


# --- 06 conditional mean embeddings ------------------------------------------------------

def cme_data():
    """x ~ U(-3, 3), y = sin x + 0.1 ε, 150 pairs (seed 6)."""
    rng = np.random.default_rng(6)
    X = rng.uniform(-3, 3, size=(150, 1))
    return X, np.sin(X) + 0.1 * rng.standard_normal((150, 1))


GAMMAS = (1e-3, 1e-2, 1e-1)


def _fitted_cme():
    X, Y = cme_data()
    return ConditionalMeanEmbedding(GaussianKernel(0.5), GaussianKernel(0.5),
                                    reg=1e-3).fit(X, Y)


def check_conditional_mean(answer) -> Feedback:
    """Ê[Y | x = 1] from a CME with Gaussian kernels σ = 0.5 and λ = 1e-3 on ``cme_data()``."""
    _, Y = cme_data()
    truth = float(_fitted_cme().expectation(Y[:, 0], np.array([[1.0]]))[0])
    return _close(answer, truth, "estimate of E[Y | x = 1]", "fit ConditionalMeanEmbedding "
                  "and call .expectation(h_values, X_new) with h(y) = y at the training "
                  "points (it should be near sin 1)", rtol=1e-6)


def check_sparsest_gamma(answer) -> Feedback:
    """Which γ of ``GAMMAS`` gives sparse_cme the fewest non-zero coefficients?"""
    cme = _fitted_cme()
    _, Y = cme_data()
    L = GaussianKernel(0.5)(Y)
    counts = [np.count_nonzero(sparse_cme(cme.coefficients(), cme.gram_x_, L, gamma=g,
                                          tol=1e-4).M) for g in GAMMAS]
    return _choice(answer, GAMMAS[int(np.argmin(counts))], GAMMAS, "γ",
                   "γ weighs the ℓ1 penalty against the fit: count the non-zeros of .M "
                   "for each γ",
                   why="γ weighs the ℓ1 penalty against the fit, so the largest γ zeroes "
                   "the most coefficients, at the price of a larger distance to the dense CME "
                   "(the path of section 3)")


# --- 07 scaling out ----------------------------------------------------------------------

def check_chunk_count(answer) -> Feedback:
    """How many chunks has ``lazy_sample(draw, 2_500_000, dim=3, chunk_rows=1_000_000)``?"""
    value = _number(answer, "number of chunks")
    if isinstance(value, Feedback):
        return value
    if value == -(-2_500_000 // 1_000_000):
        return Feedback(True, "that is the number of chunks")
    return Feedback(False, "the rows are cut every chunk_rows; the last chunk keeps the "
                    "remainder (look at X.numblocks or X.chunks)")


def check_exact_on_dask(answer) -> Feedback:
    """Which estimator refuses a dask array: "mmd2", "mmd2_linear" or "mmd2_nystrom"?"""
    return _choice(answer, "mmd2", ("mmd2", "mmd2_linear", "mmd2_nystrom"), "estimator",
                   "the linear-time and Nyström estimators work chunk by chunk; one of "
                   "the three needs every pair of points at once")


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
    truth = "reject" if mmd_test(X, Y, kernel, n_resamples=999, rng=0).reject else "keep"
    return _choice(answer, truth, ("reject", "keep"), "decision",
                   "run it: with a kernel much narrower than the distances between points, "
                   "each point only sees itself, and the Gram matrix is nearly the identity "
                   "whatever the labels")


def check_small_sample_tests(answer) -> Feedback:
    """On the first 30 points of each sample, which reject at α = 0.05 (default kernel,
    rng=0): "biased/permutation", "linear/normal", "both" or "neither"?"""
    X, Y, _ = penguin_samples()
    table = compare_tests(X[:30], Y[:30], tests=["biased/permutation", "linear/normal"],
                          rng=0).set_index("test")["reject"]
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
                  "the Gaussian's σ", rtol=1e-6)
