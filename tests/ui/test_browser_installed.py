"""Without Chromium the browser tests are skipped and this one test fails with one line."""

import pytest

from .conftest import MISSING, chromium_installed


def test_chromium_is_installed():
    if not chromium_installed():
        pytest.fail(MISSING, pytrace=False)
