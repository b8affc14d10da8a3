"""Defaults a user expects, ``compare_tests``/``compare_gof``, a precomputed Gram matrix."""

import numpy as np
import pytest

import kmeviz as K
import kmeviz.compare as compare
from kmeviz.budget import BudgetExceeded


def TABLE_TESTS(registry):  # the tests a comparison's table runs (i.i.d. rows)
    return K.compare.selected_tests(registry, "all")


@pytest.fixture(scope="module")
def pair():
    rng = np.random.default_rng(0)
    return rng.normal(size=(120, 3)), rng.normal(0.4, 1.0, size=(120, 3))


@pytest.mark.parametrize("spec", list(K.MMD_TESTS), ids=lambda s: s.name)
def test_mmd_test_without_a_kernel_is_the_median_heuristic_gaussian(pair, spec):
    X, Y = pair
    if K.Needs.NO_KERNEL in spec.needs:  # a statistic without a kernel: it reports none
        assert K.mmd_test(X, Y, estimator=spec.estimator, null=spec.null, n_resamples=9,
                          rng=3).kernel is None
        return
    collection = K.Needs.KERNEL_COLLECTION in spec.needs  # MMDAgg: the authors' collection
    own = spec.default_kernel or K.mmdagg_kernels  # the test's own collection
    explicit = own(X, Y) if collection else K.GaussianKernel(K.median_heuristic(X, Y))
    a = K.mmd_test(X, Y, estimator=spec.estimator, null=spec.null, n_resamples=99, rng=3)
    b = K.mmd_test(X, Y, explicit, estimator=spec.estimator, null=spec.null,
                   n_resamples=99, rng=3)
    assert a.statistic == b.statistic and a.p_value == b.p_value
    assert repr(a.kernel) == repr(explicit) and a.kernel == explicit


def test_the_default_bandwidth_is_a_function_of_the_data():
    """Over 1000 points the heuristic subsamples, with a fixed seed by default."""
    Z = np.random.default_rng(1).normal(size=(3000, 2))
    assert K.median_heuristic(Z) == K.median_heuristic(Z) == K.median_heuristic(Z, rng=0)
    assert K.mmd_test(Z[:1500], Z[1500:], estimator="linear", null="normal").kernel.bandwidth \
        == K.median_heuristic(Z[:1500], Z[1500:])


@pytest.mark.parametrize("estimator", K.GOF_TESTS.estimators)
def test_ksd_test_without_a_kernel_is_imq_or_the_median_gaussian(pair, estimator):
    X = pair[0]
    target = K.NormalTarget(np.zeros(3))
    explicit = (K.GaussianKernel(K.median_heuristic(X)) if estimator == "fssd-opt"
                else K.ksdagg_kernels(X)
                if K.Needs.KERNEL_COLLECTION in K.GOF_TESTS.get(estimator).needs
                # L1 IMQ's base kernel: Huggins & Mackey's c = 4 × the median distance
                else K.IMQKernel(c=4.0 * K.median_heuristic(X)) if estimator == "l1-imq"
                else None if estimator == "l2-sechexp"  # builds its kernel from X
                else K.IMQKernel(c=1.0, beta=-0.5))
    a = K.ksd_test(X, target, estimator=estimator, n_resamples=99, rng=2)
    b = K.ksd_test(X, target, explicit, estimator=estimator, n_resamples=99, rng=2)
    assert a.statistic == b.statistic and a.p_value == b.p_value
    assert repr(a.kernel) == repr(explicit)


def test_print_result_fits_in_a_few_lines(pair):
    result = K.mmd_test(*pair, n_resamples=999, rng=0)
    text = str(result)
    assert len(text.splitlines()) <= 6 and len(text) < 400
    assert "999 replicates" in text and "GaussianKernel(bandwidth=" in text
    assert "kernel" in result.to_dict() and "null_samples" not in result.to_dict()


def test_compare_tests_has_one_row_per_registered_test(pair):
    X, Y = pair
    rows = []
    table = K.compare_tests(X, Y, rng=5, n_resamples=199, progress=rows.append)
    assert list(table.columns) == list(compare.COLUMNS)
    assert list(table.test) == [s.name for s in TABLE_TESTS(K.MMD_TESTS)]
    own = table.test.isin([s.name for s in K.MMD_TESTS  # notes name their collection
                           if K.Needs.KERNEL_COLLECTION in s.needs])
    worded = table.test.isin([s.name for s in K.MMD_TESTS  # or their statistic
                              if s.statistic_words]) & ~own
    assert table.p_value.notna().all() and (table.note[~own & ~worded] == "").all()
    assert table.note[own].str.match(r"its own (10|20) bandwidths").all()
    assert worded.any() and table.note[worded].str.startswith("statistic: ").all()
    assert rows[-1] is None and sorted(r["test"] for r in rows[:-1]) == sorted(table.test)
    assert set(table.attrs["results"]) == set(table.test)
    assert (table.reject == (table.p_value <= 0.05)).all()


