"""The resampling machinery of the two-sample tests: relabellings of the pooled sample as
0/1 matrices, the exact and random-feature MMD² of every relabelling in one pass, and the
Nyström features and spectral null of the pooled-landmark test (``test`` registers the
tests built on them)."""

from __future__ import annotations

from functools import partial

import numpy as np
from scipy import linalg
from scipy.linalg import blas

from ..budget import check_budget
from ..chunked import concatenate_rows, is_dask_array, row_chunk_sums, take_rows
from ..config import get_config
from ..embeddings.kme import draw_landmarks, psd_inverse_factor
from ..kernels import symmetric_quadratic_forms, tile_side
from ..kernels.engine import column_sums, gram_pass, run_tasks
from .nulls import simulate_spectral


def permutation_assignments(m: int, n: int, n_resamples: int, rng, *,
                            with_identity: bool = False) -> np.ndarray:
    """(m + n, B) 0/1 matrix; column b marks the points relabelled as X in replicate b
    (with ``with_identity``, (m + n, B + 1) with the observed labelling first).

    Each replicate draws m + n i.i.d. uniform keys and marks the m smallest: a uniformly
    random m-subset, as a shuffle gives, at a third of the cost of shuffling row by row.
    Replicates are drawn in fixed chunks (``_draw_assignments``), each from its own
    generator seeded by ``rng``, in the engine's threads, so the draws do not depend on
    the thread count.
    A tie at the m-th key (probability about N² 2⁻⁵⁴ per replicate) is redrawn.
    Returned in Fortran order in the configured dtype, so no copy is made later."""
    U = np.empty((m + n, n_resamples + with_identity), dtype=get_config()["dtype"],
                 order="F")
    if with_identity:
        U[:, 0] = np.arange(m + n) < m

    def write(start, chosen):
        first = start + with_identity
        U[:, first : first + chosen.shape[0]] = chosen.T

    _draw_assignments(m, n, n_resamples, rng, write)
    return U


