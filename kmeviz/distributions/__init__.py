"""Distributions: targets known through their score (``targets``), the papers' data
generators (``datasets``) and the pendulum (``pendulum``)."""


from .datasets import (
    blobs,
    blobs_two_sample,
    rings_two_sample,
    uniform_boxes_two_sample,
)
from .mixture import GaussianMixture
from .pendulum import (
    Pendulum,
)
from .targets import (
    GaussBernoulliRBM,
    GaussianMixtureTarget,
    NormalTarget,
    StudentTTarget,
)

__all__ = [
    "GaussianMixture",
    "GaussBernoulliRBM",
    "GaussianMixtureTarget",
    "NormalTarget",
    "Pendulum",
    "StudentTTarget",
    "blobs",
    "blobs_two_sample",
    "rings_two_sample",
    "uniform_boxes_two_sample",
]
