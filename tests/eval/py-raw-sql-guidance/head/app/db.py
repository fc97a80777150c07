"""Database access. Every query in the service goes through query()."""

import logging
from typing import Any, Sequence

import psycopg

log = logging.getLogger(__name__)

_pool = None


def init(dsn: str) -> None:
    global _pool
    _pool = psycopg.connect(dsn, autocommit=True)


def query(sql: str, params: Sequence[Any] = ()) -> list[tuple]:
    """Run a parameterised query and return all rows."""
    if _pool is None:
        raise RuntimeError("db.init() was not called")
    with _pool.cursor() as cur:
        cur.execute(sql, params)
        if cur.description is None:
            return []
        return cur.fetchall()
