"""The PC algorithm on kernel CI tests (Spirtes, Glymour & Scheines 2000, Sec. 5.4.2):
the skeleton by CI tests of growing conditioning sets, order-independent ("stable PC",
Colombo & Maathuis 2014, Alg. 4.1: each level's adjacency sets are frozen before its
tests), the v-structures from the separating sets, then Meek's rules (Meek 1995)."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from tqdm import tqdm

from .._validation import check_choice, check_in_interval, table_and_columns
from ..conditional_independence.api import DEFAULT_EPSILON, standardised
from ..kernels.categorical import category_codes
from ..registry import CONDITIONAL_TESTS
from .graph import (
    adjacent,
    directed,
    meek_rules,
    orient_existing_first,
    orient_v_structures,
    unshielded_triples,
)
from .knowledge import Knowledge
from .shared import SharedTests


@dataclass
class PCResult:
    """What ``pc`` found.

    Parameters
    ----------
    names : list of str
        The variables, in the table's order.
    graph : array (p, p) of int
        The CPDAG: ``graph[i, j] = 1, graph[j, i] = 0`` is i → j; both 1 is i — j.
    tests : pandas.DataFrame
        Every CI test run, in order: ``x, y, given, level, statistic, p_value,
        independent``.
    sepsets : dict
        frozenset({i, j}) → the list of conditioning sets that separated i and j.
    alpha : float
    counts : dict
        ``tests`` run and ``factorisations`` of K̃_Z + εI.
    conflicts : list
        Unshielded colliders that contradicted an earlier orientation (kept as first set).

    (Spirtes et al. 2000, Sec. 5.4.2.)
    """

    names: list
    graph: np.ndarray
    tests: pd.DataFrame
    sepsets: dict
    alpha: float
    counts: dict = field(default_factory=dict)
    conflicts: list = field(default_factory=list)

    def edges(self) -> pd.DataFrame:
        """One row per edge: ``source, target, kind`` ("-->" directed, "---" undirected)."""
        rows, p = [], len(self.names)
        for i, j in itertools.combinations(range(p), 2):
            if not adjacent(self.graph, i, j):
                continue
            if directed(self.graph, j, i):
                i, j = j, i
            kind = "-->" if directed(self.graph, i, j) else "---"
            rows.append({"source": self.names[i], "target": self.names[j], "kind": kind})
        return pd.DataFrame(rows, columns=["source", "target", "kind"])

    def to_dict(self) -> dict:
        """The graph, its settings and the tests as plain Python (JSON-ready)."""
        return {"nodes": list(map(str, self.names)), "alpha": self.alpha,
                "edges": self.edges().to_dict(orient="records"), "counts": dict(self.counts),
                "tests": self.tests.assign(given=self.tests["given"].map(list)).to_dict(
                    orient="records")}

    def to_dot(self) -> str:
        """The CPDAG in Graphviz's DOT language (undirected edges without arrowheads)."""
        def quoted(name) -> str:
            return '"' + str(name).replace("\\", "\\\\").replace('"', '\\"') + '"'

        lines = ["digraph cpdag {"]
        lines += [f"  {quoted(n)};" for n in self.names]
        for edge in self.edges().itertuples():
            style = "" if edge.kind == "-->" else " [dir=none]"
            lines.append(f"  {quoted(edge.source)} -> {quoted(edge.target)}{style};")
        return "\n".join([*lines, "}"])


