"""Every registered test's result draws its null view (issue 44: the aggregated tests'
``AggregatedNull`` has no density, so ``null_histogram`` draws its B2 simulated values)."""

import numpy as np
import pytest

import kmeviz as K

hv = pytest.importorskip("holoviews")
from kmeviz import viz  # noqa: E402

hv.extension("bokeh", logo=False)


def rendered_title(plot) -> str:
    figure = hv.render(plot, backend="bokeh")
    return figure.title.text


@pytest.fixture(scope="module")
def samples():
    rng = np.random.default_rng(0)
    return rng.normal(size=(60, 2)), rng.normal(size=(60, 2)) + 0.8


@pytest.mark.parametrize("spec", list(K.MMD_TESTS), ids=lambda s: s.name)
def test_every_two_sample_test_draws_its_null(spec, samples):
    result = K.mmd_test(*samples, estimator=spec.estimator, null=spec.null, n_resamples=99,
                        rng=0)
    title = rendered_title(viz.null_histogram(result))
    assert title.startswith("p ") and "α = 0.05" in title
    assert ("B1 = 99, B2 = 99" in title) == ("n_resamples_correction" in result.to_dict())


@pytest.mark.parametrize("spec", list(K.GOF_TESTS), ids=lambda s: s.name)
def test_every_goodness_of_fit_test_draws_its_null(spec, samples):
    result = K.ksd_test(samples[1], K.NormalTarget(np.zeros(2)), estimator=spec.estimator,
                        n_resamples=99, rng=0)
    assert rendered_title(viz.null_histogram(result, statistic="KSD")).startswith("p ")


def test_an_aggregated_null_is_its_simulated_statistics_below_the_saturation(samples):
    result = K.mmd_test(*samples, estimator="mmdagg", n_resamples=99, rng=0)
    null = result.null_distribution()
    replicates = null.replicates()
    assert replicates.shape == (99,) and replicates.max() <= null.saturation
    assert null.saturation == pytest.approx(100 * null.weights.max())
    # the p-value the title shows is the fraction of these at or above the statistic
    assert result.p_value == pytest.approx(np.mean(null.statistic(null.second)
                                                   >= result.statistic))
    assert result.to_dict()["n_resamples"] == 99
    assert result.to_dict()["n_resamples_correction"] == 99


def test_a_p_value_is_never_shown_as_zero():
    from kmeviz.results import p_value_text

    assert p_value_text(0.0, 1000) == "< 0.001"
    assert p_value_text(0.0) == "< 1e-300"
    assert p_value_text(0.01234567) == "0.01235"
    assert p_value_text(float("nan")) == ""
