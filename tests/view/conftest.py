"""Headless Chromium for the view's browser tests."""

from __future__ import annotations

import os

import pytest

from tests.view.view_stack import CHROMIUM, CHROMIUM_ARGS


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


def pytest_collection_modifyitems(items):
    """Browser tests last: Playwright's sync API keeps an event loop in this thread while
    the browser runs, and pytest-asyncio's tests cannot run beside it. The browser lives as
    long as its module, so that a pytest-xdist worker runs other modules after it."""
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)
