"""The one table of tests: every reader (mmd_test, VALID_NULLS, the docstring, the dask
guard, the explorer's choices) follows the registry, so adding a test is one entry plus
its function."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import kmeviz as K
from kmeviz.registry import MMD_TESTS, Outcome, TestRegistry

X, Y = np.random.default_rng(0).normal(size=(30, 2)), np.random.default_rng(1).normal(
    0.4, 1.0, size=(30, 2))


def test_every_reader_sees_the_registry():
    assert dict(K.VALID_NULLS) == MMD_TESTS.valid_nulls()
    for spec in MMD_TESTS:
        assert f"{spec.estimator} " in K.mmd_test.__doc__ and spec.summary in K.mmd_test.__doc__
    for spec in K.GOF_TESTS:
        assert spec.summary in K.ksd_test.__doc__
    capable = {(s.estimator, s.null) for s in MMD_TESTS.dask_capable()}
    assert capable == {("linear", "normal"), ("block", "normal"), ("pooled-nystrom", "spectral")}
    from kmeviz_apps.bootstrap_explorer import CHOOSES_KERNEL, BootstrapExplorer

    # its tests of one given kernel; those that choose theirs have the kernel-choice rows
    choose = CHOOSES_KERNEL
    assert {"mmdagg", "mmdfuse", "split", "selected"} <= {s.estimator for s in MMD_TESTS
                                                          if s.needs & choose}
    single = [s for s in MMD_TESTS if not s.needs & choose]
    assert BootstrapExplorer.param.null.objects == list(dict.fromkeys(s.null for s in single))
    assert BootstrapExplorer.param.estimator.objects == list(
        dict.fromkeys(s.estimator for s in single))
    assert {s.estimator for s in MMD_TESTS} - set(BootstrapExplorer.param.estimator.objects) \
        == {s.estimator for s in MMD_TESTS if s.needs & choose}


def test_a_test_is_one_entry_plus_its_function(monkeypatch):
    """A toy null registered at run time is offered everywhere at once."""
    monkeypatch.setattr(MMD_TESTS, "_specs", dict(MMD_TESTS._specs))

    @MMD_TESTS.register("linear", "toy-normal", cost="linear", summary="a toy")
    def toy(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
        return Outcome(0.5, null_dist=stats.norm(0.0, 1.0), one_pass=False)

    assert K.VALID_NULLS["linear"] == ("normal", "toy-normal")
    res = K.mmd_test(X, Y, K.GaussianKernel(1.0), estimator="linear", null="toy-normal")
    assert (res.estimator, res.null) == ("linear", "toy-normal")
    assert res.p_value == pytest.approx(stats.norm.sf(0.5), rel=1e-12)
    assert "a toy" in MMD_TESTS.markdown() and "a toy" in MMD_TESTS.rst_table()


def test_a_test_declares_an_option_of_its_own_and_may_use_no_kernel(monkeypatch):
    """An own option (``TestOption``) reaches the test's function from ``mmd_test``'s
    keywords, from ``compare_tests(test_options=...)`` and as a command-line string; other
    keywords are refused by name; a kernel-free test reports no kernel (issue 57)."""
    from kmeviz._validation import check_positive_int
    from kmeviz.registry import TestOption

    monkeypatch.setattr(MMD_TESTS, "_specs", dict(MMD_TESTS._specs))
    seen = []

    @MMD_TESTS.register("toy", "normal", cost="linear", needs=K.Needs.NO_KERNEL,
                        summary="a toy without kernel",
                        own_options=(TestOption("power", 2, "the toy's exponent", int,
                                                check_positive_int),))
    def toy(X, Y, kernel, *, estimator, n_resamples, rng, power) -> Outcome:
        seen.append((kernel, power))
        return Outcome(float(abs(X.mean() - Y.mean()) ** power), null_dist=stats.norm(),
                       one_pass=False)

    res = K.mmd_test(X, Y, estimator="toy", power=3)
    assert seen[-1] == (None, 3) and res.kernel is None
    assert res.statistic == pytest.approx(abs(X.mean() - Y.mean()) ** 3, rel=1e-12)
    assert "none (the statistic uses no kernel)" in str(res)
    K.mmd_test(X, Y, estimator="toy", power="4")  # as the command line gives it
    assert seen[-1] == (None, 4)
    K.mmd_test(X, Y, estimator="toy")
    assert seen[-1] == (None, 2)  # its default
    with pytest.raises(TypeError, match="unexpected keyword argument 'powr'.*takes power"):
        K.mmd_test(X, Y, estimator="toy", powr=3)
    with pytest.raises(TypeError, match="'power'.*linear/normal takes no options of its"):
        K.mmd_test(X, Y, estimator="linear", power=3)
    with pytest.raises(ValueError, match="power must be a positive integer|power must be"):
        K.mmd_test(X, Y, estimator="toy", power=0)
    with pytest.raises(TypeError, match="uses no kernel"):
        K.mmd_test(X, Y, K.GaussianKernel(1.0), estimator="toy")
    assert "power=2: the toy's exponent" in MMD_TESTS.rst_table()

    table = K.compare_tests(X, Y, tests=["toy", "linear"], test_options={"power": 5},
                            rng=0).set_index("test")
    assert seen[-1] == (None, 5) and table.attrs["results"]["toy/normal"].kernel is None
    with pytest.raises(ValueError, match="no test of this table takes 'powr'.*power"):
        K.compare_tests(X, Y, tests=["toy"], test_options={"powr": 5})
    Z = np.vstack([X, Y])
    gram = K.PrecomputedKernel(K.GaussianKernel(1.0).gram(Z, Z))
    idx = np.arange(60.0)[:, None]
    table = K.compare_tests(idx[:30], idx[30:], kernel=gram, tests=["toy"])
    assert table.loc[0, "note"].startswith("not run: computes its own kernels")


def test_the_registry_refuses_what_it_cannot_mean():
    registry = TestRegistry("some_test", "kmeviz.SOME", family="two-sample")
    registry.register("a", "b", cost="linear")(lambda: None)
    with pytest.raises(ValueError, match="registered already"):
        registry.register("a", "b", cost="linear")(lambda: None)
    with pytest.raises(ValueError, match="cost must be one of"):
        registry.register("a", "c", cost="exponential")
    with pytest.raises(ValueError, match="estimator must be one of 'a'"):
        registry.get("z")
    with pytest.raises(ValueError, match="null must be one of 'b'"):
        registry.get("a", "q")
    assert registry.get("a").name == "a/b" and registry.default_null("a") == "b"
    with pytest.raises(TypeError, match="needs must be kmeviz.Needs"):
        registry.register("a", "d", cost="linear", needs=("equal sample sizes",))


def test_registering_a_test_at_run_time_changes_no_other_row_of_a_comparison(monkeypatch):
    """Each test's seed comes from its name, not its position: a dummy test registered
    first (so every other test moves one place) leaves every other row as it was."""
    A, B = K.blobs_two_sample(120, epsilon=2.0, rng=3)
    kernel = K.GaussianKernel(1.0)
    before = K.compare_tests(A, B, kernel=kernel, n_resamples=99, rng=5).set_index("test")
    monkeypatch.setattr(MMD_TESTS, "_specs", dict(MMD_TESTS._specs))
    draws = []

    @MMD_TESTS.register("dummy", "permutation", cost="linear", summary="a dummy")
    def dummy(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
        draws.append(rng.random())  # it draws from its own seed
        return Outcome(0.0, null_samples=rng.normal(size=n_resamples))

    MMD_TESTS._specs = {("dummy", "permutation"): MMD_TESTS._specs.pop(("dummy",
                                                                        "permutation")),
                        **MMD_TESTS._specs}  # first in the registry: every other one moves
    after = K.compare_tests(A, B, kernel=kernel, n_resamples=99, rng=5).set_index("test")
    assert list(after.index)[0] == "dummy/permutation" and len(draws) == 1
    ran = before.p_value.notna()
    assert ran.sum() >= 12  # every other test ran, in both
    others = after.drop(index="dummy/permutation")
    assert list(others.index) == list(before.index)
    np.testing.assert_array_equal(others.p_value[ran], before.p_value[ran])
    np.testing.assert_allclose(others.statistic[ran], before.statistic[ran], rtol=1e-12)


def test_train_fraction_given_to_another_estimator_warns_and_is_ignored_until_0_5():
    """kmeviz 0.3 made ``train_fraction`` the split test's own option; before, any
    estimator took it and ignored it. It keeps working that way, with a
    DeprecationWarning, until 0.5 (CHANGELOG)."""
    with pytest.warns(DeprecationWarning, match="option of estimator='split' alone"):
        res = K.mmd_test(X, Y, K.GaussianKernel(1.0), estimator="unbiased",
                         train_fraction=0.3, n_resamples=49, rng=0)
    same = K.mmd_test(X, Y, K.GaussianKernel(1.0), estimator="unbiased", n_resamples=49,
                      rng=0)
    assert res.p_value == same.p_value
