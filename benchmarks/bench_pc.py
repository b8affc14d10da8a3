"""The PC algorithm with KCI against causal-learn's ``pc(data, alpha, indep_test="kci")``
(issue 58): the same tests, p-values and graph, and the time of the whole run, measured
in one run. causal-learn runs in a separate environment (kmeviz never needs it):
``/tmp/peers/bin/pip install causal-learn``, then ``KMEVIZ_PEER_PYTHON=/tmp/peers/bin/python
python -m benchmarks.bench_pc [--quick]``. Both use the authors' widths, ε = 10⁻³ and the
eigenvalue cut 10⁻⁵, the stable skeleton and causal-learn's collider rule."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import kmeviz as K
from kmeviz.discovery import d_separated, dag_to_cpdag, random_dag
from kmeviz.discovery.graph import structural_hamming_distance
from kmeviz.discovery.models import structural_sample

from ._util import print_table

PEER_SCRIPT = """
import json, sys, time
import numpy as np
from causallearn.search.ConstraintBased.PC import pc
data = np.load(sys.argv[1])
t0 = time.perf_counter()
cg = pc(data, 0.05, indep_test="kci", stable=True, uc_rule=0, show_progress=False)
seconds = time.perf_counter() - t0
G = cg.G.graph
p = G.shape[0]
M = [[int(G[i, j] == -1 and G[j, i] in (1, -1)) for j in range(p)] for i in range(p)]
print(json.dumps({"seconds": seconds, "graph": M,
                  "pvalues": {k: float(v) for k, v in cg.test.pvalue_cache.items()
                              if ";" in k}}))
"""


#: causal-learn's pc with its d-separation oracle on each DAG of a JSON list (point 1)
ORACLE_SCRIPT = """
import json, sys
import networkx as nx
import numpy as np
from causallearn.search.ConstraintBased.PC import pc
graphs = []
for dag in json.load(open(sys.argv[1])):
    dag = np.array(dag)
    p = dag.shape[0]
    true_dag = nx.DiGraph()
    true_dag.add_nodes_from(range(p))
    true_dag.add_edges_from(zip(*np.nonzero(dag)))
    cg = pc(np.zeros((10, p)), 0.5, indep_test="d_separation", true_dag=true_dag,
            stable=True, uc_rule=0, show_progress=False)
    G = cg.G.graph
    graphs.append([[int(G[i, j] == -1 and G[j, i] in (1, -1)) for j in range(p)]
                   for i in range(p)])
print(json.dumps(graphs))
"""


def peer(data, script: str = PEER_SCRIPT):
    """The peer script's JSON answer on ``data`` (an array, or a JSON-ready list), None
    without a peer environment, {"error": ...} when it failed."""
    python = os.environ.get("KMEVIZ_PEER_PYTHON")
    if not python:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        if isinstance(data, np.ndarray):
            path = str(Path(tmp) / "data.npy")
            np.save(path, data)
        else:
            path = str(Path(tmp) / "data.json")
            Path(path).write_text(json.dumps(data))
        done = subprocess.run([python, "-c", script, path], capture_output=True,
                              text=True, timeout=7200)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def peer_key(row, names) -> str:
    """causal-learn's cache key of a test: 'x;y|s1.s2' on sorted column indices."""
    x, y = sorted((names.index(row.x), names.index(row.y)))
    given = ".".join(str(names.index(g)) for g in sorted(row.given, key=names.index))
    return f"{x};{y}|{given}" if given else f"{x};{y}"


def shape(edges, p: int) -> np.ndarray:
    dag = np.zeros((p, p), dtype=int)
    for a, b in edges:
        dag[a, b] = 1
    return dag


#: Named shapes of 5-7 nodes (point 2): the DAG of each
SHAPES = {
    "chain of 5": shape([(0, 1), (1, 2), (2, 3), (3, 4)], 5),
    "fork of 5": shape([(0, 1), (0, 2), (0, 3), (0, 4)], 5),
    "collider of 5": shape([(0, 4), (1, 4), (2, 4), (3, 4)], 5),
    "diamond and a tail": shape([(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)], 5),
    "two colliders and a chain": shape([(0, 2), (1, 2), (2, 3), (3, 4), (5, 4), (4, 6)],
                                       7),
}


