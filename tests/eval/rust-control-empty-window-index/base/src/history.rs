//! Keeps recent metric snapshots for the dashboard.

use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct Snapshot {
    pub taken_at: Instant,
    pub requests: u64,
    pub errors: u64,
}

pub struct History {
    snapshots: Vec<Snapshot>,
    capacity: usize,
}

impl History {
    pub fn new(capacity: usize) -> Self {
        Self {
            snapshots: Vec::with_capacity(capacity),
            capacity,
        }
    }

    pub fn push(&mut self, snapshot: Snapshot) {
        if self.snapshots.len() == self.capacity {
            self.snapshots.remove(0);
        }
        self.snapshots.push(snapshot);
    }

    pub fn len(&self) -> usize {
        self.snapshots.len()
    }

    pub fn error_rate(&self) -> f64 {
        let (req, err) = self
            .snapshots
            .iter()
            .fold((0u64, 0u64), |(r, e), s| (r + s.requests, e + s.errors));
        if req == 0 {
            0.0
        } else {
            err as f64 / req as f64
        }
    }
}

pub const DEFAULT_WINDOW: Duration = Duration::from_secs(300);