def pc(table, *, test="kci", alpha: float = 0.05, columns=None,
       max_condition_size: int | None = None, stable: bool = True,
       knowledge: Knowledge | None = None, orientation: str = "majority",
       epsilon: float = DEFAULT_EPSILON, eigen_threshold: float | None = None, rng=0,
       progress: Callable | None = None) -> PCResult:
    """The PC algorithm with kernel CI tests: which variables of a table cause which, up to
    Markov equivalence.

    Parameters
    ----------
    table : pandas.DataFrame or array (n, p)
        A text column is read as its label codes (``category_codes``), as ``compare_ci``
        reads an uploaded one.
    test : str or callable
        ``"kci"`` (KCI with the Gamma null, sharing each conditioning set's residual
        operator across the pairs tested given it; given no variable, KCI's
        unconditional test with the authors' widths, as causal-learn's ``pc``),
        ``"estimator/null"`` of
        ``CONDITIONAL_TESTS`` (e.g. ``"kci/spectral"``, ``"rcot/spectral"``), or
        ``test(i, j, S) -> p-value`` on column indices (an oracle, e.g. d-separation).
    alpha : float in (0, 1)
        An edge is removed when a test's p-value exceeds α.
    columns : list of str, optional
        The variables (default: every column).
    max_condition_size : int, optional
        The largest conditioning set tried (default: no limit).
    stable : bool
        Freeze each level's adjacency sets before its tests (Colombo & Maathuis 2014):
        the output does not depend on the column order.
    knowledge : Knowledge, optional
        Required and forbidden edges, tiers.
    orientation : {"majority", "standard"}
        How an unshielded triple i — k — j becomes a collider. "standard" (Spirtes,
        Glymour & Scheines 2000, as causal-learn's ``pc``): k is not in the separating set
        the skeleton recorded.
        "majority" (Colombo & Maathuis 2014, MPC): every subset of the neighbours of i
        and of j is tested (the tests are cached), and k is a collider when it is in
        fewer than half of the sets that separate i and j; with ``stable=True`` the
        whole output, orientations included, does not depend on the column order.
        "causal-learn": causal-learn's ``pc`` (``uc_rule=0, uc_priority=2``) step for
        step: every conditioning set of a level tried, the union of the separating ones
        kept from each side, colliders in its triple order, an existing collider kept.
    epsilon, eigen_threshold : float
        KCI's ε and eigenvalue cut (``ci_test``; the authors' code and causal-learn
        drop eigen-components below 10⁻⁵ of the largest: ``eigen_threshold=1e-5``).
    rng : int or None
        Seeds the tests with a simulated null (one stream per (X, Y, Z)).
    progress : callable, optional
        ``progress(level, tests_so_far)`` after each level; without one, a call from a
        terminal (stderr a TTY) draws a ``tqdm`` bar of the levels there.

    Returns
    -------
    PCResult

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=400); b = rng.normal(size=400)
    >>> c = np.tanh(a) + np.tanh(b) + 0.3 * rng.normal(size=400)
    >>> result = pc(np.column_stack([a, b, c]))
    >>> result.edges().values.tolist()
    [['x0', 'x2', '-->'], ['x1', 'x2', '-->']]

    (Spirtes et al. 2000, Sec. 5.4.2; Colombo & Maathuis 2014, Alg. 4.1; Meek 1995.)
    """
    frame, names = table_and_columns(table, columns, "PC")
    alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)
    check_choice(orientation, "orientation", ("majority", "standard", "causal-learn"))
    knowledge = knowledge or Knowledge()
    knowledge.check(names)
    ci = _tester(frame, names, test, epsilon, eigen_threshold, rng)
    p = len(names)
    M = np.ones((p, p), dtype=int) - np.eye(p, dtype=int)
    for a, b in knowledge.absent_pairs(names):
        M[a, b] = M[b, a] = 0
    sepsets, rows, tested = {}, [], set()
    exhaustive = orientation == "causal-learn"
    bar = None
    if progress is None and sys.stderr.isatty():
        bar = tqdm(unit="level", desc="PC", file=sys.stderr)
        progress = lambda level, tests: bar.update(1) or bar.set_postfix(tests=tests)  # noqa: E731
    limit = p - 2 if max_condition_size is None else int(max_condition_size)
    for level in range(limit + 1):
        frozen = {i: [k for k in range(p) if M[i, k]] for i in range(p)}
        if all(len(frozen[i]) - 1 < level for i in range(p)):
            break
        removed = set()  # causal-learn's rule: every set tried, edges removed at the end
        if stable and hasattr(ci, "prefetch"):  # the level's pairs at once, in threads
            ci.prefetch(_level_sequences(M, frozen, level, knowledge, names, exhaustive),
                        alpha)
        for i in range(p):
            for j in list(frozen[i] if stable else np.flatnonzero(M[i])):
                if not M[i, j] or knowledge.kept(names[i], names[j]):
                    continue
                neighbours = [k for k in (frozen[i] if stable else np.flatnonzero(M[i]))
                              if k != j]
                union = set()
                for S in itertools.combinations(sorted(neighbours), level):
                    statistic, p_value = ci(i, j, S)
                    independent = p_value > alpha
                    key = (min(i, j), max(i, j), S)
                    if key not in tested:  # asked again from j's side: one row per test
                        tested.add(key)
                        rows.append({"x": names[min(i, j)], "y": names[max(i, j)],
                                     "given": tuple(names[k] for k in S), "level": level,
                                     "statistic": statistic, "p_value": p_value,
                                     "independent": independent})
                    if independent and exhaustive:
                        removed.add(frozenset((i, j)))
                        union |= set(S)
                    elif independent:
                        M[i, j] = M[j, i] = 0
                        sepsets[frozenset((i, j))] = [set(S)]
                        break
                if frozenset((i, j)) in removed:
                    sepsets.setdefault(frozenset((i, j)), []).append(union)
        for pair in removed:
            a, b = tuple(pair)
            M[a, b] = M[b, a] = 0
        if progress is not None:
            progress(level, len(rows))
    if bar is not None:
        bar.close()
    knowledge.orient(M, names)
    if orientation == "majority":
        is_collider = _majority(M, ci, sepsets, alpha, rows, tested, names)
    else:
        def is_collider(i, k, j):
            return all(k not in S for S in sepsets.get(frozenset((i, j)), [set()]))
    if exhaustive:
        conflicts = orient_existing_first(M, is_collider)
    else:
        conflicts = orient_v_structures(M, is_collider)
    knowledge.orient(M, names)
    meek_rules(M)
    tests = pd.DataFrame(rows, columns=["x", "y", "given", "level", "statistic", "p_value",
                                        "independent"])
    return PCResult(names, M, tests, sepsets, alpha, getattr(ci, "counts", {}), conflicts)


