"""App logic without a browser: caching of expensive stages and readable errors."""

import holoviews as hv
import numpy as np
import panel as pn
import pytest
from kmeviz_apps import EXPLORERS, explorer_class
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
    live = explorer.circle_view()  # a DynamicMap: a new ω redraws it in place
    before = live[()]
    explorer.angle = 75.0  # moves ω only
    after = live[()]
    explorer.summary_view()
    assert ce.reference_values.cache_info().misses == refs.misses == 1
    assert ce.ensemble_values.cache_info().misses == ens.misses == 1
    assert isinstance(live, hv.DynamicMap) and isinstance(after, hv.Overlay)
    assert after.opts.get().kwargs["title"] != before.opts.get().kwargs["title"]


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
    explorer.use_median_heuristic()
    assert 1.0 < explorer.bandwidth < 40.0


def test_redraw_sets_angle_and_scale_from_a_seeded_draw(explorer):
    explorer._redraw_frequency()
    first = (explorer.angle, explorer.scale)
    other = ce.CircularExplorer(n=200)
    other._redraw_frequency()
    assert (other.angle, other.scale) == first
    explorer._redraw_frequency()
    assert (explorer.angle, explorer.scale) != first


def test_the_nystrom_grid_refuses_what_would_take_too_long_and_names_what_fits():
    """The error grid's cost model (``grid_seconds``) keeps every state of the Nyström
    explorer within its 3 s: the heaviest corner of the widgets is answered at once with
    the repeats that fit; a state that fits computes."""
    from kmeviz_apps.nystrom_error import GRID_SECONDS, NystromErrorExplorer

    heavy = NystromErrorExplorer(n=20000, m_max=2000, n_repeats=10, d=20,
                                 baselines=["uniform", "herding", "rff"])
    message = heavy.summary_view().object
    assert "would take about" in message and f"{GRID_SECONDS:.0f} s" in message
    assert "lower the largest m" in message  # not even one draw fits
    fewer = NystromErrorExplorer(n=8000, m_max=1000, n_repeats=10, d=5, baselines=["rff"])
    assert "lower the repeats to" in fewer.summary_view().object
    assert NystromErrorExplorer(n=2000, m_max=400, n_repeats=3).failures() == {}


def test_the_empirical_line_is_the_exact_rms_error_of_the_empirical_kme():
    """(E k(X, X) - ||μ||²)/n against 300 draws of ||μ̂_n - μ||² (App. G closed form per
    draw): within 4 standard errors of their mean."""
    from kmeviz_apps.nystrom_error import empirical_rms, make_problem, repeat_sample

    import kmeviz as K
    from kmeviz.experiments.nystrom import empirical_record

    key = (3, 8, 5.0, 150, 0)
    mixture, bandwidth, _ = make_problem(*key)
    kernel = K.GaussianKernel(bandwidth)
    squares = np.array([empirical_record(mixture, kernel, repeat_sample(key, r))["error"]
                        for r in range(300)]) ** 2
    se = squares.std(ddof=1) / np.sqrt(squares.size)
    assert abs(squares.mean() - empirical_rms(key) ** 2) < 4 * se


@pytest.mark.parametrize("slug", list(EXPLORERS))
def test_a_served_page_builds_one_plot_and_each_other_when_its_tab_is_chosen(slug):
    """Issue 29, point 3: a served explorer shows every plot of ``PLOTS`` in a tab of its
    own, in dynamic tabs (only the open tab is built), and ``show_plot`` fronts a plot's
    tab; in a notebook every plot is shown and ``show_plot`` does nothing."""
    cls = explorer_class(slug)
    explorer = cls(plot_sizing="stretch")
    main = pn.Column(*explorer.main())
    tabs = [item for item in main.select(pn.Tabs) if "kmeviz-plots" in item.css_classes]
    plots = list(cls.PLOTS)
    assert len(tabs) == 1 and tabs[0].dynamic and plots
    assert tabs[0]._names == [plot.title for plot in plots]
    in_tabs = {id(pane) for pane in tabs[0].select(pn.param.ParamMethod)}
    outside = {pane.object.__name__ for pane in main.select(pn.param.ParamMethod)
               if id(pane) not in in_tabs}
    assert outside.isdisjoint(plot.view for plot in plots)  # no plot beside the tabs
    explorer.show_plot(plots[-1].view)
    assert tabs[0].active == len(plots) - 1
    notebook = cls()
    notebook.show_plot(plots[-1].view)  # no tabs in a notebook: nothing happens
    assert notebook._tabs is None


def test_the_conditional_explorer_says_when_its_test_contradicts_the_structure():
    """On the fast-sine fork (H0 true, notebook 11 §8) KCI rejects: the summary says it is
    a false rejection; on the sine chain it keeps, and the summary adds nothing."""
    from kmeviz_apps.conditional_explorer import ConditionalExplorer

    hidden = ConditionalExplorer(structure="fork", link="fast sine").summary_view().object
    assert "reject H0" in hidden and "a false rejection" in hidden
    plain_chain = ConditionalExplorer(structure="chain").summary_view().object
    assert "keep H0" in plain_chain and "Here the test" not in plain_chain
