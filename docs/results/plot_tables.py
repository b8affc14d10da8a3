"""Render the stored reproduction tables of this folder as PNG figures, with the plot code of
``kmeviz reproduce`` (``kmeviz.viz.figures``): ``python docs/results/plot_tables.py``.

The tables were made by the commands listed in README.md (often with more draws than
``kmeviz reproduce`` uses); a figure whose rows come from two runs says so in its file.
"""

from pathlib import Path

import pandas as pd

from kmeviz.experiments.figures import FIGURES, with_exact_series
from kmeviz.viz.figures import save_png

HERE = Path(__file__).parent


PLOTS = {
    # png name: (figure spec, tables concatenated)
    "ksd_fig1b_laplace_all": ("nksd-fig1b", ["ksd_fig1b_laplace.csv",
                                             "ksd_fig1b_competitors.csv"]),
    "ksd_fig1c_student_t_authors": ("nksd-fig1c", ["ksd_fig1c_student_t_authors.csv"]),
    "ksd_fig1d_rbm": ("nksd-fig1d", ["ksd_fig1d_rbm.csv"]),
    "fastmmd_fig8b_with_pearson": ("fastmmd-fig8b", ["fastmmd_fig8b.csv",
                                                     "fastmmd_fig8b_pearson.csv"]),
    "fastmmd_fig6_kernel_family": ("fastmmd-fig6", ["fastmmd_fig6_kernel_family.csv"]),
    "nystrom_fig1": ("nystrom-fig1", ["nystrom_fig1.csv"]),
    "cme_fig1_pendulum": ("cme-fig1", ["cme_fig1_pendulum.csv"]),
    "mmdagg_power_blobs": ("mmdagg-power", ["mmdagg_power_blobs.csv"]),
}


def main() -> None:
    for name, (figure, files) in PLOTS.items():
        table = pd.concat([pd.read_csv(HERE / f) for f in files], ignore_index=True)
        table = table.drop(columns=[c for c in table.columns if c.startswith("Unnamed")])
        if figure == "fastmmd-fig6":
            table = with_exact_series(table)
        if figure == "mmdagg-power":  # the plotted series; the CSV keeps every single σ
            table = table[table["kind"] != "single σ"]
        save_png(FIGURES[figure], table, HERE / f"{name}.png")
        print(f"{name}.png from {', '.join(files)}")


if __name__ == "__main__":
    main()
