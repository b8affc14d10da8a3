"""MMDAgg and KSDAgg (Schrab et al.): against the authors' numbers, a slow obvious
implementation of the simulated values, the level correction's definition, and the
type-I error law.

The reference values were computed with the authors' numpy code (``mmdagg.np.mmdagg``
and ``ksdagg.np.ksdagg`` of antoninschrab/mmdagg and antoninschrab/ksdagg, read locally)
on the data below, which numpy's PCG64 generator gives identically on every machine.
Their wild-bootstrap MMD is Σ_{i≠j} unnormalised (divided by n(n - 1) here), and their
IMQ kernel (1 + r²/λ²)^(-½) is λ times kmeviz's ``IMQKernel(c=λ)``. rtol 1e-10: the
statistics are sums of 10³–10⁴ kernel values of order 1 (round-off about 1e-14 of the
sum), and these data keep every statistic at least 1e-4 of that sum.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import kmeviz
from kmeviz import (
    GaussianKernel,
    KernelCollection,
    LaplaceKernel,
    NormalTarget,
    bandwidth_weights,
    config_context,
    ksd_test,
    ksdagg_kernels,
    mmd_test,
    mmdagg_kernels,
)
from kmeviz.aggregation import rademacher_columns
from kmeviz.kernels.collection import geometric_bandwidths
from kmeviz.twosample.resampling import permutation_assignments

WILD = [0.0002965924303686059, 0.0013721194202583756, 0.006344368756224249,
        0.019845674298097526, 0.04032850963452421, 0.055898207079566456,
        0.057447805848698956, 0.0479787899492987, 0.03511290562655742, 0.023716436893298984,
        0.0001474124754416104, 0.0006966976157534367, 0.0015387573811259374,
        0.010977216263725782, 0.04437074127374581, 0.09290197457654265, 0.09753435330064841,
        0.05374312946006768, 0.020941549445815513, 0.007510961529041975]
PERM = [0.001436216218193878, 0.003399590677691178, 0.009486559710465824,
        0.025349934069986806, 0.05031144313896859, 0.07052723662552758, 0.07382333357479526,
        0.06272626687915842, 0.04653521017760043, 0.03173949163516508, 0.0016541927348953833,
        0.003857580019875685, 0.006027010353299658, 0.016394096736348826, 0.05219116038331394,
        0.11197640044630004, 0.12435031719726722, 0.0735108529691992, 0.030586071214170008,
        0.011438907077696903]
KSD = [0.020630381526946996, 0.02222226186599214, 0.024004152674715732, 0.0246084711108898,
       0.023735407539849058, 0.02125833655539136, 0.016641159176425915, 0.009082693269300227,
       -0.0018369789880931168, -0.015594656053781266]
KSD_BANDWIDTHS = [0.5, 0.646758906323808, 0.8365941658183363, 1.0821494554430913,
                  1.3997795965625561, 1.81063984193436, 2.3420948878315584,
                  3.0295414563210405, 3.918765837905665, 5.068993414925938]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(2027)
    X = rng.normal(size=(40, 3))
    Y = rng.normal(size=(40, 3)) * 1.5 + 0.3
    Z = rng.standard_t(5, size=(50, 2))
    return X, Y, Z


def test_mmdagg_statistics_equal_the_authors(data):
    X, Y, _ = data
    wild = mmd_test(X, Y, estimator="mmdagg", null="wild-bootstrap", n_resamples=50, rng=0)
    np.testing.assert_allclose(wild.fitted["values"][:, 0], WILD, rtol=1e-10)
    Y45 = np.vstack([Y, Y[:5] + 0.1])
    perm = mmd_test(X[:30], Y45, estimator="mmdagg", null="permutation", n_resamples=50,
                    rng=0)
    np.testing.assert_allclose(perm.fitted["values"][:, 0], PERM, rtol=1e-10)
    # the per-kernel table reports them, with the weights of the authors' default
    table = wild.fitted["kernels"]
    np.testing.assert_allclose(table["statistic"], WILD, rtol=1e-10)
    np.testing.assert_allclose(table["weight"], 1 / 20)


def test_ksdagg_statistics_and_bandwidths_equal_the_authors(data):
    _, _, Z = data
    res = ksd_test(Z, NormalTarget(np.zeros(2)), estimator="ksdagg", n_resamples=50, rng=0)
    scales = res.kernel.scales()
    np.testing.assert_allclose(scales, KSD_BANDWIDTHS, rtol=1e-14)
    np.testing.assert_allclose(res.fitted["values"][:, 0] * scales, KSD, rtol=1e-10)


def test_bandwidth_rule_and_weights():
    d = np.array([0.05, 0.2, 0.5, 1.0, 3.0] * 10)
    lam = geometric_bandwidths(d, 5)
    # smallest distance < 0.1: half the 5% quantile floored at 0.1; twice the largest
    assert lam[0] == pytest.approx(max(np.sort(d)[2], 0.1) / 2) and lam[-1] == 6.0
    np.testing.assert_allclose(np.diff(np.log(lam)), np.log(lam[1] / lam[0]))
    assert geometric_bandwidths(np.array([0.01, 0.02]), 3)[-1] == pytest.approx(0.6)
    for weighting in ("uniform", "decreasing", "increasing", "centred"):
        for number in (5, 6):
            w = bandwidth_weights(number, weighting)
            assert w.sum() == pytest.approx(1.0) and np.all(w > 0)
    np.testing.assert_allclose(bandwidth_weights(3, "centred"), np.array([0.5, 1, 0.5]) / 2)
    np.testing.assert_allclose(bandwidth_weights(4, "decreasing"),
                               (1 / np.arange(1, 5)) / np.sum(1 / np.arange(1, 5)))
    col = mmdagg_kernels(np.zeros((5, 2)), np.ones((5, 2)), family="gaussian",
                         number_bandwidths=4, weighting="decreasing")
    assert len(col) == 4 and isinstance(col.kernels[0], GaussianKernel)


def obvious_values(collection, X, Y, columns, paired):
    """Every kernel's statistic for every labelling column, from whole Gram matrices."""
    m, n = X.shape[0], Y.shape[0]
    Z = np.vstack([X, Y])
    out = []
    for k in collection.kernels:
        K = k(Z, Z)
        if paired:
            H = K[:n, :n] + K[n:, n:] - K[:n, n:] - K[n:, :n]
            np.fill_diagonal(H, 0.0)
            out.append(np.einsum("ib,ij,jb->b", columns, H, columns) / (n * (n - 1)))
            continue
        np.fill_diagonal(K, 0.0)
        row = []
        for u in columns.T.astype(bool):
            kxx, kyy, kxy = K[u][:, u], K[~u][:, ~u], K[u][:, ~u]
            row.append(kxx.sum() / (m * (m - 1)) + kyy.sum() / (n * (n - 1))
                       - 2 * kxy.sum() / (m * n))
        out.append(row)
    return np.array(out)


