"""``kmeviz --help`` and ``kmeviz compare --help`` read as text: no reStructuredText
backticks from the docstrings (issue 44)."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize("args", [["--help"], ["compare", "--help"]])
def test_help_has_no_rst_backticks(args):
    done = subprocess.run([sys.executable, "-m", "kmeviz_apps", *args], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and "``" not in done.stdout
    assert "kmeviz" in done.stdout
