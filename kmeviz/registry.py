"""The one table of tests: which estimator goes with which null, what each needs and costs.

``mmd_test`` and ``ksd_test`` look their (estimator, null) pair up here; ``VALID_NULLS``,
the docstring tables, the dask guard, the explorers' choices and the comparison of every
test all read the same entries. Adding a test is one ``register`` decorator on the
function that computes it (see CONTRIBUTING.md, "Adding a null").

A test function takes the clean samples and the options the entry names, and returns an
:class:`Outcome`; ``mmd_test``/``ksd_test`` time it and turn it into a ``TestResult``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from .needs import Needs

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
        The keyword options of the public test that ``compute`` reads.
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

    def __reduce__(self):
        """A registered entry pickles as its registry's name and key (its functions may
        be lambdas), so a ``TestResult`` that holds it pickles too."""
        if self.registry in _REGISTRIES:
            return (_registered, (self.registry, self.estimator, self.null))
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

    @property
    def family(self) -> str:
        """Its registry's ``family``: which rule of the check of the rows applies."""
        return _REGISTRIES[self.registry].family

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
        if Needs.SHIFT_INVARIANT_KERNEL in needs and not kernel.shift_invariant:
            return f"needs a shift-invariant kernel, got {kernel!r}"
        if needs & (Needs.KERNEL_COLLECTION | Needs.COORDINATES) and \
                kernel.points_are_indices:
            return ("computes its own kernels from the samples' coordinates, and these are "
                    "indices into a precomputed Gram matrix")
        return None


class TestRegistry:
    """Ordered (estimator, null) -> :class:`TestSpec` of one public test function.

    Parameters
    ----------
    function : str
        The public function that runs these tests (named in error messages).
    name : str
        The registry's public name (``kmeviz.MMD_TESTS``).
    family : {"two-sample", "gof", "independence", "conditional"}
        Which rule of the check of the rows' order its tests' samples follow
        (``kmeviz.serial_dependence``).

    (Implements no paper equation.)
    """

    __test__ = False

    def __init__(self, function: str, name: str, *, family: str):
        self.function = function
        self.name = name
        #: which rule of the rows' check applies (``kmeviz.timeseries.serial``)
        self.family = family
        self._specs: dict[tuple[str, str], TestSpec] = {}
        self._documented: list = []  # (function, docstring template) of ``document``
        _REGISTRIES[function] = self

    def register(self, estimator: str, null: str, *, cost: str, dask: bool = False,
                 options: tuple = (), needs: Needs = Needs.NOTHING, summary: str = "",
                 work: Callable | None = None, memory: Callable | None = None,
                 **result_hooks):
        """Decorator: register the decorated function as the test (estimator, null).

        Parameters
        ----------
        estimator, null : str
        cost : {"linear", "quadratic", "cubic"}
        dask, options, needs, summary, work, memory : see :class:`TestSpec`
        **result_hooks
            ``describe_null``, ``resample_counts``, ``fitted_at_level``,
            ``default_kernel``, ``statistic_words`` (see :class:`TestSpec`).

        Returns
        -------
        callable
            The decorator; it returns the function unchanged.
        """
        if cost not in COSTS:
            raise ValueError(f"cost must be one of {COSTS}, got {cost!r}")
        if not isinstance(needs, Needs):
            raise TypeError(f"needs must be kmeviz.Needs flags (Needs.EQUAL_SIZES | ...), "
                            f"got {needs!r}")
        if (estimator, null) in self._specs:
            raise ValueError(f"{self.function}: ({estimator!r}, {null!r}) is registered "
                             "already")

        def decorate(compute):
            self._specs[(estimator, null)] = TestSpec(estimator, null, compute, cost, dask,
                                                      tuple(options), needs, summary,
                                                      work, memory, **result_hooks,
                                                      registry=self.function)
            self._render_docs()
            return compute

        return decorate

    def __iter__(self):
        return iter(self._specs.values())

    def __len__(self) -> int:
        return len(self._specs)

    @property
    def estimators(self) -> tuple[str, ...]:
        """Every registered estimator, in registration order."""
        return tuple(dict.fromkeys(est for est, _ in self._specs))

    @property
    def nulls(self) -> tuple[str, ...]:
        """Every registered null, in registration order."""
        return tuple(dict.fromkeys(null for _, null in self._specs))

    def valid_nulls(self) -> dict[str, tuple[str, ...]]:
        """Estimator -> the nulls registered for it (a snapshot; ``NullsByEstimator`` is
        the live view)."""
        return {est: tuple(n for e, n in self._specs if e == est) for est in self.estimators}

    def default_null(self, estimator: str) -> str:
        """The first null registered for ``estimator``."""
        return self.valid_nulls()[estimator][0]

    def get(self, estimator: str, null: str | None = None) -> TestSpec:
        """The entry of (estimator, null), ``null`` defaulting to the estimator's first;
        ValueError naming the valid choices otherwise."""
        valid = self.valid_nulls()
        if estimator not in valid:
            raise ValueError(f"estimator must be one of {', '.join(map(repr, valid))}; "
                             f"got {estimator!r}")
        if null is None:
            null = valid[estimator][0]
        if (estimator, null) not in self._specs:
            if null not in self.nulls:
                raise ValueError(f"null must be one of {', '.join(map(repr, self.nulls))}; "
                                 f"got {null!r}")
            raise ValueError(f"null={null!r} is not valid for estimator={estimator!r}; "
                             f"valid nulls are {', '.join(valid[estimator])}")
        return self._specs[(estimator, null)]

    def dask_capable(self) -> list[TestSpec]:
        """The entries that take dask arrays."""
        return [spec for spec in self if spec.dask]

    def document(self, function) -> None:
        """Replace the line ``{registered tests}`` of ``function``'s docstring by a Notes
        section with the registry's table, so the docs always list what is registered.

        Parameters
        ----------
        function : callable
            The public test (``mmd_test``, ``ksd_test``).

        Returns
        -------
        None
        """
        if "{registered tests}" in (function.__doc__ or ""):
            self._documented.append((function, function.__doc__))
        self._render_docs()

    def _render_docs(self) -> None:
        """Fill each documented function's table with what is registered now (a test
        registered later, in another module, joins its table)."""
        table = "\n".join(["Notes", "-----", f"The registered tests ({self.name}):", "",
                           self.rst_table()])
        for function, template in self._documented:
            function.__doc__ = template.replace("{registered tests}",
                                                table.replace("\n", "\n    "))

    def rst_table(self) -> str:
        """The registry as a reStructuredText simple table (the docstrings show it)."""
        rows = [("estimator", "null", "cost", "dask", "needs", "what it is")]
        rows += [(s.estimator, s.null, s.cost, "yes" if s.dask else "-",
                  ", ".join(s.needs.words) or "-", s.summary or "-") for s in self]
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        rule = " ".join("=" * w for w in widths)

        def line(row):
            return " ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()

        return "\n".join([rule, line(rows[0]), rule, *map(line, rows[1:]), rule])

    def markdown(self) -> str:
        """The registry as a Markdown table (the docs and ``CONTRIBUTING.md`` show it)."""
        rows = ["| estimator | null | cost | dask | needs | what it is |",
                "|---|---|---|---|---|---|"]
        rows += [f"| {s.estimator} | {s.null} | {s.cost} | {'yes' if s.dask else ''} | "
                 f"{', '.join(s.needs.words)} | {s.summary} |" for s in self]
        return "\n".join(rows)


