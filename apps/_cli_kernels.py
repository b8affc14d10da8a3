"""``kmeviz compare --independence``'s kernel of each column group: ``--kernel-x``,
``--kernel-y`` and their bandwidths, else the routes' shared choice (``group_kernels``)."""

from __future__ import annotations

from kmeviz.kernels.categorical import CategoricalKernel
from kmeviz.kernels.choices import KERNEL_CHOICES, kernel_by_name
from kmeviz.loading.paired import group_kernels

#: --kernel-x / --kernel-y: every registered kernel (``kmeviz.kernels.choices``), and the
#: categorical kernel (no scale)
KERNELS = (*KERNEL_CHOICES, "categorical")


def add_kernel_options(parser) -> None:
    """The per-group kernel options of ``kmeviz compare``."""
    for group in ("x", "y"):
        parser.add_argument(f"--kernel-{group}", choices=sorted(KERNELS), metavar="K",
                            help=f"with --independence: the kernel of --{group}'s columns "
                                 f"({', '.join(sorted(KERNELS))}; default: categorical for "
                                 "text, yes/no and few-level integer columns, else Gaussian "
                                 "at the median heuristic)")
        parser.add_argument(f"--bandwidth-{group}", type=float, metavar="S",
                            help=f"with --independence: the scale > 0 of --kernel-{group} "
                                 "(a bandwidth, IMQ's c; default: the median heuristic)")


def chosen_kernels(args, report, X, Y) -> list:
    """(kernel of X, kernel of Y): the options where given, else ``group_kernels``."""
    defaults = group_kernels(report, X, Y)
    out = []
    for group, default in zip("xy", defaults, strict=True):
        name, sigma = getattr(args, f"kernel_{group}"), getattr(args, f"bandwidth_{group}")
        if sigma is not None and not sigma > 0:
            raise ValueError(f"--bandwidth-{group} must be > 0, got {sigma:g}")
        if name is None and sigma is None:
            out.append(default)
            continue
        if name == "categorical" or (name is None and isinstance(default, CategoricalKernel)):
            if sigma is not None:
                raise ValueError(f"--bandwidth-{group}: the categorical kernel has no "
                                 f"bandwidth (give --kernel-{group} one of "
                                 f"{', '.join(KERNEL_CHOICES)})")
            out.append(CategoricalKernel())
            continue
        if sigma is None:
            sigma = getattr(default, "bandwidth", None)
            if sigma is None:
                raise ValueError(f"--kernel-{group} {name}: give --bandwidth-{group} (the "
                                 "columns are partly categorical: no median heuristic)")
        out.append(kernel_by_name(name or "gaussian", sigma))
    return out


def check_kernel_options(args) -> None:
    """The kernel options belong to ``--independence`` (one line otherwise)."""
    given = [f"--{name.replace('_', '-')}" for name in
             ("kernel_x", "kernel_y", "bandwidth_x", "bandwidth_y")
             if getattr(args, name) is not None]
    if given and not args.independence:
        raise ValueError(f"{' and '.join(given)} choose the kernels of --independence")
