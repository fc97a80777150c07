DROP TABLE budget_notes;
ALTER TABLE projects DROP COLUMN budget_alerted_month;
ALTER TABLE projects DROP COLUMN monthly_budget_usd;
