"""HSIC, the Hilbert–Schmidt independence criterion, and what its tests are built from.

HSIC(X, Y) is the squared MMD between the joint law P_XY and the product P_X ⊗ P_Y under
the product kernel k ⊗ l (Gretton et al. 2005): the squared Hilbert–Schmidt norm of the
cross-covariance operator. With the Grams K (of X) and L (of Y) and H = I - 11ᵀ/n:

- the biased V-statistic HSIC_b = tr(K H L H) / n² (Gretton et al. 2008, Eq. 4);
- the unbiased U-statistic of Song et al. 2012 (JMLR 13, Eq. 5), from the Grams with
  their diagonals set to zero.

Neither forms H: both are functions of Σ_ij K_ij L_ij, the row sums K1 and L1 and the
diagonals, which one threaded pass over the tiles on or above the diagonal computes
(``gram_sums``), in O(tile · n) memory. The permutation replicates come from the centred
Grams K̃ = HKH and L̃ = HLH held once (``CentredGram``): as pivoted-Cholesky factors
K̃ ≈ FFᵀ when the spectrum decays (the replicate Σ_ij K̃_ij L̃_{π_i π_j} is then
||F_Xᵀ F_Y[π]||², a product of n × r matrices), else as the matrices themselves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import linalg

from ..config import get_config
from ..kernels.engine import run_tasks

#: A pivoted-Cholesky factor stops when its residual trace is below this fraction of
#: tr K: a replicate's error is then at most ~n · 1e-12 relative (``CentredGram``).
FACTOR_RTOL = 1e-12
#: Bytes of permuted factor rows a replicate batch holds.
BATCH_BYTES = 32 * 2**20


@dataclass(frozen=True)
class KernelPair:
    """A kernel on X and one on Y: their product k ⊗ l is the kernel of HSIC.

    Parameters
    ----------
    x, y : Kernel
        The kernels of the two variables (they may differ; X and Y may have different
        dimensions).

    (Gretton et al. 2005: HSIC is defined by a kernel on each variable.)
    """

    x: object
    y: object

    @property
    def shift_invariant(self) -> bool:
        """Both kernels are shift-invariant (what random Fourier features need)."""
        return bool(getattr(self.x, "shift_invariant", False)
                    and getattr(self.y, "shift_invariant", False))

    @property
    def points_are_indices(self) -> bool:
        """Either kernel reads indices into a precomputed Gram."""
        return bool(getattr(self.x, "points_are_indices", False)
                    or getattr(self.y, "points_are_indices", False))


@dataclass(frozen=True)
class GramSums:
    """What HSIC reads from the Grams K and L of n points: Σ_ij K_ij L_ij (``cross``),
    K1, L1, diag K and diag L. (Song et al. 2012, Eq. 5, needs no more.)"""

    cross: float
    k1: np.ndarray
    l1: np.ndarray
    k_diag: np.ndarray
    l_diag: np.ndarray

    @property
    def n(self) -> int:
        return self.k1.shape[0]


def _tiles(n: int, side: int) -> list[tuple[slice, slice]]:
    starts = range(0, n, side)
    return [(slice(i, min(i + side, n)), slice(j, min(j + side, n)))
            for i in starts for j in starts if j >= i]


def gram_sums(X: np.ndarray, Y: np.ndarray, kernels: KernelPair) -> GramSums:
    """``GramSums`` of the sample (X, Y) in one threaded pass over the tiles of K and L on
    or above the diagonal, each tile pair reduced where it is computed (O(tile · n))."""
    n = X.shape[0]
    config = get_config()

    def work(task):
        rows, cols = task
        Kt, Lt = kernels.x.gram(X[rows], X[cols]), kernels.y.gram(Y[rows], Y[cols])
        cross = float(np.einsum("ij,ij->", Kt, Lt))
        diagonal = rows == cols
        sums = (Kt.sum(axis=1), Lt.sum(axis=1), Kt.sum(axis=0), Lt.sum(axis=0))
        diags = (np.diagonal(Kt).copy(), np.diagonal(Lt).copy()) if diagonal else None
        return rows, cols, cross if diagonal else 2.0 * cross, sums, diags

    k1, l1, k_diag, l_diag = (np.zeros(n) for _ in range(4))
    cross = 0.0
    for rows, cols, c, (kr, lr, kc, lc), diags in run_tasks(work, _tiles(n, config["tile_rows"]),
                                                            config["n_threads"]):
        cross += c
        k1[rows] += kr
        l1[rows] += lr
        if diags is None:
            k1[cols] += kc
            l1[cols] += lc
        else:
            k_diag[rows], l_diag[rows] = diags
    return GramSums(cross, k1, l1, k_diag, l_diag)


def hsic_from_sums(cross, k1, l1, k_diag, l_diag, estimator: str):
    """HSIC_b or HSIC_u from Σ K∘L and the vectors of ``GramSums``; ``cross`` may be (B,)
    and ``l1``, ``l_diag`` (B, n) for B relabellings of Y (the formulas are the same).

    HSIC_b = (Σ K∘L − (2/n) K1·L1 + (1ᵀK1)(1ᵀL1)/n²) / n² (= tr(KHLH)/n²); HSIC_u is
    Song et al. 2012 Eq. 5 with K̂, L̂ the Grams with zero diagonals."""
    n = k1.shape[0]
    k_total, l_total = k1.sum(), l1.sum(axis=-1)
    if estimator == "biased":
        return (cross - 2.0 / n * (l1 @ k1) + k_total * l_total / n**2) / n**2
    k_hat, l_hat = k1 - k_diag, l1 - l_diag
    trace = cross - l_diag @ k_diag
    return (trace + (k_hat.sum() * l_hat.sum(axis=-1)) / ((n - 1) * (n - 2))
            - 2.0 / (n - 2) * (l_hat @ k_hat)) / (n * (n - 3))


def hsic_statistic(X: np.ndarray, Y: np.ndarray, kernels: KernelPair, *,
                   estimator: str = "biased") -> float:
    """HSIC_b or HSIC_u of clean paired samples (``hsic_from_sums`` of ``gram_sums``)."""
    s = gram_sums(X, Y, kernels)
    return float(hsic_from_sums(s.cross, s.k1, s.l1, s.k_diag, s.l_diag, estimator))


# -- the centred Grams, held once for the nulls -------------------------------------------
@dataclass(frozen=True)
class CentredGram:
    """K̃ = HKH of one variable: a factor F (n × r, K̃ ≈ FFᵀ) or the matrix itself.

    The factor comes from a pivoted Cholesky factorisation of K stopped when the residual
    trace tr(K − GGᵀ) is at most ``FACTOR_RTOL`` · tr K (then F = HG): with E = K − GGᵀ
    PSD, |tr(H E H M)| ≤ tr(E) ||M||, so a replicate tr(K̃ M) moves by at most that. A
    matrix keeps the row sums K1 and the diagonal of K, so the statistic needs no second
    Gram (``statistic_sums``).
    """

    factor: np.ndarray | None
    matrix: np.ndarray | None
    row_sums: np.ndarray | None = None
    diagonal: np.ndarray | None = None

    @property
    def rank(self) -> int:
        return self.factor.shape[1] if self.factor is not None else self.matrix.shape[0]

    def eigenvalues(self) -> np.ndarray:
        """The eigenvalues of K̃, descending (those of FᵀF for a factor)."""
        if self.factor is not None:
            values = linalg.eigvalsh(self.factor.T @ self.factor)
        else:
            values = linalg.eigvalsh(self.matrix)
        return np.clip(values[::-1], 0.0, None)

    def full(self) -> np.ndarray:
        """K̃ as an n × n matrix."""
        return self.factor @ self.factor.T if self.factor is not None else self.matrix


def pivoted_cholesky(kernel, X: np.ndarray, max_rank: int,
                     rtol: float = FACTOR_RTOL) -> np.ndarray | None:
    """G (n × r) with tr(K − GGᵀ) ≤ rtol · tr K, one kernel column per step (pivot: the
    largest residual diagonal), or None when r would exceed ``max_rank``."""
    n = X.shape[0]
    residual = np.asarray(kernel.diag(X), dtype=np.float64).copy()
    total = residual.sum()
    G = np.zeros((n, min(max_rank, n)))
    rows, column = kernel.prepare_validated(X), np.empty((n, 1))  # X prepared once
    for r in range(G.shape[1] + 1):
        if residual.sum() <= rtol * total:
            return G[:, :r]
        if r == G.shape[1]:
            return None
        p = int(np.argmax(residual))
        kernel.tile_into(rows, kernel.prepare_validated(X[p : p + 1]), column)
        column[:, 0] -= G[:, :r] @ G[p, :r]
        G[:, r] = column[:, 0] / math.sqrt(residual[p])
        residual -= G[:, r] ** 2
        residual[p] = 0.0
        np.clip(residual, 0.0, None, out=residual)
    return None


def centred_gram(kernel, X: np.ndarray, max_rank: int) -> CentredGram:
    """``CentredGram`` of X: the factor when its rank is at most ``max_rank``, else K̃."""
    G = pivoted_cholesky(kernel, X, max_rank) if max_rank > 0 else None
    if G is not None and G.shape[1] > 0:
        return CentredGram(G - G.mean(axis=0), None)
    K = kernel.gram(X, X)
    row_sums, diagonal = K.sum(axis=1), np.diagonal(K).copy()
    means = row_sums / X.shape[0]
    K -= means[:, None]  # centred in place: one n × n array
    K -= means[None, :]
    K += means.mean()
    return CentredGram(None, K, row_sums, diagonal)


def statistic_sums(X, Y, kernels: KernelPair, grams) -> GramSums:
    """``GramSums`` of the sample for the nulls' ``grams``: from the centred matrices when
    they hold them (Σ K∘L = Σ K̃∘L̃ + (2/n) K1·L1 − (1ᵀK1)(1ᵀL1)/n², as for a relabelling
    in ``permuted_hsic``; no Gram computed twice), else by the tile pass ``gram_sums``."""
    gx, gy = grams
    if gx.matrix is None:
        return gram_sums(X, Y, kernels)
    n, k1, l1 = X.shape[0], gx.row_sums, gy.row_sums
    cross = (float(np.einsum("ij,ij->", gx.matrix, gy.matrix)) + 2.0 / n * float(k1 @ l1)
             - float(k1.sum() * l1.sum()) / n**2)
    return GramSums(cross, k1, l1, gx.diagonal, gy.diagonal)


#: A replicate by factors costs 2 n r_X r_Y flops against about n² element gathers of a
#: permuted matrix (3 ns each here, ~30 flops of a product): factors while r_X r_Y ≤
#: FACTOR_WORK · n.
FACTOR_WORK = 16


def centred_grams(X, Y, kernels: KernelPair) -> tuple[CentredGram, CentredGram]:
    """The two ``CentredGram``: both factored when r_X r_Y ≤ ``FACTOR_WORK`` · n (one
    variable is factored up to √(FACTOR_WORK · n), the other up to what that leaves), else
    both matrices (a factor against a matrix would cost n² r a replicate)."""
    n = X.shape[0]
    budget = FACTOR_WORK * n
    first = max(8, int(math.sqrt(budget)))
    order = ((kernels.x, X), (kernels.y, Y))
    for a, b in (order, order[::-1]):
        Ga = pivoted_cholesky(*a, max_rank=first)
        if Ga is None or Ga.shape[1] == 0:
            continue
        Gb = pivoted_cholesky(*b, max_rank=max(1, budget // Ga.shape[1]))
        if Gb is not None and Gb.shape[1] > 0:
            grams = tuple(CentredGram(G - G.mean(axis=0), None) for G in (Ga, Gb))
            return grams if a[1] is X else grams[::-1]
        break
    return tuple(centred_gram(k, Z, max_rank=0) for k, Z in order)


def permuted_cores(gx: CentredGram, gy: CentredGram, perms: np.ndarray) -> np.ndarray:
    """Σ_ij K̃_ij L̃_{π_i π_j} for each row π of ``perms`` (B × n), in threads: by factors
    ||F_Xᵀ F_Y[π]||² in batches of ``BATCH_BYTES``, else by gathering L̃[π][:, π]."""
    config = get_config()
    n, B = perms.shape[1], perms.shape[0]
    if gx.factor is not None:
        Fx, Fy = gx.factor, gy.factor
        batch = max(1, BATCH_BYTES // (8 * n * Fy.shape[1]))

        def work(sl):
            products = np.matmul(Fx.T[None], Fy[perms[sl]])
            return np.einsum("bij,bij->b", products, products)
    else:
        Kc, Lc = gx.matrix, gy.matrix
        batch = 1

        def work(sl):
            return np.array([np.einsum("ij,ij->", Kc, np.take(Lc[p], p, axis=1))
                             for p in perms[sl]])

    tasks = [slice(i, min(i + batch, B)) for i in range(0, B, batch)]
    return np.concatenate(run_tasks(work, tasks, config["n_threads"])) if B else np.zeros(0)


def permutations(n: int, B: int, rng) -> np.ndarray:
    """B independent uniform permutations of range(n), one per row (B × n)."""
    return rng.permuted(np.tile(np.arange(n), (B, 1)), axis=1)


def permuted_hsic(X, Y, kernels: KernelPair, sums: GramSums, perms: np.ndarray,
                  estimator: str, grams=None) -> np.ndarray:
    """HSIC of (X, Y[π]) for every row π of ``perms``: the centred core Σ K̃∘L̃[π, π] by
    ``permuted_cores``, then ``hsic_from_sums`` with Σ K∘L = core + (2/n) K1·L1[π] −
    (1ᵀK1)(1ᵀL1)/n² (since K̃1 = 0, the rank-one parts of K and L meet only there)."""
    gx, gy = grams or centred_grams(X, Y, kernels)
    n = X.shape[0]
    cores = permuted_cores(gx, gy, perms)
    if estimator == "biased":
        return cores / n**2
    l1, l_diag = sums.l1[perms], sums.l_diag[perms]
    cross = cores + 2.0 / n * (l1 @ sums.k1) - sums.k1.sum() * sums.l1.sum() / n**2
    return hsic_from_sums(cross, sums.k1, l1, sums.k_diag, l_diag, estimator)


# -- the Gamma null (Gretton et al. 2008, Sec. 3) -----------------------------------------
def gamma_moments(X, Y, kernels: KernelPair, sums: GramSums) -> dict:
    """The H0 mean and variance of HSIC_b (Gretton et al. 2008, Sec. 3):

    - mean = (1/n)(⟨diag K⟩ − μ_K)(⟨diag L⟩ − μ_L), μ the mean off-diagonal Gram entry
      (the paper's (1/n)(1 + μ_K μ_L − μ_K − μ_L) when k(x, x) = 1);
    - variance = 2(n−4)(n−5)/(n(n−1)(n−2)(n−3)) · Σ_{i≠j} (K̃_ij L̃_ij)² / (n(n−1)),

    the second from a second tile pass over the centred tiles. Returns ``mean``,
    ``variance``, ``shape`` = mean²/variance and ``scale`` = variance/mean."""
    n = X.shape[0]
    config = get_config()
    k_mean, l_mean = sums.k1 / n, sums.l1 / n
    k_all, l_all = k_mean.mean(), l_mean.mean()

    def work(task):
        rows, cols = task
        Kt = (kernels.x.gram(X[rows], X[cols]) - k_mean[rows, None] - k_mean[None, cols]
              + k_all)
        Lt = (kernels.y.gram(Y[rows], Y[cols]) - l_mean[rows, None] - l_mean[None, cols]
              + l_all)
        P = (Kt * Lt) ** 2
        if rows == cols:
            return float(P.sum() - np.trace(P))
        return 2.0 * float(P.sum())

    squares = sum(run_tasks(work, _tiles(n, config["tile_rows"]), config["n_threads"]))
    mu_k = (sums.k1.sum() - sums.k_diag.sum()) / (n * (n - 1))
    mu_l = (sums.l1.sum() - sums.l_diag.sum()) / (n * (n - 1))
    mean = (sums.k_diag.mean() - mu_k) * (sums.l_diag.mean() - mu_l) / n
    variance = (2.0 * (n - 4) * (n - 5) / (n * (n - 1) * (n - 2) * (n - 3))
                * squares / (n * (n - 1)))
    if not (mean > 0 and variance > 0):
        raise ValueError("the Gamma null is degenerate on these samples (a constant "
                         "variable, or a bandwidth far too small): use null='permutation'")
    return {"mean": float(mean), "variance": float(variance),
            "shape": float(mean**2 / variance), "scale": float(variance / mean)}


# -- the spectral null (Gretton et al. 2009; Zhang et al. 2011, Thm. 4) -------------------
#: Products λ_a η_b the spectral null simulates; the rest enter by their sum.
SPECTRAL_TERMS = 1000


def weighted_chi2_draws(weights: np.ndarray, B: int, rng,
                        terms: int = SPECTRAL_TERMS) -> np.ndarray:
    """B draws of Σ_k w_k z_k², z i.i.d. N(0, 1): the largest ``terms`` weights simulated,
    the rest added at their mean (the limit law of the degenerate statistics here)."""
    w = np.sort(np.asarray(weights, dtype=float).ravel())[::-1]
    kept, tail = w[:terms], float(w[terms:].sum())
    return (rng.standard_normal((B, kept.size)) ** 2) @ kept + tail


def spectral_draws(lam: np.ndarray, eta: np.ndarray, n: int, B: int, rng) -> np.ndarray:
    """B draws of (1/n) Σ_ab λ_a η_b z_ab², z i.i.d. N(0, 1), λ and η the eigenvalues of
    K̃/n and L̃/n: the H0 limit of HSIC_b (n·HSIC_b → Σ λ_a η_b z_ab²)
    (``weighted_chi2_draws`` of the products)."""
    return weighted_chi2_draws(np.outer(lam, eta), B, rng) / n


# -- the witness of dependence ------------------------------------------------------------
def witness_on_grid(X, Y, kernels: KernelPair, grid_x, grid_y) -> np.ndarray:
    """w(u, v) = (1/n) Σ_i k(x_i, u) l(y_i, v) − [(1/n) Σ_i k(x_i, u)][(1/n) Σ_j l(y_j, v)]
    for every u of ``grid_x`` (rows) and v of ``grid_y`` (columns): μ̂_XY − μ̂_X ⊗ μ̂_Y,
    whose squared RKHS norm is HSIC_b."""
    Kg, Lg = kernels.x.gram(grid_x, X), kernels.y.gram(grid_y, Y)
    n = X.shape[0]
    return Kg @ Lg.T / n - np.outer(Kg.mean(axis=1), Lg.mean(axis=1))
