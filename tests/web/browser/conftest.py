"""Browser tests: one headless Debian chromium per session, one real WSGI server (temp database) per module."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[3] / "artifacts" / "screenshots"
TABLET = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

pytestmark = pytest.mark.browser


def _skip_reason() -> str | None:
    if not CHROMIUM.exists() and shutil.which("chromium") is None:
        return "Debian's chromium is not installed (/usr/bin/chromium); browser tests are skipped."
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed; browser tests are skipped."
    return None


@pytest.fixture(scope="session")
def pw_session() -> Iterator[Any]:
    """One Playwright per session: its sync API runs one instance per thread."""
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


def launch(pw: Any, *extra: str) -> Any:
    """Debian's headless chromium, with ``extra`` command-line switches."""
    return pw.chromium.launch(
        executable_path=str(CHROMIUM if CHROMIUM.exists() else shutil.which("chromium")),
        headless=True,
        args=[
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            *extra,
        ],
    )


@pytest.fixture(scope="session")
def browser(pw_session: Any) -> Iterator[Any]:
    b = launch(pw_session)
    yield b
    b.close()


@contextmanager
def serving(config: dict[str, Any]) -> Iterator[tuple[str, Flask]]:
    """The real app on a free loopback port, threaded (live streams hold a thread each); yields its address."""
    from werkzeug.serving import make_server

    from web.app import create_app

    app = create_app(config)
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}", app
    finally:
        srv.shutdown()
        shutdown = app.extensions.get("becher.shutdown")
        if shutdown:
            shutdown()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if _skip_reason():
        pytest.skip(_skip_reason() or "")
    db = tmp_path_factory.mktemp("db") / "becher.sqlite3"
    with serving({"DATABASE": str(db), "TESTING": True, "LIVE_HEARTBEAT": 1.0, "READ_TIMEOUT": 30.0}) as (base, _):
        yield base


@pytest.fixture()
def tablet(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport=TABLET, locale="en-GB")
    page = ctx.new_page()
    page.set_default_timeout(10_000)
    yield page
    ctx.close()


@pytest.fixture()
def phone(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-GB", device_scale_factor=2)
    page = ctx.new_page()
    page.set_default_timeout(10_000)
    yield page
    ctx.close()


def screenshot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
