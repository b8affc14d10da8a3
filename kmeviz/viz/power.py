"""Plots of kernel learning (issue 42): the power criterion Ĵ over log σ with the
optimiser's path, Ĵ over two ARD length scales, and the power of each kernel choice."""

from __future__ import annotations

import holoviews as hv
import numpy as np

from .theme import COLOR_ACCENT, COLOR_X, COLOR_Y, size


def criterion_curve_plot(sigmas, values, path, *, median: float) -> hv.Overlay:
    """Ĵ against σ (log axis) on the training part, the optimiser's iterates on it (the
    last one ringed) and the median heuristic's σ (dotted)."""
    curve = hv.Curve((sigmas, values), "σ", "Ĵ (training part)").opts(
        color=COLOR_X, line_width=2)
    steps = hv.Scatter((path[0], path[1]), "σ", "Ĵ (training part)", label="L-BFGS path").opts(
        color=COLOR_ACCENT, size=7)
    last = hv.Scatter(([path[0][-1]], [path[1][-1]]), "σ", "Ĵ (training part)",
                      label=f"learned σ = {path[0][-1]:.3g}").opts(
        color=COLOR_Y, size=14, marker="circle", fill_alpha=0.0, line_width=3)
    rule = hv.VLine(median).opts(color="grey", line_dash="dotted", line_width=2)
    return hv.Overlay([curve, steps, last, rule]).opts(hv.opts.Overlay(
        title="Power criterion Ĵ over σ (dotted: median heuristic)", logx=True,
        show_grid=True, legend_position="bottom_left", **size(320)))


def criterion_map_plot(scales_1, scales_2, values, path) -> hv.Overlay:
    """Ĵ over the length scales of the first two coordinates (log axes; the others held at
    their learned values) with the ARD optimiser's path."""
    image = hv.Image((np.log10(scales_1), np.log10(scales_2), values),
                     ["log₁₀ ℓ₁", "log₁₀ ℓ₂"], "Ĵ").opts(cmap="viridis", colorbar=True,
                                                       tools=["hover"])
    trail = hv.Curve((np.log10(path[0]), np.log10(path[1])), "log₁₀ ℓ₁", "log₁₀ ℓ₂").opts(
        color="white", line_width=2)
    steps = hv.Scatter((np.log10(path[0]), np.log10(path[1])), "log₁₀ ℓ₁", "log₁₀ ℓ₂").opts(
        color="white", size=5)
    end = hv.Scatter(([np.log10(path[0][-1])], [np.log10(path[1][-1])]), "log₁₀ ℓ₁",
                     "log₁₀ ℓ₂").opts(color=COLOR_Y, size=12)
    return hv.Overlay([image, trail, steps, end]).opts(hv.opts.Overlay(
        title="Ĵ over two ARD length scales (white: L-BFGS path)", **size(320)))


def choice_power_plot(df) -> hv.Overlay:
    """The power of each kernel choice (rows ``test``, ``rate``, ``ci_low``, ``ci_high``)
    as bars with their 95 % intervals."""
    tests = list(df["test"])
    bars = hv.Bars((tests, df["rate"]), "kernel choice", "power").opts(
        color=COLOR_X, alpha=0.8, xrotation=30)
    errors = hv.ErrorBars((tests, df["rate"], df["rate"] - df["ci_low"],
                           df["ci_high"] - df["rate"]), "kernel choice",
                          ["power", "lo", "hi"]).opts(line_width=2)
    done = int(df["repeats"].iloc[0]) if len(df) else 0
    return hv.Overlay([bars, errors]).opts(hv.opts.Overlay(
        title=f"Power on fresh draws ({done} so far, 95 % intervals)", ylim=(0, 1.05),
        show_grid=True, **size(320)))
