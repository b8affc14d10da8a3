"""The data side of the "Your data" explorer: built-in tables, uploads, the plane the
samples are drawn on and the witness on it (no widgets here)."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pandas as pd
import panel as pn
import param
from kmeviz_apps._cache import shared_cache
from kmeviz_apps._own_pairs import default_y_columns
from kmeviz_apps._own_times import time_candidates
from kmeviz_apps._url import markup_safe_options, shown_options
from kmeviz_apps.compare_cli import gof_target

import kmeviz as K
from kmeviz.budget import check_budget, time_budget
from kmeviz.loading import NPZ_GROUP, PAIR_GROUP, pair_frame
from kmeviz.timeseries.serial import quiet_serial_warnings

PCS = ("PC 1", "PC 2")
#: the group select's entry while no column has been chosen
CHOOSE = "(choose the group column)"
#: a group column has at most this many values; more are not offered as groups
MAX_GROUPS = 50
#: the witness and the plane views read at most this many points of each sample
PLANE_POINTS = 5000
#: the witness is evaluated on a GRID × GRID grid of the plane (coarser, down to
#: MIN_GRID, when the grid points × rows × columns would exceed WITNESS_WORK: with 5000
#: columns the full grid took 9 s; at 3e9 a 300 + 300-row, 5000-column table gets
#: a 31 × 31 grid, about 0.3 s here)
GRID = 60
MIN_GRID = 20
WITNESS_WORK = 3e9


@shared_cache(maxsize=8)
def built_in_frame(source: str, n: int, epsilon: float, seed: int) -> pd.DataFrame:
    """The table of a bundled data set, or of a generator of the papers (the blob grid at
    eigenvalue ratio ε, the rings) with its ``sample`` column."""
    if source in ("blobs", "rings"):
        X, Y = (K.blobs_two_sample(n, epsilon=epsilon, rng=seed) if source == "blobs"
                else K.rings_two_sample(n, rng=seed))
        frame = pd.DataFrame(np.vstack([X, Y]), columns=["x1", "x2"])
        return frame.assign(sample=np.repeat(["P", "Q"], [len(X), len(Y)]))
    return K.load_dataset(source)


#: The questions the explorer answers: two-sample tests, or goodness of fit of sample X
#: to a target of ``kmeviz compare --gof`` (GOF_TARGETS).
#: what the rows are: checked for serial dependence (the table then says so), declared
#: exchangeable, or a time series in order (the time-series tests run instead)
ROWS = {"check their order": "check", "exchangeable (i.i.d.)": "iid",
        "a time series, in order": "time series"}
QUESTIONS = {"Do X and Y differ? (two-sample)": "two-sample",
             "Are X's and Y's columns independent?": "independence",
             "Are X and Y independent given Z?": "conditional",
             "Which columns depend on which? (map)": "map",
             "What causes what? (PC graph)": "graph",
             "Is X standard normal? (fit)": "normal",
             "Is X normal? (fitted normal)": "normal-fitted"}


def compare_samples(X, Y, kernel, *, alpha: float, seed: int, seconds: float,
                    progress, shared_key: tuple | None = None,
                    question: str = "two-sample", rows: str = "check") -> pd.DataFrame:
    """``compare_tests`` of X and Y with ``kernel``, ``compare_independence`` of the paired
    X and Y (``question="independence"``, ``kernel`` a ``KernelPair``), ``compare_ci`` of
    X and Y given Z (``question="conditional"``, ``kernel`` a ``Conditioning``), or
    (``question`` a
    ``--gof`` target) ``compare_gof`` of X against it, as ``kmeviz compare`` does; within
    ``seconds``
    (and the caller's budget and cancel signal: a job's), each row handed to ``progress`` as it
    comes; with ``shared_key`` (the choices of a bundled data set or generator, never an
    upload), computed once for every session."""
    def compare():
        with time_budget(seconds), quiet_serial_warnings():  # the table shows the check
            if question == "conditional":
                return K.compare_ci(X, Y, kernel.Z, alpha=alpha, rng=seed, progress=progress,
                                    time_budget=min(10.0, seconds), rows=rows)
            if question == "independence":
                return K.compare_independence(X, Y, kernel_x=kernel.x, kernel_y=kernel.y,
                                              alpha=alpha, rng=seed, progress=progress,
                                              time_budget=min(10.0, seconds), rows=rows)
            if question != "two-sample":
                return K.compare_gof(X, gof_target(question, X), alpha=alpha, rng=seed,
                                     time_budget=min(10.0, seconds), progress=progress,
                                     rows=rows)
            return K.compare_tests(X, Y, kernel=kernel, alpha=alpha, rng=seed,
                                   time_budget=min(10.0, seconds), progress=progress,
                                   rows=rows)
    return compare() if shared_key is None else shared_comparison(shared_key, compare)


@shared_cache(maxsize=16, key=lambda choices, compare: choices)
def shared_comparison(choices: tuple, compare) -> pd.DataFrame:
    """``compare()``, once per ``choices`` for every session: each page of a bundled data
    set opens with the same comparison, 0.3 s of CPU per session (issue 29); a session
    that finds it cached gets the whole table at once."""
    return compare()


#: a name that reads like a label: a numeric column with two values and such a name is
#: offered as the group column (any other numeric column could be a feature)
LABEL_NAME = re.compile(
    r"(?:^|[^a-z])(?:group|label|class|target|arm|treat\w*|condition|cohort|sample|split|"
    r"batch|site|sex|gender|species|category|outcome|y|is_\w+|has_\w+)(?:[^a-z]|$)",
    re.IGNORECASE)


def default_group(frame: pd.DataFrame, candidates: list) -> str:
    """The group column to start with: ``sample`` or the file/array column, else a text
    column, else a numeric column with two values whose name reads like a label; ""
    when none does (the user chooses: a numeric column with few values may be a
    feature, such as a pixel intensity, and is never taken silently)."""
    position = {str(c): k for k, c in enumerate(frame.columns)}  # no Series per column
    numeric = numeric_mask(frame)
    preferred = [g for g in ("sample", PAIR_GROUP, NPZ_GROUP) if g in candidates]
    text = [g for g in candidates if not numeric[position[g]]]
    labels = [g for g in candidates if numeric[position[g]] and LABEL_NAME.search(g)
              and frame.iloc[:, position[g]].nunique() == 2]
    return (preferred + text + labels + [""])[0]


def no_group_message(sources, candidates: list) -> str:
    """What the page says when ``default_group`` found no group column."""
    return (f"To compare, choose the group column: no column of {', '.join(sources)} reads "
            "as a group label (text, or two values under a name such as 'group' or "
            "'label'), and a numeric column with few values may be a feature. Candidates: "
            f"{', '.join(candidates[:20])}{' …' if len(candidates) > 20 else ''}. Or drop "
            "two files, one per sample.")


#: the values ``group_candidates`` copies and sorts at once (8 MB of float64)
COUNT_BLOCK_CELLS = 1 << 20


def group_candidates(frame: pd.DataFrame) -> list:
    """Columns that can split the rows: text columns, and numeric ones with few values.
    Linear in the table's cells: the numeric columns are counted together (sorted once),
    the others one by one (3000 columns took 0.7 s one by one)."""
    numeric = numeric_mask(frame)
    positions = [k for k, is_number in enumerate(numeric) if is_number]
    # in blocks of about COUNT_BLOCK_CELLS values: a copy and a sorted copy of a 1000 ×
    # 10 000 table were 160 MB at once
    step = max(1, COUNT_BLOCK_CELLS // max(1, len(frame)))
    counts = iter(np.concatenate([np.zeros(0, dtype=int), *(
        distinct_counts(frame.iloc[:, positions[k:k + step]].to_numpy(
            dtype=float, na_value=np.nan)) for k in range(0, len(positions), step))]))
    out = []
    for position, column in enumerate(frame.columns):
        check_budget()  # a session's budget holds here too
        values = (next(counts) if numeric[position]
                  else frame.iloc[:, position].nunique(dropna=True))
        if 2 <= values <= MAX_GROUPS and (not numeric[position] or values <= 10):
            out.append(str(column))
    return out


#: the most columns a list widget offers at once: a table may have 10 000, and a list of
#: them (with every one chosen) took the page's event loop 17 s to build, growing with
#: the square of their number; the others are found by name (``find``)
MAX_LISTED = 100


def offered_choices(frame: pd.DataFrame, group, groups, columns, axes: tuple, y_columns,
                    *, candidates: list | None = None, find: str = "", time_column="",
                    z_columns=()):
    """(options, values, numeric) of the "Your data" widgets for ``frame``: the group
    column and its values, the columns (escaped labels: a MultiChoice renders them as
    HTML), Y's columns and the plane's axes, the current choices kept where still
    offered, and every numeric column but the group (a table without a group column: none
    chosen, for the questions of one sample). Text columns of at most ``MAX_GROUPS``
    labels are listed after the numeric ones, none chosen; Z's columns default to the
    numeric column before Y's.

    A table of at most ``MAX_LISTED`` numeric columns lists them all, all chosen. A wider
    one lists the chosen columns and the first ``MAX_LISTED`` whose names contain
    ``find`` (case aside), none chosen: no choice means every numeric column. Linear in
    the columns; ``candidates`` (``group_candidates(frame)``, linear in the cells) may
    come computed off the event loop."""
    candidates = group_candidates(frame) if candidates is None else candidates
    if group not in candidates:
        group = default_group(frame, candidates)
    if group:
        values = list(dict.fromkeys(frame[group].dropna().astype(str)))[:MAX_GROUPS]
        if not groups or any(g not in values for g in groups):
            groups = (values[0], values[1])
    else:  # no column reads as a group: the user chooses one
        values, groups = [""], ("", "")
    mask = numeric_mask(frame)
    numeric = [str(c) for c, is_number in zip(frame.columns, mask, strict=True)
               if is_number and str(c) != group]
    # text columns of a few labels (the candidates' non-numeric ones): offered for the
    # questions of paired columns, read through the categorical kernel
    position = {str(c): k for k, c in enumerate(frame.columns)}
    labels = [c for c in candidates if not mask[position[c]]][:MAX_LISTED]
    offered = set(numeric) | set(labels)
    columns = [c for c in (columns or ()) if c in offered]
    y_chosen = default_y_columns(numeric, columns, y_columns or [])
    z_chosen = [c for c in (z_columns or ()) if c in offered and c not in y_chosen] or [
        c for c in numeric[::-1] if c not in y_chosen and len(numeric) > 2][:1]
    if len(numeric) + len(labels) <= MAX_LISTED:
        listed, columns = numeric + labels, columns or numeric
    else:
        needle = find.strip().lower()[:200]  # the box takes 200 characters; a link none
        found = itertools.islice((c for c in numeric + labels if needle in c.lower()),
                                 MAX_LISTED - len(z_chosen))  # Z's beside them
        listed = list(dict.fromkeys([*columns, *y_chosen, *z_chosen, *found]))
    shown = (columns or listed)[:MAX_LISTED]
    # no numeric column at all: the axes keep the PCs, and the views say what is missing
    plane = ([*PCS, *shown] if len(columns or numeric) > 1 else list(shown) or list(PCS))
    groupings = list(dict.fromkeys([*([group] if group else []), *candidates[:MAX_LISTED]]))
    times = time_candidates(frame, group, limit=MAX_LISTED)
    options = {"group": ({} if group else {CHOOSE: ""}) | shown_options(groupings),
               "group_x": shown_options(values), "group_y": shown_options(values),
               "columns": markup_safe_options(listed),
               "columns_y": markup_safe_options(listed),
               "columns_z": markup_safe_options(listed), "x_axis": plane, "y_axis": plane,
               "time_column": {"none (the file's order)": ""} | shown_options(times)}
    chosen = {"group": group, "group_x": groups[0], "group_y": groups[1], "columns": columns,
              "x_axis": axes[0] if axes[0] in plane else plane[0],
              "y_axis": axes[1] if axes[1] in plane else plane[min(1, len(plane) - 1)],
              "columns_y": y_chosen, "columns_z": z_chosen,
              "time_column": time_column if time_column in times else ""}
    return options, chosen, numeric


def numeric_mask(frame: pd.DataFrame) -> list:
    """Whether each column holds numbers or booleans (``select_dtypes(include=["number",
    "bool"])``), from the dtypes' kinds: 10 000 columns in milliseconds (pandas' dtype
    tests took 0.1 s, on the page's event loop)."""
    return [kind.kind in "biufc" for kind in frame.dtypes]


