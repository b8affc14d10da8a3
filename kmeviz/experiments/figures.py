"""The papers' figures as named reproductions: ``FIGURES[name].run(quick=..., rng=...)``
returns the figure's tidy table; ``kmeviz reproduce NAME`` writes it with its plot
(``kmeviz.viz.figures``).

Each entry says which columns make the plot (x, y, the series, an interval), and the
numbers the paper reports, where it gives any (most figures are plots only). ``quick``
runs in seconds with few draws (for tests and a first look); the full version uses the
counts of ``docs/results/README.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from ..distributions import EmpiricalDistribution, nyc_taxi
from .agginc import agginc_size_power
from .aggregated import kernel_choice_power
from .cme import sparsity_bands, sparsity_path
from .fastmmd import FIG6_SIGMAS, fastmmd_type2_vs_L, kernel_family_mmd, type2_vs_epsilon
from .fastmmd_accuracy import FIG5_LS, fastmmd_efficiency, fastmmd_error_vs_L
from .ksd import (
    FIG1_DIMENSIONS,
    FIG1_METHODS,
    ksd_power,
    ksd_runtime_vs_n,
    landmark_methods,
    power_and_runtime_vs_n,
)
from .nystrom import nystrom_error_vs_m, nystrom_mmd_error_vs_m
from .tests_figures import ci_size_power, hsic_sinusoid, hsic_size


@dataclass(frozen=True)
class FigureSpec:
    """One figure of a paper: what to run and how to draw it."""

    name: str
    paper: str
    title: str
    runner: Callable[..., pd.DataFrame]  # runner(quick, rng, progress, executor)
    x: str
    y: str
    series: str
    xlabel: str = ""
    ylabel: str = ""
    logx: bool = False
    logy: bool = False
    interval: tuple[str, str] | None = None
    hline: float | None = None  # a reference level (α for rejection rates)
    facet: str | None = None  # one panel per value of this column
    paper_values: pd.DataFrame | None = field(default=None, compare=False)
    note: str = ""
    #: legend label of a series value, where the value alone would mislead
    labels: dict = field(default_factory=dict, compare=False)
    #: reference marks of one panel: ``marks(panel_table)`` -> [(kind, value, label)], kind
    #: "x" (a vertical line) or "y" (a horizontal one)
    marks: Callable[[pd.DataFrame], list] | None = field(default=None, compare=False)
    #: whether the facets share their axes (False when their x measure different things)
    shared_axes: bool = True

    def run(self, *, quick: bool = False, rng: int = 0, progress=None,
            executor=None) -> pd.DataFrame:
        """The figure's table (quick: seconds; full: the counts of docs/results);
        ``progress(done, total)`` is called as the runner's trials finish, and
        ``executor`` (a ``concurrent.futures.Executor``) runs them in parallel (the
        tables do not depend on it, but for measured runtimes)."""
        return self.runner(quick, rng, progress, executor)


def _fig5(quick, rng, progress=None, executor=None):
    return fastmmd_error_vs_L((4, 64, 512) if quick else FIG5_LS,
                              n=300 if quick else 1000, n_trials=10 if quick else 1000,
                              rng=rng, progress=progress, executor=executor)


def _fig7(quick, rng, progress=None, executor=None):
    if quick:  # panel (b) at n = 1000, L = 512 (its label keeps the paper's setting)
        return fastmmd_efficiency(values={"a": (1_000, 3_000), "b": (8, 64)}, n_b=1_000,
                                  L_b=512, rng=rng, progress=progress)
    return fastmmd_efficiency(rng=rng, progress=progress)


def _fig6(quick, rng, progress=None, executor=None):
    sigmas = FIG6_SIGMAS[::3] if quick else FIG6_SIGMAS
    df = kernel_family_mmd(sigmas, n=100 if quick else 200, n_draws=10 if quick else 1000,
                           rng=rng, progress=progress, executor=executor)
    return with_exact_series(df)


def with_exact_series(df: pd.DataFrame) -> pd.DataFrame:
    """Fig. 6's table with the exact MMD² as a series of its own and mean ± std bands."""
    exact = df.drop_duplicates(["sigma", "kind"]).assign(estimator="exact",
                                                         mean=lambda t: t.exact, std=0.0)
    df = pd.concat([df, exact], ignore_index=True)
    return df.assign(low=df["mean"] - df["std"], high=df["mean"] + df["std"])


