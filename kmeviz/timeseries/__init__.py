"""Rows in time order: the check of serial dependence every i.i.d. null runs first
(``serial``), and the nulls that hold under it (``nulls``), registered for MMD, KSD and
HSIC in ``tests``."""

from .serial import (
    ROWS,
    SerialCheck,
    SerialDependenceWarning,
    ljung_box,
    serial_dependence,
)

__all__ = ["ROWS", "SerialCheck", "SerialDependenceWarning", "ljung_box",
           "serial_dependence"]
