"""Copies the alert and recording rules and the dashboards into the Helm chart.

Helm reads only files inside the chart, so the chart carries copies of
provisioning/prometheus/rules/*.yml and dashboards/generated/*.json; the sources stay the
only place they are edited. tests/charts/ fails while a copy differs from its source.

    python charts/sync.py
"""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHART = ROOT / "charts" / "ndbinfo-exporter"

# (source directory, pattern, directory in the chart)
COPIES = (
    (ROOT / "provisioning" / "prometheus" / "rules", "*.yml", CHART / "files" / "rules"),
    (ROOT / "dashboards" / "generated", "*.json", CHART / "files" / "dashboards"),
)


def expected() -> dict[Path, Path]:
    """Each file the chart must hold, mapped to its source."""
    return {
        target_dir / source.name: source
        for source_dir, pattern, target_dir in COPIES
        for source in sorted(source_dir.glob(pattern))
    }


def stale() -> list[str]:
    """Chart copies that are missing, differ from their source, or have no source."""
    want = expected()
    problems = [
        f"{target.relative_to(ROOT)} differs from {source.relative_to(ROOT)}"
        for target, source in want.items()
        if not target.exists() or target.read_bytes() != source.read_bytes()
    ]
    for _, pattern, target_dir in COPIES:
        problems += [
            f"{extra.relative_to(ROOT)} has no source"
            for extra in sorted(target_dir.glob(pattern))
            if extra not in want
        ]
    return problems


def sync() -> None:
    want = expected()
    for _, pattern, target_dir in COPIES:
        target_dir.mkdir(parents=True, exist_ok=True)
        for extra in target_dir.glob(pattern):
            if extra not in want:
                extra.unlink()
    for target, source in want.items():
        shutil.copyfile(source, target)


if __name__ == "__main__":
    sync()
