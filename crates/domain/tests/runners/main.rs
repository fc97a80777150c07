//! Runners on the in-memory adapters: claims, results, and silent runners swept on
//! the fake clock.

mod claims;
mod pricing;

use reviewd_domain::model::TaskStatus;
use reviewd_domain::model::runner::RunnerStatus;
use reviewd_domain::services::ServiceError;
use reviewd_testkit::world::{runner_registration, runner_success, world_with_tasks};
use std::time::Duration;
use uuid::Uuid;
