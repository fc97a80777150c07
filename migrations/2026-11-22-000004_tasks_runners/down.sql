DROP TABLE webhook_deliveries;
DROP TABLE review_task_logs;
DROP TABLE review_tasks;
DROP TABLE runners;
