import type { Pool } from "pg";

export type AuditAction =
  | "account.created"
  | "account.deleted"
  | "account.email_changed"
  | "session.revoked";

export interface AuditEvent {
  actorId: string;
  action: AuditAction;
  targetId: string;
  metadata?: Record<string, unknown>;
}

/**
 * Append an event to the audit log. Rejects if the insert fails (for example
 * when the database is in read-only maintenance mode).
 */
export async function recordAuditEvent(db: Pool, event: AuditEvent): Promise<void> {
  await db.query(
    "INSERT INTO audit_log (actor_id, action, target_id, metadata, created_at) VALUES ($1, $2, $3, $4, now())",
    [event.actorId, event.action, event.targetId, JSON.stringify(event.metadata ?? {})],
  );
}

export async function auditTrail(db: Pool, targetId: string): Promise<AuditEvent[]> {
  const { rows } = await db.query(
    "SELECT actor_id, action, target_id, metadata FROM audit_log WHERE target_id = $1 ORDER BY created_at",
    [targetId],
  );
  return rows.map((r) => ({
    actorId: r.actor_id,
    action: r.action,
    targetId: r.target_id,
    metadata: r.metadata,
  }));
}
