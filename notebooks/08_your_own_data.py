# ---
# jupyter:
#   jupytext:
#     notebook_metadata_filter: kernelspec,jupytext,-jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Your own data: every test in one call
#
# **What you will learn**
# - how to read two samples from a file of your own (`kmeviz.load_samples`) and what the
#   loader does with text columns and missing values;
# - how to run every two-sample test kmeviz has on them in one call
#   (`kmeviz.compare_tests`), and how to read the table: why the tests agree or not, and
#   what "not run" means;
# - what the **witness function** shows: *where* the two samples differ;
# - the same from the command line (`kmeviz compare`) and in the "Your data" dashboard.
#
# **What you need**: notebooks 01 and 02 (the MMD, its estimators and their nulls). Runs
# in about ten seconds on two cores.
#
# Terms are defined in the [glossary](../docs/glossary.md); the works cited are in the
# [bibliography](../docs/bibliography.md).

# %%
import subprocess
import sys
import tempfile
from pathlib import Path

import holoviews as hv
import numpy as np
from scipy import stats

import kmeviz as K
from kmeviz import viz
from kmeviz.exercises import penguin_table

hv.extension("bokeh", logo=False, inline=True)  # BokehJS inline: works offline

# %% [markdown]
# ## 1. A file of your own
#
# Our "researcher" measured penguins on the Palmer archipelago (the Palmer penguins data,
# Gorman, Williams & Fraser 2014, which installs with kmeviz) and saved a table: one row
# per bird, its species and island as text, three body measurements, and its sex. The
# bill length, the measurement that tells Adélie from Chinstrap penguins at a glance, was
# not recorded. Are Adélie and Chinstrap penguins *distributed* differently on the other
# three measurements? That is a two-sample question: X is the Adélie rows, Y the
# Chinstrap rows, and H0 says both are draws from one law P = Q.
#
# We write the table to a CSV file, as it would arrive, and read it back.

# %%
folder = Path(tempfile.mkdtemp())
path = folder / "penguins.csv"
penguin_table().to_csv(path, index=False)
print(path.read_text().splitlines()[:3])

# %%
X, Y, report = K.load_samples(path, group="species", groups=("Adelie", "Chinstrap"),
                              standardize=True)
print(report)

# %% [markdown]
# The report says what the loader did, so nothing happens silently:
#
# - *text columns* (`island`, `sex`) are dropped and listed; the group column is used
#   to split the rows and is not a measurement;
# - *rows with a missing value* in a column that is used are dropped and counted (one
#   Adélie penguin has no measurements at all); a missing `sex` does not drop a row,
#   since `sex` is not used;
# - *standardize* centres and scales each column by the *pooled* mean and standard
#   deviation. Body mass is in grams and flipper length in millimetres: without it, the
#   Gaussian kernel's one bandwidth would see almost nothing but the body mass.
#
# A file the loader cannot use (no numeric column, a group with one row, three groups
# and no choice, two files with different columns, a binary file) gets one message that
# names the problem.

# %% tags=["check", "remove-cell"]
# Checks run by the test suite: the quoted facts of the report.
assert report.dropped_columns == ("island", "sex") and report.columns == (
    "bill_depth_mm", "flipper_length_mm", "body_mass_g")
assert report.dropped_rows == (1, 0) and report.sizes == (151, 68)
assert np.allclose(np.vstack([X, Y]).mean(axis=0), 0.0)

