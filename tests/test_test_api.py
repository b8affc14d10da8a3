"""One test API: mmd_test and ksd_test share argument names and return one schema."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

import kmeviz as K

FIELDS = {"statistic", "p_value", "threshold", "reject", "alpha", "null_samples", "estimator",
          "null", "null_params", "runtime", "fitted", "kernel", "null_dist", "spec"}
TARGET = K.NormalTarget(np.zeros(2))


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    return rng.normal(size=(60, 2)), rng.normal(0.5, 1.0, size=(50, 2))


def every_test(X, Y):
    for estimator, nulls in K.VALID_NULLS.items():
        for null in nulls:
            needs = K.MMD_TESTS.get(estimator, null).needs
            n = Y.shape[0] if K.Needs.EQUAL_SIZES in needs else X.shape[0]  # n_X = n_Y
            kernel = None if K.Needs.KERNEL_COLLECTION in needs else K.GaussianKernel(1.0)
            yield K.mmd_test(X[:n], Y, kernel, estimator=estimator, null=null,
                             n_resamples=19, n_features=16, rng=0)
    for method in ("full", "nystrom", "linear", "fssd"):
        yield K.ksd_test(X, TARGET, K.IMQKernel(), estimator=method, n_resamples=19, rng=0)
    yield K.ksd_test(X, TARGET, estimator="ksdagg", n_resamples=19, rng=0)


def test_every_result_has_the_same_fields_and_runtime_keys(data):
    for res in every_test(*data):
        assert {f.name for f in dataclasses.fields(res)} == FIELDS
        assert set(res.runtime) == {"statistic", "null", "total"} and res.runtime["total"] > 0
        assert isinstance(res.estimator, str) and isinstance(res.null, str)
        assert res.reject == (res.p_value <= res.alpha)
        assert "landmarks" not in res.null_params and "weights" not in res.null_params
        # plain numbers and arrays only: the null's distribution object is ``null_dist``
        assert all(isinstance(v, (int, float, np.number, np.ndarray))
                   for v in res.null_params.values()), res.null_params
        assert res.spec is not None and (res.spec.estimator, res.spec.null) == (
            res.estimator, res.null)
        assert pickle.loads(pickle.dumps(res)).spec is res.spec  # pickles by its key


def test_nystrom_ksd_exposes_what_it_fitted(data):
    X, _ = data
    res = K.ksd_test(X, TARGET, K.IMQKernel(), estimator="nystrom", n_landmarks=12, rng=0)
    # and the check of the rows' order made before its i.i.d. null
    assert set(res.fitted) == {"landmarks", "weights", "embedding", "serial_dependence"}
    assert res.fitted["landmarks"].shape == res.fitted["weights"].shape == (12,)
    grid = np.linspace(-2, 2, 7)[:, None] * np.ones((1, 2))
    witness = K.stein_witness(X[res.fitted["landmarks"]], TARGET, K.IMQKernel(), grid,
                              weights=res.fitted["weights"])
    np.testing.assert_allclose(res.fitted["embedding"].evaluate(grid), witness, rtol=1e-10)
    assert res.fitted["embedding"].squared_norm() == pytest.approx(res.statistic, rel=1e-12)
    assert (res.estimator, res.null) == ("nystrom", "nystrom-bootstrap")


def test_a_degenerate_linear_null_raises_the_same_way_in_both():
    X = np.zeros((3, 2))  # one pair of summands only: no variance to estimate
    with pytest.raises(ValueError, match="normal null needs at least 2"):
        K.mmd_test(X, X + 1.0, K.GaussianKernel(1.0), estimator="linear", null="normal")
    with pytest.raises(ValueError, match="normal null needs at least 2"):
        K.ksd_test(X, TARGET, K.IMQKernel(), estimator="linear")


def test_shared_argument_names_are_keyword_only(data):
    X, Y = data
    with pytest.raises(TypeError):
        K.mmd_test(X, Y, K.GaussianKernel(1.0), "biased")  # options are keyword-only
    with pytest.raises(TypeError):
        K.ksd_test(X, TARGET, K.IMQKernel(), "full")


def test_ksd_test_validates_its_sample_before_any_test_runs():
    """Public entry points validate (issue 39): ``ksd_test`` names X for a bad sample,
    whichever registered test was asked for."""
    bad = np.ones((10, 2))
    bad[3, 1] = np.nan
    for estimator in K.GOF_TESTS.estimators:
        with pytest.raises(ValueError, match="X"):
            K.ksd_test(bad, TARGET, estimator=estimator, n_resamples=19, rng=0)
    with pytest.raises(ValueError, match="X needs at least 2 samples"):
        K.ksd_test(np.zeros((1, 2)), TARGET, rng=0)
