DROP TABLE api_keys;
DROP TABLE sessions;
DROP TABLE users;
DROP FUNCTION reviewd_set_updated_at();
