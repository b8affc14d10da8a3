"""Every deprecated name, argument and module path of kmeviz, in one module.

They keep working until kmeviz 0.3 (CHANGELOG.md) and warn once per process with a
``DeprecationWarning`` that points at the caller's line. ``kmeviz/__init__.py`` calls
``install()`` last; removing the deprecations is deleting this file and that call. Nothing
in kmeviz, its apps, notebooks or tests (but the tests of these shims) uses them:
``tests/test_deprecations.py`` runs the suite's imports with the warnings as errors.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.util
import sys
import warnings

import numpy as np

from .distributions.mixture import GaussianMixture
from .embeddings.kme import NystromKME
from .gof.ksd import nystrom_stein
from .results import TestResult
from .twosample.mmd import mmd2_nystrom

#: Removal version, as the CHANGELOG says.
REMOVED_IN = "0.3"

#: Module paths before the layout by concept -> their new homes.
OLD_MODULES = {
    "kmeviz.embedding": "kmeviz.embeddings",
    "kmeviz.features": "kmeviz.embeddings.features",
    "kmeviz.spectrum": "kmeviz.embeddings.spectrum",
    "kmeviz.mmd": "kmeviz.twosample.mmd",
    "kmeviz.circular": "kmeviz.twosample.circular",
    "kmeviz.bootstrap": "kmeviz.twosample.test",
    "kmeviz.stein": "kmeviz.gof.ksd",
    "kmeviz.goodness_of_fit": "kmeviz.gof.test",
    "kmeviz.targets": "kmeviz.distributions.targets",
    "kmeviz.datasets": "kmeviz.distributions.datasets",
    "kmeviz.gof_experiments": "kmeviz.experiments.ksd",
}

#: "module:qualname" of a function or method -> {old keyword: new keyword}.
RENAMED_ARGUMENTS = {
    "kmeviz.twosample.test:mmd_test": {"n_permutations": "n_resamples"},
    "kmeviz.twosample.mmd:mmd2_fastmmd": {"method": "features"},
    "kmeviz.gof.test:ksd_test": {"n_bootstrap": "n_resamples", "method": "estimator"},
    "kmeviz.embeddings.baselines:KernelHerding.__init__": {"n_points": "n_landmarks"},
    "kmeviz.experiments.nystrom:nystrom_error_vs_m": {"n_trials": "n_repeats"},
    "kmeviz.experiments.ksd:ksd_power": {"n_bootstrap": "n_resamples"},
    "kmeviz.experiments.ksd:ksd_runtime_vs_n": {"n_bootstrap": "n_resamples"},
    "kmeviz.experiments.fastmmd:fastmmd_type2_vs_L": {"n_permutations": "n_resamples",
                                                      "n_trials": "n_repeats"},
    "kmeviz.experiments.fastmmd:type2_vs_epsilon": {"n_permutations": "n_resamples",
                                                    "n_trials": "n_repeats"},
    "kmeviz.experiments.fastmmd:size_table": {"n_permutations": "n_resamples"},
}

#: ("module:qualname", keyword) -> {old value: {keyword: new value, ...}}.
RENAMED_VALUES = {
    ("kmeviz.gof.ksd:ksd2", "estimator"): {"v": {"estimator": "biased"},
                                           "u": {"estimator": "unbiased"}},
    ("kmeviz.twosample.test:mmd_test", "estimator"): {
        "fastmmd-fourier": {"estimator": "fastmmd", "features": "fourier"},
        "fastmmd-fastfood": {"estimator": "fastmmd", "features": "fastfood"},
        "nystrom": {"estimator": "pooled-nystrom"}},
}

#: Methods whose ``rng`` became keyword-only (it was the first positional after n).
RNG_KEYWORD_ONLY = ("kmeviz.distributions.pendulum:Pendulum.transitions",)

_WARNED: set[str] = set()


def warn_deprecated(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn once per process that ``old`` is deprecated in favour of ``new``; the warning
    points at the user's line (``stacklevel`` frames up from here)."""
    if old not in _WARNED:
        _WARNED.add(old)
        warnings.warn(f"{old} is deprecated and will be removed in kmeviz {REMOVED_IN}; "
                      f"use {new}", DeprecationWarning, stacklevel=stacklevel)


