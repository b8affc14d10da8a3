import numpy as np
import pytest

import kmeviz as K
from kmeviz.twosample.circular import running_mean


def test_claim5_amplitude_is_max_of_objective(small_pair, rng):
    X, Y = small_pair
    for _ in range(5):
        cd = K.circular_discrepancy(X, Y, rng.normal(size=3))
        y = np.linspace(0, 2 * np.pi, 200_001)
        values = cd.objective(y)
        # grid spacing 3e-5 rad: the sinusoid's max is missed by at most A*(3e-5)^2/2
        assert values.max() == pytest.approx(cd.amplitude, abs=1e-9)
        assert cd.objective(cd.decision_diameter[0])[0] == pytest.approx(cd.amplitude, rel=1e-12)
        assert cd.objective(cd.decision_diameter[1])[0] == pytest.approx(-cd.amplitude, rel=1e-12)


def test_circular_discrepancy_matches_equation_9(small_pair):
    """η² = Σ_ij a_i a_j cos(x_i - x_j) (Eq. (9))."""
    X, Y = small_pair
    cd = K.circular_discrepancy(X, Y, [0.4, -1.0, 0.7])
    t = np.concatenate([cd.angles_x, cd.angles_y])
    a = np.concatenate([np.full(len(X), 1 / len(X)), np.full(len(Y), -1 / len(Y))])
    eta2 = a @ np.cos(t[:, None] - t[None, :]) @ a
    assert cd.amplitude**2 == pytest.approx(eta2, rel=1e-12)
    assert np.all((cd.angles_x >= 0) & (cd.angles_x < 2 * np.pi))


def test_ensemble_equals_random_feature_mmd(small_pair):
    """Claim 6 with the same frequencies: K(0) mean η² = random-feature MMD²_b."""
    X, Y = small_pair
    k = K.GaussianKernel(1.1)
    W = k.sample_frequencies(300, 3, rng=2)
    ens = K.circular_ensemble(X, Y, W, kernel=k)
    assert ens.mean() == pytest.approx(K.mmd2_fastmmd(X, Y, k, frequencies=W), rel=1e-12)
    per_omega = [K.circular_discrepancy(X, Y, w).amplitude ** 2 for w in W[:10]]
    np.testing.assert_allclose(ens[:10], per_omega, rtol=1e-12)
    assert running_mean(ens)[-1] == pytest.approx(ens.mean())
    assert running_mean([1.0, 3.0, 2.0]).tolist() == [1.0, 2.0, 2.0]


def test_ensemble_converges_to_exact_mmd():
    X, Y = K.blobs_two_sample(300, epsilon=1.0, shift=1.0, rng=3)
    k = K.GaussianKernel(1.0)
    W = k.sample_frequencies(20000, 2, rng=0)
    assert K.circular_ensemble(X, Y, W, kernel=k).mean() == pytest.approx(
        K.mmd2(X, Y, k), rel=0.03
    )
