//! GitLab's webhook events: what queues a review, what is acknowledged and left, tokens and
//! bodies checked in order.

mod checks;
mod commands;
mod queueing;

use super::*;
