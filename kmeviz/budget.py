"""A time budget and a cancel signal for long computations, checked between units of work.

The tile engine checks it before each tile and the experiment runners before each trial,
so a computation inside ``time_budget(seconds)`` stops within about one tile (or trial)
of its deadline, or of ``cancel.set()``, with ``BudgetExceeded``. The budget lives in a
``contextvars.ContextVar``: it follows a computation into ``asyncio`` tasks and into
threads started with ``asyncio.to_thread`` or ``contextvars.copy_context().run`` (a
``threading.local`` did not: a dashboard's "Repeat 100 times" once ran without its
deadline), and stays out of other threads and other sessions' tasks. A served dashboard
bounds each session's computation this way, and a closed session cancels its own. A
dense LAPACK call (an eigendecomposition) cannot be interrupted in the middle; it is
checked before and after.

Examples
--------
>>> import kmeviz as K
>>> X, Y = K.blobs_two_sample(300, rng=0)
>>> with time_budget(30.0):
...     value = K.mmd2(X, Y, K.GaussianKernel(1.0))
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time

#: (deadline, cancel events, seconds) of the innermost ``time_budget``, or None
_budget: contextvars.ContextVar[tuple | None] = contextvars.ContextVar("kmeviz_budget",
                                                                      default=None)


class BudgetExceeded(RuntimeError):
    """A computation ran past its time budget, or was cancelled.
    """


class Cancelled(BudgetExceeded):
    """A computation was cancelled from another thread (its page closed).
    """


@contextlib.contextmanager
def time_budget(seconds: float | None = None, *, cancel: threading.Event | None = None):
    """Inside the block, engine passes and runner trials raise ``BudgetExceeded`` once
    ``seconds`` have passed or ``cancel`` is set (in this context: the code it runs, the
    tasks and ``to_thread`` calls it starts; nested budgets keep the earlier deadline,
    and the outer cancel signal when they have none).

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
    previous = _budget.get()
    deadline = None if seconds is None else time.monotonic() + float(seconds)
    if previous is not None and previous[0] is not None:
        deadline = previous[0] if deadline is None else min(deadline, previous[0])
    cancels = (*(previous[1] if previous is not None else ()),
               *((cancel,) if cancel is not None else ()))
    token = _budget.set((deadline, cancels, seconds))
    try:
        yield
    finally:
        _budget.reset(token)


def detached(context: contextvars.Context) -> contextvars.Context:
    """``context`` without its time budget: work started from inside another computation
    (a dashboard job started by a view) runs under a budget of its own, not under the
    starter's deadline and cancel signal."""
    context.run(_budget.set, None)
    return context


def check_budget() -> None:
    """Raise ``BudgetExceeded`` if this context's budget is spent or it was cancelled."""
    budget = _budget.get()
    if budget is None:
        return
    deadline, cancels, seconds = budget
    if any(cancel.is_set() for cancel in cancels):
        raise Cancelled("the computation was cancelled (its page closed)")
    if deadline is not None and time.monotonic() > deadline:
        raise BudgetExceeded(f"the computation took longer than its time budget of "
                             f"{seconds:g} s; choose smaller settings")


#: the bytes a computation may hold at once, of the innermost ``memory_budget``, or None
_memory: contextvars.ContextVar[int | None] = contextvars.ContextVar("kmeviz_memory",
                                                                    default=None)


class MemoryBudgetExceeded(ValueError):
    """A computation would hold more memory at once than its ``memory_budget``: refused
    before it starts, naming the setting to lower (a ValueError: bad settings).
    """


@contextlib.contextmanager
def memory_budget(n_bytes: int | None):
    """Inside the block, a computation whose estimated memory (``check_memory``) is past
    ``n_bytes`` is refused before it starts; nested budgets keep the smaller. Like the
    time budget, it follows the work into tasks and threads started with a copy of the
    context: a served dashboard gives each page's work one (``kmeviz serve
    --page-memory-mb``).

    Yields
    ------
    None
    """
    previous = _memory.get()
    if n_bytes is not None and previous is not None:
        n_bytes = min(int(n_bytes), previous)
    token = _memory.set(None if n_bytes is None else int(n_bytes))
    try:
        yield
    finally:
        _memory.reset(token)


def memory_limit() -> int | None:
    """The bytes this context's computation may hold at once (None: no budget)."""
    return _memory.get()


def check_memory(needed: float, what: str, lower: str) -> None:
    """Refuse ``what`` (e.g. "the full KSD test") when it would hold ``needed`` bytes at
    once, past this context's ``memory_budget``: ``MemoryBudgetExceeded`` naming the
    settings to ``lower``."""
    limit = _memory.get()
    if limit is not None and needed > limit:
        raise MemoryBudgetExceeded(
            f"{what} would hold about {needed / 1024**2:,.0f} MB at once, more than the "
            f"{limit / 1024**2:,.0f} MB a computation may use here; lower {lower}")
