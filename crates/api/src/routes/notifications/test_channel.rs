//! A test message on one channel.

use super::channel_schema;
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::AuthUser;
use crate::state::AppState;
use actix_web::{HttpResponse, post, web};
use reviewd_domain::ErrorCode;
use reviewd_domain::model::notification::Channel;
use reviewd_domain::services::notifications::TestResult;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

fn channel(value: &str) -> Result<Channel, ApiError> {
    Channel::parse(value).ok_or_else(|| {
        ApiError::bad_request(
            ErrorCode::ValidationFailed,
            "channel must be email, webhook, chatA, chatB, chatC, chatD or push",
        )
    })
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct TestChannelBody {
    #[schema(schema_with = channel_schema)]
    channel: String,
}

/// Sends a test message on one channel to each of its recipients (not recorded
/// in the history); the result says what failed.
#[utoipa::path(
    request_body = TestChannelBody,
    responses((status = 200, body = Data<ChannelTestView>))
)]
#[post("/config/test-channel")]
pub(super) async fn test_notification_channel(
    state: web::Data<AppState>,
    _user: AuthUser,
    body: web::Json<TestChannelBody>,
) -> Result<HttpResponse, ApiError> {
    let result = state
        .notifications
        .test_channel(channel(&body.channel)?)
        .await?;
    Ok(envelope::ok(ChannelTestView::from(result)))
}

/// The outcome of a test delivery on one channel.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ChannelTestResultDto {
    #[schema(schema_with = channel_schema)]
    channel: &'static str,
    /// What failed, per recipient; null when every delivery went out.
    error: Option<String>,
    /// How many recipients the channel has (each got one message).
    recipients: usize,
    success: bool,
}

/// `{"result": {...}}`.
#[derive(Serialize, ToSchema)]
struct ChannelTestView {
    result: ChannelTestResultDto,
}

impl From<TestResult> for ChannelTestView {
    fn from(r: TestResult) -> Self {
        Self {
            result: ChannelTestResultDto {
                channel: r.channel.as_str(),
                error: r.error,
                recipients: r.recipients,
                success: r.success,
            },
        }
    }
}
