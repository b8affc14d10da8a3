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
# # From conditional independence to causal graphs: the PC algorithm
#
# **What you will learn**
# - what conditional-independence (CI) tests can and cannot say about causes: chains
#   and forks look alike, a **collider** does not (d-separation, Markov equivalence);
# - the **PC algorithm** ([Spirtes, Glymour & Scheines
#   2000](https://mitpress.mit.edu/9780262194402/causation-prediction-and-search/)): the
#   skeleton by CI tests of growing conditioning sets, the separating sets, the
#   v-structures, then Meek's rules ([Meek 1995](https://arxiv.org/abs/1302.4972));
# - PC on data with KCI ([Zhang et al.
#   2011](https://arxiv.org/abs/1202.3775)), and why kmeviz's run shares its work: one
#   residual operator per conditioning set, whatever pair is tested given it;
# - what a wrong test does to the graph, the order-independent variants ([Colombo &
#   Maathuis 2014](https://jmlr.org/papers/v15/colombo14a.html)), and background
#   knowledge.
#
# **What you need**: notebook 11 (conditional independence, KCI). Runs in about half a
# minute on two cores.
#
# Terms are defined in the [glossary](../docs/glossary.md); the works cited are in the
# [bibliography](../docs/bibliography.md).

# %%
import holoviews as hv
import numpy as np
import pandas as pd

import kmeviz as K
from kmeviz import viz
from kmeviz.discovery import d_separated, dag_to_cpdag
from kmeviz.discovery.graph import structural_hamming_distance
from kmeviz.discovery.models import structural_sample

hv.extension("bokeh", logo=False, inline=True)  # BokehJS inline: works offline


def dag_of(edges, p):
    """The p × p adjacency of a DAG: dag[i, j] = 1 for i → j."""
    dag = np.zeros((p, p), dtype=int)
    for i, j in edges:
        dag[i, j] = 1
    return dag


# %% [markdown]
# ## 1. Three shapes, two answers
#
# On three variables a, b, c joined through b there are three shapes: the **chain**
# a → b → c, the **fork** a ← b → c and the **collider** a → b ← c. A DAG implies an
# independence X ⫫ Y | S exactly when S **d-separates** X and Y: every path between
# them is blocked, a chain or fork node by being in S, a collider by being outside S
# with none of its descendants in S.
#
# *Predict first:* in which shapes are a and c independent? Given b?

# %%
shapes = {"chain a → b → c": dag_of([(0, 1), (1, 2)], 3),
          "fork a ← b → c": dag_of([(1, 0), (1, 2)], 3),
          "collider a → b ← c": dag_of([(0, 1), (2, 1)], 3)}
table = pd.DataFrame({name: {"a ⫫ c": d_separated(dag, 0, 2),
                             "a ⫫ c | b": d_separated(dag, 0, 2, (1,))}
                      for name, dag in shapes.items()}).T
table

# %% tags=["check", "remove-cell"]
assert table["a ⫫ c | b"].tolist() == [True, True, False]
assert table["a ⫫ c"].tolist() == [False, False, True]

# %% [markdown]
# The chain and the fork imply the same independences (a ⫫ c | b only), the collider the
# opposite (a ⫫ c, but not given b: conditioning on a common effect makes its causes
# dependent). No CI test can tell a chain from a fork: they are **Markov equivalent**.
# What PC can return is the class, drawn as a **CPDAG**: an edge is directed when every
# DAG of the class orients it the same way, undirected otherwise.

# %%
cpdags = {name: dag_to_cpdag(dag) for name, dag in shapes.items()}
{name: ("directed: " + ", ".join(f"{'abc'[i]} → {'abc'[j]}" for i, j in zip(*np.nonzero(
    g * (1 - g.T)), strict=True))) if (g * (1 - g.T)).any() else "every edge undirected"
 for name, g in cpdags.items()}

# %% tags=["check", "remove-cell"]
assert np.array_equal(cpdags["chain a → b → c"], cpdags["fork a ← b → c"])
assert (cpdags["chain a → b → c"] == cpdags["chain a → b → c"].T).all()
assert cpdags["collider a → b ← c"].sum() == 2  # two directed edges

