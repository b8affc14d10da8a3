"""Conditional mean embedding plots: data with E[h(Y) | x], the embedding map, the CV
curve, coefficients and the sparsity path of Fig. 1."""

from __future__ import annotations

import holoviews as hv
import numpy as np

from .theme import COLOR_ACCENT, COLOR_X, COLOR_Y, size


def cme_data_plot(X, Y, grid, estimate, truth, *, h_label: str) -> hv.Overlay:
    """Scatter of (x, y) with the estimated and true E[h(Y) | x] over a grid."""
    return (hv.Scatter((X[:, 0], Y[:, 0]), "x", "y", label="data").opts(
        color="gray", alpha=0.4, size=4)
        * hv.Curve((grid, estimate), "x", "y", label=f"CME estimate of E[{h_label} | x]").opts(
            color=COLOR_X, line_width=3)
        * hv.Curve((grid, truth), "x", "y", label=f"true E[{h_label} | x]").opts(
            color=COLOR_Y, line_dash="dashed", line_width=2)).opts(
        hv.opts.Overlay(title="Data and conditional expectation", legend_position="top_left",
                        **size(340), show_grid=True))


def cme_embedding_map(xs, ys, values) -> hv.Image:
    """Heatmap of μ̂(x)(y) over (x, y)."""
    return hv.Image((xs, ys, values), ["x", "y"], "μ̂(x)(y)").opts(
        cmap="viridis", colorbar=True, **size(340),
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
        title="Choosing λ by cross-validation", logx=True, **size(300),
        show_grid=True, legend_position="top_left"))


def coefficient_map(M, order, *, note: str = "") -> hv.Image:
    """|M_ij| with rows and columns sorted by x (white = zero); ``note`` joins the title."""
    A = np.abs(M[np.ix_(order, order)])
    A = np.where(A > 0, A, np.nan)  # zeros drawn white
    n = A.shape[0]
    return hv.Image((np.arange(n), np.arange(n), A), ["training point j (sorted by x)",
                                                      "training point i (sorted by x)"],
                    "|M_ij|").opts(cmap="Blues", colorbar=True, **size(300),
                                   clipping_colors={"NaN": "white"},
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
        **size(340), show_grid=True))


