"""The reliability suite reuses the exporter tests' helpers (fake SQL node, TCP counter)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "exporter"))
