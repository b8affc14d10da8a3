"""Causal discovery from kernel CI tests: the PC algorithm (``pc``), background
knowledge, and the graphs it works on (d-separation, CPDAGs, Meek's rules)."""

from .graph import d_separated, dag_to_cpdag, random_dag
from .knowledge import Knowledge
from .pc import PCResult, pc

__all__ = ["Knowledge", "PCResult", "d_separated", "dag_to_cpdag", "pc", "random_dag"]
