"""Null distributions, p-values and two-sample tests (``mmd_test``).

Nulls (which estimator each is valid for is in ``VALID_NULLS``):

- ``"permutation"``: relabel the pooled sample B times. All replicates are one
  streamed pass over the joint Gram, K @ U for a batch U of assignment vectors
  (exact MMD), or Fᵀ U for the n × 2L random-feature matrix F (FastMMD + bootstrap,
  FastMMD Sec. 4.5). Never a Python loop over replicates.
- ``"gamma"``: two-parameter Gamma moment match of MMD²_b under H0 (Gretton et al.
  2012), moments from the centred joint Gram in O(N²).
- ``"spectral"``: MMD² ≈ (1/m + 1/n) Σ_l λ_l (z_l² [- 1]) with λ_l the eigenvalues of
  the centred joint Gram / N (Gretton et al. 2009); simulated.
- ``"normal"``: the asymptotic normal null of the linear-time and B-test statistics,
  with the variance estimated from their independent summands.

p-values of simulated nulls are (1 + #{null ≥ statistic}) / (1 + B).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np
from scipy import linalg, stats

from ._validation import (
    check_choice,
    check_in_interval,
    check_pair,
    check_positive_int,
    check_rng,
)
from .kernels import DEFAULT_WORKING_MEMORY, check_kernel
from .mmd import block_terms, linear_terms, mmd2, random_features

#: Estimator -> the nulls that are valid for it.
VALID_NULLS = {
    "biased": ("permutation", "gamma", "spectral"),
    "unbiased": ("permutation", "spectral"),
    "linear": ("normal",),
    "block": ("normal",),
    "fastmmd-fourier": ("permutation",),
    "fastmmd-fastfood": ("permutation",),
    "nystrom": ("permutation",),
}
NULLS = ("permutation", "gamma", "spectral", "normal")


@dataclass(frozen=True)
class TestResult:
    """Outcome of a hypothesis test.

    Attributes
    ----------
    statistic : float
    p_value : float
    null_samples : array (B,) or None
        Simulated null statistics (None for the analytic Gamma and normal nulls).
    threshold : float
        Reject H0 when ``statistic > threshold`` (equivalently ``p_value <= alpha``).
    reject : bool
    alpha : float
    estimator, null : str
    null_params : dict
        Parameters of an analytic null (Gamma ``shape``/``scale``, normal ``scale``) or
        the spectral ``eigenvalues``; empty for permutation nulls.
    runtime : dict
        Seconds spent on the statistic and on the null.
    """

    __test__ = False  # not a pytest test class

    statistic: float
    p_value: float
    null_samples: np.ndarray | None
    threshold: float
    reject: bool
    alpha: float
    estimator: str = ""
    null: str = ""
    null_params: dict = field(default_factory=dict)
    runtime: dict = field(default_factory=dict)

    def null_distribution(self):
        """The frozen scipy distribution of an analytic null (Gamma or normal), else None."""
        if self.null == "gamma":
            return stats.gamma(self.null_params["shape"], scale=self.null_params["scale"])
        if self.null == "normal":
            return stats.norm(0.0, self.null_params["scale"])
        return None

    def at_level(self, alpha: float) -> TestResult:
        """The same test at another level α: only the threshold and decision change."""
        alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)
        if self.null_samples is not None:
            threshold = threshold_from_samples(self.null_samples, alpha)
        else:
            threshold = float(self.null_distribution().isf(alpha))
        return replace(self, alpha=alpha, threshold=threshold,
                       reject=bool(self.p_value <= alpha))


def p_value_from_samples(statistic: float, null_samples: np.ndarray) -> float:
    """(1 + #{null >= statistic}) / (1 + B): a valid p-value for any exchangeable null."""
    return (1.0 + np.count_nonzero(null_samples >= statistic)) / (1.0 + null_samples.size)


def threshold_from_samples(null_samples: np.ndarray, alpha: float) -> float:
    """The value t with ``statistic > t`` ⟺ p-value <= alpha (inf if B is too small)."""
    k = int(np.floor(alpha * (null_samples.size + 1) + 1e-12)) - 1
    if k < 0:
        return float("inf")
    return float(np.sort(null_samples)[::-1][k])


def permutation_assignments(m: int, n: int, n_permutations: int, rng) -> np.ndarray:
    """(m + n, B) 0/1 matrix; column b marks the points relabelled as X in replicate b."""
    base = np.concatenate([np.ones(m), np.zeros(n)])
    return rng.permuted(np.tile(base, (n_permutations, 1)), axis=1).T.copy()


def _with_identity(U: np.ndarray, m: int) -> np.ndarray:
    """Prepend the observed labelling (first m points are X) as column 0."""
    observed = (np.arange(U.shape[0]) < m).astype(float)
    return np.hstack([observed[:, None], U])


def _block_sums(KU, U, row_sums, trace_rows, total):
    """S_XX, S_YY, S_XY and the two traces for each assignment column of U."""
    s_xx = np.einsum("ij,ij->j", U, KU)
    k1u = row_sums @ U  # 1ᵀ K u
    s_xy = k1u - s_xx
    s_yy = total - 2.0 * k1u + s_xx
    tr_x = trace_rows @ U
    return s_xx, s_yy, s_xy, tr_x, trace_rows.sum() - tr_x


def _mmd2_from_sums(sums, m, n, estimator):
    s_xx, s_yy, s_xy, tr_x, tr_y = sums
    if estimator == "biased":
        return s_xx / m**2 + s_yy / n**2 - 2.0 * s_xy / (m * n)
    return ((s_xx - tr_x) / (m * (m - 1)) + (s_yy - tr_y) / (n * (n - 1))
            - 2.0 * s_xy / (m * n))


def permutation_mmd2(X, Y, kernel, U, *, estimator="biased",
                     working_memory=DEFAULT_WORKING_MEMORY) -> np.ndarray:
    """Exact MMD² for every assignment column of U in one streamed pass over the joint Gram.

    Memory is O(working_memory + N·B); the Gram is never stored whole.
    """
    Z = np.vstack([X, Y])
    KU = np.empty_like(U)
    row_sums = np.empty(Z.shape[0])
    diag = np.empty(Z.shape[0])
    for sl, block in kernel.gram_blocks(Z, Z, working_memory=working_memory):
        KU[sl] = block @ U
        row_sums[sl] = block.sum(axis=1)
        diag[sl] = block[np.arange(block.shape[0]), np.arange(sl.start, sl.stop)]
    sums = _block_sums(KU, U, row_sums, diag, row_sums.sum())
    return _mmd2_from_sums(sums, X.shape[0], Y.shape[0], estimator)


def nystrom_features(Z: np.ndarray, kernel, n_landmarks, rng) -> np.ndarray:
    """F = K_{Z,L} K_L^{+1/2} for m landmarks L drawn from Z: F Fᵀ is the Nyström Gram.

    Then ||mean F_X - mean F_Y||² = ||P_m(μ̂_X - μ̂_Y)||², the squared Nyström MMD with
    the projection P_m onto the span of the pooled landmarks (Chatalic et al., Sec. 5).
    """
    from .embedding import draw_landmarks, pinv_psd

    L = Z[draw_landmarks(Z.shape[0], n_landmarks, None, True, rng)]
    w, V = pinv_psd(kernel.gram(L, L))
    return kernel.gram(Z, L) @ (V / np.sqrt(w))


def permutation_fastmmd2(features: np.ndarray, m: int, U) -> np.ndarray:
    """Biased MMD² ||mean F_X - mean F_Y||² for every assignment column of U.

    F is the N × 2L random-feature matrix (FastMMD Alg. 2) or the N × m Nyström
    feature matrix.
    """
    S = features.T @ U  # (2L, B): feature sums of the relabelled X
    total = features.sum(axis=0)[:, None]
    n = features.shape[0] - m
    return np.sum((S / m - (total - S) / n) ** 2, axis=0)


def centred_joint_gram(X, Y, kernel) -> tuple[np.ndarray, int]:
    """H K H for the pooled sample (H the centring matrix) and N = m + n."""
    Z = np.vstack([X, Y])
    K = kernel.gram(Z, Z)
    row = K.mean(axis=1)
    Kc = K - row[:, None] - row[None, :] + row.mean()
    return Kc, Z.shape[0]


def spectral_eigenvalues(X, Y, kernel) -> np.ndarray:
    """Eigenvalues of the centred joint Gram matrix divided by N (non-negative part)."""
    Kc, N = centred_joint_gram(X, Y, kernel)
    lam = linalg.eigvalsh(Kc / N)
    return lam[lam > 1e-12 * max(lam.max(), 1e-300)]


def gamma_null_params(X, Y, kernel) -> dict:
    """Gamma(shape, scale) matching the H0 mean and variance of MMD²_b.

    Under H0, MMD²_b ≈ c Σ λ_l z_l² with c = 1/m + 1/n, so E = c Σλ = c tr(Kc)/N and
    Var = 2 c² Σλ² = 2 c² ||Kc||_F² / N²; for m = n this is Gretton et al.'s moment match.
    """
    Kc, N = centred_joint_gram(X, Y, kernel)
    c = 1.0 / X.shape[0] + 1.0 / Y.shape[0]
    mean = c * np.trace(Kc) / N
    var = 2.0 * c**2 * np.sum(Kc**2) / N**2
    return {"shape": mean**2 / var, "scale": var / mean}


def _simulate_spectral(lam, m, n, estimator, B, rng) -> np.ndarray:
    z2 = rng.standard_normal((B, lam.size)) ** 2
    if estimator == "unbiased":
        z2 -= 1.0
    return (1.0 / m + 1.0 / n) * (z2 @ lam)


def _statistic_and_null(X, Y, kernel, estimator, null, B, rng, options):
    """Return (statistic, null_samples, analytic_dist, null_params) — the test's heart."""
    m, n = X.shape[0], Y.shape[0]
    if estimator in ("biased", "unbiased"):
        if null == "permutation":
            U = _with_identity(permutation_assignments(m, n, B, rng), m)
            values = permutation_mmd2(X, Y, kernel, U, estimator=estimator)
            return values[0], values[1:], None, {}
        statistic = mmd2(X, Y, kernel, estimator=estimator)
        if null == "gamma":
            params = gamma_null_params(X, Y, kernel)
            return statistic, None, stats.gamma(params["shape"], scale=params["scale"]), params
        lam = spectral_eigenvalues(X, Y, kernel)
        return statistic, _simulate_spectral(lam, m, n, estimator, B, rng), None, {
            "eigenvalues": lam}
    if estimator.startswith("fastmmd") or estimator == "nystrom":
        Z = np.vstack([X, Y])
        if estimator == "nystrom":
            F = nystrom_features(Z, kernel, options["n_landmarks"], rng)
        else:
            feats = random_features(kernel, Z, n_features=options["n_features"],
                                    method=estimator.split("-")[1], rng=rng)
            F = feats.transform(Z)
        U = _with_identity(permutation_assignments(m, n, B, rng), m)
        values = permutation_fastmmd2(F, m, U)
        return values[0], values[1:], None, {}
    terms = (linear_terms(X, Y, kernel) if estimator == "linear"
             else block_terms(X, Y, kernel, options["block_size"]))
    if terms.size < 2:
        raise ValueError(f"the {estimator} estimator has {terms.size} summand(s); "
                         "the normal null needs at least 2 (use more samples)")
    scale = float(terms.std(ddof=1) / np.sqrt(terms.size))
    if scale == 0.0:
        raise ValueError(f"the {estimator} summands are all equal: the normal null is degenerate")
    return float(terms.mean()), None, stats.norm(0.0, scale), {"scale": scale}


def mmd_test(X, Y, kernel, *, estimator: str = "biased", null: str = "permutation",
             n_permutations: int = 1000, alpha: float = 0.05, n_features: int = 256,
             block_size: int | None = None, n_landmarks: int | None = None,
             rng=None) -> TestResult:
    """Kernel two-sample test of H0: P = Q with an MMD² statistic and a null distribution.

    Parameters
    ----------
    X : array (m, d)
    Y : array (n, d)
    kernel : Kernel (shift-invariant for the FastMMD estimators)
    estimator : {"biased", "unbiased", "linear", "block", "fastmmd-fourier", "fastmmd-fastfood",
                 "nystrom"}
    null : {"permutation", "gamma", "spectral", "normal"}
        Valid pairs (``VALID_NULLS``): biased — permutation, gamma, spectral; unbiased —
        permutation, spectral; linear and block — normal; FastMMD — permutation
        (the paper's FastMMD + bootstrap); nystrom — permutation (squared Nyström MMD
        with landmarks drawn from the pooled sample). Other pairs raise ValueError.
    n_permutations : int
        B, the number of permutation (or spectral simulation) replicates.
    alpha : float in (0, 1)
    n_features : int
        L for the FastMMD estimators.
    block_size : int, optional
        B-test block size (default floor(sqrt(n))).
    n_landmarks : int, optional
        m for the Nyström estimator (default ceil(√N log √N), N = m + n).
    rng : Generator, int or None

    Returns
    -------
    TestResult

    Examples
    --------
    >>> import numpy as np
    >>> from kmeviz import GaussianKernel
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.normal(size=(100, 2)), rng.normal(1.0, 1.0, size=(100, 2))
    >>> res = mmd_test(X, Y, GaussianKernel(1.0), n_permutations=200, rng=0)
    >>> bool(res.reject), res.p_value == 1 / 201  # no permutation reaches the statistic
    (True, True)
    """
    check_choice(estimator, "estimator", tuple(VALID_NULLS))
    check_choice(null, "null", NULLS)
    if null not in VALID_NULLS[estimator]:
        raise ValueError(
            f"null={null!r} is not valid for estimator={estimator!r}; "
            f"valid nulls are {', '.join(VALID_NULLS[estimator])}"
        )
    B = check_positive_int(n_permutations, "n_permutations")
    alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)
    X, Y = check_pair(X, Y, min_samples=2)
    kernel = check_kernel(kernel, shift_invariant=estimator.startswith("fastmmd"))
    options = {"n_features": check_positive_int(n_features, "n_features"),
               "block_size": block_size, "n_landmarks": n_landmarks}
    rng = check_rng(rng)

    t0 = time.perf_counter()
    statistic, samples, dist, params = _statistic_and_null(X, Y, kernel, estimator, null, B,
                                                           rng, options)
    elapsed = time.perf_counter() - t0
    statistic = float(statistic)
    p_value = (p_value_from_samples(statistic, samples) if samples is not None
               else float(dist.sf(statistic)))
    result = TestResult(statistic=statistic, p_value=float(p_value), null_samples=samples,
                        threshold=np.nan, reject=False, alpha=alpha, estimator=estimator,
                        null=null, null_params=params, runtime={"total": elapsed})
    return result.at_level(alpha)
