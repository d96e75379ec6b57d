"""Rows of the SQL node's virtual tables answered from the data nodes' dictionary: backup_id,
dictionary_tables, blobs."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster


def backup_id(c: Cluster) -> list[dict]:
    return [{"id": c.backup_id, "fragment": 0, "row_id": 0}]


def dictionary_tables(c: Cluster) -> list[dict]:
    out = []
    for t in c.dictionary.dih:
        if t.type != 2 or t.name.startswith("NDB$BLOB"):
            continue
        out.append(
            {
                "table_id": t.table_id,
                "database_name": t.database,
                "table_name": t.name,
                "status": "Retrieved",
                "attributes": t.columns,
                "primary_key_cols": 1,
                "primary_key": "id",
                "storage": "disk" if t.disk else "memory",
                "logging": 1,
                "dynamic": 0,
                "read_backup": int(t.read_backup),
                "fully_replicated": int(t.fully_replicated),
                "checksum": 0,
                "row_size": t.row_bytes + t.var_bytes,
                "min_rows": 0,
                "max_rows": 0,
                "tablespace": c.dictionary.tablespace_id if t.disk else None,
                "fragment_type": "HashMapPartition",
                "hash_map": f"DEFAULT-HASHMAP-3840-{t.partitions}",
                "fragments": t.fragments,
                "partitions": t.partitions,
                "partition_balance": {
                    4294967294: "FOR_RP_BY_LDM",
                    4294967293: "FOR_RA_BY_LDM",
                    4294967292: "FOR_RP_BY_NODE",
                    4294967291: "FOR_RA_BY_NODE",
                }[t.partition_balance],
                "contains_GCI": 1,
                "single_user_mode": "locked",
                "force_var_part": 1,
                "GCI_bits": 0,
                "author_bits": 0,
                "extra_metadata_version": 2,
                "extra_metadata": None,
            }
        )
    return out


def blobs(c: Cluster) -> list[dict]:
    by_id = {t.table_id: t for t in c.dictionary.dih}
    return [
        {
            "table_id": base_id,
            "database_name": by_id[base_id].database,
            "table_name": by_id[base_id].name,
            "column_id": column,
            "column_name": name,
            "inline_size": 256,
            "part_size": 2000,
            "stripe_size": 0,
            "blob_table_name": blob_name,
        }
        for base_id, column, name, blob_name in c.dictionary.blobs
    ]
