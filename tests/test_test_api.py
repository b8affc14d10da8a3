"""One test API: mmd_test and ksd_test share argument names and return one schema."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import warnings

import numpy as np
import pytest

import kmeviz as K
from kmeviz import results
from kmeviz.experiments import fastmmd_type2_vs_L, ksd_power
from kmeviz.gof.ksd import NystromStein, nystrom_stein

FIELDS = {"statistic", "p_value", "threshold", "reject", "alpha", "null_samples", "method",
          "null", "null_params", "runtime", "fitted"}
TARGET = K.NormalTarget(np.zeros(2))


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    return rng.normal(size=(60, 2)), rng.normal(0.5, 1.0, size=(50, 2))


def every_test(X, Y):
    for estimator, nulls in K.VALID_NULLS.items():
        for null in nulls:
            n = Y.shape[0] if null == "pearson" else X.shape[0]  # Pearson: equal sizes
            yield K.mmd_test(X[:n], Y, K.GaussianKernel(1.0), estimator=estimator, null=null,
                             n_resamples=19, n_features=16, rng=0)
    for method in ("full", "nystrom", "linear", "fssd"):
        yield K.ksd_test(X, TARGET, K.IMQKernel(), method=method, n_resamples=19, rng=0)


def test_every_result_has_the_same_fields_and_runtime_keys(data):
    for res in every_test(*data):
        assert {f.name for f in dataclasses.fields(res)} == FIELDS
        assert set(res.runtime) == {"statistic", "null", "total"} and res.runtime["total"] > 0
        assert isinstance(res.method, str) and isinstance(res.null, str)
        assert res.reject == (res.p_value <= res.alpha)
        assert "landmarks" not in res.null_params and "weights" not in res.null_params


def test_nystrom_ksd_exposes_what_it_fitted(data):
    X, _ = data
    res = K.ksd_test(X, TARGET, K.IMQKernel(), method="nystrom", n_landmarks=12, rng=0)
    assert set(res.fitted) == {"landmarks", "weights", "embedding"}
    assert res.fitted["landmarks"].shape == res.fitted["weights"].shape == (12,)
    grid = np.linspace(-2, 2, 7)[:, None] * np.ones((1, 2))
    witness = K.stein_witness(X[res.fitted["landmarks"]], TARGET, K.IMQKernel(), grid,
                              weights=res.fitted["weights"])
    np.testing.assert_allclose(res.fitted["embedding"].evaluate(grid), witness, rtol=1e-10)
    assert res.fitted["embedding"].squared_norm() == pytest.approx(res.statistic, rel=1e-12)
    assert (res.method, res.null) == ("nystrom", "nystrom-bootstrap")


def test_a_degenerate_linear_null_raises_the_same_way_in_both():
    X = np.zeros((3, 2))  # one pair of summands only: no variance to estimate
    with pytest.raises(ValueError, match="normal null needs at least 2"):
        K.mmd_test(X, X + 1.0, K.GaussianKernel(1.0), estimator="linear", null="normal")
    with pytest.raises(ValueError, match="normal null needs at least 2"):
        K.ksd_test(X, TARGET, K.IMQKernel(), method="linear")


def test_shared_argument_names_are_keyword_only(data):
    X, Y = data
    with pytest.raises(TypeError):
        K.mmd_test(X, Y, K.GaussianKernel(1.0), "biased")  # options are keyword-only
    with pytest.raises(TypeError):
        K.ksd_test(X, TARGET, K.IMQKernel(), "full")


@pytest.mark.parametrize("old, new", [
    (lambda X, Y: K.mmd_test(X, Y, K.GaussianKernel(1.0), n_permutations=19, rng=0),
     lambda X, Y: K.mmd_test(X, Y, K.GaussianKernel(1.0), n_resamples=19, rng=0)),
    (lambda X, Y: K.ksd_test(X, TARGET, K.IMQKernel(), n_bootstrap=19, rng=0),
     lambda X, Y: K.ksd_test(X, TARGET, K.IMQKernel(), n_resamples=19, rng=0)),
    (lambda X, Y: K.ksd2(X, TARGET, K.IMQKernel(), estimator="u"),
     lambda X, Y: K.ksd2(X, TARGET, K.IMQKernel(), estimator="unbiased")),
    (lambda X, Y: K.mmd_nystrom(X, Y, K.GaussianKernel(1.0), n_landmarks=20, rng=0) ** 2,
     lambda X, Y: K.mmd2_nystrom(X, Y, K.GaussianKernel(1.0), n_landmarks=20, rng=0)),
    (lambda X, Y: K.mmd_test(X, Y, K.GaussianKernel(1.0), n_resamples=9, rng=0).estimator,
     lambda X, Y: K.mmd_test(X, Y, K.GaussianKernel(1.0), n_resamples=9, rng=0).method),
    (lambda X, Y: K.GaussianMixtureTarget([[0.0, 0.0], [1.0, 1.0]], [0.5, 2.0], [1, 3]).score(X),
     lambda X, Y: K.GaussianMixture([[0.0, 0.0], [1.0, 1.0]], [0.25, 4.0], [0.25, 0.75]).score(X)),
    (lambda X, Y: ksd_power("null", [2], n=30, n_repeats=1, n_bootstrap=9, rng=0).rate,
     lambda X, Y: ksd_power("null", [2], n=30, n_repeats=1, n_resamples=9, rng=0).rate),
    (lambda X, Y: K.KernelHerding(K.GaussianKernel(1.0), n_points=4).fit(X).points_,
     lambda X, Y: K.KernelHerding(K.GaussianKernel(1.0), n_landmarks=4).fit(X).points_),
    (lambda X, Y: NystromStein(X, TARGET, K.IMQKernel(), n_landmarks=9, rng=0).statistic,
     lambda X, Y: nystrom_stein(X, TARGET, K.IMQKernel(), n_landmarks=9, rng=0).squared_norm()),
    (lambda X, Y: fastmmd_type2_vs_L(Ls=(2,), n=20, n_trials=2, n_resamples=9, rng=0).rejections,
     lambda X, Y: fastmmd_type2_vs_L(Ls=(2,), n=20, n_repeats=2, n_resamples=9, rng=0).rejections),
    (lambda X, Y: K.Pendulum().transitions(5, 3)[1],
     lambda X, Y: K.Pendulum().transitions(5, rng=3)[1]),
])
def test_old_names_still_work_and_warn_once(old, new, data, monkeypatch):
    monkeypatch.setattr(results, "_WARNED", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first, second = old(*data), old(*data)
        expected = new(*data)
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert len(deprecations) == 1, [str(w.message) for w in deprecations]
    assert deprecations[0].filename == __file__  # it points at the caller's line
    for value in (first, second):
        if isinstance(value, K.TestResult):
            assert value.p_value == expected.p_value and value.statistic == expected.statistic
        elif isinstance(value, str):
            assert value == expected
        else:
            np.testing.assert_allclose(value, expected, rtol=1e-12)


def test_old_and_new_name_together_is_an_error(data):
    X, Y = data
    with pytest.raises(TypeError, match="n_resamples"):
        K.mmd_test(X, Y, K.GaussianKernel(1.0), n_resamples=9, n_permutations=9)


def test_old_module_paths_still_import_and_warn_once():
    """``kmeviz.bootstrap`` and the other pre-layout modules resolve to their new homes."""
    code = ("import warnings; warnings.simplefilter('always'); "
            "import kmeviz.bootstrap as old, kmeviz.stein, kmeviz.gof_experiments; "
            "from kmeviz.conditional import sparsity_path; "
            "import kmeviz.twosample.test as new; print(old is new, old.mmd_test is new.mmd_test)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert run.stdout.split() == ["True", "True"]
    warned = [line for line in run.stderr.splitlines() if "DeprecationWarning" in line]
    assert len(warned) == 4 and all(line.startswith("<string>:1:") for line in warned), warned
