"""The conditional question and the dependence map of "Your data" in real Chromium
(issue 56, point 6): on an uploaded table, the page shows the command line's numbers; a
text column is offered and used; a row of the map opens its pair; the file's markup
stays text throughout."""

from __future__ import annotations

import re
import time

import numpy as np
import pandas as pd
from playwright.sync_api import expect

from kmeviz.distributions.causal import causal_structure
from kmeviz.results import p_value_text
from tests.test_compare_cli import kmeviz

from .helpers import TIMEOUT, show_tab, widget
from .test_data_app import open_data, upload
from .test_data_trust import assert_no_markup, csv_file

BOLD = "<b>bold</b>"
#: the numeric columns in the order that makes the page's defaults X = (x, noise, BOLD),
#: Y = y (the last numeric column), Z = z (the one before it)
COLUMNS = ["x", "noise", BOLD, "z", "y"]


def fork_frame(n: int = 200) -> pd.DataFrame:
    x, y, z = causal_structure("fork", n, link="sine", rng=11)
    rng = np.random.default_rng(12)
    frame = pd.DataFrame({"x": x[:, 0], "noise": rng.normal(size=n),
                          BOLD: rng.normal(size=n), "z": z[:, 0], "y": y[:, 0]})
    frame["site"] = np.where(z[:, 0] + 0.5 * rng.normal(size=n) > 0, "north", "south")
    return frame


def shown(page, table: str, field: str, count: int) -> list[str]:
    cells = page.locator(f"{table} .tabulator-cell[tabulator-field='{field}']")
    expect(cells.nth(count - 1)).to_be_visible(timeout=TIMEOUT)
    return [t.strip() for t in cells.all_inner_texts()]


def settles_to(page, table: str, field: str, expected: list, timeout: float = 60) -> None:
    """Wait until the column ``field`` of ``table`` reads ``expected`` (a table being
    refilled passes through other values)."""
    deadline, texts = time.monotonic() + timeout, []
    while time.monotonic() < deadline:
        texts = [t.strip() for t in page.locator(
            f"{table} .tabulator-cell[tabulator-field='{field}']").all_inner_texts()]
        if texts == expected:
            return
        time.sleep(0.3)
    raise AssertionError(f"{field} reads {texts}, expected {expected}")


def cli_table(tmp_path, frame, *args) -> pd.DataFrame:
    path, out = tmp_path / "fork.csv", tmp_path / "out.csv"
    frame.to_csv(path, index=False)
    done = kmeviz(path, *args, "--out", out, "--overwrite")
    assert done.returncode == 0, done.stderr
    return pd.read_csv(out)


def ask(page, question: str) -> None:
    widget(page, "Question").locator("select").select_option(label=question)


def test_the_conditional_question_shows_the_command_lines_numbers(page, server_url,
                                                                   tmp_path):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    frame = fork_frame()
    open_data(page, server_url)
    ask(page, "Are X and Y independent given Z?")
    upload(page, csv_file("fork.csv", frame))
    summary = page.locator(".kmeviz-summary")
    expect(summary).to_contain_text("Z = Z (z): 200 rows", timeout=TIMEOUT)
    expect(summary).to_contain_text(f"X = X (x, noise, {BOLD})")
    cli = cli_table(tmp_path, frame, "--conditional", "--x", "x", "noise", BOLD, "--y", "y",
                    "--z", "z")
    expect(page.locator(".kmeviz-effect")).to_contain_text("conditional normalised HSIC",
                                                           timeout=60_000)
    settles_to(page, ".kmeviz-comparison", "p_value",
               [p_value_text(p, 1000) for p in cli["p_value"]])
    # the text column, offered for Z and used as a label
    z_widget = widget(page, "Z: columns")
    z_widget.locator(".choices").click()
    z_widget.locator(".choices__item--choice", has_text=re.compile(r"^\s*site\s*$")).click()
    expect(summary).to_contain_text("Z = Z (z, site)", timeout=TIMEOUT)
    cli = cli_table(tmp_path, frame, "--conditional", "--x", "x", "noise", BOLD, "--y", "y",
                    "--z", "z", "site")
    settles_to(page, ".kmeviz-comparison", "p_value",
               [p_value_text(p, 1000) if p == p else "" for p in cli["p_value"]])
    show_tab(page, "Witness")  # the residuals given Z: a plot, not a message
    expect(page.locator(".kmeviz-plots canvas").first).to_be_visible(timeout=TIMEOUT)
    expect(page.locator(".kmeviz-plots .kmeviz-error")).to_have_count(0)
    assert_no_markup(page, dialogs)
    expect(page.get_by_text("Traceback")).to_have_count(0)


