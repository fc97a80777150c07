"""Fixed-window rate limiting per client."""

from app import settings
from app.cache import TTLCache


class RateLimiter:
    def __init__(self, cache: TTLCache):
        self._cache = cache

    def allow(self, client_id: str) -> bool:
        key = f"rl:{client_id}"
        count = self._cache.get(key) or 0
        if count >= settings.RATE_LIMIT_MAX_REQUESTS:
            return False
        self._cache.put(key, count + 1, settings.RATE_LIMIT_WINDOW_SECONDS * 1000)
        return True

    def reset(self, client_id: str) -> None:
        self._cache.delete(f"rl:{client_id}")

    def remaining(self, client_id: str) -> int:
        count = self._cache.get(f"rl:{client_id}") or 0
        return max(0, settings.RATE_LIMIT_MAX_REQUESTS - count)