def test_a_row_does_not_depend_on_the_other_tests(pair):
    X, Y = pair
    everything = K.compare_tests(X, Y, rng=5, n_resamples=99).set_index("test")
    for name in ("unbiased/spectral", "fastmmd/permutation", "pooled-nystrom/permutation"):
        alone = K.compare_tests(X, Y, tests=[name], rng=5, n_resamples=99)
        assert alone.p_value.iloc[0] == everything.loc[name, "p_value"]
    by_estimator = K.compare_tests(X, Y, tests=["pooled-nystrom"], rng=5, n_resamples=99)
    assert list(by_estimator.test) == ["pooled-nystrom/permutation",
                                    "pooled-nystrom/spectral"]


def test_a_row_equals_the_test_run_by_hand(pair):
    X, Y = pair
    table = K.compare_tests(X, Y, rng=0, n_resamples=99, tests=["biased/gamma"])
    direct = K.mmd_test(X, Y, estimator="biased", null="gamma")
    assert table.p_value.iloc[0] == pytest.approx(direct.p_value, rel=1e-12)


def test_unequal_sizes_skip_the_paired_tests_with_their_reason(pair):
    X, Y = pair
    table = K.compare_tests(X, Y[:100], rng=0, n_resamples=99).set_index("test")
    paired = [s.name for s in K.MMD_TESTS if K.Needs.EQUAL_SIZES in s.needs]
    assert {"biased/wild-bootstrap", "unbiased/pearson", "mmdagg/wild-bootstrap"} <= set(paired)
    for name in paired:
        assert table.loc[name, "note"] == ("not run: needs samples of equal size (n_X = n_Y), "
                                           "got 120 and 100")
        assert np.isnan(table.loc[name, "p_value"])
    assert table.drop(index=paired).p_value.notna().all()


def test_slow_tests_are_skipped_with_how_to_run_them_and_fast_ones_never(pair, monkeypatch):
    X, Y = pair
    fast = K.compare_tests(X, Y, rng=0, n_resamples=99, time_budget=1e-9)
    assert fast.p_value.notna().all()  # every test is estimated under FAST_SECONDS here
    monkeypatch.setattr(compare, "flops_per_second", lambda: 1.0)  # a very slow machine
    slow = K.compare_tests(X, Y, rng=0, n_resamples=99, time_budget=5.0).set_index("test")
    assert slow.p_value.isna().all()
    note = slow.loc["unbiased/spectral", "note"]
    assert note.startswith("not run: estimated ") and "left of the time budget; run it " \
        "alone with kmeviz.mmd_test(X, Y, estimator='unbiased', null='spectral') or raise " \
        "time_budget" in note


def test_the_speed_is_the_fastest_measured_so_far(monkeypatch):
    """A measurement in a moment of load (a server's first comparison, while browsers draw
    its page) must not slow every later estimate: each table measures again and the
    fastest counts."""
    monkeypatch.setitem(compare._FASTEST, "flops", 0.0)
    measured = compare.flops_per_second()
    assert measured > 1e8  # any machine multiplies faster than 0.1 GFLOP/s
    monkeypatch.setitem(compare._FASTEST, "flops", 1e15)  # as if once measured idle at 1 PFLOP/s
    assert compare.flops_per_second() == 1e15  # a slower measurement now does not lower it


def test_a_test_past_the_budget_is_stopped_and_says_so(pair, monkeypatch):
    X, Y = pair
    monkeypatch.setattr(compare, "estimated_seconds", lambda spec, N, d, B, flops=None: 2.0)

    def over_budget(*args, **kwargs):
        raise BudgetExceeded("late")

    monkeypatch.setattr(compare, "checked_mmd_test", over_budget)
    table = K.compare_tests(X, Y, tests=["biased/permutation"], time_budget=3.0)
    assert table.note.iloc[0].startswith("stopped after ") and "at the time budget" in \
        table.note.iloc[0]


def test_tests_that_would_not_fit_in_memory_are_not_run():
    X = np.random.default_rng(0).normal(size=(100_000, 1))
    table = K.compare_tests(X, X + 1.0, tests=["biased/gamma", "unbiased/pearson"],
                            time_budget=1e6)  # the spectral null streams: it would fit
    assert table.note.str.startswith("not run: it would hold about ").all()
    assert table.note.iloc[0].endswith("use a linear-time test or a subsample")


def test_bad_arguments_name_themselves(pair):
    X, Y = pair
    with pytest.raises(ValueError, match="tests must be 'all' or names from"):
        K.compare_tests(X, Y, tests=["biased/bogus"])
    with pytest.raises(ValueError, match="time_budget must be positive"):
        K.compare_tests(X, Y, time_budget=0)
    with pytest.raises(ValueError, match="alpha"):
        K.compare_tests(X, Y, alpha=2)


