"""The CI tests of a PC run, sharing their work: KCI's residual operator R_Z computed once
per conditioning set Z and each variable's residual Gram once per (variable, Z), every
p-value equal to ``ci_test``'s on the same columns; the other registered tests through
``ci_test`` itself; a cache keyed by (X, Y, Z) for all."""

from __future__ import annotations

import contextvars
import threading
from collections import OrderedDict

import numpy as np
from scipy import stats

from ..budget import check_budget, memory_limit
from ..conditional_independence.api import DEFAULT_EPSILON, ci_test
from ..conditional_independence.kci import (
    FACTOR_MIN_N,
    FACTOR_SHARE,
    ResidualGrams,
    Residualiser,
    augmented,
    centred,
    centred_factor,
    default_kci_kernels,
)
from ..conditional_independence.tests import kci_gamma
from ..config import get_config
from ..kernels import GaussianKernel
from ..kernels.engine import run_tasks
from ..registry import CONDITIONAL_TESTS

#: Bytes of residual operators and Grams kept at once (least recently used dropped first):
#: a dense residual Gram is 8n² bytes (8 MB at n = 1000, 32 MB at 2000); the budget's
#: memory limit, where one is set, is used instead.
KEPT_BYTES = 1024**3


def unconditional_kernel(n: int, d: int = 1) -> GaussianKernel:
    """The authors' Gaussian for KCI's unconditional test on z-scored data: width
    w(n)/√d with w = 0.8 (n < 200), 0.5 (n < 1200), 0.3 beyond (their code's
    ``hsic`` widths; causal-learn's ``set_width_empirical_hsic``)."""
    w = 0.8 if n < 200 else 0.5 if n < 1200 else 0.3
    return GaussianKernel(w / np.sqrt(d))


def kci_unconditional(Kx: np.ndarray, Ky: np.ndarray) -> tuple[float, float]:
    """(statistic, p-value) of KCI's unconditional test from two centred Grams: the
    statistic tr(K̃_X K̃_Y) (n² HSIC_b) against the Gamma law with mean tr K̃_X tr K̃_Y / n
    and variance 2 ‖K̃_X‖²_F ‖K̃_Y‖²_F / n² (Zhang et al. 2011, Sec. 4, the unconditional
    case; the authors' code)."""
    n = Kx.shape[0]
    statistic = float(np.einsum("ij,ij->", Kx, Ky))
    mean = np.trace(Kx) * np.trace(Ky) / n
    variance = 2.0 * np.einsum("ij,ij->", Kx, Kx) * np.einsum("ij,ij->", Ky, Ky) / n**2
    return statistic, float(stats.gamma(mean**2 / variance, scale=variance / mean).sf(
        statistic))


