DROP TABLE ai_config_fallbacks;
