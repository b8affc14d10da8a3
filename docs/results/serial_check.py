"""Writes docs/results/serial_check.txt: the false-alarm rate of kmeviz's check of serial
dependence on i.i.d. data sets (simulated, and the bundled real tables with their rows
shuffled) and its detection rate on AR(1) series (issue 55, point 5).

    python docs/results/serial_check.py
"""

from pathlib import Path

import numpy as np
from scipy import signal

import kmeviz as K
from kmeviz.experiments import binomial_interval


def ar1(n, phi, rng, d=1):
    e = rng.normal(size=(n + 200, d))
    return signal.lfilter([1.0], [1.0, -phi], e, axis=0)[200:]


def iid_sets(rng, count):
    """i.i.d. data sets of many kinds: normal, heavy-tailed (t₂), skewed (exponential),
    discrete (3 levels) and binary (p = 0.1); n from 20 to 2000, 1 to 10 columns."""
    kinds = (lambda n, d: rng.normal(size=(n, d)),
             lambda n, d: rng.standard_t(2, size=(n, d)),
             lambda n, d: rng.exponential(size=(n, d)),
             lambda n, d: rng.integers(0, 3, size=(n, d)).astype(float),
             lambda n, d: (rng.uniform(size=(n, d)) < 0.1).astype(float))
    for k in range(count):
        n, d = int(rng.integers(20, 2001)), int(rng.integers(1, 11))
        yield kinds[k % len(kinds)](n, d)


def rate(k, n):
    lo, hi = binomial_interval(k, n)
    return f"{k}/{n} = {k / n:.4f} [{lo:.4f}, {hi:.4f}]"


def main():
    rng = np.random.default_rng(2026)
    lines = ["# The check of serial dependence (kmeviz.serial_dependence): Ljung-Box on each",
             "# column's first 5 autocorrelations, Bonferroni level 1e-4, positive serial",
             "# dependence only. python docs/results/serial_check.py; 95 % Clopper-Pearson.", ""]
    simulated = sum(K.serial_dependence({"X": Z}, family="gof").fired
                    for Z in iid_sets(rng, 1000))
    lines.append(f"false alarms, 1000 simulated i.i.d. data sets: {rate(simulated, 1000)}")
    for name in ("penguins", "nyc-taxi"):
        values = K.load_dataset(name).select_dtypes("number").dropna().to_numpy(float)
        in_order = K.serial_dependence({"X": values}, family="gof").fired
        alarms = sum(K.serial_dependence({"X": values[rng.permutation(len(values))]},
                                         family="gof").fired for _ in range(250))
        lines.append(f"false alarms, {name} ({values.shape[0]} x {values.shape[1]}) rows "
                     f"shuffled 250 times: {rate(alarms, 250)}; in the file's order the "
                     f"check fires: {in_order}")
    for n, phi in ((300, 0.5), (200, 0.5), (300, 0.3), (1000, 0.2)):
        found = sum(K.serial_dependence({"X": ar1(n, phi, rng)}, family="gof").fired
                    for _ in range(500))
        lines.append(f"detection, AR(1) phi = {phi}, n = {n}: {rate(found, 500)}")
    pairs = sum(K.serial_dependence({"X": ar1(300, 0.5, rng), "Y": ar1(300, 0.5, rng)},
                                    family="independence").fired for _ in range(500))
    lines.append(f"detection, independence of two AR(1) series, phi = 0.5, n = 300: "
                 f"{rate(pairs, 500)}")
    text = "\n".join(lines) + "\n"
    Path(__file__).with_suffix(".txt").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
