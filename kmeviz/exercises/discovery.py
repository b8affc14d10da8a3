"""Exercises of notebook 14 (causal graphs by PC): orient the v-structures of a skeleton
from its separating sets, and count the DAGs a CPDAG stands for."""

from __future__ import annotations

import itertools

import numpy as np

from ..discovery import d_separated, pc, random_dag
from ._feedback import Feedback, _close
from .implement import _implementation


def collider_cases(count: int = 4) -> list:
    """(skeleton, separating sets) of ``count`` random DAGs of 5-7 nodes: the skeleton
    as a symmetric 0/1 array, the separating sets as {(i, j): set} for each non-adjacent
    pair i < j, as PC with a d-separation oracle records them."""
    rng = np.random.default_rng(14)
    cases = []
    for _ in range(count):
        p = int(rng.integers(5, 8))
        dag = random_dag(p, 0.4, rng)
        found = pc(np.zeros((4, p)), test=lambda i, j, S, dag=dag: float(
            d_separated(dag, i, j, S)), alpha=0.5, orientation="standard")
        skeleton = ((found.graph + found.graph.T) > 0).astype(int)
        separating = {tuple(sorted(pair)): set(sets[0])
                      for pair, sets in found.sepsets.items()}
        cases.append((skeleton, separating))
    return cases


def _arrowheads(skeleton, separating, *, shielded_too=False, inverted=False) -> np.ndarray:
    """arrow[i, k] = 1 when some triple i — k — j (i, j not adjacent) has k outside the
    separating set of i and j (SGS 2000, PC step C)."""
    p = skeleton.shape[0]
    arrow = np.zeros((p, p), dtype=int)
    for k in range(p):
        for i, j in itertools.combinations(np.flatnonzero(skeleton[k]), 2):
            if skeleton[i, j] and not shielded_too:
                continue
            outside = k not in separating.get((i, j), set())
            if outside != inverted:
                arrow[i, k] = arrow[j, k] = 1
    return arrow


def check_colliders(function) -> Feedback:
    """``function(skeleton, separating)``: the p × p 0/1 array with [i, k] = 1 when the
    edge i — k gets an arrowhead at k from a v-structure i → k ← j."""
    cases = collider_cases()
    mistakes = [
        (lambda s, sep: _arrowheads(s, sep, inverted=True),
         "a collider is a middle node that is *not* in the set that separated the two "
         "ends: conditioning on a common effect would make them dependent"),
        (lambda s, sep: _arrowheads(s, sep, shielded_too=True),
         "only unshielded triples count: when i and j are adjacent there is no separating "
         "set to read"),
    ]
    return _implementation(function, "collider orientation", cases,
                           [_arrowheads(*c) for c in cases], mistakes,
                           refused=("discovery",),
                           why="when k did not separate i and j, k cannot be a chain or "
                               "fork node between them (those are separated by k), so "
                               "both edges point into k")


def check_chain_class_size(answer) -> Feedback:
    """How many DAGs on a, b, c share the chain a → b → c's independences."""
    return _close(answer, 3.0, "number of DAGs",
                  "list the DAGs on the skeleton a — b — c and keep those where a and c "
                  "are independent given b but not alone: which orientation of the two "
                  "edges makes b a collider?",
                  why="a → b → c, a ← b ← c and a ← b → c all say a ⫫ c | b and nothing "
                      "else; only a → b ← c differs (a ⫫ c, dependent given b), so PC "
                      "leaves both edges of the chain undirected")
