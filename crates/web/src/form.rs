//! Forms: a token bound to the session in every form, and the extractor that checks it
//! before the fields are read.
//!
//! The token is `HMAC(key, session token)` with a key derived from `AUTH_SECRET`, so
//! it needs no storage, changes with every login and is worthless to another session.

use crate::page_error::PageError;
use crate::session;
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use futures_util::future::LocalBoxFuture;
use reviewd_api::extract::SESSION_COOKIE;
use reviewd_crypto::constant_time_eq;
use serde::de::DeserializeOwned;

/// The name of the hidden field every form carries.
pub const FIELD: &str = "csrf";
/// Forms are small; anything larger is not one of ours.
const LIMIT: usize = 256 * 1024;

/// The fields of a form that is only a button (its token is all it carries).
#[derive(serde::Deserialize)]
pub struct NoFields {}

/// A submitted form: its typed fields, and every pair as sent (for repeated fields
/// such as the checked boxes of a batch action). The token was checked.
pub struct PageForm<T> {
    pub fields: T,
    pub pairs: Vec<(String, String)>,
}

impl<T> PageForm<T> {
    /// Every value sent under `name` (checkbox lists).
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.pairs
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

fn verify(req: &HttpRequest, pairs: &[(String, String)]) -> Result<(), PageError> {
    let state = session::state(req)?;
    let sent = pairs
        .iter()
        .find(|(k, _)| k == FIELD)
        .map(|(_, v)| v.as_str());
    let session = req.cookie(SESSION_COOKIE);
    match (sent, session) {
        (Some(sent), Some(cookie)) => {
            let expected = session::form_token(&state.settings.auth_secret, cookie.value());
            if constant_time_eq(sent.as_bytes(), expected.as_bytes()) {
                Ok(())
            } else {
                Err(PageError::Forbidden(
                    "this form has expired or was not sent from this app: reload the page and try again"
                        .to_owned(),
                ))
            }
        }
        _ => Err(PageError::Forbidden(
            "this form has no valid token: reload the page and try again".to_owned(),
        )),
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for PageForm<T> {
    type Error = PageError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let req = req.clone();
        let body = web::Bytes::from_request(&req, payload);
        Box::pin(async move {
            let body = body
                .await
                .map_err(|e| PageError::BadRequest(format!("the form could not be read: {e}")))?;
            if body.len() > LIMIT {
                return Err(PageError::BadRequest("the form is too large".to_owned()));
            }
            let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(&body)
                .map_err(|e| PageError::BadRequest(format!("the form is malformed: {e}")))?;
            verify(&req, &pairs)?;
            // PostgreSQL stores no NUL in text: say which field had one, store nothing.
            if let Some((name, _)) = pairs
                .iter()
                .find(|(k, v)| k.contains('\0') || v.contains('\0'))
            {
                return Err(PageError::BadRequest(format!(
                    "the field “{}” contains the NUL character",
                    name.replace('\0', "")
                )));
            }
            let single: Vec<(String, String)> =
                pairs
                    .iter()
                    .filter(|(k, _)| k != FIELD)
                    .fold(Vec::new(), |mut acc, (k, v)| {
                        // The last of repeated names wins for the typed view; `all` has every one.
                        acc.retain(|(ak, _): &(String, String)| ak != k);
                        acc.push((k.clone(), v.clone()));
                        acc
                    });
            let encoded = serde_urlencoded::to_string(&single)
                .map_err(|e| PageError::BadRequest(e.to_string()))?;
            let fields = serde_urlencoded::from_str(&encoded).map_err(|e| {
                PageError::BadRequest(format!("a field of the form is invalid: {e}"))
            })?;
            Ok(PageForm { fields, pairs })
        })
    }
}
