"""Graphs of causal discovery: a DAG's d-separation (the oracle CI test), its CPDAG, and
the orientation steps of the PC algorithm (v-structures, Meek's rules).

A partially directed graph on p nodes is an int matrix ``M``: ``M[i, j] = 1`` and
``M[j, i] = 0`` is the edge i → j, ``M[i, j] = M[j, i] = 1`` the undirected edge i — j,
both 0 no edge (Spirtes, Glymour & Scheines 2000, Sec. 5.4; Meek 1995).
"""

from __future__ import annotations

import itertools

import numpy as np


def adjacent(M: np.ndarray, i: int, j: int) -> bool:
    """Whether i and j are joined by an edge of any kind."""
    return bool(M[i, j] or M[j, i])


def directed(M: np.ndarray, i: int, j: int) -> bool:
    """Whether the edge i → j is in M."""
    return bool(M[i, j] and not M[j, i])


def undirected(M: np.ndarray, i: int, j: int) -> bool:
    """Whether the edge i — j is in M."""
    return bool(M[i, j] and M[j, i])


def ancestors(dag: np.ndarray, nodes) -> set:
    """The nodes with a directed path into ``nodes``, ``nodes`` included."""
    found, stack = set(nodes), list(nodes)
    while stack:
        for parent in np.flatnonzero(dag[:, stack.pop()]):
            if parent not in found:
                found.add(int(parent))
                stack.append(int(parent))
    return found


def d_separated(dag: np.ndarray, x: int, y: int, given=()) -> bool:
    """Whether x and y are d-separated by ``given`` in a DAG: separated in the moral
    graph of the ancestral set of {x, y} ∪ given.

    Parameters
    ----------
    dag : array (p, p) of int
        ``dag[i, j] = 1`` for the edge i → j.
    x, y : int
        Two nodes.
    given : iterable of int
        The conditioning set.

    Returns
    -------
    bool
        True when every path between x and y is blocked: under the causal Markov and
        faithfulness assumptions, exactly when X ⫫ Y | given.

    Examples
    --------
    >>> import numpy as np
    >>> collider = np.array([[0, 0, 1], [0, 0, 1], [0, 0, 0]])  # 0 → 2 ← 1
    >>> d_separated(collider, 0, 1), d_separated(collider, 0, 1, [2])
    (True, False)

    (Lauritzen et al. 1990, Prop. 3.)
    """
    given = set(given)
    keep = sorted(ancestors(dag, {x, y} | given))
    sub = dag[np.ix_(keep, keep)].astype(bool)
    moral = sub | sub.T
    for child in range(len(keep)):  # marry the parents of each child
        parents = np.flatnonzero(sub[:, child])
        for a, b in itertools.combinations(parents, 2):
            moral[a, b] = moral[b, a] = True
    index = {node: k for k, node in enumerate(keep)}
    blocked = {index[g] for g in given}
    seen, stack = {index[x]}, [index[x]]
    while stack:
        for nxt in np.flatnonzero(moral[stack.pop()]):
            if nxt == index[y]:
                return False
            if nxt not in seen and nxt not in blocked:
                seen.add(int(nxt))
                stack.append(int(nxt))
    return True


def unshielded_triples(M: np.ndarray) -> list:
    """Every (i, k, j), i < j, with i — k — j adjacent and i, j not."""
    p = M.shape[0]
    return [(i, k, j) for k in range(p)
            for i, j in itertools.combinations([v for v in range(p) if adjacent(M, v, k)], 2)
            if not adjacent(M, i, j)]


def orient_v_structures(M: np.ndarray, is_collider) -> list:
    """Orient every unshielded triple i — k — j that ``is_collider(i, k, j)`` says is a
    collider as i → k ← j (Spirtes, Glymour & Scheines 2000, PC step C), all at once: an
    edge two colliders would orient both ways stays undirected, and its triples are
    returned as conflicts (an order-independent rule, Colombo & Maathuis 2014, Sec. 5.1)."""
    proposed = [(a, k) for i, k, j in unshielded_triples(M) if is_collider(i, k, j)
                for a in (i, k, j)[::2]]
    arrows = set(proposed)
    conflicts = sorted({(a, k) for a, k in arrows if (k, a) in arrows})
    for a, k in arrows:
        if (k, a) not in arrows and not directed(M, k, a):
            M[k, a] = 0  # a → k
    return conflicts


