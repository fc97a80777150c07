"""Thin wrapper around a DB-API connection."""

import logging
from typing import Any, Optional, Sequence

log = logging.getLogger(__name__)


class Database:
    def __init__(self, conn):
        self._conn = conn

    def fetch_one(self, sql: str, params: Sequence[Any] = ()) -> Optional[tuple]:
        cur = self._conn.cursor()
        try:
            cur.execute(sql, params)
            return cur.fetchone()
        finally:
            cur.close()

    def fetch_all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        cur = self._conn.cursor()
        try:
            cur.execute(sql, params)
            return list(cur.fetchall())
        finally:
            cur.close()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        cur = self._conn.cursor()
        try:
            cur.execute(sql, params)
            self._conn.commit()
            return cur.rowcount
        finally:
            cur.close()
