"""Background knowledge for PC: edges that must be there or must not, and tiers (a time
order of the variables: no edge points from a later tier into an earlier one)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Knowledge:
    """What is known before the tests.

    Parameters
    ----------
    required : tuple of (str, str)
        Edges a → b that are in the graph (never tested away, oriented a → b).
    forbidden : tuple of (str, str)
        Edges a → b that are not (a pair forbidden both ways is never tested).
    tiers : tuple of lists of str
        Variables in time order, earliest first: a → b is forbidden when b's tier comes
        before a's (variables in no tier are unconstrained).

    (Meek 1995, Sec. 4: orientation with background knowledge, rules R1–R4.)
    """

    required: tuple = ()
    forbidden: tuple = ()
    tiers: tuple = ()

    def check(self, names) -> None:
        """ValueError naming any variable the knowledge mentions that is not in ``names``."""
        known = set(map(str, names))
        mentioned = {str(v) for pair in (*self.required, *self.forbidden) for v in pair}
        mentioned |= {str(v) for tier in self.tiers for v in tier}
        unknown = sorted(mentioned - known)
        if unknown:
            raise ValueError(f"knowledge: {unknown} are not among the variables")
        clash = {tuple(map(str, e)) for e in self.required} & self._forbidden_pairs(names)
        if clash:
            raise ValueError(f"knowledge: edges {sorted(clash)} are both required and "
                             "forbidden (or against the tiers)")

    def _tier(self, name) -> int | None:
        for k, tier in enumerate(self.tiers):
            if str(name) in map(str, tier):
                return k
        return None

    def _forbidden_pairs(self, names) -> set:
        pairs = {tuple(map(str, e)) for e in self.forbidden}
        for a in map(str, names):
            for b in map(str, names):
                ta, tb = self._tier(a), self._tier(b)
                if a != b and ta is not None and tb is not None and tb < ta:
                    pairs.add((a, b))
        return pairs

    def forbids(self, a, b, names) -> bool:
        """Whether the edge a → b is forbidden."""
        return (str(a), str(b)) in self._forbidden_pairs(names)

    def kept(self, a, b) -> bool:
        """Whether a required edge joins a and b (either way)."""
        return any({str(a), str(b)} == {str(u), str(v)} for u, v in self.required)

    def absent_pairs(self, names) -> list:
        """Index pairs forbidden both ways: no edge, no test."""
        forbidden = self._forbidden_pairs(names)
        return [(i, j) for i, a in enumerate(map(str, names))
                for j, b in enumerate(map(str, names))
                if i < j and (a, b) in forbidden and (b, a) in forbidden
                and not self.kept(a, b)]

    def orient(self, M: np.ndarray, names) -> None:
        """Orient the undirected edges the knowledge decides (required, or forbidden one
        way) in place."""
        index = {str(n): k for k, n in enumerate(names)}
        for a, b in self.required:
            i, j = index[str(a)], index[str(b)]
            M[i, j], M[j, i] = 1, 0
        forbidden = self._forbidden_pairs(names)
        for a, b in forbidden:
            i, j = index[a], index[b]
            if M[i, j] and M[j, i]:
                M[i, j] = 0  # b → a
