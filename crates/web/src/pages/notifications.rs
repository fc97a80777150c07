//! `/notifications`: the channels' settings with a test for each, VAPID keys, this
//! browser's push subscription, and the delivery history.

use crate::form::{NoFields, PageForm};
use crate::page_error::{PageError, describe};
use crate::pager::Pager;
use crate::render::{self, Chrome};
use crate::session::{Viewer, state};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use reviewd_domain::PageRequest;
use reviewd_domain::model::notification::{
    Channel, DeliveryCount, DeliveryStatus, Frequency, HistoryFilter, NotificationConfig,
    NotificationConfigPatch, NotificationRecord,
};
use reviewd_domain::model::{Permission, SecretString};
use reviewd_domain::services::ServiceError;
use serde::Deserialize;

crate::render::pages!(NotificationsPage);
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/notifications", web::get().to(show))
        .route("/notifications", web::post().to(save))
        .route("/notifications/test", web::post().to(test))
        .route("/notifications/vapid", web::post().to(generate_vapid));
}

#[derive(Deserialize, Default)]
struct HistoryQuery {
    channel: Option<String>,
    status: Option<String>,
    page: Option<u32>,
}

#[derive(Template)]
#[template(path = "notifications.html")]
struct NotificationsPage {
    chrome: Chrome,
    config: NotificationConfig,
    history: Vec<NotificationRecord>,
    stats: Vec<DeliveryCount>,
    query: HistoryQuery,
    pager: Pager,
    channels: &'static [Channel],
    statuses: &'static [DeliveryStatus],
    frequencies: &'static [Frequency],
    /// The private key of a pair just generated: shown on this answer only.
    new_private_key: Option<String>,
    error: Option<String>,
}

impl NotificationsPage {
    fn lines(values: &[String]) -> String {
        values.join("\n")
    }
}

async fn page(
    req: &HttpRequest,
    viewer: &Viewer,
    query: HistoryQuery,
) -> Result<NotificationsPage, PageError> {
    let state = state(req)?;
    let filter = HistoryFilter {
        channel: query.channel.as_deref().and_then(Channel::parse),
        status: query.status.as_deref().and_then(DeliveryStatus::parse),
        ..HistoryFilter::default()
    };
    let history = state
        .notifications
        .history(&filter, PageRequest::new(query.page.unwrap_or(1), 20, 20))
        .await?;
    let qs = crate::pager::filters_query(&[
        ("channel", query.channel.as_deref()),
        ("status", query.status.as_deref()),
    ]);
    let pager = Pager::new(&history, "/notifications", &qs);
    Ok(NotificationsPage {
        chrome: Chrome::new(viewer, "notifications", "Notifications"),
        config: state.notifications.config().await?,
        history: history.items,
        stats: state.notifications.stats(None, None).await?,
        query,
        pager,
        channels: Channel::ALL,
        statuses: DeliveryStatus::ALL,
        frequencies: Frequency::ALL,
        new_private_key: None,
        error: None,
    })
}

async fn show(
    req: HttpRequest,
    viewer: Viewer,
    query: web::Query<HistoryQuery>,
) -> Result<HttpResponse, PageError> {
    render::page(&page(&req, &viewer, query.into_inner()).await?)
}

/// Every field of the settings form. Secret fields left empty keep their stored value.
#[derive(Deserialize)]
struct SettingsForm {
    email_enabled: Option<String>,
    #[serde(default)]
    smtp_host: String,
    #[serde(default)]
    smtp_port: String,
    smtp_secure: Option<String>,
    #[serde(default)]
    smtp_username: String,
    #[serde(default)]
    smtp_password: String,
    #[serde(default)]
    email_from: String,
    #[serde(default)]
    email_recipients: String,
    webhook_enabled: Option<String>,
    #[serde(default)]
    webhook_urls: String,
    #[serde(default)]
    webhook_secret: String,
    chat_a_enabled: Option<String>,
    #[serde(default)]
    chat_a_bot_token: String,
    #[serde(default)]
    chat_a_channels: String,
    chat_b_enabled: Option<String>,
    #[serde(default)]
    chat_b_webhook_url: String,
    chat_c_enabled: Option<String>,
    #[serde(default)]
    chat_c_webhook_url: String,
    chat_d_enabled: Option<String>,
    #[serde(default)]
    chat_d_webhook_url: String,
    #[serde(default)]
    chat_d_secret: String,
    push_enabled: Option<String>,
    #[serde(default)]
    vapid_subject: String,
    notify_on_review_completed: Option<String>,
    notify_on_review_failed: Option<String>,
    notify_on_rating_low: Option<String>,
    #[serde(default)]
    rating_threshold: String,
    #[serde(default)]
    notification_frequency: String,
}

fn text(v: &str) -> Option<String> {
    Some(v.trim().to_owned()).filter(|v| !v.is_empty())
}

