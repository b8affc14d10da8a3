"""The "Your data" explorer in real Chromium: uploads, a bundled data set, and two
sessions that never see each other's data."""

import re
import time

import numpy as np
import pandas as pd
from playwright.sync_api import expect

import kmeviz as K

from .helpers import TIMEOUT, widget


def TABLE_TESTS(registry):  # the tests a comparison's table runs (i.i.d. rows)
    return K.compare.selected_tests(registry, "all")


P_VALUES = '.tabulator-cell[tabulator-field="p_value"]'


def csv_upload(name: str, *, column: str = "a", shift: float = 1.5, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(80, 3)), columns=[column, "b", "c"])
    frame["arm"] = np.repeat(["treated", "control"], 40)
    frame.loc[frame.arm == "treated", column] += shift
    return {"name": name, "mimeType": "text/csv", "buffer": frame.to_csv(index=False).encode()}


def p_values(page, count: int = 10) -> list[float]:
    """Wait until at least ``count`` rows of the table show a p-value; return them (a
    p-value below what its replicates resolve reads "< 0.001": its bound is returned)."""
    deadline, values = time.monotonic() + 60, []
    while time.monotonic() < deadline:
        texts = page.locator(P_VALUES).all_inner_texts()
        values = [float(m.group(1)) for t in texts
                  if (m := re.fullmatch(r"<?\s*([-+0-9.e]+)", t.strip()))]
        if len(values) >= count:
            return values
        time.sleep(0.2)
    raise AssertionError(f"the table shows {len(values)} p-values")


def upload(page, *files) -> None:
    page.locator("input[type=file]").set_input_files(list(files))


def open_data(page, server_url) -> None:
    page.goto(server_url + "data")
    expect(page.locator(".kmeviz-summary")).to_be_visible(timeout=60_000)
    p_values(page)  # the default comparison (penguins) has filled the table


def test_an_uploaded_csv_fills_the_table_with_p_values(page, server_url):
    open_data(page, server_url)
    upload(page, csv_upload("trial.csv"))
    expect(page.locator(".kmeviz-summary")).to_contain_text("X = treated: 40 rows; Y = "
                                                            "control: 40 rows", timeout=TIMEOUT)
    values = p_values(page, len(TABLE_TESTS(K.MMD_TESTS)))  # equal sizes: every test runs
    assert all(0 < v <= 1 for v in values) and min(values) < 0.05  # the shift is seen
    expect(page.locator(".kmeviz-upload-ok")).to_contain_text("80 rows, 4 columns")
    expect(page.locator(".kmeviz-summary")).to_contain_text("read trial")
    expect(page.get_by_text("Traceback")).to_have_count(0)


def test_a_malformed_upload_shows_the_loader_message_and_the_next_one_works(page, server_url):
    open_data(page, server_url)
    upload(page, {"name": "broken.csv", "mimeType": "text/csv",
                  "buffer": b"arm,a\ntreated,1\ncontrol,2,3,4\n"})
    expect(page.locator(".kmeviz-upload-error")).to_contain_text(
        "could not be read as a table: Error tokenizing data", timeout=TIMEOUT)
    expect(page.get_by_text("Traceback")).to_have_count(0)
    page.wait_for_timeout(1000)
    upload(page, csv_upload("fixed.csv"))
    expect(page.locator(".kmeviz-upload-ok")).to_contain_text("Loaded fixed",
                                                              timeout=TIMEOUT)
    expect(page.locator(".kmeviz-summary")).to_contain_text("X = treated", timeout=TIMEOUT)
    p_values(page, len(TABLE_TESTS(K.MMD_TESTS)))


def test_a_bundled_real_data_set_can_be_picked(page, server_url):
    open_data(page, server_url)
    widget(page, "Data").locator("select").select_option(
        "NYC taxi pickups (weekday against weekend)")
    expect(page.locator(".kmeviz-summary")).to_contain_text(
        "X = weekday: 6264 rows; Y = weekend: 2520 rows", timeout=TIMEOUT)
    assert len(p_values(page, 5)) >= 5  # the paired tests need m = n: their rows say so
    expect(page.locator(".tabulator-cell", has_text="needs samples of equal size").first
           ).to_be_visible(timeout=TIMEOUT)
    notes = page.locator('.tabulator-cell[tabulator-field="note"]')
    # every test has its row
    expect(notes).to_have_count(len(TABLE_TESTS(K.MMD_TESTS)), timeout=TIMEOUT)


