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


CAPTIONS.update({
    "null": "The null distribution of the statistic (what it looks like when P = Q). The test "
    "rejects when the observed statistic lands right of the threshold.",
    "rejection": "Rejection rate over repeated draws with its 95% interval: under P = Q it "
    "should sit at α (size); otherwise it is the power.",
    "runtime": "Seconds per test for each valid null of the chosen estimator on these data.",
})


def null_histogram(result, *, overlays: dict | None = None, bins: int = 40,
                   statistic: str = "MMD²", title_prefix: str = "") -> hv.Overlay:
    """Null histogram (or analytic density) with the statistic, threshold and p-value.

    ``overlays`` maps a label to ``(x, density)`` curves drawn on top, e.g. the Gamma
    and spectral approximations of the same null.
    """
    xlabel = f"{result.method} {statistic} statistic"
    layers = []
    if result.null_samples is not None:
        edges = np.histogram_bin_edges(np.append(result.null_samples, result.statistic), bins)
        counts, edges = np.histogram(result.null_samples, bins=edges, density=True)
        layers.append(hv.Histogram((edges, counts), kdims=[xlabel], vdims=["density"],
                                   label=f"{result.null} null (B = {result.null_samples.size})"
                                   ).opts(color="#9ecae1", line_color="white"))
    dist = result.null_distribution()
    if dist is not None:
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
    if np.isfinite(result.threshold):
        layers.append(hv.VLine(result.threshold, label="threshold").opts(
            color="black", line_dash="dashed", line_width=2))
    verdict = "reject H0" if result.reject else "keep H0"
    title = f"{title_prefix}p = {result.p_value:.4f} at α = {result.alpha:g}: {verdict}"
    return hv.Overlay(layers).opts(
        hv.opts.Overlay(title=title, legend_position="top_right", responsive=True,
                        min_height=380, show_grid=True))


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
        responsive=True, min_height=300, show_grid=True))


def runtime_bars(runtimes: dict) -> hv.Bars:
    """Seconds per test for each null method."""
    return hv.Bars(list(runtimes.items()), "null method", "seconds per test").opts(
        title="Runtime of each null", responsive=True, min_height=260, color=COLOR_ACCENT,
        show_grid=True)


CAPTIONS.update({
    "nystrom_error": "Exact error ||μ - μ̂|| vs the number of landmarks m (mean and 5–95% band). "
    "Nyström reaches the empirical error (grey band) near m ≈ √n log √n (dotted), far below n. "
    "(rff, with L = m features, is measured in its own feature space: it shows only the "
    "sampling error and is not comparable with the others.)",
    "nystrom_runtime": "Fit time vs m: the Nyström fit costs O(nm + m³).",
    "nystrom_map": "Left: the Nyström embedding μ̂_m(z) with its landmarks, sized by |α_j|. "
    "Right: the true embedding μ(z) of the mixture (App. G closed form).",
    "spectrum": "Eigenvalues of K/n on log-log axes with the fitted decay: fast decay means few "
    "landmarks suffice.",
    "effective_dimension": "Effective dimension N(λ) = Σ σᵢ/(σᵢ + λ): the number of "
    "directions the data really use at scale λ; λ(m) of Thm 4.1 is marked.",
    "rules": "Landmark counts recommended by the theory next to the m that actually brings the "
    "Nyström projection error down to the empirical error.",
})

ESTIMATOR_COLORS = {"nystrom": COLOR_X, "empirical": "gray", "uniform": COLOR_Y,
                    "herding": "#ff7f0e", "rff": "#9467bd"}


