"""What the "Your data" explorer says and draws for each question: the summary's words,
and the views of the conditional question and of the dependence map (``data_explorer``
calls these with itself; no widgets are kept here)."""

from __future__ import annotations

import holoviews as hv
import panel as pn
from kmeviz_apps._own_conditional import CONDITIONAL, GRAPH, MAP, residual_sample
from kmeviz_apps._own_data import plane_of, witness_on_plane
from kmeviz_apps._own_pairs import INDEPENDENCE, kernel_words, paired_witness
from kmeviz_apps._url import plain
from kmeviz_apps.compare_cli import GOF_TARGETS

from kmeviz import viz
from kmeviz.viz.discovery import causal_graph_plot

#: the statistic each question's null distribution is of
STATISTICS = {"two-sample": "MMD²", INDEPENDENCE: "HSIC", CONDITIONAL: "T_CI"}
#: what the views of the map say before a cell is clicked
MAP_HINT = ("Click a cell of the dependence map, or a row of its table, to test that pair "
            "with every independence test: its witness, table and null distributions.")
GRAPH_HINT = ("The table under the graph lists every CI test PC ran, in order: an edge is "
              "removed by the first test that separates its ends. Click a test to run every "
              "conditional test on it, with its residuals and null distributions.")
#: the kernels of the conditional question, in words (``compare_ci``'s defaults)
CONDITIONAL_KERNELS = ("each conditional test's own: KCI and Nyström KCI a Gaussian of "
                       "width w(n)·√d_Z on the z-scored columns (Zhang et al.'s; a text "
                       "column enters as its label codes), RCIT and RCoT the median "
                       "heuristic (the delta kernel for a label whose median distance is 0, "
                       "which their random features cannot use: their rows say so)")


def summary_markdown(explorer) -> str:
    """The summary of the current question: what was read, and the kernels."""
    question = explorer.question
    if question == GRAPH:
        columns = len(explorer.columns or explorer._numeric)
        return (f"PC on {columns} columns: KCI for every conditional test (the authors' "
                "widths, each conditioning set's factorisation shared), stable skeleton, "
                "colliders by the majority rule; a text column enters as its label codes.")
    if question == MAP:
        columns = len(explorer.columns or explorer._numeric)
        return (f"Dependence map of {columns} columns: HSIC with its spectral null for "
                "every pair (a categorical column through the delta kernel), Holm and "
                "Benjamini–Hochberg adjusted.")
    _, _, report, kernel = explorer.prepared()
    lines = [plain(line, 300) for line in str(report).splitlines()]
    if question == INDEPENDENCE:
        words = f"kernels: X: {kernel_words(kernel.x)}; Y: {kernel_words(kernel.y)}"
    elif question == CONDITIONAL:
        words = f"kernels: {CONDITIONAL_KERNELS}"
    elif question != "two-sample":
        lines.append(plain(f"goodness of fit of X = {report.groups[0]} (Y is not used) "
                           f"against {GOF_TARGETS[question]}", 400))
        words = ("kernel: each goodness-of-fit test's default (IMQ c = 1, β = −½; a "
                 "Gaussian at the median heuristic for fssd-opt)")
    else:
        words = ("kernel: Gaussian, σ = <span class='kmeviz-bandwidth'>"
                 f"{kernel.bandwidth:.4g}</span>")
    return "\n\n".join([*lines, words])


def graph_plot(result):
    """The graph PC found (``viz.causal_graph_plot``)."""
    if result is None or not hasattr(result, "edges"):
        return pn.pane.Markdown("The graph appears when PC has run its tests.")
    return causal_graph_plot(result)


def map_plot(pairs, on_pair):
    """The dependence heatmap of ``pairs``; a click on a cell calls ``on_pair(x, y)``."""
    if pairs is None or "effect" not in getattr(pairs, "columns", ()):
        return pn.pane.Markdown("The map appears when every pair has been tested.")
    plot = viz.dependence_heatmap(pairs)
    tap = hv.streams.Tap(source=plot)

    def tapped(x=None, y=None):
        if x is not None and y is not None and str(x) != str(y):
            on_pair(str(x), str(y))

    tap.add_subscriber(tapped)
    return plot


