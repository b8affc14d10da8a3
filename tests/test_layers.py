"""The dependency arrows point one way: core ← viz ← apps and notebooks.

Checked from real imports: each module is imported in a fresh interpreter and
``sys.modules`` is read afterwards (a regex over the source would miss indirect imports).
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import kmeviz

PLOTTING = {"panel", "holoviews", "bokeh"}
APPS = {"kmeviz_apps", "apps"}
#: the notebooks' door to the explorers: a module of the apps layer in kmeviz's namespace
FACADE = "kmeviz.apps"
CORE = sorted(m.name for m in pkgutil.walk_packages(kmeviz.__path__, "kmeviz.")
              if m.name not in ("kmeviz.viz", FACADE) and not m.name.startswith("kmeviz.viz."))


def loaded_after_import(module: str) -> set[str]:
    """Top-level packages and kmeviz modules in ``sys.modules`` after ``import module``."""
    code = (f"import sys, json, {module}; "
            "print(json.dumps(sorted({m if m.startswith('kmeviz') else m.split('.')[0] "
            "for m in sys.modules})))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return set(json.loads(run.stdout))


def test_import_kmeviz_loads_no_plotting_library_and_no_app():
    loaded = loaded_after_import("kmeviz")
    assert not loaded & (PLOTTING | APPS), loaded & (PLOTTING | APPS)
    assert "kmeviz.viz" not in loaded


def test_every_core_module_stays_below_viz_and_apps():
    """Every core module imported in one fresh interpreter loads no plotting library, no
    app and not ``kmeviz.viz`` (one interpreter per module took 62 s; they all load
    ``kmeviz`` first anyway). When one does, each module alone names the culprit."""
    assert len(CORE) > 10
    upward = PLOTTING | APPS | {"kmeviz.viz", FACADE}
    if not loaded_after_import(", ".join(CORE)) & upward:
        return
    with ThreadPoolExecutor(4) as pool:
        for module, loaded in zip(CORE, pool.map(loaded_after_import, CORE), strict=True):
            assert not loaded & upward, (module, loaded)


def test_kmeviz_apps_is_the_apps_layer_by_a_plain_import():
    """``kmeviz.apps`` imports ``kmeviz_apps`` by an import statement (an edge that the
    layer tests see, not an ``importlib`` call), so it is counted with the apps; the test
    above shows that no core module reaches it."""
    loaded = loaded_after_import(FACADE)
    assert "kmeviz_apps" in loaded and "panel" not in loaded  # explorers load on first use
    import kmeviz_apps

    import kmeviz.apps

    assert kmeviz.apps.EXPLORERS is kmeviz_apps.EXPLORERS
    assert kmeviz.apps.BootstrapExplorer is kmeviz_apps.explorer_class("bootstrap")


def test_viz_imports_holoviews_but_no_panel_and_no_app():
    loaded = loaded_after_import("kmeviz.viz")
    assert "holoviews" in loaded and not loaded & ({"panel"} | APPS), loaded


def test_the_lint_report_lists_what_breaks_the_house_sizes(tmp_path, monkeypatch):
    """The module-size and function-size rules are a report (``python -m
    tests.lint_report``), not failures: it lists a long module and a long function, and
    exits 1 only with --strict."""
    from tests import lint_report

    (tmp_path / "kmeviz").mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(90))
    padding = "\n".join(f"# {i}" for i in range(320))
    (tmp_path / "kmeviz" / "big.py").write_text(f'def f():\n    """Doc."""\n{body}\n'
                                                 f"{padding}\n")
    (tmp_path / "kmeviz" / "small.py").write_text("x = 1\n")
    monkeypatch.setattr(lint_report, "ROOT", tmp_path)
    assert lint_report.long_modules() == {"kmeviz/big.py": 412}
    assert lint_report.long_functions() == {"kmeviz/big.py:f": 90}
    monkeypatch.setattr(lint_report, "explorers_with_few_plots", lambda: {})
    assert lint_report.main([]) == 0 and lint_report.main(["--strict"]) == 1
