"""Kernel Stein discrepancies (Kalinke, Szabó & Sriperumbudur, *Nyström Kernel Stein
Discrepancy*): the Stein kernel, KSD², Nyström KSD² and their statistics.

For a target p known through its score s = ∇ log p and a radial base kernel
k(x, y) = φ(||x - y||²), the Stein kernel (Eq. 3) is, with u = x - y and r² = ||u||²,

    h_p(x, y) = φ sₓ·s_y + 2φ' (s_y·u - sₓ·u) - 4φ'' r² - 2dφ',

so a Gram tile costs four (rows × d) @ (d × cols) products. Gram matrices are streamed
in row blocks like the other kernels; the tests are in ``kmeviz.goodness_of_fit``.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_choice, check_samples
from .embedding import draw_landmarks, pinv_psd
from .kernels import DEFAULT_WORKING_MEMORY, GaussianKernel, IMQKernel, check_kernel, tile_rows


def radial_profile(kernel, sq: np.ndarray):
    """(φ, φ', φ'') at squared distances ``sq`` for k(x, y) = φ(||x - y||²)."""
    if isinstance(kernel, GaussianKernel):
        a = 0.5 / kernel.bandwidth**2
        phi = np.exp(-a * sq)
        d1 = phi * -a
        return phi, d1, d1 * -a
    if isinstance(kernel, IMQKernel):
        inv_base = kernel.c**2 + sq
        np.reciprocal(inv_base, out=inv_base)
        if kernel.beta == -0.5:
            phi = np.sqrt(inv_base)
        else:
            phi = np.power(inv_base, -kernel.beta)
        d1 = phi * inv_base
        d1 *= kernel.beta
        d2 = d1 * inv_base
        d2 *= kernel.beta - 1.0
        return phi, d1, d2
    raise TypeError("the Stein kernel needs a GaussianKernel or an IMQKernel base kernel, "
                    f"got {type(kernel).__name__}")


def checked_score(target, X: np.ndarray) -> np.ndarray:
    """target.score(X), checked to be a finite (n, d) array."""
    if not callable(getattr(target, "score", None)):
        raise TypeError(f"target must have a score(X) method, got {type(target).__name__}")
    S = np.asarray(target.score(X), dtype=float)
    if S.shape != X.shape:
        raise ValueError(f"target.score returned shape {S.shape}, expected {X.shape} "
                         "(one gradient of log p per row of X)")
    if not np.all(np.isfinite(S)):
        raise ValueError("target.score returned non-finite values (NaN or inf)")
    return S


class SteinKernel:
    """h_p of Eq. (3) for a Gaussian or IMQ base kernel and a target with a score."""

    def __init__(self, kernel, target):
        self.kernel = check_kernel(kernel, "kernel")
        radial_profile(self.kernel, np.zeros(1))  # raises TypeError for other kernels
        self.target = target

    def prepare(self, X) -> tuple:
        """(X, S, rowsum(X∘S), rowsum(X∘X)) with S the checked score."""
        X = check_samples(X, "X")
        S = checked_score(self.target, X)
        return X, S, np.einsum("ij,ij->i", X, S), np.einsum("ij,ij->i", X, X)

    def _combine(self, sq, ss, cross, dim):
        """φ sₓ·s_y + 2φ'(s_y·u - sₓ·u - d) - 4φ'' r² from r², sₓ·s_y and s_y·u - sₓ·u."""
        phi, d1, d2 = radial_profile(self.kernel, sq)
        cross -= dim
        d1 *= 2.0
        cross *= d1
        d2 *= sq
        d2 *= 4.0
        ss *= phi
        ss += cross
        ss -= d2
        return ss

    def tile(self, a: tuple, b: tuple) -> np.ndarray:
        """h_p(a_i, b_j) for two prepared blocks."""
        Xa, Sa, xsa, xxa = a
        Xb, Sb, xsb, xxb = b
        sq = Xa @ Xb.T  # temporaries updated in place: tiles are large
        sq *= -2.0
        sq += xxa[:, None]
        sq += xxb[None, :]
        np.maximum(sq, 0.0, out=sq)
        cross = Xa @ Sb.T
        cross += Sa @ Xb.T
        cross -= xsa[:, None]
        cross -= xsb[None, :]  # s_y·u - sₓ·u
        return self._combine(sq, Sa @ Sb.T, cross, Xa.shape[1])

    def paired(self, a: tuple, b: tuple) -> np.ndarray:
        """h_p(a_i, b_i) for prepared blocks of equal length (row by row)."""
        Xa, Sa, xsa, xxa = a
        Xb, Sb, xsb, xxb = b
        sq = np.maximum(xxa + xxb - 2.0 * np.einsum("ij,ij->i", Xa, Xb), 0.0)
        cross = np.einsum("ij,ij->i", Xa, Sb) + np.einsum("ij,ij->i", Sa, Xb) - xsa - xsb
        return self._combine(sq, np.einsum("ij,ij->i", Sa, Sb), cross, Xa.shape[1])

    def diag(self, a: tuple) -> np.ndarray:
        """h_p(x, x) = φ(0) ||s(x)||² - 2d φ'(0)."""
        X, S = a[0], a[1]
        phi, d1, _ = radial_profile(self.kernel, np.zeros(1))
        return phi[0] * np.einsum("ij,ij->i", S, S) - 2.0 * X.shape[1] * d1[0]

    def __call__(self, X, Y=None) -> np.ndarray:
        """The Stein Gram matrix [h_p(x_i, y_j)]."""
        a = self.prepare(X)
        return self.tile(a, a if Y is None else self.prepare(Y))

    def row_blocks(self, a: tuple, b: tuple, working_memory: int = DEFAULT_WORKING_MEMORY):
        """Yield (row slice, h_p(a[slice], b)) in blocks of bounded size (a few tiles' worth
        of temporaries each)."""
        rows = max(1, tile_rows(b[0].shape[0], working_memory) // 4)
        for start in range(0, a[0].shape[0], rows):
            sl = slice(start, min(start + rows, a[0].shape[0]))
            yield sl, self.tile(tuple(part[sl] for part in a), b)


def ksd2(X, target, kernel, *, estimator: str = "v",
         working_memory: int = DEFAULT_WORKING_MEMORY) -> float:
    """KSD² by the V-statistic (1/n²) Σ_ij h_p(x_i, x_j) (Eq. 5) or the U-statistic that
    drops i = j (Liu et al. 2016). O(n²) time, O(working_memory) extra memory.

    Examples
    --------
    >>> import numpy as np
    >>> from kmeviz import GaussianKernel, NormalTarget
    >>> X = np.random.default_rng(0).normal(size=(500, 2))
    >>> bool(abs(ksd2(X, NormalTarget(np.zeros(2)), GaussianKernel(1.0), estimator="u")) < 0.01)
    True
    """
    check_choice(estimator, "estimator", ("v", "u"))
    stein = SteinKernel(kernel, target)
    a = stein.prepare(X)
    n = a[0].shape[0]
    if estimator == "u" and n < 2:
        raise ValueError("the U-statistic needs at least 2 samples")
    total = sum(float(block.sum()) for _, block in stein.row_blocks(a, a, working_memory))
    if estimator == "v":
        return total / n**2
    return (total - float(stein.diag(a).sum())) / (n * (n - 1))


class NystromStein:
    """The Nyström KSD pieces of Lemma 1: landmarks x̃ (indices into X, with replacement),
    β = K_mn 1/n, and a factor R of K_mm⁺ = RᵀR (eigenvalues below 1e-10 × max dropped).

    ``statistic`` is β K_mm⁺ β = ||R β||² (Eq. 8); the witness and bootstrap reuse R.
    Given ``signs`` — an (n, D) array W or a stream with ``take(rows)`` — the same pass also
    computes K_mn W for the bootstrap (Eq. 11).
    """

    def __init__(self, X, target, kernel, *, n_landmarks=None, landmarks=None, rng=None,
                 signs=None, working_memory: int = DEFAULT_WORKING_MEMORY):
        self.stein = SteinKernel(kernel, target)
        self.prepared = self.stein.prepare(X)
        n = self.prepared[0].shape[0]
        m = default_stein_landmarks(n) if n_landmarks is None else n_landmarks
        self.landmarks = draw_landmarks(n, m if landmarks is None else None, landmarks,
                                        True, rng)
        self.working_memory = working_memory
        lm = tuple(part[self.landmarks] for part in self.prepared)
        self.landmark_data = lm
        # divide-and-conquer eigh: repeated landmarks make MRRR (scipy's default) slow
        w, V = pinv_psd(self.stein.tile(lm, lm), driver="evd")
        self.R = (V / np.sqrt(w)).T  # (rank, m)
        # one pass over blocks of samples: β = K_mn 1 / n and, for a test, K_mn W
        self.beta = np.zeros(self.landmarks.size)
        self.projected_signs = None
        for sl, block in self.stein.row_blocks(self.prepared, lm, working_memory):
            self.beta += block.sum(axis=0)
            if signs is not None:
                W = signs[sl] if isinstance(signs, np.ndarray) else signs.take(sl.stop - sl.start)
                if self.projected_signs is None:
                    self.projected_signs = np.zeros((lm[0].shape[0], W.shape[1]))
                self.projected_signs += block.T @ W
        self.beta /= n

    @property
    def statistic(self) -> float:
        return float(np.sum((self.R @ self.beta) ** 2))

    def project(self, W: np.ndarray) -> np.ndarray:
        """K_mn W (m, D) streamed over blocks of samples: O(m n D) time, O(m D) memory."""
        out = np.zeros((self.landmarks.size, W.shape[1]))
        for sl, block in self.stein.row_blocks(self.prepared, self.landmark_data,
                                               self.working_memory):
            out += block.T @ W[sl]
        return out

    @property
    def weights(self) -> np.ndarray:
        """α = K_mm⁺ β: the projected embedding is Σ_j α_j h_p(x̃_j, ·) (Eq. 6)."""
        return self.R.T @ (self.R @ self.beta)

    def witness(self, grid) -> np.ndarray:
        """x ↦ Σ_j α_j h_p(x̃_j, x): the projected Stein witness."""
        return self.stein.tile(self.stein.prepare(grid), self.landmark_data) @ self.weights


def default_stein_landmarks(n: int) -> int:
    """m = ceil(4√n), the paper's choice in every experiment of Sec. 5."""
    return max(1, int(np.ceil(4.0 * np.sqrt(n))))


def ksd2_nystrom(X, target, kernel, *, n_landmarks=None, landmarks=None, rng=None) -> float:
    """Nyström KSD² = β_pᵀ K_mm⁺ β_p (Lemma 1, Eq. 8), landmarks drawn with replacement
    (default m = 4√n) or given as indices into X. O(nm + m³) time, O(nm) memory at most."""
    return NystromStein(X, target, kernel, n_landmarks=n_landmarks, landmarks=landmarks,
                        rng=rng).statistic


def stein_witness(X, target, kernel, grid, *, weights=None) -> np.ndarray:
    """x ↦ (1/n) Σ_i h_p(x_i, x), the witness of the full KSD, at each row of ``grid``; with
    ``weights`` α, x ↦ Σ_i α_i h_p(x_i, x) (e.g. the Nyström weights of a test result)."""
    stein = SteinKernel(kernel, target)
    values = stein.tile(stein.prepare(grid), stein.prepare(X))
    return values.mean(axis=1) if weights is None else values @ np.asarray(weights, float)