def test_the_comparisons_validate_their_samples_once(pair, monkeypatch):
    """``compare_tests`` and ``compare_gof`` check the samples, the settings and the default
    kernel once; each test below takes them as checked (issue 39): the public entry
    points' own checks and the median heuristic are never called again."""
    import kmeviz.gof.ksd_tests as ksd_tests
    import kmeviz.kernels.defaults as defaults
    import kmeviz.twosample.mmd_tests as mmd_tests

    X, Y = pair
    counted = []

    def once(real):
        def call(*args, **kwargs):
            counted.append(real.__name__)
            return real(*args, **kwargs)
        return call

    def never(*_args, **_kwargs):
        raise AssertionError("validated again below the entry point")

    monkeypatch.setattr(compare, "check_any_pair", once(compare.check_any_pair))
    monkeypatch.setattr(compare, "default_mmd_kernel", once(compare.default_mmd_kernel))
    monkeypatch.setattr(mmd_tests, "check_any_pair", never)
    monkeypatch.setattr(defaults, "default_mmd_kernel", never)  # the tests' kernel check
    monkeypatch.setattr(ksd_tests, "check_any_samples", never)
    table = K.compare_tests(X, Y, rng=0, n_resamples=99, time_budget=60)
    assert table.p_value.notna().sum() >= 10
    assert counted == ["check_any_pair", "default_mmd_kernel"]
    assert K.compare_gof(X, K.NormalTarget(np.zeros(3)), rng=0,
                         n_resamples=99).p_value.notna().all()
    with pytest.raises(AssertionError, match="validated again"):
        K.mmd_test(X, Y)  # the entry point itself still checks


def test_compare_gof_runs_every_goodness_of_fit_test(pair):
    X = pair[0]
    table = K.compare_gof(X, K.NormalTarget(np.zeros(3)), rng=0, n_resamples=99)
    assert list(table.test) == [s.name for s in TABLE_TESTS(K.GOF_TESTS)]
    assert table.p_value.notna().all()
    shifted = K.compare_gof(X + 1.0, K.NormalTarget(np.zeros(3)), rng=0, n_resamples=99)
    assert shifted.set_index("test").loc["full/wild-bootstrap", "reject"]


# -- a precomputed Gram matrix -------------------------------------------------------------
def test_a_precomputed_gram_gives_the_kernels_tests(pair):
    X, Y = pair
    Z = np.vstack([X, Y])
    gaussian = K.GaussianKernel(1.5)
    kernel = K.PrecomputedKernel(gaussian(Z))
    Xi, Yi = kernel.samples(np.repeat(["p", "q"], [120, 120]))
    table = K.compare_tests(Xi, Yi, kernel=kernel, rng=1, n_resamples=99).set_index("test")
    direct = K.compare_tests(X, Y, kernel=gaussian, rng=1, n_resamples=99).set_index("test")
    exact = [s.name for s in TABLE_TESTS(K.MMD_TESTS) if s.cost != "linear"
             and not s.needs & (K.Needs.KERNEL_COLLECTION | K.Needs.GAUSSIAN_KERNEL
                                | K.Needs.COORDINATES | K.Needs.NO_KERNEL)]
    # the split test learns a Gaussian's bandwidth: a Gram matrix has none, and it says so
    assert "Gaussian" in table.loc["split/permutation", "note"]
    np.testing.assert_allclose(table.loc[exact, "statistic"], direct.loc[exact, "statistic"],
                               rtol=1e-12)
    np.testing.assert_allclose(table.loc[exact, "p_value"], direct.loc[exact, "p_value"],
                               rtol=1e-12)
    # the learned-on-all-data test builds kernels on coordinates: indices have none
    assert "coordinates" in table.loc["selected/permutation", "note"]
    assert table.loc["fastmmd/permutation", "note"] == (
        "not run: needs a shift-invariant kernel, got PrecomputedKernel(N=240)")


@pytest.mark.parametrize("gram, message", [
    (np.ones((4, 5)), "gram must be a square N × N matrix with N >= 4, got shape (4, 5)"),
    (np.ones((3, 3)), "gram must be a square N × N matrix with N >= 4, got shape (3, 3)"),
    (np.where(np.eye(5) > 0, np.nan, 1.0), "gram has 5 NaN or infinite entries"),
    (np.triu(np.ones((5, 5))), "gram is not symmetric: max |K - K.T| = 1 > rtol · max|K| = "
                               "1e-08"),
])
def test_a_bad_gram_is_refused(gram, message):
    with pytest.raises(ValueError) as info:
        K.PrecomputedKernel(gram)
    assert str(info.value) == message