def error_vs_m_plot(df, *, marker: float | None = None) -> hv.Overlay:
    """Mean error and 5–95% bands vs m for each estimator of ``nystrom_error_vs_m``."""
    layers = []
    ms = df[df.estimator != "empirical"]["m"]
    lo_m, hi_m = float(ms.min()), float(ms.max())
    for name, part in df.groupby("estimator", sort=False):
        color = ESTIMATOR_COLORS.get(name, "black")
        if name == "empirical":
            row = part.iloc[0]
            xs, mean = [lo_m, hi_m], [row.mean_error] * 2
            band = ([lo_m, hi_m], [row.p05] * 2, [row.p95] * 2)
        else:
            part = part.sort_values("m")
            xs, mean = part["m"], part["mean_error"]
            band = (part["m"], part["p05"], part["p95"])
        layers.append(hv.Area(band, "m (landmarks)", ["error", "error2"]).opts(
            color=color, alpha=0.2, line_alpha=0))
        layers.append(hv.Curve((xs, mean), "m (landmarks)", "error", label=name).opts(
            color=color, line_width=2, line_dash="dashed" if name == "empirical" else "solid"))
    if marker is not None:
        layers.append(hv.VLine(marker, label="√n log √n").opts(color="black",
                                                              line_dash="dotted"))
    return hv.Overlay(layers).opts(hv.opts.Overlay(
        title="Embedding error vs number of landmarks", logx=True, logy=True,
        legend_position="bottom_left", responsive=True, min_height=360, show_grid=True))


def runtime_vs_m_plot(df) -> hv.Overlay:
    """Mean fit time vs m for each subsampling estimator."""
    parts = [hv.Curve((p.sort_values("m")["m"], p.sort_values("m")["seconds"]),
                      "m (landmarks)", "fit time (s)", label=name).opts(
        color=ESTIMATOR_COLORS.get(name, "black"), line_width=2)
        for name, p in df[df.estimator != "empirical"].groupby("estimator", sort=False)]
    return hv.Overlay(parts).opts(hv.opts.Overlay(
        title="Fit time vs m", logx=True, logy=True, legend_position="top_left",
        responsive=True, min_height=300, show_grid=True))


def embedding_map(xs, ys, values, *, title: str, points=None, sizes=None) -> hv.Overlay:
    """Heatmap of an embedding on a 2-D grid, optionally with (weighted) points on top."""
    img = hv.Image((xs, ys, values), ["z₁", "z₂"], "μ(z)").opts(
        cmap="viridis", colorbar=True, tools=["hover"])
    layers = [img]
    if points is not None:
        s = np.asarray(sizes, dtype=float)
        s = 4 + 16 * s / s.max() if s.size and s.max() > 0 else np.full(len(points), 6.0)
        layers.append(hv.Points((points[:, 0], points[:, 1], s), ["z₁", "z₂"], "size",
                                label="landmarks (size ∝ |α_j|)").opts(
            size="size", color="white", line_color="black", alpha=0.9))
    return hv.Overlay(layers).opts(hv.opts.Overlay(
        title=title, frame_width=330, frame_height=300, legend_position="bottom_right"))


def spectrum_plot(eigenvalues, fit=None) -> hv.Overlay:
    """σ_i vs i on log-log axes with the fitted exponential or polynomial decay."""
    sigma = np.asarray(eigenvalues)
    sigma = sigma[sigma > sigma[0] * 1e-14]
    i = np.arange(1, sigma.size + 1)
    layers = [hv.Scatter((i, sigma), "index i", "eigenvalue σᵢ of K/n",
                         label="spectrum").opts(color=COLOR_X, size=4)]
    if fit is not None:
        j = np.arange(1, fit.n_used + 1)
        label = (f"exponential fit, rate {fit.rate:.3g}" if fit.kind == "exponential"
                 else f"polynomial fit, σᵢ ∝ i^{fit.slope_polynomial:.2f} (γ = {fit.gamma:.2f})")
        layers.append(hv.Curve((j, fit.predict(j)), "index i", "eigenvalue σᵢ of K/n",
                               label=label).opts(color=COLOR_Y, line_width=2))
    return hv.Overlay(layers).opts(hv.opts.Overlay(
        title="Gram spectrum", logx=True, logy=True, legend_position="bottom_left",
        responsive=True, min_height=340, show_grid=True))


