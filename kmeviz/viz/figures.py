"""Plots of the papers' figures (``kmeviz.experiments.figures``) and their PNG files.

``figure_plot`` builds a HoloViews object from a figure's table: one curve with markers per
series, its interval as a shaded band, a reference level, one panel per facet value, and
the paper's numbers where it reports any (a table beside the plot). The same object shows
interactively in a notebook (bokeh); ``save_png`` renders it with HoloViews' **matplotlib**
backend, which needs no browser, so ``kmeviz reproduce`` works on a headless server.
"""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pandas as pd

#: matplotlib's tab10, then the darker and lighter shades of tab20 for the series beyond
#: ten (Kalinke et al. Fig. 1 has eleven tests), so no two series share a colour
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39",
           "#7b4173", "#3182bd"]


def _colors(spec, df: pd.DataFrame) -> dict:
    """One colour per series for the whole figure, so that a series keeps its colour in
    every panel (a panel without MMD-linear had given its colour to 'exact')."""
    return {label: PALETTE[i % len(PALETTE)] for i, label in enumerate(pd.unique(df[spec.series]))}


def _panel(spec, df: pd.DataFrame, title: str, colors: dict) -> hv.Overlay:
    layers = []
    for label, part in df.groupby(spec.series, sort=False):
        part = part.sort_values(spec.x)
        color = colors[label]
        kdims, vdims = [spec.x], [spec.y]
        if spec.interval:
            low, high = spec.interval
            band = part.assign(_neg=part[spec.y] - part[low], _pos=part[high] - part[spec.y])
            fill = ({"facecolor": color, "edgecolor": "none"} if _backend() == "matplotlib"
                    else {"fill_color": color, "line_alpha": 0})
            layers.append(hv.Spread(band, kdims, [spec.y, "_neg", "_pos"])
                          .opts(alpha=0.1, **fill))
        legend = spec.labels.get(label, str(label))
        layers.append(hv.Curve(part, kdims, vdims, label=legend).opts(color=color))
        layers.append(hv.Scatter(part, kdims, vdims).opts(color=color))
    if spec.hline is not None:
        layers.append(hv.HLine(spec.hline).opts(color="black"))
    for kind, value, text in (spec.marks(df) if spec.marks else []):
        line = hv.VLine(value) if kind == "x" else hv.HLine(value)
        layers.append(line.opts(color="gray", linestyle="dashed")
                      if _backend() == "matplotlib" else
                      line.opts(color="gray", line_dash="dashed"))
        where = (value, df[spec.y].max()) if kind == "x" else (df[spec.x].min(), value)
        layers.append(hv.Text(*where, f" {text}", halign="left", valign="top",
                              fontsize=8).opts(color="gray"))
    return hv.Overlay(layers).opts(title=title, logx=spec.logx, logy=spec.logy,
                                   xlabel=spec.xlabel or spec.x, ylabel=spec.ylabel or spec.y)


def _backend() -> str:
    return hv.Store.current_backend


def figure_plot(spec, df: pd.DataFrame):
    """The figure: one panel, or one per value of ``spec.facet``, plus a table of the
    paper's reported values next to ours when ``spec.paper_values`` has any."""
    colors = _colors(spec, df)
    if spec.facet:
        panels = [_panel(spec, part, f"{spec.title}, {spec.facet} = {value}", colors)
                  for value, part in df.groupby(spec.facet)]
    else:
        panels = [_panel(spec, df, spec.title, colors)]
    if spec.paper_values is not None and "runtime_s" in df:
        runs = df.assign(total=df.runtime_s * df.repeats).groupby("test")
        total, count = runs["total"].sum(), runs["repeats"].sum()
        ours = pd.DataFrame({"kmeviz, one test (s)": (total / count).round(3),
                             f"kmeviz, all {int(count.max())} (s)": total.round(1)})
        theirs = spec.paper_values.set_index("test")["runtime_s"].rename("paper (s)")
        table = pd.concat([ours, theirs], axis=1).reset_index(names="test")
        panels.append(hv.Table(table).opts(title="runtime per test"))
    if len(panels) == 1:
        return panels[0]
    layout = hv.Layout(panels).cols(2)
    return layout if spec.shared_axes else layout.opts(shared_axes=False)


def save_png(spec, df: pd.DataFrame, path) -> None:
    """Render ``figure_plot(spec, df)`` to a PNG file with the matplotlib backend."""
    import holoviews.plotting.mpl  # noqa: F401 - registers the matplotlib renderer

    previous = hv.Store.current_backend
    hv.Store.set_current_backend("matplotlib")
    try:
        plot = figure_plot(spec, df)
        n_panels = len(plot) if isinstance(plot, hv.Layout) else 1
        plot = plot.opts(hv.opts.Overlay(fig_size=180, aspect=1.6, legend_position="right",
                                         legend_limit=100, fontsize={"legend": 7, "title": 9},
                                         hooks=[_readable_log_ticks]),
                         hv.opts.Table(fig_size=180, aspect=1.6, fontsize={"title": 9},
                                       max_value_len=30))
        if n_panels > 1:
            plot = plot.opts(hv.opts.Layout(sublabel_format="", fig_size=180))
        hv.save(plot, str(path), backend="matplotlib", fmt="png", dpi=110)
    finally:
        hv.Store.set_current_backend(previous)


def _minor_tick_labels(value: float, _position) -> str:
    """A minor tick's label on a log axis: only at 2 and 5 times a power of ten."""
    if value <= 0:
        return ""
    mantissa = value / 10 ** np.floor(np.log10(value))
    return f"{value:g}" if round(mantissa) in (2, 5) else ""


def _readable_log_ticks(plot, element) -> None:
    """A matplotlib hook: minor ticks labelled at 2 and 5 × 10ᵏ only. On a log axis
    spanning less than a few decades matplotlib labels 2×10⁻², 3×10⁻², … and they
    overprint one another."""
    from matplotlib.ticker import FuncFormatter

    axis = plot.handles["axis"]
    for ax in (axis.xaxis, axis.yaxis):
        if ax.get_scale() == "log":
            ax.set_minor_formatter(FuncFormatter(_minor_tick_labels))
