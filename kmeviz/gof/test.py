"""Goodness-of-fit tests H0: Q = P from a sample of Q and the score of P (``ksd_test``).

Methods (Kalinke et al. Sec. 4–5):

- ``"full"``: V-statistic KSD² (Eq. 5) with the wild bootstrap (Eq. 9) — all D replicates
  wᵀ H w / n² come from one streamed pass H W over the Stein Gram, O(D n²) flops in
  matrix products, O(nD + tile) memory.
- ``"nystrom"``: Nyström KSD² (Eq. 8) with the Nyström bootstrap (Eq. 11) computed as
  ||R K_mn w||² / n² for all D sign vectors at once: O(m³ + D n m), never O(D n²).
- ``"linear"``: the linear-time KSD of Liu et al. (2016), mean of h_p over disjoint pairs,
  with its asymptotic normal null.
- ``"fssd"``: FSSD with random test locations (Jitkrittum et al. 2017), U-statistic with
  the simulated null Σ ω_k (Z_k² - 1) / n; ``"fssd-opt"``: locations and Gaussian
  bandwidth chosen on 20 % of the sample by the power criterion, tested on the rest
  (``kmeviz.gof.fssd``).
- ``"rff"`` and ``"l1-imq"``: random feature Stein discrepancies of Huggins & Mackey
  (2018) — RFF-KSD from a shift-invariant kernel's frequencies (Gauss or Cauchy RFF), and
  L1 IMQ from an IMQ kernel (``kmeviz.gof.features``) — with a simulated normal null.

Bootstrap signs follow the Markov chain of Eq. (10) (flip with probability 1/2), or are
i.i.d. Rademacher (``wild="rademacher"``). p-values are (1 + #{null ≥ stat}) / (1 + D).
"""

from __future__ import annotations

import time

import numpy as np

from .._validation import (
    check_choice,
    check_in_interval,
    check_positive_int,
    check_rng,
    check_samples,
)
from ..chunked import check_chunked_samples, is_dask_array, reject_dask
from ..kernels import SteinKernel, checked_score, prepared_rows, symmetric_quadratic_forms
from ..results import (
    TestResult,
    normal_result,
    one_pass_runtime,
    renamed_argument,
    simulated_result,
)
from .features import NULL_COVARIANCES, l1_imq_ksd, rff_ksd
from .fssd import fssd_features, fssd_opt, fssd_rand  # noqa: F401 - fssd_features re-exported
from .ksd import nystrom_stein

METHODS = ("full", "nystrom", "linear", "fssd", "fssd-opt", "rff", "l1-imq")

#: the methods built on J random features or locations, and the function that runs each
FEATURE_METHODS = {"fssd": fssd_rand, "fssd-opt": fssd_opt, "rff": rff_ksd, "l1-imq": l1_imq_ksd}


WILD = ("markov", "rademacher")


