"""Dask arrays in the linear-time estimators, and the runners on any executor (issue 14).

Oracle: the numpy path on the same data and seed. Chunked sums are added in another order
than the engine's tiles, so values agree to round-off; 1e-10 relative is the promise (the
observed differences are about 1e-15, 1e-13 for the Nyström MMD, a difference of norms).
Everything dask computes here runs on a two-process ``LocalCluster``.
"""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import textwrap
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd
import pytest

import kmeviz as K
import kmeviz.experiments  # noqa: F401  (K.experiments)
from kmeviz.chunked import lazy_sample
from kmeviz.gof.ksd import nystrom_stein
from kmeviz.gof.ksd_tests import WildSigns

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

RTOL = 1e-10


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, host="127.0.0.1") as cluster, \
            distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def samples():
    g = np.random.default_rng(0)
    X, Y = g.normal(size=(3001, 3)), g.normal(0.15, 1.0, size=(2400, 3))
    # uneven row chunks, and Y split across columns too (rechunked to whole rows)
    return X, Y, da.from_array(X, chunks=(701, 3)), da.from_array(Y, chunks=(555, 2))


def close(a, b):
    np.testing.assert_allclose(b, a, rtol=RTOL, atol=0)


def test_nystrom_kme_on_chunks_equals_numpy(client, samples):
    X, _, Xd, _ = samples
    kernel = K.GaussianKernel(1.0)
    a = K.NystromKME(kernel, 60, rng=1).fit(X)
    b = K.NystromKME(kernel, 60, rng=1).fit(Xd)
    np.testing.assert_array_equal(a.landmark_indices_, b.landmark_indices_)
    np.testing.assert_array_equal(a.landmarks_, b.landmarks_)
    close(a.mean_map_, b.mean_map_)
    close(a.weights_, b.weights_)
    close(a.squared_norm(), b.squared_norm())
    W = np.random.default_rng(2).normal(size=(X.shape[0], 5))
    # the K_mn W of the Nyström KSD bootstrap's pass, with a dask W (kmeviz.gof.nystrom_stein)
    target = K.NormalTarget(np.zeros(X.shape[1]))
    a = nystrom_stein(X, target, K.IMQKernel(), n_landmarks=60, rng=1, project=W)
    b = nystrom_stein(Xd, target, K.IMQKernel(), n_landmarks=60, rng=1,
                      project=da.from_array(W, chunks=(1000, 5)))
    close(a.projected_, b.projected_)


@pytest.mark.parametrize("method", ["fourier", "fastfood"])
@pytest.mark.parametrize("algorithm", ["features", "amplitude"])
@pytest.mark.parametrize("estimator", ["biased", "unbiased"])
def test_fastmmd_on_chunks_equals_numpy(client, samples, method, algorithm, estimator):
    X, Y, Xd, Yd = samples
    kw = dict(n_features=256, features=method, algorithm=algorithm, estimator=estimator, rng=3)
    close(K.mmd2_fastmmd(X, Y, K.GaussianKernel(1.0), **kw),
          K.mmd2_fastmmd(Xd, Yd, K.GaussianKernel(1.0), **kw))


def test_random_feature_kme_on_chunks_equals_numpy(client, samples):
    X, _, Xd, _ = samples
    a = K.RandomFeatureKME(K.GaussianKernel(1.0), 100, rng=4).fit(X)
    b = K.RandomFeatureKME(K.GaussianKernel(1.0), 100, rng=4).fit(Xd)
    close(a.mean_features_, b.mean_features_)


@pytest.mark.parametrize("mixed", [False, True])
def test_linear_block_and_nystrom_mmd_on_chunks_equal_numpy(client, samples, mixed):
    X, Y, Xd, Yd = samples
    Yd = Y if mixed else Yd  # a dask X with an in-memory Y works too
    kernel = K.GaussianKernel(1.0)
    close(K.mmd2_linear(X, Y, kernel), K.mmd2_linear(Xd, Yd, kernel))
    for block_size in (None, 7, 300):
        close(K.mmd2_block(X, Y, kernel, block_size=block_size),
              K.mmd2_block(Xd, Yd, kernel, block_size=block_size))
    close(K.mmd2_nystrom(X, Y, kernel, n_landmarks=50, rng=5),
          K.mmd2_nystrom(Xd, Yd, kernel, n_landmarks=50, rng=5))


@pytest.mark.parametrize("estimator, null", [("linear", "normal"), ("block", "normal"),
                                             ("pooled-nystrom", "spectral")])
def test_mmd_tests_on_chunks_equal_numpy(client, samples, estimator, null):
    X, Y, Xd, Yd = samples
    kw = dict(estimator=estimator, null=null, n_landmarks=80, n_resamples=300, rng=6)
    a = K.mmd_test(X, Y, K.GaussianKernel(1.0), **kw)
    b = K.mmd_test(Xd, Yd, K.GaussianKernel(1.0), **kw)
    close(a.statistic, b.statistic)
    close(a.p_value, b.p_value)
    if a.null_samples is not None:
        close(a.null_samples, b.null_samples)
    else:
        close(a.null_params["scale"], b.null_params["scale"])