def _nbytes(value) -> int:
    """The bytes of the arrays a cached value holds: an array, or those in its tuples and
    its objects' attributes."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, tuple):
        return sum(_nbytes(v) for v in value)
    return sum(_nbytes(v) for v in vars(value).values()) if hasattr(value, "__dict__") \
        else 0


class _Kept:
    """A thread-safe least-recently-used map holding at most ``limit`` bytes of arrays; a
    value asked for by two threads at once is made once (the second waits for it)."""

    def __init__(self, limit: int | None):
        self.limit = limit
        self._values: OrderedDict = OrderedDict()
        self._making: dict = {}
        self._lock = threading.Lock()
        self._bytes = 0

    def get_or_make(self, key, make):
        while True:
            with self._lock:
                if key in self._values:
                    self._values.move_to_end(key)
                    return self._values[key][0]
                waiting = self._making.get(key)
                if waiting is None:
                    self._making[key] = threading.Event()
                    break
            waiting.wait()  # made by another thread: then taken from the map (or remade)
        try:
            value = make()
            with self._lock:
                size = _nbytes(value)
                self._values[key] = (value, size)
                self._bytes += size
                while self.limit is not None and self._bytes > self.limit \
                        and len(self._values) > 1:
                    self._bytes -= self._values.popitem(last=False)[1][1]
            return value
        finally:
            with self._lock:
                self._making.pop(key).set()


class SharedTests:
    """p-values of X_i ⫫ X_j | X_S for the columns of one z-scored table.

    ``estimator="kci"`` with the Gamma null computes R_S = ε(K̃_S + εI)⁻¹ once per S
    (Zhang et al. 2011, Eq. 11) and R_S K̃ R_S once per (variable, S), exactly as
    ``ci_test(estimator="kci", null="gamma")`` does for one triple, and for S = ∅ runs
    KCI's unconditional test (``kci_unconditional``, each variable's centred Gram once);
    any other estimator/null runs ``ci_test``. ``counts`` says how many tests ran and how many
    Cholesky factorisations of K̃_S + εI they needed.
    """

    def __init__(self, data: np.ndarray, *, estimator: str = "kci", null: str | None = None,
                 epsilon: float = DEFAULT_EPSILON, eigen_threshold: float | None = None,
                 rng=None):
        self.data, self.estimator, self.null = data, estimator, null
        self.eigen_threshold = eigen_threshold
        self.epsilon, self.rng = float(epsilon), rng
        # the shared pass reproduces exactly what this registered function computes
        spec = CONDITIONAL_TESTS.get(estimator, null)
        self.shared = spec.compute is kci_gamma
        #: the options the chosen test declares (its registry entry: not its name)
        self._options = spec.options
        self.results = _Kept(None)  # (i, j, S) -> (statistic, p-value)
        kept = memory_limit() or KEPT_BYTES
        self._operators, self._grams = _Kept(kept // 4), _Kept(kept - kept // 4)
        self.counts = {"tests": 0, "factorisations": 0}
        self._count_lock = threading.Lock()

    def _count(self, what: str) -> None:
        with self._count_lock:
            self.counts[what] += 1

    def __call__(self, i: int, j: int, S: tuple) -> tuple[float, float]:
        """(statistic, p-value) of X_min(i,j) ⫫ X_max(i,j) | X_S, computed once."""
        i, j, S = min(i, j), max(i, j), tuple(sorted(S))
        return self.results.get_or_make((i, j, S), lambda: self._test(i, j, S))

    def prefetch(self, sequences: list, alpha: float) -> None:
        """Run, in the engine's threads, the tests of independent sequences, each a list
        of sides ``(i, j, [S, ...], stop)``: a side's sets in order until one separates
        (p > α) when ``stop``, and a sequence's next side only if no stopping side
        separated — the order of PC's loop for one pair, whose later requests then find
        every result made. The budget follows each task into its thread."""
        def run(task):
            context, sides = task
            return context.run(self._run_sides, sides, alpha)

        tasks = [(contextvars.copy_context(), sides) for sides in sequences]
        run_tasks(run, tasks, get_config()["n_threads"])

    def _run_sides(self, sides, alpha) -> None:
        for i, j, sets, stop in sides:
            separated = False
            for S in sets:
                if self(i, j, S)[1] > alpha:
                    separated = True
                    if stop:
                        break
            if separated and stop:
                return

    def _test(self, i: int, j: int, S: tuple) -> tuple[float, float]:
        key = (i, j, S)
        check_budget()
        self._count("tests")
        if self.shared and S:
            out = self._kci_gamma(i, j, S)
        elif self.shared:
            out = self._kci_unconditional(i, j)
        else:
            column = self.data[:, [i]], self.data[:, [j]]
            result = ci_test(*column, self.data[:, list(S)] if S else None,
                             estimator=self.estimator, null=self.null,
                             epsilon=self.epsilon, rows="iid", rng=self._seed(key),
                             **({"eigen_threshold": self.eigen_threshold}
                                if "eigen_threshold" in self._options else {}))
            out = (float(result.statistic), float(result.p_value))
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
            self._count("factorisations")
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

    def _kci_unconditional(self, i: int, j: int) -> tuple[float, float]:
        grams = [self._grams.get_or_make(("u", v), lambda v=v: centred(
            unconditional_kernel(self.data.shape[0]).gram(self.data[:, [v]],
                                                          self.data[:, [v]])))
                 for v in (i, j)]
        return kci_unconditional(*grams)

    def _kci_gamma(self, i: int, j: int, S: tuple) -> tuple[float, float]:
        grams = ResidualGrams(self._residual_gram("x", i, S), self._residual_gram("y", j, S))
        statistic = grams.statistic()
        if self.eigen_threshold:  # each Gram's cut once per (variable, S), as its Gram
            grams = ResidualGrams(*(self._grams.get_or_make(
                ("cut", role, v, S), lambda g=g: g.truncated(self.eigen_threshold))
                for role, v, g in (("x", i, grams.x), ("y", j, grams.y))))
        moments = grams.gamma_moments()
        p_value = float(stats.gamma(moments["shape"], scale=moments["scale"]).sf(statistic))
        return statistic, p_value
