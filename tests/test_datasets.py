import numpy as np
import pytest

import kmeviz as K


def test_blobs_covariance_has_eigenvalue_ratio_epsilon():
    Z = K.blobs(40000, epsilon=4.0, spacing=100.0, rng=0)
    resid = Z - 100.0 * np.round(Z / 100.0)  # offsets from the nearest centre
    eig = np.linalg.eigvalsh(np.cov(resid.T))
    assert eig[1] / eig[0] == pytest.approx(4.0, rel=0.1)
    centres = np.unique(100.0 * np.round(Z / 100.0), axis=0)
    assert len(centres) >= 25


def test_two_sample_generators_are_seeded_and_sized():
    for gen in (K.blobs_two_sample, K.rings_two_sample, K.uniform_boxes_two_sample):
        X, Y = gen(30, 20, rng=1)
        X2, Y2 = gen(30, 20, rng=1)
        assert X.shape[0] == 30 and Y.shape[0] == 20
        np.testing.assert_array_equal(X, X2)
        np.testing.assert_array_equal(Y, Y2)


def test_rings_and_boxes_follow_their_definitions():
    X, Y = K.rings_two_sample(500, rng=0)
    r2x, r2y = (X**2).sum(1), (Y**2).sum(1)
    assert np.all((r2x >= 1) & (r2x <= 16)) and np.all((r2y < 1) | (r2y > 16))
    assert np.all(np.abs(np.vstack([X, Y])) <= 5)
    A, B = K.uniform_boxes_two_sample(100, dim=4, rng=0)
    assert A.max() <= 0.95 <= B.min() and B.max() <= 1.0 and A.shape == (100, 4)


def test_blob_variance_multiplies_the_covariance():
    Z = K.blobs(40000, variance=2.5, spacing=100.0, rng=0)
    resid = Z - 100.0 * np.round(Z / 100.0)
    np.testing.assert_allclose(np.cov(resid.T), 2.5 * np.eye(2), atol=0.1)
    X, Y = K.blobs_two_sample(10, variance=2.0, rng=0)
    assert X.shape == Y.shape == (10, 2)