def test_nystrom_ksd_and_its_bootstrap_on_chunks_equal_numpy(client):
    X = np.random.default_rng(7).laplace(scale=1 / np.sqrt(2), size=(4001, 3))
    Xd = da.from_array(X, chunks=(900, 3))
    target, kernel = K.NormalTarget(np.zeros(3)), K.IMQKernel()
    close(K.ksd2_nystrom(X, target, kernel, rng=1), K.ksd2_nystrom(Xd, target, kernel, rng=1))
    a = K.ksd_test(X, target, kernel, estimator="nystrom", n_resamples=200, rng=2)
    b = K.ksd_test(Xd, target, kernel, estimator="nystrom", n_resamples=200, rng=2)
    close(a.statistic, b.statistic)
    close(a.null_samples, b.null_samples)
    assert a.p_value == b.p_value and b.reject


def test_sign_rows_do_not_depend_on_how_they_are_asked_for():
    signs = WildSigns(30, np.random.default_rng(8))
    whole = signs.rows(0, 10_000)
    np.testing.assert_array_equal(np.vstack([signs.rows(a, b) for a, b in
                                             [(0, 1), (1, 4097), (4097, 9000), (9000, 10_000)]]),
                                  whole)
    again = WildSigns(30, np.random.default_rng(8))
    np.testing.assert_array_equal(np.vstack([again.take(k) for k in (700, 5000, 4300)]), whole)
    assert set(np.unique(whole)) == {-1.0, 1.0}
    assert abs(whole.mean()) < 0.01  # 3e5 fair signs: sd of the mean 0.0018
    chain = WildSigns(30, np.random.default_rng(8), flip_probability=0.2)
    with pytest.raises(ValueError, match="take"):
        chain.rows(0, 10)


def test_quadratic_estimators_refuse_dask_arrays_and_name_the_alternatives(samples):
    X, Y, Xd, Yd = samples
    kernel = K.GaussianKernel(1.0)
    with pytest.raises(TypeError, match="mmd2_nystrom, mmd2_fastmmd, mmd2_linear"):
        K.mmd2(Xd, Yd, kernel)
    with pytest.raises(TypeError, match="null='spectral'"):
        K.mmd_test(Xd, Y, kernel)
    with pytest.raises(TypeError, match="null='spectral'"):
        K.mmd_test(Xd, Yd, kernel, estimator="pooled-nystrom", null="permutation")
    target = K.NormalTarget(np.zeros(3))
    with pytest.raises(TypeError, match="ksd2_nystrom"):
        K.ksd2(Xd, target, kernel)
    with pytest.raises(TypeError, match="ksd_test.estimator='nystrom'"):
        K.ksd_test(Xd, target, kernel, estimator="full")
    with pytest.raises(TypeError, match="X is a dask array.*NystromKME"):
        K.EmpiricalKME(kernel).fit(Xd)


def test_bad_chunks_are_named(client, samples):
    X = samples[0].copy()
    X[2000, 1] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        K.NystromKME(K.GaussianKernel(1.0), 10, rng=0).fit(da.from_array(X, chunks=700))
    with pytest.raises(ValueError, match="2-D"):
        K.mmd2_linear(da.zeros(10), da.zeros(10), K.GaussianKernel(1.0))
    with pytest.raises(ValueError, match="same dimension"):
        K.mmd2_linear(da.zeros((10, 2)), da.zeros((10, 3)), K.GaussianKernel(1.0))


def test_lazy_sample_is_the_same_draw_whatever_computes_it(client):
    draw = K.GaussianMixture(np.zeros((1, 2)), np.ones(1), np.ones(1)).sample
    X = lazy_sample(lambda k, g: draw(k, rng=g), 2500, dim=2, chunk_rows=1000, rng=9)
    assert X.chunks == ((1000, 1000, 500), (2,))
    local = X.compute(scheduler="sync")
    np.testing.assert_array_equal(client.compute(X).result(), local)
    np.testing.assert_array_equal(X[1000:2000].compute(), local[1000:2000])  # chunk alone
    assert not np.array_equal(local[:1000], local[1000:2000])  # chunks have their own seeds
    with pytest.raises(ValueError, match="draw returned shape"):
        lazy_sample(lambda k, g: g.normal(size=(k, 3)), 10, dim=2, rng=0).compute()


# ---- runners on executors -------------------------------------------------------------

def timing_free(df: pd.DataFrame) -> pd.DataFrame:
    """The table without its wall-clock column, which no two runs share."""
    return df.drop(columns=[c for c in df.columns if c.startswith("runtime")])


