import type { Pool } from "pg";

export interface Account {
  id: string;
  email: string;
  displayName: string;
  deletedAt: Date | null;
}

export class AccountRepo {
  constructor(private readonly db: Pool) {}

  async byId(id: string): Promise<Account | null> {
    const { rows } = await this.db.query(
      "SELECT id, email, display_name, deleted_at FROM accounts WHERE id = $1 AND deleted_at IS NULL",
      [id],
    );
    if (rows.length === 0) return null;
    const r = rows[0];
    return { id: r.id, email: r.email, displayName: r.display_name, deletedAt: r.deleted_at };
  }

  async softDelete(id: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      "UPDATE accounts SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL",
      [id],
    );
    return (rowCount ?? 0) > 0;
  }
}
