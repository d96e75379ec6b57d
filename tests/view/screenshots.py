"""Write docs/screenshots/view-healthy.png, view-node-stopped.png and view-cluster-down.png.

    .venv/bin/python -m tests.view.screenshots [--out docs/screenshots]

Starts ndbsim as `make demo` does (2 data nodes, 20 tables) and the exporter, photographs the view, stops data node 2,
waits until the view shows it stopped with its dead replicas, opens the fragments of a table
with dead replicas and photographs it again; then stops data node 1 too and photographs the
view of a cluster it cannot see. (view-48-nodes.png is written by tests/view/test_view_scale.py.)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.view.view_stack import CHROMIUM, CHROMIUM_ARGS, running_stack

HERE = Path(__file__).resolve().parent
WAIT_MS = 60_000
NDBSIM_ARGS = ("--data-nodes", "2", "--tables", "20")  # what `make demo` starts


def photograph(page, path: Path) -> None:
    # Open the first finding (and the list of passed checks around it, if that is where it is).
    page.locator("details.finding").first.evaluate(
        "el => { el.open = true; const outer = el.parentElement.closest('details'); if (outer) outer.open = true; }"
    )
    page.wait_for_timeout(300)
    page.screenshot(path=str(path), full_page=True)
    print(f"wrote {path}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE.parent.parent / "docs" / "screenshots")
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    with running_stack(*NDBSIM_ARGS) as stack, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(stack.url + "/")
        page.wait_for_selector("body[data-loaded]")
        photograph(page, options.out / "view-healthy.png")

        stack.sim.stop_node(2)
        page.reload()
        page.wait_for_selector("[data-testid=data-node-2][data-state=STOPPED]", timeout=WAIT_MS)
        page.wait_for_selector("[data-testid=dead-replica]", timeout=WAIT_MS)
        page.locator("#placement tr[data-dead]:not([data-dead='0']) button.open").first.click()
        page.wait_for_selector("tr.detail[data-loaded]", timeout=WAIT_MS)
        photograph(page, options.out / "view-node-stopped.png")

        stack.sim.stop_node(1)
        page.reload()
        page.wait_for_selector(
            "[data-testid=finding-cluster_not_visible][data-status=problem]", timeout=WAIT_MS
        )
        photograph(page, options.out / "view-cluster-down.png")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
