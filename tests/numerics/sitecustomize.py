"""Emulate another machine's numerics for the notebook checks (see README).

With ``KMEVIZ_PERTURB=1e-15`` and this folder on ``PYTHONPATH``, every float that a numpy
random generator returns is multiplied by 1 + 1e-15·cos(k) (k = its flat index): the same
seeds give data that differ in the last bits, as round-off on another CPU would make them.
Without the variable this file does nothing.
"""

import os

import numpy as np

_EPS = float(os.environ.get("KMEVIZ_PERTURB", "0"))
_FLOAT_METHODS = ("random", "uniform", "normal", "standard_normal", "laplace", "standard_t",
                  "exponential", "standard_exponential", "gamma", "standard_gamma", "beta",
                  "chisquare", "standard_cauchy", "lognormal", "multivariate_normal",
                  "dirichlet")


def _perturbed(name):
    def method(self, *args, **kwargs):
        out = getattr(np.random.Generator, name)(self, *args, **kwargs)
        if np.asarray(out).dtype.kind != "f":
            return out
        factor = 1.0 + _EPS * np.cos(np.arange(np.size(out))).reshape(np.shape(out))
        return out * factor if isinstance(out, np.ndarray) else float(out * factor)
    return method


if _EPS:
    class PerturbedGenerator(np.random.Generator):
        """A Generator whose float draws are perturbed by a relative ``_EPS``."""

    for _name in _FLOAT_METHODS:
        setattr(PerturbedGenerator, _name, _perturbed(_name))

    def default_rng(seed=None):
        if isinstance(seed, np.random.Generator):
            return seed
        return PerturbedGenerator(np.random.PCG64(seed))

    np.random.default_rng = default_rng
