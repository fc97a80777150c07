DROP TABLE push_subscriptions;
DROP TABLE notification_digest_events;
DROP TABLE notification_history;
DROP TABLE notification_configs;
