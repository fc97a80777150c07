//! No input makes a 5xx: NUL and control characters anywhere a client can put them are
//! 400s naming where they were, and the defects found by hand have their regression
//! tests here (issue 13).

mod credentials;
mod dates_and_numbers;
mod nul;
mod references;
mod runners_and_push;
mod urls_and_names;

use crate::helpers::{TestApp, expect_error, json};
use crate::runners::api_key;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A browser's push subscription keys (valid shapes).
fn push_keys() -> Value {
    json!({
        "p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
        "auth": "tBHItJI5svbpez7KI4CCXg"
    })
}

/// The field names of a `VALIDATION_FAILED` answer.
fn fields(body: &Value) -> Vec<String> {
    body["error"]["details"]["fields"]
        .as_object()
        .map(|f| f.keys().cloned().collect())
        .unwrap_or_default()
}