def effective_dimension_plot(lams, N, *, lam_m: float | None = None,
                             label_m: str = "") -> hv.Overlay:
    """N(λ) vs λ on log-log axes with λ(m) marked."""
    layers = [hv.Curve((lams, N), "λ", "N(λ)", label="effective dimension").opts(
        color=COLOR_X, line_width=2)]
    if lam_m is not None:
        layers.append(hv.VLine(lam_m, label=label_m or "λ(m)").opts(
            color=COLOR_Y, line_dash="dashed", line_width=2))
    return hv.Overlay(layers).opts(hv.opts.Overlay(
        title="Effective dimension", logx=True, logy=True, legend_position="bottom_left",
        responsive=True, min_height=340, show_grid=True))


def rules_bars(counts: dict) -> hv.Bars:
    """Landmark counts recommended by each rule (log scale)."""
    return hv.Bars(list(counts.items()), "rule", "landmarks m").opts(
        title="How many landmarks?", logy=True, responsive=True, min_height=340,
        color=COLOR_ACCENT, xrotation=20, show_grid=True)


CAPTIONS.update({
    "cme_data": "The training pairs (x, y) with the true E[h(Y) | x] and its CME estimate "
    "Σ αᵢ(x) h(yᵢ) for the chosen h.",
    "cme_map": "The conditional embedding μ̂(x)(y) = Σ αᵢ(x) L(yᵢ, y): for each x, a smoothed "
    "picture of the conditional law of Y.",
    "cme_cv": "Held-out surrogate loss (Eq. 8) vs λ by 5-fold cross-validation; the optimum "
    "is marked.",
    "cme_sparse": "Coefficients |M_ij| that survive the sparsity penalty γ (FISTA, Alg. 1).",
})


def cme_data_plot(X, Y, grid, estimate, truth, *, h_label: str) -> hv.Overlay:
    """Scatter of (x, y) with the estimated and true E[h(Y) | x] over a grid."""
    return (hv.Scatter((X[:, 0], Y[:, 0]), "x", "y", label="data").opts(
        color="gray", alpha=0.4, size=4)
        * hv.Curve((grid, estimate), "x", "y", label=f"CME estimate of E[{h_label} | x]").opts(
            color=COLOR_X, line_width=3)
        * hv.Curve((grid, truth), "x", "y", label=f"true E[{h_label} | x]").opts(
            color=COLOR_Y, line_dash="dashed", line_width=2)).opts(
        hv.opts.Overlay(title="Data and conditional expectation", legend_position="top_left",
                        responsive=True, min_height=340, show_grid=True))


def cme_embedding_map(xs, ys, values) -> hv.Image:
    """Heatmap of μ̂(x)(y) over (x, y)."""
    return hv.Image((xs, ys, values), ["x", "y"], "μ̂(x)(y)").opts(
        cmap="viridis", colorbar=True, responsive=True, min_height=340,
        title="Conditional mean embedding μ̂(x)(y)")


def cv_curve(table, best_reg: float, *, current: float | None = None) -> hv.Overlay:
    """Mean held-out loss vs λ (log x) with the CV optimum (and the current λ) marked."""
    t = table.sort_values("reg")
    layers = [hv.Curve((t["reg"], t["mean_loss"]), "λ", "held-out surrogate loss",
                       label="5-fold CV").opts(color=COLOR_X, line_width=2),
              hv.VLine(best_reg, label=f"optimum λ = {best_reg:.1e}").opts(
                  color=COLOR_ACCENT, line_dash="dashed")]
    if current is not None:
        layers.append(hv.VLine(current, label="current λ").opts(color="black",
                                                               line_dash="dotted"))
    return hv.Overlay(layers).opts(hv.opts.Overlay(
        title="Choosing λ by cross-validation", logx=True, responsive=True, min_height=300,
        show_grid=True, legend_position="top_left"))


