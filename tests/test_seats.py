"""Seats (``apps/_seats.py``): a few pages built at once, the others wait in turn, and a
full queue is told so at once."""

from __future__ import annotations

import asyncio
import threading

import pytest
from kmeviz_apps._seats import Seats, waiting_page


def run(coroutine):
    """Run ``coroutine`` to its end in a thread of its own (a browser test run before this
    one leaves Playwright's event loop running in the main thread)."""
    out = {}

    def target():
        try:
            out["value"] = asyncio.run(asyncio.wait_for(coroutine, 10))
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller
            out["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_pages_take_their_seats_in_the_order_they_came():
    async def scenario():
        seats = Seats(size=2, waiting=10)
        first, second = await seats.take(), await seats.take()
        order = []

        async def page(name):
            seat = await seats.take()
            order.append(name)
            return seat

        waiting = [asyncio.create_task(page(name)) for name in "abc"]
        await asyncio.sleep(0.01)
        assert order == [] and seats.queued == 3 and seats.taken == 2
        first.release()
        await asyncio.sleep(0.01)
        assert order == ["a"]
        second.release()
        second.release()  # idempotent: a second release frees nothing more
        await asyncio.sleep(0.01)
        assert order == ["a", "b"] and seats.queued == 1
        for task in waiting[:2]:
            (await task).release()
        third = await waiting[2]
        assert order == ["a", "b", "c"]
        third.release()
        assert seats.taken == 0 and seats.queued == 0

    run(scenario())


def test_a_full_queue_answers_at_once_and_a_page_that_leaves_gives_up_its_turn():
    async def scenario():
        seats = Seats(size=1, waiting=1)
        held = await seats.take()
        leaving = asyncio.create_task(seats.take())
        await asyncio.sleep(0.01)
        assert await seats.take() is None  # the queue (1) is full
        leaving.cancel()
        await asyncio.sleep(0.01)
        assert seats.queued == 0
        held.release()
        assert seats.taken == 0
        again = await seats.take()
        assert again is not None and seats.taken == 1

    run(scenario())


def test_a_seat_released_from_another_thread_or_never_released_comes_back():
    async def scenario():
        seats = Seats(size=1, waiting=5, hold_seconds=0.2)
        held = await seats.take()
        next_page = asyncio.create_task(seats.take())
        threading.Thread(target=held.release).start()  # a session's thread gives it up
        seat = await asyncio.wait_for(next_page, 1)
        assert held.released
        # nobody releases this one: it comes back after hold_seconds
        waiting = asyncio.create_task(seats.take())
        assert await asyncio.wait_for(waiting, 1) is not None
        assert seat.released

    run(scenario())


@pytest.mark.parametrize("size, waiting, hold, connect",
                         [(0, 1, 1.0, 1.0), (1, -1, 1.0, 1.0), (1, 1, 0.0, 1.0), (1, 1, 1.0, 0.0)])
def test_seats_refuse_a_bad_setting(size, waiting, hold, connect):
    with pytest.raises(ValueError, match="seats need"):
        Seats(size, waiting, hold, connect)


def test_the_waiting_page_says_so_and_retries():
    page = waiting_page(42)
    assert "Waiting for a seat" in page and "42 pages" in page
    assert "http-equiv='refresh'" in page


def test_a_page_whose_websocket_never_comes_gives_its_seat_up_soon():
    async def scenario():
        seats = Seats(size=1, waiting=5, hold_seconds=30, connect_seconds=0.2)
        bare, browser = await seats.take(), None
        bare.claimed = True
        bare.page_sent()  # a bare request of the link: nothing connects
        browser = await asyncio.wait_for(seats.take(), 1)
        browser.claimed = True
        browser.page_sent()
        browser.connected = True  # its websocket arrived: it keeps the seat
        late = asyncio.create_task(seats.take())
        await asyncio.sleep(0.4)
        assert not late.done() and not browser.released
        browser.release()  # its first views are drawn
        assert await asyncio.wait_for(late, 1) is not None

    run(scenario())
