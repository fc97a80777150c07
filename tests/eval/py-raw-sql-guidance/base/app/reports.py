"""Report queries."""

from datetime import datetime, timezone

from app import db

MAX_ROWS = 200


def recent_reports(owner_id: int, limit: int = 50) -> list[dict]:
    rows = db.query(
        "SELECT id, title, created_at FROM reports WHERE owner_id = %s "
        "ORDER BY created_at DESC LIMIT %s",
        (owner_id, min(limit, MAX_ROWS)),
    )
    return [_to_dict(r) for r in rows]


def report_by_id(report_id: int) -> dict | None:
    rows = db.query(
        "SELECT id, title, created_at FROM reports WHERE id = %s", (report_id,)
    )
    return _to_dict(rows[0]) if rows else None


def _to_dict(row: tuple) -> dict:
    created = row[2].astimezone(timezone.utc) if isinstance(row[2], datetime) else row[2]
    return {"id": row[0], "title": row[1], "created_at": created.isoformat()}
