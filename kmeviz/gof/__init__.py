"""Goodness of fit: KSD² and Nyström KSD² (``ksd``) and the tests (``ksd_tests``)."""


from .ksd import (
    ksd2,
    ksd2_nystrom,
    nystrom_stein,
    stein_witness,
)
from .ksd_tests import (
    WildSigns,
    ksd_test,
    wild_signs,
)

# isort: split
# the package registers its tests: the single-kernel ones (``ksd_tests``), then KSDAgg
from ..registry import GOF_TESTS, import_every_module

import_every_module(__name__, __path__)  # KSDAgg, KSDAggInc, and any other module's

GOF_TESTS.document(ksd_test)  # the docstring's table: every test, once all are in

__all__ = [
    "WildSigns",
    "ksd2",
    "ksd2_nystrom",
    "ksd_test",
    "nystrom_stein",
    "stein_witness",
    "wild_signs",
]
