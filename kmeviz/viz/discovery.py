"""The graph PC found (``kmeviz.pc``): variables on a circle, directed edges as arrows and
undirected ones as plain lines; with a true DAG, each edge coloured by whether PC got it
right."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pandas as pd

from .theme import COLOR_ACCENT, COLOR_X, size

#: edge colours against a true DAG
EDGE_COLOURS = {"correct": "#2a7f3f", "wrongly oriented": "#d08c00", "extra": "#c0392b",
                "missing": "#9aa5b1", "found": COLOR_X}


def circle_layout(names) -> pd.DataFrame:
    """x, y of each name on the unit circle, the first at the top, clockwise."""
    angles = np.pi / 2 - 2 * np.pi * np.arange(len(names)) / max(len(names), 1)
    return pd.DataFrame({"x": np.cos(angles), "y": np.sin(angles),
                         "name": [str(n) for n in names]})


def edge_status(result, truth: np.ndarray | None) -> list:
    """(source, target, kind, status) of every edge of ``result`` and, with ``truth`` (the
    true CPDAG in ``pc``'s marks), the edges PC missed."""
    index = {str(n): k for k, n in enumerate(result.names)}
    rows = []
    for e in result.edges().itertuples():
        i, j = index[str(e.source)], index[str(e.target)]
        status = "found"
        if truth is not None:
            if not (truth[i, j] or truth[j, i]):
                status = "extra"
            elif (truth[i, j], truth[j, i]) == (result.graph[i, j], result.graph[j, i]):
                status = "correct"
            else:
                status = "wrongly oriented"
        rows.append((str(e.source), str(e.target), e.kind, status))
    if truth is not None:
        p = len(result.names)
        for i in range(p):
            for j in range(i + 1, p):
                if (truth[i, j] or truth[j, i]) and not (result.graph[i, j] or
                                                         result.graph[j, i]):
                    rows.append((str(result.names[i]), str(result.names[j]), "---",
                                 "missing"))
    return rows


def causal_graph_plot(result, *, truth: np.ndarray | None = None,
                      title: str = "The graph PC found") -> hv.Overlay:
    """The CPDAG of ``result``: arrows for directed edges, lines for undirected ones; with
    ``truth``, colours by correct / wrongly oriented / extra, and missing edges dashed."""
    nodes = circle_layout(result.names)
    at = {name: (x, y) for x, y, name in nodes.itertuples(index=False)}
    layers = []
    for status, colour in EDGE_COLOURS.items():
        edges = [e for e in edge_status(result, truth) if e[3] == status]
        lines = [(*at[s], *at[t]) for s, t, kind, _ in edges if kind == "---"]
        arrows = [(*at[s], *at[t]) for s, t, kind, _ in edges if kind == "-->"]
        dash = "dashed" if status == "missing" else "solid"
        if lines:
            layers.append(hv.Segments(lines, label=status).opts(
                color=colour, line_width=3, line_dash=dash))
        if arrows:  # shafts that stop at the node's rim, and triangular heads
            shafts, heads = [], []
            for x0, y0, x1, y1 in arrows:
                ux, uy = np.array([x1 - x0, y1 - y0]) / np.hypot(x1 - x0, y1 - y0)
                tip = np.array([x1, y1]) - 0.13 * np.array([ux, uy])
                base = tip - 0.11 * np.array([ux, uy])
                side = 0.045 * np.array([-uy, ux])
                shafts.append((x0, y0, *base))
                heads.append({("x", "y"): np.array([tip, base + side, base - side])})
            layers.append(hv.Segments(shafts, label=status).opts(color=colour,
                                                                 line_width=3))
            layers.append(hv.Polygons(heads).opts(color=colour, line_color=colour))
    points = hv.Points(nodes, ["x", "y"], ["name"]).opts(
        size=34, color="white", line_color=COLOR_ACCENT, line_width=2, tools=["hover"])
    labels = hv.Labels(nodes.assign(y=nodes["y"] - 0.16), ["x", "y"], "name").opts(
        text_font_size="9pt", text_color="#222")
    return hv.Overlay([*layers, points, labels]).opts(
        title=title, xaxis=None, yaxis=None, xlim=(-1.4, 1.4), ylim=(-1.3, 1.3),
        show_legend=truth is not None, **size(460))
