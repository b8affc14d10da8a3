"""Distributions: targets known through their score (``targets``), the papers' data
generators (``datasets``) and the pendulum (``pendulum``)."""


from .datasets import (
    blobs,
    blobs_two_sample,
    nyc_taxi,
    perturbed_uniform_two_sample,
    rings_two_sample,
    two_coordinates_two_sample,
    uniform_boxes_two_sample,
)
from .empirical import EmpiricalDistribution
from .mixture import GaussianMixture
from .pendulum import (
    Pendulum,
)
from .targets import (
    GaussBernoulliRBM,
    NormalTarget,
    StudentTTarget,
)

__all__ = [
    "EmpiricalDistribution",
    "GaussianMixture",
    "GaussBernoulliRBM",
    "NormalTarget",
    "Pendulum",
    "StudentTTarget",
    "blobs",
    "blobs_two_sample",
    "two_coordinates_two_sample",
    "perturbed_uniform_two_sample",
    "nyc_taxi",
    "rings_two_sample",
    "uniform_boxes_two_sample",
]
