"""Exercises that ask for code: the student writes the estimator, the test or the weights,
and the checker runs it on a few cases against kmeviz's own implementation.

Each ``check_…`` takes the student's function. It is called on fixed inputs (the data
functions of the other exercise modules), its output compared with kmeviz's to a stated
tolerance; when it matches a likely mistake instead (the unbiased formula for the biased
one, a missing 1/n, ties not counted), the hint names that mistake. A function that
raises, returns None or the wrong shape gets one line saying so, never a traceback.
"""

from __future__ import annotations

import numpy as np

from ..conditional import ConditionalMeanEmbedding
from ..embeddings import NystromKME, effective_dimension
from ..gof import ksd2
from ..kernels import GaussianKernel, median_heuristic
from ..kernels.stein import SteinKernel
from ..twosample import mmd2, mmd2_block, mmd2_linear, mmd_witness
from ._feedback import Feedback
from ._own_code import run_refusing_own_code
from .embeddings import nystrom_data
from .mmd import mmd_data
from .stein_cme import cme_data, stein_data

RTOL = 1e-6
TWOSAMPLE = ("twosample",)  # kmeviz subpackages an answer may not call
TESTS = ("twosample", "independence", "gof", "timeseries")
STEIN = ("gof", "kernels.stein")


def _call(function, args, name: str, refused: tuple[str, ...] = ()):
    """The function's output as a float array, or a Feedback saying what went wrong
    (among which: it ran kmeviz's own code of the subpackages ``refused``)."""
    if function is None:
        return Feedback(False, f"write {name} and pass the function itself (no brackets)")
    if not callable(function):
        return Feedback(False, f"pass the function {name}, got {type(function).__name__}")
    out, error, entered = run_refusing_own_code(function, args, refused)
    if entered:
        return Feedback(False, f"your function calls kmeviz's own {entered[0]}: the "
                        f"exercise is to write the {name} yourself (numpy is enough)")
    if error is not None:
        return Feedback(False, f"your function raised {type(error).__name__}: {error}")
    if out is None:
        return Feedback(False, "your function returns None: end it with return …")
    try:
        return np.asarray(out, dtype=float)
    except (TypeError, ValueError):
        return Feedback(False, f"your function should return numbers, got {type(out).__name__}")


def _implementation(function, name: str, cases, truth, mistakes=(), why: str = "",
                    rtol: float = RTOL, view=None, refused: tuple[str, ...] = ()) -> Feedback:
    """Run ``function`` on each of ``cases`` (argument tuples); right when it matches
    ``truth(*case)`` (or ``truth[i]``, kmeviz's answers computed beforehand) on all of
    them, both seen through ``view(case, output)`` when given.
    ``mistakes`` are (wrong implementation, hint): the first one the output matches gives
    its hint. A function that runs code of kmeviz's subpackages ``refused`` (or of
    ``kmeviz.exercises``) is refused, whatever it returns."""
    def seen(case, output):
        output = np.asarray(output, dtype=float)
        return output if view is None else np.asarray(view(case, output), dtype=float)

    for index, case in enumerate(cases):
        out = _call(function, case, name, refused)
        if isinstance(out, Feedback):
            return out
        expected = np.asarray(truth[index] if isinstance(truth, list) else truth(*case),
                              dtype=float)
        if out.shape != expected.shape:
            return Feedback(False, f"your function returns shape {out.shape}; {name} "
                            f"returns shape {expected.shape}")
        out, expected = seen(case, out), seen(case, expected)
        if not np.allclose(out, expected, rtol=rtol, atol=rtol * np.abs(expected).max()):
            for wrong, hint in mistakes:
                if np.allclose(out, seen(case, wrong(*case)), rtol=rtol):
                    return Feedback(False, hint)
            return Feedback(False, f"your {name} differs from kmeviz's on these data; "
                            "compare your formula with the notebook's, term by term")
    return Feedback(True, f"your {name} matches kmeviz's on every case" +
                    (f": {why}" if why else ""))


def _gram_cases():
    """(Kxx, Kyy, Kxy) of two pairs of samples, and kmeviz's biased MMD² of each."""
    X, Y = mmd_data()
    k = GaussianKernel(1.0)
    pairs = ((X, Y), (X[:50], Y[:80]))
    return [(k(A), k(B), k(A, B)) for A, B in pairs], [mmd2(A, B, k) for A, B in pairs]