# %% [markdown]
# ## 2. Every test in one call
#
# `compare_tests(X, Y)` runs each test of kmeviz's registry (`kmeviz.MMD_TESTS`: every
# estimator with every null that is valid for it) with the same kernel, the Gaussian
# kernel at the **median heuristic** (its bandwidth is the median distance between the
# pooled points; the table's `attrs` keep it). It runs the cheapest tests first and
# stops within a time budget (10 s by default): a test estimated to take longer than
# what is left is not run, and its row says how to run it alone.
#
# Before its i.i.d. tests, kmeviz checks the order of the rows for serial dependence
# (notebook 13). The penguins file is sorted by species, island and year, and the check
# sees that order in the Adélie rows; the rows are distinct animals, and the exact tests'
# statistics do not depend on the order within a sample, so we say the rows are
# exchangeable with `rows="iid"` (the check stays quiet on the same rows shuffled).
#
# *Predict first:* with 151 and 68 penguins and a difference the bill length would have
# made obvious, will every test reject at α = 0.05?

# %%
table = K.compare_tests(X, Y, rng=0, rows="iid")
print(f"kernel: {table.attrs['kernel']}")
table[["test", "statistic", "p_value", "reject", "runtime_s", "note"]]

# %% tags=["check", "remove-cell"]
in_file_order = K.serial_dependence({"X": X, "Y": Y}, family="two-sample")
shuffled = np.random.default_rng(0).permutation(len(X))
assert in_file_order.fired and not in_file_order.samples["Y"]["dependent"]
assert not K.serial_dependence({"X": X[shuffled], "Y": Y}, family="two-sample").fired
by_test = table.set_index("test")
iid_tests = K.compare.selected_tests(K.MMD_TESTS, "all")  # the table's: i.i.d. nulls
quadratic = [s.name for s in iid_tests if s.cost != "linear"
             and K.Needs.EQUAL_SIZES not in s.needs]
assert by_test.loc[quadratic, "reject"].all()
assert by_test.loc["linear/normal", "p_value"] > 0.5  # the linear test does not see it
assert 0.01 < by_test.loc["block/normal", "p_value"] < 0.05
floor = 1 / 1001  # B = 1000: the smallest p-value of a permutation or simulated null
assert np.allclose(by_test.loc[["biased/permutation", "unbiased/permutation",
                                "biased/spectral", "unbiased/spectral"], "p_value"], floor)
assert by_test.loc["biased/gamma", "p_value"] < 1e-5
paired = [s.name for s in iid_tests if K.Needs.EQUAL_SIZES in s.needs]
assert paired == ["biased/wild-bootstrap", "unbiased/pearson", "mmdagg/wild-bootstrap"]
assert all(by_test.loc[paired, "note"].str.startswith("not run: needs samples of equal size"))
assert by_test.drop(index=paired).p_value.notna().all()
assert by_test.loc["mmdagg/permutation", "reject"]

# %% [markdown]
# **Reading the table.**
#
# - The **exact tests** (biased and unbiased MMD², with the permutation, Gamma and
#   spectral nulls) all reject. The permutation p-values are 0.001: with B = 1000
#   permutations, 1/1001 is the smallest p-value a permutation test can give. The spectral
#   null, simulated with as many draws, has the same floor; the Gamma null is a formula
#   and goes below it (10⁻⁶). The **FastMMD** and **Nyström** tests,
#   which approximate the same MMD in linear time, agree.
# - The **linear-time test** disagrees: p ≈ 0.86. It is not wrong: it is weak. It pairs
#   the points once, (x₁, y₁), (x₂, y₂), …, and averages n/2 independent terms of four
#   kernel values each,
#
#   $$\widehat{\mathrm{MMD}}^2_{\ell} = \frac2n \sum_{i=1}^{n/2} \Big[k(x_{2i-1}, x_{2i}) +
#   k(y_{2i-1}, y_{2i}) - k(x_{2i-1}, y_{2i}) - k(x_{2i}, y_{2i-1})\Big],$$
#
#   so its standard error shrinks like 1/√n; the quadratic estimators use all n² pairs
#   and their null shrinks like 1/n. At n = 68 the difference in the
#   penguins' shapes is below what n/2 = 34 terms can resolve.
# - The **B-test** sits between the two (p ≈ 0.03). It cuts the pairs into blocks of about
#   √n and averages the unbiased MMD² of each block,
#
#   $$\widehat{\mathrm{MMD}}^2_{B} = \frac1{n_B}\sum_{b=1}^{n_B}
#   \widehat{\mathrm{MMD}}^2_u(\text{block } b),$$
#
#   so it uses more pairs than the linear test and far fewer than the quadratic ones.
# - **MMDAgg** (`mmdagg/permutation`) does not use the median-heuristic kernel: it tests
#   with a whole collection of 20 Laplace and Gaussian bandwidths at once, and corrects
#   its level for having looked 20 times (notebook 09). It rejects too.
# - Three tests are *not run*: the wild bootstrap, the Pearson curve and MMDAgg's wild
#   bootstrap need paired samples of equal size (n_X = n_Y), and these are 151 against 68.
#   Their rows say so instead of failing.
#
# So, when the sample fits in memory, the quadratic tests are the ones to trust; the
# linear ones are for data too large for them (notebook 07).