def orient_existing_first(M: np.ndarray, is_collider) -> list:
    """Colliders one at a time in the order of (i, k, j), an existing one kept: i → k ← j
    unless k → i or k → j is already there (causal-learn's ``uc_priority=2``; the result
    depends on the order). Returns the triples it skipped."""
    skipped = []
    for i, k, j in sorted(unshielded_triples(M)):
        if not is_collider(i, k, j):
            continue
        if directed(M, k, i) or directed(M, k, j):
            skipped.append((i, k, j))
            continue
        M[k, i] = M[k, j] = 0
        M[i, k] = M[j, k] = 1
    return skipped


def meek_rules(M: np.ndarray) -> np.ndarray:
    """Orient undirected edges by Meek's rules R1–R4 until none applies (Meek 1995,
    Sec. 2.2): no new v-structure (R1), no directed cycle (R2, R3), and R4 for
    background knowledge. Changes and returns M."""
    p = M.shape[0]
    changed = True
    while changed:
        changed = False
        for a, b in itertools.permutations(range(p), 2):
            if not undirected(M, a, b):
                continue
            if _meek_orients(M, a, b):
                M[b, a] = 0  # a → b
                changed = True
    return M


def _meek_orients(M: np.ndarray, a: int, b: int) -> bool:
    """Whether one of R1–R4 orients the undirected edge a — b as a → b."""
    p = M.shape[0]
    others = [c for c in range(p) if c not in (a, b)]
    # R1: c → a — b, c and b not adjacent
    if any(directed(M, c, a) and not adjacent(M, c, b) for c in others):
        return True
    # R2: a → c → b
    if any(directed(M, a, c) and directed(M, c, b) for c in others):
        return True
    # R3: a — c → b, a — d → b, c and d not adjacent
    chains = [c for c in others if undirected(M, a, c) and directed(M, c, b)]
    if any(not adjacent(M, c, d) for c, d in itertools.combinations(chains, 2)):
        return True
    # R4: a — c → d → b, with c and b not adjacent, a and d adjacent
    for c, d in itertools.permutations(others, 2):
        if (undirected(M, a, c) and directed(M, c, d) and directed(M, d, b)
                and not adjacent(M, c, b) and adjacent(M, a, d)):
            return True
    return False


def dag_to_cpdag(dag: np.ndarray) -> np.ndarray:
    """The CPDAG of a DAG's Markov equivalence class: its skeleton, its v-structures
    directed, then Meek's rules.

    Parameters
    ----------
    dag : array (p, p) of int
        ``dag[i, j] = 1`` for the edge i → j.

    Returns
    -------
    array (p, p) of int
        ``cpdag[i, j] = 1, cpdag[j, i] = 0`` for an edge every DAG of the class orients
        i → j; both 1 for an edge the class leaves undirected.

    Examples
    --------
    >>> import numpy as np
    >>> chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])  # 0 → 1 → 2
    >>> dag_to_cpdag(chain).tolist()  # 0 — 1 — 2: a chain and a fork are equivalent
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]

    (Verma & Pearl 1990; Meek 1995, Thm. 3: the rules complete the class.)
    """
    dag = np.asarray(dag, dtype=int)
    p = dag.shape[0]
    M = ((dag + dag.T) > 0).astype(int)
    for k in range(p):
        parents = np.flatnonzero(dag[:, k])
        for i, j in itertools.combinations(parents, 2):
            if not adjacent(dag, i, j):
                M[k, i] = M[k, j] = 0
    return meek_rules(M)


def random_dag(p: int, density: float, rng) -> np.ndarray:
    """A random DAG on p nodes: each pair i < j of a random order joined i → j with
    probability ``density``."""
    order = rng.permutation(p)
    dag = np.zeros((p, p), dtype=int)
    for a, b in itertools.combinations(range(p), 2):
        if rng.random() < density:
            dag[order[a], order[b]] = 1
    return dag


def structural_hamming_distance(graph: np.ndarray, truth: np.ndarray) -> int:
    """The pairs of nodes whose edge differs between two graphs in these marks: missing,
    extra, or oriented otherwise (Tsamardinos, Brown & Aliferis 2006, Sec. 6)."""
    p = graph.shape[0]
    return sum((graph[i, j], graph[j, i]) != (truth[i, j], truth[j, i])
               for i in range(p) for j in range(i + 1, p))
