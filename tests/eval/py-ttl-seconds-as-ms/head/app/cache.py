"""A small in-process TTL cache used for sessions and rate limits."""

import threading
import time
from typing import Any, Callable, Optional


class TTLCache:
    def __init__(self, clock: Callable[[], float] = time.monotonic, max_entries: int = 10_000):
        self._clock = clock
        self._max_entries = max_entries
        self._entries: dict[str, tuple[float, Any]] = {}
        self._lock = threading.Lock()

    def put(self, key: str, value: Any, ttl_ms: int) -> None:
        """Store value under key; it expires ttl_ms milliseconds from now."""
        expires_at = self._clock() + ttl_ms / 1000.0
        with self._lock:
            if len(self._entries) >= self._max_entries:
                self._evict_expired()
            self._entries[key] = (expires_at, value)

    def get(self, key: str) -> Optional[Any]:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            expires_at, value = entry
            if expires_at <= self._clock():
                del self._entries[key]
                return None
            return value

    def delete(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def _evict_expired(self) -> None:
        now = self._clock()
        for key in [k for k, (exp, _) in self._entries.items() if exp <= now]:
            del self._entries[key]
