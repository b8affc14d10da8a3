"""A wide upload served (issue 61, finding 2): a table of 9 999 columns and 4 rows held
the server's event loop 16.9 s, and another student's page waited. Measured by a probe:
requests to the same server every 50 ms while the table is uploaded, read and offered."""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request

from playwright.sync_api import expect

from ..browser import running_server
from ..test_wide_upload import wide_csv
from .test_data_app import open_data, upload


class LoopProbe:
    """Answer times of a request the server answers on its event loop (a 404: no page
    is built), every 50 ms in a thread, until ``stop``."""

    def __init__(self, url: str):
        self.url, self.times, self._stop = url + "kmeviz-loop-probe", [], threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            start = time.monotonic()
            try:
                urllib.request.urlopen(self.url, timeout=60).read()
            except urllib.error.HTTPError:
                pass  # the 404 is the answer
            self.times.append(time.monotonic() - start)
            time.sleep(0.05)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def test_a_table_of_9999_columns_is_offered_without_holding_the_loop(browser):
    with running_server() as url:
        page = browser.new_context().new_page()
        open_data(page, url)
        with LoopProbe(url) as probe:
            upload(page, {"name": "wide.csv", "mimeType": "text/csv",
                          "buffer": wide_csv(9999, rows=4)})
            expect(page.locator(".kmeviz-upload-ok")).to_contain_text(
                "4 rows, 9,999 columns", timeout=60_000)
            expect(page.locator(".kmeviz-summary")).to_contain_text("9998 columns",
                                                                    timeout=60_000)
            page.wait_for_timeout(3000)  # the views and the comparison start
        expect(page.get_by_text("Find columns").first).to_be_visible()
        worst = max(probe.times)
        print(f"\nloop probe during the upload: {len(probe.times)} requests, worst "
              f"{worst:.2f} s, median {sorted(probe.times)[len(probe.times) // 2]:.3f} s")
        assert len(probe.times) > 20 and worst < 0.5, probe.times
