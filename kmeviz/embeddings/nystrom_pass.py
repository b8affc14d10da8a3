"""The one pass of the Nyström embedding over a sample: K_mn 1_n and K_mn W, streamed by the
tile engine in memory or summed over the row chunks of a dask array (``NystromKME.fit``)."""

from __future__ import annotations

import numpy as np

from ..chunked import is_dask_array
from ..kernels import gram_pass
from ..kernels.engine import column_sums


def _row_source(project, n: int, chunked: bool):
    """``project`` as a function (start, stop) -> rows of W, or None (see ``NystromKME.fit``)."""
    if project is None:
        return None
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
    return lambda start, stop: project.take(stop - start)  # called in row order


def mean_map_pass(kernel, X: np.ndarray, L: np.ndarray, project_rows, working_memory,
                  start: int = 0) -> tuple:
    """(K_mn 1_n, K_mn W or None) for the rows of a clean X, streamed by the tile engine.

    Rows of W come from ``project_rows(a, b)`` for the absolute rows [a, b) (X's rows begin
    at ``start``), called in row order.
    """
    def next_rows(sl):
        if project_rows is None:
            return None
        return project_rows(start + sl.start, start + sl.stop)

    def reduce(sl, block, W):
        return column_sums(block), None if W is None else block.T @ W

    beta, projected = np.zeros(L.shape[0]), None
    for col_sums, KW in gram_pass(kernel, X, L, reduce, inputs=next_rows,
                                  working_memory=working_memory):
        beta += col_sums
        if KW is not None:
            if projected is None:
                projected = KW.astype(np.float64)
            else:
                projected += KW
    return beta, projected


def _chunk_mean_map(kernel, L, project_rows, working_memory, start, X, W=None):
    """``mean_map_pass`` of one row chunk of a dask X (and its rows of a dask W)."""
    rows = project_rows if W is None else (lambda a, b: W[a - start : b - start])
    return mean_map_pass(kernel, X, L, rows, working_memory, start)
