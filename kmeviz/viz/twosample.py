"""Two-sample plots: the samples with ω, the circle and sinusoid of FastMMD Sec. 3, the
ensemble vs L, null histograms, rejection rates and runtimes."""

from __future__ import annotations

import holoviews as hv
import numpy as np

from ..twosample.circular import TWO_PI, CircularDiscrepancy
from .theme import COLOR_ACCENT, COLOR_X, COLOR_Y, LABEL_X, LABEL_Y, size


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
            **size(380),
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
            **size(380),
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
            **size(380),
            show_grid=True,
        )
    )



def null_layers(result, *, overlays: dict | None = None, bins: int = 40,
                statistic: str = "MMD²") -> list:
    """The layers of ``null_histogram`` that do not depend on α: the null histogram (or
    analytic density), the ``overlays`` curves and the observed statistic."""
    dist = result.null_distribution()
    aggregated = hasattr(dist, "replicates")
    xlabel = (f"{result.estimator} statistic max w/p (level-corrected score)" if aggregated
              else f"{result.estimator} {statistic} statistic")
    layers = []
    if result.null_samples is not None:
        edges = np.histogram_bin_edges(np.append(result.null_samples, result.statistic), bins)
        counts, edges = np.histogram(result.null_samples, bins=edges, density=True)
        layers.append(hv.Histogram((edges, counts), kdims=[xlabel], vdims=["density"],
                                   label=f"{result.null} null"
                                   ).opts(color="#9ecae1", line_color="white"))
    if aggregated:  # an aggregated test: its B2 simulated statistics
        replicates = dist.replicates()
        edges = np.histogram_bin_edges(np.append(replicates, result.statistic), bins)
        counts, edges = np.histogram(replicates, bins=edges, density=True)
        layers.append(hv.Histogram((edges, counts), kdims=[xlabel], vdims=["density"],
                                   label=f"{result.null} null of max w/p"
                                   ).opts(color="#9ecae1", line_color="white"))
    elif dist is not None:
        lo = min(dist.ppf(1e-4), result.statistic)
        hi = max(dist.isf(1e-4), result.statistic)
        x = np.linspace(lo, hi, 300)
        layers.append(hv.Area((x, dist.pdf(x)), xlabel, "density",
                              label=f"{result.null} null").opts(color="#9ecae1", alpha=0.7))
    for (label, (x, y)), color in zip((overlays or {}).items(), ("#ff7f0e", "#9467bd", "#8c564b"),
                                      strict=False):
        layers.append(hv.Curve((x, y), xlabel, "density", label=label).opts(
            color=color, line_width=2))
    layers.append(hv.VLine(result.statistic, label="statistic").opts(color=COLOR_Y, line_width=3))
    return layers


def null_histogram(result, *, overlays: dict | None = None, bins: int = 40,
                   statistic: str = "MMD²", title_prefix: str = "",
                   layers: list | None = None) -> hv.Overlay:
    """Null histogram (or analytic density) with the statistic, threshold and p-value.

    ``overlays`` maps a label to ``(x, density)`` curves drawn on top, e.g. the Gamma
    and spectral approximations of the same null. Layer labels do not depend on B or α
    (those are in the title), so a dashboard can redraw the figure in place as a
    DynamicMap frame; it may pass the α-free ``layers`` (``null_layers``) it keeps.
    """
    if layers is None:
        layers = null_layers(result, overlays=overlays, bins=bins, statistic=statistic)
    verdict = "reject H0" if result.reject else "keep H0"
    counts = result.resample_counts()
    replicates = ("" if not counts["n_resamples"] else
                  f" (B = {counts['n_resamples']})" if len(counts) == 1 else
                  f" (B1 = {counts['n_resamples']}, B2 = {counts['n_resamples_correction']})")
    p_value = (f"p = {result.p_value:.4f}" if result.p_value >= 1e-4 else
               f"p = {result.p_value:.3g}" if result.p_value > 0 else
               f"p {result.p_value_text()}")
    title = f"{title_prefix}{p_value} at α = {result.alpha:g}: {verdict}{replicates}"
    return hv.Overlay([*layers, threshold_line(result)]).opts(
        hv.opts.Overlay(title=title, legend_position="top_right", **size(380), show_grid=True,
                        # short tick labels ("0.002", not "2.000e-3", which overlapped)
                        xformatter="%.2g",
                        padding=(0.05, 0.05)))  # the statistic never sits on the frame


