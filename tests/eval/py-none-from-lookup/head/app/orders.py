"""Order summary views."""

from app.db import Database
from app.users import UserDirectory


class OrderService:
    def __init__(self, db: Database, users: UserDirectory):
        self._db = db
        self._users = users

    def _load(self, order_id: int) -> dict:
        row = self._db.fetch_one(
            "SELECT id, owner_id, total_cents, status FROM orders WHERE id = %s",
            (order_id,),
        )
        if row is None:
            raise KeyError(f"order {order_id} not found")
        return {
            "id": row[0],
            "owner_id": row[1],
            "total_cents": row[2],
            "status": row[3],
        }

    def summary(self, order_id: int) -> dict:
        order = self._load(order_id)
        owner = self._users.find_user(order["owner_id"])
        return {
            "id": order["id"],
            "total": f"{order['total_cents'] / 100:.2f}",
            "status": order["status"],
            "owner_email": owner.email,
        }

    def cancel(self, order_id: int) -> None:
        order = self._load(order_id)
        if order["status"] != "pending":
            raise ValueError("only pending orders can be cancelled")
        self._db.execute(
            "UPDATE orders SET status = 'cancelled' WHERE id = %s", (order_id,)
        )
