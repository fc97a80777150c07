//! hostB adapter.
