"""HoloViews builders: kmeviz result objects in, labelled hv elements out.

Imported lazily by apps and notebooks (the core never imports plotting). Each
builder has a one-line caption in ``CAPTIONS`` saying what to notice.
"""

from __future__ import annotations

import holoviews as hv
import numpy as np

from .circular import TWO_PI, CircularDiscrepancy

COLOR_X, COLOR_Y, COLOR_ACCENT = "#1f77b4", "#d62728", "#2ca02c"
LABEL_X, LABEL_Y = "X ~ P", "Y ~ Q"

CAPTIONS = {
    "samples": "The two samples; the arrow is the random frequency ω: every point is "
    "projected on it and the projection is wrapped around the circle.",
    "circle": "Projections ω'x mod 2π on the unit circle (X outside, Y inside). The green "
    "diameter separates the samples best; the belt shows the objective of Eq. (8).",
    "objective": "Objective Σ aᵢ sin(y − xᵢ) over y: a single sinusoid whose amplitude is the "
    "circular discrepancy η(ω) (Claim 5).",
    "ensemble": "Averaging η² over L random frequencies converges to the exact biased MMD² "
    "(Claim 6); linear-time and B-test estimates are shown for comparison.",
}


def samples_plot(X, Y, omega=None) -> hv.Overlay:
    """2-D scatter of both samples, with the projection direction ω when given."""
    X, Y = np.asarray(X)[:, :2], np.asarray(Y)[:, :2]
    layers = [
        hv.Scatter((X[:, 0], X[:, 1]), "x₁", "x₂", label=LABEL_X).opts(
            color=COLOR_X, alpha=0.5, size=4
        ),
        hv.Scatter((Y[:, 0], Y[:, 1]), "x₁", "x₂", label=LABEL_Y).opts(
            color=COLOR_Y, alpha=0.5, size=4
        ),
    ]
    if omega is not None:
        w = np.asarray(omega, dtype=float)[:2]
        norm = np.linalg.norm(w)
        if norm > 0:
            Z = np.vstack([X, Y])
            centre = Z.mean(axis=0)
            half = 0.45 * float(np.ptp(Z, axis=0).max())
            tip = centre + half * w / norm
            layers.append(
                hv.Curve(
                    [tuple(centre - half * w / norm), tuple(tip)],
                    "x₁",
                    "x₂",
                    label="direction of ω",
                ).opts(color=COLOR_ACCENT, line_width=3)
            )
            layers.append(
                hv.Points([tuple(tip)], ["x₁", "x₂"]).opts(
                    color=COLOR_ACCENT, size=10, marker="triangle"
                )
            )
    return hv.Overlay(layers).opts(
        hv.opts.Overlay(
            title="Samples and projection direction",
            legend_position="bottom",
            legend_cols=3,
            responsive=True,
            min_height=380,
        )
    )


def circle_plot(cd: CircularDiscrepancy, *, belt_points: int = 240) -> hv.Overlay:
    """Both wrapped samples on the unit circle, the belt and the decision diameter (Fig. 2)."""
    t = np.linspace(0.0, TWO_PI, 361)
    circle = hv.Curve((np.cos(t), np.sin(t)), "cos", "sin").opts(color="gray", line_width=1)
    y = np.linspace(0.0, TWO_PI, belt_points, endpoint=False)
    belt = hv.Points(
        (1.3 * np.cos(y), 1.3 * np.sin(y), cd.objective(y)), ["cos", "sin"], "objective"
    ).opts(
        color="objective",
        cmap="viridis",
        size=7,
        marker="square",
        colorbar=True,
        colorbar_position="bottom",
        clabel="objective of Eq. (8) (the belt)",
    )
    px = hv.Points(
        (1.08 * np.cos(cd.angles_x), 1.08 * np.sin(cd.angles_x)), ["cos", "sin"], label=LABEL_X
    ).opts(color=COLOR_X, alpha=0.4, size=5)
    py = hv.Points(
        (0.92 * np.cos(cd.angles_y), 0.92 * np.sin(cd.angles_y)), ["cos", "sin"], label=LABEL_Y
    ).opts(color=COLOR_Y, alpha=0.4, size=5)
    a, b = cd.decision_diameter
    diameter = hv.Curve(
        [(1.2 * np.cos(b), 1.2 * np.sin(b)), (1.2 * np.cos(a), 1.2 * np.sin(a))],
        "cos",
        "sin",
        label="decision diameter",
    ).opts(color=COLOR_ACCENT, line_width=3)
    return (belt * circle * px * py * diameter).opts(
        hv.opts.Overlay(
            title=f"Wrapped on the circle: η(ω) = {cd.amplitude:.4f}",
            frame_width=300,
            frame_height=300,
            legend_position="right",
            xlim=(-1.45, 1.45),
            ylim=(-1.45, 1.45),
        )
    )


def objective_plot(cd: CircularDiscrepancy, *, n_grid: int = 400) -> hv.Overlay:
    """The sinusoid objective of Eq. (8) over y in [0, 2π) with its maximum marked."""
    y = np.linspace(0.0, TWO_PI, n_grid)
    curve = hv.Curve(
        (y, cd.objective(y)), "y (radians)", "objective", label="Σ aᵢ sin(y − xᵢ)"
    ).opts(color="black", line_width=2)
    ystar = cd.maximiser
    peak = hv.Points(
        [(ystar, cd.amplitude)],
        ["y (radians)", "objective"],
        label=f"max = η = {cd.amplitude:.4f}",
    ).opts(color=COLOR_ACCENT, size=12)
    return (curve * hv.VLine(ystar).opts(color=COLOR_ACCENT, line_dash="dashed") * peak).opts(
        hv.opts.Overlay(
            title="Objective over the diameter angle y",
            legend_position="bottom",
            legend_cols=2,
            responsive=True,
            min_height=380,
            show_grid=True,
        )
    )


def ensemble_plot(
    running, *, exact_biased, exact_unbiased=None, linear=None, block=None
) -> hv.Overlay:
    """Running ensemble estimate of MMD² vs L with reference values as flat lines."""
    running = np.asarray(running, dtype=float)
    L = np.arange(1, running.size + 1)
    ends = [1, running.size]
    layers = [
        hv.Curve(
            (L, running), "L (number of frequencies)", "MMD²", label="ensemble K(0)·mean η²"
        ).opts(color="black", line_width=2)
    ]
    refs = [
        ("exact biased MMD²", exact_biased, COLOR_ACCENT, "solid"),
        ("exact unbiased MMD²", exact_unbiased, COLOR_ACCENT, "dotted"),
        ("linear-time", linear, "#9467bd", "dashed"),
        ("B-test", block, "#ff7f0e", "dashdot"),
    ]
    for label, value, color, dash in refs:
        if value is not None:
            layers.append(
                hv.Curve(
                    (ends, [value, value]),
                    "L (number of frequencies)",
                    "MMD²",
                    label=f"{label} = {value:.4g}",
                ).opts(color=color, line_dash=dash, line_width=2)
            )
    return hv.Overlay(layers).opts(
        hv.opts.Overlay(
            title="Ensemble of circular discrepancies vs L",
            logx=True,
            legend_position="bottom",
            legend_cols=2,
            responsive=True,
            min_height=380,
            show_grid=True,
        )
    )