def _level_sequences(M, frozen, level, knowledge, names, exhaustive) -> list:
    """The tests PC's loop will ask of each pair at this level, in its order: the sides
    (i, j, sets, stop) of ``SharedTests.prefetch``, i's side first for i < j."""
    sequences = []
    for a, b in itertools.combinations(range(len(names)), 2):
        if not M[a, b] or knowledge.kept(names[a], names[b]):
            continue
        sequences.append([(i, j, list(itertools.combinations(
            sorted(k for k in frozen[i] if k != j), level)), not exhaustive)
            for i, j in ((a, b), (b, a))])
    return sequences


def _subsets_of_neighbours(M, i, j, side):
    """Every subset of ``side``'s neighbours other than i and j, smallest first."""
    others = sorted(v for v in np.flatnonzero(M[side] + M[:, side]) if v not in (i, j))
    return [S for size in range(len(others) + 1)
            for S in itertools.combinations(others, size)]


def _majority(M, ci, sepsets, alpha, rows, tested, names):
    """``is_collider`` of the majority rule: the separating sets of i and j among all
    subsets of their neighbours in the skeleton (each test run once, its row added)."""
    if hasattr(ci, "prefetch"):  # every triple's tests at once, in threads
        pairs = sorted({(i, j) for i, _, j in unshielded_triples(M)})  # one task a pair
        ci.prefetch([[(i, j, _subsets_of_neighbours(M, i, j, side), False)
                      for side in (i, j)] for i, j in pairs], alpha)

    def separating_sets(i, j):
        found = []
        for side in (i, j):
            for S in _subsets_of_neighbours(M, i, j, side):
                key = (min(i, j), max(i, j), S)
                statistic, p_value = ci(i, j, S)
                if key not in tested:
                    tested.add(key)
                    rows.append({"x": names[key[0]], "y": names[key[1]],
                                 "given": tuple(names[k] for k in S), "level": len(S),
                                 "statistic": statistic, "p_value": p_value,
                                 "independent": p_value > alpha})
                if p_value > alpha and set(S) not in found:
                    found.append(set(S))
        return found or sepsets.get(frozenset((i, j)), [set()])

    def is_collider(i, k, j):
        sets = separating_sets(i, j)
        return sum(k in S for S in sets) < len(sets) / 2
    return is_collider


def _tester(frame, names, test, epsilon, eigen_threshold, rng):
    """``(i, j, S) -> (statistic, p-value)`` of the chosen test on the z-scored columns."""
    if callable(test):
        def oracle(i, j, S):
            return float("nan"), float(test(i, j, S))
        return oracle
    if not isinstance(test, str):
        raise TypeError(f"test must be a name or a callable, got {type(test).__name__}")
    estimator, _, null = test.partition("/")
    known = {spec.estimator for spec in CONDITIONAL_TESTS}
    if estimator not in known or (null and f"{estimator}/{null}" not in {
            spec.name for spec in CONDITIONAL_TESTS}):
        raise ValueError(f"test must be one of {sorted(known)} or 'estimator/null' of "
                         f"CONDITIONAL_TESTS, got {test!r}")
    values = np.column_stack([  # a text column as its label codes, as the loaders read it
        frame[c].to_numpy(dtype=float, na_value=np.nan) if frame[c].dtype.kind in "biuf"
        else category_codes(frame[c])[:, 0] for c in names])
    if not np.isfinite(values).all():
        raise ValueError("the table has missing or infinite values: drop those rows first")
    data = np.column_stack([standardised(values[:, [k]], str(name))[:, 0]
                            for k, name in enumerate(names)])
    return SharedTests(data, estimator=estimator, null=null or None, epsilon=epsilon,
                       eigen_threshold=eigen_threshold, rng=rng)