def packed_permutation_assignments(m: int, n: int, n_resamples: int,
                                   rng) -> np.ndarray:
    """The B replicates of ``permutation_assignments`` (the same draws for the same
    ``rng``) packed 8 to a byte along the columns: (m + n, ceil(B / 8)) uint8, an eighth of
    a byte per point and replicate, for the tests that stream the rows of the sample
    (``np.unpackbits(..., axis=1, count=B)`` gives rows of U back)."""
    packed = np.empty((m + n, -(-n_resamples // 8)), dtype=np.uint8)

    def write(start, chosen):  # chunks of 128 columns start on a byte
        block = np.packbits(chosen.T, axis=1)
        packed[:, start // 8 : start // 8 + block.shape[1]] = block

    _draw_assignments(m, n, n_resamples, rng, write)
    return packed


def _draw_assignments(m, n, n_resamples, rng, write):
    """Draw the replicates in chunks (one generator each, seeded by ``rng``) and
    ``write(start, chosen)`` each chunk's (rows, m + n) boolean marks. Chunks are 128
    replicates up to N = 32768, then fewer (a multiple of 8), so that a chunk's keys stay
    under 32 MB: the draws depend on N and the seed only."""
    N = m + n
    chunk = 128 if N <= 32768 else max(8, (2**22 // N) // 8 * 8)
    starts = range(0, n_resamples, chunk)
    seeds = rng.integers(0, 2**63, size=len(starts))

    def draw(task):
        start, seed = task
        child = np.random.default_rng(seed)
        keys = child.random((min(chunk, n_resamples - start), N))
        while True:
            kth = np.partition(keys, m - 1, axis=1)[:, m - 1 : m]
            chosen = keys <= kth
            tied = np.flatnonzero(np.count_nonzero(chosen, axis=1) != m)
            if tied.size == 0:
                write(start, chosen)
                return
            keys[tied] = child.random((tied.size, N))

    run_tasks(draw, zip(starts, seeds, strict=True), get_config()["n_threads"])


def _block_sums(s_xx, U, row_sums, trace_rows, total):
    """S_XX, S_YY, S_XY and the two traces for each assignment column of U, given
    S_XX(u) = uᵀKu."""
    # 1ᵀ K u and the traces in float64 (0/1 columns are exact in any dtype; a mixed-dtype
    # product would leave BLAS)
    vectors = np.stack([row_sums, trace_rows])
    step = 256

    def product(start):  # column chunks in the engine's threads, each cast in cache
        return vectors @ U[:, start : start + step].astype(np.float64, copy=False)

    k1u, tr_x = np.hstack(run_tasks(product, range(0, U.shape[1], step),
                                    get_config()["n_threads"]))
    s_xy = k1u - s_xx
    s_yy = total - 2.0 * k1u + s_xx
    return s_xx, s_yy, s_xy, tr_x, trace_rows.sum() - tr_x


def _mmd2_from_sums(sums, m, n, estimator):
    s_xx, s_yy, s_xy, tr_x, tr_y = sums
    if estimator == "biased":
        return s_xx / m**2 + s_yy / n**2 - 2.0 * s_xy / (m * n)
    return ((s_xx - tr_x) / (m * (m - 1)) + (s_yy - tr_y) / (n * (n - 1))
            - 2.0 * s_xy / (m * n))


def permutation_mmd2(X, Y, kernel, U, *, estimator="biased",
                     working_memory: int | None = None) -> np.ndarray:
    """Exact MMD² for every assignment column of U in one pass over the joint Gram.

    S_XX(u) = uᵀKu for all columns at once, from the tiles on or above the diagonal (the
    tile engine); memory is O(tiles + N·B), the Gram is never stored whole.
    """
    Z = np.vstack([X, Y])
    s_xx, row_sums, diag = symmetric_quadratic_forms(kernel, Z, U,
                                                     side=tile_side(working_memory))
    sums = _block_sums(s_xx, U, row_sums, diag, row_sums.sum())
    return _mmd2_from_sums(sums, X.shape[0], Y.shape[0], estimator)


def nystrom_landmark_factor(Z: np.ndarray, kernel, n_landmarks, rng):
    """(L, R): m landmarks L drawn from Z and R with RᵀR a generalized inverse of K_L
    (``psd_inverse_factor``), so that the features F = K_{Z,L} Rᵀ have F Fᵀ the Nyström
    Gram.

    Then ||mean F_X - mean F_Y||² = ||P_m(μ̂_X - μ̂_Y)||², the squared Nyström MMD with
    the projection P_m onto the span of the pooled landmarks (Chatalic et al., Sec. 5).
    """
    L = Z[draw_landmarks(Z.shape[0], n_landmarks, None, True, rng)]
    return L, psd_inverse_factor(kernel.gram(L, L))


#: multiply-adds of one block of the relabelled sums Fᵀ U in ``streamed_feature_mmd2``
#: (about 0.3 s on one core here): with 8192 features and 5000 relabellings a block of
#: 4096 rows was 27 s of work between two budget checks
BLOCK_WORK = 2**31


def streamed_feature_mmd2(features_of, m: int, n: int, packed: np.ndarray, B: int,
                          rows_per_block: int = 4096) -> tuple[float, np.ndarray]:
    """(observed, the B replicates) of the biased MMD² ||mean F_X - mean F_Y||² of every
    relabelling, for the N × 2L random features F (FastMMD Alg. 2) or the N × m Nyström
    features, with the feature rows computed block by block (``features_of(row_slice)``)
    and the replicates' rows unpacked from ``packed_permutation_assignments``: memory
    O(block · (p + B) + N B / 8) bytes for p features, never the N × p feature matrix or
    the N × B float assignments. A block holds at most ``rows_per_block`` rows and about
    ``BLOCK_WORK`` multiply-adds, so the time budget is checked within a fraction of a
    second."""
    N, S, total, observed = m + n, None, None, None
    start, rows = 0, min(rows_per_block, 64)  # the first block tells the feature count
    while start < N:
        check_budget()  # a served computation stops within one block of its budget
        sl = slice(start, min(start + rows, N))
        F = features_of(sl)
        U = np.unpackbits(packed[sl], axis=1, count=B).astype(F.dtype)
        part_x = F[: max(0, min(m, sl.stop) - start)].sum(axis=0)
        if S is None:  # Fortran order: BLAS adds each block's Fᵀ U into it in place
            S = np.zeros((F.shape[1], B), dtype=F.dtype, order="F")
            total, observed = np.zeros(F.shape[1], F.dtype), np.zeros(F.shape[1], F.dtype)
        gemm = blas.get_blas_funcs("gemm", (F, U))  # S += Fᵀ U, given as Fortran-order
        S = gemm(1.0, F.T, U.T, beta=1.0, c=S, trans_b=True, overwrite_c=True)  # views
        total += F.sum(axis=0)
        observed += part_x
        start = sl.stop
        rows = int(np.clip(BLOCK_WORK // max(F.shape[1] * B, 1), 1, rows_per_block))
    # S/m - (total - S)/n, squared and summed, in place: S is p × B (8192 × 5000 is
    # 330 MB), and the expression's temporaries had tripled the peak memory
    S *= 1.0 / m + 1.0 / n
    S -= (total / n)[:, None]
    np.square(S, out=S)
    values = S.sum(axis=0)
    diff = observed / m - (total - observed) / n
    return float(diff @ diff), values


def nystrom_spectral(X, Y, kernel, n_landmarks, rng, B: int) -> tuple[float, np.ndarray,
                                                                          np.ndarray]:
    """(squared Nyström MMD, draws of its spectral null, the null's eigenvalues) in one
    pass over the samples, O(N m r + m³) time and O(m²) memory (X, Y numpy or dask).

    With the features F = K_{Z,L} Rᵀ of the pooled landmarks (``nystrom_landmark_factor``),
    the
    statistic ||mean F_X - mean F_Y||² is the biased MMD² of the Nyström Gram F Fᵀ, so the
    spectral null of Gretton et al. (2009) applies to it: (1/m + 1/n) Σ_l λ_l z_l², where
    the eigenvalues of the centred Nyström Gram / N are those of the pooled feature
    covariance Fᵀ H F / N (r × r), accumulated as Σ F and Fᵀ F over row blocks.
    """
    m, n = X.shape[0], Y.shape[0]
    idx = draw_landmarks(m + n, n_landmarks, None, True, rng)
    if is_dask_array(X):
        L = take_rows(concatenate_rows(X, Y), idx)
    else:
        L = np.vstack([X, Y])[idx]
    R = psd_inverse_factor(kernel.gram(L, L))
    (sum_x, gram_x), (sum_y, gram_y) = (feature_moments(kernel, Z, L, R) for Z in (X, Y))
    diff = sum_x / m - sum_y / n
    mean = (sum_x + sum_y) / (m + n)
    cov = (gram_x + gram_y) / (m + n) - np.outer(mean, mean)
    lam = linalg.eigvalsh((cov + cov.T) / 2.0)
    lam = lam[lam > 1e-12 * max(lam.max(), 1e-300)]
    return float(diff @ diff), simulate_spectral(lam, m, n, "biased", B, rng), lam


def feature_moments(kernel, Z, L: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Σ_i F_i, Fᵀ F) of the Nyström features F = K(Z, L) Rᵀ, streamed over row blocks of
    a clean sample or summed over the chunks of a dask array."""
    if is_dask_array(Z):
        return row_chunk_sums(partial(_chunk_feature_moments, kernel, L, R), Z)
    return _chunk_feature_moments(kernel, L, R, 0, Z)


def _chunk_feature_moments(kernel, L, R, start, Z):
    def reduce(sl, block, _):
        F = block @ R.T
        return column_sums(F), F.T @ F

    total, gram = np.zeros(R.shape[0]), np.zeros((R.shape[0], R.shape[0]))
    for s, g in gram_pass(kernel, Z, L, reduce):
        total += s
        gram += g
    return total, gram
