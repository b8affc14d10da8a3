"""Old module paths (before the layout by concept) keep working for one release.

``import kmeviz.bootstrap`` and the like load the module's new home and warn once; see
``OLD_MODULES`` for the map.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

from .results import warn_deprecated

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


if not any(isinstance(f, _OldModuleFinder) for f in sys.meta_path):
    sys.meta_path.append(_OldModuleFinder())