def distinct_counts(values: np.ndarray) -> np.ndarray:
    """The number of distinct non-NaN values of each column of ``values`` (n, d)."""
    if values.shape[0] == 0:
        return np.zeros(values.shape[1], dtype=int)
    ordered = np.sort(values, axis=0)  # NaN sort last
    present = ~np.isnan(ordered)
    new = np.ones_like(present)
    new[1:] = ordered[1:] != ordered[:-1]
    return (new & present).sum(axis=0)


def plane_directions(axes: tuple, columns: tuple, pooled: np.ndarray) -> np.ndarray:
    """(d, 2) directions of the two axes: principal components of the pooled sample (SVD
    of at most PLANE_POINTS rows) or coordinate vectors of columns."""
    d = pooled.shape[1]
    U = np.zeros((d, 2))
    if any(a in PCS for a in axes):
        centred = pooled[:PLANE_POINTS] - pooled[:PLANE_POINTS].mean(axis=0)
        Vt = np.linalg.svd(centred, full_matrices=False)[2]
    for k, axis in enumerate(axes):
        if axis in PCS:
            index = PCS.index(axis)
            if index >= Vt.shape[0]:
                raise ValueError("one column has one principal component: pick a column")
            U[:, k] = Vt[index]
        else:
            U[columns.index(axis), k] = 1.0
    if np.linalg.matrix_rank(U) < 2:
        raise ValueError("the two axes are the same direction: choose two different ones")
    return U


