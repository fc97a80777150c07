"""Login sessions."""

import secrets
import time
from dataclasses import dataclass
from typing import Optional

from app import settings
from app.cache import TTLCache


@dataclass
class Session:
    token: str
    user_id: int
    created_at: float


class SessionStore:
    def __init__(self, repo, cache: TTLCache):
        self._repo = repo
        self._cache = cache

    def create(self, user_id: int) -> Session:
        token = secrets.token_urlsafe(settings.TOKEN_BYTES)
        session = Session(token=token, user_id=user_id, created_at=time.time())
        self._repo.insert(session)
        self._cache.put(f"session:{token}", session, settings.SESSION_TTL_SECONDS)
        return session

    def lookup(self, token: str) -> Optional[Session]:
        cached = self._cache.get(f"session:{token}")
        if cached is not None:
            return cached
        session = self._repo.find(token)
        if session is None:
            return None
        if time.time() - session.created_at > settings.SESSION_TTL_SECONDS:
            self._repo.delete(token)
            return None
        return session

    def revoke(self, token: str) -> None:
        self._cache.delete(f"session:{token}")
        self._repo.delete(token)