class WildSigns:
    """Bootstrap signs w ∈ {±1}^(n × D), handed out block by block (O(block · D) memory).

    Eq. (10): w_1 uniform, then w_i = -w_{i-1} with ``flip_probability``, else w_{i-1}; or
    i.i.d. Rademacher signs. With flip probability ½ (the default, and ``ksd_test``'s) the
    chain *is* i.i.d. uniform (each step flips a fair coin independent of the past), so
    both schemes draw the signs of row block k = i // ``BLOCK_ROWS`` from a generator of its
    own seed (``SeedSequence(entropy, spawn_key=(k,))``): ``rows(start, stop)`` gives the
    same signs in any order and any process, which lets the chunks of a dask array take
    theirs where they live. Another flip probability makes a real chain, drawn in row
    order by ``take`` only.
    """

    BLOCK_ROWS = 4096

    def __init__(self, n_bootstrap: int, rng, *, scheme: str = "markov",
                 flip_probability: float = 0.5):
        self.scheme = check_choice(scheme, "wild", WILD)
        self.flip_probability = check_in_interval(flip_probability, "flip_probability", 0.0,
                                                  1.0)
        self.n_bootstrap = n_bootstrap
        self.entropy = [int(e) for e in check_rng(rng).integers(0, 2**63, size=4)]
        self._next_row, self._parity, self._cached = 0, None, (None, None)
        self._chain_rng = np.random.default_rng(np.random.SeedSequence(self.entropy))

    @property
    def independent(self) -> bool:
        """True when the signs are i.i.d. uniform (Rademacher, or a chain with p = ½)."""
        return self.scheme == "rademacher" or self.flip_probability == 0.5

    def __getstate__(self):  # shipped to dask workers without the cached block
        return {**self.__dict__, "_cached": (None, None)}

    @staticmethod
    def _fair_bits(rng, rows: int, columns: int) -> np.ndarray:
        k = rows * columns
        raw = np.frombuffer(rng.bytes((k + 7) // 8), dtype=np.uint8)
        return np.unpackbits(raw, count=k).reshape(rows, columns).view(bool)

    def _block(self, k: int) -> np.ndarray:
        if self._cached[0] != k:
            seed = np.random.SeedSequence(self.entropy, spawn_key=(k,))
            self._cached = (k, self._fair_bits(np.random.default_rng(seed), self.BLOCK_ROWS,
                                               self.n_bootstrap))
        return self._cached[1]

    def rows(self, start: int, stop: int) -> np.ndarray:
        """The signs of rows [start, stop) of every chain, shape (stop - start, D), as ±1.0."""
        if not self.independent:
            raise ValueError("rows(start, stop) needs i.i.d. signs (Rademacher, or flip "
                             "probability 1/2); a chain with flip probability "
                             f"{self.flip_probability} is drawn in row order by take()")
        size = self.BLOCK_ROWS
        first, last = start // size, max(start, stop - 1) // size
        bits = np.vstack([self._block(k) for k in range(first, last + 1)])
        return 1.0 - 2.0 * bits[start - first * size : stop - first * size]

    def take(self, rows: int) -> np.ndarray:
        """The next ``rows`` signs of every chain, shape (rows, D), as ±1.0."""
        start, self._next_row = self._next_row, self._next_row + rows
        if self.independent:
            return self.rows(start, start + rows)
        flips = self._chain_rng.random((rows, self.n_bootstrap)) < self.flip_probability
        if self._parity is None:
            flips[0] = self._fair_bits(self._chain_rng, 1, self.n_bootstrap)[0]
        else:
            flips[0] ^= self._parity
        parity = np.bitwise_xor.accumulate(flips, axis=0)
        self._parity = parity[-1].copy()
        return 1.0 - 2.0 * parity


def wild_signs(n: int, n_bootstrap: int, rng, *, scheme: str = "markov",
               flip_probability: float = 0.5) -> np.ndarray:
    """(n, D) signs of ``WildSigns`` in one block."""
    return WildSigns(n_bootstrap, rng, scheme=scheme,
                     flip_probability=flip_probability).take(n)


def full_wild_bootstrap(stein: SteinKernel, prepared, W) -> tuple[float, np.ndarray]:
    """(V-statistic, wild bootstrap replicates wᵀ H w / n² for each column w of W), from the
    tiles of H on or above the diagonal (H is symmetric): half the flops of H W."""
    n = prepared[0].shape[0]
    quad, row_sums, _ = symmetric_quadratic_forms(stein, prepared, W)
    return float(row_sums.sum()) / n**2, quad / n**2


def linear_ksd_terms(stein: SteinKernel, prepared) -> np.ndarray:
    """h_p(x_{2i-1}, x_{2i}) over disjoint consecutive pairs (Liu et al. 2016, Sec. 4)."""
    half = prepared[0].shape[0] // 2
    return stein.paired_prepared(prepared_rows(prepared, slice(0, 2 * half, 2)),
                                 prepared_rows(prepared, slice(1, 2 * half, 2)))


def ksd_test(X, target, kernel, *, method: str = "full", n_resamples: int | None = None,
             n_landmarks=None, landmarks=None, alpha: float = 0.05, wild: str = "markov",
             n_locations: int = 10, null_covariance: str = "sample", rng=None,
             n_bootstrap: int | None = None) -> TestResult:
    """Test H0: the sample X comes from ``target`` (known through ``target.score``).

    Parameters
    ----------
    X : array (n, d); a dask array (``kmeviz.chunked``) for ``method="nystrom"``
    target : object with ``score(X)``, the gradient of log p, shape (n, d)
    kernel : the base kernel: a RadialKernel for the Stein kernel (full, nystrom, linear,
        fssd), a GaussianKernel for fssd-opt (its bandwidth is the start), a
        ShiftInvariantKernel for rff (GaussianKernel: Gauss RFF, CauchyKernel: Cauchy
        RFF), an IMQKernel for l1-imq
    method : {"full", "nystrom", "linear", "fssd", "fssd-opt", "rff", "l1-imq"}
    n_resamples : int
        D, the number of bootstrap (or simulated) null replicates (default 500; scipy.stats'
        name). ``n_bootstrap`` is its deprecated name.
    n_landmarks, landmarks : the Nyström sample: m (default 4√n) or indices into X
    alpha : float in (0, 1)
    wild : {"markov", "rademacher"}, the bootstrap signs
    n_locations : int, J: the FSSD test locations or the random features (default 10, the
        paper's J)
    null_covariance : {"sample", "target"}, for rff and l1-imq: the covariance of the
        features that the simulated null uses, from X or from 5000 + 500d draws of
        ``target.sample`` (Huggins & Mackey's choice; L1 IMQ needs it to hold its level)
    rng : Generator, int or None

    Returns
    -------
    TestResult
        ``method`` as given; ``null`` is ``"wild-bootstrap"``, ``"nystrom-bootstrap"``,
        ``"normal"``, ``"chi-square-mixture"`` (FSSD) or ``"feature-normal"`` (rff, l1-imq:
        the norm of a normal vector, simulated); fssd-opt's ``fitted`` holds the chosen
        ``locations``, ``bandwidth`` and the ``train``/``test`` indices; a Nyström test's
        ``fitted`` holds its ``landmarks``, the ``weights`` α = K_mm⁻β (for
        ``stein_witness``) and the fitted ``embedding`` (a ``NystromKME`` of the Stein
        kernel; ``evaluate`` is the witness).

    Examples
    --------
    >>> import numpy as np
    >>> from kmeviz import IMQKernel, NormalTarget
    >>> X = np.random.default_rng(1).laplace(scale=1 / np.sqrt(2), size=(1000, 2))
    >>> res = ksd_test(X, NormalTarget(np.zeros(2)), IMQKernel(), method="nystrom", rng=0)
    >>> bool(res.reject)
    True
    """
    check_choice(method, "method", METHODS)
    check_choice(wild, "wild", WILD)
    D = check_positive_int(renamed_argument("n_bootstrap", n_bootstrap, "n_resamples",
                                            n_resamples, 500), "n_resamples")
    alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)
    rng = check_rng(rng)
    t0 = time.perf_counter()
    if method != "nystrom":
        reject_dask(X, "X", f"ksd_test(method={method!r})",
                    "ksd_test(method='nystrom') or ksd2_nystrom",
                    reason="is exact and quadratic in n, so it" if method == "full"
                    else "is not written for chunks yet and")
    if method in FEATURE_METHODS:
        X = check_samples(X, "X", min_samples=2)
        run = FEATURE_METHODS[method]
        extra = {}
        if method in ("rff", "l1-imq"):
            check_choice(null_covariance, "null_covariance", NULL_COVARIANCES)
            if null_covariance == "target":
                if not callable(getattr(target, "sample", None)):
                    raise TypeError("null_covariance='target' needs a target with a "
                                    "sample(n, rng=) method; use null_covariance='sample'")
                extra["target"] = target
        stat, null_samples, *fitted = run(X, checked_score(target, X), kernel, n_locations,
                                          D, rng, **extra)
        return simulated_result(stat, null_samples, alpha, method=method,
                                null="chi-square-mixture" if "fssd" in method
                                else "feature-normal",
                                runtime=one_pass_runtime(time.perf_counter() - t0),
                                fitted=fitted[0] if fitted else None)
    stein = SteinKernel(kernel, target)
    if is_dask_array(X):  # method == "nystrom" here
        prepared = check_chunked_samples(X, "X", min_samples=2)
        n = prepared.shape[0]
    else:
        prepared = stein.prepare(X)
        n = prepared[0].shape[0]
    if n < 2:
        raise ValueError("X needs at least 2 samples for a goodness-of-fit test")
    if method == "linear":
        terms = linear_ksd_terms(stein, prepared)
        elapsed = time.perf_counter() - t0
        return normal_result(terms, alpha, method="linear",
                             runtime={"statistic": elapsed, "null": 0.0, "total": elapsed})
    if method == "full":
        W = wild_signs(n, D, rng, scheme=wild)
        stat, null_samples = full_wild_bootstrap(stein, prepared, W)
        return simulated_result(stat, null_samples, alpha, method="full", null="wild-bootstrap",
                                runtime=one_pass_runtime(time.perf_counter() - t0))
    signs = WildSigns(D, rng, scheme=wild)  # consumed block by block in the same pass
    nys = nystrom_stein(getattr(prepared, "X", prepared), target, kernel, n_landmarks=n_landmarks,
                        landmarks=landmarks, rng=rng, project=signs)
    null_samples = np.sum((nys.factor_ @ nys.projected_) ** 2, axis=0) / n**2
    return simulated_result(nys.squared_norm(), null_samples, alpha, method="nystrom",
                            null="nystrom-bootstrap",
                            runtime=one_pass_runtime(time.perf_counter() - t0),
                            fitted={"landmarks": nys.landmark_indices_,
                                    "weights": nys.weights_, "embedding": nys})

