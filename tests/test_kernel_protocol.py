"""The public kernel protocol: a kernel defined here, through it alone, works everywhere.

The rational quadratic kernel k(x, y) = (1 + r²/(2a))^(-a) is defined below by its radial
profile and two derivatives only. It is a multiple of an IMQ kernel:
(1 + r²/(2a))^(-a) = (2a)^a (2a + r²)^(-a) = (2a)^a · IMQ(c = √(2a), β = -a), so every
statistic that is linear in the kernel (MMD², KSD²) must be (2a)^a times the IMQ one, and
scale-free quantities (Nyström weights, p-values) must be equal: an exact identity,
checked to 1e-10 relative (round-off only).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import kmeviz as K
from kmeviz.kernels import RadialKernel

A = 0.7
SCALE = (2 * A) ** A
IMQ = K.IMQKernel(c=np.sqrt(2 * A), beta=-A)


class RationalQuadratic(RadialKernel):
    """(1 + r²/(2a))^(-a), known to kmeviz only through ``radial`` and its derivatives."""

    def __init__(self, a: float):
        self.a = a

    def radial(self, sq):
        return (1.0 + sq / (2 * self.a)) ** -self.a

    def radial_derivatives(self, sq):
        base = 1.0 + sq / (2 * self.a)
        return (base**-self.a, -0.5 * base ** (-self.a - 1),
                (self.a + 1) / (4 * self.a) * base ** (-self.a - 2))


RQ = RationalQuadratic(A)


@pytest.fixture
def data():
    rng = np.random.default_rng(7)
    return rng.normal(size=(120, 2)), rng.normal(0.4, 1.2, size=(90, 2))


def test_gram_blocks_paired_and_diag_agree_with_the_gram(data):
    X, Y = data
    G = RQ(X, Y)
    np.testing.assert_allclose(G, SCALE * IMQ(X, Y), rtol=1e-12)
    blocks = np.vstack([b for _, b in RQ.gram_blocks(X, Y, working_memory=8 * 90 * 7)])
    np.testing.assert_allclose(blocks, G, rtol=1e-15)
    np.testing.assert_allclose(RQ.paired(X[:90], Y), np.diag(G[:90]), rtol=1e-12)
    np.testing.assert_allclose(RQ.diag(X), 1.0)
    total, trace = RQ.gram_sum(X)
    assert total == pytest.approx(RQ(X).sum(), rel=1e-12) and trace == pytest.approx(120)


def test_a_user_kernel_works_in_mmd2(data):
    X, Y = data
    Z = np.vstack([X, Y])
    w = np.r_[np.full(120, 1 / 120), np.full(90, -1 / 90)]
    value = K.mmd2(X, Y, RQ)
    assert value == pytest.approx(w @ RQ(Z) @ w, rel=1e-10)  # the naive (m + n)² formula
    assert value == pytest.approx(SCALE * K.mmd2(X, Y, IMQ), rel=1e-10)
    assert K.mmd2(X, Y, RQ, estimator="unbiased") == pytest.approx(
        SCALE * K.mmd2(X, Y, IMQ, estimator="unbiased"), rel=1e-10)


def test_a_user_kernel_works_in_nystrom_kme(data):
    X, _ = data
    ours = K.NystromKME(RQ, 30, rng=0).fit(X)
    imq = K.NystromKME(IMQ, 30, rng=0).fit(X)
    # α = K⁻ K_mn 1/n is scale-free; repeated landmarks may share it differently, so
    # compare the total weight per distinct landmark and the embeddings themselves
    def per_point(ny):
        return np.bincount(ny.landmark_indices_, ny.weights_, minlength=len(X))

    np.testing.assert_allclose(per_point(ours), per_point(imq), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(ours.evaluate(X), SCALE * imq.evaluate(X), rtol=1e-8)
    every_point = K.NystromKME(RQ, landmarks=np.arange(120)).fit(X)
    assert every_point.distance(K.EmpiricalKME(RQ).fit(X)) < 1e-6  # projection onto all of X


def test_a_user_kernel_works_in_ksd2_and_ksd_test(data):
    X, _ = data
    target = K.NormalTarget(np.zeros(2))
    for estimator in ("biased", "unbiased"):
        assert K.ksd2(X, target, RQ, estimator=estimator) == pytest.approx(
            SCALE * K.ksd2(X, target, IMQ, estimator=estimator), rel=1e-10)
    for method in ("full", "nystrom", "linear"):
        ours = K.ksd_test(X, target, RQ, estimator=method, rng=3)
        imq = K.ksd_test(X, target, IMQ, estimator=method, rng=3)
        assert ours.statistic == pytest.approx(SCALE * imq.statistic, rel=1e-10), method
        assert ours.p_value == pytest.approx(imq.p_value, rel=1e-9), method


def test_stein_kernel_is_a_kernel_and_follows_the_protocol(data):
    X, _ = data
    stein = K.SteinKernel(RQ, K.NormalTarget(np.zeros(2)))
    assert isinstance(stein, K.Kernel)
    H = stein(X)
    np.testing.assert_allclose(np.vstack([b for _, b in stein.gram_blocks(X, X,
                                                                         working_memory=9000)]),
                               H, rtol=1e-12, atol=1e-14)  # entries are sums of O(1) terms
    np.testing.assert_allclose(stein.diag(X), np.diag(H), rtol=1e-10)
    assert stein.gram_sum(X)[0] == pytest.approx(H.sum(), rel=1e-10)


def test_no_module_outside_the_kernels_package_calls_a_private_kernel_method():
    root = Path(__file__).resolve().parents[1]
    private = re.compile(r"\.(_prepare|_tile|_gram|_paired|_diag|_sample_frequencies)\(")
    offenders = [f"{path.relative_to(root)}:{i}" for folder in ("kmeviz", "apps", "benchmarks",
                                                                 "notebooks", "tests")
                 for path in (root / folder).rglob("*.py")
                 if "kmeviz/kernels" not in path.as_posix()
                 for i, line in enumerate(path.read_text().splitlines(), 1)
                 if private.search(line)]
    assert offenders == []


def test_a_kernel_declares_what_it_offers_and_the_tests_read_it():
    """``Kernel.capabilities`` (issue 57): derived from what a kernel implements (a
    spectral measure, φ, φ' and φ'') and what it declares (characteristic); a Stein test
    given a kernel without derivatives says so before it runs, by name."""
    import numpy as np

    import kmeviz as K
    from kmeviz.kernels.base import RadialKernel
    from kmeviz.needs import KernelCapability as C

    class Bump(RadialKernel):  # φ only
        def radial(self, sq):
            return np.exp(-np.sqrt(np.maximum(sq, 0.0)))

    assert K.GaussianKernel(1.0).capabilities == (C.SHIFT_INVARIANT | C.RADIAL
                                                  | C.DIFFERENTIABLE | C.CHARACTERISTIC)
    assert K.LaplaceKernel(1.0).capabilities == C.SHIFT_INVARIANT | C.CHARACTERISTIC
    assert Bump().capabilities == C.RADIAL
    assert C.DIFFERENTIABLE not in K.PrecomputedKernel(np.eye(5)).capabilities
    X = np.random.default_rng(0).standard_normal((50, 2))
    target = K.NormalTarget(np.zeros(2))
    with pytest.raises(TypeError, match=r"ksd_test\(estimator='full'\) needs the kernel's "
                                        r"derivatives.*Bump gives no derivatives"):
        K.ksd_test(X, target, Bump())
    with pytest.raises(TypeError, match="needs a shift-invariant kernel"):
        K.ksd_test(X, target, Bump(), estimator="rff")