def _resolve(target: str):
    module, qualname = target.split(":")
    owner = importlib.import_module(module)
    *path, name = qualname.split(".")
    for part in path:
        owner = getattr(owner, part)
    return owner, name, getattr(owner, name)


def _label(fn) -> str:
    if fn.__name__ == "__init__":
        return fn.__qualname__.split(".")[0]
    return fn.__qualname__


def _with_old_keywords(fn, renames: dict, values: dict):
    label = _label(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        for old, new in renames.items():
            if old in kwargs:
                if kwargs.get(new) is not None:
                    raise TypeError(f"{label}: give {new}= only ({old}= is its deprecated "
                                    "name)")
                warn_deprecated(f"{label}({old}=...)", f"{new}=")
                kwargs[new] = kwargs.pop(old)
        for keyword, table in values.items():
            value = kwargs.get(keyword)
            if isinstance(value, str) and value in table:
                replacement = table[value]
                new = ", ".join(f"{k}={v!r}" for k, v in replacement.items())
                warn_deprecated(f"{label}({keyword}={value!r})", new)
                kwargs.update(replacement)
        return fn(*args, **kwargs)

    return wrapper


def _with_positional_rng(fn):
    label = _label(fn)

    @functools.wraps(fn)
    def wrapper(self, n, *positional, **kwargs):
        if positional:
            warn_deprecated(f"{label}(n, rng) with rng by position", f"{fn.__name__}(n, rng=...)")
            kwargs["rng"] = positional[0]
        return fn(self, n, **kwargs)

    return wrapper


def _replace_everywhere(original, replacement) -> None:
    """Rebind every kmeviz module attribute that is ``original`` (the defining module and
    the packages that re-export it) to ``replacement``."""
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith("kmeviz"):
            continue
        for attr, value in list(vars(module).items()):
            if value is original:
                setattr(module, attr, replacement)


def _wrap_callables() -> None:
    targets = set(RENAMED_ARGUMENTS) | {t for t, _ in RENAMED_VALUES} | set(RNG_KEYWORD_ONLY)
    for target in sorted(targets):
        owner, name, original = _resolve(target)
        values = {kw: table for (t, kw), table in RENAMED_VALUES.items() if t == target}
        wrapped = original
        if target in RNG_KEYWORD_ONLY:
            wrapped = _with_positional_rng(wrapped)
        if target in RENAMED_ARGUMENTS or values:
            wrapped = _with_old_keywords(wrapped, RENAMED_ARGUMENTS.get(target, {}), values)
        if isinstance(owner, type):
            setattr(owner, name, wrapped)
        else:
            _replace_everywhere(original, wrapped)


# -- removed names, still importable ----------------------------------------------------
def mmd_nystrom(X, Y, kernel, *, n_landmarks=None, n_landmarks_y=None, rng=None) -> float:
    """Deprecated: the Nyström MMD itself, ``sqrt(mmd2_nystrom(...))``.

    Chatalic et al. 2022, Sec. 5 (Thm 5.1).
    """
    warn_deprecated("mmd_nystrom", "mmd2_nystrom (it returns MMD², like every mmd2_*)")
    return float(np.sqrt(mmd2_nystrom(X, Y, kernel, n_landmarks=n_landmarks,
                                      n_landmarks_y=n_landmarks_y, rng=rng)))


def GaussianMixtureTarget(means, scales, weights=None):  # noqa: N802 - the old class name
    """Deprecated: ``GaussianMixture(means, scales**2, weights)``, the one mixture class
    (weights are normalised here as before).

    The mixture of Chatalic et al. 2022, App. G.
    """
    warn_deprecated("GaussianMixtureTarget(means, scales, weights)",
                    "GaussianMixture(means, variances=scales**2, weights)")
    means = np.atleast_2d(np.asarray(means, dtype=float))
    scales = np.broadcast_to(np.asarray(scales, dtype=float), (means.shape[0],))
    if np.any(scales <= 0):
        raise ValueError("scales must be > 0")
    w = (np.full(len(scales), 1.0 / len(scales)) if weights is None
         else np.broadcast_to(np.asarray(weights, dtype=float), (len(scales),)))
    if np.any(w < 0) or w.sum() <= 0:
        raise ValueError("weights must be >= 0 with a positive sum")
    return GaussianMixture(means, scales**2, w / w.sum())


class NystromStein(NystromKME):
    """Deprecated: use ``nystrom_stein`` (a ``NystromKME`` of the Stein kernel).

    Kalinke et al. Lemma 1.
    """

    def __init__(self, X, target, kernel, *, n_landmarks=None, landmarks=None, rng=None,
                 signs=None, working_memory: int | None = None):
        warn_deprecated("NystromStein", "nystrom_stein(X, target, kernel, ...), a "
                        "NystromKME of the Stein kernel")
        fitted = nystrom_stein(X, target, kernel, n_landmarks=n_landmarks,
                               landmarks=landmarks, rng=rng, project=signs,
                               working_memory=working_memory)
        self.__dict__.update(fitted.__dict__)
        self.stein, self._X = fitted.kernel, np.asarray(X, dtype=float)
        self.landmarks, self.beta = fitted.landmark_indices_, fitted.mean_map_
        self.R = fitted.factor_
        self.projected_signs = getattr(fitted, "projected_", None)
        self.weights = fitted.weights_
        self.statistic = fitted.squared_norm()

    def project(self, W):
        return nystrom_stein(self._X, self.stein.target, self.stein.kernel,
                             landmarks=self.landmarks, project=W).projected_

    witness = NystromKME.evaluate


#: module -> {old name: the object it still gives}
REMOVED_NAMES = {
    "kmeviz": {"mmd_nystrom": mmd_nystrom, "GaussianMixtureTarget": GaussianMixtureTarget},
    "kmeviz.twosample": {"mmd_nystrom": mmd_nystrom},
    "kmeviz.twosample.mmd": {"mmd_nystrom": mmd_nystrom},
    "kmeviz.distributions": {"GaussianMixtureTarget": GaussianMixtureTarget},
    "kmeviz.distributions.targets": {"GaussianMixtureTarget": GaussianMixtureTarget},
    "kmeviz.gof": {"NystromStein": NystromStein},
    "kmeviz.gof.ksd": {"NystromStein": NystromStein},
}

#: module -> {name: its new home}: names that moved to another module.
MOVED_NAMES = {
    "kmeviz.conditional": {"Pendulum": "kmeviz.distributions",
                           "sparsity_path": "kmeviz.experiments",
                           "coefficient_test_loss": "kmeviz.experiments.cme"},
}

def _module_getattr(module_name: str):
    removed, moved = REMOVED_NAMES.get(module_name, {}), MOVED_NAMES.get(module_name, {})

    def __getattr__(name):  # noqa: N807 - PEP 562 module attribute hook
        if name in moved:
            warn_deprecated(f"{module_name}.{name}", f"{moved[name]}.{name}")
            return getattr(importlib.import_module(moved[name]), name)
        if name in removed:
            return removed[name]
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    return __getattr__


def _install_module_getattrs() -> None:
    for module_name in {**REMOVED_NAMES, **MOVED_NAMES}:
        module = importlib.import_module(module_name)
        module.__getattr__ = _module_getattr(module_name)


class _OldModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name in OLD_MODULES:
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        warn_deprecated(f"the module {spec.name}", OLD_MODULES[spec.name])
        module = importlib.import_module(OLD_MODULES[spec.name])
        sys.modules[spec.name] = module
        return module

    def exec_module(self, module):
        pass


def _test_result_method(self) -> str:
    warn_deprecated("TestResult.method", "TestResult.estimator")
    return self.estimator


def install() -> None:
    """Make every deprecated path work: wrap the renamed arguments, add the removed names
    and old module paths, and ``TestResult.method``. Called once by ``kmeviz``."""
    _wrap_callables()
    _install_module_getattrs()
    TestResult.method = property(_test_result_method, doc="Deprecated name of ``estimator``.")
    if not any(isinstance(f, _OldModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(_OldModuleFinder())
