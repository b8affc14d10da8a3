"""Independence: HSIC and its tests (Gretton et al. 2005, 2008), the large-scale
versions of Zhang et al. 2018, HSICAgg (Albert et al. 2022) and dHSIC (Pfister et al.
2018)."""

from .aggregated import hsicagg_kernels
from .compare import compare_independence
from .dependence_map import benjamini_hochberg, dependence_map
from .effect import DependenceEffect, dependence_effect_size
from .hsic import KernelPair
from .joint import dhsic_test
from .measures import hsic, hsic_witness
from .tests import VALID_INDEPENDENCE_NULLS, hsic_test

# isort: split
from ..registry import import_every_module

import_every_module(__name__, __path__)  # HSICAggInc, and any other module's tests

__all__ = ["DependenceEffect", "KernelPair", "VALID_INDEPENDENCE_NULLS", "compare_independence",
           "benjamini_hochberg", "dependence_effect_size",
           "dependence_map",
           "dhsic_test",
           "hsic", "hsic_test", "hsic_witness", "hsicagg_kernels"]
