"""Plots of a user's own two samples: the samples on a plane, the witness function on it,
and the comparison table of every test."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pandas as pd

from .._validation import check_positive, check_positive_int
from ..results import p_value_text
from ..twosample import mmd_witness
from .theme import COLOR_X, COLOR_Y, size


def plane_scatter(P, Q, axes: tuple, labels: tuple, *, max_points: int = 3000,
                  rng=0) -> hv.Overlay:
    """The two samples' coordinates on a plane, at most ``max_points`` of each drawn (a
    seeded subsample, so a large upload stays light in the browser)."""
    generator = np.random.default_rng(rng)
    layers = []
    for S, label, color in ((P, labels[0], COLOR_X), (Q, labels[1], COLOR_Y)):
        if S.shape[0] > max_points:
            S = S[generator.choice(S.shape[0], max_points, replace=False)]
        layers.append(hv.Scatter((S[:, 0], S[:, 1]), axes[0], axes[1], label=str(label)).opts(
            color=color, alpha=0.55, size=4))
    return hv.Overlay(layers).opts(hv.opts.Overlay(
        title=f"Samples: {labels[0]} (X) and {labels[1]} (Y)", legend_position="bottom",
        legend_cols=2, **size(360)))


def witness_map(xs, ys, values, P, Q, axes: tuple, *, max_points: int = 800,
                rng=0) -> hv.Overlay:
    """The witness on a grid (diverging colours centred on 0, its zero contour) with a
    light subsample of the two samples on top."""
    lim = max(float(np.abs(values).max()), 1e-300)
    image = hv.Image((xs, ys, values), list(axes), "witness").opts(
        cmap="RdBu_r", clim=(-lim, lim), colorbar=True, alpha=0.9)
    generator = np.random.default_rng(rng)
    points = []
    for S, color, marker in ((P, COLOR_X, "circle"), (Q, COLOR_Y, "triangle")):
        if S.shape[0] > max_points:
            S = S[generator.choice(S.shape[0], max_points, replace=False)]
        points.append(hv.Scatter((S[:, 0], S[:, 1]), axes[0], axes[1]).opts(
            color=color, size=3, alpha=0.5, marker=marker, line_color="white"))
    return (image * hv.Overlay(points)).opts(hv.opts.Overlay(
        title="Witness function μ̂_X − μ̂_Y", show_legend=False, **size(360)))


def witness_window(X, Y, kernel, *, centre=(0.0, 0.0), half_width: float = 4.0,
                   resolution: int = 81, axes: tuple = ("x₁", "x₂"),
                   title: str | None = None) -> hv.Overlay:
    """The witness μ̂_X − μ̂_Y of two 2-D samples on a square window, with the points that
    fall in it: ``witness_map`` of ``mmd_witness`` on a ``resolution`` × ``resolution``
    grid (Gretton et al. 2012, Sec. 2.3).

    Parameters
    ----------
    X, Y : array (m, 2), (n, 2)
    kernel : Kernel
    centre : pair of float
        The window's centre.
    half_width : float
        Half the window's side.
    resolution : int
        Grid points per side.
    axes : pair of str
        Axis labels.
    title : str, optional

    Returns
    -------
    hv.Overlay
        Its ``hv.Image`` holds the witness at the grid points (its key dimensions).
    """
    half_width = check_positive(half_width, "half_width")
    resolution = check_positive_int(resolution, "resolution", minimum=2)
    cx, cy = (float(c) for c in centre)
    xs = np.linspace(cx - half_width, cx + half_width, resolution)
    ys = np.linspace(cy - half_width, cy + half_width, resolution)
    grid = np.array([(x, y) for y in ys for x in xs])
    values = mmd_witness(X, Y, kernel, grid).reshape(len(ys), len(xs))
    inside = [S[(np.abs(S[:, 0] - cx) < half_width) & (np.abs(S[:, 1] - cy) < half_width)]
              for S in (np.asarray(X), np.asarray(Y))]
    plot = witness_map(xs, ys, values, *inside, axes)
    return plot if title is None else plot.opts(title=title)


#: The displayed table's columns and their titles.
TABLE_TITLES = {"test": "test", "p_value": "p-value", "p_holm": "Holm p", "decision": "decision",
                "statistic": "statistic", "runtime_s": "seconds", "note": "note"}


def comparison_table_text(table: pd.DataFrame) -> pd.DataFrame:
    """The comparison table as displayed: rounded numbers, p-values never "0" (a
    simulated p-value of 0 reads "< 1/B"), the Holm-adjusted p-values once every test has
    finished, decisions in words."""
    B = table.attrs.get("n_resamples") or 0
    # without the attrs (pandas deep-copies them, with every test's null replicates, at
    # each step: 0.27 s a clear of the dashboard's table, on its event loop)
    bare = pd.DataFrame(table.to_numpy(dtype=object), columns=table.columns,
                        index=table.index)
    shown = bare.reindex(columns=["test", "statistic", "p_value", "p_holm", "reject",
                                  "runtime_s", "note"])
    shown["decision"] = ["" if r is None or (isinstance(r, float) and np.isnan(r))
                         else ("reject" if r else "keep") for r in shown.pop("reject")]
    shown["statistic"] = shown["statistic"].map(lambda v: f"{v:.4g}" if v == v else "")
    for column in ("p_value", "p_holm"):
        shown[column] = shown[column].map(lambda v: p_value_text(float(v), B))
    shown["runtime_s"] = shown["runtime_s"].map(lambda v: f"{v:.3g}" if v == v else "")
    shown["note"] = shown["note"].fillna("")
    return shown[list(TABLE_TITLES)]
