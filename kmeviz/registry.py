"""The one table of tests: which estimator goes with which null, what each needs and costs.

``mmd_test`` and ``ksd_test`` look their (estimator, null) pair up here; ``VALID_NULLS``,
the docstring tables, the dask guard, the explorers' choices and the comparison of every
test all read the same entries. Adding a test is one ``register`` decorator on the
function that computes it (see CONTRIBUTING.md, "Adding a null").

A test function takes the clean samples and the options the entry names, and returns an
:class:`Outcome`; ``mmd_test``/``ksd_test`` time it and turn it into a ``TestResult``.
"""

from __future__ import annotations

import hashlib
import importlib
import pkgutil
from collections.abc import Callable, Mapping

import numpy as np

from .needs import Needs
from .spec import (  # noqa: F401  (the entries' names, as kmeviz.registry has long offered them)
    CALL_FLOPS,
    COSTS,
    KERNEL_FLOPS,
    REGISTRIES,
    RESAMPLE_FLOPS,
    SPECTRAL_FLOPS,
    Outcome,
    TestOption,
    TestSpec,
    registered,
)

_registered = registered  # the name that results pickled by kmeviz 0.3 refer to


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
    """

    __test__ = False

    def __init__(self, function: str, name: str, *, family: str):
        self.function = function
        self.name = name
        #: which rule of the rows' check applies (``kmeviz.timeseries.serial``)
        self.family = family
        self._specs: dict[tuple[str, str], TestSpec] = {}
        self._documented: list = []  # (function, docstring template) of ``document``
        REGISTRIES[function] = self

    def register(self, estimator: str, null: str, *, cost: str, dask: bool = False,
                 options: tuple = (), needs: Needs = Needs.NOTHING, summary: str = "",
                 work: Callable | None = None, memory: Callable | None = None,
                 own_options: tuple = (), **result_hooks):
        """Decorator: register the decorated function as the test (estimator, null).

        Parameters
        ----------
        estimator, null : str
        cost : {"linear", "quadratic", "cubic"}
        dask, options, needs, summary, work, memory, own_options : see :class:`TestSpec`
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
        if not all(isinstance(option, TestOption) for option in own_options):
            raise TypeError(f"own_options must be kmeviz.registry.TestOption entries, got "
                            f"{own_options!r}")

        def decorate(compute):
            self._specs[(estimator, null)] = TestSpec(estimator, null, compute, cost, dask,
                                                      tuple(options), needs, summary,
                                                      work, memory, **result_hooks,
                                                      registry=self.function,
                                                      own_options=tuple(own_options))
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
                  ", ".join(s.needs.words) or "-", s.described or "-") for s in self]
        return simple_table(rows)

    def markdown(self) -> str:
        """The registry as a Markdown table (the docs and ``CONTRIBUTING.md`` show it)."""
        rows = ["| estimator | null | cost | dask | needs | what it is |",
                "|---|---|---|---|---|---|"]
        rows += [f"| {s.estimator} | {s.null} | {s.cost} | {'yes' if s.dask else ''} | "
                 f"{', '.join(s.needs.words)} | {s.described} |" for s in self]
        return "\n".join(rows)



_registered = registered  # the name results pickled by kmeviz ≤ 0.3 refer to


class NullsByEstimator(Mapping):
    """A live, read-only view estimator -> nulls of a registry (``kmeviz.VALID_NULLS``):
    a test registered later shows up in it.

    Parameters
    ----------
    registry : TestRegistry
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


def seed_of_test(root: int, name: str) -> np.random.SeedSequence:
    """A test's seed in a comparison: from the comparison's root seed and the test's name
    (its bytes' SHA-256), so that registering another test changes no other row."""
    words = np.frombuffer(hashlib.sha256(name.encode()).digest(), dtype=np.uint32)
    return np.random.SeedSequence([root, *words.tolist()])


def selected_tests(registry: TestRegistry, tests, rows: str = "check") -> list[TestSpec]:
    """The entries named by ``tests`` ("all", or names "estimator/null" or estimators),
    in registry order; ValueError naming the unknown ones. "all" (or an estimator's name)
    means the i.i.d. tests, or with ``rows="time series"`` the time-series tests
    (``Needs.ORDERED_ROWS``); a test named "estimator/null" runs whatever ``rows`` says."""
    names = [tests] if isinstance(tests, str) else list(tests)
    ordered = rows == "time series"
    if names == ["all"]:
        names = [spec.name for spec in registry
                 if (Needs.ORDERED_ROWS in spec.needs) == ordered]
    known = {spec.name for spec in registry} | set(registry.estimators)
    unknown = [t for t in names if not isinstance(t, str) or t not in known]
    if unknown or not names:
        raise ValueError(f"tests must be 'all' or names from {sorted(known)}; "
                         f"got {unknown or names!r}")
    return [spec for spec in registry if spec.name in names or (
        spec.estimator in names and (Needs.ORDERED_ROWS in spec.needs) == ordered)]


def import_every_module(package: str, path) -> None:
    """Import every module of ``package`` (its ``__path__``), in name order after those
    it imported already: a module that registers tests is found without an import line
    of its own (CONTRIBUTING.md, "Adding a test")."""
    for module in sorted(info.name for info in pkgutil.iter_modules(path)):
        importlib.import_module(f"{package}.{module}")


def simple_table(rows: list[tuple[str, ...]]) -> str:
    """``rows`` (the first the header) as a reStructuredText simple table."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    rule = " ".join("=" * w for w in widths)

    def line(row):
        return " ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()

    return "\n".join([rule, line(rows[0]), rule, *map(line, rows[1:]), rule])