# %% [markdown]
# ## 2. PC, step by step, with an oracle
#
# PC never sees the DAG; it asks CI questions. Give it an **oracle** that answers by
# d-separation in a true DAG, and it must return that DAG's CPDAG. Take a diamond with a
# tail: a → b, a → c, b → d, c → d, d → e.
#
# 1. **Skeleton.** Start from the complete graph. At level ℓ = 0, 1, 2, … test each
#    adjacent pair (X, Y) given every set S of ℓ of X's other neighbours; remove the edge
#    at the first S that separates them and record S as their **separating set**.
# 2. **V-structures.** For each unshielded triple X — Z — Y (X, Y not adjacent), orient
#    X → Z ← Y when Z is *not* in their separating set (a chain or fork node would have
#    separated them).
# 3. **Meek's rules.** Orient what acyclicity and "no new v-structure" force: e.g. with
#    b → d — e and b, e not adjacent, d → e (R1).

# %%
diamond = dag_of([(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)], 5)
names = list("abcde")


def oracle(i, j, S):
    """The p-value of an ideal CI test: 1 when S d-separates i and j, else 0."""
    return float(d_separated(diamond, i, j, S))


found = K.pc(pd.DataFrame(np.zeros((10, 5)), columns=names), test=oracle, alpha=0.5,
             orientation="standard")
print({"".join(sorted(names[v] for v in pair)): [
    "{" + ", ".join(names[v] for v in sorted(S)) + "}" for S in sets]
    for pair, sets in found.sepsets.items()})
found.edges()

# %% tags=["check", "remove-cell"]
assert np.array_equal(found.graph, dag_to_cpdag(diamond))
assert found.sepsets[frozenset((1, 2))] == [{0}]

# %% [markdown]
# b and c are separated by {a} (their common cause), and d is not in it: b → d ← c.
# Then d — e becomes d → e (R1: b → d — e with b, e not adjacent; d ← e would make a new
# collider at d). a — b and a — c stay undirected: a → b or b → a, both DAGs fit.

# %% tags=["plot"]
viz.causal_graph_plot(found, truth=dag_to_cpdag(diamond),
                      title="PC with a d-separation oracle: the true CPDAG")

# %% [markdown]
# With an oracle PC is exact; kmeviz's test suite checks it on 50 random DAGs of 5–12
# nodes, and its benchmark (`python -m benchmarks.bench_pc`) finds causal-learn's PC
# with its own oracle returning the same 50 graphs.
#
# ## 3. PC on data, with KCI
#
# Now sample a non-linear model on the same DAG (each edge a sine, tanh, square or
# identity link, Gaussian noise) and let KCI answer the questions. kmeviz's default:
# KCI with its Gamma null, and KCI's own unconditional test given nothing (as the
# authors' code and causal-learn do).

# %%
data = pd.DataFrame(structural_sample(diamond, 500, rng=0), columns=names)
result = K.pc(data)
print(f"{len(result.tests)} tests; {result.counts['factorisations']} factorisations of "
      f"K̃_Z + εI for the {int((result.tests['level'] > 0).sum())} tests given some Z")
result.tests.head(8)

# %% tags=["plot"]
truth = dag_to_cpdag(diamond)
viz.causal_graph_plot(result, truth=truth, title=(
    f"PC with KCI, n = 500: SHD {structural_hamming_distance(result.graph, truth)}"))

# %% tags=["check", "remove-cell"]
assert structural_hamming_distance(result.graph, truth) == 0
assert result.counts["factorisations"] < (result.tests["level"] > 0).sum()

# %% [markdown]
# The **structural Hamming distance** (SHD) counts the pairs of nodes whose edge differs
# (missing, extra or oriented otherwise): 0 here.
#
# **Why it shares work.** KCI given Z tests X ⫫ Y | Z through the residual Grams
# K̃_{Ẍ|Z} = R_Z K̃_Ẍ R_Z with R_Z = ε(K̃_Z + εI)⁻¹ (Zhang et al. 2011, Eq. 11). R_Z
# depends on Z alone, so kmeviz factorises K̃_Z + εI once per conditioning set and reuses
# it for every pair tested given that Z; each variable's residual Gram is computed once
# per Z as well. Each p-value is still exactly `ci_test`'s:

# %%
row = result.tests[result.tests["level"] > 0].iloc[0]
alone = K.ci_test(data[[row.x]], data[[row.y]], data[list(row.given)], estimator="kci",
                  null="gamma", rows="iid")
print(f"{row.x} ⫫ {row.y} | {', '.join(row.given)}: in PC p = {row.p_value:.6g}, "
      f"alone p = {alone.p_value:.6g}")

# %% tags=["check", "remove-cell"]
assert abs(row.p_value - alone.p_value) <= 1e-8 * max(alone.p_value, 1e-12)

# %% [markdown]
# ## 4. When a test is wrong
#
# Draw the same model with another seed. The skeleton is right, but the collider at d is
# lost: to decide it, kmeviz's default (`orientation="majority"`, Colombo & Maathuis
# 2014) looks at *every* set of neighbours that separates b and c, and d is a collider
# only when it is in fewer than half of them.

# %%
other = pd.DataFrame(structural_sample(diamond, 500, rng=2), columns=names)
majority = K.pc(other)
standard = K.pc(other, orientation="standard")
tests = majority.tests
print(tests[(tests.x == "b") & (tests.y == "c")][["given", "p_value", "independent"]])
print("majority:", structural_hamming_distance(majority.graph, truth),
      "— standard:", structural_hamming_distance(standard.graph, truth))

# %% tags=["check", "remove-cell"]
bc = tests[(tests.x == "b") & (tests.y == "c")].set_index("given")["independent"]
assert bc[("a",)] and bc[("d",)] and not bc[("a", "d")]
assert structural_hamming_distance(majority.graph, truth) == 3
assert structural_hamming_distance(standard.graph, truth) == 0

# %% [markdown]
# KCI called b ⫫ c | d "independent" (p ≈ 0.37): a miss, since given the collider d
# the two are dependent. So {a} and {d} both separate, d is in half of them, and the
# majority rule leaves b — d — c unoriented. The standard rule read only the first
# separating set, {a}, and was right here by luck: with the tests in another order (the
# columns renamed) it could have read {d}. The majority rule's answer does not depend on
# the order; the price is that it needs the tests to agree. Over many models the two
# rules trade errors (`python -m benchmarks.bench_pc_accuracy` measures SHD against n).
#
# ## 5. What you know before the tests
#
# Time order is often known: a variable measured later cannot cause one measured
# earlier. Tiers forbid those edges and orient what they decide.

# %%
tiers = K.Knowledge(tiers=(["a"], ["b", "c"], ["d", "e"]))
with_tiers = K.pc(other, knowledge=tiers)
with_tiers.edges()

# %% tags=["check", "remove-cell"]
assert set(map(tuple, with_tiers.edges().values.tolist())) >= {
    ("a", "b", "-->"), ("a", "c", "-->"), ("b", "d", "-->"), ("c", "d", "-->")}

# %% [markdown]
# ## Play with it
# The **Conditional-independence explorer** (also served by `kmeviz serve`) has a
# *Causal graph (PC)* tab: a random non-linear model with k variables, its edge density,
# noise and n as sliders, PC's graph drawn against the truth with each edge coloured
# correct, missing, extra or wrongly oriented. (Live in JupyterLab.)

# %% tags=["plot"]
import panel as pn

from kmeviz.apps import ConditionalExplorer

pn.extension(inline=True)
explorer = ConditionalExplorer(n=300, graph_nodes=5)
explorer

# %% tags=["check", "remove-cell"]
assert explorer.failures() == {}

# %% [markdown]
# ## Exercises
# Each `check_…` says whether your answer is right and, if not, gives a hint; it never
# shows the answer. When you are right it also says why.
# Worked answers, with the reasoning, are on the course's
# [Solutions page](../docs/course/solutions.md).
#
# **1. Implement.** Step 2 of PC: given the skeleton (a symmetric 0/1 array) and the
# separating sets (`{(i, j): set}` for each non-adjacent pair i < j), return the p × p
# 0/1 array `arrow` with `arrow[i, k] = 1` when a v-structure i → k ← j puts an
# arrowhead at k.