def check_mmd2_from_grams(function) -> Feedback:
    """``function(Kxx, Kyy, Kxy)``: the biased MMD² from the three Gram matrices."""
    def unbiased(Kxx, Kyy, Kxy):
        m, n = len(Kxx), len(Kyy)
        return ((Kxx.sum() - np.trace(Kxx)) / (m * (m - 1))
                + (Kyy.sum() - np.trace(Kyy)) / (n * (n - 1)) - 2 * Kxy.mean())

    mistakes = [
        (unbiased, "that is the unbiased estimate: the biased one keeps the i = j terms "
                   "k(xᵢ, xᵢ) (it averages over all m² pairs)"),
        (lambda a, b, c: a.mean() + b.mean() - c.mean(),
         "the cross term counts twice: ‖μ̂_X − μ̂_Y‖² = ⟨μ̂_X, μ̂_X⟩ + ⟨μ̂_Y, μ̂_Y⟩ − 2⟨μ̂_X, μ̂_Y⟩"),
        (lambda a, b, c: a.sum() + b.sum() - 2 * c.sum(),
         "sums, not means: divide each block by its number of pairs (m², n², mn)"),
    ]
    cases, truth = _gram_cases()
    return _implementation(function, "biased MMD²", cases, truth, mistakes, refused=TWOSAMPLE,
                           why="three means of three Gram blocks, O(n²) in all")


def check_permutation_test_function(function) -> Feedback:
    """``function(X, Y, statistic, n_resamples, rng)``: the permutation p-value
    (1 + #{b : T_b ≥ T}) / (1 + B) of ``statistic(X, Y)``, permuting the pooled rows."""
    def mean_gap(A, B):
        return float(np.sum((A.mean(axis=0) - B.mean(axis=0)) ** 2))

    X = np.random.default_rng(11).standard_normal((30, 2))
    Y = np.random.default_rng(12).standard_normal((30, 2)) + 5.0  # 5 SD away
    p = _call(function, (X, Y, mean_gap, 99, 0), "permutation_test", TESTS)
    if isinstance(p, Feedback):
        return p
    if p.shape != ():
        return Feedback(False, f"return one p-value (a float), got shape {p.shape}")
    if p == 0:
        return Feedback(False, "p = 0 is impossible: count the observed statistic among the "
                        "permutations, p = (1 + #{T_b ≥ T}) / (1 + B)")
    if np.isclose(p, 1.0):
        return Feedback(False, "samples 5 standard deviations apart give p = 1: shuffle the "
                        "rows of the pooled sample np.vstack([X, Y]) and split it at len(X); "
                        "shuffling within each sample changes no statistic")
    if not np.isclose(p, 1 / 100):
        return Feedback(False, "with B = 99 and samples this far apart, no permutation "
                        "reaches T: p should be the smallest possible value, 1/(1 + B)")
    tied = _call(function, (X, Y, lambda A, B: 1.0, 99, 0), "permutation_test",
                  TESTS)
    if isinstance(tied, Feedback):
        return tied
    if not np.isclose(tied, 1.0):
        return Feedback(False, "a constant statistic must give p = 1: count ties, T_b ≥ T, "
                        "not T_b > T (scipy and kmeviz both do)")
    same = np.random.default_rng(13).standard_normal((40, 2))
    p_values = []
    for seed in range(30):
        value = _call(function, (same[:20], same[20:], mean_gap, 49, seed),
                      "permutation_test", TESTS)
        if isinstance(value, Feedback):
            return value
        p_values.append(float(value))
    if len(set(p_values)) == 1:
        return Feedback(False, "every seed gives the same p-value: draw the permutations "
                        "from np.random.default_rng(rng)")
    return Feedback(True, "your permutation test counts the observed statistic, counts "
                    "ties and permutes the pooled sample: under H0 its p-value is uniform "
                    "on {1/(B+1), …, 1} at any n, which is why it is exact")


def check_nystrom_weights(function) -> Feedback:
    """``function(K_mm, K_mn)``: the Nyström weights α = (1/n) K_mm⁺ K_mn 1_n (Chatalic et
    al. Eq. 5), compared through the embedding they give, K_mm α (α itself is not unique
    when K_mm is singular)."""
    _, X, kernel = nystrom_data()
    cases, truth = [], []
    for m, n in ((30, 500), (10, 2000)):
        Z = X[:m]
        cases.append((kernel(Z), kernel(Z, X[:n])))
        truth.append(NystromKME(kernel, landmarks=np.arange(m)).fit(X[:n]).weights_)

    mistakes = [(lambda a, b: np.linalg.pinv(a, hermitian=True) @ b.sum(axis=1),
                 "the empirical embedding is an average: divide by n")]
    return _implementation(function, "Nyström weights", cases, truth, mistakes, rtol=1e-5,
                           refused=("embeddings",),
                           view=lambda case, alpha: case[0] @ alpha,
                           why="the weights of the projection of μ̂ on the landmarks' span")


