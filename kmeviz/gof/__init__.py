"""Goodness of fit: KSD² and Nyström KSD² (``ksd``) and the tests (``test``)."""


from .ksd import (
    ksd2,
    ksd2_nystrom,
    nystrom_stein,
    stein_witness,
)
from .test import (
    WildSigns,
    ksd_test,
    wild_signs,
)

__all__ = [
    "WildSigns",
    "ksd2",
    "ksd2_nystrom",
    "ksd_test",
    "nystrom_stein",
    "stein_witness",
    "wild_signs",
]
