-- hostB configs of auth type `app` (a GitHub App installation): the App's id is
-- `app_id`; its private key (PEM) is sealed like the other secrets; an
-- installation id narrows the config to one installation.
ALTER TABLE platform_configs
    DROP CONSTRAINT platform_configs_auth_type_check,
    ADD CONSTRAINT platform_configs_auth_type_check
        CHECK (auth_type IN ('token', 'oauth', 'app')),
    ADD COLUMN private_key_enc TEXT,
    ADD COLUMN installation_id BIGINT CHECK (installation_id > 0);
