"""Screenshots of the "Your data" explorer with an uploaded real table (the Palmer
penguins saved as a CSV, as a researcher has it): ``python docs/data_screenshots.py``
writes docs/your_data/{table,aggregated_null,export,gof}.png at a 1200 px window, and
the downloaded CSV as docs/your_data/export.csv (needs chromium)."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository's tests/
import kmeviz as K  # noqa: E402
from tests.browser import CHROMIUM, CHROMIUM_ARGS, running_server  # noqa: E402

OUT = Path(__file__).parent / "your_data"


def wait_for_rows(page, count: int) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        texts = page.locator('.tabulator-cell[tabulator-field="p_value"]').all_inner_texts()
        if sum(1 for t in texts if t.strip()) >= count:
            return
        time.sleep(0.3)
    raise RuntimeError("the table did not fill")


def main() -> None:
    OUT.mkdir(exist_ok=True)
    csv = Path(tempfile.mkdtemp()) / "penguins.csv"
    K.load_dataset("penguins").query("species != 'Gentoo'").to_csv(csv, index=False)
    with running_server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 1300},
                                accept_downloads=True)
        page.goto(url + "data")
        expect(page.locator(".kmeviz-summary")).to_be_visible(timeout=60_000)
        wait_for_rows(page, 10)
        page.locator("input[type=file]").set_input_files(str(csv))
        expect(page.locator(".kmeviz-summary")).to_contain_text("read penguins",
                                                                timeout=60_000)
        wait_for_rows(page, 10)
        time.sleep(3)
        page.screenshot(path=str(OUT / "table.png"), full_page=True)
        page.locator('.tabulator-cell[tabulator-field="test"]',
                     has_text="mmdagg/permutation").click()
        time.sleep(4)
        page.screenshot(path=str(OUT / "aggregated_null.png"), full_page=True)
        with page.expect_download() as download:
            page.locator(".kmeviz-download").get_by_text("Download").click()
        download.value.save_as(OUT / "export.csv")
        page.locator(".kmeviz-download").scroll_into_view_if_needed()
        page.screenshot(path=str(OUT / "export.png"), full_page=True)
        page.locator(".bk-input-group").filter(has_text="Question").locator(
            "select").select_option(label="Is X normal? (fitted normal)")
        expect(page.locator(".kmeviz-summary")).to_contain_text("goodness of fit",
                                                                timeout=60_000)
        wait_for_rows(page, 5)
        page.locator('.tabulator-cell[tabulator-field="test"]',
                     has_text="full/wild-bootstrap").click()
        time.sleep(4)
        page.screenshot(path=str(OUT / "gof.png"), full_page=True)
        browser.close()
    print("wrote", *sorted(OUT.iterdir()))


if __name__ == "__main__":
    main()
