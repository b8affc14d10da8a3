"""Hostile uploads against a served "Your data" explorer (issue 45): sizes, shapes,
encodings, archive tricks and names, each dropped into a fresh page of one `kmeviz
serve`. Every case: the page shows a message or a table and never "Something went wrong"
or a traceback; the server logs no unexpected error; once the tab closes the server is
idle within 2 s. Over the run, the server's RSS growth stays bounded (its peak is
printed).

Both tests are ``slow`` (minutes of browser work; ``pytest -m slow
tests/ui/test_upload_served_fuzz.py``): one case of each kind (32), and 200 random cases.
``KMEVIZ_UPLOAD_FUZZ_CASES`` changes the first one's count.
"""

from __future__ import annotations

import gzip
import io
import os
import time
import zipfile

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import expect

from ..browser import SERVER_LOGS, running_server, server_pid
from .test_classroom import server_cpu_seconds
from .test_data_app import open_data, upload

NAMES = ['<img src=x onerror="window.kmevizPwned=1">', "<script>window.kmevizPwned=2</script>",
         "../../etc/passwd", "\u202eevil", "a" * 300, "naïve données", "`code` **b**", "x"]
#: log lines that are not errors of kmeviz's making (a tab closed while a reply was sent)
BENIGN = ("WebSocketClosedError", "StreamClosedError", "Task exception was never retrieved",
          "Stream is closed", "closing connection")


