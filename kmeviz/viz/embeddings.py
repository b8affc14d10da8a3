"""Embedding plots: Nyström error and fit time vs m, embedding heatmaps, Gram spectra,
the effective dimension and landmark rules."""

from __future__ import annotations

import holoviews as hv
import numpy as np

from .theme import COLOR_ACCENT, COLOR_X, COLOR_Y, size

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
        legend_position="bottom_left", **size(360), show_grid=True))


def runtime_vs_m_plot(df) -> hv.Overlay:
    """Mean fit time vs m for each subsampling estimator."""
    parts = [hv.Curve((p.sort_values("m")["m"], p.sort_values("m")["runtime_s"]),
                      "m (landmarks)", "fit time (s)", label=name).opts(
        color=ESTIMATOR_COLORS.get(name, "black"), line_width=2)
        for name, p in df[df.estimator != "empirical"].groupby("estimator", sort=False)]
    return hv.Overlay(parts).opts(hv.opts.Overlay(
        title="Fit time vs m", logx=True, logy=True, legend_position="top_left",
        **size(300), show_grid=True))


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
    """ν_i vs i on log-log axes with the fitted exponential or polynomial decay."""
    nu = np.asarray(eigenvalues)
    nu = nu[nu > nu[0] * 1e-14]
    i = np.arange(1, nu.size + 1)
    layers = [hv.Scatter((i, nu), "index i", "eigenvalue νᵢ of K/n",
                         label="spectrum").opts(color=COLOR_X, size=4)]
    if fit is not None:
        j = np.arange(1, fit.n_used + 1)
        label = (f"exponential fit, rate {fit.rate:.3g}" if fit.kind == "exponential"
                 else f"polynomial fit, νᵢ ∝ i^{fit.slope_polynomial:.2f} (γ = {fit.gamma:.2f})")
        layers.append(hv.Curve((j, fit.predict(j)), "index i", "eigenvalue νᵢ of K/n",
                               label=label).opts(color=COLOR_Y, line_width=2))
    return hv.Overlay(layers).opts(hv.opts.Overlay(
        title="Gram spectrum", logx=True, logy=True, legend_position="bottom_left",
        **size(340), show_grid=True))


def effective_dimension_plot(lams, N, *, lam_m: float | None = None,
                             label_m: str = "") -> hv.Overlay:
    """N(λ) vs λ on log-log axes with λ(m) marked; ``label_m`` (the value at λ(m)) goes
    in the title, so the legend stays fixed while a dashboard moves the marker in place."""
    layers = [hv.Curve((lams, N), "λ", "N(λ)", label="effective dimension").opts(
        color=COLOR_X, line_width=2)]
    if lam_m is not None:
        layers.append(hv.VLine(lam_m, label="λ(m)").opts(
            color=COLOR_Y, line_dash="dashed", line_width=2))
    title = f"Effective dimension: {label_m}" if label_m else "Effective dimension"
    return hv.Overlay(layers).opts(hv.opts.Overlay(
        title=title, logx=True, logy=True, legend_position="bottom_left",
        **size(340), show_grid=True))


def rules_bars(counts: dict) -> hv.Bars:
    """Landmark counts recommended by each rule (log scale; the bars start at half the
    smallest count, as a log axis has no 0)."""
    positive = [float(v) for v in counts.values() if float(v) > 0]
    bottom = 0.5 * min(positive) if positive else 0.5
    return hv.Bars(list(counts.items()), "rule", "landmarks m").opts(
        title="How many landmarks?", logy=True, ylim=(bottom, None), **size(340),
        color=COLOR_ACCENT, xrotation=20, show_grid=True)


