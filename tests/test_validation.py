"""Bad input raises ValueError/TypeError naming the argument, at the public boundary."""

import numpy as np
import pytest

import kmeviz as K

GOOD = np.random.default_rng(0).normal(size=(10, 2))
KERNEL = K.GaussianKernel(1.0)

ESTIMATORS = {
    "mmd2": lambda X, Y: K.mmd2(X, Y, KERNEL),
    "mmd2_unbiased": lambda X, Y: K.mmd2(X, Y, KERNEL, estimator="unbiased"),
    "mmd2_linear": lambda X, Y: K.mmd2_linear(X, Y, KERNEL),
    "mmd2_block": lambda X, Y: K.mmd2_block(X, Y, KERNEL),
    "fastmmd_fourier": lambda X, Y: K.mmd2_fastmmd(X, Y, KERNEL, n_features=8, rng=0),
    "fastmmd_fastfood": lambda X, Y: K.mmd2_fastmmd(
        X, Y, KERNEL, n_features=8, features="fastfood", rng=0
    ),
    "circular": lambda X, Y: K.circular_discrepancy(X, Y, [1.0, 0.0]),
    "median_heuristic": lambda X, Y: K.median_heuristic(X, Y),
    "gram": lambda X, Y: KERNEL(X, Y),
}

with_nan = GOOD.copy()
with_nan[3, 1] = np.nan
with_inf = GOOD.copy()
with_inf[0, 0] = np.inf
BAD_X = {
    "nan": (with_nan, ValueError, "NaN or infinite"),
    "inf": (with_inf, ValueError, "NaN or infinite"),
    "1-D": (GOOD[:, 0], ValueError, "2-D"),
    "3-D": (GOOD[None], ValueError, "2-D"),
    "empty": (np.empty((0, 2)), ValueError, "non-empty"),
    "complex": (GOOD + 1j, TypeError, "real-valued"),
    "object": (np.array([[1, "a"], [2, None]], dtype=object), TypeError, "real numbers"),
    "strings": (np.array([["a", "b"]]), TypeError, "real numbers"),
    "none": (None, TypeError, "2-D array"),
}


@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize("case", BAD_X)
def test_bad_samples_name_the_argument(estimator, case):
    bad, exc, msg = BAD_X[case]
    with pytest.raises(exc, match=f"^X .*{msg}|^X {msg}|^X must .*{msg}"):
        ESTIMATORS[estimator](bad, GOOD)
    if case == "none" and estimator in ("gram", "median_heuristic"):
        return  # Y=None legitimately means "X against itself" there
    with pytest.raises(exc, match="^Y "):
        ESTIMATORS[estimator](GOOD, bad)


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_mismatched_dimensions(estimator):
    with pytest.raises(
        ValueError, match="same dimension.*X.shape=\\(10, 2\\).*Y.shape=\\(10, 3\\)"
    ):
        ESTIMATORS[estimator](GOOD, np.ones((10, 3)))


@pytest.mark.parametrize("estimator", ["mmd2_unbiased", "mmd2_linear", "mmd2_block"])
def test_too_few_samples(estimator):
    with pytest.raises(ValueError, match="Y needs at least 2 samples, got 1"):
        ESTIMATORS[estimator](GOOD, GOOD[:1])


def test_fastmmd_unbiased_needs_two_samples():
    with pytest.raises(ValueError, match="X needs at least 2 samples"):
        K.mmd2_fastmmd(GOOD[:1], GOOD, KERNEL, estimator="unbiased")


@pytest.mark.parametrize("make", [K.GaussianKernel, K.LaplaceKernel])
@pytest.mark.parametrize(
    "bandwidth, exc",
    [
        (0.0, ValueError),
        (-1.0, ValueError),
        (np.nan, ValueError),
        ("1", TypeError),
        (None, TypeError),
        (True, TypeError),
    ],
)
def test_bad_bandwidth(make, bandwidth, exc):
    with pytest.raises(exc, match="bandwidth"):
        make(bandwidth)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"c": 0.0}, "c must be > 0"),
        ({"beta": 0.0}, "beta must lie in"),
        ({"beta": -np.inf}, "beta must be finite"),
        ({"beta": 0.5}, "beta must lie in"),
    ],
)
def test_bad_imq_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        K.IMQKernel(**kwargs)


@pytest.mark.parametrize(
    "L, exc", [(0, ValueError), (-5, ValueError), (2.5, TypeError), ("8", TypeError)]
)
@pytest.mark.parametrize("method", ["fourier", "fastfood"])
def test_bad_number_of_features(L, exc, method):
    with pytest.raises(exc, match="n_features"):
        K.mmd2_fastmmd(GOOD, GOOD, KERNEL, n_features=L, features=method)


def test_bad_options():
    with pytest.raises(ValueError, match="estimator must be one of"):
        K.mmd2(GOOD, GOOD, KERNEL, estimator="biassed")
    with pytest.raises(ValueError, match="features must be one of"):
        K.mmd2_fastmmd(GOOD, GOOD, KERNEL, features="nystrom")
    with pytest.raises(ValueError, match="algorithm must be one of"):
        K.mmd2_fastmmd(GOOD, GOOD, KERNEL, algorithm="3")
    with pytest.raises(ValueError, match="block_size"):
        K.mmd2_block(GOOD, GOOD, KERNEL, block_size=50)
    with pytest.raises(ValueError, match="block_size must be >= 2"):
        K.mmd2_block(GOOD, GOOD, KERNEL, block_size=1)
    with pytest.raises(TypeError, match="kernel must be a kmeviz kernel"):
        K.mmd2(GOOD, GOOD, lambda a, b: a @ b.T)
    with pytest.raises(TypeError, match="kernel must be shift-invariant"):
        K.mmd2_fastmmd(GOOD, GOOD, K.Kernel())
    with pytest.raises(TypeError, match="rng must be"):
        K.mmd2_fastmmd(GOOD, GOOD, KERNEL, rng="seed")
    with pytest.raises(ValueError, match="frequencies have dimension 3"):
        K.mmd2_fastmmd(GOOD, GOOD, KERNEL, frequencies=np.ones((4, 3)))
    with pytest.raises(ValueError, match="omega has dimension 3"):
        K.circular_discrepancy(GOOD, GOOD, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="omega contains"):
        K.circular_discrepancy(GOOD, GOOD, [1.0, np.nan])
    with pytest.raises(ValueError, match="all points coincide"):
        K.median_heuristic(np.zeros((5, 2)))
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        K.blobs(10, epsilon=0)
    with pytest.raises(ValueError, match="n must be >= 1"):
        K.blobs(0)
