"""Project metadata stays consistent: environment.yml vs pyproject, README commands."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

import kmeviz

ROOT = Path(__file__).resolve().parents[1]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement.strip(), maxsplit=1)[0].lower()


def test_environment_yml_lists_the_same_packages_as_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in project["dependencies"]}
    for extra in ("test", "dev", "dask", "apps", "reproduce"):
        wanted |= {_name(r) for r in project["optional-dependencies"][extra]}
    wanted.discard("kmeviz")
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    listed = {_name(d) for d in env["dependencies"] if isinstance(d, str)}
    listed -= {"python", "pip"}
    assert listed == wanted, {
        "only in environment.yml": listed - wanted,
        "only in pyproject.toml": wanted - listed,
    }
    assert "conda-forge" in env["channels"]


def test_environment_yml_pins_match_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = project["dependencies"] + [
        r for e in ("test", "dev", "dask", "apps", "reproduce")
        for r in project["optional-dependencies"][e]
    ]
    # conda-forge's dask package brings what pip's dask[array,distributed] extras do
    pins = {_name(r): re.sub(r"\[.*?\]", "", r.replace(" ", "")) for r in reqs
            if _name(r) != "kmeviz"}
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    for dep in env["dependencies"]:
        if isinstance(dep, str) and _name(dep) in pins:
            assert dep.replace(" ", "") == pins[_name(dep)]


def test_readme_opens_with_the_two_setup_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```(?:bash|sh)\n(.*?)```", readme, flags=re.S)
    assert len(blocks) >= 2
    serve_cmd, test_cmd = blocks[0].strip(), blocks[1].strip()
    assert "kmeviz serve" in serve_cmd and "pip install" in serve_cmd
    assert "pytest" in test_cmd and "pip install" in test_cmd
    assert test_cmd in (ROOT / ".ci" / "run").read_text()


def test_console_script_and_apps_are_registered():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["kmeviz"] == "kmeviz_apps.cli:main"
    from kmeviz.apps import EXPLORERS, explorer_class

    assert "circular" in EXPLORERS
    assert all(callable(explorer_class(slug).create_app) for slug in EXPLORERS)


def test_readme_example_runs_and_prints_what_it_says(capsys):
    readme = (ROOT / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", readme, flags=re.S).group(1)
    assert len(code.strip().splitlines()) <= 10
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out.split("\n")
    # The comments quote values to 4 significant digits: check them to half a unit of the
    # last digit, so round-off from another CPU passes and a changed estimator does not.
    quoted = [float(v) for v in re.findall(r"# .*?(0\.\d{4,})", code)]
    assert float(out[0]) == pytest.approx(quoted[0], abs=5e-7)  # exact biased MMD²
    assert float(out[1]) == pytest.approx(quoted[1], abs=5e-7)  # FastMMD-Fourier, L = 4096
    p_value, reject = out[3].split()
    assert float(p_value) == pytest.approx(1 / 1001, rel=1e-12) and reject == "True"


def _has_dask() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


def test_every_python_block_of_the_readme_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a block may write a file, as a user would
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert len(blocks) >= 2
    before = kmeviz.get_config()
    try:
        for code in blocks[1:]:  # the first one is checked value by value above
            if "from distributed import" in code and not _has_dask():
                continue  # "Scaling out" needs the dask extra (tests/test_dask.py)
            exec(compile(code, "README.md", "exec"), {})
    finally:
        kmeviz.set_config(**before)


def test_ruff_finds_nothing_in_code_tests_apps_and_notebook_sources():
    """ruff (rules in pyproject.toml) lints the notebook sources like any other code."""
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "kmeviz", "apps",
                          "tests", "notebooks", "benchmarks", "docs"],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:]
    assert "01_mmd_and_circular_discrepancy.py" in subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--show-files", "notebooks"],
        cwd=ROOT, capture_output=True, text=True).stdout  # the .py sources are linted


def test_every_subpackage_is_installed():
    """A non-editable install ships exactly the packages listed in pyproject.toml."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "kmeviz").rglob(
        "__init__.py")}
    assert found <= listed and "kmeviz_apps" in listed


def test_one_version_source():
    """pyproject takes the version from kmeviz.__version__; the docs import it; the
    citation file states the same."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "kmeviz.__version__"}
    assert "release = kmeviz.__version__" in (ROOT / "docs" / "conf.py").read_text()
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert str(cff["version"]) == kmeviz.__version__
    assert (ROOT / "kmeviz" / "py.typed").exists()
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["kmeviz"]