class BoundedFileDropper(pn.widgets.FileDropper):
    """Panel's FileDropper whose server side holds at most ``max_bytes`` per file and
    ``MAX_FILES`` files in all, finished or arriving, whatever the page's model says (its
    ``max_file_size`` and ``max_files`` are a courtesy a hand-made client can skip, and an
    upload is assembled in the server's memory): a new file pushes out the oldest
    finished one, a file past the size limit or a third arriving at once is refused, and
    the rest of a refused file's chunks are ignored. Each refusal's message goes to
    ``on_refused(why)`` and stays in ``refused`` (server side only: no widget parameter,
    so nothing of it is sent to the page)."""

    #: files a session holds, in the box or arriving: one table, or one per sample
    MAX_FILES = 2

    def __init__(self, *, max_bytes: int, on_refused=None, **params):
        self._max_bytes = int(max_bytes)
        self._ignored: set = set()  # names of refused files whose chunks still arrive
        self._on_refused = on_refused
        self._refused = ""
        super().__init__(**params)

    @property
    def refused(self) -> str:
        """Why the last refused file was refused ("" before any)."""
        return self._refused

    def _process_event(self, event):
        # Panel's handler adds the file to ``value`` and ``mime_type`` in place; once synced,
        # ``mime_type`` is the Bokeh model's own dict, whose in-place change notifies the
        # document outside its lock (seen when events ran in a thread pool): a
        # RuntimeError that lost the second of two uploads. Plain copies first.
        with param.parameterized.discard_events(self):
            self.param.update(value=dict(self.value), mime_type=dict(self.mime_type))
        if event.event_name == "upload_event" and not self._take_chunk(event.data):
            return
        super()._process_event(event)

    def _take_chunk(self, data) -> bool:
        """Whether Panel's handler may take this chunk of an upload (else it is dropped)."""
        name, first = data.get("name", ""), data.get("chunk") == 1
        if first:
            self._ignored.discard(name)
        elif name in self._ignored or name not in self._file_buffer:
            return False  # the rest of a refused file (Panel's handler raised KeyError)
        held = sum(len(c) for c in self._file_buffer.get(name, ())) + len(data["data"])
        arriving = set(self._file_buffer) - {name}
        if held > self._max_bytes:
            limit = self._max_bytes / 1024**2
            return self._refuse(name, f"{name} is over the limit of {limit:g} MB per file "
                                      "(kmeviz serve --max-upload-mb sets it)")
        if len(arriving) >= self.MAX_FILES:
            return self._refuse(name, f"{name} arrived while {self.MAX_FILES} files were "
                                      "still arriving: drop at most two files at a time")
        if first:  # room for it: the oldest finished files go (the box uses the newest)
            finished = [n for n in self.value if n != name]
            for old in finished[:max(0, len(finished) + len(arriving) + 1 - self.MAX_FILES)]:
                self.value.pop(old, None)
                self.mime_type.pop(old, None)
        return True

    def _refuse(self, name: str, why: str) -> bool:
        self._file_buffer.pop(name, None)
        self._ignored.add(name)
        self._refused = why
        if self._on_refused is not None:
            self._on_refused(why)
        return False


