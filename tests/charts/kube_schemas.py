"""JSON schemas for kubeconform, built offline from two Go modules on the module proxy.

kubeconform downloads its schemas from GitHub by default; here they come from
k8s.io/kubernetes (api/openapi-spec/swagger.json, the API of that release: a recent one and
the oldest the chart admits) and from github.com/prometheus-operator/prometheus-operator
(the monitoring.coreos.com CRDs in example/prometheus-operator-crd/), all fetched with
`go mod download` at pinned versions.
They are written in kubeconform's layout, `{{ .ResourceKind }}{{ .KindSuffix }}.json`, as
strict schemas: an object with declared properties admits no other property (as
`kubeconform -strict` expects of its schemas), except where the CRD preserves unknown
fields.

    python tests/charts/kube_schemas.py [DIR]    # default .tools/schemas/<versions>
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

KUBERNETES = ("k8s.io/kubernetes", "v1.37.2")
# The oldest release the chart's kubeVersion admits: the first with the securityContext
# field seccompProfile.
OLDEST_KUBERNETES = ("k8s.io/kubernetes", "v1.19.16")
PROMETHEUS_OPERATOR = ("github.com/prometheus-operator/prometheus-operator", "v0.94.1")
KUBERNETES_VERSION = KUBERNETES[1].removeprefix("v")
ROOT = Path(__file__).resolve().parents[2]
# kubeconform's -schema-location for DEFAULT_DIR (its own template variables).
LOCATION = "{{ .ResourceKind }}{{ .KindSuffix }}.json"

OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
INT_OR_STRING = {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}
QUANTITY = {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]}


class _CrdLoader(yaml.CSafeLoader):
    """YAML 1.1 reads a bare `=` (an enum value in the CRDs) as its `value` type: keep it a string."""


_CrdLoader.add_constructor("tag:yaml.org,2002:value", yaml.CSafeLoader.construct_yaml_str)


def module_dir(path: str, version: str) -> Path:
    """The extracted module in Go's module cache, downloaded from the proxy if absent."""
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOWORK": "off"}
    out = subprocess.run(
        ["go", "mod", "download", "-json", f"{path}@{version}"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    info = json.loads(out.stdout) if out.stdout.strip() else {}
    if out.returncode != 0 or "Dir" not in info:
        raise RuntimeError(f"go mod download {path}@{version}: {info.get('Error') or out.stderr}")
    return Path(info["Dir"])


def file_name(api_version: str, kind: str) -> str:
    """kubeconform's {{ .ResourceKind }}{{ .KindSuffix }}.json for apiVersion and kind."""
    group, _, version = api_version.rpartition("/")
    suffix = f"-{group.split('.')[0]}-{version}" if group else f"-{version}"
    return f"{kind.lower()}{suffix.lower()}.json"


def _nullable(schema: dict[str, Any]) -> None:
    """The API server takes null for any optional field, as Helm renders an empty key."""
    kind = schema.get("type")
    if isinstance(kind, str):
        schema["type"] = [kind, "null"]
        if "enum" in schema and None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]


def strict(schema: Any) -> Any:
    """A copy of an OpenAPI schema as a strict JSON schema (formats dropped: they are
    OpenAPI's, e.g. int32, not JSON Schema's)."""
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if schema.get("format") == "int-or-string" or schema.get("x-kubernetes-int-or-string"):
        return {**INT_OR_STRING, **_annotations(schema)}
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "format" or key.startswith("x-kubernetes-") or key == "nullable":
            continue
        if key in ("properties", "definitions", "patternProperties"):
            out[key] = {name: strict(sub) for name, sub in value.items()}
        else:
            out[key] = strict(value)
    if (
        "properties" in out
        and "additionalProperties" not in out
        and not schema.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    _nullable(out)
    return out


def _annotations(schema: dict[str, Any]) -> dict[str, Any]:
    return {key: schema[key] for key in ("description",) if key in schema}


def _refs(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str):
            yield ref.rpartition("/")[2]
        for value in schema.values():
            yield from _refs(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _refs(item)


def closure(definitions: dict[str, Any], roots: list[str]) -> dict[str, Any]:
    """The definitions reachable from roots through $ref."""
    seen: dict[str, Any] = {}
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen[name] = definitions[name]
        todo.extend(_refs(definitions[name]))
    return seen


def kubernetes_definitions(spec: dict[str, Any]) -> dict[str, Any]:
    definitions = {name: strict(d) for name, d in spec["definitions"].items()}
    # A quantity is "100m" or a number (cpu: 1), whatever the OpenAPI type says.
    definitions["io.k8s.apimachinery.pkg.api.resource.Quantity"] = dict(QUANTITY)
    return definitions


def kubernetes_schemas(
    spec: dict[str, Any], definitions: dict[str, Any]
) -> Iterator[tuple[str, dict[str, Any]]]:
    for name, source in spec["definitions"].items():
        for gvk in source.get("x-kubernetes-group-version-kind", []):
            group, version, kind = gvk["group"], gvk["version"], gvk["kind"]
            api_version = f"{group}/{version}" if group else version
            schema = dict(definitions[name])
            needed = closure(definitions, list(_refs(schema)))
            if needed:
                schema["definitions"] = needed
            yield file_name(api_version, kind), schema


def crd_schemas(crd_dir: Path, definitions: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each served version of each CRD, its metadata checked as Kubernetes' ObjectMeta."""
    meta = closure(definitions, [OBJECT_META])
    for path in sorted(crd_dir.glob("*.yaml")):
        crd = yaml.load(path.read_text(), Loader=_CrdLoader)
        group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
        for version in crd["spec"]["versions"]:
            if not version.get("served", True):
                continue
            schema = strict(version["schema"]["openAPIV3Schema"])
            schema["properties"]["metadata"] = {"$ref": f"#/definitions/{OBJECT_META}"}
            schema["definitions"] = meta
            yield file_name(f"{group}/{version['name']}", kind), schema


def default_dir(kubernetes: tuple[str, str] = KUBERNETES) -> Path:
    """.tools/schemas/<versions>, named by the pinned versions."""
    return ROOT / ".tools" / "schemas" / f"k8s-{kubernetes[1]}-po-{PROMETHEUS_OPERATOR[1]}"


def build(dest: Path | None = None, kubernetes_module: tuple[str, str] = KUBERNETES) -> Path:
    """Writes the schemas of one Kubernetes release into dest (default: ``default_dir``) once."""
    dest = dest or default_dir(kubernetes_module)
    stamp = dest / ".complete"
    if stamp.exists():
        return dest
    kubernetes = module_dir(*kubernetes_module)
    operator = module_dir(*PROMETHEUS_OPERATOR)
    spec = json.loads((kubernetes / "api" / "openapi-spec" / "swagger.json").read_text())
    definitions = kubernetes_definitions(spec)
    partial = dest.with_name(dest.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    crd_dir = operator / "example" / "prometheus-operator-crd"
    for name, schema in [
        *kubernetes_schemas(spec, definitions),
        *crd_schemas(crd_dir, definitions),
    ]:
        (partial / name).write_text(json.dumps(schema, separators=(",", ":")))
    (partial / ".complete").write_text(f"{kubernetes_module} {PROMETHEUS_OPERATOR}\n")
    shutil.rmtree(dest, ignore_errors=True)
    partial.rename(dest)
    return dest


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else None))
