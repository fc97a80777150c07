//! Platform configs end to end: creating, updating and deleting connections, testing
//! them, OAuth, and who may write them. This module holds the token the cases
//! share; each child is one topic.

mod connection;
mod create;
mod oauth;
mod permissions;
mod update;

pub(crate) const TOKEN: &str = "glpat-secret-token-123";