@pytest.mark.parametrize("paired", [True, False])
def test_every_simulated_value_equals_a_slow_obvious_implementation(data, paired):
    X, Y, _ = data
    Y = Y if paired else Y[:33]
    B, seed = 20, 5
    null = "wild-bootstrap" if paired else "permutation"
    res = mmd_test(X, Y, estimator="mmdagg", null=null, n_resamples=B, rng=seed)
    rng = np.random.default_rng(seed)  # the labellings the test drew, in its order
    if paired:
        columns = rademacher_columns(40, 2 * B, rng)
        assert set(np.unique(columns)) == {-1.0, 1.0} and (columns[:, 0] == 1).all()
    else:
        columns = permutation_assignments(40, 33, 2 * B, rng, with_identity=True)
    expected = obvious_values(res.kernel, X, Y, columns, paired)
    np.testing.assert_allclose(res.fitted["values"], expected, rtol=1e-9, atol=1e-14)


def test_values_do_not_depend_on_threads_and_float32_is_close(data):
    X, Y, _ = data
    runs = {}
    for threads, dtype in ((1, "float64"), (2, "float64"), (2, "float32")):
        with config_context(n_threads=threads, dtype=dtype, tile_rows=16):
            runs[threads, dtype] = mmd_test(X, Y, estimator="mmdagg", null="wild-bootstrap",
                                            n_resamples=30, rng=1).fitted["values"]
    np.testing.assert_array_equal(runs[1, "float64"], runs[2, "float64"])
    # float32 kernel values (rel. 6e-8) summed over 1600 pairs, scaled by 1/(n(n-1))
    np.testing.assert_allclose(runs[2, "float32"], runs[2, "float64"], atol=1e-6)


def test_decision_is_the_level_correction_of_the_papers(data):
    """Reject ⟺ some kernel's statistic exceeds q_λ(u_α), u_α the largest u with at most
    a fraction α of the B2 replicates above some q_λ(u) — and ⟺ p-value ≤ α."""
    X, Y, _ = data
    for seed, shift in enumerate(np.linspace(0.0, 0.25, 12)):
        res = mmd_test(X, Y * (1 - shift) + 0.3 * shift - 0.3, estimator="mmdagg",
                       null="wild-bootstrap", n_resamples=100, rng=seed, alpha=0.1)
        null = res.null_distribution()
        u = null.level_correction(0.1)

        def exceeded(v, null=null):
            return np.mean(np.any(null.second > null.quantiles(v)[:, None], axis=0))

        # (u = 0 when even the largest quantiles are exceeded too often: nothing rejects)
        assert (u == 0 or exceeded(u) <= 0.1) and 0.1 < exceeded(u * (1 + 1e-9) + 1e-12)
        table = res.fitted["kernels"]
        assert bool(table["reject"].any()) == res.reject == (res.p_value <= 0.1)
        np.testing.assert_array_equal(table["reject"], table["p_value"] <= table["threshold"])
        # another level gives that level's table
        other = res.at_level(0.01)
        assert other.fitted["kernels"]["threshold"].max() <= table["threshold"].max()


