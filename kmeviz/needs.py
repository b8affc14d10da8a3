"""What a registered test requires of its input, as typed flags (``Needs``).

A test's registry entry (``kmeviz.registry.TestSpec``) carries a ``Needs`` value; the
checks that read it (``TestSpec.unmet``, the default kernels, the comparison of every
test, the explorers) test membership of these flags, never strings. The words of each
flag are the docs tables' text.
"""

from __future__ import annotations

import enum


class Needs(enum.Flag):
    """Conditions on a test's input; combine them with ``|``, test them with ``in``.

    Parameters
    ----------
    value : int
        The bits of the flags (as for any ``enum.Flag``); write ``Needs.EQUAL_SIZES |
        Needs.KERNEL_COLLECTION`` rather than a number.
    """

    NOTHING = 0
    #: the two samples pair x_i with y_i (wild bootstrap, Pearson null)
    EQUAL_SIZES = enum.auto()
    #: random Fourier features exist only for shift-invariant kernels
    SHIFT_INVARIANT_KERNEL = enum.auto()
    #: an aggregated test: a ``KernelCollection``, its own by default
    KERNEL_COLLECTION = enum.auto()
    #: a Gaussian kernel (FSSD-opt optimises its bandwidth; the split test learns its
    #: bandwidth or ARD length scales, on the points or on a ``FeatureKernel``'s features)
    GAUSSIAN_KERNEL = enum.auto()
    #: the test builds its kernel from the sample (L2 SechExp)
    OWN_KERNEL = enum.auto()
    #: the L1 IMQ features are built from an IMQ base kernel at 4 × the median
    L1_IMQ_BASE = enum.auto()
    #: the test builds kernels on the points' coordinates (one per coordinate and pair):
    #: not on the indices of a precomputed Gram matrix
    COORDINATES = enum.auto()
    #: a time-series null: the rows in time order, serially dependent or not (the
    #: comparisons run it with ``rows="time series"``, the i.i.d. nulls otherwise)
    ORDERED_ROWS = enum.auto()
    #: the statistic uses no kernel (an energy distance, a rank test): it is given none,
    #: and its result reports none
    NO_KERNEL = enum.auto()
    #: the Stein kernel needs the base kernel's derivatives (``KernelCapability``
    #: DIFFERENTIABLE: a radial kernel with ``radial_derivatives``)
    KERNEL_DERIVATIVES = enum.auto()

    @property
    def words(self) -> tuple[str, ...]:
        """The docs' words for each flag set here, in declaration order."""
        return tuple(WORDS[flag] for flag in Needs if flag.value and flag in self)

    @property
    def builds_own_kernel(self) -> bool:
        """Whether the test chooses its kernel(s) itself when given none (a comparison
        with one table kernel leaves it to the test)."""
        return bool(self & (Needs.KERNEL_COLLECTION | Needs.OWN_KERNEL | Needs.NO_KERNEL))


WORDS = {Needs.EQUAL_SIZES: "equal sample sizes",
         Needs.SHIFT_INVARIANT_KERNEL: "shift-invariant kernel",
         Needs.KERNEL_COLLECTION: "kernel collection",
         Needs.GAUSSIAN_KERNEL: "Gaussian kernel",
         Needs.OWN_KERNEL: "own kernel",
         Needs.L1_IMQ_BASE: "IMQ base kernel (c = 4 × median)",
         Needs.COORDINATES: "the points' coordinates",
         Needs.ORDERED_ROWS: "rows in time order",
         Needs.NO_KERNEL: "no kernel",
         Needs.KERNEL_DERIVATIVES: "kernel derivatives"}


class KernelCapability(enum.Flag):
    """What a kernel offers (``Kernel.capabilities``), which a test's ``Needs`` are
    checked against; combine with ``|``, test with ``in``.

    Parameters
    ----------
    value : int
        The bits of the flags (as for any ``enum.Flag``).
    """

    NONE = 0
    #: a function of x − y with a spectral measure to draw from (``draw_frequencies``),
    #: as random features and FastMMD need
    SHIFT_INVARIANT = enum.auto()
    #: a function of the squared distance, evaluated from a shared distance tile
    RADIAL = enum.auto()
    #: gives φ' and φ'' (``radial_derivatives``), as the Stein kernel of the KSD tests
    #: needs
    DIFFERENTIABLE = enum.auto()
    #: declared characteristic (its mean embedding is injective, so MMD = 0 only when
    #: P = Q), as the Gaussian, Laplace, IMQ and Cauchy kernels are
    CHARACTERISTIC = enum.auto()
