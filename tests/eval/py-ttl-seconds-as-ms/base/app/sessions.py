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
        return session

    def lookup(self, token: str) -> Optional[Session]:
        session = self._repo.find(token)
        if session is None:
            return None
        if time.time() - session.created_at > settings.SESSION_TTL_SECONDS:
            self._repo.delete(token)
            return None
        return session

    def revoke(self, token: str) -> None:
        self._repo.delete(token)