def plane_of(X, Y, axes: tuple, columns: tuple, seed: int):
    """(X, Y, U, mean, offset): at most PLANE_POINTS rows of each sample (seeded), the
    (d, 2) directions of ``axes`` (``plane_directions``), the pooled mean, and the offsets
    that make a PC coordinate centred and a column coordinate the column's value."""
    take = np.random.default_rng(seed)
    X, Y = (S if len(S) <= PLANE_POINTS else S[take.choice(len(S), PLANE_POINTS, False)]
            for S in (X, Y))
    if X.shape[1] == 1:
        raise ValueError("one column: the plane views need at least two")
    pooled = np.vstack([X, Y])
    U = plane_directions(axes, columns, pooled)
    mean = pooled.mean(axis=0)
    offset = np.array([0.0 if axis not in PCS else -mean @ U[:, k]
                       for k, axis in enumerate(axes)])
    return X, Y, U, mean, offset


def upload_frame(frames: list, limits=None) -> tuple[pd.DataFrame, tuple, list]:
    """(table, file names, ``group_candidates`` of the table) of one or two read files
    [(name, table)], computed off the event loop (in the upload's job): two files are one
    sample each (``pair_frame``, as ``kmeviz compare A B``), refused before they are
    stacked when the table they make is past ``limits`` (a ``TableLimits``: each file
    was within them, the pair may not be); one file without a column that splits its
    rows is one sample (no candidates): the independence and fit questions use it, a
    two-sample comparison waits for a group column or a second file."""
    names = tuple(name for name, _ in frames)
    if len(frames) == 2:
        if limits is not None:
            limits.check("the two files together", sum(f.shape[0] for _, f in frames),
                         max(f.shape[1] for _, f in frames) + 1)
        frame = pair_frame(frames[0][1], frames[1][1], names)
        return frame, names, group_candidates(frame)
    (_, frame), = frames
    return frame, names, group_candidates(frame)


