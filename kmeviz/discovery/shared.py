"""The CI tests of a PC run, sharing their work: KCI's residual operator R_Z computed once
per conditioning set Z and each variable's residual Gram once per (variable, Z), every
p-value equal to ``ci_test``'s on the same columns; the other registered tests through
``ci_test`` itself; a cache keyed by (X, Y, Z) for all."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from scipy import stats

from ..budget import check_budget
from ..conditional_independence.api import DEFAULT_EPSILON, ci_test
from ..conditional_independence.kci import (
    FACTOR_MIN_N,
    FACTOR_SHARE,
    ResidualGrams,
    Residualiser,
    augmented,
    centred_factor,
    default_kci_kernels,
)

#: Residual operators (one Cholesky factor each) kept at once, and residual Grams.
KEPT_OPERATORS = 32
KEPT_GRAMS = 256


class _Kept(OrderedDict):
    """A least-recently-used map of at most ``limit`` entries."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit = limit

    def get_or_make(self, key, make):
        if key in self:
            self.move_to_end(key)
            return self[key]
        value = self[key] = make()
        if len(self) > self.limit:
            self.popitem(last=False)
        return value


class SharedTests:
    """p-values of X_i ⫫ X_j | X_S for the columns of one z-scored table.

    ``estimator="kci"`` with the Gamma null computes R_S = ε(K̃_S + εI)⁻¹ once per S
    (Zhang et al. 2011, Eq. 11) and R_S K̃ R_S once per (variable, S), exactly as
    ``ci_test(estimator="kci", null="gamma")`` does for one triple; any other
    estimator/null runs ``ci_test``. ``counts`` says how many tests ran and how many
    Cholesky factorisations of K̃_S + εI they needed.
    """

    def __init__(self, data: np.ndarray, *, estimator: str = "kci", null: str | None = None,
                 epsilon: float = DEFAULT_EPSILON, rng=None):
        self.data, self.estimator, self.null = data, estimator, null
        self.epsilon, self.rng = float(epsilon), rng
        self.shared = estimator == "kci" and null in (None, "gamma")
        self.results: dict = {}  # (i, j, S) -> (statistic, p-value)
        self._operators, self._grams = _Kept(KEPT_OPERATORS), _Kept(KEPT_GRAMS)
        self.counts = {"tests": 0, "factorisations": 0, "cache_hits": 0}

    def __call__(self, i: int, j: int, S: tuple) -> tuple[float, float]:
        """(statistic, p-value) of X_min(i,j) ⫫ X_max(i,j) | X_S, computed once."""
        i, j, S = min(i, j), max(i, j), tuple(sorted(S))
        key = (i, j, S)
        if key in self.results:
            self.counts["cache_hits"] += 1
            return self.results[key]
        check_budget()
        self.counts["tests"] += 1
        if self.shared and S:
            out = self._kci_gamma(i, j, S)
        else:
            column = self.data[:, [i]], self.data[:, [j]]
            result = ci_test(*column, self.data[:, list(S)] if S else None,
                             estimator=self.estimator, null=self.null,
                             epsilon=self.epsilon, rows="iid", rng=self._seed(key))
            out = (float(result.statistic), float(result.p_value))
        self.results[key] = out
        return out

    def _seed(self, key) -> int | None:
        if self.rng is None:
            return None
        return int(np.random.default_rng([self.rng, key[0], key[1], *key[2]]).integers(2**62))

    # -- KCI with shared residual operators ------------------------------------------------
    def _kernel(self, S: tuple):
        return default_kci_kernels(self.data.shape[0], len(S)).z

    def _cap(self) -> int:
        n = self.data.shape[0]
        return n // FACTOR_SHARE if n >= FACTOR_MIN_N else 0

    def _operator(self, S: tuple) -> Residualiser:
        def make():
            self.counts["factorisations"] += 1
            Z = self.data[:, list(S)]
            return Residualiser(centred_factor(self._kernel(S), Z, self._cap()), self.epsilon)
        return self._operators.get_or_make(S, make)

    def _residual_gram(self, role: str, v: int, S: tuple):
        def make():
            column = self.data[:, [v]]
            V = augmented(column, self.data[:, list(S)]) if role == "x" else column
            gram = centred_factor(self._kernel(S), V, self._cap())
            return self._operator(S).residual_gram(gram)
        return self._grams.get_or_make((role, v, S), make)

    def _kci_gamma(self, i: int, j: int, S: tuple) -> tuple[float, float]:
        grams = ResidualGrams(self._residual_gram("x", i, S), self._residual_gram("y", j, S))
        statistic, moments = grams.statistic(), grams.gamma_moments()
        p_value = float(stats.gamma(moments["shape"], scale=moments["scale"]).sf(statistic))
        return statistic, p_value