def check_effective_dimension_function(function) -> Feedback:
    """``function(eigenvalues, lam)``: N(λ) = Σᵢ νᵢ / (νᵢ + λ)."""
    halving = 0.5 ** np.arange(1, 13)
    spread = np.sort(np.random.default_rng(14).exponential(size=40))[::-1]
    cases = [(halving, 0.01), (halving, 1.0), (spread, 0.1)]
    mistakes = [(lambda s, lam: float(np.sum(lam / (s + lam))),
                 "that is Σ λ/(νᵢ + λ): each eigenvalue counts νᵢ/(νᵢ + λ), near 1 when it "
                 "is much larger than λ"),
                (lambda s, lam: float(np.sum(s > lam)),
                 "that counts the eigenvalues above λ; N(λ) weighs each by νᵢ/(νᵢ + λ)")]
    return _implementation(function, "effective dimension", cases,
                           lambda s, lam: effective_dimension(s, lam), mistakes,
                           refused=("embeddings",))


def _stein_gaussian(X, Y, score_X, score_Y, sigma, trace=True, sign=1.0):
    diff = X[:, None, :] - Y[None, :, :]
    sq = np.sum(diff**2, axis=-1)
    k = np.exp(-sq / (2 * sigma**2))
    cross = np.einsum("id,jd->ij", score_X, score_Y)
    drift = sign * (np.einsum("id,ijd->ij", score_X, diff)
                    - np.einsum("jd,ijd->ij", score_Y, diff)) / sigma**2
    d = X.shape[1]
    return k * (cross + drift + (d / sigma**2 - sq / sigma**4 if trace else 0.0))


def check_stein_kernel_gaussian(function) -> Feedback:
    """``function(X, Y, score_X, score_Y, sigma)``: the Stein kernel matrix
    h_p(xᵢ, yⱼ) of a Gaussian base kernel (Kalinke et al. Eq. 3)."""
    target, same, laplace = stein_data()
    cases = [(same[:40], laplace[:30], target.score(same[:40]), target.score(laplace[:30]),
              1.0), (laplace[:25], laplace[:25], target.score(laplace[:25]),
                     target.score(laplace[:25]), 0.7)]
    mistakes = [(lambda *a: _stein_gaussian(*a, trace=False),
                 "the term tr ∇ₓ∇ᵧ k = (d/σ² − ‖x − y‖²/σ⁴) k is missing"),
                (lambda *a: _stein_gaussian(*a, sign=-1.0),
                 "check the signs of the gradient terms: ∇ᵧ k(x, y) = (x − y)/σ² k(x, y) and "
                 "∇ₓ k = −∇ᵧ k for a radial kernel")]
    truth = [SteinKernel(GaussianKernel(case[4]), target).gram(case[0], case[1])
             for case in cases]
    return _implementation(function, "Stein kernel", truth=truth, cases=cases, refused=STEIN,
                           mistakes=mistakes,
                           why="four terms, each from the score or from a derivative of k; "
                           "its mean under p is zero")


def check_ksd2_unbiased_from_stein_gram(function) -> Feedback:
    """``function(H)``: the unbiased KSD² from a Stein Gram matrix H: the mean of its
    off-diagonal entries (a U-statistic), against ``kmeviz.ksd2`` of the same sample."""
    target, same, laplace = stein_data()
    kernel = GaussianKernel(1.0)
    samples = (same[:40], laplace[:60])
    cases = [(SteinKernel(kernel, target).gram(X, X),) for X in samples]
    truth = [ksd2(X, target, kernel, estimator="unbiased") for X in samples]
    mistakes = [(lambda H: H.mean(), "that is the V-statistic: leave out the diagonal i = j"),
                (lambda H: (H.sum() - np.trace(H)) / len(H) ** 2,
                 "n(n − 1) off-diagonal terms remain: divide by that, not by n²")]
    return _implementation(function, "unbiased KSD²", cases, truth, mistakes, refused=STEIN)


