"""Kernel Stein discrepancies (Kalinke, Szabó & Sriperumbudur, *Nyström Kernel Stein
Discrepancy*): the Stein kernel, KSD², Nyström KSD² and their statistics.

The Stein kernel h_p itself (Eq. 3) is ``kmeviz.kernels.SteinKernel``, a kernel of the
protocol; Nyström KSD is ``NystromKME`` applied to it. The tests are in ``kmeviz.gof.ksd_tests``.
"""

from __future__ import annotations

import functools

import numpy as np

from .._validation import check_choice
from ..chunked import check_any_samples, is_dask_array, reject_dask
from ..config import working_memory_or_default
from ..embeddings.kme import NystromKME
from ..embeddings.nystrom_pass import chunked_mean_map, mean_map_pass
from ..kernels import SteinKernel, prepared_rows, row_block_results


def ksd2(X, target, kernel, *, estimator: str = "biased",
         working_memory: int | None = None) -> float:
    """KSD² by the V-statistic (1/n²) Σ_ij h_p(x_i, x_j) (Eq. 5, ``estimator="biased"``)
    or the U-statistic that drops i = j (Liu et al. 2016, ``"unbiased"``), the names of
    ``mmd2``. O(n²) time, O(working_memory) extra memory.

    Parameters
    ----------
    X : array (n, d)
    target : object with ``score(X)``
    kernel : RadialKernel
        The base kernel of h_p.
    estimator : {"biased", "unbiased"}
    working_memory : int, optional

    Returns
    -------
    float
        KSD², V- or U-statistic.

    Examples
    --------
    >>> import numpy as np
    >>> from kmeviz import GaussianKernel, NormalTarget
    >>> X = np.random.default_rng(0).normal(size=(500, 2))
    >>> u = ksd2(X, NormalTarget(np.zeros(2)), GaussianKernel(1.0), estimator="unbiased")
    >>> bool(abs(u) < 0.01)
    True
    """
    check_choice(estimator, "estimator", ("biased", "unbiased"))
    reject_dask(X, "X", "ksd2", "ksd2_nystrom or ksd_test(estimator='nystrom')")
    stein = SteinKernel(kernel, target)
    a = stein.prepare(X)
    n = a[0].shape[0]
    if estimator == "unbiased" and n < 2:
        raise ValueError("the U-statistic needs at least 2 samples")
    total = sum(row_block_results(stein, a, a,
                                  lambda sl, block, _: float(block.sum(dtype=np.float64)),
                                  working_memory=working_memory))
    if estimator == "biased":
        return total / n**2
    return (total - float(stein.diag(a.X).sum())) / (n * (n - 1))


