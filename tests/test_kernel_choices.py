"""One kernel registry (``kmeviz.kernels.choices``) feeds the explorers' kernel menus and
the command line's ``--kernel-x``/``--kernel-y`` (issue 57): a kernel registered there
appears in both, with no other file changed."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from kmeviz.kernels.choices import KERNEL_CHOICES, kernel_by_name, register_kernel

MATERN = textwrap.dedent('''
    import numpy as np
    from kmeviz.kernels.base import RadialKernel
    from kmeviz.kernels.choices import register_kernel

    class Matern32(RadialKernel):
        def __init__(self, bandwidth):
            self.bandwidth = bandwidth

        def __repr__(self):
            return f"Matern32(bandwidth={self.bandwidth})"

        def radial(self, sq):
            r = np.sqrt(3 * np.maximum(sq, 0)) / self.bandwidth
            return (1 + r) * np.exp(-r)

    register_kernel("matern32", "Matérn 3/2", Matern32)
''')


def test_the_registry_builds_each_kernel_by_name_or_label():
    assert list(KERNEL_CHOICES)[:3] == ["gaussian", "laplace", "imq"]
    assert repr(kernel_by_name("Gaussian", 1.5)) == "GaussianKernel(bandwidth=1.5)"
    assert kernel_by_name("imq", 2.0).c == 2.0
    with pytest.raises(ValueError, match="unknown kernel 'matern'.*gaussian, laplace"):
        kernel_by_name("matern", 1.0)
    with pytest.raises(ValueError, match="label 'Gaussian' is taken"):
        register_kernel("other", "Gaussian", lambda s: None)


def test_a_kernel_registered_once_is_in_every_menu_and_on_the_command_line(tmp_path):
    """In a fresh process (the registry is per process): register a Matérn 3/2 kernel, then
    the explorers offer it and ``kmeviz compare --kernel-x matern32`` runs with it; the
    Stein explorer, whose tests need derivatives, does not (``KernelCapability``)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    x = rng.standard_normal(120)
    pd.DataFrame({"a": x, "b": x + rng.standard_normal(120)}).to_csv(tmp_path / "t.csv",
                                                                      index=False)
    script = MATERN + textwrap.dedent(f'''
        from kmeviz.kernels.radial import GaussianKernel
        register_kernel("wide", "Wide Gaussian", lambda s: GaussianKernel(2 * s))
        from kmeviz_apps.bootstrap_explorer import BootstrapExplorer
        from kmeviz_apps.circular_explorer import CircularExplorer
        from kmeviz_apps import cli
        for explorer in (BootstrapExplorer, CircularExplorer):
            assert "Matérn 3/2" in explorer.param["kernel"].objects, explorer
        # the Stein explorer offers the kernels that give derivatives (capabilities)
        from kmeviz_apps.stein_explorer import SteinExplorer

        assert "Matérn 3/2" not in SteinExplorer.param["kernel"].objects
        assert SteinExplorer.param["kernel"].objects == ["IMQ", "Gaussian", "Wide Gaussian"]
        code = cli.main(["compare", {str(tmp_path / "t.csv")!r}, "--independence",
                         "--x", "a", "--y", "b", "--kernel-x", "matern32",
                         "--bandwidth-x", "1.0", "--tests", "biased/gamma"])
        assert code == 0, code
    ''')
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Matern32(bandwidth=1.0)" in run.stdout and "biased/gamma" in run.stdout