def check_cme_weights(function) -> Feedback:
    """``function(K, k_x, lam)``: the CME weights α(x) = (K + nλI)⁻¹ k_x (Grünewälder et
    al. Sec. 3), for a column or a matrix of columns k_x."""
    X, Y = cme_data()
    kernel = GaussianKernel(0.5)
    grid = np.linspace(-2.5, 2.5, 7)[:, None]
    cases, truth = [], []
    for points, lam in ((grid, 1e-3), (grid[:1], 1e-1)):
        cases.append((kernel(X), kernel(X, points), lam))
        cme = ConditionalMeanEmbedding(kernel, kernel, reg=lam).fit(X, Y)
        truth.append(cme.weights(points).T)

    mistakes = [(lambda K, kx, lam: np.linalg.solve(K + lam * np.eye(len(K)), kx),
                 "the regulariser is nλ: the objective averages its n squared errors")]
    return _implementation(function, "CME weights", cases, truth, mistakes, rtol=1e-5,
                           refused=("conditional",))


def _paired_gaussian(sigma: float = 1.0):
    kernel = GaussianKernel(sigma)
    return lambda A, B: kernel.paired(A, B)


def check_linear_mmd2(function) -> Feedback:
    """``function(X, Y, k)``: the linear-time MMD² with ``k(A, B)`` the kernel values of
    the rows of A and B, pair by pair (Gretton et al. 2012, Sec. 6)."""
    X, Y = mmd_data()
    k = _paired_gaussian()
    cases = [(X, Y, k), (X[:51], Y[:51], k)]

    def overlapping(A, B, kf):
        h = kf(A[:-1], A[1:]) + kf(B[:-1], B[1:]) - kf(A[:-1], B[1:]) - kf(A[1:], B[:-1])
        return h.mean()

    mistakes = [(overlapping, "use disjoint pairs (x₁, x₂), (x₃, x₄), …: overlapping pairs "
                              "make the terms dependent")]
    return _implementation(function, "linear-time MMD²", cases,
                           lambda A, B, kf: mmd2_linear(A, B, GaussianKernel(1.0)), mistakes,
                           refused=TWOSAMPLE)


def check_block_mmd2(function) -> Feedback:
    """``function(X, Y, kernel, block_size)``: the B-test statistic, the mean of the
    unbiased MMD² of disjoint blocks of ``block_size`` points per sample (Zaremba et al.
    2013)."""
    X, Y = mmd_data()
    kernel = GaussianKernel(1.0)
    cases = [(X, Y, kernel, 20), (X[:100], Y[:100], kernel, 10)]

    def biased_blocks(A, B, kern, size):
        return np.mean([mmd2(A[i:i + size], B[i:i + size], kern)
                        for i in range(0, len(A) - size + 1, size)])

    mistakes = [(biased_blocks, "each block's MMD² must be the unbiased one "
                                "(estimator='unbiased'): the biased floor would add up")]
    return _implementation(function, "B-test statistic", cases,
                           lambda A, B, kern, size: mmd2_block(A, B, kern, block_size=size),
                           mistakes, refused=("twosample.mmd.mmd2_block",))


def check_witness_function(function) -> Feedback:
    """``function(X, Y, kernel, T)``: the witness μ̂_X(t) − μ̂_Y(t) at the rows of T."""
    X, Y = mmd_data()
    kernel = GaussianKernel(1.0)
    T = np.random.default_rng(16).uniform(-3, 3, size=(25, 2))
    cases = [(X, Y, kernel, T), (X[:30], Y[:70], kernel, T[:5])]
    mistakes = [(lambda A, B, kern, P: kern(P, A).sum(1) - kern(P, B).sum(1),
                 "average the bumps (divide by m and by n), do not add them"),
                (lambda A, B, kern, P: kern(P, B).mean(1) - kern(P, A).mean(1),
                 "the witness is μ̂_X − μ̂_Y: positive where X has more mass")]
    return _implementation(function, "witness", cases,
                           lambda A, B, kern, P: mmd_witness(A, B, kern, P), mistakes,
                           refused=TWOSAMPLE)


def check_median_heuristic_function(function) -> Feedback:
    """``function(X, Y)``: the median distance between the points of the pooled sample,
    each pair once (no point with itself)."""
    X, Y = mmd_data()
    cases = [(X[:60], Y[:40]), (X[:15], Y[:15])]

    def pairwise(A, B):
        Z = np.vstack([A, B])
        return np.sqrt(np.sum((Z[:, None] - Z[None]) ** 2, axis=-1))

    mistakes = [(lambda A, B: np.median(pairwise(A, B)),
                 "leave out each point's distance 0 to itself (and count each pair once)"),
                (lambda A, B: np.median(pairwise(A, B)[np.triu_indices(len(A) + len(B), 1)]
                                        ** 2),
                 "that is a median of squared distances: σ is a distance")]
    return _implementation(function, "median heuristic", cases,
                           lambda A, B: median_heuristic(A, B), mistakes,
                           refused=("kernels.radial",))
