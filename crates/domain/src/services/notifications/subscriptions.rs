//! Browser push subscriptions.

use super::NotificationService;
use crate::http_url;
use crate::model::notification::{NewPushSubscription, PushSubscription};
use crate::services::{FieldError, ServiceError};
use uuid::Uuid;

impl NotificationService {
    /// # Errors
    /// `Invalid` for an endpoint that is not an https (or, for tests, http) URL.
    pub async fn subscribe(
        &self,
        sub: NewPushSubscription,
    ) -> Result<PushSubscription, ServiceError> {
        let mut errors = Vec::new();
        if let Err(why) = check_push_endpoint(&sub.endpoint, self.settings.push_allow_private) {
            errors.push(FieldError::new("endpoint", why));
        }
        if !is_base64url(&sub.p256dh) || sub.p256dh.len() < 80 {
            errors.push(FieldError::new(
                "keys.p256dh",
                "must be the browser's P-256 public key, base64url",
            ));
        }
        if !is_base64url(&sub.auth) || sub.auth.len() < 16 {
            errors.push(FieldError::new(
                "keys.auth",
                "must be the browser's 16-byte auth secret, base64url",
            ));
        }
        if !errors.is_empty() {
            return Err(ServiceError::Invalid(errors));
        }
        Ok(self.repo.subscribe(sub).await?)
    }

    /// # Errors
    /// Store failures.
    pub async fn subscriptions(
        &self,
        user: Option<Uuid>,
    ) -> Result<Vec<PushSubscription>, ServiceError> {
        Ok(self.repo.subscriptions(user).await?)
    }

    /// # Errors
    /// `NotFound` for an unknown endpoint.
    pub async fn touch(&self, endpoint: &str) -> Result<(), ServiceError> {
        self.repo
            .touch(endpoint)
            .await
            .map_err(|e| ServiceError::from_repo(e, "push subscription"))
    }

    /// # Errors
    /// `NotFound` for an unknown endpoint.
    pub async fn unsubscribe(&self, endpoint: &str) -> Result<(), ServiceError> {
        self.repo
            .unsubscribe(endpoint)
            .await
            .map_err(|e| ServiceError::from_repo(e, "push subscription"))
    }

    /// # Errors
    /// Store failures.
    pub async fn clean_subscriptions(&self) -> Result<u64, ServiceError> {
        Ok(self.repo.clean_subscriptions().await?)
    }
}

/// A push endpoint must be a push service's https URL. Any signed-in user may
/// subscribe, and the server then posts to the endpoint on every event: an address
/// on this host or its private network is refused, so the server cannot be pointed
/// at internal services. (A public name that resolves to a private address is not
/// caught here.)
pub(super) fn check_push_endpoint(endpoint: &str, allow_private: bool) -> Result<(), &'static str> {
    let schemes: &[&str] = if allow_private {
        &["https", "http"]
    } else {
        &["https"]
    };
    if endpoint.len() > 2048 {
        return Err("must be the push service's https URL");
    }
    let url =
        http_url::parse(endpoint, schemes).map_err(|_| "must be the push service's https URL")?;
    if !allow_private && http_url::is_private(&url) {
        return Err("must be a push service on the internet, not a local or private address");
    }
    Ok(())
}

pub(super) fn is_base64url(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'='))
}