# %% [markdown]
# ## 3. Where do the samples differ? The witness function
#
# A test says *whether*; the **witness function** says *where*. It is the difference of
# the two kernel mean embeddings, evaluated at a point t:
#
# $$f(t) = \hat\mu_X(t) - \hat\mu_Y(t) = \frac1{n_X} \sum_{i=1}^{n_X} k(x_i, t)
# - \frac1{n_Y} \sum_{j=1}^{n_Y} k(y_j, t).$$
#
# It is positive where X has more mass than Y (as the kernel sees it), negative where Y
# has more, and its RKHS norm is the biased MMD (Gretton et al. 2012,
# [Sec. 2.3](https://jmlr.org/papers/v13/gretton12a.html)): the MMD is large exactly when the
# witness has large bumps. We evaluate it on the plane of the first two principal components of the
# pooled sample, through the pooled mean.

# %%
kernel = table.attrs["kernel"]
pooled = np.vstack([X, Y])
mean = pooled.mean(axis=0)
U = np.linalg.svd(pooled - mean, full_matrices=False)[2][:2].T  # (3, 2) directions
P, Q = (X - mean) @ U, (Y - mean) @ U
xs = np.linspace(-3.5, 3.5, 60)
ys = np.linspace(-3, 3, 60)
grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
witness = K.mmd_witness(X, Y, kernel, mean + grid @ U.T).reshape(60, 60)

# %% tags=["plot"]
viz.witness_map(xs, ys, witness, P, Q, ("PC 1", "PC 2"))

# %% tags=["check", "remove-cell"]
# The witness equals its definition evaluated directly, and its gap over the two samples
# is the biased MMD² (the identity of Sec. 2.3).
points = mean + grid[:50] @ U.T
direct = kernel(points, X).mean(axis=1) - kernel(points, Y).mean(axis=1)
assert np.allclose(witness.reshape(-1)[:50], direct, rtol=1e-12, atol=1e-15)
gap = K.mmd_witness(X, Y, kernel, X).mean() - K.mmd_witness(X, Y, kernel, Y).mean()
assert np.isclose(gap, by_test.loc["biased/permutation", "statistic"], rtol=1e-10)

# %% [markdown]
# Red marks where Adélie penguins (circles) are denser, blue where Chinstraps (triangles)
# are. The bumps sit where one species' cloud reaches beyond the other's.
#
# Would a test of means have done as well? Here, yes: Chinstraps have longer flippers on
# average, and Welch's t-test on flipper length alone, or Hotelling's T² on all three
# measurements, rejects just as clearly (below). Bill depth and body mass, on their own,
# show no difference in mean at all. The kernel test's advantage is not that it beats a
# test of means where the means differ; it is that it needs no choice of what to
# compare, and still rejects when the difference is in a spread or a shape that leaves
# the means equal (notebook 02's variance-ratio and eigenvalue-ratio grids).

