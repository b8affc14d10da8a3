"""The "Your data" explorer's choices: what its widgets offer for the current table, one
comparison restart for a batch of changes, and the page's memory check (no widgets here;
``data_explorer`` calls these with itself)."""

from __future__ import annotations

import contextlib

from kmeviz_apps._own_conditional import CONDITIONAL, MAP, Conditioning, conditional_samples
from kmeviz_apps._own_data import MAX_LISTED, PLANE_POINTS, offered_choices
from kmeviz_apps._own_pairs import INDEPENDENCE, paired_kernels, paired_samples

from kmeviz.budget import check_memory
from kmeviz.loading import in_time_order, samples_from_frame


@contextlib.contextmanager
def one_restart(explorer):
    """The choices changed inside restart the comparison once, at the end (an upload
    sets seven of them: seven restarts, a thread each, competed with the event loop
    that draws every session's page)."""
    explorer._restarts_held += 1
    try:
        yield
    finally:
        explorer._restarts_held -= 1
        if not explorer._restarts_held and explorer._restart_due:
            explorer._restart_due = False
            explorer.restart_comparison()


def offer_choices(explorer, group, groups, columns=None) -> None:
    """Set the options of every data-dependent widget, then all their values in one
    update (options first, so no widget ever holds a value its options lack). Linear
    in the columns, the lists at most ``MAX_LISTED`` long; an upload's group
    candidates come computed by its job, off the event loop."""
    try:
        frame = explorer.frame()
    except (ValueError, TypeError, OSError):
        return
    upload = explorer._upload if explorer.source_kind() == "upload" else None
    if upload is not None and (group, groups, columns, explorer.find_columns) == (
            None, None, None, ""):
        offer = upload[4]  # a new upload's, computed by its job
    else:
        offer = offered_choices(frame, group, groups, columns,
                                (explorer.x_axis, explorer.y_axis), explorer.columns_y,
                                candidates=None if upload is None else upload[3],
                                find=explorer.find_columns, time_column=explorer.time_column,
                                z_columns=explorer.columns_z)
    if offer is None:
        return
    options, values, explorer._numeric = offer
    explorer._find.visible = len(explorer._numeric) > MAX_LISTED
    explorer._offering = True
    try:
        with one_restart(explorer):
            for name, objects in options.items():
                explorer.param[name].objects = objects
            explorer.param.update(**values)
    finally:
        explorer._offering = False


def check_table_memory(explorer) -> None:
    """Refuse, before any copy is made, a table whose views and tests would pass the
    page's memory budget, naming what to lower. Measured: a 1000-row upload of 9 998
    numeric columns (80 MB of values) took the server from 205 to 1166 MB, 96 bytes a
    value: copies of the values (about 4), and the views' work on at most
    ``PLANE_POINTS`` rows in all d dimensions (about 8 more)."""
    d = len(explorer.columns or explorer._numeric) + (
        len(explorer.columns_y) if explorer.question in (INDEPENDENCE, CONDITIONAL) else 0) + (
        len(explorer.columns_z) if explorer.question == CONDITIONAL else 0)
    rows = len(explorer.frame())
    needed = 8.0 * d * (4 * rows + 8 * min(rows, PLANE_POINTS))
    check_memory(needed, f"this table's {rows:,} rows × {d:,} columns",
                 "the columns (Columns, or Find columns and choose some), or raise "
                 "kmeviz serve --page-memory-mb")


def prepared_samples(explorer):
    """(X, Y, report, kernel) of the explorer's choices: its table, in the order of its
    time column when one is chosen, split by group (or into column groups for the
    independence and conditional questions: the kernel's slot then holds the
    ``KernelPair``, or Z as a ``Conditioning``)."""
    check_table_memory(explorer)
    frame = explorer.frame()
    if explorer.time_column:
        frame = in_time_order(frame, explorer.time_column)
    if explorer.question == MAP:
        raise ValueError("the dependence map reads the table itself")  # no samples
    if explorer.question == CONDITIONAL:  # three groups of columns of every row
        X, Y, Z, report = conditional_samples(
            frame, explorer.columns or explorer._numeric, explorer.columns_y,
            explorer.columns_z, standardize=explorer.standardize,
            sources=explorer.source_names())
        return X, Y, report, Conditioning(Z)
    if explorer.question == INDEPENDENCE:  # two groups of columns of every row
        X, Y, report = paired_samples(frame, explorer.columns or explorer._numeric,
                                      explorer.columns_y, standardize=explorer.standardize,
                                      sources=explorer.source_names())
        return X, Y, report, paired_kernels(X, Y, 10.0**explorer.bandwidth_log10,
                                              report)
    if not explorer.group:
        raise ValueError(explorer.no_group_message())
    if explorer.group_x == explorer.group_y:
        raise ValueError("choose two different groups for X and Y")
    X, Y, report = samples_from_frame(
        frame, group=explorer.group, groups=(explorer.group_x, explorer.group_y),
        columns=list(explorer.columns) or None, standardize=explorer.standardize,
        sources=explorer.source_names())
    return X, Y, report, explorer.kernel(X, Y)
