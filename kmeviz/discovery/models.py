"""Random non-linear structural models on a DAG: data whose causal graph is known, for
checking PC and for teaching it."""

from __future__ import annotations

import numpy as np

#: the links a parent acts through (each edge draws one)
LINKS = (np.sin, np.tanh, lambda v: 0.5 * v**2, lambda v: v)


def structural_sample(dag: np.ndarray, n: int, *, noise: float = 0.5, rng=None):
    """n rows of X_j = Σ_{i → j} f_ij(X_i) / √|pa(j)| + noise·ε_j in a topological order
    of ``dag`` (``dag[i, j] = 1`` for i → j), each f_ij drawn from ``LINKS`` and each
    column standardised before it acts; ε_j standard normal. Returns (n, p)."""
    rng = np.random.default_rng(rng)
    p = dag.shape[0]
    links = rng.integers(len(LINKS), size=(p, p))
    X = np.zeros((n, p))
    done: list[int] = []
    while len(done) < p:
        for j in range(p):
            parents = np.flatnonzero(dag[:, j])
            if j in done or not set(parents) <= set(done):
                continue
            total = sum(LINKS[links[i, j]](X[:, i]) for i in parents)
            X[:, j] = total / max(1.0, np.sqrt(len(parents))) + noise * rng.normal(size=n)
            X[:, j] = (X[:, j] - X[:, j].mean()) / X[:, j].std()
            done.append(j)
    return X
