"""The tile engine and its settings: thread-count invariance, float32 within tolerance,
per-thread configuration.

Tolerance of float32 (stated once): kernel values are at most 1 for the Gaussian and IMQ
kernels here, and a float32 tile entry carries a relative error of a few ulp (6e-8)
times the scaled squared distance (≤ ~30 for these samples), so one entry is off by
≲ 2e-6 and averages of entries (MMD², KSD², weights) by no more than that; the test allows
2e-5 absolute on quantities of order 1 (Stein kernel values are O(d), scaled likewise).
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import kmeviz as K

RNG = np.random.default_rng(0)
X = RNG.normal(size=(300, 3))
Y = RNG.normal(0.3, 1.0, size=(260, 3))
GAUSS = K.GaussianKernel(1.5)
TARGET = K.NormalTarget(np.zeros(3))


def estimates() -> dict:
    """Every engine-backed estimate of kmeviz, as arrays of float64."""
    ny = K.NystromKME(GAUSS, 40, rng=0).fit(X)
    ksd_full = K.ksd_test(X, TARGET, K.IMQKernel(), n_resamples=50, rng=1)
    ksd_nys = K.ksd_test(X, TARGET, K.IMQKernel(), estimator="nystrom", n_resamples=50, rng=1)
    perm = K.mmd_test(X, Y, GAUSS, n_resamples=300, rng=2)  # 3 chunks of draws
    return {
        "mmd2 biased": K.mmd2(X, Y, GAUSS),
        "mmd2 unbiased": K.mmd2(X, Y, GAUSS, estimator="unbiased"),
        "mmd2 laplace": K.mmd2(X, Y, K.LaplaceKernel(1.0)),
        "permutation null": perm.null_samples,
        "nystrom weights": ny.weights_,
        "nystrom evaluate": ny.evaluate(Y[:50]),
        "nystrom mmd2": K.mmd2_nystrom(X, Y, GAUSS, n_landmarks=30, rng=3),
        "ksd2": K.ksd2(X, TARGET, K.IMQKernel()),
        "ksd full null": ksd_full.null_samples,
        "ksd nystrom": np.append(ksd_nys.null_samples, ksd_nys.statistic),
        "fastmmd": K.mmd2_fastmmd(X, Y, GAUSS, n_features=64, rng=4),
        "spectrum": K.gram_spectrum(X, GAUSS, n_landmarks=30, max_exact=100, rng=5)[:10],
        "herding": K.KernelHerding(GAUSS, 8, rng=0).fit(X).points_,
    }


def test_values_do_not_depend_on_the_thread_count():
    with K.config_context(n_threads=1, tile_rows=64):  # several tiles, so threads matter
        one = estimates()
    with K.config_context(n_threads=2, tile_rows=64):
        two = estimates()
    for name in one:
        np.testing.assert_array_equal(one[name], two[name], err_msg=name)


def test_float32_stays_within_the_stated_tolerance_of_float64():
    reference = estimates()
    with K.config_context(dtype="float32"):
        single = estimates()
    # the weights α = K_m⁺β are as ill-conditioned as K_m; the embedding they define is not
    ny64 = K.NystromKME(GAUSS, 40, rng=0).fit(X)
    with K.config_context(dtype="float32"):
        ny32 = K.NystromKME(GAUSS, 40, rng=0).fit(X)
    assert ny32.distance(ny64) < 2e-5 * np.sqrt(ny64.squared_norm())
    del reference["nystrom weights"]
    for name, value in reference.items():
        scale = 30.0 if name.startswith("ksd") else 1.0
        np.testing.assert_allclose(single[name], value, rtol=1e-4, atol=2e-5 * scale,
                                   err_msg=name)
        assert np.asarray(single[name]).dtype == np.float64, name  # accumulated in float64


def test_float32_is_really_used():
    with K.config_context(dtype="float32"):
        a = K.mmd2(X, Y, GAUSS)
    assert a != K.mmd2(X, Y, GAUSS)  # a float64 pass would agree to the last bit


def test_tiles_equal_the_dense_gram_whatever_the_tile_size():
    dense = GAUSS(X, Y).sum()
    for rows in (7, 64, 512):
        with K.config_context(tile_rows=rows, n_threads=2):
            total, _ = GAUSS.gram_sum(X, Y)
        assert total == pytest.approx(dense, rel=1e-12)


def test_config_is_per_thread_and_checked():
    seen = {}

    def other_session():
        seen["dtype"] = K.get_config()["dtype"]

    with K.config_context(dtype="float32"):
        worker = threading.Thread(target=other_session)
        worker.start()
        worker.join()
        assert K.get_config()["dtype"] == "float32"
    assert seen["dtype"] == "float64"  # a context in one thread does not leak into another
    assert K.get_config()["dtype"] == "float64"
    assert K.get_config()["n_threads"] >= 1 and K.get_config()["tile_rows"] == 512
    with pytest.raises(ValueError, match="dtype"):
        K.set_config(dtype="float16")
    with pytest.raises(ValueError, match="n_threads"):
        K.config_context(n_threads=0).__enter__()
    before = K.get_config()
    K.set_config(tile_rows=256)
    try:
        assert K.get_config()["tile_rows"] == 256
    finally:
        K.set_config(tile_rows=before["tile_rows"])


def test_working_memory_from_the_config_bounds_the_passes(monkeypatch):
    """config_context(working_memory=...) reaches estimators that were given none: the
    KSD² pass (row blocks against the whole sample, 6 tile temporaries of 8 bytes) uses
    blocks of working_memory / (6 · 8 · n) rows, and the value does not change."""
    Z = RNG.normal(size=(4000, 10))
    target = K.NormalTarget(np.zeros(10))
    rows = []
    original = K.SteinKernel.tile_into

    def spy(self, a, b, out):
        rows.append(out.shape[0])
        return original(self, a, b, out)

    monkeypatch.setattr(K.SteinKernel, "tile_into", spy)
    with K.config_context(working_memory=2**20):
        small = K.ksd2(Z, target, K.IMQKernel())
    assert max(rows) == 2**20 // (6 * 8 * 4000)  # 5 rows: 6 × 5 × 4000 × 8 B < 1 MiB
    rows.clear()
    default = K.ksd2(Z, target, K.IMQKernel())
    assert max(rows) == 2**25 // 6 // (8 * 4000)  # 174 rows under the 32 MiB default
    assert small == pytest.approx(default, rel=1e-12)


def test_a_block_inside_another_keeps_the_outer_limit_and_blas_comes_back_after():
    """Nested (or overlapping, same thread order) blocks: the inner one finds BLAS at one
    thread and leaves it alone, so the outer limit holds to its end and BLAS then has its
    threads back (an inner restore used to lift the outer limit or pin BLAS at 1)."""
    from threadpoolctl import ThreadpoolController, threadpool_limits

    from kmeviz.kernels.engine import single_threaded_blas

    def blas_threads():
        libs = ThreadpoolController().select(user_api="blas").lib_controllers
        return max((lib.num_threads for lib in libs), default=1)

    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        with single_threaded_blas():
            with single_threaded_blas():
                assert blas_threads() == 1
            assert blas_threads() == 1
        assert blas_threads() == before == 2


def test_a_block_leaves_blas_alone_where_it_already_runs_one_thread(monkeypatch):
    """Under ``kmeviz serve --compute-threads 1`` BLAS runs one thread: a block then makes
    no call into the library (none to race another thread's BLAS call)."""
    from threadpoolctl import ThreadpoolController, threadpool_limits

    from kmeviz.kernels import engine

    with threadpool_limits(limits=1, user_api="blas"), engine.single_threaded_blas():
        pass  # the controller exists now
    monkeypatch.setattr(ThreadpoolController, "limit", lambda *a, **k: 1 / 0)
    with threadpool_limits(limits=1, user_api="blas"), engine.single_threaded_blas():
        pass