def _npy(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue()


def _npz(**arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()


def _table(rng, rows: int, columns: int) -> pd.DataFrame:
    frame = pd.DataFrame(rng.normal(size=(rows, columns)),
                         columns=[f"c{j}" for j in range(columns)])
    return frame.assign(group=rng.choice(["a", "b"], rows))


def hostile_file(rng, kind: str) -> tuple[bytes, str]:
    """(content, extension) of one hostile file of ``kind``."""
    csv = _table(rng, int(rng.integers(4, 300)), int(rng.integers(1, 6))).to_csv(index=False)
    if kind == "random-bytes":
        return rng.bytes(int(rng.integers(1, 200_000))), str(rng.choice([".csv", ".npy", ".npz"]))
    if kind == "empty":
        return b"", ".csv"
    if kind == "header-only":
        return b"a,b,group\n", ".csv"
    if kind == "wide":  # past the column limit, from the first line
        header = ",".join(f"c{j}" for j in range(10_050))
        return (header + "\n" + "1," * 10_049 + "1\n").encode(), ".csv"
    if kind == "wide-ok":  # just under it, six rows
        return _table(rng, 6, 3000).to_csv(index=False).encode(), ".csv"
    if kind == "tall":
        return _table(rng, 60_000, 2).to_csv(index=False).encode(), ".csv"
    if kind == "too-tall":  # past --max-rows, counted as it is parsed
        return b"a\n" + b"1\n" * 1_100_000, ".csv"
    if kind == "many-cells":  # past the fuzz server's --max-cells
        return (",".join(["1"] * 600) + "\n").encode() * 1000, ".csv"
    if kind == "ragged":
        return (csv + "1,2,3,4,5,6,7,8,9\n").encode(), ".csv"
    if kind == "utf16":
        return csv.encode("utf-16"), ".csv"
    if kind == "latin1":
        return ("café,b\n" + "1,2\n" * 20).encode("latin-1"), ".csv"
    if kind == "gzip":
        return gzip.compress(csv.encode()), ".csv"
    if kind == "nul":
        return csv.encode()[:50] + b"\x00" * 20 + csv.encode()[50:], ".csv"
    if kind == "crlf-bom":
        return b"\xef\xbb\xbf" + csv.replace("\n", "\r\n").encode(), ".csv"
    if kind == "nan-inf":
        return ("a,b,group\n" + "nan,inf,a\n-inf,1,b\n" * 10).encode(), ".csv"
    if kind == "tsv":
        return csv.replace(",", "\t").encode(), ".tsv"
    if kind == "npz-bomb":
        return _npz(a=np.zeros((2_000_000, 2)), b=np.zeros((2_000_000, 2))), ".npz"
    if kind == "npz-object":
        return _npz(a=np.array([{"x": 1}, None], dtype=object)), ".npz"
    if kind == "npz-3d":
        return _npz(a=np.zeros((4, 3, 2))), ".npz"
    if kind == "npz-truncated":
        return _npz(a=rng.normal(size=(50, 2)), b=rng.normal(size=(50, 2)))[:-40], ".npz"
    if kind == "zip-not-npy":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("a.npy", b"not an array")
        return buffer.getvalue(), ".npz"
    if kind == "npz-ok":
        return _npz(x=rng.normal(size=(40, 3)), y=rng.normal(size=(30, 3)) + 1), ".npz"
    if kind == "npy-forged":  # a header claiming 10^12 values
        header = _npy(np.zeros((2, 2)))
        return header.replace(b"(2, 2)", b"(1000000, 1000000)"), ".npy"
    if kind == "npy-object":
        return _npy(np.array([1, "a"], dtype=object)), ".npy"
    if kind == "npy-ok":
        return _npy(rng.normal(size=(50, 3))), ".npy"
    # issue 61: what the parser reads, not the raw bytes
    if kind == "wide-behind-blank":  # past the column limit behind a blank first line
        header = ",".join(f"c{j}" for j in range(10_050))
        return ("\n" + header + "\n" + "1," * 10_049 + "1\n").encode(), ".csv"
    if kind == "wide-quoted-name":  # past it with a quoted line break in the first name
        header = '"c\n0",' + ",".join(f"c{j}" for j in range(1, 10_050))
        return (header + "\n" + "1," * 10_049 + "1\n").encode(), ".csv"
    if kind == "wide-9999":  # within the limits: 9 999 columns, 4 rows
        return _table(rng, 4, 9_998).to_csv(index=False).encode(), ".csv"
    if kind == "many-arrays":  # past the .npz array limit (1000)
        buffer = io.BytesIO()
        np.savez(buffer, **{f"a{k}": np.zeros((1, 2)) for k in range(3000)})
        return buffer.getvalue(), ".npz"
    if kind == "dialect":  # BOM, blank lines, quoted separators and line breaks, \r
        end = str(rng.choice(["\n", "\r\n", "\r"]))
        rows = end.join(f'{v:.3f},"x{end}y",{"ab"[k % 2]}'
                        for k, v in enumerate(rng.normal(size=40)))
        return ("\ufeff" + end + ' \t' + end + '"a,1","b""q",group' + end + rows
                + end).encode(), ".csv"
    return csv.encode(), ".csv"  # "plain"


KINDS = ["random-bytes", "empty", "header-only", "wide", "wide-ok", "tall", "too-tall",
         "many-cells", "ragged", "utf16",
         "latin1", "gzip", "nul", "crlf-bom", "nan-inf", "tsv", "npz-bomb", "npz-object",
         "npz-3d", "npz-truncated", "zip-not-npy", "npz-ok", "npy-forged", "npy-object",
         "npy-ok", "plain", "wide-behind-blank", "wide-quoted-name", "wide-9999",
         "many-arrays", "dialect", "pair-too-tall"]


#: the fuzz server's cell limit (``kmeviz serve --max-cells``): the "many-cells" file has
#: 600 000, every other readable file fewer than 200 000
MAX_CELLS = 500_000
#: its row limit (``--max-rows``): a "pair-too-tall" pair has 200 000 rows a file
MAX_ROWS = 300_000


def random_case(rng, index: int) -> list[dict]:
    """One to three files; the first cases go through every kind once."""
    kinds = [KINDS[index]] if index < len(KINDS) else list(
        rng.choice(KINDS, size=int(rng.integers(1, 4))))
    files = []
    for k, kind in enumerate(kinds):
        if kind == "pair-too-tall":  # two files within the row limit, past it together
            content, extension = b"x,y\n" + b"1.5,2.5\n" * 200_000, ".csv"
            for side in "ab":
                files.append({"name": f"{rng.choice(NAMES)}{k}{side}{extension}",
                              "mimeType": "application/octet-stream", "buffer": content})
            continue
        content, extension = hostile_file(rng, kind)
        name = f"{rng.choice(NAMES)}{k}{extension}"
        files.append({"name": name, "mimeType": "application/octet-stream", "buffer": content})
    return files[-3:]  # the box takes at most two at once; a third is refused


def rss_mb(pid: int) -> float:
    return int(open(f"/proc/{pid}/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def unexpected_log_lines(lines) -> list[str]:
    """Error lines of the log (every logged error has one, its traceback follows it; an
    exception no one caught in a thread prints "Exception in thread"), benign ones aside."""
    return [line for line in lines
            if (" ERROR " in line or line.startswith("ERROR:") or "Exception in" in line)
            and not any(benign in line for benign in BENIGN)]


def with_traceback(lines, following: int = 30) -> list[str]:
    """Each unexpected error line with the lines after it (its traceback), read while the
    log still holds them: a failure says what raised, not only that something did."""
    lines = list(lines)
    return ["\n".join(lines[k:k + following]) for k, line in enumerate(lines)
            if unexpected_log_lines([line])]


def run_fuzz(browser, cases: int) -> None:
    rng = np.random.default_rng(45)
    with running_server(args=("--max-upload-mb", "8", "--max-cells", str(MAX_CELLS),
                              "--max-rows", str(MAX_ROWS))) as url:
        pid = server_pid(int(url.rsplit(":", 1)[1].strip("/")))
        start_rss, peak, failures, errors = rss_mb(pid), 0.0, [], set()
        for index in range(cases):
            files = random_case(rng, index)
            page = browser.new_context().new_page()
            open_data(page, url)
            upload(page, *files)
            message = page.locator(".kmeviz-upload-ok, .kmeviz-upload-error, "
                                   ".kmeviz-upload-note")
            expect(message.first).to_be_visible(timeout=60_000)
            page.wait_for_timeout(1500)  # the views and the comparison of what was read
            shown = page.locator("body").inner_text()
            if "Something went wrong" in shown or "Traceback" in shown or page.evaluate(
                    "() => window.kmevizPwned !== undefined"):
                failures.append((index, [f["name"][:40] for f in files], "page"))
            page.context.close()
            time.sleep(2.0)  # the tab's close, then 2 s
            before = server_cpu_seconds(pid)
            time.sleep(1.0)
            busy = server_cpu_seconds(pid) - before
            if busy > 0.2:
                failures.append((index, [f["name"][:40] for f in files], f"busy {busy:.0%}"))
            peak = max(peak, rss_mb(pid))
            errors |= set(with_traceback(SERVER_LOGS[url]))  # the log keeps 120 lines
    print(f"\n{cases} hostile uploads: RSS {start_rss:.0f} MB at the start, peak {peak:.0f} MB; "
          f"{len(failures)} failures, {len(errors)} unexpected log lines")
    assert failures == [] and not errors, (failures, sorted(errors))
    assert peak - start_rss < 800, f"RSS grew from {start_rss:.0f} to {peak:.0f} MB"


@pytest.mark.slow
def test_hostile_uploads_to_a_served_explorer(browser):
    run_fuzz(browser, int(os.environ.get("KMEVIZ_UPLOAD_FUZZ_CASES", len(KINDS))))


@pytest.mark.slow
def test_two_hundred_hostile_uploads_to_a_served_explorer(browser):
    run_fuzz(browser, 200)
