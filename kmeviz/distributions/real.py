"""Real data sets that install with kmeviz and work offline, as tables with a group column
(``kmeviz.loading.samples_from_frame`` splits them):

- ``"penguins"``: the Palmer penguins (Gorman, Williams & Fraser 2014; CC0), from the
  palmerpenguins package on PyPI, a dependency of kmeviz: bill length and depth, flipper
  length and body mass of 344 penguins, grouped by ``species`` (Adelie, Chinstrap, Gentoo);
  distinct animals stored sorted by species, island and year (``rows="iid"``: the check
  of serial dependence would see that order);
- ``"nyc-taxi"``: hourly NYC taxi pickups in 2016, shipped with HoloViews' examples
  (the ``apps`` extra): hour of day and pickup count, grouped by ``day`` (weekday,
  weekend); an hourly time series, so the check of serial dependence fires on it.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

import pandas as pd


@dataclass(frozen=True)
class RealDataset:
    """A bundled data set: how to load it and its default comparison.
    """

    name: str
    title: str
    group: str
    groups: tuple
    load: object  # () -> pandas.DataFrame
    #: what its rows are (``rows=`` of the comparisons): "iid" for distinct individuals
    #: stored in a sorted order, "check" for rows whose order may carry dependence
    rows: str = "check"


def penguins_frame() -> pd.DataFrame:
    """The Palmer penguins: species, island, sex (text) and the four body measurements.

    Returns
    -------
    pandas.DataFrame
        344 rows; columns species, island, bill_length_mm, bill_depth_mm,
        flipper_length_mm, body_mass_g, sex (the survey year is left out: it is not a
        measurement).
    """
    if importlib.util.find_spec("palmerpenguins") is None:
        raise FileNotFoundError("the penguins data ship with the palmerpenguins package "
                                "(pip install palmerpenguins)")
    from palmerpenguins import load_penguins

    return load_penguins().drop(columns=["year"], errors="ignore")


def nyc_taxi_frame() -> pd.DataFrame:
    """Hourly NYC taxi pickups in 2016 (HoloViews' examples/assets).

    Returns
    -------
    pandas.DataFrame
        8784 rows; columns hour, day_of_week, pickups and day ("weekday" or "weekend").
    """
    spec = importlib.util.find_spec("holoviews")
    path = None if spec is None else (Path(spec.origin).parent / "examples" / "assets"
                                      / "nyc_taxi.csv.gz")
    if path is None or not path.exists():
        raise FileNotFoundError("the NYC taxi data ships with holoviews' examples/assets; "
                                "it is not in this installation")
    df = pd.read_csv(path, parse_dates=["Pickup_date"])
    t = df["Pickup_date"]
    day = t.dt.day_of_week
    return pd.DataFrame({"hour": t.dt.hour, "day_of_week": day,
                         "pickups": df["Pickup_Count"],
                         "day": ["weekend" if d >= 5 else "weekday" for d in day]})


#: Name -> the bundled data sets, in the order the dashboard lists them.
REAL_DATASETS = {
    "penguins": RealDataset("penguins", "Palmer penguins (species against species)",
                            "species", ("Adelie", "Gentoo"), penguins_frame,
                            # 344 distinct animals, stored sorted by species, island and
                            # year: the check of serial dependence sees the sort order
                            rows="iid"),
    "nyc-taxi": RealDataset("nyc-taxi", "NYC taxi pickups (weekday against weekend)",
                            "day", ("weekday", "weekend"), lambda: nyc_taxi_frame().drop(
                                columns=["day_of_week"])),
}


def load_dataset(name: str) -> pd.DataFrame:
    """A bundled real data set as a table (see the module docstring).

    Parameters
    ----------
    name : {"penguins", "nyc-taxi"}

    Returns
    -------
    pandas.DataFrame
        With the group column ``REAL_DATASETS[name].group``.

    (Implements no paper equation: real data, as Chatalic et al. Sec. 6.2 uses.)
    """
    if name not in REAL_DATASETS:
        raise ValueError(f"name must be one of {', '.join(map(repr, REAL_DATASETS))}, "
                         f"got {name!r}")
    return REAL_DATASETS[name].load()