def _fig8a(quick, rng, progress=None, executor=None):
    Ls = (1, 4, 16, 64) if quick else (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
    return fastmmd_type2_vs_L(Ls, n=200 if quick else 1000, n_repeats=10 if quick else 100,
                              n_resamples=200 if quick else 1000, rng=rng,
                              progress=progress, executor=executor)


def _fig8b(quick, rng, progress=None, executor=None):
    eps = (1.4, 2.2, 3.0) if quick else (1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.4, 2.6, 2.8, 3.0)
    return type2_vs_epsilon(eps, n=200 if quick else 1000, n_repeats=10 if quick else 100,
                            n_resamples=200 if quick else 1000, rng=rng,
                            progress=progress, executor=executor)


def _nystrom_fig1(quick, rng, progress=None, executor=None):
    run = partial(nystrom_error_vs_m, rng=rng, progress=progress, executor=executor)
    if quick:
        small = {"ms": np.array([4, 16, 64, 256]), "n_repeats": 3}
        return _with_greedy(run((500,), **small), run((500,), **small, **GREEDY))
    # the paper's n = 10³, 10⁴, 10⁵ and 100 trials; n = 10⁵ dominates (the empirical
    # embedding's exact error is a sum over n² kernel values). The greedy baselines "in
    # the settings where n is moderate" (Sec. 6.1): herding at 10³ and 10⁴, the greedy
    # determinant (O(n m²)) at 10³; separate runs, so the Nyström rows stay those of the
    # same seed without them (the same mixture and samples: the draws start alike)
    return _with_greedy(run((1_000, 10_000, 100_000), n_repeats=100),
                        run((1_000, 10_000), n_repeats=100, baselines=("herding",),
                            nystrom=False),
                        run((1_000,), n_repeats=100, baselines=("greedy-det",),
                            nystrom=False))


#: the greedy baselines of Chatalic et al. Fig. 1 kmeviz runs (a run without Nyström)
GREEDY = {"baselines": ("herding", "greedy-det"), "nystrom": False}


def _with_greedy(main: pd.DataFrame, *greedy: pd.DataFrame) -> pd.DataFrame:
    """``main`` and the greedy runs' rows (their empirical rows repeat ``main``'s)."""
    rows = [g[g["estimator"] != "empirical"] for g in greedy]
    out = pd.concat([main, *rows], ignore_index=True)
    out.attrs = main.attrs
    return out


#: the Nyström figures' legend: the random-feature embedding's error is a distance in its
#: own feature space, which Chatalic et al. say "cannot be compared directly" with H
NYSTROM_LABELS = {"rff": "RFF (own feature space, not comparable)",
                  "empirical": "empirical (all n points)",
                  "herding": "kernel herding (Y. Chen 2010)",
                  "greedy-det": "greedy determinant-based (L. Chen 2018)"}


def nystrom_marks(panel: pd.DataFrame) -> list:
    """Chatalic et al.'s reference marks on one n: m = √n log √n (Thm 4.1's order, where
    Nyström reaches the empirical error) and the empirical estimator's mean error."""
    n = int(panel["n"].iloc[0])
    marks = [("x", float(np.sqrt(n) * np.log(np.sqrt(n))), "m = √n log √n")]
    empirical = panel.loc[panel["estimator"] == "empirical", "mean_error"]
    if len(empirical):
        marks.append(("y", float(empirical.mean()), "empirical error"))
    return marks


def _nystrom_mmd(quick, rng, progress=None, executor=None):
    if quick:
        return nystrom_mmd_error_vs_m((500,), ms=np.array([4, 16, 64, 256]), n_repeats=3,
                                      rng=np.random.default_rng(rng),
                                      progress=progress, executor=executor)
    return nystrom_mmd_error_vs_m((1_000, 4_000), ms=np.unique(np.geomspace(4, 1000, 10)
                                                                  .astype(int)),
                                  n_repeats=10, rng=np.random.default_rng(rng),
                                  progress=progress, executor=executor)


def _nystrom_fig2(quick, rng, progress=None, executor=None):
    data = EmpiricalDistribution(nyc_taxi())
    if quick:
        return nystrom_error_vs_m((500,), ms=np.array([4, 16, 64, 256]), n_repeats=3,
                                  mixture=data, rng=np.random.default_rng(rng),
                                  progress=progress, executor=executor)
    return nystrom_error_vs_m((1_000, 4_000), ms=np.unique(np.geomspace(4, 2000, 12)
                                                            .astype(int)),
                              n_repeats=20, mixture=data, rng=np.random.default_rng(rng),
                              progress=progress, executor=executor)


def _nksd_fig1a(quick, rng, progress=None, executor=None):
    ns = (200, 400) if quick else (100, 500, 1000, 1500, 2000, 5000)
    raw = ksd_runtime_vs_n(ns, n_repeats=2 if quick else 10, n_resamples=100 if quick
                           else 500, rng=rng, progress=progress, executor=executor)
    # the paper's average with its spread: median and the range over the repeats
    return raw.groupby(["n", "test"], as_index=False, sort=False).runtime_s.agg(
        runtime_s="median", low="min", high="max", repeats="size")


def _power(problem, params_quick, params_full, n_quick, n_full, repeats_full):
    def run(quick, rng, progress=None, executor=None):
        return ksd_power(problem, params_quick if quick else params_full,
                         n=n_quick if quick else n_full, n_repeats=5 if quick else repeats_full,
                         n_resamples=100 if quick else 500, methods=FIG1_METHODS, rng=rng,
                         progress=progress, executor=executor)
    return run


#: App. D.2's experiments: (problem, parameters, n, the paper's draw count)
_APP_D2 = (("laplace", FIG1_DIMENSIONS, 1000, 500), ("student-t", FIG1_DIMENSIONS, 2000, 250),
           ("rbm", (0.0, 0.02, 0.04, 0.06), 1000, 100))


def _nksd_app_d2(quick, rng, progress=None, executor=None):
    cases = (("laplace", (5,), 200, 5), ("rbm", (0.06,), 200, 5)) if quick else _APP_D2
    frames = [ksd_power(problem, params, n=n, n_repeats=repeats, methods=landmark_methods(),
                        n_resamples=100 if quick else 500, rng=rng, progress=progress,
                        executor=executor)
              for problem, params, n, repeats in cases]
    return pd.concat(frames, ignore_index=True)


def _nksd_app_d1(quick, rng, progress=None, executor=None):
    return power_and_runtime_vs_n((200, 400) if quick else (500, 1000, 2000),
                                  n_repeats=3 if quick else 100,
                                  n_resamples=100 if quick else 500, rng=rng,
                                  progress=progress, executor=executor)


def _mmdagg_power(quick, rng, progress=None, executor=None):
    df = kernel_choice_power("blobs", (2.0, 3.0) if quick else (1.6, 2.0, 2.5, 3.0),
                             n=200 if quick else 500, n_repeats=4 if quick else 200,
                             n_resamples=1000 if quick else 2000, rng=rng,
                             progress=progress, executor=executor)
    return df[df.kind != "single σ"].reset_index(drop=True)


def _cme_fig1(quick, rng, progress=None, executor=None):
    if quick:
        path = sparsity_path(n_train=80, n_test=200, gammas=(1e-1, 1e-2, 1e-3, 0.0),
                             ranks=np.array([2, 8, 32, 80]), n_draws=2, rng=rng,
                             progress=progress, executor=executor)
    else:
        path = sparsity_path(n_draws=10, rng=rng, progress=progress, executor=executor)
    return sparsity_bands(path)


#: what the KSD figures' IMQ kernel is
IMQ_NOTE = ("IMQ as the authors' script sets it: β', c' of the L1 IMQ construction "
            "(kmeviz.l1_imq_kernel) for Laplace and Student-t, c = 1, β = -½ for the RBM")

_FIG8B_PAPER = pd.DataFrame({
    "test": ["Bootstrap (exact MMD_b)", "Pearson", "Spectrum", "Gamma",
             "FastMMD-Fourier + bootstrap"],
    "runtime_s": [88.7, 37.9, 33.2, 0.73, 4.5],
    "what": "execution time of each approach in the Fig. 8b experiment (Sec. 4.5)",
})

FIGURES: dict[str, FigureSpec] = {f.name: f for f in [
    FigureSpec("fastmmd-fig5", "FastMMD (Zhao & Meng)", "Fig. 5: relative error of "
               "FastMMD against L (blobs, ε = 4)", _fig5, x="L", y="mean_error",
               series="method", facet="kind", logx=True, logy=True, interval=("low", "high"),
               xlabel="L (basis functions)", ylabel="|MMD²_L − MMD²| / MMD² (mean)",
               note="n = 1000 per sample, σ = 1; mean over trials ± 1.96 standard errors"),
    FigureSpec("fastmmd-fig7", "FastMMD (Zhao & Meng)", "Fig. 7: time of exact, linear, "
               "B-test and FastMMD (uniform boxes)", _fig7, x="x", y="runtime_s",
               series="method", facet="panel", logx=True, logy=True,
               xlabel="n per sample (a) or dimension d (b)", ylabel="seconds per MMD²",
               shared_axes=False,
               note="one call each, in one process on an otherwise idle machine (run it "
                    "without --workers): the paper's (a) d = 16, L = 128 and (b) n = 10⁴, "
                    "L = 8192"),
    FigureSpec("fastmmd-fig6", "FastMMD (Zhao & Meng)", "Fig. 6: MMD² of a Gaussian-kernel "
               "family on the ring data", _fig6, x="sigma", y="mean", series="estimator",
               xlabel="kernel bandwidth σ", ylabel="MMD²", facet="kind",
               logx=True, interval=("low", "high"),
               note="mean ± std over frequency draws / orderings; 'exact' is the exact MMD²"),
    FigureSpec("fastmmd-fig8a", "FastMMD (Zhao & Meng)", "Fig. 8a: type-II error of "
               "FastMMD-Fourier vs L (blobs, ε = 4)", _fig8a, x="L", y="type2_error",
               xlabel="L (random features)", ylabel="type-II error", series="test",
               logx=True, interval=("type2_ci_low", "type2_ci_high")),
    FigureSpec("fastmmd-fig8b", "FastMMD (Zhao & Meng)", "Fig. 8b: type-II error vs ε "
               "(L = 256)", _fig8b, x="epsilon", y="type2_error", series="test",
               xlabel="ε (eigenvalue ratio of the blobs)", ylabel="type-II error",
               interval=("type2_ci_low", "type2_ci_high"), paper_values=_FIG8B_PAPER,
               note="the paper's runtimes (Sec. 4.5 text, n = 1000) do not say how many "
               "tests they cover; their sizes fit one test each"),
    FigureSpec("nystrom-fig1", "Nyström KME (Chatalic et al.)", "Fig. 1: embedding error vs "
               "m (exact, App. G)", _nystrom_fig1, x="m", y="mean_error", xlabel="m (landmarks)",
               ylabel="embedding error ||μ̂ - μ||",
               series="estimator", logx=True, logy=True, interval=("p05", "p95"), facet="n",
               labels=NYSTROM_LABELS, marks=nystrom_marks),
    FigureSpec("nystrom-mmd", "Nyström KME (Chatalic et al.)", "Sec. 6.1 / Thm 5.1: MMD "
               "error vs m (exact, App. G)", _nystrom_mmd, x="m", y="mean_error",
               xlabel="m (landmarks per sample)", ylabel="|MMD - MMD̂|",
               series="estimator", logx=True, logy=True, interval=("p05", "p95"), facet="n",
               labels=NYSTROM_LABELS, marks=nystrom_marks,
               note="ρ₂ is the paper's mixture shifted by 1 along the first axis"),
    FigureSpec("nystrom-fig2", "Nyström KME (Chatalic et al.)", "Fig. 2 on real data: "
               "embedding error vs m (NYC taxi, exact)", _nystrom_fig2, x="m",
               y="mean_error", xlabel="m (landmarks)", ylabel="embedding error ||μ̂ - μ||",
               series="estimator", logx=True, logy=True, interval=("p05", "p95"), facet="n",
               labels=NYSTROM_LABELS, marks=nystrom_marks,
               note="ρ uniform over the 8784 standardised hourly NYC taxi records installed "
                    "with HoloViews (d = 3), standing in for the paper's Intel Lab data"),
    FigureSpec("nksd-fig1a", "Nyström KSD (Kalinke et al.)", "Fig. 1a: runtime per test vs "
               "n (d = 10)", _nksd_fig1a, x="n", y="runtime_s", series="test", xlabel="n",
               ylabel="seconds per test (median, range)", logx=True, logy=True,
               interval=("low", "high")),
    FigureSpec("nksd-fig1b", "Nyström KSD (Kalinke et al.)", "Fig. 1b: power, Laplace vs "
               "N(0, I_d)", _power("laplace", [1, 5], FIG1_DIMENSIONS, 300, 1000, 500),
               x="parameter", y="rate", series="test", interval=("ci_low", "ci_high"),
               xlabel="dimension d", ylabel="rejection rate (α = 0.05)",
               note=IMQ_NOTE),
    FigureSpec("nksd-fig1c", "Nyström KSD (Kalinke et al.)", "Fig. 1c: power, independent "
               "t₅ vs N(0, 5/3 I_d)", _power("student-t", [1, 5], FIG1_DIMENSIONS, 300, 2000,
                                               250),
               x="parameter", y="rate", series="test", interval=("ci_low", "ci_high"),
               xlabel="dimension d", ylabel="rejection rate (α = 0.05)", note=IMQ_NOTE),
    FigureSpec("nksd-fig1d", "Nyström KSD (Kalinke et al.)", "Fig. 1d: power, RBM vs its "
               "perturbation σ", _power("rbm", [0.0, 0.06], [0.0, 0.02, 0.04, 0.06], 200, 1000,
                                        100),
               x="parameter", y="rate", series="test", interval=("ci_low", "ci_high"),
               hline=0.05, xlabel="perturbation σ", ylabel="rejection rate (α = 0.05)",
               note="σ = 0 is the null: its rate is the type-I error (α = 0.05); IMQ "
                    "c = 1, β = -½ as the paper sets for the RBM"),
    FigureSpec("nksd-appD1", "Nyström KSD (Kalinke et al.)", "App. D.1: power against "
               "runtime, n = 500, 1000, 2000 (d = 15; RBM σ = 0.02)", _nksd_app_d1,
               x="runtime_s", y="rate", series="test", facet="problem", logx=True,
               xlabel="seconds per test (mean)", ylabel="rejection rate (α = 0.05)",
               note="each line joins a test's three sample sizes; " + IMQ_NOTE),
    FigureSpec("nksd-appD2", "Nyström KSD (Kalinke et al.)", "App. D.2: Nyström sample "
               "size m = c√n, c = 1, 4, 8", _nksd_app_d2, x="parameter", y="rate",
               series="test", facet="problem", interval=("ci_low", "ci_high"),
               xlabel="d (Laplace, Student-t) or σ (RBM)", shared_axes=False,
               ylabel="rejection rate (α = 0.05)", note=IMQ_NOTE),
    FigureSpec("mmdagg-power", "MMDAgg (Schrab et al.)", "Choosing the kernel: power vs ε "
               "on the blob grid", _mmdagg_power, x="epsilon", y="rate", series="test",
               interval=("ci_low", "ci_high"), xlabel="ε (eigenvalue ratio of Q's blobs)",
               ylabel="rejection rate (α = 0.05)",
               note="n = 500 per sample, B1 = B2 = 2000; the best single Gaussian σ of a "
                    "13-value grid is chosen in hindsight (per ε)"),
    FigureSpec("cme-fig1", "Conditional mean embeddings (Grünewälder et al.)", "Fig. 1: "
               "relative error vs % non-zero coefficients (pendulum)", _cme_fig1,
               x="nonzero_pct", y="value", series="method", facet="measure",
               interval=("low", "high"), xlabel="% non-zero coefficients",
               ylabel="relative to the dense CME",
               note="mean and range over the draws of training (200) and test (1000) data; "
                    "FISTA's γ from 10⁻¹ to 10⁻⁶, then γ = 0 (the dense solution, 100 %)"),
    FigureSpec("hsic-size", "kmeviz's tests: independence", "Size of the independence "
               "tests (independent uniforms)", hsic_size, x="n", y="rate", series="test",
               interval=("ci_low", "ci_high"), hline=0.05, xlabel="n",
               ylabel="rejection rate under H0 (α = 0.05)",
               note="500 draws; 99 % Clopper–Pearson intervals; B = 199 (HSICAgg: 1000)"),
    FigureSpec("hsic-sinusoid", "kmeviz's tests: independence", "Power of the independence "
               "tests on the sinusoid against ℓ", hsic_sinusoid, x="frequency", y="rate",
               series="test", interval=("ci_low", "ci_high"), xlabel="frequency ℓ",
               ylabel="rejection rate (α = 0.05)", note="n = 200, 100 draws"),
    FigureSpec("ci-size-power", "kmeviz's tests: conditional independence", "Size (sine "
               "chain) and power (sine collider) of the CI tests against n", ci_size_power,
               x="n", y="rate", series="test", facet="structure", hline=0.05,
               interval=("ci_low", "ci_high"), xlabel="n", logx=True,
               ylabel="rejection rate (α = 0.05)",
               note="200 draws; the chain's H0 is true (its rate is the size), the "
                    "collider's is false (its rate is the power)"),
    FigureSpec("agginc", "kmeviz's tests: aggregated", "Incomplete against complete "
               "aggregated tests: size and power",
               agginc_size_power, x="n", y="rate", series="curve", facet="problem",
               hline=0.05, interval=("ci_low", "ci_high"), xlabel="n",
               ylabel="rejection rate (α = 0.05)",
               note="size: 500 draws at n = 500; power: 100 draws at n = 500 and 1000 "
                    "(perturbed uniform, sinusoid ℓ = 4, RBM σ = 0.015); B1 = B2 = 500, "
                    "R = 200; 95 % Clopper–Pearson intervals"),
]}


def figure(name: str) -> FigureSpec:
    """The ``FigureSpec`` called ``name``; a ValueError lists the names otherwise."""
    if name not in FIGURES:
        raise ValueError(f"unknown figure {name!r}; the figures are: {', '.join(FIGURES)}")
    return FIGURES[name]
