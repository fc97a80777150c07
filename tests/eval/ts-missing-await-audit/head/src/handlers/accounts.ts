import type { Request, Response } from "express";
import type { Pool } from "pg";
import { AccountRepo } from "../repo/accounts";
import { recordAuditEvent } from "../audit";

export function accountHandlers(db: Pool, accounts: AccountRepo) {
  async function getAccount(req: Request, res: Response) {
    const account = await accounts.byId(req.params.id);
    if (!account) {
      res.status(404).json({ error: "not found" });
      return;
    }
    res.json(account);
  }

  async function deleteAccount(req: Request, res: Response) {
    const actor = req.user!;
    if (actor.id !== req.params.id && !actor.isAdmin) {
      res.status(403).json({ error: "forbidden" });
      return;
    }
    const deleted = await accounts.softDelete(req.params.id);
    if (!deleted) {
      res.status(404).json({ error: "not found" });
      return;
    }
    recordAuditEvent(db, {
      actorId: actor.id,
      action: "account.deleted",
      targetId: req.params.id,
    });
    res.status(204).end();
  }

  return { getAccount, deleteAccount };
}
