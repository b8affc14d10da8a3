"""A time budget and a cancel signal for long computations, checked between units of work.

The tile engine checks it before each tile and the experiment runners before each trial,
so a computation inside ``time_budget(seconds)`` stops within about one tile (or trial)
of its deadline, or of ``cancel.set()``, with ``BudgetExceeded``. Per thread, like the
engine's settings: a served dashboard bounds each session's computation this way, and a
closed session cancels its own. A dense LAPACK call (an eigendecomposition) cannot be
interrupted in the middle; it is checked before and after.

Examples
--------
>>> import kmeviz as K
>>> X, Y = K.blobs_two_sample(300, rng=0)
>>> with time_budget(30.0):
...     value = K.mmd2(X, Y, K.GaussianKernel(1.0))
"""

from __future__ import annotations

import contextlib
import threading
import time

_local = threading.local()


class BudgetExceeded(RuntimeError):
    """A computation ran past its time budget, or was cancelled.

    (Infrastructure: implements no paper equation.)
    """


class Cancelled(BudgetExceeded):
    """A computation was cancelled from another thread (its page closed).

    (Infrastructure: implements no paper equation.)
    """


@contextlib.contextmanager
def time_budget(seconds: float | None = None, *, cancel: threading.Event | None = None):
    """Inside the block, engine passes and runner trials raise ``BudgetExceeded`` once
    ``seconds`` have passed or ``cancel`` is set (this thread only; nested budgets keep
    the earlier deadline, and the outer cancel signal when they have none).

    Parameters
    ----------
    seconds : float, optional
        The budget (None: no deadline, only ``cancel``).
    cancel : threading.Event, optional
        Set it from another thread to stop the computation.

    Yields
    ------
    None
    """
    previous = getattr(_local, "budget", None)
    deadline = None if seconds is None else time.monotonic() + float(seconds)
    if previous is not None and previous[0] is not None:
        deadline = previous[0] if deadline is None else min(deadline, previous[0])
    if previous is not None and cancel is None:  # a nested budget keeps the outer signal
        cancel = previous[1]
    _local.budget = (deadline, cancel, seconds)
    try:
        yield
    finally:
        _local.budget = previous


def check_budget() -> None:
    """Raise ``BudgetExceeded`` if this thread's budget is spent or it was cancelled."""
    budget = getattr(_local, "budget", None)
    if budget is None:
        return
    deadline, cancel, seconds = budget
    if cancel is not None and cancel.is_set():
        raise Cancelled("the computation was cancelled (its page closed)")
    if deadline is not None and time.monotonic() > deadline:
        raise BudgetExceeded(f"the computation took longer than its time budget of "
                             f"{seconds:g} s; choose smaller settings")
