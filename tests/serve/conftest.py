"""Helpers of the serving tests."""
from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine
from typing import Any


def run_async(coro: Coroutine[Any, Any, Any]) -> Any:
    """``asyncio.run(coro)`` in a thread of its own: a browser test that ran earlier in the same test process (the
    browser tier's sync Playwright) leaves an event loop running in the main thread, where asyncio.run refuses."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