def threshold_line(result) -> hv.VLine:
    """The rejection threshold at the result's α (dashed; nothing drawn when infinite)."""
    value = result.threshold if np.isfinite(result.threshold) else np.nan
    return hv.VLine(value, label="threshold").opts(color="black", line_dash="dashed",
                                                   line_width=2)


def rejection_plot(df) -> hv.Overlay:
    """Rejection rate per test with its confidence interval, from ``rejection_rates``."""
    x = list(range(len(df)))
    ticks = list(zip(x, df["test"], strict=True))
    points = hv.Scatter((x, df["rate"]), "test", "rejection rate", label="rate").opts(
        size=12, color=COLOR_X)
    bars = hv.ErrorBars((x, df["rate"], df["rate"] - df["ci_low"], df["ci_high"] - df["rate"]),
                        "test", ["rejection rate", "lo", "hi"])
    return (bars * points).opts(hv.opts.Overlay(
        title="Rejection rate over repeated draws", xticks=ticks, ylim=(0, 1.05),
        **size(300), show_grid=True))


def runtime_bars(runtimes: dict) -> hv.Bars:
    """Seconds per test for each null method."""
    return hv.Bars(list(runtimes.items()), "null method", "seconds per test").opts(
        title="Runtime of each null", **size(260), color=COLOR_ACCENT,
        show_grid=True)




def kernel_choice_plot(table, *, median: float, reject: bool, alpha: float) -> hv.Overlay:
    """MMDAgg's per-kernel table (``TestResult.fitted["kernels"]``) on a log-σ axis: the
    statistic over its threshold q_j(u_α) (a bandwidth rejects above 1), the median
    heuristic's σ, and the aggregated decision in the title."""
    ratio = table["statistic"] / table["quantile"]
    data = table.assign(ratio=ratio)
    vdims = ["ratio", "statistic", "quantile", "p_value", "threshold"]
    layers = [hv.Scatter(data[data["reject"] == flag], "scale", vdims, label=label).opts(
        color=color, size=11, marker="circle", tools=["hover"])
        for flag, label, color in ((False, "keeps H0", "#888888"),
                                   (True, "rejects H0", COLOR_ACCENT))]
    rejecting = int(table["reject"].sum())
    title = (f"MMDAgg {'rejects' if reject else 'keeps'} H0 at α = {alpha:g}: "
             f"{rejecting} of {len(table)} bandwidths reject")
    return hv.Overlay([
        hv.HLine(1.0, label="threshold q_j(u_α)").opts(color="black", line_dash="dashed"),
        hv.VLine(median, label="median heuristic").opts(color=COLOR_Y, line_dash="dotted",
                                                        line_width=2),
        *layers]).opts(hv.opts.Overlay(title=title, logx=True, xlabel="Gaussian bandwidth σ",
                                       ylabel="statistic / threshold", show_grid=True,
                                       legend_position="right", **size(320)))


def kernel_power_plot(df) -> hv.Overlay:
    """Single-bandwidth power against σ with its intervals, beside the aggregated test's
    and the median heuristic's (rows ``kind`` "single σ", "aggregated", "median
    heuristic" of the repeat table)."""
    single = df[df["kind"] == "single σ"].sort_values("sigma")
    curve = hv.Curve((single["sigma"], single["rate"]), "σ", "power",
                     label="single bandwidth").opts(color=COLOR_X, line_width=2)
    points = hv.Scatter((single["sigma"], single["rate"]), "σ", "power").opts(
        color=COLOR_X, size=7)
    bars = hv.ErrorBars((single["sigma"], single["rate"], single["rate"] - single["ci_low"],
                         single["ci_high"] - single["rate"]), "σ", ["power", "lo", "hi"])
    span = (float(single["sigma"].min()), float(single["sigma"].max()))
    # level lines as curves across the σ range, so that the legend names them
    lines = [hv.Curve((span, [float(row["rate"])] * 2), "σ", "power",
                      label=f"{row['test']} ({row['rate']:.2f})").opts(
        color=color, line_dash=dash, line_width=2)
        for (_, row), color, dash in zip(df[df["kind"] != "single σ"].iterrows(),
                                         (COLOR_ACCENT, COLOR_Y), ("solid", "dotted"),
                                         strict=False)]
    return hv.Overlay([bars, curve, points, *lines]).opts(hv.opts.Overlay(
        title="Power over repeated draws", logx=True, ylim=(0, 1.05), show_grid=True,
        legend_position="top_right", **size(320)))
