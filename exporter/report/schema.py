"""The JSON Schema of ``ndbinfo-exporter report --format json``, from the report's model.

``python -m ndbinfo_exporter.report.schema > docs/report.schema.json`` (``make report-sample``)."""

from __future__ import annotations

import json

from ndbinfo_exporter.report.document import Report


def schema() -> dict:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **Report.model_json_schema(mode="serialization"),
    }


def text() -> str:
    return json.dumps(schema(), indent=2) + "\n"


if __name__ == "__main__":
    print(text(), end="")
