"""Plots of paired samples (X, Y): the joint sample, the witness of dependence on it,
and the power of the independence tests against a parameter."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pandas as pd

from .theme import COLOR_ACCENT, COLOR_X, size


def first_columns(X, Y, max_points: int, rng=0) -> tuple[np.ndarray, np.ndarray]:
    """The first columns of the pairs, at most ``max_points`` of them (a seeded
    subsample, so a large sample stays light in the browser)."""
    x, y = np.asarray(X)[:, 0], np.asarray(Y)[:, 0]
    if x.size > max_points:
        keep = np.random.default_rng(rng).choice(x.size, max_points, replace=False)
        x, y = x[keep], y[keep]
    return x, y


def joint_sample_plot(X, Y, *, title: str, max_points: int = 2000, rng=0) -> hv.Scatter:
    """The pairs (x_i, y_i) (first columns), at most ``max_points`` drawn."""
    x, y = first_columns(X, Y, max_points, rng)
    return hv.Scatter((x, y), "x", "y").opts(color=COLOR_X, alpha=0.6, size=4, title=title,
                                              show_grid=True, **size(380))


def dependence_witness_plot(grid_x, grid_y, W, X, Y, *, hsic_b: float | None = None,
                            max_points: int = 600, rng=0) -> hv.Overlay:
    """The witness μ̂_XY − μ̂_X ⊗ μ̂_Y on the grid (``W[a, b]`` at grid_x[a], grid_y[b]),
    diverging colours centred on 0, with a light subsample of the pairs on top."""
    lim = max(float(np.abs(W).max()), 1e-300)
    image = hv.Image((grid_x, grid_y, W.T), ["x", "y"], "witness").opts(
        cmap="RdBu_r", clim=(-lim, lim), colorbar=True, alpha=0.9)
    x, y = first_columns(X, Y, max_points, rng)
    points = hv.Scatter((x, y), "x", "y").opts(color="black", size=3, alpha=0.45)
    return (image * points).opts(hv.opts.Overlay(
        title="Witness μ̂_XY − μ̂_X ⊗ μ̂_Y" + ("" if hsic_b is None else
                                              f" (HSIC_b = ||w||² = {hsic_b:.4g})"),
        show_legend=False, **size(380)))


def independence_power_plot(df, parameter: str) -> hv.Overlay:
    """Rejection rate of each test against ``parameter`` (columns ``value``, ``test``,
    ``rate``, ``ci_low``, ``ci_high``), with the 95 % intervals."""
    layers = []
    for test, rows in df.groupby("test", sort=False):
        rows = rows.sort_values("value")
        layers.append(hv.Curve((rows["value"], rows["rate"]), parameter, "rejection rate",
                               label=str(test)).opts(line_width=2))
        layers.append(hv.Spread((rows["value"], rows["rate"], rows["rate"] - rows["ci_low"],
                                 rows["ci_high"] - rows["rate"]), parameter,
                                ["rejection rate", "lo", "hi"]).opts(alpha=0.15))
    line = hv.HLine(0.05).opts(color=COLOR_ACCENT, line_dash="dotted")
    return hv.Overlay([*layers, line]).opts(hv.opts.Overlay(
        title=f"Power against {parameter}", legend_position="bottom_right", ylim=(0, 1.05),
        show_grid=True, **size(380)))


def dependence_heatmap(pairs, *, value: str = "effect", adjusted: str = "p_bh") -> hv.HeatMap:
    """The dependence map of a table (``kmeviz.dependence_map``) as a symmetric grid: each
    cell coloured by the pair's ``value`` (the normalised HSIC by default, in [0, 1]), the
    pairs whose ``adjusted`` p-value is at most the map's α marked by a dot, and the hover
    showing the pair's HSIC, p-value and adjusted p-values."""
    alpha = pairs.attrs.get("alpha", 0.05)
    names = list(dict.fromkeys([*pairs["x"], *pairs["y"]]))
    both = pd.concat([pairs, pairs.rename(columns={"x": "y", "y": "x"})], ignore_index=True)
    both["x"], both["y"] = both["x"].astype(str), both["y"].astype(str)
    vdims = [value, "hsic", "p_value", "p_holm", "p_bh"]
    labels = [str(name) for name in names]
    heat = hv.HeatMap(both[["x", "y", *vdims]], ["x", "y"], vdims).opts(
        cmap="viridis", clim=(0.0, 1.0) if value == "effect" else (None, None),
        colorbar=True, tools=["hover", "tap"], xrotation=60, invert_yaxis=True,
        xlabel="", ylabel="", title=f"Dependence map: {value} (dot: {adjusted} ≤ {alpha:g})",
        **size(520))
    found = both[both[adjusted] <= alpha]
    dots = hv.Points(found[["x", "y"]], ["x", "y"]).opts(color="white", size=5,
                                                         line_color="black")
    return (heat * dots).redim.values(x=labels, y=labels)
