"""The notebook sources are not Python test modules: pytest's doctest collection must not
import (and so run) them. ``pytest --nbval-lax`` runs them as notebooks through
``tests/nbval_course.py`` (this folder's ``jupytext.toml`` marks it as a course)."""

collect_ignore_glob = ["[0-9][0-9]_*.py"]