/// One entry a line (or comma-separated).
fn list(v: &str) -> Vec<String> {
    v.split(['\n', ','])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A typed secret replaces the stored one; an empty field keeps it.
fn secret(v: &str) -> Option<Option<SecretString>> {
    text(v).map(|s| Some(SecretString::new(s)))
}

impl SettingsForm {
    fn patch(self) -> Result<NotificationConfigPatch, ServiceError> {
        let port = match text(&self.smtp_port) {
            None => None,
            Some(p) => Some(p.parse::<u16>().map_err(|_| {
                ServiceError::invalid("smtpPort", "must be a port number (1-65535)")
            })?),
        };
        let threshold = self.rating_threshold.trim().parse::<i32>().map_err(|_| {
            ServiceError::invalid("ratingThreshold", "must be a number from 0 to 100")
        })?;
        let frequency = Frequency::parse(&self.notification_frequency).ok_or_else(|| {
            ServiceError::invalid(
                "notificationFrequency",
                "must be immediate, daily or weekly",
            )
        })?;
        Ok(NotificationConfigPatch {
            email_enabled: Some(self.email_enabled.is_some()),
            smtp_host: Some(text(&self.smtp_host)),
            smtp_port: Some(port),
            smtp_secure: Some(self.smtp_secure.is_some()),
            smtp_username: Some(text(&self.smtp_username)),
            smtp_password: secret(&self.smtp_password),
            email_from: Some(text(&self.email_from)),
            email_recipients: Some(list(&self.email_recipients)),
            webhook_enabled: Some(self.webhook_enabled.is_some()),
            webhook_urls: Some(list(&self.webhook_urls)),
            webhook_secret: secret(&self.webhook_secret),
            slack_enabled: Some(self.chat_a_enabled.is_some()),
            slack_bot_token: secret(&self.chat_a_bot_token),
            slack_channels: Some(list(&self.chat_a_channels)),
            discord_enabled: Some(self.chat_b_enabled.is_some()),
            discord_webhook_url: secret(&self.chat_b_webhook_url),
            teams_enabled: Some(self.chat_c_enabled.is_some()),
            teams_webhook_url: secret(&self.chat_c_webhook_url),
            feishu_enabled: Some(self.chat_d_enabled.is_some()),
            feishu_webhook_url: secret(&self.chat_d_webhook_url),
            feishu_secret: secret(&self.chat_d_secret),
            push_enabled: Some(self.push_enabled.is_some()),
            vapid_subject: Some(text(&self.vapid_subject)),
            notify_on_review_completed: Some(self.notify_on_review_completed.is_some()),
            notify_on_review_failed: Some(self.notify_on_review_failed.is_some()),
            notify_on_rating_low: Some(self.notify_on_rating_low.is_some()),
            rating_threshold: Some(threshold),
            notification_frequency: Some(frequency),
        })
    }
}

async fn save(
    req: HttpRequest,
    viewer: Viewer,
    form: PageForm<SettingsForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigUpdate)?;
    let state = state(&req)?;
    let (result, sent) = match form.fields.patch() {
        Ok(patch) => (state.notifications.update(patch.clone()).await, Some(patch)),
        Err(e) => (Err(e), None),
    };
    match result {
        Ok(_) => Ok(render::redirect_with(
            "/notifications",
            "Notification settings saved.",
        )),
        Err(err @ ServiceError::Invalid(_)) => {
            let mut page = page(&req, &viewer, HistoryQuery::default()).await?;
            // Shown again as typed (secrets stay masked), so nothing has to be retyped.
            if let Some(sent) = sent {
                page.config = sent.apply(page.config.clone());
            }
            page.error = Some(describe(&err));
            render::html(StatusCode::BAD_REQUEST, &page)
        }
        Err(err) => Err(err.into()),
    }
}

#[derive(Deserialize)]
struct TestForm {
    channel: String,
}

async fn test(
    req: HttpRequest,
    viewer: Viewer,
    form: PageForm<TestForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigUpdate)?;
    let channel = Channel::parse(&form.fields.channel)
        .ok_or_else(|| PageError::BadRequest("unknown channel".to_owned()))?;
    match state(&req)?.notifications.test_channel(channel).await {
        Ok(r) if r.success => Ok(render::redirect_with(
            "/notifications",
            &format!(
                "Test sent through {} to {} recipient(s).",
                channel.as_str(),
                r.recipients
            ),
        )),
        Ok(r) => Ok(render::redirect_error(
            "/notifications",
            &format!(
                "The {} test failed: {}",
                channel.as_str(),
                r.error.unwrap_or_else(|| "no reason given".to_owned())
            ),
        )),
        Err(err @ (ServiceError::Invalid(_) | ServiceError::BadRequest { .. })) => {
            Ok(render::redirect_error("/notifications", &describe(&err)))
        }
        Err(err) => Err(err.into()),
    }
}

async fn generate_vapid(
    req: HttpRequest,
    viewer: Viewer,
    _form: PageForm<NoFields>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigUpdate)?;
    let keys = state(&req)?.notifications.generate_vapid_keys().await?;
    let mut page = page(&req, &viewer, HistoryQuery::default()).await?;
    page.new_private_key = Some(keys.private_key.expose().to_owned());
    render::page(&page)
}