RUNNERS = {
    "size_table": lambda **kw: K.experiments.size_table(
        n=60, n_repeats=8, n_resamples=49, rng=0,
        pairs=[("biased", "permutation"), ("linear", "normal"),
               ("pooled-nystrom", "spectral")], **kw),
    "type2_vs_epsilon": lambda **kw: K.experiments.type2_vs_epsilon(
        (1.5, 3.0), n=80, n_repeats=4, n_resamples=49, n_features=32, rng=1, **kw),
    "fastmmd_type2_vs_L": lambda **kw: K.experiments.fastmmd_type2_vs_L(
        (2, 16), n=80, n_repeats=4, n_resamples=49, rng=2, **kw),
    "ksd_power": lambda **kw: K.experiments.ksd_power(
        "laplace", [2], n=100, n_repeats=6, n_resamples=50, rng=3, **kw),
    "nystrom_error_vs_m": lambda **kw: K.experiments.nystrom_error_vs_m(
        ns=(300,), ms=(5, 20), d=2, n_repeats=3, baselines=("uniform", "rff"), rng=4, **kw),
    "sparsity_path": lambda **kw: K.experiments.sparsity_path(
        n_train=40, n_test=60, gammas=(1e-1, 1e-3), ranks=(4, 10), rng=5, **kw),
    "ksd_runtime_vs_n": lambda **kw: K.experiments.ksd_runtime_vs_n(
        [40, 80], d=2, n_repeats=1, n_resamples=20, rng=6, **kw),
}


@pytest.fixture(scope="module")
def process_pool():
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield pool


@pytest.mark.parametrize("name", sorted(RUNNERS))
def test_every_runner_gives_the_same_table_on_every_executor(name, client, process_pool):
    run = RUNNERS[name]
    calls = []
    serial = timing_free(run(progress=lambda done, total: calls.append((done, total))))
    assert len(serial) > 0 and calls and calls[-1][0] == calls[-1][1]
    pooled = timing_free(run(executor=process_pool))
    on_dask = timing_free(run(executor=client.get_executor()))
    pd.testing.assert_frame_equal(pooled, serial)
    pd.testing.assert_frame_equal(on_dask, serial)


def test_progress_arrives_from_an_executor(client):
    calls = []
    K.experiments.ksd_power("null", [2], n=50, n_repeats=5, n_resamples=20, rng=0,
                            executor=client.get_executor(),
                            progress=lambda done, total: calls.append((done, total)))
    assert calls == [(k, 5) for k in range(1, 6)]


def test_an_unpicklable_sampler_on_a_process_pool_is_explained(process_pool):
    tests = {"linear": {"kernel": K.GaussianKernel(1.0), "estimator": "linear",
                        "null": "normal"}}
    with pytest.raises(TypeError, match="pickle"):
        K.experiments.rejection_rates(lambda g: (g.normal(size=(20, 1)),) * 2, tests,
                                      n_repeats=2, executor=process_pool)
    with pytest.raises(TypeError, match="executor"):
        K.experiments.rejection_rates(lambda g: None, tests, n_repeats=2, executor="dask")


def test_without_dask_the_core_imports_and_dask_calls_name_the_extra():
    """dask blocked at import: kmeviz and the numpy paths work, and a dask-only call says
    which extra to install."""
    script = textwrap.dedent("""
        import sys
        for name in ("dask", "distributed"):
            sys.modules[name] = None  # import dask -> ImportError
        import numpy as np
        import kmeviz as K
        import kmeviz.experiments, kmeviz.chunked
        X = np.random.default_rng(0).normal(size=(200, 2))
        k = K.GaussianKernel(1.0)
        assert K.mmd_test(X, X + 1, k, n_resamples=99, rng=0).reject
        assert K.NystromKME(k, 20, rng=0).fit(X).squared_norm() > 0
        assert not K.chunked.is_dask_array(X)
        try:
            K.chunked.lazy_sample(lambda n, g: g.normal(size=(n, 2)), 10, dim=2)
        except ImportError as exc:
            print(exc)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "lazy_sample needs dask" in out.stdout and "pip install 'kmeviz[dask]'" in out.stdout


def test_nystrom_kci_on_a_cluster_equals_numpy(client):
    """Issue 41: the Nyström conditional independence test reads dask chunks on a
    two-process cluster and gives the numpy answer."""
    from kmeviz.distributions.causal import causal_structure

    X, Y, Z = causal_structure("collider", 3001, d_z=3, rng=4)
    chunked = [da.from_array(V, chunks=(701, V.shape[1])) for V in (X, Y, Z)]
    for null in ("gamma", "spectral"):
        a = K.ci_test(X, Y, Z, estimator="nystrom", null=null, rng=5)
        b = K.ci_test(*chunked, estimator="nystrom", null=null, rng=5)
        # the regression on Z divides by eigenvalues of C_ZZ down to the ridge ε/n ≈ 3e-7:
        # chunk sums added in another order agree to ~1e-10 relative, so 1e-8 here
        np.testing.assert_allclose(b.statistic, a.statistic, rtol=1e-8)
        np.testing.assert_allclose(b.p_value, a.p_value, rtol=1e-8, atol=1e-12)
    # RCoT's default bandwidths read a dask sample's first rows (a numpy one: a seeded
    # subsample), so the same kernels are given
    gaussians = {f"kernel_{v}": K.GaussianKernel(1.0) for v in "xyz"}
    c = K.ci_test(*chunked, estimator="rcot", rng=5, **gaussians)
    d = K.ci_test(X, Y, Z, estimator="rcot", rng=5, **gaussians)
    np.testing.assert_allclose(c.statistic, d.statistic, rtol=1e-8)
