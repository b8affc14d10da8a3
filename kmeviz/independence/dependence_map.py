"""A dependence map of a whole table: HSIC, its p-value and the normalised HSIC of
every pair of columns, from one pass that shares each column's Gram across its pairs.

Testing p columns pair by pair computes each column's Gram p − 1 times. Here the Grams
are read once in row tiles: the tile of every column's centred Gram K̃_j is one row of a
p × (s·n) matrix C, and every pair's Σ K̃_i∘K̃_j is an entry of CCᵀ (one matrix product
per tile, accumulated); the squares of C give, the same way, every pair's
Σ_{a≠b} (K̃_i,ab K̃_j,ab)², the variance of the Gamma null. So all p(p − 1)/2 pairs cost
two passes of kernel evaluations over the p Grams and two p × p products per tile:

- HSIC_b = Σ K̃_i∘K̃_j / n², equal to ``hsic_test``'s on that pair (same kernels);
- its p-value from the spectral null n·HSIC_b → Σ_ab λ_a η_b z²_ab (Gretton et al. 2009;
  λ, η the eigenvalues of K̃_i/n and K̃_j/n), whose cumulants are products of each
  column's Σ λ^r (r ≤ 4; from a pivoted Cholesky factor of its Gram), read off a
  non-central χ² with the same skewness and nearly the same kurtosis (Liu, Tang & Zhang
  2009, Sec. 2). A map needs p-values far in the tail (Holm over 4950 pairs rejects below
  10⁻⁵): on 6 tables of independent normal columns (1000 × 100) the Gamma null of
  Gretton et al. 2008 gave p < 10⁻³ to 0.18–0.38 % of the pairs and a Holm discovery in
  3 tables, this null 0.06–0.20 % and none (``docs/results/benchmarks_dependence_map.txt``;
  ``null="gamma"`` keeps the Gamma null, equal to ``hsic_test(null="gamma")`` per pair);
- the normalised HSIC R (``dependence_effect_size``) from the same sums: Σ K_i∘K_j
  uncentred follows from Σ K̃_i∘K̃_j and the row sums, and the U-centred inner products
  of Song et al. 2012 (Eq. 5) from those;
- Holm's and Benjamini–Hochberg's adjusted p-values over the pairs.

Each column's kernel: ``CategoricalKernel`` for a categorical column (the rule of
``kmeviz.kernels.categorical.is_categorical``), else a Gaussian kernel at the column's
median heuristic (at the median of its non-zero distances when more than half the pairs
tie).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy import stats

from .._validation import (
    check_choice,
    check_in_interval,
    check_positive_int,
    check_rng,
    table_and_columns,
)
from ..budget import check_budget
from ..compare import holm
from ..config import get_config
from ..kernels import GaussianKernel, median_heuristic
from ..kernels.categorical import CategoricalKernel, category_codes, is_categorical
from ..kernels.engine import run_tasks
from .effect import u_centred_inner
from .hsic import centred_gram

#: Rows the map reads at most (a seeded subsample beyond: its cost is p² n²).
MAX_ROWS = 2000
#: Bytes of one tile of every column's Gram rows (C and its squares: twice this).
TILE_BYTES = 32 * 1024**2


def benjamini_hochberg(p_values) -> np.ndarray:
    """Benjamini–Hochberg step-up adjusted p-values: rejecting where p_bh ≤ α keeps the
    expected share of false rejections at most α for independent or positively dependent
    tests.

    Parameters
    ----------
    p_values : array of float
        NaN (a test that did not run) stays NaN and is not counted.

    Returns
    -------
    numpy.ndarray
        min(1, min_{j ≥ k} p_(j) m / j) at the k-th smallest p-value.

    (Benjamini & Hochberg 1995, Sec. 3: the step-up procedure.)
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full_like(p, np.nan)
    ran = np.flatnonzero(~np.isnan(p))
    m = ran.size
    if m == 0:
        return out
    order = ran[np.argsort(p[ran], kind="stable")]
    scaled = p[order] * m / np.arange(1, m + 1)
    out[order] = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    return out


def column_kernel(values: np.ndarray, name: str):
    """(kernel, points) of one column: the delta kernel on its codes if categorical, else a
    Gaussian at its median heuristic (see the module docstring); ValueError if constant."""
    if is_categorical(values):
        codes = category_codes(values)
        if np.all(codes == codes[0]):
            raise ValueError(f"column {name!r} is constant")
        return CategoricalKernel(), codes
    x = np.asarray(values, dtype=float).reshape(-1, 1)
    if np.ptp(x) == 0:
        raise ValueError(f"column {name!r} is constant")
    sigma = median_heuristic(x[:1000])
    if not sigma > 0:
        head = x[:1000, 0]
        gaps = np.abs(head[:, None] - head[None, :])
        sigma = float(np.median(gaps[gaps > 0]))
    return GaussianKernel(sigma), x


