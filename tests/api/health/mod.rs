mod checks;
mod liveness;
mod metrics;

use crate::helpers::{TestApp, expect_error, json};
use reqwest::StatusCode;