#: public function name -> its registry (how a pickled ``TestSpec`` finds its entry again)
_REGISTRIES: dict[str, TestRegistry] = {}


def _registered(function: str, estimator: str, null: str) -> TestSpec:
    return _REGISTRIES[function].get(estimator, null)


class NullsByEstimator(Mapping):
    """A live, read-only view estimator -> nulls of a registry (``kmeviz.VALID_NULLS``):
    a test registered later shows up in it.

    Parameters
    ----------
    registry : TestRegistry

    (Implements no paper equation.)
    """

    def __init__(self, registry: TestRegistry):
        self._registry = registry

    def __getitem__(self, estimator: str) -> tuple[str, ...]:
        return self._registry.valid_nulls()[estimator]

    def __iter__(self):
        return iter(self._registry.estimators)

    def __len__(self) -> int:
        return len(self._registry.estimators)

    def __repr__(self) -> str:
        return repr(self._registry.valid_nulls())


#: The two-sample tests of ``mmd_test`` (entries added by ``kmeviz.twosample.mmd_tests``).
MMD_TESTS = TestRegistry("mmd_test", "kmeviz.MMD_TESTS", family="two-sample")
#: The goodness-of-fit tests of ``ksd_test`` (entries added by ``kmeviz.gof.ksd_tests``).
GOF_TESTS = TestRegistry("ksd_test", "kmeviz.GOF_TESTS", family="gof")
#: The independence tests of ``hsic_test`` (entries added by ``kmeviz.independence.tests``).
INDEPENDENCE_TESTS = TestRegistry("hsic_test", "kmeviz.INDEPENDENCE_TESTS",
                                  family="independence")
#: The joint-independence tests of ``dhsic_test`` (d ≥ 2 variables).
JOINT_INDEPENDENCE_TESTS = TestRegistry("dhsic_test", "kmeviz.JOINT_INDEPENDENCE_TESTS",
                                        family="independence")
#: The conditional independence tests of ``ci_test`` (X ⫫ Y | Z).
CONDITIONAL_TESTS = TestRegistry("ci_test", "kmeviz.CONDITIONAL_TESTS", family="conditional")
