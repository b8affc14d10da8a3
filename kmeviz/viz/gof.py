"""Stein plots: the target density with its score field, and the full and Nyström Stein
witnesses."""

from __future__ import annotations

import holoviews as hv
import numpy as np

from .theme import COLOR_ACCENT, COLOR_X, COLOR_Y, size


def stein_target_plot(grid, density, score, X, *, title: str) -> hv.Element:
    """1-D: density, sample histogram and score; 2-D: density image, score arrows, sample.

    ``grid`` is a 1-D array (1-D) or the pair (xs, ys) of axes (2-D); ``density`` and
    ``score`` are evaluated on it (score shape (..., d))."""
    if X.shape[1] == 1:
        edges = np.linspace(grid[0], grid[-1], 41)
        counts, _ = np.histogram(X[:, 0], bins=edges, density=True)
        # "p(x)", not "density": Panel links axes of equal names across panes
        dens = (hv.Histogram((edges, counts), kdims=["x"], vdims=["p(x)"],
                             label="sample from Q").opts(
            color="#c6dbef", line_color="white")
            * hv.Curve((grid, density), "x", "p(x)", label="target p").opts(
                color=COLOR_X, line_width=3)).opts(
            hv.opts.Overlay(title=title, **size(260), show_grid=True,
                            legend_position="top_right"))
        sc = hv.Curve((grid, score[:, 0]), "x", "score d/dx log p(x)").opts(
            color=COLOR_ACCENT, line_width=2, **size(180), show_grid=True,
            title="Score ∇ log p")
        return (dens + sc).cols(1)
    xs, ys = grid
    step = max(1, len(xs) // 16)
    gx, gy = np.meshgrid(xs[::step], ys[::step])
    s = score[::step, ::step]
    mag = np.hypot(s[..., 0], s[..., 1])
    arrows = hv.VectorField((gx.ravel(), gy.ravel(), np.arctan2(s[..., 1], s[..., 0]).ravel(),
                             np.sqrt(mag).ravel()), ["x₁", "x₂"], ["angle", "magnitude"],
                            label="score ∇ log p").opts(
        magnitude="magnitude", color="#264653", alpha=0.7, line_width=1.5, pivot="tail")
    image = hv.Image((xs, ys, density), ["x₁", "x₂"], "p(x)").opts(cmap="Blues",
                                                                   colorbar=True)
    points = hv.Scatter((X[:, 0], X[:, 1]), "x₁", "x₂", label="sample from Q").opts(
        color=COLOR_Y, size=3, alpha=0.6)
    return (image * arrows * points).opts(hv.opts.Overlay(
        title=title, **size(420), legend_position="top_right"))


def stein_witness_plot(grid, full, nystrom, landmarks) -> hv.Element:
    """Full and Nyström Stein witnesses (curves in 1-D, two heatmaps in 2-D)."""
    if landmarks.shape[1] == 1:
        rug = hv.Spikes(landmarks[:, 0], "x", label="Nyström landmarks").opts(
            color="black", spike_length=0.08 * max(np.ptp(full), 1e-12), alpha=0.5)
        return (hv.Curve((grid, full), "x", "witness", label="full").opts(
            color=COLOR_X, line_width=3)
            * hv.Curve((grid, nystrom), "x", "witness", label="Nyström").opts(
                color=COLOR_Y, line_width=2, line_dash="dashed")
            * hv.HLine(0).opts(color="gray", line_width=1) * rug).opts(hv.opts.Overlay(
                title="Stein witness x ↦ E h_p(X, x)", **size(300),
                show_grid=True, legend_position="top_right"))
    xs, ys = grid
    lim = max(np.abs(full).max(), np.abs(nystrom).max(), 1e-12)
    opts = {"cmap": "RdBu_r", "clim": (-lim, lim), "colorbar": True, **size(340)}
    marks = hv.Scatter((landmarks[:, 0], landmarks[:, 1]), "x₁", "x₂").opts(
        color="black", size=3, marker="x")
    return (hv.Image((xs, ys, full), ["x₁", "x₂"], "witness").opts(
        title="Stein witness, full", **opts)
        + (hv.Image((xs, ys, nystrom), ["x₁", "x₂"], "witness").opts(
            title="Stein witness, Nyström (× = landmarks)", **opts) * marks))
