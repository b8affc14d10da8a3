"""The PC algorithm (issue 58): with a d-separation oracle it returns the true CPDAG, whose
construction is checked against the Markov equivalence class enumerated by brute force;
the stable variant does not depend on the column order; with KCI its p-values are
``ci_test``'s, each conditioning set's factorisation shared."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import kmeviz as K
from kmeviz.discovery import Knowledge, d_separated, dag_to_cpdag, pc, random_dag


def oracle(dag):
    return lambda i, j, S: 1.0 if d_separated(dag, i, j, S) else 0.0


def is_acyclic(dag) -> bool:
    remaining = dag.copy()
    alive = list(range(len(dag)))
    while alive:
        sources = [v for v in alive if not remaining[alive][:, v].any()]
        if not sources:
            return False
        alive = [v for v in alive if v not in sources]
    return True


def v_structures(dag) -> set:
    out = set()
    for k in range(len(dag)):
        parents = np.flatnonzero(dag[:, k])
        for i, j in itertools.combinations(parents, 2):
            if not (dag[i, j] or dag[j, i]):
                out.add((min(i, j), k, max(i, j)))
    return out


def equivalence_class_cpdag(dag) -> np.ndarray:
    """By definition: every DAG with the same skeleton and v-structures (Verma & Pearl
    1990), enumerated; an edge is directed in the CPDAG when all of them agree on it."""
    edges = [(i, j) for i, j in itertools.combinations(range(len(dag)), 2)
             if dag[i, j] or dag[j, i]]
    target, members = v_structures(dag), []
    for flips in itertools.product((0, 1), repeat=len(edges)):
        candidate = np.zeros_like(dag)
        for (i, j), flip in zip(edges, flips, strict=True):
            candidate[(j, i) if flip else (i, j)] = 1
        if is_acyclic(candidate) and v_structures(candidate) == target:
            members.append(candidate)
    cpdag = np.zeros_like(dag)
    for i, j in edges:
        ways = {(m[i, j], m[j, i]) for m in members}
        if ways == {(1, 0)}:
            cpdag[i, j] = 1
        elif ways == {(0, 1)}:
            cpdag[j, i] = 1
        else:
            cpdag[i, j] = cpdag[j, i] = 1
    return cpdag


@pytest.mark.parametrize("seed", range(30))
def test_the_cpdag_of_a_dag_is_its_equivalence_class(seed):
    rng = np.random.default_rng(seed)
    dag = random_dag(int(rng.integers(3, 7)), 0.5, rng)
    np.testing.assert_array_equal(dag_to_cpdag(dag), equivalence_class_cpdag(dag))


@pytest.mark.parametrize("seed", range(50))
def test_with_a_d_separation_oracle_pc_returns_the_true_cpdag(seed):
    rng = np.random.default_rng(100 + seed)
    p = int(rng.integers(5, 13))
    dag = random_dag(p, float(rng.uniform(0.15, 0.45)), rng)
    result = pc(np.zeros((10, p)), test=oracle(dag), alpha=0.5)
    np.testing.assert_array_equal(result.graph, dag_to_cpdag(dag))


@pytest.mark.parametrize("seed", range(10))
def test_the_stable_variant_does_not_depend_on_the_column_order(seed):
    """With an oracle that errs (a fixed set of wrong 'independent' answers), stable PC's
    graph is the same whatever the order of the columns."""
    rng = np.random.default_rng(500 + seed)
    p = 7
    dag = random_dag(p, 0.4, rng)
    wrong = {(int(a), int(b)) for a, b in rng.integers(0, p, size=(3, 2)) if a != b}

    def erring(order):
        def test(i, j, S):
            a, b = sorted((order[i], order[j]))
            if (a, b) in wrong and len(S) == 1:
                return 1.0
            return 1.0 if d_separated(dag, order[i], order[j], [order[k] for k in S]) else 0.0
        return test

    reference = pc(np.zeros((10, p)), test=erring(list(range(p))), alpha=0.5).graph
    for _ in range(3):
        order = list(rng.permutation(p))
        graph = pc(np.zeros((10, p)), test=erring(order), alpha=0.5).graph
        back = np.empty_like(graph)
        back[np.ix_(order, order)] = graph
        np.testing.assert_array_equal(back, reference)


def nonlinear_chain(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = np.tanh(2 * a) + 0.3 * rng.normal(size=n)
    c = rng.normal(size=n)
    d = np.sin(b) + np.cos(c) + 0.3 * rng.normal(size=n)
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": d})


def unconditional_by_hand(x, y):
    """KCI's unconditional test written out: z-scored columns, Gaussian Grams of width
    0.5 (the authors' rule at 200 ≤ n < 1200), centred; Gamma law of tr(K̃L̃) with mean
    tr K̃ tr L̃ / n and variance 2 ΣK̃² ΣL̃² / n² (Zhang et al. 2011, Sec. 4)."""
    from scipy import stats

    n = len(x)
    H = np.eye(n) - 1.0 / n
    grams = []
    for v in (x, y):
        v = (v - v.mean()) / v.std(ddof=1)
        grams.append(H @ np.exp(-((v[:, None] - v[None, :]) ** 2) / (2 * 0.5**2)) @ H)
    Kc, Lc = grams
    mean = np.trace(Kc) * np.trace(Lc) / n
    var = 2 * (Kc**2).sum() * (Lc**2).sum() / n**2
    return stats.gamma.sf((Kc * Lc).sum(), mean**2 / var, scale=var / mean)


def test_with_kci_every_p_value_is_the_direct_tests_and_operators_are_shared():
    """Given Z, each p-value is ci_test's; given nothing, KCI's unconditional test by
    hand (the test causal-learn's pc runs there)."""
    frame = nonlinear_chain(500)
    result = pc(frame)
    assert len(result.tests) == result.counts["tests"]
    assert result.counts["factorisations"] < (result.tests["level"] > 0).sum()
    for row in result.tests.itertuples():
        x, y = frame[row.x].to_numpy(), frame[row.y].to_numpy()
        if not row.given:
            assert row.p_value == pytest.approx(unconditional_by_hand(x, y), rel=1e-8,
                                                abs=1e-300)
            continue
        direct = K.ci_test(x[:, None], y[:, None], frame[list(row.given)].to_numpy(),
                           estimator="kci", null="gamma", rows="iid")
        assert row.p_value == pytest.approx(direct.p_value, rel=1e-8, abs=1e-12)
    edges = {(e.source, e.target, e.kind) for e in result.edges().itertuples()}
    assert edges == {("a", "b", "---"), ("b", "d", "-->"), ("c", "d", "-->")}


@pytest.mark.parametrize("orientation", ["majority", "causal-learn", "standard"])
def test_the_threads_change_nothing(orientation):
    """A level's pairs (and the majority rule's triples) run in the engine's threads:
    the same tests in the same order, the same p-values and graph as on one thread, and
    each test run once."""
    frame = nonlinear_chain(450, seed=2)
    with K.config_context(n_threads=1):
        alone = pc(frame, orientation=orientation)
    with K.config_context(n_threads=2):
        threaded = pc(frame, orientation=orientation)
    pd.testing.assert_frame_equal(alone.tests, threaded.tests)
    assert np.array_equal(alone.graph, threaded.graph)
    assert alone.counts == threaded.counts
    assert threaded.counts["tests"] == len(threaded.tests)


def test_the_kept_grams_stay_under_the_memory_budget():
    """Residual Grams are kept up to the budget's memory limit (least recently used
    dropped): the run's answer is the same, its held arrays under the limit."""
    from kmeviz.budget import memory_budget
    from kmeviz.discovery.shared import SharedTests

    data = nonlinear_chain(450, seed=2).to_numpy()
    data = (data - data.mean(0)) / data.std(0, ddof=1)
    with memory_budget(4 * 450**2 * 8):
        small = SharedTests(data)
    free = SharedTests(data)
    for S in [(), (1,), (2,), (1, 2), (0, 1), (0, 2), (2, 3)]:
        for i, j in itertools.combinations([v for v in range(4) if v not in S], 2):
            assert small(i, j, S) == pytest.approx(free(i, j, S), rel=1e-12)
    assert small._grams._bytes <= 3 * 450**2 * 8 < free._grams._bytes


def test_other_registered_tests_and_the_outputs():
    frame = nonlinear_chain(400, seed=1)
    result = pc(frame, test="rcot/spectral", rng=3)
    again = pc(frame, test="rcot/spectral", rng=3)
    pd.testing.assert_frame_equal(result.tests, again.tests)
    assert set(result.to_dict()) == {"nodes", "alpha", "edges", "counts", "tests"}
    dot = result.to_dot()
    assert dot.startswith("digraph cpdag {") and '"a"' in dot


def test_background_knowledge_orients_and_removes():
    frame = nonlinear_chain(400)
    tiers = pc(frame, knowledge=Knowledge(tiers=(["a"], ["b", "c"], ["d"])))
    assert {(e.source, e.target, e.kind) for e in tiers.edges().itertuples()} == {
        ("a", "b", "-->"), ("b", "d", "-->"), ("c", "d", "-->")}
    cut = pc(frame, knowledge=Knowledge(forbidden=(("a", "b"), ("b", "a"))))
    assert ("a", "b") not in {(e.source, e.target) for e in cut.edges().itertuples()}
    with pytest.raises(ValueError, match="not among the variables"):
        pc(frame, knowledge=Knowledge(required=(("a", "zz"),)))


@pytest.mark.parametrize("kwargs, error, words", [
    ({"test": "bogus"}, ValueError, "test must be one of"),
    ({"test": 3}, TypeError, "test must be a name or a callable"),
    ({"alpha": 2.0}, ValueError, "alpha"),
    ({"columns": ["a", "nope"]}, ValueError, "not in the table"),
    ({"columns": ["a"]}, ValueError, "PC needs at least 2 columns"),
])
def test_bad_arguments_are_named(kwargs, error, words):
    with pytest.raises(error, match=words):
        pc(nonlinear_chain(50), **kwargs)


def test_missing_values_are_refused_by_name():
    frame = nonlinear_chain(50)
    frame.loc[3, "b"] = np.nan
    with pytest.raises(ValueError, match="missing or infinite"):
        pc(frame)


@pytest.mark.parametrize("orientation", ["standard", "causal-learn"])
@pytest.mark.parametrize("seed", range(10))
def test_every_collider_rule_finds_the_true_cpdag_with_an_oracle(seed, orientation):
    rng = np.random.default_rng(900 + seed)
    p = int(rng.integers(5, 10))
    dag = random_dag(p, 0.35, rng)
    result = pc(np.zeros((10, p)), test=oracle(dag), alpha=0.5, orientation=orientation)
    np.testing.assert_array_equal(result.graph, dag_to_cpdag(dag))


def test_a_terminal_gets_a_progress_bar_and_a_callback_replaces_it(monkeypatch, capsys):
    import sys

    frame = nonlinear_chain(200, seed=3)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    pc(frame)
    assert "PC" in capsys.readouterr().err
    seen = []
    pc(frame, progress=lambda level, tests: seen.append((level, tests)))
    assert capsys.readouterr().err == "" and [s[0] for s in seen] == list(range(len(seen)))
    assert seen[-1][1] > 0