# %% tags=["exercise"]
from kmeviz.exercises import check_colliders


def answer(skeleton, separating):
    """arrow[i, k] = 1 for each edge i — k oriented into k by a v-structure."""
    return None  # your code


check_colliders(answer)

# %% [markdown]
# **2. Count.** How many DAGs on a, b, c imply exactly the independences of the chain
# a → b → c?

# %% tags=["exercise"]
from kmeviz.exercises import check_chain_class_size

answer = None  # a number
check_chain_class_size(answer)

# %% [markdown]
# ## Problems
# Derivations to do on paper, one step at a time; the instructor edition of the course has the
# worked solutions.
#
# **P1. Chain, fork and collider in closed form.** In linear-Gaussian models with unit noise, $X
# \to Z \to Y$ ($Z = aX + \varepsilon_Z$, $Y = bZ + \varepsilon_Y$), $X \leftarrow Z \to Y$ and
# $X \to Z \leftarrow Y$ ($Z = aX + bY + \varepsilon_Z$), compute $\mathrm{Cov}(X, Y)$ and the
# partial covariance $\mathrm{Cov}(X, Y) - \mathrm{Cov}(X, Z)\mathrm{Cov}(Y, Z)/\mathrm{Var}\,Z$,
# and check §1's pattern of marginal and conditional verdicts.
#
# **P2. The collider rule is sound.** PC found $X$ and $Y$ non-adjacent, separated by a set $S$,
# and both adjacent to $Z \notin S$. Assuming faithfulness and correct tests, show that $Z$ is a
# collider ($X \to Z \leftarrow Y$) in every DAG of the Markov equivalence class.
#
# **P3. Capstone project.** Take a real table of at least 5 columns and 300 rows that the course
# did not use (a public data set, or your own). Report: the checks of §§ 08 and 13 (row order,
# ties, categories, missing values) and what they changed; a dependence map with multiple-testing
# control; two CI tests and two levels $\alpha$ inside PC, the graphs and their SHD to each
# other; the stability of each edge over 20 subsamples of half the rows; and at most five claims,
# each backed by a number in your notebook. The rubric, out of 20: data checks 4, choice of tests
# and settings justified 4, graphs and stability 4, claims backed by numbers 4, honesty about
# what the data cannot say (untested assumptions, Markov equivalence) 4.

# %% [markdown] tags=["solution"]
# ### Solutions (instructor edition)
# **P1.** Chain: $\mathrm{Cov}(X, Y) = ab\,\mathrm{Var}\,X \ne 0$, and $Y - bZ = \varepsilon_Y$
# is independent of $(X, Z)$, so the partial covariance is 0. Fork ($Z$ the source, $X = aZ +
# \varepsilon_X$, $Y = bZ + \varepsilon_Y$): $\mathrm{Cov}(X, Y) = ab\,\mathrm{Var}\,Z \ne 0$ and
# the residuals given $Z$ are $\varepsilon_X, \varepsilon_Y$, independent. Collider:
# $\mathrm{Cov}(X, Y) = 0$ and the partial covariance is $0 -
# (a\,\mathrm{Var}\,X)(b\,\mathrm{Var}\,Y)/\mathrm{Var}\,Z \ne 0$: dependent given $Z$, as the
# sine collider of notebook 11.
#
# **P2.** Suppose some DAG of the class has $Z$ as a non-collider on $X - Z - Y$ (a chain or a
# fork). That path is then open given any set not containing $Z$, so every set that d-separates
# $X$ and $Y$ contains $Z$. By faithfulness and correct tests, $S$ d-separates them, and $Z
# \notin S$: a contradiction. Hence $Z$ is a collider in every DAG of the class (Spirtes, Glymour
# & Scheines; Meek 1995).
#
# **P3.** Grade with the rubric; the common losses are claims without a number, an edge direction
# read from a single test, and a dependence map without correction. A good project reports the
# edges that are stable over subsamples and the ones that are not, and says which directions the
# data cannot decide (undirected edges of the CPDAG).
