DROP TABLE analysis_uploads;
