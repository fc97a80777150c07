-- A project's optional monthly AI budget in USD: once its calls this calendar month
-- (UTC) cost that much, webhooks stop queueing automatic reviews until the next
-- month; manual triggers still run. NULL means no budget.
ALTER TABLE projects ADD COLUMN monthly_budget_usd DOUBLE PRECISION
    CHECK (monthly_budget_usd >= 0 AND monthly_budget_usd <= 1000000000);
-- The first day of the month whose spent budget was last announced, so that each
-- month gets one notification however many webhooks arrive after it is spent.
ALTER TABLE projects ADD COLUMN budget_alerted_month DATE;
-- The MRs told of a spent budget, one row per MR and month: of two webhooks of one
-- MR arriving together, the one whose insert wins posts the note.
CREATE TABLE budget_notes (
    project_id UUID NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    mr_iid     BIGINT NOT NULL,
    month      DATE NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, mr_iid, month)
);
