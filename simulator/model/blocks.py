"""The blocks of a data node (ndb$blocks numbers) and the threads of an ndbmtd that run them."""

from __future__ import annotations

import functools

# block numbers (ndb$blocks)
BACKUP, DBTC, DBDIH, DBLQH, DBACC, DBTUP, DBDICT, NDBCNTR, QMGR, NDBFS, CMVMI = (
    244,
    245,
    246,
    247,
    248,
    249,
    250,
    251,
    252,
    253,
    254,
)
TRIX, DBUTIL, SUMA, DBTUX, TSMAN, LGMAN, PGMAN, RESTORE, DBINFO, DBSPJ, THRMAN, TRPMAN = (
    255,
    256,
    257,
    258,
    259,
    260,
    261,
    262,
    263,
    264,
    265,
    266,
)


@functools.cache
def thread_layout(ldm: int) -> tuple[tuple[int, str, tuple[tuple[int, int], ...]], ...]:
    """(thr_no, thread name, ((block, instance), ...)) of an ndbmtd with `ldm` LDM threads;
    computed once per LDM count (every per-thread row of every data node asks for it)."""
    tc = ldm // 2
    send = 1 if ldm >= 4 else 0
    threads: list[tuple[str, list[tuple[int, int]]]] = [
        (
            "main",
            [
                (DBDICT, 0),
                (DBDIH, 0),
                (NDBCNTR, 0),
                (QMGR, 0),
                (CMVMI, 0),
                (TRIX, 0),
                (DBUTIL, 0),
                (DBINFO, 0),
            ]
            + ([] if tc else [(DBTC, 0), (DBSPJ, 0)]),
        ),
        ("rep", [(SUMA, 0), (TSMAN, 0), (LGMAN, 0), (NDBFS, 0), (BACKUP, 0), (RESTORE, 0)]),
    ]
    for i in range(1, ldm + 1):
        threads.append(
            ("ldm", [(b, i) for b in (DBLQH, DBACC, DBTUP, DBTUX, BACKUP, RESTORE, PGMAN)])
        )
    for i in range(1, tc + 1):
        threads.append(("tc", [(DBTC, i), (DBSPJ, i)]))
    threads += [("send", [])] * send
    threads.append(("recv", [(TRPMAN, 1)]))
    return tuple(
        (thr_no, name, (*blocks, (THRMAN, thr_no + 1)))
        for thr_no, (name, blocks) in enumerate(threads)
    )


def block_instances(ldm: int, block: int) -> list[int]:
    return sorted({inst for _, _, blocks in thread_layout(ldm) for b, inst in blocks if b == block})


def ldm_thread_numbers(ldm: int) -> list[int]:
    return [thr for thr, name, _ in thread_layout(ldm) if name == "ldm"]
