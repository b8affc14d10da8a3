"""The conditional analogue of the normalised HSIC: how strongly X and Y depend once Z
is regressed out, on KCI's residual Gram matrices.

KCI (Zhang et al. 2011, Eq. 12) tests the residual Grams K̃_{Ẍ|Z} = R_Z K̃_Ẍ R_Z and
K̃_{Y|Z} = R_Z K̃_Y R_Z, R_Z = ε(K̃_Z + εI)⁻¹. Their U-centred cosine (the normalised
HSIC of ``kmeviz.independence.effect`` read on the residual Grams) is 0 when the residuals
are independent and 1 when they are equal. The jackknife interval treats the residual
Grams as given: R_Z depends on every row, so leaving row k out of the residual Grams is
not refitting the regression without it; the interval is an approximation, whose holding
of 0 under conditional independence the tests measure.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_in_interval, check_rng
from ..independence.effect import MAX_ROWS, DependenceEffect, normalised_hsic_from_grams
from ..independence.measures import check_paired
from .api import check_conditioning, checked_epsilon
from .kci import DEFAULT_EPSILON, augmented, default_kci_kernels, residual_grams


class ConditionalEffect(DependenceEffect):
    """The normalised HSIC of the residuals of X and Y given Z, with its interval."""

    meaning = ("read on what Z's regression leaves of X and of Y: 0 when "
               "Z explains their dependence, 1 when the residuals are equal; on the "
               "kernels' scale")

    def columns(self) -> dict:
        return {"effect_conditional_normalised_hsic": self.value, "effect_low": self.low,
                "effect_high": self.high, "effect_level": self.level}

    def __str__(self) -> str:
        return "conditional " + super().__str__()


def conditional_effect_size(X, Y, Z, *, epsilon: float = DEFAULT_EPSILON,
                            level: float = 0.95, rng=None) -> ConditionalEffect:
    """The normalised HSIC of KCI's residual Grams K̃_{Ẍ|Z}, K̃_{Y|Z} (Zhang et al.
    2011, Eq. 12; the authors' kernels and Ẍ = (X, Z/2) on z-scored columns, as
    ``ci_test(estimator="kci")``) with a jackknife interval (see the module docstring).

    Parameters
    ----------
    X : array (n, d_X)
    Y : array (n, d_Y)
    Z : array (n, d_Z)
        Paired row by row, n ≥ 6.
    epsilon : float or pair
        ε of R_Z, or (ε_X, ε_Y) (numbers: ``"cv"`` is ``ci_test``'s to choose).
    level : float in (0, 1)
    rng : Generator, int or None
        Draws the subsample above ``MAX_ROWS`` rows.

    Returns
    -------
    ConditionalEffect

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(300, 1))
    >>> x, y = z + 0.3 * rng.normal(size=z.shape), z + 0.3 * rng.normal(size=z.shape)
    >>> conditional_effect_size(x, y, z).low <= 0.0 < conditional_effect_size(x, x, z).low
    True
    """
    X, Y, Z = check_paired(X, Y, Z, min_samples=6, names=("X", "Y", "Z"))
    epsilon = checked_epsilon(epsilon)
    if isinstance(epsilon, str):
        raise ValueError("epsilon must be a number here (ci_test chooses it by "
                         "cross-validation)")
    level = check_in_interval(level, "level", 0.0, 1.0)
    rng = check_rng(rng)
    n = X.shape[0]
    if n > MAX_ROWS:
        keep = np.sort(rng.choice(n, MAX_ROWS, replace=False))
        X, Y, Z = X[keep], Y[keep], Z[keep]
    X, Y, Z = check_conditioning(X, Y, Z)
    grams = residual_grams(augmented(X, Z), Y, Z, default_kci_kernels(*Z.shape), *epsilon)
    estimate, low, high = normalised_hsic_from_grams(grams.x.full(), grams.y.full(),
                                                     level=level)
    return ConditionalEffect.clipped(estimate, low, high, level, X.shape[0], n)
