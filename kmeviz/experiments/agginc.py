"""The linear-time aggregated tests (MMDAggInc, HSICAggInc, KSDAggInc; Schrab, Kim, Guedj
& Gretton 2022) against their complete versions (MMDAgg, HSICAgg, KSDAgg): size on each
family's null and power on the authors' three problems (Sec. 5) at two n, as the named
reproduction ``agginc`` (``kmeviz reproduce agginc``).

Problems (``PROBLEMS``), each with a null and an alternative:

- two-sample: Y uniform on [0, 1]² against X from the perturbed uniform (MMDAgg Eq. 17,
  2 bumps a coordinate, amplitude 0.5; the null: both uniform);
- independence: the sinusoid p ∝ 1 + sin(ℓx) sin(ℓy) at ℓ = 4 (the null: ℓ = 0);
- goodness of fit: the Gauss–Bernoulli RBM (d = 50, 40 hidden units) against a sample of
  its perturbation σ = 0.015 (Kalinke et al. Sec. 5; the null: σ = 0).

Every test at B1 = B2 = 500 (the authors' default), R = 200 superdiagonals.
"""

from __future__ import annotations

from functools import partial

import pandas as pd

from ..distributions.datasets import perturbed_uniform_two_sample
from ..distributions.dependence import sinusoid
from ..distributions.targets import GaussBernoulliRBM
from ..gof.ksd_tests import ksd_test
from ..independence.tests import hsic_test
from ..twosample.mmd_tests import mmd_test
from .runners import rejection_rates

#: B1 = B2 of every test here (``agginc``'s default).
RESAMPLES = 500
#: The alternatives' strengths.
AMPLITUDE, FREQUENCY, RBM_SIGMA = 0.5, 4.0, 0.015


def two_sample(n, alternative, rng):
    """(X, Y): X perturbed-uniform (``AMPLITUDE``) or uniform, Y uniform, on [0, 1]²."""
    return perturbed_uniform_two_sample(n, dim=2, perturbations=2,
                                        scale=AMPLITUDE if alternative else 0.0, rng=rng)


def independence(n, alternative, rng):
    """(X, Y) from the sinusoid at ℓ = ``FREQUENCY`` (alternative) or 0."""
    return sinusoid(n, FREQUENCY if alternative else 0.0, rng=rng)


def goodness_of_fit(n, alternative, rng):
    """(sample of the RBM or of its perturbation σ = ``RBM_SIGMA``, RBM target)."""
    rbm = GaussBernoulliRBM.random(50, 40, rng=rng)
    source = rbm.perturbed(RBM_SIGMA, rng=rng) if alternative else rbm
    return source.sample(n, rng=rng), rbm


def _run(test, estimator, data, *, alpha, rng):
    return test(*data, estimator=estimator, n_resamples=RESAMPLES, alpha=alpha, rng=rng)


#: problem -> (sampler, {label: run}): the complete test and the incomplete one
PROBLEMS = {
    "two-sample": (two_sample, {"MMDAgg": partial(_run, mmd_test, "mmdagg"),
                                "MMDAggInc": partial(_run, mmd_test, "mmdagginc")}),
    "independence": (independence, {"HSICAgg": partial(_run, hsic_test, "hsicagg"),
                                     "HSICAggInc": partial(_run, hsic_test, "hsicagginc")}),
    "goodness of fit": (goodness_of_fit, {"KSDAgg": partial(_run, ksd_test, "ksdagg"),
                                          "KSDAggInc": partial(_run, ksd_test,
                                                               "ksdagginc")}),
}


def agginc_size_power(quick, rng, progress=None, executor=None) -> pd.DataFrame:
    """Size (H0, 500 draws at n = 500) and power (H1, 100 draws at n = 500 and 1000) of
    each complete and incomplete aggregated test, 95 % Clopper–Pearson intervals."""
    frames = []
    plan = ([(False, 200, 8), (True, 200, 4)] if quick else
            [(False, 500, 500), (True, 500, 100), (True, 1000, 100)])
    for problem, (sampler, tests) in PROBLEMS.items():
        for alternative, n, repeats in plan:
            df = rejection_rates(partial(sampler, n, alternative), tests, n_repeats=repeats,
                                 level=0.95, rng=rng, progress=progress, executor=executor)
            df = df.rename(columns={df.columns[0]: "test"})
            df.insert(0, "hypothesis", "H1 (power)" if alternative else "H0 (size)")
            df.insert(0, "n", n)
            df.insert(0, "problem", problem)
            df["curve"] = df["test"] + (" power" if alternative else " size")
            frames.append(df)
    return pd.concat(frames, ignore_index=True)
