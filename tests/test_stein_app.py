"""Stein explorer logic without a browser: every view renders, errors are readable."""

import holoviews as hv
import panel as pn
import pytest
from kmeviz_apps import stein_explorer as se

VIEWS = ("target_view", "witness_view", "null_full_view", "null_nystrom_view", "summary_view")


@pytest.mark.parametrize("dimension", [1, 2])
@pytest.mark.parametrize("target", se.TARGETS)
def test_every_view_renders_for_every_target(dimension, target):
    app = se.SteinExplorer(dimension=dimension, target=target, n=120, n_landmarks=20,
                           n_resamples=50)
    for name in VIEWS:
        out = getattr(app, name)()
        assert not isinstance(out, pn.pane.Alert), (name, getattr(out, "object", ""))


@pytest.mark.parametrize("sampler", se.SAMPLERS)
def test_every_sampler_and_kernel(sampler):
    for kernel in se.KERNEL_NAMES:
        app = se.SteinExplorer(sampler=sampler, kernel=kernel, n=100, n_landmarks=10,
                               n_resamples=30)
        assert "kmeviz-p-full" in app.summary_view().object


def test_the_target_itself_is_not_rejected_and_a_shift_is():
    kept = se.SteinExplorer(sampler=se.SAMPLERS[0], n=500, seed=3)
    shifted = se.SteinExplorer(sampler=se.SAMPLERS[1], strength=1.0, n=500, seed=3)
    assert kept._tests()[0].p_value > 0.05
    assert shifted._tests()[0].p_value < 0.01 and shifted._tests()[1].p_value < 0.01


@pytest.mark.parametrize("setting, message", [
    ({"imq_beta": 0.5}, "beta"), ({"imq_c": 0.0}, "c must be > 0"),
    ({"kernel": "Gaussian", "bandwidth": 0.0}, "bandwidth must be > 0"),
])
def test_bad_kernel_settings_give_messages_and_recover(setting, message):
    app = se.SteinExplorer(n=100, n_landmarks=10, n_resamples=30)
    app.param.update(**setting)
    out = app.null_full_view()
    assert isinstance(out, pn.pane.Alert) and message in out.object
    app.param.update(imq_beta=-0.5, imq_c=1.0, bandwidth=1.0)
    out = app.null_full_view()
    assert isinstance(out, hv.DynamicMap) and isinstance(out[()], hv.Overlay)


def test_alpha_moves_the_thresholds_in_place_without_recomputing_the_witness():
    """α is a stream of the null DynamicMaps (title and threshold move, same plot), and
    the witness view does not depend on it (issue 13: 'its witness view must be cached')."""
    app = se.SteinExplorer(n=100, n_landmarks=10, n_resamples=30)
    null = app.null_full_view()
    hv.renderer("bokeh").get_plot(null)
    app.witness_view()
    misses = se.witnesses.cache_info().misses
    deps = app.param.method_dependencies("witness_view")
    assert "alpha" not in {d.name for d in deps}
    app.alpha = 0.2
    title = null[()].opts.get().kwargs["title"]
    assert "α = 0.2" in title
    app.witness_view()
    assert se.witnesses.cache_info().misses == misses


def test_alpha_step_reruns_no_test_and_matches_a_direct_run():
    import kmeviz as K

    app = se.SteinExplorer()
    app._tests()
    misses = se.run_tests.cache_info().misses
    app.alpha = 0.1
    full, nys, _ = app._tests()
    assert se.run_tests.cache_info().misses == misses  # only the threshold moved
    X = se.make_sample(*app.data_key)
    target = se.make_target(app.data_key[0], app.data_key[2])
    direct = K.ksd_test(X, target, se.make_kernel(app.kernel_key), estimator="full",
                        n_resamples=app.n_resamples, alpha=0.1, rng=app.data_key[-1] + 1)
    assert (full.threshold, full.reject, full.alpha) == (direct.threshold, direct.reject, 0.1)
