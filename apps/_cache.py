"""A cache the sessions of a served dashboard can share.

``functools.lru_cache`` is not enough once callbacks run in a thread pool: two sessions
that ask for the same key at once compute it twice, and the cached arrays are mutable,
so one session could change another's data. ``shared_cache`` is a bounded LRU cache
that computes each key once (other threads wait for it) and returns results whose numpy
arrays are read-only.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections import OrderedDict, namedtuple

import numpy as np

CacheInfo = namedtuple("CacheInfo", "hits misses maxsize currsize")


def freeze(value):
    """Make every numpy array reachable from ``value`` read-only (in place), return it."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, (tuple, list)):
        for item in value:
            freeze(item)
    elif isinstance(value, dict):
        for item in value.values():
            freeze(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            freeze(getattr(value, field.name))
    elif type(value).__module__.startswith("kmeviz") and hasattr(value, "__dict__"):
        for item in vars(value).values():  # kmeviz result objects (pandas tables are left)
            freeze(item)
    return value


def shared_cache(maxsize: int = 16):
    """Decorator: a thread-safe LRU cache of at most ``maxsize`` results, keyed on the
    (hashable) arguments, each key computed once, results frozen. ``cache_info()`` and
    ``cache_clear()`` as in ``functools.lru_cache``."""

    def decorate(fn):
        results: OrderedDict = OrderedDict()
        running: dict = {}
        lock = threading.Lock()
        counts = {"hits": 0, "misses": 0}

        @functools.wraps(fn)
        def cached(*args, **kwargs):
            key = (args, tuple(sorted(kwargs.items())))
            while True:
                with lock:
                    if key in results:
                        results.move_to_end(key)
                        counts["hits"] += 1
                        return results[key]
                    done = running.get(key)
                    if done is None:
                        running[key] = done = threading.Event()
                        counts["misses"] += 1
                        break
                done.wait()  # another session is computing this key: use its result
            try:
                value = freeze(fn(*args, **kwargs))
                with lock:
                    results[key] = value
                    while len(results) > maxsize:
                        results.popitem(last=False)
                return value
            finally:
                with lock:
                    running.pop(key, None)
                done.set()

        def cache_info() -> CacheInfo:
            with lock:
                return CacheInfo(counts["hits"], counts["misses"], maxsize, len(results))

        def cache_clear() -> None:
            with lock:
                results.clear()
                counts.update(hits=0, misses=0)

        cached.cache_info, cached.cache_clear = cache_info, cache_clear
        return cached

    return decorate
