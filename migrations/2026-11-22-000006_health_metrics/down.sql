DROP TABLE job_runs;
DROP TABLE api_metrics;
DROP TABLE database_metrics;
DROP TABLE system_metrics;
DROP TABLE health_checks;
