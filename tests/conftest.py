"""Shared fixtures; the browser fixtures live in tests/ui/conftest.py."""

import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def small_pair(rng):
    """A small two-sample problem with unequal sizes."""
    return rng.normal(size=(13, 3)), rng.normal(0.3, 1.2, size=(9, 3))
