//! Which configuration a review (or a runner's task) is sent to: the project's, else the
//! default, else providerA; one in use is not deleted; an unusable provider fails the review
//! with the reason.

mod bound;
mod choice;
mod fallbacks;
mod runners;

use super::*;
