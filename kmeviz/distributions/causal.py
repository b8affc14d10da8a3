"""Samples (X, Y, Z) from the four small causal structures of conditional independence
testing, with a chosen link function: ``causal_structure(structure, n, ...)``.

=========== ================= ============ ================
structure   graph             X ⫫ Y ?      X ⫫ Y | Z ?
=========== ================= ============ ================
chain       X → Z → Y         no           yes
fork        X ← Z → Y         no           yes
collider    X → Z ← Y         yes          no
unrelated   X → Y, Z alone    no           no
=========== ================= ============ ================

Only Z's first column takes part; its other columns (``d_z`` > 1) are independent
N(0, 1) noise, the extra conditioning variables of a causal-discovery search.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_choice, check_positive_int, check_real, check_rng

#: The link functions f of every edge (t ↦ f(t)).
LINKS = {
    "linear": lambda t: t,
    "sine": np.sin,
    "square": lambda t: t**2 - 1.0,
    "threshold": lambda t: np.where(t > 0.0, 1.0, -1.0),
    # a dependence hidden at a fine scale of Z: H0 holds on the chain and fork, but a
    # smooth regression on Z cannot remove it (Shah & Peters 2020; notebook 11 §8)
    "fast sine": lambda t: np.sin(8.0 * t),
}
#: The structures, and whether H0 (X ⫫ Y | Z) holds in each.
STRUCTURES = {"chain": True, "fork": True, "collider": False, "unrelated": False}
#: ... and whether X and Y are marginally independent.
MARGINALLY_INDEPENDENT = {"chain": False, "fork": False, "collider": True,
                          "unrelated": False}


def causal_structure(structure: str, n: int, *, link: str = "sine", noise: float = 0.5,
                     d_z: int = 1, rng=None):
    """(X, Y, Z) of ``structure`` ("chain", "fork", "collider", "unrelated"; see the module
    table), each edge a ↦ f(a) + ``noise`` · N(0, 1) with f = ``LINKS[link]``; X, Y of
    shape (n, 1), Z of shape (n, d_z). Root variables are N(0, 1).

    Examples
    --------
    >>> X, Y, Z = causal_structure("chain", 5, rng=0)
    >>> X.shape, Y.shape, Z.shape
    ((5, 1), (5, 1), (5, 1))
    """
    check_choice(structure, "structure", tuple(STRUCTURES))
    check_choice(link, "link", tuple(LINKS))
    n = check_positive_int(n, "n")
    d_z = check_positive_int(d_z, "d_z")
    noise = check_real(noise, "noise")
    if noise < 0:
        raise ValueError(f"noise must be >= 0, got {noise}")
    rng = check_rng(rng)
    f = LINKS[link]

    def noisy(t):
        return f(t) + noise * rng.standard_normal(n)

    root = rng.standard_normal((3, n))
    if structure == "chain":
        x = root[0]
        z = noisy(x)
        y = noisy(z)
    elif structure == "fork":
        z = root[0]
        x, y = noisy(z), noisy(z)
    elif structure == "collider":
        x, y = root[0], root[1]
        z = f(x) + f(y) + noise * rng.standard_normal(n)
    else:
        x, z = root[0], root[1]
        y = noisy(x)
    Z = np.column_stack([z, rng.standard_normal((n, d_z - 1))])
    return x[:, None], y[:, None], Z