def nystrom_stein(X, target, kernel, *, n_landmarks=None, landmarks=None, rng=None,
                  project=None, working_memory: int | None = None) -> NystromKME:
    """The Nyström KSD pieces of Lemma 1, fitted: a ``NystromKME`` of the Stein kernel h_p
    on m landmarks drawn with replacement (default m = 4√n) or given as indices into X.

    Its ``squared_norm()`` is Nyström KSD² (Eq. 8) and ``weights_`` the α of the projected
    witness (Eq. 6). With ``project=W`` the same pass over X also computes K_mn W, the
    Nyström bootstrap's projection (Eq. 11), as the attribute ``projected_``.

    Parameters
    ----------
    X : array (n, d) or dask array
    target : object with ``score(X)``
    kernel : RadialKernel, the base kernel of h_p
    n_landmarks, landmarks : int, array of int, optional
    rng : Generator, int or None
    project : optional
        W as an (n, D) array, a stream whose ``take(rows)`` returns the next rows (e.g.
        ``WildSigns``), or, for a dask X, a dask array or a stream with
        ``rows(start, stop)``: W is never held whole.
    working_memory : int, bytes per Gram block

    Returns
    -------
    NystromKME
        Fitted, with ``projected_`` (K_mn W) when ``project`` was given.
    """
    X = check_any_samples(X, "X")
    m = default_stein_landmarks(X.shape[0]) if n_landmarks is None else n_landmarks
    embedding = NystromKME(SteinKernel(kernel, target), None if landmarks is not None else m,
                           landmarks=landmarks, working_memory=working_memory, rng=rng)
    if project is None:
        return embedding.fit(X)
    chunked = is_dask_array(X)
    rows = projection_rows(project, X.shape[0], chunked)
    embedding.select_landmarks(X)
    memory = working_memory_or_default(working_memory)
    width = project.shape[1] if hasattr(project, "shape") else getattr(
        project, "n_resamples", 0)
    if width:  # a block's rows of W (rows × D) fit the working memory with its Gram block
        m = embedding.landmarks_.shape[0]  # (D = 5000 beside m = 2000: 2.5 times it)
        memory = max(8 * (m + width), memory * m // (m + width))
    if chunked:
        beta, projected = chunked_mean_map(embedding.kernel, X, embedding.landmarks_, memory,
                                           rows, W=project if is_dask_array(project) else None)
    else:
        beta, projected = mean_map_pass(embedding.kernel, X, embedding.landmarks_, memory,
                                        rows)
    embedding.set_mean_map(beta, X.shape[0])
    embedding.projected_ = projected
    return embedding


def projection_rows(project, n: int, chunked: bool):
    """``project`` (see ``nystrom_stein``) as a function (start, stop) -> rows of W."""
    if isinstance(project, np.ndarray) or is_dask_array(project):
        if project.ndim != 2 or project.shape[0] != n:
            raise ValueError(f"project must have shape (n, D) with n={n} rows, got "
                             f"{project.shape}")
        if chunked and isinstance(project, np.ndarray):
            raise TypeError("with a dask X, project must be a dask array or a stream with "
                            "rows(start, stop), not an in-memory (n, D) array")
        if is_dask_array(project) and not chunked:
            raise TypeError("project is a dask array but X is not; pass both as dask arrays")
        return lambda start, stop: project[start:stop]
    if chunked:
        if not callable(getattr(project, "rows", None)):
            raise TypeError("with a dask X, project must be a dask array or a stream with "
                            f"rows(start, stop), got {type(project).__name__}")
        return project.rows
    if not callable(getattr(project, "take", None)):
        raise TypeError("project must be an (n, D) array or a stream with take(rows), "
                        f"got {type(project).__name__}")
    if getattr(project, "independent", False) and callable(getattr(project, "rows", None)):
        return lambda start, stop: functools.partial(project.rows, start, stop)  # in workers
    return lambda start, stop: project.take(stop - start)  # called in row order


def default_stein_landmarks(n: int) -> int:
    """m = ceil(4√n), the paper's choice in every experiment of Sec. 5."""
    return max(1, int(np.ceil(4.0 * np.sqrt(n))))


def ksd2_nystrom(X, target, kernel, *, n_landmarks=None, landmarks=None, rng=None) -> float:
    """Nyström KSD² = β_pᵀ K_mm⁻ β_p (Lemma 1, Eq. 8), landmarks drawn with replacement
    (default m = 4√n) or given as indices into X. O(nm + m³) time, O(m² + tile) memory.
    X may be a dask array (``kmeviz.chunked``).

    Parameters
    ----------
    X : array (n, d) or dask array
    target : object with ``score(X)``
    kernel : RadialKernel
    n_landmarks : int, optional
    landmarks : array of int, optional
    rng : Generator, int or None

    Returns
    -------
    float
    """
    return nystrom_stein(X, target, kernel, n_landmarks=n_landmarks, landmarks=landmarks,
                         rng=rng).squared_norm()


#: the bytes of a block of Stein-kernel values (and its per-dimension temporaries) that
#: ``stein_witness`` evaluates at once
WITNESS_BLOCK_BYTES = 16 * 1024**2


def stein_witness(X, target, kernel, grid, *, weights=None) -> np.ndarray:
    """x ↦ (1/n) Σ_i h_p(x_i, x), the witness of the full KSD, at each row of ``grid``; with
    ``weights`` α, x ↦ Σ_i α_i h_p(x_i, x) (e.g. the Nyström weights of a test result).

    Kalinke et al. Eq. 6 (the full witness; the Nyström one projects it).

    Parameters
    ----------
    X : array (n, d)
    target : object with ``score(X)``
    kernel : RadialKernel
    grid : array (g, d)
    weights : array (n,), optional

    Returns
    -------
    array (g,)
    """
    stein = SteinKernel(kernel, target)
    points, sample = stein.prepare(grid), stein.prepare(X)
    n = X.shape[0]
    alpha = np.full(n, 1.0 / n) if weights is None else np.asarray(weights, float)
    # the grid in row blocks: one Stein tile of 4096 × 5000 points in 2-D held 1.1 GB of
    # temporaries; a block of WITNESS_BLOCK_BYTES // (8 n) rows holds a few tens of MB
    rows = max(1, WITNESS_BLOCK_BYTES // (8 * max(n, 1) * (grid.shape[1] + 2)))
    out = np.empty(grid.shape[0])
    for start in range(0, grid.shape[0], rows):
        block = slice(start, start + rows)
        out[block] = stein.tile(prepared_rows(points, block), sample) @ alpha
    return out
