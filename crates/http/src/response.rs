//! A response read in full: what every call of the client returns, and what the retry loop
//! classifies.

use crate::HttpError;
use bytes::Bytes;
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;

/// A response read in full.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl HttpResponse {
    /// # Errors
    /// `Decode` when the body is not the expected JSON.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, HttpError> {
        serde_json::from_slice(&self.body).map_err(|e| HttpError::Decode(e.to_string()))
    }

    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}