# %%
welch = {name: stats.ttest_ind(X[:, j], Y[:, j], equal_var=False).pvalue
         for j, name in enumerate(report.columns)}
n_x, n_y, d = len(X), len(Y), X.shape[1]
gap_of_means = X.mean(axis=0) - Y.mean(axis=0)
pooled_cov = ((n_x - 1) * np.cov(X, rowvar=False) + (n_y - 1) * np.cov(Y, rowvar=False)) / (
    n_x + n_y - 2)
t2 = n_x * n_y / (n_x + n_y) * gap_of_means @ np.linalg.solve(pooled_cov, gap_of_means)
hotelling = stats.f.sf((n_x + n_y - d - 1) / (d * (n_x + n_y - 2)) * t2, d, n_x + n_y - d - 1)
print("Welch's t p-values:", {k: f"{v:.2g}" for k, v in welch.items()})
print(f"Hotelling's T² p-value: {hotelling:.2g}")

# %% tags=["check", "remove-cell"]
# The numbers of the text: flipper length's means differ (p ≈ 6e-8), Hotelling's T² on all
# three rejects (p ≈ 7e-9), the other two means do not differ (p > 0.5).
assert np.isclose(welch["flipper_length_mm"], 6.05e-8, rtol=0.01)
assert np.isclose(hotelling, 7.37e-9, rtol=0.01)
assert welch["bill_depth_mm"] > 0.5 and welch["body_mass_g"] > 0.5

# %% [markdown]
# ## 4. The same from the command line
#
# `kmeviz compare FILE --group COLUMN --groups A B` reads the file with the same loader,
# runs `compare_tests` with a progress bar on stderr, and prints the table; `--out
# table.csv` saves it and `--gof normal` tests one sample against a normal law; `--iid`
# says the rows are exchangeable (`--time-series` runs the time-series tests). A bad
# file exits with status 2 and one line saying what is wrong.

# %%
done = subprocess.run([sys.executable, "-m", "kmeviz_apps", "compare", str(path),
                       "--group", "species", "--groups", "Adelie", "Chinstrap",
                       "--standardize", "--tests", "biased", "linear", "--iid"],
                      capture_output=True, text=True)
print(f"$ kmeviz compare penguins.csv --group species --groups Adelie Chinstrap "
      f"--standardize --tests biased linear --iid   (exit {done.returncode})\n"
      f"{done.stdout}")

# %% tags=["check", "remove-cell"]
assert done.returncode == 0 and "biased/permutation" in done.stdout
assert "linear/normal" in done.stdout and "unbiased/permutation" not in done.stdout

# %% [markdown]
# ## 5. The dashboard
#
# The **Your data** explorer (`kmeviz serve`, then *Your data*) does all of this with
# widgets: drop a CSV on it (it stays in your session; nothing is stored on the server),
# or pick the penguins, the NYC taxi records (weekdays against weekends) or the blob grid
# of FastMMD; choose the columns and the groups, move the bandwidth on a log scale around
# the median heuristic, and watch the table fill in as each test finishes. Click a row to
# see that test's null distribution. (Live in JupyterLab; a rendered page shows a still
# picture.)

# %% tags=["plot"]
import panel as pn

from kmeviz.apps import DataExplorer

pn.extension("tabulator", "filedropper", inline=True)
explorer = DataExplorer()
explorer

# %% tags=["check", "remove-cell"]
assert explorer.failures() == {} and explorer.group == "species"

# %% [markdown]
# ## Exercises
# Each `check_…` says whether your answer is right and, if not, gives a hint; it never
# shows the answer.
# Worked answers, with the reasoning, are on the course's
# [Solutions page](../docs/course/solutions.md).
#
# **1.** How many rows of X and Y together did `load_samples` drop for missing values?
# The file has 11 rows with some missing value: why is the answer not 11?

# %% tags=["exercise"]
from kmeviz.exercises import (
    check_dropped_rows,
    check_narrow_kernel_decision,
    check_small_sample_tests,
)

