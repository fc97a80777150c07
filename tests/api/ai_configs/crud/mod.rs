//! Storing, changing, electing and deleting configurations, and trying settings.

mod default;
mod deletion;
mod refusals;
mod stored;
mod trial;

use super::{bind, config, create, models_server};
use crate::helpers::{TestApp, expect_error, json};
use reqwest::StatusCode;
use serde_json::{Value, json};
use uuid::Uuid;
