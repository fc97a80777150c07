//! hostA adapter.