def coefficient_map(M, order, *, note: str = "") -> hv.Image:
    """|M_ij| with rows and columns sorted by x (white = zero); ``note`` joins the title."""
    A = np.abs(M[np.ix_(order, order)])
    A = np.where(A > 0, A, np.nan)  # zeros drawn white
    n = A.shape[0]
    return hv.Image((np.arange(n), np.arange(n), A), ["training point j (sorted by x)",
                                                      "training point i (sorted by x)"],
                    "|M_ij|").opts(cmap="Blues", colorbar=True, responsive=True,
                                   min_height=300, clipping_colors={"NaN": "white"},
                                   title=f"Surviving coefficients: {np.count_nonzero(M)} of "
                                         f"{M.size} ({100 * np.count_nonzero(M) / M.size:.1f}%)"
                                         + (f"; {note}" if note else ""))


def sparsity_path_plot(df, *, y: str = "relative_error") -> hv.Overlay:
    """Grünewälder et al. Fig. 1: an error of ``sparsity_path`` vs % non-zero coefficients."""
    label = {"relative_error": "relative error ‖M − W‖ / ‖W‖ (Eq. 16)",
             "relative_test_error": "test loss / dense CME test loss"}[y]
    colors = {"FISTA": COLOR_X, "incomplete Cholesky": COLOR_Y}
    if y == "relative_error":
        df = df[df[y] > 1e-8]  # full rank reproduces W up to round-off: off a log axis
    layers = [hv.Curve(part.sort_values("nonzero_pct"), "nonzero_pct", y, label=name).opts(
        color=colors.get(name, "black"), line_width=2)
        * hv.Scatter(part, "nonzero_pct", y).opts(color=colors.get(name, "black"), size=6)
        for name, part in df.groupby("method", sort=False)]
    return hv.Overlay(layers).opts(hv.opts.Overlay(
        title="Sparse CME: FISTA vs incomplete Cholesky", logx=True, logy=y == "relative_error",
        xlabel="non-zero coefficients (%)", ylabel=label,
        legend_position="bottom_left" if y == "relative_error" else "top_right",
        responsive=True, min_height=340, show_grid=True))


CAPTIONS.update({
    "stein_target": "The target density p (known only up to a constant to KSD) with its score "
    "∇ log p, and the sample from Q being tested.",
    "stein_witness": "The Stein witness x ↦ E_{X∼Q̂} h_p(X, x), full and Nyström (projected "
    "on the landmarks' span); zero everywhere when Q = P.",
    "stein_null_full": "Wild-bootstrap null of the V-statistic (Eq. 9, Markov-chain signs of "
    "Eq. 10) with the observed KSD² and the threshold.",
    "stein_null_nystrom": "The Nyström bootstrap (Eq. 11), ||R K_mn w||² / n² for every sign "
    "vector w at once, with the Nyström KSD² (Eq. 8).",
})


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
            hv.opts.Overlay(title=title, responsive=True, min_height=260, show_grid=True,
                            legend_position="top_right"))
        sc = hv.Curve((grid, score[:, 0]), "x", "score d/dx log p(x)").opts(
            color=COLOR_ACCENT, line_width=2, responsive=True, min_height=180, show_grid=True,
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
        title=title, responsive=True, min_height=420, legend_position="top_right"))


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
                title="Stein witness x ↦ E h_p(X, x)", responsive=True, min_height=300,
                show_grid=True, legend_position="top_right"))
    xs, ys = grid
    lim = max(np.abs(full).max(), np.abs(nystrom).max(), 1e-12)
    opts = {"cmap": "RdBu_r", "clim": (-lim, lim), "colorbar": True, "responsive": True,
            "min_height": 340}
    marks = hv.Scatter((landmarks[:, 0], landmarks[:, 1]), "x₁", "x₂").opts(
        color="black", size=3, marker="x")
    return (hv.Image((xs, ys, full), ["x₁", "x₂"], "witness").opts(
        title="Stein witness, full", **opts)
        + (hv.Image((xs, ys, nystrom), ["x₁", "x₂"], "witness").opts(
            title="Stein witness, Nyström (× = landmarks)", **opts) * marks))
