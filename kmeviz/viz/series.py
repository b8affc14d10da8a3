"""Series in time order: the series themselves, their autocorrelation, and the null of an
i.i.d. test beside that of a time-series test on the same data (the time-series
explorer and notebook 13)."""

from __future__ import annotations

import holoviews as hv
import numpy as np

from .theme import COLOR_ACCENT, COLOR_X, COLOR_Y, size

SERIES_COLORS = (COLOR_X, COLOR_Y, COLOR_ACCENT)


def series_plot(series: dict, *, title: str = "The series in time order") -> hv.Overlay:
    """Each named 1-D series (the first column of a 2-D one) against its time index."""
    layers = []
    for (name, values), color in zip(series.items(), SERIES_COLORS, strict=False):
        values = np.asarray(values, dtype=float)
        values = values[:, 0] if values.ndim == 2 else values
        layers.append(hv.Curve((np.arange(values.size), values), "time t", "value",
                               label=str(name)).opts(color=color, line_width=1))
    return hv.Overlay(layers).opts(hv.opts.Overlay(title=title, legend_position="top_right",
                                                   show_grid=True, **size(260)))


def autocorrelations(values, max_lag: int) -> np.ndarray:
    """ρ̂_0 … ρ̂_max_lag of a 1-D series (the first column of a 2-D one)."""
    x = np.asarray(values, dtype=float)
    x = x[:, 0] if x.ndim == 2 else x
    c = x - x.mean()
    energy = float(c @ c) or 1.0
    return np.array([1.0] + [float(c[:-k] @ c[k:]) / energy for k in range(1, max_lag + 1)])


def autocorrelation_plot(series: dict, *, max_lag: int = 30) -> hv.Overlay:
    """The sample autocorrelation of each series at lags 0 … ``max_lag``, with the ±2/√n
    band an i.i.d. series stays in about 95 % of the time."""
    layers, n = [], 1
    for (name, values), color in zip(series.items(), SERIES_COLORS, strict=False):
        n = len(values)
        rho = autocorrelations(values, min(max_lag, n - 1))
        layers.append(hv.Curve((np.arange(rho.size), rho), "lag k", "autocorrelation ρ̂_k",
                               label=str(name)).opts(color=color, line_width=2))
    band = 2.0 / np.sqrt(max(n, 1))
    layers += [hv.HLine(band).opts(color="gray", line_dash="dotted"),
               hv.HLine(-band).opts(color="gray", line_dash="dotted")]
    return hv.Overlay(layers).opts(hv.opts.Overlay(
        title="Autocorrelation (dotted: ±2/√n, i.i.d. rows)", ylim=(-0.5, 1.05),
        legend_position="top_right", show_grid=True, **size(260)))


def side_by_side_nulls(iid, series, *, statistic: str, bins: int = 40) -> hv.Overlay:
    """The simulated null of an i.i.d. test (``iid``, a ``TestResult``) and that of a
    time-series test (``series``) of the same statistic on the same data, on one axis,
    with the statistic and each threshold: on serially dependent rows the first is too
    narrow, and the statistic lands in its tail."""
    layers = []
    values = np.concatenate([iid.null_samples, series.null_samples, [iid.statistic]])
    edges = np.linspace(values.min(), values.max(), bins + 1)
    for result, label, color in ((iid, "i.i.d. null", COLOR_X),
                                 (series, "time-series null", COLOR_Y)):
        counts, _ = np.histogram(result.null_samples, bins=edges, density=True)
        layers.append(hv.Histogram((edges, counts), kdims=[statistic], vdims=["density"],
                                   label=label)
                      .opts(color=color, alpha=0.45, line_alpha=0))
        layers.append(hv.VLine(result.threshold).opts(color=color, line_dash="dashed"))
    layers.append(hv.VLine(iid.statistic).opts(color="black", line_width=2))
    title = (f"{statistic} (black) — i.i.d. p = {iid.p_value_text()}, time-series p = "
             f"{series.p_value_text()}")  # the caption says the dashed lines are thresholds
    return hv.Overlay(layers).opts(hv.opts.Overlay(title=title, legend_position="top_right",
                                                   show_grid=True, **size(300)))