answer = None  # a number
check_dropped_rows(answer)

# %% [markdown]
# **2.** *Predict, then check.* Make the kernel ten times narrower than the median
# heuristic: `K.GaussianKernel(0.1 * K.median_heuristic(X, Y))`. Does the biased
# permutation test (`n_resamples=999, rng=0`) still `"reject"`, or `"keep"` H0? Write
# your prediction first, then run it. (What does the Gram matrix look like when σ is far
# below the distances between points?)

# %% tags=["exercise"]
answer = None  # "reject" or "keep"
check_narrow_kernel_decision(answer)

# %% [markdown]
# **3.** *Predict, then check.* Keep only the first 30 penguins of each species
# (`X[:30], Y[:30]`). Which of `"biased/permutation"` and `"linear/normal"` still rejects
# at α = 0.05: one of them, `"both"` or `"neither"`? (Use `compare_tests(..., tests=[...],
# rng=0)`.)

# %% tags=["exercise"]
answer = None  # "biased/permutation", "linear/normal", "both" or "neither"
check_small_sample_tests(answer)


# %% [markdown]
# **4. Implement.** Write the witness f̂(t) = μ̂_X(t) − μ̂_Y(t) at the rows of T
# (section 3's formula), given a kmeviz kernel (`kernel(A, B)` is the Gram matrix).

# %% tags=["exercise"]
from kmeviz.exercises import check_witness_function


def answer(X, Y, kernel, T):
    """The witness at each row of T."""
    return None  # your code


check_witness_function(answer)

# %% [markdown]
# ## Problems
# Derivations to do on paper, one step at a time; the instructor edition of the course has the
# worked solutions.
#
# **P1. The witness.** Show that $\mathrm{MMD}(P, Q) = \sup_{\|f\| \le 1}(\mathbb{E}_P f -
# \mathbb{E}_Q f)$, that the supremum is reached at $f^* = (\mu_P - \mu_Q)/\|\mu_P - \mu_Q\|$,
# and that $f^*(t) \propto \mu_P(t) - \mu_Q(t)$: the witness of §4 is the function that tells the
# two samples apart best.
#
# **P2. Many tests in one table.** The table of §2 runs several tests on the same data. Show that
# rejecting when any of $K$ p-values is below $\alpha/K$ keeps the probability of any false
# rejection below $\alpha$ (whatever their dependence), and that Holm's step-down rule (reject
# the $j$-th smallest while $p_{(j)} \le \alpha/(K - j + 1)$) does too.

# %% [markdown] tags=["solution"]
# ### Solutions (instructor edition)
# **P1.** $\mathbb{E}_P f - \mathbb{E}_Q f = \langle f, \mu_P - \mu_Q\rangle \le \|f\|\,\|\mu_P -
# \mu_Q\|$ by Cauchy–Schwarz, with equality at $f^*$. At a point, $f^*(t) = \langle f^*, k(t,
# \cdot)\rangle = (\mu_P(t) - \mu_Q(t))/\mathrm{MMD}$. With the empirical embeddings this is
# $\hat\mu_X(t) - \hat\mu_Y(t)$ up to a positive factor: positive where $X$ has more mass.
#
# **P2.** Union bound: $\Pr(\bigcup_k\{p_k \le \alpha/K\}) \le \sum_k \Pr(p_k \le \alpha/K) \le K
# \cdot \alpha/K = \alpha$, summing over the true nulls only (at most $K$). For Holm, let $K_0$
# be the number of true nulls and $p_{\min}$ the smallest of their p-values. At the first
# rejection of a true null, at step $j$, at least $K_0 - 1$ true nulls are still unrejected
# besides it, so $K - j + 1 \ge K_0$ and $p_{\min} \le \alpha/K_0$; by the union bound over the
# $K_0$ true nulls that has probability at most $\alpha$.
