"""Conditional mean embeddings as regressors (Grünewälder et al. 2012): the CME and its
cross-validation (``cme``) and sparse CMEs (``sparse``)."""


from .cme import (
    ConditionalMeanEmbedding,
    cross_validate,
)
from .sparse import (
    SparseCMEResult,
    incomplete_cholesky,
    kl_norm2,
    low_rank_cme_coefficients,
    sparse_cme,
)

__all__ = [
    "ConditionalMeanEmbedding",
    "SparseCMEResult",
    "cross_validate",
    "incomplete_cholesky",
    "kl_norm2",
    "low_rank_cme_coefficients",
    "sparse_cme",
]

#: Names that lived here before the layout by concept: importable for one release.
_MOVED = {"Pendulum": "kmeviz.distributions", "sparsity_path": "kmeviz.experiments",
          "coefficient_test_loss": "kmeviz.experiments.cme"}


def __getattr__(name):
    if name in _MOVED:
        import importlib

        from ..results import warn_deprecated

        warn_deprecated(f"kmeviz.conditional.{name}", f"{_MOVED[name]}.{name}")
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module 'kmeviz.conditional' has no attribute {name!r}")