#: A column's Σ λ³, Σ λ⁴ come from the eigenvalues of its centred Gram's pivoted
#: Cholesky factor (``hsic.centred_gram``; Σ λ and Σ λ² are exact from the pass); above
#: this rank, from the full centred Gram.
SPECTRUM_RANK = 200


def column_cumulant_sums(kernel, points: np.ndarray) -> np.ndarray:
    """(Σ λ³, Σ λ⁴) of the eigenvalues λ of K̃/n for one column."""
    values = centred_gram(kernel, points, SPECTRUM_RANK).eigenvalues() / points.shape[0]
    return np.array([np.sum(values**3), np.sum(values**4)])


def liu_sf(q, c1, c2, c3, c4) -> np.ndarray:
    """P(Σ w_k z_k² > q) from c_r = Σ w_k^r (r = 1..4): the non-central χ² with the sum's
    mean, variance and skewness, and its kurtosis where it can (Liu, Tang & Zhang 2009,
    Sec. 2)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        s1, s2 = c3 / c2**1.5, c4 / c2**2
        big = s1**2 > s2
        a = np.where(big, 1.0 / (s1 - np.sqrt(np.maximum(s1**2 - s2, 0.0))), 1.0 / s1)
        delta = np.where(big, s1 * a**3 - a**2, 0.0)
        dof = np.where(big, a**2 - 2.0 * delta, 1.0 / s1**2)
        t = (q - c1) / np.sqrt(2.0 * c2)
        return stats.ncx2.sf(t * np.sqrt(2.0) * a + dof + delta, dof, delta)


def _tile_rows(p: int, n: int) -> int:
    return max(1, min(n, TILE_BYTES // (8 * p * n)))


def dependence_map(table, columns=None, *, alpha: float = 0.05, max_rows: int = MAX_ROWS,
                   null: str = "spectral", rng=None,
                   progress: Callable | None = None) -> pd.DataFrame:
    """HSIC, its p-value and the normalised HSIC of every pair of columns of a
    table, with Holm and Benjamini–Hochberg adjustment (see the module docstring).

    Parameters
    ----------
    table : pandas.DataFrame or array (n, p)
    columns : list of str, optional
        The columns to map (default: all); an array's columns are x0, x1, ...
    alpha : float in (0, 1)
        The level of the ``reject_holm`` and ``reject_bh`` columns.
    max_rows : int
        Above it, a seeded subsample of ``max_rows`` rows is mapped (the note says so).
    null : {"spectral", "gamma"}
        The p-values' null (see the module docstring).
    rng : Generator, int or None
    progress : callable, optional
        Called as ``progress(done, total)`` after each tile of rows (two passes).

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``x, y, kernel_x, kernel_y, hsic, effect, p_value, p_holm,
        p_bh, reject_holm, reject_bh``; ``attrs``: ``n``, ``alpha``, ``note``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=300)
    >>> frame = pd.DataFrame({"a": a, "b": a**2 + 0.3 * rng.normal(size=300),
    ...                       "c": rng.normal(size=300)})
    >>> pairs = dependence_map(frame)
    >>> pairs.loc[pairs.reject_holm, ["x", "y"]].values.tolist()
    [['a', 'b']]

    (Gretton et al. 2008, Sec. 3, for each pair's Gamma p-value; Song et
    al. 2012, Eq. 5, for R.)
    """
    frame, names = table_and_columns(table, columns, "a dependence map")
    alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)
    max_rows = check_positive_int(max_rows, "max_rows", minimum=6)
    check_choice(null, "null", ("spectral", "gamma"))
    rng = check_rng(rng)
    notes = []
    data = frame[names].dropna()
    if len(data) < len(frame):
        notes.append(f"{len(frame) - len(data)} rows with a missing value were left out")
    if len(data) > max_rows:
        data = data.iloc[np.sort(rng.choice(len(data), max_rows, replace=False))]
        notes.append(f"mapped on a seeded subsample of {max_rows} of the {len(frame)} "
                     "rows (raise max_rows to read more)")
    if len(data) < 6:
        raise ValueError(f"the table has {len(data)} complete rows; the map needs 6")
    kernels, points, kept = [], [], []
    for name in names:
        try:
            kernel, values = column_kernel(data[name].to_numpy(), str(name))
        except ValueError as exc:
            notes.append(f"{exc}: left out")
            continue
        kernels.append(kernel)
        points.append(values)
        kept.append(name)
    if len(kept) < 2:
        raise ValueError("fewer than 2 columns vary: " + "; ".join(notes))
    sums = _pair_sums(kernels, points, progress)
    if null == "spectral":
        sums["cumulants"] = np.array([column_cumulant_sums(k, x)
                                      for k, x in zip(kernels, points, strict=True)])
    out = _pairs_table(kept, kernels, sums, len(data))
    out["p_holm"] = holm(out["p_value"].to_numpy())
    out["p_bh"] = benjamini_hochberg(out["p_value"].to_numpy())
    out["reject_holm"] = out["p_holm"] <= alpha
    out["reject_bh"] = out["p_bh"] <= alpha
    out.attrs.update(n=len(data), alpha=alpha, note=" ".join(notes))
    return out


def _pair_sums(kernels, points, progress) -> dict:
    """The per-column and per-pair sums of the module docstring, in two passes."""
    p, n = len(kernels), points[0].shape[0]
    prepared = [k.prepare_validated(x) for k, x in zip(kernels, points, strict=True)]
    s = _tile_rows(p, n)
    starts = range(0, n, s)
    total = 2 * len(starts)
    row_sums, diag = np.zeros((p, n)), np.zeros((p, n))
    tile = np.empty((p, s, n))
    threads = get_config()["n_threads"]
    done = 0
    for start in starts:  # pass 1: row sums and diagonals
        rows = slice(start, min(start + s, n))
        m = rows.stop - rows.start

        def sums_of(j, rows=rows, m=m):
            block = kernels[j].tile_into(kernels[j].prepare_validated(points[j][rows]),
                                         prepared[j], tile[j, :m])
            row_sums[j, rows] = block.sum(axis=1)
            diag[j, rows] = block[np.arange(m), np.arange(rows.start, rows.stop)]

        run_tasks(sums_of, range(p), threads)
        done += 1
        check_budget()
        if progress is not None:
            progress(done, total)
    means = row_sums / n
    grand = means.mean(axis=1)
    centred_cross, square_cross = np.zeros((p, p)), np.zeros((p, p))
    for start in starts:  # pass 2: Σ K̃_i∘K̃_j and Σ_{a≠b} (K̃_i K̃_j)²
        rows = slice(start, min(start + s, n))
        m = rows.stop - rows.start

        def centred_of(j, rows=rows, m=m):
            block = kernels[j].tile_into(kernels[j].prepare_validated(points[j][rows]),
                                         prepared[j], tile[j, :m])
            block -= means[j, rows, None]
            block -= means[j, None, :]
            block += grand[j]

        run_tasks(centred_of, range(p), threads)
        C = tile[:, :m].reshape(p, m * n)
        centred_cross += C @ C.T
        C2 = np.square(tile[:, :m])
        C2[:, np.arange(m), np.arange(start, rows.stop)] = 0.0  # a = b left out
        C2 = C2.reshape(p, m * n)
        square_cross += C2 @ C2.T
        done += 1
        check_budget()
        if progress is not None:
            progress(done, total)
    return {"row_sums": row_sums, "diag": diag, "centred_cross": centred_cross,
            "square_cross": square_cross}


def _pairs_table(names, kernels, sums, n) -> pd.DataFrame:
    r, d = sums["row_sums"], sums["diag"]
    G, Q = sums["centred_cross"], sums["square_cross"]
    T = r.sum(axis=1)
    # uncentred Σ K_i∘K_j, then the U-centred inner products (Song et al. 2012, Eq. 5)
    P = G + (2.0 / n) * (r @ r.T) - np.outer(T, T) / n**2
    rbar, Tbar = r - d, T - d.sum(axis=1)
    U = u_centred_inner(P - d @ d.T, Tbar[:, None], Tbar[None, :], rbar @ rbar.T, n)
    mu = (T - d.sum(axis=1)) / (n * (n - 1))
    level = d.mean(axis=1) - mu
    i, j = np.triu_indices(len(names), k=1)
    hsic = G[i, j] / n**2
    mean = level[i] * level[j] / n
    variance = 2.0 * (n - 4) * (n - 5) / (n * (n - 1) * (n - 2) * (n - 3)) * Q[i, j] / (
        n * (n - 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        if "cumulants" in sums:  # c_r = (Σ λ^r)(Σ η^r); Σ λ, Σ λ² exact from the sums
            first = (d.sum(axis=1) - T / n) / n
            second = np.diag(G) / n**2
            third, fourth = sums["cumulants"].T
            p_value = liu_sf(n * hsic, first[i] * first[j], second[i] * second[j],
                             third[i] * third[j], fourth[i] * fourth[j])
        else:
            p_value = stats.gamma.sf(hsic, mean**2 / variance, scale=variance / mean)
        effect = U[i, j] / np.sqrt(np.maximum(U[i, i], 0) * np.maximum(U[j, j], 0))
    return pd.DataFrame({
        "x": [names[a] for a in i], "y": [names[b] for b in j],
        "kernel_x": [repr(kernels[a]) for a in i], "kernel_y": [repr(kernels[b]) for b in j],
        "hsic": hsic, "effect": np.clip(effect, 0.0, 1.0), "p_value": p_value})