def one_model(n: int, seed: int, p: int = 8, dag: np.ndarray | None = None) -> list:
    rng = np.random.default_rng(seed)
    dag = random_dag(p, 0.3, rng) if dag is None else dag
    data = structural_sample(dag, n, rng=rng)
    t0 = time.perf_counter()
    ours = K.pc(data, eigen_threshold=1e-5, orientation="causal-learn")
    seconds = time.perf_counter() - t0
    t0 = time.perf_counter()  # kmeviz's own default: no eigenvalue cut (no eigh per Gram)
    plain = K.pc(data, orientation="causal-learn")
    plain_seconds = time.perf_counter() - t0
    names = list(ours.names)
    row = [n, seed, int(dag.sum()), f"{seconds:.2f}", f"{plain_seconds:.2f}",
           ours.counts["tests"],
           ours.counts["factorisations"],
           structural_hamming_distance(ours.graph, dag_to_cpdag(dag))]
    theirs = peer(data)
    if theirs is None or "error" in theirs:
        return row + ["-", "-", "-", "-", "-", "set KMEVIZ_PEER_PYTHON" if theirs is None
                      else theirs["error"]]
    common = [(r.p_value, theirs["pvalues"][peer_key(r, names)])
              for r in ours.tests.itertuples() if peer_key(r, names) in theirs["pvalues"]]
    gap = max(abs(a - b) for a, b in common)
    graph = np.array(theirs["graph"])
    same = np.array_equal(ours.graph, graph)
    plain_same = np.array_equal(plain.graph, graph)
    return row + [f"{theirs['seconds']:.2f}", f"{theirs['seconds'] / seconds:.1f}×",
                  f"{theirs['seconds'] / plain_seconds:.1f}×"
                  + ("" if plain_same else " (other graph)"),
                  f"{len(common)}/{len(ours.tests)}", f"{gap:.1e}",
                  "same" if same else "differs"]


def oracle_agreement(count: int = 50) -> list:
    """kmeviz's pc and causal-learn's, each with its own d-separation oracle, on
    ``count`` random DAGs of 5-12 nodes: [DAGs, kmeviz = truth, causal-learn = truth,
    kmeviz = causal-learn]."""
    rng = np.random.default_rng(2026)
    dags = [random_dag(int(rng.integers(5, 13)), float(rng.uniform(0.15, 0.45)), rng)
            for _ in range(count)]
    ours = [K.pc(np.zeros((10, len(dag))), alpha=0.5, orientation="causal-learn",
                 test=lambda i, j, S, dag=dag: float(d_separated(dag, i, j, S))).graph
            for dag in dags]
    truth = [dag_to_cpdag(dag) for dag in dags]
    theirs = peer([dag.tolist() for dag in dags], ORACLE_SCRIPT)
    if theirs is None or "error" in theirs:
        return [count, sum(map(np.array_equal, ours, truth)), "-", "-"]
    theirs = [np.array(g) for g in theirs]
    return [count, sum(map(np.array_equal, ours, truth)),
            sum(map(np.array_equal, theirs, truth)), sum(map(np.array_equal, ours, theirs))]


HEADER = ["n", "seed", "edges", "kmeviz s (cut 1e-5)", "kmeviz s (default)", "tests",
          "factorisations", "SHD to truth", "causal-learn s", "speed-up (cut)",
          "speed-up (default)", "tests in common", "max |Δp|", "graph"]


def run(quick: bool = False) -> None:
    K.pc(np.random.default_rng(0).normal(size=(100, 3)))  # imports, first calls
    print_table("PC with a d-separation oracle on random DAGs of 5-12 nodes: kmeviz's and "
                "causal-learn's graphs against the true CPDAG",
                ["DAGs", "kmeviz = true CPDAG", "causal-learn = true CPDAG",
                 "kmeviz = causal-learn"], [oracle_agreement(10 if quick else 50)])
    shapes = []
    for name, dag in list(SHAPES.items())[: 1 if quick else None]:
        for n in (300,) if quick else (500, 1000):
            shapes.append([name, *one_model(n, 7, dag=dag)])
            print(" | ".join(map(str, shapes[-1])), flush=True)
    print_table("PC with KCI on named shapes: kmeviz.pc against causal-learn's "
                "pc(indep_test='kci'), same settings", ["model", *HEADER], shapes)
    cases = [(300, 1)] if quick else [(1000, 1), (1000, 2), (2000, 1)]
    rows = []
    for n, seed in cases:  # each row as it comes (causal-learn takes minutes at n = 2000)
        rows.append(one_model(n, seed))
        print(" | ".join(map(str, rows[-1])), flush=True)
    print_table("PC with KCI (Gamma null) on a random non-linear model of 8 variables: "
                "kmeviz.pc against causal-learn's pc(indep_test='kci'), same settings",
                HEADER, rows)


if __name__ == "__main__":
    run(quick="--quick" in sys.argv)