def test_bad_labellings_and_indices_are_refused():
    kernel = K.PrecomputedKernel(np.eye(6))
    with pytest.raises(ValueError, match=r"labels must have one entry per row of the Gram "
                                         r"matrix \(6\), got shape \(5,\)"):
        kernel.samples([0, 1, 0, 1, 0])
    with pytest.raises(ValueError, match="labels must take exactly two values, got 3"):
        kernel.samples([0, 1, 2, 0, 1, 2])
    with pytest.raises(ValueError, match="each group needs at least 2 points, got 5 and 1"):
        kernel.samples([0, 0, 0, 0, 0, 1])
    with pytest.raises(ValueError, match="row indices 0...5 in one column"):
        K.mmd_test(np.array([[0.0], [7.0]]), np.array([[1.0], [2.0]]), kernel)
    with pytest.raises(TypeError, match="gram must be a square 2-D array"):
        K.PrecomputedKernel("K.npy")


def test_the_witness_is_its_definition_evaluated_point_by_point(pair):
    """f(t) = (1/m) Σ k(x_i, t) - (1/n) Σ k(y_j, t), against a loop (rtol 1e-12: only the
    order of the sums differs), in blocks smaller than the points."""
    X, Y = pair
    kernel = K.GaussianKernel(1.3)
    points = np.random.default_rng(3).normal(size=(37, 3))
    slow = [np.mean([kernel(t[None], x[None])[0, 0] for x in X])
            - np.mean([kernel(t[None], y[None])[0, 0] for y in Y]) for t in points]
    fast = K.mmd_witness(X, Y, kernel, points, working_memory=8 * 120 * 5)
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="points must have dimension 3"):
        K.mmd_witness(X, Y, kernel, points[:, :2])


def test_aggregated_tests_use_their_own_collection_and_say_so(pair):
    X, Y = pair
    table = K.compare_tests(X, Y, kernel=K.GaussianKernel(1.0), n_resamples=99,
                            rng=0).set_index("test")
    alone = K.mmd_test(X, Y, estimator="mmdagg", n_resamples=99, rng=0)
    assert table.loc["mmdagg/wild-bootstrap", "note"].startswith("its own 20 bandwidths")
    assert repr(alone.kernel) in table.loc["mmdagg/wild-bootstrap", "note"]
    Z = np.vstack([X, Y])
    gram = K.PrecomputedKernel(K.GaussianKernel(1.0)(Z, Z))
    A, B = gram.samples(np.r_[np.zeros(len(X)), np.ones(len(Y))])
    pre = K.compare_tests(A, B, kernel=gram, n_resamples=99, rng=0).set_index("test")
    assert pre.loc["mmdagg/permutation", "note"].startswith("not run: computes its own")
    gof = K.compare_gof(X, K.NormalTarget(np.zeros(3)), kernel=K.IMQKernel(), n_resamples=99,
                        rng=0).set_index("test")
    assert gof.loc["ksdagg/wild-bootstrap", "note"].startswith("its own 10 bandwidths")


def test_a_kernel_without_derivatives_leaves_a_note_in_the_gof_table_not_a_crash():
    """A user's radial kernel that gives only φ (a Matérn 3/2): the Stein-kernel tests say
    what it lacks, the table runs the rest (issue 57: NotImplementedError crashed it)."""
    from kmeviz.distributions.targets import NormalTarget
    from kmeviz.kernels.base import RadialKernel

    class Matern32(RadialKernel):
        def __init__(self, bandwidth):
            self.bandwidth = bandwidth

        def radial(self, sq):
            r = np.sqrt(3 * np.maximum(sq, 0)) / self.bandwidth
            return (1 + r) * np.exp(-r)

    X = np.random.default_rng(0).standard_normal((150, 2))
    table = K.compare_gof(X, NormalTarget(np.zeros(2), np.eye(2)), kernel=Matern32(1.0),
                          tests=["full/wild-bootstrap", "ksdagg/wild-bootstrap"], rng=0)
    full = table.set_index("test").loc["full/wild-bootstrap"]
    assert np.isnan(full.p_value) and "Matern32 gives no derivatives" in full.note
    assert np.isfinite(table.set_index("test").loc["ksdagg/wild-bootstrap", "p_value"])


def test_a_tables_results_are_shared_by_its_copies(pair):
    """pandas deep-copies ``attrs`` at every column read and copy; the results (every
    test's null draws) are shared instead, and stay readable from each copy."""
    import copy

    table = K.compare_tests(*pair, tests=["biased/permutation"], n_resamples=99, rng=0)
    column = table["p_value"]  # pandas ≥ 2.1 carries attrs into a column
    assert column.attrs.get("results", table.attrs["results"]) is table.attrs["results"]
    assert copy.deepcopy(table).attrs["results"] is table.attrs["results"]
    assert table.copy(deep=True).attrs["results"]["biased/permutation"].p_value \
        == table.p_value.iloc[0]
