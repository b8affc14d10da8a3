"""One session's callbacks in order, different sessions in parallel.

With ``pn.config.nthreads`` Panel hands every browser event to its thread pool, so two
quick changes from one page (α 0.065 then 0.07) can run at the same time in two threads.
The explorer's parameters then change concurrently, which ``param`` does not support: the
older value can win (seen in CI: the widget at 0.07, the explorer at 0.065). Wrapping the
pool in :class:`SessionOrderedExecutor` runs each session's tasks one at a time in the
order the server received them, while sessions still share the threads: one student's
heavy computation blocks nobody else, and a waiting task holds no thread.
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import Executor, Future, ThreadPoolExecutor

from bokeh.document import Document


def session_of(fn, args) -> Document | None:
    """The Bokeh document (one browser session) a task submitted by Panel belongs to: an
    argument (widget events, ``state.execute``) or the owner's ``_doc`` (periodic
    callbacks); None for anything else."""
    for arg in (*args, *getattr(fn, "args", ())):
        if isinstance(arg, Document):
            return arg
    doc = getattr(getattr(fn, "__self__", None), "_doc", None)
    return doc if isinstance(doc, Document) else None


class SessionOrderedExecutor(Executor):
    """``pool`` with the tasks of each session run one at a time, in submission order.

    Panel submits from the server's event loop in the order the events arrived; a session
    with a task running queues the next one, and the thread that runs the session's tasks
    takes it when it is done. Tasks that belong to no session go to ``pool`` directly.
    """

    def __init__(self, pool: ThreadPoolExecutor):
        self.pool = pool
        self._lock = threading.Lock()
        self._queues: dict[Document, deque] = {}  # sessions with a task running

    def submit(self, fn, /, *args, **kwargs) -> Future:
        session = session_of(fn, args)
        if session is None:
            return self.pool.submit(fn, *args, **kwargs)
        future = Future()
        with self._lock:
            queue = self._queues.get(session)
            if queue is not None:  # its running task's thread takes this one next
                queue.append((future, fn, args, kwargs))
                return future
            self._queues[session] = deque([(future, fn, args, kwargs)])
        self.pool.submit(self._run_session, session)
        return future

    def _run_session(self, session: Document) -> None:
        while True:
            with self._lock:
                queue = self._queues[session]
                if not queue:
                    del self._queues[session]
                    return
                future, fn, args, kwargs = queue.popleft()
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as exc:  # noqa: BLE001 - handed to the future
                    future.set_exception(exc)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.pool.shutdown(wait=wait, cancel_futures=cancel_futures)


def order_sessions() -> None:
    """Wrap Panel's thread pool (if any, and once) in a :class:`SessionOrderedExecutor`."""
    from panel.io.state import state

    pool = state._thread_pool
    if pool is not None and not isinstance(pool, SessionOrderedExecutor):
        state._thread_pool = SessionOrderedExecutor(pool)
