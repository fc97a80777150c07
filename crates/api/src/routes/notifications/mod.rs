//! `/api/notifications`: the settings (secrets masked), test deliveries, VAPID keys,
//! the delivery history with its statistics, and browser push subscriptions. The
//! routing and what the files share are here; each file holds its handlers and the
//! shapes they answer with. Objects that were built as JSON maps list their fields in
//! the order those maps wrote them (alphabetical), so the bytes on the wire are
//! unchanged.

mod config;
mod config_body;
mod history;
mod push;
mod stats;
mod test_channel;

use crate::field_schemas::string_enum;
use config::{
    generate_vapid_keys, get_notification_config, replace_notification_config,
    update_notification_config,
};
use history::{
    clean_notification_history, get_notification_record, list_failed_notifications,
    list_notification_history, list_pending_notifications,
};
use push::{
    clean_push_subscriptions, list_push_subscriptions, list_user_push_subscriptions,
    subscribe_push, touch_push_subscription, unsubscribe_push,
};
use reviewd_domain::model::notification::{Channel, DeliveryStatus, Frequency, NotificationType};
use serde::Serialize;
use stats::get_notification_stats;
use test_channel::test_notification_channel;
use utoipa::ToSchema;
use utoipa::openapi::Object;
use utoipa_actix_web::{scope, service_config::ServiceConfig};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/notifications")
            .service(list_notification_history)
            .service(get_notification_config)
            .service(replace_notification_config)
            .service(update_notification_config)
            .service(test_notification_channel)
            .service(generate_vapid_keys)
            .service(get_notification_record)
            .service(get_notification_stats)
            .service(list_pending_notifications)
            .service(list_failed_notifications)
            .service(clean_notification_history)
            .service(subscribe_push)
            .service(list_push_subscriptions)
            .service(list_user_push_subscriptions)
            .service(touch_push_subscription)
            .service(unsubscribe_push)
            .service(clean_push_subscriptions),
    );
}

fn channel_schema() -> Object {
    string_enum(Channel::ALL.iter().map(|c| c.as_str()))
}

fn delivery_status_schema() -> Object {
    string_enum(DeliveryStatus::ALL.iter().map(|s| s.as_str()))
}

fn notification_type_schema() -> Object {
    string_enum(NotificationType::ALL.iter().map(|t| t.as_str()))
}

fn frequency_schema() -> Object {
    string_enum(Frequency::ALL.iter().map(|f| f.as_str()))
}

/// `{"deleted": n}`: how many rows a clean-up removed.
#[derive(Serialize, ToSchema)]
struct NotificationsDeleted {
    deleted: u64,
}

impl NotificationsDeleted {
    pub(super) fn new(deleted: u64) -> Self {
        Self { deleted }
    }
}