def as_bytes(content) -> bytes:
    """A dropped file's content as bytes (Panel decodes text/* files to str)."""
    return content.encode("utf-8") if isinstance(content, str) else content


def witness_on_plane(X, Y, kernel, U, mean, offset, P, Q):
    """(xs, ys, values): the witness μ̂_X − μ̂_Y on a grid (GRID × GRID, coarser for a
    wide table) covering the plane
    coordinates P and Q, at the points mean + U (UᵀU)⁻¹ (a − c(mean)) of R^d whose plane
    coordinates are a."""
    both = np.vstack([P, Q])
    lo, hi = both.min(axis=0), both.max(axis=0)
    pad = 0.05 * (hi - lo + 1e-12)
    work_per_point = (X.shape[0] + Y.shape[0]) * X.shape[1]
    grid = int(np.clip(np.sqrt(WITNESS_WORK / work_per_point), MIN_GRID, GRID))
    xs = np.linspace(lo[0] - pad[0], hi[0] + pad[0], grid)
    ys = np.linspace(lo[1] - pad[1], hi[1] + pad[1], grid)
    A = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    shift = (A - (mean @ U + offset)) @ np.linalg.solve(U.T @ U, U.T)
    return xs, ys, K.mmd_witness(X, Y, kernel, mean + shift).reshape(grid, grid)