def residuals_plot(X, Y, Z, seed: int):
    """The residuals of X and Y given Z (KCI's regression), with their Pearson r."""
    rx, ry, r = residual_sample(X, Y, Z, seed)
    return viz.residual_plot(rx, ry, title=f"Residuals given Z (what KCI tests), "
                                           f"Pearson r = {r:.3f}")


def plane(explorer):
    """``plane_of`` the current samples (a subsample), with their report and kernel."""
    X, Y, report, kernel = explorer.prepared()
    X, Y, U, mean, offset = plane_of(X, Y, (explorer.x_axis, explorer.y_axis),
                                     tuple(map(str, report.columns)), explorer.seed)
    return X, Y, report, kernel, U, mean, offset


def samples_plot(explorer):
    """The samples: the map itself (the graph); X against Y; or the two samples on the
    plane."""
    if explorer.question == GRAPH:  # a fixed height: the plot arrives after the layout
        return pn.Column(pn.bind(graph_plot, explorer.param.comparison), height=520)
    if explorer.question == MAP:
        return pn.Column(pn.bind(map_plot, explorer.param.comparison, explorer.open_pair),
                         height=600)
    if explorer.question in (CONDITIONAL, INDEPENDENCE):
        X, Y = explorer.prepared()[:2]
        return viz.joint_sample_plot(X, Y, title="First column of X against the first of Y"
                                     + (", before conditioning on Z"
                                        if explorer.question == CONDITIONAL else
                                        " (every row)"))
    X, Y, report, _, U, _, offset = plane(explorer)
    return viz.plane_scatter(X @ U + offset, Y @ U + offset,
                             (explorer.x_axis, explorer.y_axis), report.groups)


def witness_plot(explorer):
    """Where the question's answer shows: the residuals given Z, the witness of
    dependence, or the witness of the two samples on the plane."""
    if explorer.question == GRAPH:
        return pn.pane.Markdown(GRAPH_HINT)
    if explorer.question == MAP:
        return pn.pane.Markdown(MAP_HINT)
    if explorer.question == CONDITIONAL:
        X, Y, _, given = explorer.prepared()
        return residuals_plot(X, Y, given.Z, explorer.seed)
    if explorer.question == INDEPENDENCE:
        X, Y, _, kernels = explorer.prepared()
        return viz.dependence_witness_plot(*paired_witness(X, Y, kernels), X, Y)
    X, Y, _, kernel, U, mean, offset = plane(explorer)
    P, Q = X @ U + offset, Y @ U + offset
    xs, ys, values = witness_on_plane(X, Y, kernel, U, mean, offset, P, Q)
    return viz.witness_map(xs, ys, values, P, Q, (explorer.x_axis, explorer.y_axis))


def null_plot(explorer):
    """The selected test's null distribution, with the observed statistic."""
    table = explorer.comparison
    if explorer.question in (MAP, GRAPH):
        return pn.pane.Markdown(MAP_HINT if explorer.question == MAP else GRAPH_HINT)
    if table is None:
        return pn.pane.Markdown("The null distribution appears when the comparison has "
                                "finished; click a row of the table to choose the test.")
    notes = table.set_index("test")["note"]
    test = explorer.test if explorer.test in notes.index else notes.index[0]
    result = table.attrs["results"].get(test)
    if result is None:
        return pn.pane.Markdown(f"**{test}** did not run: {plain(notes[test], 300)}")
    result = result.at_level(explorer.alpha)
    p_value = result.p_value_text()
    return viz.null_histogram(result, statistic=STATISTICS.get(explorer.question, "KSD")
                              ).opts(  # a title that fits
        title=f"{test}: p {p_value if p_value.startswith('<') else '= ' + p_value}, "
              f"{'reject' if result.reject else 'keep'} H0")
