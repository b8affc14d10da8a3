"""The kernels offered by name: the explorers' kernel menus and the command line's
``--kernel-x``/``--kernel-y`` options read this one registry, so a kernel registered
here (with the factory of its one scale parameter) appears in both.

Example
-------
>>> from kmeviz.kernels.choices import KERNEL_CHOICES, kernel_by_name
>>> kernel_by_name("laplace", 2.0)
LaplaceKernel(bandwidth=2.0)
>>> [choice.label for choice in KERNEL_CHOICES.values()][:2]
['Gaussian', 'Laplace']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..registry import simple_table
from .base import Kernel
from .radial import GaussianKernel, IMQKernel, LaplaceKernel


@dataclass(frozen=True)
class KernelChoice:
    """A kernel offered by name: ``name`` on the command line, ``label`` in the menus,
    ``factory(scale)`` builds it from its one scale parameter (a bandwidth, IMQ's c)."""

    name: str
    label: str
    factory: Callable[[float], Kernel]
    scale: str = "bandwidth"


#: name -> KernelChoice, in the order the menus list them
KERNEL_CHOICES: dict[str, KernelChoice] = {}


def register_kernel(name: str, label: str, factory: Callable[[float], Kernel], *,
                    scale: str = "bandwidth") -> KernelChoice:
    """Offer a kernel by ``name`` (command line) and ``label`` (menus): the explorers'
    kernel menus, ``kmeviz compare --kernel-x NAME`` and ``kernel_by_name``'s table read
    it. A ValueError if ``label`` is taken by another kernel.

    Parameters
    ----------
    name, label : str
    factory : callable
        ``factory(scale)`` builds the kernel from its one scale parameter.
    scale : str
        The scale's name in tables and menus ("bandwidth", IMQ's "c").

    Returns
    -------
    KernelChoice
    """
    for choice in KERNEL_CHOICES.values():
        if choice.name != name and choice.label == label:
            raise ValueError(f"the label {label!r} is taken by kernel {choice.name!r}")
    choice = KERNEL_CHOICES[name] = KernelChoice(name, label, factory, scale)
    _document()
    return choice


def kernel_by_name(name: str, scale: float) -> Kernel:
    """The kernel registered as ``name`` (a name or a label) at ``scale``: what the
    explorers' kernel menus and ``kmeviz compare --kernel-x NAME`` build.

    Parameters
    ----------
    name : str
        A registered name (command line) or label (menus).
    scale : float
        Its one scale parameter (a bandwidth σ, IMQ's c).

    Returns
    -------
    Kernel

    {registered kernels}
    """
    for choice in KERNEL_CHOICES.values():
        if name in (choice.name, choice.label):
            return choice.factory(scale)
    raise ValueError(f"unknown kernel {name!r}; the kernels are: "
                     f"{', '.join(KERNEL_CHOICES)}")


def kernels_table() -> str:
    """The registered kernels as a reStructuredText table: name, label, scale, class and
    capabilities (``Kernel.capabilities``), as the docs show them."""
    rows = [("name", "label", "scale", "kernel", "capabilities")]
    for choice in KERNEL_CHOICES.values():
        kernel = choice.factory(1.0)
        offers = ", ".join(flag.name.lower().replace("_", "-") for flag in type(
            kernel.capabilities) if flag.value and flag in kernel.capabilities)
        rows.append((choice.name, choice.label, choice.scale, type(kernel).__name__,
                     offers or "-"))
    return simple_table(rows)


_TEMPLATE = kernel_by_name.__doc__


def _document() -> None:
    """``kernel_by_name``'s docstring with the table of what is registered now."""
    table = "\n".join(["Notes", "-----", "The registered kernels:", "", kernels_table()])
    kernel_by_name.__doc__ = _TEMPLATE.replace("{registered kernels}",
                                               table.replace("\n", "\n    "))


def kernel_labels() -> dict[str, Callable[[float], Kernel]]:
    """label -> factory, as the explorers' menus offer them."""
    return {choice.label: choice.factory for choice in KERNEL_CHOICES.values()}


register_kernel("gaussian", "Gaussian", GaussianKernel)
register_kernel("laplace", "Laplace", LaplaceKernel)
register_kernel("imq", "IMQ (β = −1/2)", lambda c: IMQKernel(c, -0.5), scale="c")
