"""App logic without a browser: caching of expensive stages and readable errors."""

import holoviews as hv
import panel as pn
import pytest
from kmeviz_apps import circular_explorer as ce


@pytest.fixture
def explorer():
    for stage in (ce.make_samples, ce.reference_values, ce.ensemble_values):
        stage.cache_clear()
    return ce.CircularExplorer(n=200)


def test_changing_omega_does_not_recompute_expensive_stages(explorer):
    explorer.ensemble_view()
    explorer.summary_view()
    refs, ens = ce.reference_values.cache_info(), ce.ensemble_values.cache_info()
    before = explorer.circle_view()
    explorer.angle = 75.0  # moves ω only
    after = explorer.circle_view()
    explorer.summary_view()
    assert ce.reference_values.cache_info().misses == refs.misses == 1
    assert ce.ensemble_values.cache_info().misses == ens.misses == 1
    assert isinstance(after, hv.Overlay) and after.opts.get().kwargs["title"] != (
        before.opts.get().kwargs["title"])


def test_changing_L_recomputes_only_the_ensemble(explorer):
    explorer.ensemble_view()
    explorer.n_frequencies = 64
    explorer.ensemble_view()
    assert ce.reference_values.cache_info().misses == 1
    assert ce.ensemble_values.cache_info().misses == 2


def test_invalid_bandwidth_gives_a_message_not_an_exception(explorer):
    explorer.bandwidth = 0.0  # the widget's lower bound; -1 is refused by the bound itself
    out = explorer.ensemble_view()
    assert isinstance(out, pn.pane.Alert)
    assert "bandwidth must be > 0" in out.object
    explorer._redraw_frequency()  # must not raise either
    explorer.bandwidth = 1.0
    assert isinstance(explorer.ensemble_view(), hv.Overlay)


def test_median_heuristic_button_sets_bandwidth(explorer):
    explorer._use_median_heuristic()
    assert 1.0 < explorer.bandwidth < 40.0


def test_redraw_sets_angle_and_scale_from_a_seeded_draw(explorer):
    explorer._redraw_frequency()
    first = (explorer.angle, explorer.scale)
    other = ce.CircularExplorer(n=200)
    other._redraw_frequency()
    assert (other.angle, other.scale) == first
    explorer._redraw_frequency()
    assert (explorer.angle, explorer.scale) != first
