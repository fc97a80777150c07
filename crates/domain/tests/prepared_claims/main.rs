//! Rounds prepared ahead of runners' claims, on the in-memory adapters: a prepared
//! round is handed out without a platform call, an idle claim still prepares
//! inline, a superseded task's prepared round is ended, and the preparer racing
//! claims never gives one task to two runners.

mod handing_out;
mod races;
mod supersedes;

use reviewd_domain::model::TaskStatus;
use reviewd_testkit::fakes::hosting::{Op, ProjectFixture};
use reviewd_testkit::world::{World, mr, runner_registration, runner_success, world_with_tasks};
use uuid::Uuid;
