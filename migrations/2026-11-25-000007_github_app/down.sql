DELETE FROM platform_configs WHERE auth_type = 'app';
ALTER TABLE platform_configs
    DROP COLUMN installation_id,
    DROP COLUMN private_key_enc,
    DROP CONSTRAINT platform_configs_auth_type_check,
    ADD CONSTRAINT platform_configs_auth_type_check CHECK (auth_type IN ('token', 'oauth'));
