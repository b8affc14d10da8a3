"""Plots of conditional independence: the residuals of X and Y after the CME regression
on Z against each other, and the CME fit of E[X | Z] over Z."""

from __future__ import annotations

import holoviews as hv
import numpy as np

from .independence import first_columns
from .theme import COLOR_X, COLOR_Y, size


def residual_plot(rx, ry, *, title: str, max_points: int = 2000, rng=0) -> hv.Scatter:
    """The residuals (x_i − Ê[x | z_i], y_i − Ê[y | z_i]): under X ⫫ Y | Z they show no
    pattern (the picture of conditional independence)."""
    x, y = first_columns(np.reshape(rx, (len(rx), -1)), np.reshape(ry, (len(ry), -1)),
                         max_points, rng)
    return hv.Scatter((x, y), "residual of X given Z", "residual of Y given Z").opts(
        color=COLOR_Y, alpha=0.6, size=4, title=title, show_grid=True, **size(380))


def cme_fit_plot(z, v, grid, fit, *, variable: str = "X", max_points: int = 2000,
                 rng=0) -> hv.Overlay:
    """The pairs (z_i, v_i) (Z's first column) with the CME estimate of E[V | Z] on a grid
    of Z's first column (the other columns of Z at their mean)."""
    a, b = first_columns(np.reshape(z, (len(z), -1)), np.reshape(v, (len(v), -1)),
                         max_points, rng)
    return (hv.Scatter((a, b), "z", variable.lower(), label="data").opts(
        color="gray", alpha=0.4, size=4)
        * hv.Curve((grid, fit), "z", variable.lower(),
                   label=f"CME estimate of E[{variable} | Z]").opts(color=COLOR_X,
                                                                     line_width=3)).opts(
        hv.opts.Overlay(title=f"The regression of {variable} on Z", show_grid=True,
                        legend_position="top_left", **size(380)))
