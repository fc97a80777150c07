"""User directory backed by the accounts table."""

from dataclasses import dataclass
from typing import Optional

from app.db import Database


@dataclass
class User:
    id: int
    name: str
    email: str
    is_active: bool


class UserDirectory:
    def __init__(self, db: Database):
        self._db = db
        self._cache: dict[int, User] = {}

    def find_user(self, user_id: int) -> Optional[User]:
        """Return the account, or None if it does not exist (or was erased)."""
        if user_id in self._cache:
            return self._cache[user_id]
        row = self._db.fetch_one(
            "SELECT id, name, email, is_active FROM accounts WHERE id = %s",
            (user_id,),
        )
        if row is None:
            return None
        user = User(id=row[0], name=row[1], email=row[2], is_active=row[3])
        self._cache[user_id] = user
        return user

    def erase(self, user_id: int) -> None:
        """GDPR erasure: the account row is deleted, orders keep owner_id."""
        self._db.execute("DELETE FROM accounts WHERE id = %s", (user_id,))
        self._cache.pop(user_id, None)

    def active_users(self) -> list[User]:
        rows = self._db.fetch_all(
            "SELECT id, name, email, is_active FROM accounts WHERE is_active"
        )
        return [User(*row) for row in rows]
