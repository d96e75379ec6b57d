"""Parse NDB's config.ini: sections repeat ([ndbd] once per data node), so configparser
cannot read it. Parameter names are case-insensitive in NDB and are lower-cased here."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Section:
    name: str
    params: dict[str, str] = field(default_factory=dict)


def parse(path: Path) -> list[Section]:
    sections: list[Section] = []
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].split(";", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            sections.append(Section(line[1:-1].strip().lower()))
        elif "=" in line and sections:
            key, value = line.split("=", 1)
            sections[-1].params[key.strip().lower()] = value.strip()
        else:
            raise ValueError(f"{path.name}:{lineno}: not a section or parameter: {raw!r}")
    return sections


def nodes(sections: list[Section]) -> list[Section]:
    """Node sections ([ndb_mgmd], [ndbd], [mysqld], [api]), defaults applied."""
    defaults = {
        s.name.removesuffix(" default"): s.params for s in sections if s.name.endswith(" default")
    }
    result = []
    for s in sections:
        if s.name in {"ndb_mgmd", "ndbd", "mysqld", "api"}:
            result.append(Section(s.name, {**defaults.get(s.name, {}), **s.params}))
    return result
