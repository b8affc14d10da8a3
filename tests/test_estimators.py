"""The scikit-learn estimator convention, checked on every estimator of kmeviz.

``__init__`` stores its arguments untouched; ``fit`` validates them (the error names the
argument) and sets fitted attributes that end in ``_``; using an estimator before ``fit``
raises the shared ``NotFittedError``. One name for the landmark budget; ``rng`` is
keyword-only wherever samples are drawn.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import kmeviz as K
from kmeviz import NotFittedError

X = np.random.default_rng(0).normal(size=(40, 2))
Y = np.sin(X[:, :1])
GAUSS = K.GaussianKernel(1.0)

#: (estimator, keyword given a bad value, the bad value, how to fit, a method needing fit)
CASES = [
    (lambda **kw: K.EmpiricalKME(**{"kernel": GAUSS, **kw}), "kernel", "rbf", (X,),
     "evaluate"),
    (lambda **kw: K.NystromKME(**{"kernel": GAUSS, **kw}), "n_landmarks", -3, (X,),
     "evaluate"),
    (lambda **kw: K.NystromKME(**{"kernel": GAUSS, **kw}), "rcond", -1.0, (X,), "evaluate"),
    (lambda **kw: K.UniformSubsampleKME(**{"kernel": GAUSS, "n_landmarks": 5, **kw}),
     "kernel", None, (X,), "evaluate"),
    (lambda **kw: K.KernelHerding(**{"kernel": GAUSS, "n_landmarks": 5, **kw}),
     "max_candidates", 0, (X,), "evaluate"),
    (lambda **kw: K.GreedyDeterminantKME(**{"kernel": GAUSS, "n_landmarks": 5, **kw}),
     "n_landmarks", 0, (X,), "evaluate"),
    (lambda **kw: K.RandomFeatureKME(**{"kernel": GAUSS, "n_features": 8, **kw}),
     "n_features", 0, (X,), "evaluate"),
    (lambda **kw: K.RandomFourierFeatures(**{"kernel": GAUSS, **kw}), "kernel",
     K.SteinKernel(GAUSS, K.NormalTarget(np.zeros(2))), (X,), "transform"),
    (lambda **kw: K.FastfoodFeatures(**{"kernel": GAUSS, **kw}), "n_features", 2.5, (X,),
     "transform"),
    (lambda **kw: K.ConditionalMeanEmbedding(**{"kernel_x": GAUSS, "kernel_y": GAUSS,
                                                "reg": 0.1, **kw}), "reg", -1.0, (X, Y),
     "weights"),
]
IDS = [f"{type(make()).__name__}-{name}" for make, name, *_ in CASES]


@pytest.mark.parametrize(("make", "name", "bad", "fit_args", "method"), CASES, ids=IDS)
def test_init_stores_and_fit_validates(make, name, bad, fit_args, method):
    est = make(**{name: bad})  # no error yet: __init__ only stores
    assert getattr(est, name) is bad
    with pytest.raises((ValueError, TypeError), match=name):
        est.fit(*fit_args)


@pytest.mark.parametrize(("make", "name", "bad", "fit_args", "method"), CASES, ids=IDS)
def test_fitted_attributes_end_in_underscore_and_not_fitted_is_shared(make, name, bad,
                                                                      fit_args, method):
    est = make()
    before = set(vars(est))
    with pytest.raises(NotFittedError, match="not fitted"):
        getattr(est, method)(X[:3])
    assert est.fit(*fit_args) is est
    added = set(vars(est)) - before
    assert added and all(a.endswith("_") for a in added), added
    getattr(est, method)(X[:3])


def test_not_fitted_error_keeps_the_old_exception_type():
    assert issubclass(NotFittedError, ValueError)
    assert issubclass(NotFittedError, AttributeError)
    assert issubclass(NotFittedError, RuntimeError)  # what kmeviz raised before


def test_one_name_for_the_landmark_budget():
    for cls in (K.NystromKME, K.UniformSubsampleKME, K.KernelHerding):
        est = cls(GAUSS, n_landmarks=6, rng=0).fit(X)
        assert est.points_.shape == (6, 2), cls


def test_rng_is_keyword_only_wherever_samples_are_drawn():
    samplers = [K.NormalTarget.sample, K.StudentTTarget.sample, K.GaussBernoulliRBM.sample,
                K.GaussianMixture.sample, K.Pendulum.transitions]
    for method in samplers:
        kind = inspect.signature(method).parameters["rng"].kind
        assert kind is inspect.Parameter.KEYWORD_ONLY, method.__qualname__


def test_nystrom_ksd_is_nystrom_kme_on_a_stein_kernel():
    """No parallel Nyström machinery: the KSD pieces are a fitted NystromKME."""
    from kmeviz.gof import nystrom_stein

    target = K.NormalTarget(np.zeros(2))
    nys = nystrom_stein(X, target, K.IMQKernel(), n_landmarks=8, rng=0)
    assert type(nys) is K.NystromKME and isinstance(nys.kernel, K.SteinKernel)
    direct = K.NystromKME(K.SteinKernel(K.IMQKernel(), target), 8, rng=0).fit(X)
    assert nys.squared_norm() == direct.squared_norm()
    assert K.ksd2_nystrom(X, target, K.IMQKernel(), n_landmarks=8, rng=0) == \
        nys.squared_norm()