def test_the_dependence_map_shows_the_command_lines_numbers_and_opens_a_pair(
        page, server_url, tmp_path):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    frame = fork_frame()
    open_data(page, server_url)
    upload(page, csv_file("fork.csv", frame))
    expect(page.locator(".kmeviz-upload-ok")).to_contain_text("Loaded fork",
                                                              timeout=TIMEOUT)
    ask(page, "Which columns depend on which? (map)")
    expect(page.locator(".kmeviz-map-summary")).to_contain_text("10 pairs, 200 rows",
                                                                timeout=60_000)
    cli = cli_table(tmp_path, frame, "--dependence-map", "--columns", *COLUMNS)
    cli = cli.sort_values(["effect", "p_value"], ascending=[False, True])
    effects = shown(page, ".kmeviz-map-table", "effect", len(cli))
    assert effects == [f"{v:.3f}" for v in cli["effect"]]
    assert shown(page, ".kmeviz-map-table", "p_bh", len(cli)) == [
        p_value_text(p, 0) for p in cli["p_bh"]]
    firsts = shown(page, ".kmeviz-map-table", "x", len(cli))
    assert BOLD in firsts or BOLD in shown(page, ".kmeviz-map-table", "y", len(cli))
    expect(page.locator(".kmeviz-plots canvas").first).to_be_visible(timeout=TIMEOUT)
    assert_no_markup(page, dialogs)
    # a row opens its pair with every independence test
    top = (cli["x"].iloc[0], cli["y"].iloc[0])
    page.locator(".kmeviz-map-table .tabulator-row").first.click()
    summary = page.locator(".kmeviz-summary")
    expect(summary).to_contain_text(f"X = X ({top[0]})", timeout=TIMEOUT)
    expect(summary).to_contain_text(f"Y = Y ({top[1]})")
    expect(page.locator(".kmeviz-comparison .tabulator-cell",
                        has_text=re.compile(r"^\s*hsicagg/"))).to_be_visible(timeout=60_000)
    assert_no_markup(page, dialogs)
    expect(page.get_by_text("Traceback")).to_have_count(0)


def test_a_real_table_uploaded_gives_the_command_lines_numbers_for_both_questions(
        page, server_url, tmp_path):
    """The Palmer penguins as a user's CSV: given flipper length, do the bills depend on
    body mass? And the map of its four measurements. The page's defaults are the
    command's columns (Y the last numeric column, Z the one before)."""
    import kmeviz as K

    frame = K.load_dataset("penguins")
    open_data(page, server_url)
    upload(page, csv_file("penguins.csv", frame))
    expect(page.locator(".kmeviz-upload-ok")).to_contain_text("Loaded penguins",
                                                              timeout=TIMEOUT)
    ask(page, "Are X and Y independent given Z?")
    expect(page.locator(".kmeviz-summary")).to_contain_text(
        "Z = Z (flipper_length_mm): 342 rows", timeout=TIMEOUT)
    cli = cli_table(tmp_path, frame, "--conditional", "--x", "bill_length_mm",
                    "bill_depth_mm", "--y", "body_mass_g", "--z", "flipper_length_mm")
    settles_to(page, ".kmeviz-comparison", "p_value",
               [p_value_text(p, 1000) for p in cli["p_value"]])
    ask(page, "Which columns depend on which? (map)")
    cli = cli_table(tmp_path, frame, "--dependence-map", "--columns", "bill_length_mm",
                    "bill_depth_mm", "flipper_length_mm", "body_mass_g")
    cli = cli.sort_values(["effect", "p_value"], ascending=[False, True])
    settles_to(page, ".kmeviz-map-table", "effect", [f"{v:.3f}" for v in cli["effect"]])
    expect(page.get_by_text("Traceback")).to_have_count(0)


def test_the_pc_graph_of_an_upload_draws_and_a_test_opens(page, server_url, tmp_path):
    """Issue 58: the PC graph of an uploaded table, the tests it ran in the table with
    `kmeviz discover`'s p-values, and a test given a set opening the conditional
    question on it."""
    import json

    frame = fork_frame()[["x", "noise", "z", "y"]]
    open_data(page, server_url)
    upload(page, csv_file("fork.csv", frame))
    expect(page.locator(".kmeviz-upload-ok")).to_contain_text("Loaded fork",
                                                              timeout=TIMEOUT)
    ask(page, "What causes what? (PC graph)")
    expect(page.locator(".kmeviz-map-summary")).to_contain_text("CI tests", timeout=60_000)
    path, out = tmp_path / "fork.csv", tmp_path / "graph.json"
    frame.to_csv(path, index=False)
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "kmeviz_apps", "discover", str(path),
                           "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    cli = json.loads(out.read_text())
    settles_to(page, ".kmeviz-map-table", "p_value",
               [p_value_text(t["p_value"], 0) for t in cli["tests"]])
    expect(page.locator(".kmeviz-plots canvas").first).to_be_visible(timeout=TIMEOUT)
    given = next(k for k, t in enumerate(cli["tests"]) if t["given"])
    page.locator(".kmeviz-map-table .tabulator-row").nth(given).click()
    test = cli["tests"][given]
    expect(page.locator(".kmeviz-summary")).to_contain_text(
        f"Z = Z ({', '.join(test['given'])})", timeout=TIMEOUT)
    expect(page.get_by_text("Traceback")).to_have_count(0)
