"""Write every dashboard as Grafana JSON to dashboards/generated/ (``make dashboards``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from grafana_foundation_sdk.cog.encoder import JSONEncoder

from . import config, data_nodes, overview, replication, sql_nodes, tables
from .layout import Board

OUTPUT = Path(__file__).resolve().parent / "generated"
MODULES = (overview, data_nodes, tables, sql_nodes, replication, config)


def boards() -> list[Board]:
    return [module.board() for module in MODULES]


def render(board: Board) -> str:
    return json.dumps(board.dashboard, cls=JSONEncoder, indent=2, sort_keys=True) + "\n"


def main() -> int:
    OUTPUT.mkdir(exist_ok=True)
    wanted = {f"{board.uid}.json": render(board) for board in boards()}
    for stale in OUTPUT.glob("*.json"):
        if stale.name not in wanted:
            stale.unlink()
    for name, text in wanted.items():
        (OUTPUT / name).write_text(text)
    print(f"wrote {len(wanted)} dashboards to {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
