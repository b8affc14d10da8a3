"""The conditional question and the dependence map of the "Your data" explorer: three
column groups X, Y, Z of the same rows and their residuals given Z; every pair of the
chosen columns as a map (no widgets here)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import kmeviz as K
from kmeviz.conditional_independence.api import DEFAULT_EPSILON, check_conditioning
from kmeviz.conditional_independence.kci import default_kci_kernels
from kmeviz.loading.paired import conditional_from_frame

#: The question values of ``_own_data.QUESTIONS`` for these two.
CONDITIONAL = "conditional"
MAP = "map"
GRAPH = "graph"
#: the residual views read at most this many rows (the regression is cubic in them)
RESIDUAL_POINTS = 1500


class Conditioning(NamedTuple):
    """The conditioning sample Z, in the slot of a question's kernel (``prepared``): the
    conditional tests choose their kernels themselves, as ``kmeviz compare
    --conditional`` does."""

    Z: np.ndarray


def conditional_samples(frame, x_columns, y_columns, z_columns, *, standardize: bool,
                        sources: tuple):
    """(X, Y, Z, report) of three column groups of every row, as ``kmeviz compare
    --conditional --x .. --y .. --z ..`` reads them; X's columns leave out Y's and Z's."""
    if not y_columns:
        raise ValueError("choose at least one column for Y (Y: columns)")
    if not z_columns:
        raise ValueError("choose at least one conditioning column (Z: columns); without "
                         "Z, ask whether X's and Y's columns are independent")
    taken = {*y_columns, *z_columns}
    x_columns = [c for c in x_columns if c not in taken]
    if not x_columns:
        raise ValueError("choose at least one column for X that is not one of Y's or Z's")
    return conditional_from_frame(frame, x=x_columns, y=list(y_columns),
                                  z=[c for c in z_columns if c not in y_columns],
                                  standardize=standardize, sources=sources)


def residuals_given_z(X, Y, Z, epsilon: float = DEFAULT_EPSILON):
    """(residual of X's first column, of Y's) after the kernel ridge regression on Z that
    KCI makes (``kmeviz.ConditionalMeanEmbedding`` with KCI's kernel on Z and nλ = ε), on
    the z-scored columns."""
    X, Y, Z = check_conditioning(X, Y, Z)
    n = X.shape[0]
    cme = K.ConditionalMeanEmbedding(default_kci_kernels(n, Z.shape[1]).z,
                                     K.GaussianKernel(1.0), reg=epsilon / n)
    cme.fit(Z, X)
    return (X[:, 0] - cme.expectation(X[:, 0], Z), Y[:, 0] - cme.expectation(Y[:, 0], Z),
            cme)


def residual_sample(X, Y, Z, seed: int):
    """``residuals_given_z`` of at most ``RESIDUAL_POINTS`` rows (seeded), with Pearson's
    r of the two residuals."""
    if X.shape[0] > RESIDUAL_POINTS:
        keep = np.random.default_rng(seed).choice(X.shape[0], RESIDUAL_POINTS,
                                                  replace=False)
        X, Y, Z = X[keep], Y[keep], Z[keep]
    rx, ry, _ = residuals_given_z(X, Y, Z)
    return rx, ry, float(np.corrcoef(rx, ry)[0, 1])


def map_columns(chosen, numeric) -> list:
    """The columns of the map: those chosen, else every numeric one."""
    return list(chosen or numeric)


def table_map(frame, columns, *, alpha: float, seed: int, progress=None):
    """``kmeviz.dependence_map`` of ``columns`` of the table, as ``kmeviz compare FILE
    --dependence-map --columns .. --alpha α --rng seed`` runs it."""
    if len(columns) < 2:
        raise ValueError("choose at least two columns for the map (Columns)")
    return K.dependence_map(frame, columns, alpha=alpha, rng=seed, progress=progress)


def map_words(pairs) -> str:
    """What the map found, in a sentence (the summary under the question)."""
    alpha = pairs.attrs["alpha"]
    columns = len(set(pairs["x"]) | set(pairs["y"]))
    return (f"{columns} columns, {len(pairs)} pairs, {pairs.attrs['n']} rows: "
            f"{int(pairs.reject_bh.sum())} pairs depend at false discovery rate {alpha:g} "
            f"(Benjamini–Hochberg), {int(pairs.reject_holm.sum())} at family-wise level "
            f"{alpha:g} (Holm). Colour: the normalised HSIC (0 independent, 1 the same "
            "information); click a cell to test that pair. "
            f"{pairs.attrs.get('note', '')}").strip()


def table_graph(frame, columns, *, alpha: float, seed: int):
    """``kmeviz.pc`` of ``columns`` on the rows complete in them, as ``kmeviz discover FILE
    --columns .. --alpha α --rng seed`` runs it."""
    if len(columns) < 2:
        raise ValueError("choose at least two columns for the graph (Columns)")
    return K.pc(frame[list(columns)].dropna(), alpha=alpha, rng=seed)


def graph_words(result) -> str:
    """What PC found, in a sentence."""
    edges = result.edges()
    found = "; ".join(f"{e.source} {'→' if e.kind == '-->' else '—'} {e.target}"
                      for e in edges.itertuples()) or "no edge"
    return (f"PC with KCI at α = {result.alpha:g} on {len(result.names)} columns: "
            f"{found}. {result.counts.get('tests', len(result.tests))} CI tests, "
            f"{result.counts.get('factorisations', 0)} factorisations of a conditioning "
            "set's Gram; → a direction every graph of the class shares, — one the data "
            "cannot decide. Click a test to run every conditional test on it.")


def whole_table_work(explorer):
    """The map (or the PC graph) of the explorer's chosen columns as a job's work."""
    frame, alpha, seed = explorer.frame(), explorer.alpha, explorer.seed
    columns = map_columns(explorer.columns, explorer._numeric)
    whole = table_graph if explorer.question == GRAPH else table_map
    return lambda emit: emit(([], whole(frame, columns, alpha=alpha, seed=seed)))