def test_what_one_session_uploads_never_appears_in_another(browser, server_url):
    first, second = browser.new_page(), browser.new_page()
    open_data(first, server_url)
    open_data(second, server_url)
    upload(first, csv_upload("private.csv", column="secretcolumn"))
    expect(first.locator(".kmeviz-summary")).to_contain_text("secretcolumn", timeout=TIMEOUT)
    p_values(first, len(TABLE_TESTS(K.MMD_TESTS)))
    assert "upload" not in first.url and "secret" not in first.url  # nothing in the link
    second.reload()
    expect(second.locator(".kmeviz-summary")).to_be_visible(timeout=60_000)
    p_values(second)
    assert "secretcolumn" not in second.content()
    assert "private.csv" not in second.content()
    expect(second.locator(".kmeviz-summary")).to_contain_text("Adelie")
    first.close()
    second.close()


def test_the_independence_question_fills_the_table_with_the_hsic_tests(page, server_url):
    open_data(page, server_url)
    widget(page, "Question").locator("select").select_option(
        "Are X's and Y's columns independent?")
    expect(page.locator(".kmeviz-summary")).to_contain_text("kernels: X: Gaussian",
                                                            timeout=TIMEOUT)
    expect(page.locator('.tabulator-cell[tabulator-field="test"]').filter(
        has_text="hsicagg/wild-bootstrap")).to_have_count(1, timeout=TIMEOUT)
    values = p_values(page, len(TABLE_TESTS(K.INDEPENDENCE_TESTS)))
    assert max(values) < 0.05  # the penguins' body mass depends on their bills
    expect(page.get_by_text("Traceback")).to_have_count(0)


def series_upload() -> dict:
    """Two independent AR(1) series (φ = 0.9) with a date column, rows shuffled."""
    from scipy import signal

    rng = np.random.default_rng(17)
    x, y = (signal.lfilter([1.0], [1.0, -0.9], rng.normal(size=500))[200:] for _ in "xy")
    frame = pd.DataFrame({"day": pd.date_range("2001-01-01", periods=300).astype(str),
                          "x": x, "y": y}).sample(frac=1.0, random_state=1)
    return {"name": "series.csv", "mimeType": "text/csv",
            "buffer": frame.to_csv(index=False).encode()}


def test_a_time_series_upload_is_tested_in_time_order_with_the_note(page, server_url):
    """Issue 55: an upload without a group column is one sample for the independence
    question; sorted by its date column, its rows are serially dependent and the table
    says so; 'exchangeable' silences the note; 'a time series' runs the time-series tests."""
    open_data(page, server_url)
    widget(page, "Question").locator("select").select_option(
        label="Are X's and Y's columns independent?")
    upload(page, series_upload())
    expect(page.locator(".kmeviz-upload-ok")).to_contain_text("one sample", timeout=TIMEOUT)
    widget(page, "Time column").locator("select").select_option("day")
    note = page.locator(".kmeviz-many-tests")
    expect(note).to_contain_text("Serial dependence", timeout=60_000)
    expect(page.locator(".tabulator-cell", has_text="not trusted").first).to_be_visible(
        timeout=TIMEOUT)
    widget(page, "Rows").locator("select").select_option(label="exchangeable (i.i.d.)")
    expect(page.locator(".tabulator-cell", has_text="biased/gamma")).to_be_visible(
        timeout=60_000)
    expect(note).not_to_contain_text("Serial dependence", timeout=60_000)
    widget(page, "Rows").locator("select").select_option(label="a time series, in order")
    expect(page.locator(".tabulator-cell", has_text="dependent-wild-bootstrap")).to_be_visible(
        timeout=60_000)
    expect(page.get_by_text("Traceback")).to_have_count(0)
