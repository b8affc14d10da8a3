"""The one pass of the Nyström embedding over a sample: K_mn 1_n (and K_mn W for a caller
that projects more in the same sweep, the Nyström KSD bootstrap), streamed by the tile
engine in memory or summed over the row chunks of a dask array."""

from __future__ import annotations

from functools import partial

import numpy as np

from ..chunked import row_chunk_sums
from ..kernels import gram_pass
from ..kernels.engine import column_sums


def mean_map_pass(kernel, X: np.ndarray, L: np.ndarray, working_memory, project_rows=None,
                  start: int = 0) -> tuple:
    """(K_mn 1_n, K_mn W or None) for the rows of a clean X, streamed by the tile engine.

    Rows of W come from ``project_rows(a, b)`` for the absolute rows [a, b) (X's rows begin
    at ``start``), called in row order; it may return a function of no arguments instead,
    which the worker that computes the tile calls (rows that can be drawn in any order,
    such as i.i.d. bootstrap signs, are then made in parallel).
    """
    def next_rows(sl):
        if project_rows is None:
            return None
        return project_rows(start + sl.start, start + sl.stop)

    def reduce(sl, block, W):
        if callable(W):
            W = W()
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


def chunk_mean_map(kernel, L, working_memory, project_rows, start, X, W=None):
    """``mean_map_pass`` of one row chunk of a dask X (and its rows of a dask W), for
    ``kmeviz.chunked.row_chunk_sums``."""
    rows = project_rows if W is None else (lambda a, b: W[a - start : b - start])
    return mean_map_pass(kernel, X, L, working_memory, rows, start)


def chunked_mean_map(kernel, X, L, working_memory, project_rows=None, W=None) -> tuple:
    """``mean_map_pass`` over the row chunks of a dask X (W: a dask array of X's rows, or
    None), each chunk reduced where it lives."""
    arrays = (X,) if W is None else (X, W.rechunk({0: X.chunks[0], 1: -1}))
    return row_chunk_sums(partial(chunk_mean_map, kernel, L, working_memory,
                                  None if W is not None else project_rows), *arrays)
