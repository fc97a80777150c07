DROP TABLE projects;
DROP TABLE global_settings;
DROP TABLE ai_configs;
DROP TABLE platform_configs;
