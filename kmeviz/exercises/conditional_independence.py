"""Exercises of notebook 11 (conditional independence): the residual operator from the
CME, the collider's verdict given Z, and what too large an ε does to a chain."""

from __future__ import annotations

import numpy as np

from ..conditional_independence.api import check_conditioning, ci_test
from ..conditional_independence.kci import CentredFactor, Residualiser, centred
from ..distributions.causal import causal_structure
from ..kernels import GaussianKernel
from ._feedback import Feedback, _choice
from .implement import _implementation


def residual_data(n: int = 60):
    """(the centred Gram K̃_Z of a fixed z-scored Z, a column k̃ to residualise, ε)."""
    X, _, Z = check_conditioning(*causal_structure("chain", n, rng=11))
    Kz = centred(GaussianKernel(1.0).gram(Z, Z))
    column = centred(GaussianKernel(1.0).gram(X, X))[:, 0]
    return Kz, column, 0.05


def check_residual_operator(function) -> Feedback:
    """``function(Kz, column, epsilon)``: the residual of ``column`` after the CME's kernel
    ridge regression on Z, column − K̃_Z (K̃_Z + εI)⁻¹ column = R_Z column."""
    Kz, column, eps = residual_data()
    cases = [(Kz, column, eps), (Kz, column, 2.0), (Kz[:30, :30], column[:30], eps)]

    def truth(K, c, e):
        return Residualiser(CentredFactor(None, K), e).apply(c)

    def fitted(K, c, e):
        return K @ np.linalg.solve(K + e * np.eye(len(K)), c)

    def n_lambda(K, c, e):
        return c - K @ np.linalg.solve(K + len(K) * e * np.eye(len(K)), c)

    def unregularised(K, c, e):
        return c - K @ np.linalg.lstsq(K, c, rcond=None)[0]

    mistakes = [
        (fitted, "that is the fit Ê[k̃ | Z], what the regression explains; KCI keeps what "
                 "it leaves: subtract it from the column"),
        (n_lambda, "ε is already nλ: the CME's K + nλI is K̃_Z + εI here, not K̃_Z + nεI"),
        (unregularised, "without ε the regression interpolates and leaves almost nothing: "
                        "add εI before solving"),
    ]
    return _implementation(function, "residual", cases, truth, mistakes, rtol=1e-8,
                           refused=("conditional_independence", "conditional"),
                           why="R_Z = I − K̃_Z(K̃_Z + εI)⁻¹ = ε(K̃_Z + εI)⁻¹: KCI's residual "
                               "operator is the CME's regression residual")


def collider_data():
    """400 points of a sine collider X → Z ← Y (the notebook's section 1)."""
    return causal_structure("collider", 400, rng=5)


def check_collider_decision(answer) -> Feedback:
    """"reject" or "keep": KCI's decision (Gamma null, α = 0.05) on ``collider_data()``
    given Z."""
    X, Y, Z = collider_data()
    truth = "reject" if ci_test(X, Y, Z).reject else "keep"
    marginal = ci_test(X, Y).p_value
    return _choice(answer, truth, ("reject", "keep"), "decision",
                   "X and Y are independent, but both cause Z: knowing Z and X, what do "
                   "you know about Y?",
                   why=f"the marginal test keeps (p = {marginal:.2f}), but given Z = "
                       "sin x + sin y + noise, a large sin x forces a small sin y: "
                       "conditioning on a common effect creates dependence (explaining "
                       "away)")


#: ε of the third exercise: far beyond the eigenvalues of K̃_Z.
LARGE_EPSILON = 1e4


def chain_data():
    """400 points of a sine chain X → Z → Y."""
    return causal_structure("chain", 400, rng=7)


def check_large_epsilon_decision(answer) -> Feedback:
    """"reject" or "keep": KCI's decision on ``chain_data()`` with ε = ``LARGE_EPSILON``."""
    X, Y, Z = chain_data()
    truth = "reject" if ci_test(X, Y, Z, epsilon=LARGE_EPSILON).reject else "keep"
    return _choice(answer, truth, ("reject", "keep"), "decision",
                   "what is R_Z = ε(K̃_Z + εI)⁻¹ when ε is much larger than every eigenvalue "
                   "of K̃_Z? What is left of the regression on Z?",
                   why="R_Z ≈ I: nothing of Z is removed, so T_CI is n·HSIC of (X, Z/2) and "
                       "Y, and the chain's marginal dependence makes it reject a true H0")
