"""Kernels, their spectral measures (Bochner) and Gram matrices streamed in tiles.

The kernel protocol (what every estimator calls):

- ``kernel(X, Y)``: the Gram matrix of validated input;
- ``gram(X, Y)``, ``gram_blocks(X, Y, working_memory=...)``, ``paired(X, Y)`` and
  ``diag(X)``: the same on float64 (n, d) arrays that were already validated (estimators
  validate once at their boundary, then call these in their loops);
- ``gram_sum(X, Y)``: the sum of the Gram matrix, tile by tile in bounded memory;
- ``prepare(X)`` and ``tile(a, b)``: the same Gram values on samples prepared once (their
  per-sample quantities, e.g. a target's score, computed once);
- the two hooks a kernel implements, ``prepare_validated(X)`` (``prepare`` without the
  check) and ``tile_into(a, b, out)`` (``tile`` into a given buffer): the threaded passes
  of ``kmeviz.kernels.engine`` (``row_block_results``, ``tile_sums``, …) call only these;
- radial kernels k(x, y) = φ(||x - y||²) also give ``radial(sq)`` = φ and
  ``radial_derivatives(sq)`` = (φ, φ', φ''), which the Stein kernel needs;
- shift-invariant kernels sample their spectral frequencies for random features
  (Eq. (2) of Zhao & Meng, FastMMD).

A new kernel subclasses ``Kernel`` (implementing ``prepare_validated``, ``tile_into`` and
``paired``)
or ``RadialKernel`` (implementing ``radial`` and ``radial_derivatives`` only).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from .._validation import check_pair, check_positive_int, check_rng, check_samples
from ..config import (
    DEFAULT_WORKING_MEMORY,  # noqa: F401  (re-exported by kmeviz.kernels)
    working_memory_or_default,
)
from ..needs import KernelCapability
from .engine import rows_within, tile_side, tile_sums


class _Prepared(NamedTuple):
    """Per-sample quantities computed once and reused by every tile (each field has one
    row per sample, or is None)."""

    X: np.ndarray  # scaled sample, C-contiguous
    h: np.ndarray | None  # per-row statistic (half squared norms, ...)


class Kernel:
    """The kernel protocol (see the module docstring).

    Subclasses implement ``prepare_validated`` (per-sample quantities, computed once),
    ``tile_into``
    (one block of Gram values from two prepared samples, written into ``out``) and
    ``paired``; everything else is derived from those.

    (Implements no paper equation: the protocol every estimator is written against.)
    """

    shift_invariant = False
    #: declared by a kernel whose mean embedding is injective (``KernelCapability``)
    characteristic = False
    #: the distance between points the kernel is a function of, when it is one: "sq"
    #: (squared Euclidean: the radial kernels) or "l1" (Laplace); None otherwise. With
    #: ``from_distance`` it lets a ``KernelCollection`` evaluate many kernels from one
    #: shared distance tile (MMDAgg), whatever their class.
    distance: str | None = None
    #: whether the "points" are row indices into a user's Gram matrix (PrecomputedKernel),
    #: so that a test cannot build kernels of its own from their distances
    points_are_indices = False
    #: Gram-sized temporaries one tile needs; sets the rows per block of ``working_memory``.
    tile_temporaries = 1

    @property
    def capabilities(self) -> KernelCapability:
        """What the kernel offers, from what it implements: shift-invariant (a spectral
        measure), radial, differentiable (``radial_derivatives``), characteristic
        (declared). The tests' ``Needs`` are checked against it (``TestSpec.unmet``)."""
        offers = KernelCapability.NONE
        if self.shift_invariant:
            offers |= KernelCapability.SHIFT_INVARIANT
        if isinstance(self, RadialKernel):
            offers |= KernelCapability.RADIAL
            if type(self).radial_derivatives is not RadialKernel.radial_derivatives:
                offers |= KernelCapability.DIFFERENTIABLE
        if self.characteristic:
            offers |= KernelCapability.CHARACTERISTIC
        return offers

    def __call__(self, X, Y=None) -> np.ndarray:
        """Gram matrix ``K[i, j] = k(X[i], Y[j])`` of shape (n_x, n_y), input validated."""
        if Y is None:
            X = check_samples(X, "X")
            Y = X
        else:
            X, Y = check_pair(X, Y)
        return self.gram(X, Y)

    @property
    def scale(self) -> float:
        """The kernel's length scale: its ``bandwidth`` σ (an IMQ's c), NaN if it has none
        (what collections, tables and plots label a kernel by)."""
        return float(getattr(self, "bandwidth", np.nan))

    def from_distance(self, distance: np.ndarray, out: np.ndarray) -> np.ndarray:
        """k at a tile of ``self.distance`` values, written to ``out`` (``distance`` is
        shared by other kernels and left unchanged); for a kernel whose ``distance`` is
        set."""
        raise TypeError(f"{type(self).__name__} is not a function of a distance between "
                        "points (its class sets no `distance`)")

    # -- implementation hooks ------------------------------------------------------------
    def prepare_validated(self, X: np.ndarray) -> tuple:
        """What a tile needs of validated points X, computed once per sample (a kernel of
        the base protocol writes it and ``tile_into``; ``RadialKernel`` writes both: its
        subclasses write ``radial`` only)."""
        raise NotImplementedError

    def tile_into(self, a: tuple, b: tuple, out: np.ndarray) -> np.ndarray:
        """The Gram block [k(a_i, b_j)] of two ``prepare_validated`` results, written to
        ``out`` (an (n_a, n_b) array of the configured dtype) and returned."""
        raise NotImplementedError

    # -- the protocol on validated float64 (n, d) arrays ----------------------------------
    def gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """The (n_x, n_y) Gram matrix, in one block."""
        out = np.empty((X.shape[0], Y.shape[0]))
        return self.tile_into(self.prepare_validated(X), self.prepare_validated(Y), out)

    def gram_blocks(self, X: np.ndarray, Y: np.ndarray, *,
                    working_memory: int | None = None):
        """Yield ``(row_slice, K[row_slice, :])``: the Gram in row blocks of at most
        ``working_memory`` bytes, Y prepared once and each block of X when it is reached."""
        b = self.prepare_validated(Y)
        for sl in self.row_slices(X.shape[0], Y.shape[0], working_memory):
            yield sl, self.tile(self.prepare_validated(X[sl]), b)

    def prepare(self, X) -> tuple:
        """Validate X and compute its per-sample quantities once (for ``tile``)."""
        return self.prepare_validated(check_samples(X, "X"))

    def tile(self, a: tuple, b: tuple) -> np.ndarray:
        """The Gram block [k(a_i, b_j)] of two prepared samples, a new array."""
        return self.tile_into(a, b, np.empty((a[0].shape[0], b[0].shape[0]), dtype=a[0].dtype))

    def row_slices(self, n_rows: int, n_cols: int, working_memory: int,
                    max_rows: int | None = None):
        """Row blocks whose tiles (with their temporaries) fit ``working_memory``."""
        rows = rows_within(n_cols, working_memory_or_default(working_memory)
                           // self.tile_temporaries)
        rows = rows if max_rows is None else min(rows, max_rows)
        for start in range(0, n_rows, rows):
            yield slice(start, min(start + rows, n_rows))

    def paired(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """``k(X[i], Y[i])`` for each row i, in O(n) memory."""
        raise NotImplementedError

    def diag(self, X: np.ndarray) -> np.ndarray:
        """``k(X[i], X[i])`` for each row i."""
        return self.paired(X, X)

    def gram_sum(
        self, X, Y=None, *, working_memory: int | None = None
    ) -> tuple[float, float]:
        """Sum of all Gram entries and of its diagonal, streamed in tiles.

        With ``Y=None`` the Gram matrix of ``X`` with itself is summed using its
        symmetry (only tiles on or above the diagonal are computed). Memory is
        O(tile) whatever the sample sizes.

        Returns
        -------
        total, trace : float
            ``sum_ij k(x_i, y_j)`` and ``sum_i k(x_i, y_i)`` (trace only when
            ``Y is None``; 0.0 otherwise).
        """
        if Y is None:
            X = check_samples(X, "X")
            return _tiled_sum(self, X, None, working_memory)
        X, Y = check_pair(X, Y)
        return _tiled_sum(self, X, Y, working_memory)


class RadialKernel(Kernel):
    """k(x, y) = φ(||x - y||²). Subclasses give ``radial`` (φ) and ``radial_derivatives``
    ((φ, φ', φ'') with respect to the squared distance); Gram tiles, paired values and the
    Stein kernel (Kalinke et al. Eq. 3) follow from them."""

    distance = "sq"

    def radial(self, sq: np.ndarray) -> np.ndarray:
        """φ at squared distances ``sq``."""
        raise NotImplementedError

    def from_distance(self, distance, out):
        out[...] = distance
        return self._radial_in_place(out)

    def radial_derivatives(self, sq: np.ndarray, out=None):
        """(φ, φ', φ'') at squared distances ``sq``; ``out``, if given, is three arrays of
        sq's shape to write them to (the Stein kernel's tiles then allocate nothing).
        A subclass may ignore ``out`` and return new arrays."""
        raise NotImplementedError(f"{type(self).__name__} gives no derivatives "
                                  "(radial_derivatives), which this test needs")

    def prepare_validated(self, X):
        return _Prepared(X, np.einsum("ij,ij->i", X, X))

    def tile_into(self, a, b, out):
        np.dot(a.X, b.X.T, out=out)
        out *= -2.0
        out += a.h[:, None]
        out += b.h[None, :]
        np.clip(out, 0.0, np.inf, out=out)  # squared distances, clipped against round-off
        return self._radial_in_place(out)

    def _radial_in_place(self, sq: np.ndarray) -> np.ndarray:
        """φ(sq) written over ``sq`` (override to avoid the temporary)."""
        sq[...] = self.radial(sq)
        return sq

    def paired(self, X, Y):
        diff = X - Y
        return self.radial(np.einsum("ij,ij->i", diff, diff))


class ShiftInvariantKernel(Kernel):
    """A kernel k(x, y) = k0 * E_w cos(w'(x - y)), w ~ spectral measure (Bochner).

    FastMMD Sec. 2.2: Bochner's theorem, the basis of the random features.
    """

    shift_invariant = True

    @property
    def value_at_zero(self) -> float:
        """k(x, x) = K(0), the total mass of the spectral measure."""
        return 1.0

    def diag(self, X: np.ndarray) -> np.ndarray:
        return np.full(X.shape[0], self.value_at_zero)

    def sample_frequencies(self, n_features: int, dim: int, *, rng=None) -> np.ndarray:
        """Draw ``n_features`` frequencies ω of shape (n_features, dim) from p(ω)."""
        n_features = check_positive_int(n_features, "n_features")
        dim = check_positive_int(dim, "dim")
        return self.draw_frequencies(n_features, dim, check_rng(rng))

    def draw_frequencies(self, n_features: int, dim: int, rng) -> np.ndarray:
        """The hook a shift-invariant kernel writes for random features: ``n_features``
        draws ω ~ p(ω) of shape (n_features, dim) with the Generator ``rng`` (arguments
        already checked by ``sample_frequencies``). A subclass of kmeviz ≤ 0.3 that wrote
        ``_sample_frequencies`` still works, with a DeprecationWarning, until 0.5."""
        if type(self)._sample_frequencies is not ShiftInvariantKernel._sample_frequencies:
            warnings.warn(f"{type(self).__name__}._sample_frequencies is the name of kmeviz "
                          "≤ 0.3: write draw_frequencies (removed in 0.5)",
                          DeprecationWarning, stacklevel=3)
            return self._sample_frequencies(n_features, dim, rng)
        raise NotImplementedError(f"{type(self).__name__} draws no random features "
                                  "(draw_frequencies)")

    def _sample_frequencies(self, n_features, dim, rng) -> np.ndarray:
        """The former name of ``draw_frequencies`` (kmeviz ≤ 0.3)."""
        raise NotImplementedError

    def quasi_frequencies(self, n_features: int, dim: int, *, method: str = "sobol",
                          rng=None) -> np.ndarray:
        """Frequencies from a scrambled low-discrepancy sequence (randomised quasi-Monte
        Carlo, ``scipy.stats.qmc``) pushed through p(ω)'s inverse CDF: each ω still has
        law p(ω), but the set covers it more evenly than i.i.d. draws, which lowers the
        variance of random-feature estimates (FastMMD Sec. 5 discusses QMC frequencies;
        Yang et al. 2014). ``method`` is ``"sobol"`` or ``"halton"``."""
        from scipy.stats import qmc

        n_features = check_positive_int(n_features, "n_features")
        dim = check_positive_int(dim, "dim")
        if method not in ("sobol", "halton"):
            raise ValueError(f"method must be 'sobol' or 'halton', got {method!r}")
        engine = (qmc.Sobol if method == "sobol" else qmc.Halton)(
            self.uniform_dim(dim), scramble=True, seed=check_rng(rng))
        if method == "sobol":  # Sobol points are balanced in blocks of 2^k
            U = engine.random_base2(max(0, (n_features - 1).bit_length()))[:n_features]
        else:
            U = engine.random(n_features)
        tiny = np.finfo(float).eps
        return self.frequencies_from_uniform(np.clip(U, tiny, 1.0 - tiny), dim)

    def uniform_dim(self, dim: int) -> int:
        """How many uniform coordinates one frequency of dimension ``dim`` needs (the
        inverse CDF of ``frequencies_from_uniform`` takes them)."""
        return dim

    def frequencies_from_uniform(self, U: np.ndarray, dim: int) -> np.ndarray:
        """The hook for quasi-Monte Carlo frequencies: p(ω)'s inverse CDF applied to the
        points U in (0, 1)^uniform_dim, one frequency per row."""
        raise NotImplementedError(f"{type(self).__name__} has no quasi-Monte Carlo frequencies")


def check_kernel(kernel, name: str = "kernel", *, shift_invariant: bool = False) -> Kernel:
    """Raise TypeError unless ``kernel`` is a kmeviz kernel (of the required kind)."""
    if not isinstance(kernel, Kernel):
        raise TypeError(
            f"{name} must be a kmeviz kernel such as GaussianKernel(1.0), "
            f"got {type(kernel).__name__}"
        )
    if shift_invariant and not isinstance(kernel, ShiftInvariantKernel):
        raise TypeError(f"{name} must be shift-invariant, got {type(kernel).__name__}")
    return kernel


def _tiled_sum(kernel: Kernel, X, Y, working_memory) -> tuple[float, float]:
    """Sum of the Gram of X (symmetric, with trace) or of X against Y, by the tile engine."""
    side = tile_side(working_memory)
    if Y is None:
        S, tr = tile_sums(kernel, [kernel.prepare_validated(X)], side=side)
        return float(S[0, 0]), float(tr[0])
    S, _ = tile_sums(kernel, [kernel.prepare_validated(X), kernel.prepare_validated(Y)],
                     cross_only=True, side=side)
    return float(S[0, 1]), 0.0


def joint_gram_sums(kernel: Kernel, X, Y, working_memory: int | None = None):
    """(S_XX, S_XY, S_YY, tr_XX, tr_YY) of the Gram of [X; Y] in one pass of the tile
    engine (each pair of points computed once), for validated X and Y."""
    S, tr = tile_sums(kernel, [kernel.prepare_validated(X), kernel.prepare_validated(Y)],
                      side=tile_side(working_memory))
    return float(S[0, 0]), float(S[0, 1]), float(S[1, 1]), float(tr[0]), float(tr[1])
