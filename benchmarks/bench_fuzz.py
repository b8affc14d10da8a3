"""Random widget states of every explorer (issue 29, point 1): the seconds of a full
render (every view computed and drawn to Bokeh models, the progressive ones to their
last part) and the unexpected errors.

Each state draws every control uniformly within its widget's bounds (a selector: one of
its objects; a list selector: a random subset). A view that shows "These settings cannot
be computed" with a ValueError's reason is an expected answer; "Something went wrong"
is an unexpected error. ``python -m benchmarks.bench_fuzz [--states N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import random
import time

import holoviews as hv
import numpy as np
import panel as pn
import param
from kmeviz_apps import EXPLORERS, explorer_class

from ._util import print_table


def random_state(cls, rng: random.Random) -> dict:
    """A value for every control of ``cls`` within its parameter's bounds."""
    state = {}
    for name in cls.CONTROLS:
        p = cls.param[name]
        if isinstance(p, param.Boolean):
            state[name] = rng.random() < 0.5
        elif isinstance(p, param.ListSelector):
            objects = list(p.objects)
            state[name] = rng.sample(objects, rng.randint(0, len(objects)))
        elif isinstance(p, param.Selector):
            state[name] = rng.choice(list(p.objects))
        elif isinstance(p, param.Integer):
            lo, hi = p.bounds
            state[name] = rng.randint(lo, hi)
        elif isinstance(p, param.Number):
            lo, hi = p.bounds
            state[name] = rng.uniform(lo, hi)
    return state


def render(shown) -> None:
    """Draw what a view returned as a browser would get it: HoloViews objects (a
    DynamicMap's current frame included) and Panel objects to Bokeh models."""
    if isinstance(shown, (hv.core.Dimensioned, hv.DynamicMap)):
        hv.render(shown, backend="bokeh")
    elif isinstance(shown, pn.viewable.Viewable):
        shown.get_root()


def full_render(explorer) -> tuple[float, list]:
    """Seconds to compute and draw every view of ``explorer``; the unexpected errors."""
    views = ["summary_view", *(view for row in explorer.PLOTS for view, _ in row)]
    unexpected, refused = [], False
    t0 = time.perf_counter()
    for name in views:
        shown = getattr(explorer, name)()
        if isinstance(shown, pn.pane.Alert) and "Something went wrong" in str(shown.object):
            unexpected.append((name, shown.object))
        else:
            refused |= "cannot be computed" in str(getattr(shown, "object", ""))
            render(shown)
    return time.perf_counter() - t0, unexpected, refused


def measure(states: int = 30, seed: int = 0, apps=None) -> tuple[list, list]:
    rng = random.Random(seed)
    rows, errors = [], []
    for slug in apps or EXPLORERS:
        cls = explorer_class(slug)
        times, worst, refusals = [], None, 0
        for _ in range(states):
            state = random_state(cls, rng)
            try:
                explorer = cls(plot_sizing="stretch", **state)
            except ValueError:  # a cross-parameter rule refused it: an answer
                times.append(0.0)
                continue
            seconds, unexpected, refused = full_render(explorer)
            times.append(seconds)
            refusals += refused
            errors += [(slug, state, view, message) for view, message in unexpected]
            if worst is None or seconds > worst[0]:
                worst = (seconds, state)
        t = np.asarray(times)
        rows.append([slug, len(t), float(np.median(t)), float(np.percentile(t, 95)),
                     float(t.max()), sum(1 for e in errors if e[0] == slug), refusals,
                     {k: v for k, v in (worst[1] if worst else {}).items()}])
    return rows, errors


def run(quick: bool = False, seed: int = 0):
    hv.extension("bokeh")
    rows, errors = measure(5 if quick else 30, seed)
    print_table("Random widget states: full render per state (targets: p95 ≤ 3 s, max ≤ 10 s, "
                "0 unexpected errors)",
                ["explorer", "states", "p50 (s)", "p95 (s)", "max (s)", "unexpected errors",
                 "states answered with a message", "slowest state"],
                [r[:-1] + [str(r[-1])[:160]] for r in rows])
    for slug, state, view, message in errors[:5]:
        print("unexpected:", slug, view, state, message[:200])
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_fuzz")
    parser.add_argument("--states", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("apps", nargs="*", help="explorer slugs (default: all)")
    args = parser.parse_args()
    hv.extension("bokeh")
    rows, errors = measure(args.states, args.seed, args.apps)
    print_table("Random widget states", ["explorer", "states", "p50 (s)", "p95 (s)",
                                         "max (s)", "unexpected errors",
                                         "states answered with a message", "slowest state"],
                [r[:-1] + [str(r[-1])[:200]] for r in rows])
    for slug, state, view, message in errors[:10]:
        print("unexpected:", slug, view, state, message[:300])
