"""What one registered test is: its entry (``TestSpec``), the options of its own
(``TestOption``), what its function returns (``Outcome``) and the units of its cost
estimates. ``kmeviz.registry`` holds the tables of entries; see CONTRIBUTING.md."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from .needs import KernelCapability, Needs

#: Cost classes, cheapest first: time in the sample size N (the O(B N) of replicates of a
#: linear test is counted as linear).
COSTS = ("linear", "quadratic", "cubic")
#: A kernel evaluation (an exp and its bookkeeping) costs about this many flops of a matrix
#: product: the unit of the registered ``work`` estimates.
KERNEL_FLOPS = 40
#: Drawing one entry of a random relabelling (keys, partition, packing) is memory-bound: it
#: costs about as long as this many flops of a matrix product (37 ns at 100 Gflop/s).
RESAMPLE_FLOPS = 3000
#: A call's fixed cost (checks, the result object, the thread pool's start), in the same
#: unit: 1.5-3 ms, added to every test's ``work`` (without it the estimates of the
#: linear-time tests at n = 200 were 10–800× below their measured time).
CALL_FLOPS = 1.2e8
#: The fixed cost of a spectral null's eigendecomposition and simulation, in that unit.
SPECTRAL_FLOPS = 2e8


@dataclass(frozen=True)
class Outcome:
    """What a registered test function computes: the statistic and its null, as simulated
    replicates (``null_samples``) or a frozen scipy distribution (``null_dist``).

    (Implements no paper equation: the common return value of the registered tests.)
    """

    statistic: float
    null_samples: np.ndarray | None = None
    null_dist: object | None = None
    null_params: dict = field(default_factory=dict)
    fitted: dict = field(default_factory=dict)
    #: one pass computed the statistic and the null together (permutation, bootstrap)
    one_pass: bool = True


@dataclass(frozen=True)
class TestOption:
    """An option of one registered test that the others do not read, declared once where
    the test is registered (``register(..., own_options=(TestOption(...),))``): the public
    test function takes it as a keyword (``mmd_test(..., exponent=1.5)``), ``compare_*``
    as ``test_options={"exponent": 1.5}``, ``kmeviz compare`` as ``--test-option
    exponent=1.5``; the docs table and ``kmeviz compare --help`` list it.

    Attributes
    ----------
    name : str
        The keyword.
    default : object
        Its value when not given.
    doc : str
        One line: what it sets (the docs and ``--help`` show it).
    type : type
        How a string from the command line or a URL is read (``float``, ``int``, ``str``).
    check : callable, optional
        ``check(value, name)`` returns the clean value or raises ValueError/TypeError
        naming ``name`` (``kmeviz._validation``'s checks have this form).
    """

    __test__ = False

    name: str
    default: object
    doc: str = ""
    type: type = float
    check: Callable | None = None

    def checked(self, value):
        """``value`` read (a string by ``type``) and checked."""
        if isinstance(value, str) and self.type is not str:
            try:
                value = self.type(value)
            except ValueError:
                raise ValueError(f"{self.name} must be a {self.type.__name__}, got "
                                 f"{value!r}") from None
        return self.check(value, self.name) if self.check is not None else value

    def words(self) -> str:
        """``name=default`` and its doc, for tables and ``--help``."""
        return f"{self.name}={self.default!r}: {self.doc}" if self.doc else \
            f"{self.name}={self.default!r}"


@dataclass(frozen=True)
class TestSpec:
    """One registered test: an (estimator, null) pair and the function computing it.

    Attributes
    ----------
    estimator, null : str
        The statistic (``TestResult.estimator``) and how its null is obtained.
    compute : callable
        ``compute(*samples, kernel, **options) -> Outcome``.
    cost : {"linear", "quadratic", "cubic"}
        Time class in the pooled sample size N.
    dask : bool
        Whether the samples may be dask arrays (``kmeviz.chunked``).
    options : tuple of str
        The keyword options of the public test, shared by its family, that ``compute``
        reads.
    own_options : tuple of TestOption
        Options of this test alone: ``compute`` receives each (its default when not
        given); the public test function takes them as keywords.
    needs : Needs
        Conditions on the input, typed flags (``Needs.EQUAL_SIZES | ...``); ``unmet``
        says which one a call lacks.
    summary : str
        One line for the docs table and the explorers.
    describe_null, resample_counts, fitted_at_level : callable, optional
        What the test adds to a ``TestResult`` (which knows no particular test): the
        words after the null's name in its printout, ``describe_null(result)``; its
        replicate counts, ``resample_counts(result)`` -> dict (default ``{"n_resamples":
        B}``); and what ``fitted`` gains at a level α, ``fitted_at_level(result, alpha)``
        -> dict (an aggregated test's per-kernel table).
    default_kernel : callable, optional
        ``default_kernel(X, Y)`` (a conditional test: ``(X, Y, Z)``): its own default
        kernel, collection or kernel triple.
    statistic_words : str
        The comparison table's words for a statistic that is no MMD², KSD or HSIC.
    work : callable, optional
        ``work(N, d, B)``: about how many flops the test does on N pooled points in d
        dimensions with B replicates, at its default options (kernel evaluations counted
        at ``KERNEL_FLOPS`` each); by default a formula of its cost class. The cost
        estimates of ``kmeviz.compare_tests`` read it.

    (Implements no paper equation: the registry entry of a test.)
    """

    __test__ = False  # not a pytest test class

    estimator: str
    null: str
    compute: Callable
    cost: str
    dask: bool = False
    options: tuple = ()
    needs: Needs = Needs.NOTHING
    summary: str = ""
    work: Callable | None = None
    memory: Callable | None = None
    describe_null: Callable | None = None
    resample_counts: Callable | None = None
    fitted_at_level: Callable | None = None
    #: ``default_kernel(X, Y)``: the kernel (collection) the test uses when given none, if
    #: not the registry's usual default (MMD-FUSE's own collection)
    default_kernel: Callable | None = None
    #: what the comparison table says its statistic is, when it is not an MMD², KSD or HSIC
    statistic_words: str = ""
    #: the public function of the registry it is in (``"mmd_test"``): pickled by name
    registry: str = ""
    #: options of this test alone (``TestOption``), passed to ``compute`` by keyword
    own_options: tuple = ()

    def __reduce__(self):
        """A registered entry pickles as its registry's name and key (its functions may
        be lambdas), so a ``TestResult`` that holds it pickles too."""
        if self.registry in REGISTRIES:
            return (registered, (self.registry, self.estimator, self.null))
        return super().__reduce__()

    def estimated_memory(self, N: int, d: int, B: int) -> float:
        """``memory(N, d, B)``, or the cost class's default when none was registered."""
        if self.memory is not None:
            return float(self.memory(N, d, B))
        return 8.0 * (N * d + (N * N if self.cost == "cubic" else 0))

    def estimated_work(self, N: int, d: int, B: int) -> float:
        """``work(N, d, B)``, or the cost class's formula when none was registered."""
        if self.work is not None:
            return float(self.work(N, d, B)) + CALL_FLOPS
        pairs = {"linear": N, "quadratic": N * N, "cubic": N * N}[self.cost]
        extra = {"linear": N * B * RESAMPLE_FLOPS, "quadratic": N * (N + RESAMPLE_FLOPS) * B,
                 "cubic": 4.0 * N**3}[self.cost]
        return pairs * (2 * d + KERNEL_FLOPS) + extra + CALL_FLOPS

    def takes(self, option: str) -> bool:
        """Whether ``option`` is one of the test's own options."""
        return any(own.name == option for own in self.own_options)

    def checked_own_options(self, given: Mapping | None) -> dict:
        """{name: value} of every own option, ``given`` checked and the rest at their
        defaults; a TypeError naming the test's options for a keyword it does not take."""
        declared = {option.name: option for option in self.own_options}
        unknown = sorted(set(given or {}) - set(declared))
        if unknown:
            takes = ", ".join(declared) if declared else "no options of its own"
            raise TypeError(f"{self.registry or 'the test'}() got an unexpected keyword "
                            f"argument {unknown[0]!r}: {self.name} takes {takes}")
        given = given or {}
        return {name: option.checked(given[name]) if name in given else option.default
                for name, option in declared.items()}

    @property
    def family(self) -> str:
        """Its registry's ``family``: which rule of the check of the rows applies."""
        return REGISTRIES[self.registry].family

    @property
    def described(self) -> str:
        """``summary``, then its own options (the docs tables)."""
        own = "; ".join(option.words() for option in self.own_options)
        return f"{self.summary} (options: {own})" if own else self.summary

    @property
    def name(self) -> str:
        """``"estimator/null"``, the test's name in tables."""
        return f"{self.estimator}/{self.null}"

    def unmet(self, X, Y=None, kernel=None) -> str | None:
        """Why this test cannot run on samples X (and Y) with ``kernel`` (the kernel it
        would be given; None: its default), as a sentence starting with a verb, or None
        when nothing it ``needs`` is missing. The one check of ``needs``: the comparison
        of every test, the explorers and the docs read it."""
        needs = self.needs
        if Needs.EQUAL_SIZES in needs and Y is not None and X.shape[0] != Y.shape[0]:
            return (f"needs samples of equal size (n_X = n_Y), got {X.shape[0]} and "
                    f"{Y.shape[0]}")
        if kernel is None:
            return None
        if Needs.SHIFT_INVARIANT_KERNEL in needs and not getattr(kernel, "shift_invariant",
                                                                 True):
            return f"needs a shift-invariant kernel, got {kernel!r}"
        offers = getattr(kernel, "capabilities", KernelCapability.DIFFERENTIABLE)
        if Needs.KERNEL_DERIVATIVES in needs and KernelCapability.DIFFERENTIABLE not in offers:
            return (f"needs the kernel's derivatives (radial_derivatives) for its Stein "
                    f"kernel: {type(kernel).__name__} gives no derivatives")
        if needs & (Needs.KERNEL_COLLECTION | Needs.COORDINATES | Needs.NO_KERNEL) and \
                getattr(kernel, "points_are_indices", False):
            return ("computes its own kernels from the samples' coordinates, and these are "
                    "indices into a precomputed Gram matrix")
        return None


#: public function name -> its registry (how a pickled ``TestSpec`` finds its entry again)
REGISTRIES: dict = {}


def own_options_of(specs, test_options: Mapping | None) -> dict:
    """A comparison's ``test_options`` split by test: {test name: the options it declares},
    checked; a ValueError naming the options the tests take when one is declared by none
    (``compare_*(test_options=...)``, ``kmeviz compare --test-option``)."""
    given = dict(test_options or {})
    declared = {option.name for spec in specs for option in spec.own_options}
    unknown = sorted(set(given) - declared)
    if unknown:
        raise ValueError(f"test_options: no test of this table takes {unknown[0]!r}; their "
                         f"own options are {', '.join(sorted(declared)) or 'none'}")
    return {spec.name: spec.checked_own_options(
        {name: value for name, value in given.items() if spec.takes(name)})
        for spec in specs}


def registered(function: str, estimator: str, null: str) -> TestSpec:
    return REGISTRIES[function].get(estimator, null)

