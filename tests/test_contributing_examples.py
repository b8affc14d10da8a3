"""The three changes CONTRIBUTING.md walks through — a Matérn kernel, a two-sample test
with its own option, a new explorer page — are kept as diffs in ``docs/contributing``
(issue 57). Each still applies to the code as it is, touches at most 3 files, and its own
tests pass on a copy of the repository with it applied."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "contributing"
#: diff -> the tests that show it works (its own, and the registry's readers it joins)
CHECKS = {
    "matern_kernel.diff": ["tests/test_matern.py", "tests/test_kernel_choices.py"],
    "energy_test.diff": ["tests/test_energy.py", "tests/test_registry.py",
                         "tests/test_compare.py"],
    "explorer_page.diff": ["tests/test_apps.py", "tests/test_links.py", "-k", "kernels"],
}


def tracked_copy(target: Path) -> None:
    """The repository's tracked files (its working copy of them), copied to ``target``."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file() and not name.startswith("docs/_"):
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


@pytest.fixture(scope="module")
def repository(tmp_path_factory):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a git checkout")
    base = tmp_path_factory.mktemp("repository")
    tracked_copy(base)
    return base


@pytest.mark.parametrize("diff", sorted(CHECKS))
def test_each_example_applies_touches_at_most_3_files_and_passes_its_tests(diff, repository,
                                                                           tmp_path):
    text = (EXAMPLES / diff).read_text()
    files = re.findall(r"^diff --git a/(\S+) b/", text, flags=re.M)
    assert 1 <= len(files) <= 3, files
    copy = tmp_path / "kmeviz-copy"
    shutil.copytree(repository, copy)
    applied = subprocess.run(["git", "apply", "--whitespace=nowarn", str(EXAMPLES / diff)],
                             cwd=copy, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stderr
    (copy / "kmeviz_apps").symlink_to(copy / "apps")  # the copy's apps, not the installed
    env = {**os.environ, "PYTHONPATH": str(copy)}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-m", "not slow", "-p",
                          "no:cacheprovider",
                          "-o", "addopts=", *CHECKS[diff]], cwd=copy, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert re.search(r"\d+ passed", run.stdout), run.stdout[-500:]
