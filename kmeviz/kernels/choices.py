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
    """Offer a kernel by ``name`` (command line) and ``label`` (menus); a ValueError if
    either is taken by another kernel."""
    for choice in KERNEL_CHOICES.values():
        if choice.name != name and choice.label == label:
            raise ValueError(f"the label {label!r} is taken by kernel {choice.name!r}")
    choice = KERNEL_CHOICES[name] = KernelChoice(name, label, factory, scale)
    return choice


def kernel_by_name(name: str, scale: float) -> Kernel:
    """The kernel registered as ``name`` (a name or a label) at ``scale``."""
    for choice in KERNEL_CHOICES.values():
        if name in (choice.name, choice.label):
            return choice.factory(scale)
    raise ValueError(f"unknown kernel {name!r}; the kernels are: "
                     f"{', '.join(KERNEL_CHOICES)}")


def kernel_labels() -> dict[str, Callable[[float], Kernel]]:
    """label -> factory, as the explorers' menus offer them."""
    return {choice.label: choice.factory for choice in KERNEL_CHOICES.values()}


register_kernel("gaussian", "Gaussian", GaussianKernel)
register_kernel("laplace", "Laplace", LaplaceKernel)
register_kernel("imq", "IMQ (β = −1/2)", lambda c: IMQKernel(c, -0.5), scale="c")