def type_one_rate(n_draws, n, B, seed, gof=False):
    rng = np.random.default_rng(seed)
    rejections = 0
    for _ in range(n_draws):
        if gof:
            res = ksd_test(rng.normal(size=(n, 2)), NormalTarget(np.zeros(2)),
                           estimator="ksdagg", n_resamples=B, rng=rng, rows="iid")
        else:
            res = mmd_test(rng.normal(size=(n, 2)), rng.normal(size=(n, 2)),
                           estimator="mmdagg", null="wild-bootstrap", n_resamples=B, rng=rng,
                           rows="iid")  # i.i.d. draws: the row check's rare alarm is noise
        rejections += res.reject
    return stats.binomtest(rejections, n_draws).proportion_ci(0.99, method="exact")


def test_type_one_error_bounded():
    """CI-sized: 1000 null draws of each at n = 50, B1 = B2 = 200; the 99% Clopper–Pearson
    interval of the rejection rate contains α = 0.05 (the slow test: n = 200, B = 1000)."""
    for gof in (False, True):
        ci = type_one_rate(1000, 50, 200, 11 + gof, gof=gof)
        assert ci.low <= 0.05 <= ci.high, (gof, ci)


@pytest.mark.slow
@pytest.mark.parametrize("gof", [False, True])
def test_type_one_error(gof):
    ci = type_one_rate(1000, 200, 1000, 2027 + gof, gof=gof)
    assert ci.low <= 0.05 <= ci.high, ci


def test_bad_input_is_named(data):
    X, Y, Z = data
    with pytest.raises(TypeError, match="KernelCollection"):
        mmd_test(X, Y, GaussianKernel(1.0), estimator="mmdagg")
    with pytest.raises(TypeError, match="KernelCollection is for estimator='mmdagg'"):
        mmd_test(X, Y, mmdagg_kernels(X, Y))
    with pytest.raises(TypeError, match="KernelCollection"):
        ksd_test(Z, NormalTarget(np.zeros(2)), kmeviz.IMQKernel(), estimator="ksdagg")
    with pytest.raises(ValueError, match="equal size"):
        mmd_test(X, Y[:30], estimator="mmdagg", null="wild-bootstrap")
    with pytest.raises(ValueError, match="weights"):
        KernelCollection([LaplaceKernel(1.0)], [-1.0])
    with pytest.raises(TypeError, match="radial"):
        KernelCollection([kmeviz.CauchyKernel(1.0)])
    with pytest.raises(ValueError, match="number_bandwidths"):
        ksdagg_kernels(Z, number_bandwidths=1)


def test_user_collection_and_weights(data):
    X, Y, _ = data
    col = KernelCollection([GaussianKernel(s) for s in (0.5, 1.0, 2.0)], [1, 2, 1])
    res = mmd_test(X, Y, col, estimator="mmdagg", null="wild-bootstrap", n_resamples=100,
                   rng=0)
    np.testing.assert_allclose(res.fitted["kernels"]["weight"], [0.25, 0.5, 0.25])
    assert "3 kernels" in str(res) and "Gaussian" in repr(res.kernel)


class RationalQuadraticKernel(kmeviz.kernels.RadialKernel):
    """A kernel kmeviz does not have, written here in a few lines: (1 + ‖x − y‖²/(2αℓ²))^−α
    with α = 2. A radial kernel gives φ; the collection, MMDAgg and the engine do the rest."""

    def __init__(self, bandwidth: float):
        self.bandwidth = bandwidth

    def radial(self, sq):
        return (1.0 + sq / (4.0 * self.bandwidth**2)) ** -2.0


def test_a_kernel_class_written_in_a_test_file_joins_mmdagg():
    """Through the kernel protocol (``distance``, ``from_distance``): no file of kmeviz
    names the class. Each kernel's observed statistic is its unbiased MMD² from the
    ordinary engine (the other path: Gram tiles by ``tile_into``)."""
    X, Y = kmeviz.blobs_two_sample(60, epsilon=3.0, rng=4)
    Y = Y[:50]
    kernels = [RationalQuadraticKernel(s) for s in (0.5, 1.0, 2.0)]
    res = mmd_test(X, Y, KernelCollection(kernels), estimator="mmdagg", n_resamples=199,
                   rng=0)
    assert res.estimator == "mmdagg" and 0 < res.p_value <= 1
    expected = [kmeviz.mmd2(X, Y, k, estimator="unbiased") for k in kernels]
    np.testing.assert_allclose(res.fitted["values"][:, 0], expected, rtol=1e-9)
    assert "3 kernels" in str(res)
    with pytest.raises(TypeError, match="functions of a distance"):
        KernelCollection([kmeviz.CauchyKernel(1.0)])  # a product kernel: no one distance
