"""Plot sizes come from one theme: fixed in notebooks, stretching in the served apps."""

from __future__ import annotations

import re
from pathlib import Path

import holoviews as hv
import numpy as np
import pandas as pd
import pytest

import kmeviz as K
from kmeviz import viz
from kmeviz.viz.figures import _minor_tick_labels

NOTEBOOKS = sorted((Path(__file__).parents[1] / "notebooks").glob("[0-9][0-9]_*.py"))


def plot_options(obj) -> dict:
    return hv.Store.lookup_options("bokeh", obj, "plot").kwargs


@pytest.fixture
def builders():
    hv.extension("bokeh")
    rng = np.random.default_rng(0)
    res = K.mmd_test(rng.normal(size=(30, 1)), rng.normal(size=(30, 1)), K.GaussianKernel(1.0),
                     n_resamples=49, rng=0)
    path = pd.DataFrame({"method": ["FISTA"] * 2, "parameter": [0.1, 0.01],
                         "nonzero_pct": [1.0, 5.0], "relative_error": [0.3, 0.1],
                         "relative_test_error": [1.1, 1.0]})
    return [lambda: viz.null_histogram(res), lambda: viz.sparsity_path_plot(path),
            lambda: viz.spectrum_plot(np.array([3.0, 1.0, 0.1]))]


def test_builders_are_fixed_by_default_and_stretch_for_the_server(builders):
    assert viz.theme.get_sizing() == "fixed"
    for build in builders:
        fixed = plot_options(build())
        assert fixed["responsive"] is False
        assert fixed["width"] == viz.theme.NOTEBOOK_WIDTH and fixed["height"] > 0
        with viz.sizing("stretch"):
            stretched = plot_options(build())
        assert stretched["responsive"] is True and stretched["min_height"] == fixed["height"]
    assert viz.theme.get_sizing() == "fixed"  # restored after the block
    with pytest.raises(ValueError, match="sizing"):
        viz.set_sizing("huge")


@pytest.mark.parametrize("source", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebooks_do_not_override_plot_sizes(source):
    code = source.read_text()
    assert not re.search(r"\b(responsive|width|height|min_height)\s*[=:]", code), source.name


def test_a_series_keeps_its_colour_in_every_panel_of_a_figure():
    """Fig. 6's biased panel has no MMD-linear: its 'exact' curve had taken MMD-linear's
    colour from the unbiased panel next to it."""
    import holoviews.plotting.bokeh  # noqa: F401 - options need a loaded backend

    from kmeviz.experiments.figures import FIGURES
    from kmeviz.viz.figures import figure_plot

    spec = FIGURES["fastmmd-fig6"]
    rows = [{"sigma": s, "estimator": e, "kind": k, "mean": 1.0, "low": 0.9, "high": 1.1}
            for s in (0.1, 1.0) for k, names in
            (("biased", ("FastMMD-Fourier", "exact")),
             ("unbiased", ("FastMMD-Fourier", "MMD-linear", "exact")))
            for e in names]
    colours = [{c.label: c.opts.get().kwargs["color"] for c in panel
                if isinstance(c, hv.Curve)} for panel in figure_plot(spec, pd.DataFrame(rows))]
    assert colours[0]["exact"] == colours[1]["exact"] != colours[1]["MMD-linear"]
    assert len(set(colours[1].values())) == 3


def test_log_axes_of_stored_figures_label_minor_ticks_at_2_and_5_only():
    """Stored PNGs: matplotlib labelled every minor tick of a short log axis (2×10⁻²,
    3×10⁻², … overprinting one another); only 2 and 5 × 10ᵏ keep a label."""
    labels = [_minor_tick_labels(v, None) for v in (0.02, 0.03, 0.05, 0.2, 0.4, 5.0, 0.0)]
    assert labels == ["0.02", "", "0.05", "0.2", "", "5", ""]
