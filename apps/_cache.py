"""A cache the sessions of a served dashboard can share.

``functools.lru_cache`` is not enough once callbacks run in a thread pool: two sessions
that ask for the same key at once compute it twice, and cached values are mutable, so one
session could change another's data. ``shared_cache`` is a bounded LRU cache that
computes each key once (other threads wait for it) and shares only values no session can
change: numpy arrays backed by immutable bytes (``setflags(write=True)`` fails), dicts as
read-only mappings, lists as tuples, and a fresh copy of a pandas table for each reader.
Keys are typed: ``1``, ``1.0`` and ``True`` are three keys.

Why not Panel's ``pn.cache`` (issue 57 asked): in Panel 1.9 it computes a missing key
outside its lock, so sessions asking at once each compute it (a class of 100 opening a
page computed its data 100 times), it returns the cached object itself (mutable arrays
shared between sessions), and a session waiting for a key cannot stop at its own time
budget. ``tests/test_app_server.py`` has a canary that fails once ``pn.cache`` computes a
key once for concurrent callers: then this module should give way to it.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import threading
import types
from collections import OrderedDict, namedtuple

import numpy as np
import pandas as pd

from kmeviz.budget import check_budget

CacheInfo = namedtuple("CacheInfo", "hits misses maxsize currsize")


def frozen_array(array: np.ndarray) -> np.ndarray:
    """A read-only copy whose memory is an immutable ``bytes`` object, so that no holder can
    make it writable again (an array owning its memory could be)."""
    if array.dtype.hasobject:
        array = array.copy()
        array.flags.writeable = False
        return array
    data = np.ascontiguousarray(array).tobytes()
    return np.frombuffer(data, dtype=array.dtype).reshape(array.shape)


def freeze(value):
    """An immutable version of ``value`` for sharing between sessions: arrays as
    ``frozen_array``, dicts as read-only mappings, lists and tuples as tuples (named tuples
    keep their type), frozen dataclasses rebuilt with frozen fields, kmeviz objects
    copied with frozen attributes (the caller's object never changes); pandas tables are
    copied for each reader (``share``)."""
    if isinstance(value, np.ndarray):
        return frozen_array(value)
    if isinstance(value, (dict, types.MappingProxyType)):
        return types.MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, tuple) and hasattr(value, "_make"):
        return value._make(freeze(v) for v in value)
    if isinstance(value, (tuple, list)):
        return tuple(freeze(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: freeze(getattr(value, f.name)) for f in dataclasses.fields(value)
                  if f.init}
        return dataclasses.replace(value, **fields)
    if type(value).__module__.startswith("kmeviz") and hasattr(value, "__dict__"):
        value = copy.copy(value)  # fitted estimators: a copy with frozen attributes
        for name, item in vars(value).items():
            setattr(value, name, freeze(item))
    return value


def share(value):
    """What a reader of the cache gets: the frozen value, with a copy of each pandas table
    (a DataFrame cannot be made read-only)."""
    if isinstance(value, (pd.DataFrame, pd.Series)):
        return value.copy(deep=True)
    if isinstance(value, types.MappingProxyType):
        if not any(isinstance(v, (pd.DataFrame, pd.Series, tuple, types.MappingProxyType))
                   for v in value.values()):
            return value
        return types.MappingProxyType({k: share(v) for k, v in value.items()})
    if isinstance(value, tuple):
        items = [share(v) for v in value]
        return value._make(items) if hasattr(value, "_make") else tuple(items)
    return value


def typed_key(value):
    """``value`` with the type of every part, so that 1, 1.0 and True differ as keys."""
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(typed_key(v) for v in value))
    return (type(value).__name__, value)


def shared_cache(maxsize: int = 16, key=None):
    """Decorator: a thread-safe LRU cache of at most ``maxsize`` results, keyed on the
    (hashable) arguments, or on ``key(*args, **kwargs)`` when given; each key computed
    once, results frozen. A failure is never cached: a computation stopped by its
    session's time budget (a moment of load, a closed page) is tried again by the next
    caller, and a caller waiting for another's computation stops at its own budget.
    ``cache_info()`` and ``cache_clear()`` as in ``functools.lru_cache``."""

    def decorate(fn):
        results: OrderedDict = OrderedDict()
        running: dict = {}
        lock = threading.Lock()
        counts = {"hits": 0, "misses": 0}

        @functools.wraps(fn)
        def cached(*args, **kwargs):
            k = (typed_key(args), typed_key(tuple(sorted(kwargs.items())))) if key is None \
                else typed_key(key(*args, **kwargs))
            while True:
                with lock:
                    if k in results:
                        results.move_to_end(k)
                        counts["hits"] += 1
                        return share(results[k])
                    done = running.get(k)
                    if done is None:
                        running[k] = done = threading.Event()
                        counts["misses"] += 1
                        break
                while not done.wait(0.1):  # another session computes this key: wait,
                    check_budget()  # within this caller's own budget
            try:
                value = freeze(fn(*args, **kwargs))
                with lock:
                    results[k] = value
                    while len(results) > maxsize:
                        results.popitem(last=False)
                return share(value)
            finally:
                with lock:
                    running.pop(k, None)
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
