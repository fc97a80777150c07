//! The scenarios, in the order they run. Each starts its own world, strikes once,
//! and concludes with its table row (asserting the zeros).

mod crash;
mod flood;
mod replicas;
mod runners;
mod stores;
mod talk;

use crate::run::Run;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

pub type Body = Pin<Box<dyn Future<Output = ()> + Send>>;

pub struct Scenario {
    /// What `CHAOS_SCENARIOS` and the command line name it by.
    pub name: &'static str,
    pub run: fn(i64) -> Body,
    /// Skipped, for this reason (a server defect it finds, until fixed); run anyway
    /// with `CHAOS_INCLUDE_IGNORED=1`.
    pub ignored: Option<&'static str>,
}

pub const ALL: [Scenario; 13] = [
    Scenario {
        name: "kill_mid_review",
        run: |n| Box::pin(crash::kill_mid_review(n)),
        ignored: None,
    },
    Scenario {
        name: "kill_mid_posting",
        run: |n| Box::pin(crash::kill_mid_posting(n)),
        ignored: None,
    },
    Scenario {
        name: "kill_mid_webhooks",
        run: |n| Box::pin(crash::kill_mid_webhooks(n)),
        ignored: None,
    },
    Scenario {
        name: "redis_restarted_empty",
        run: |n| Box::pin(stores::redis_restarted_empty(n)),
        ignored: None,
    },
    Scenario {
        name: "redis_restarted_persistent",
        run: |n| Box::pin(stores::redis_restarted_persistent(n)),
        ignored: None,
    },
    Scenario {
        name: "postgres_killed_3s",
        run: |n| Box::pin(stores::postgres_killed(n)),
        ignored: None,
    },
    Scenario {
        name: "replica_killed",
        run: |n| Box::pin(replicas::replica_killed(n)),
        ignored: None,
    },
    Scenario {
        name: "replica_frozen",
        run: |n| Box::pin(replicas::replica_frozen(n)),
        ignored: None,
    },
    Scenario {
        name: "runner_killed",
        run: |n| Box::pin(runners::runner_killed(n)),
        ignored: None,
    },
    Scenario {
        name: "postgres_down_30s",
        run: |n| Box::pin(stores::postgres_down_30s(n)),
        ignored: None,
    },
    Scenario {
        name: "kill_mid_answer",
        run: |n| Box::pin(talk::kill_mid_answer(n)),
        ignored: None,
    },
    Scenario {
        name: "redis_lost_mid_answer",
        run: |n| Box::pin(talk::redis_lost_mid_answer(n)),
        ignored: None,
    },
    Scenario {
        name: "webhook_flood",
        run: |n| Box::pin(flood::webhook_flood(n)),
        ignored: None,
    },
];

/// The webhooks that were not accepted (every one is expected to be).
fn refused(statuses: &[u16]) -> Vec<String> {
    let refused = statuses.iter().filter(|s| **s != 200).count();
    if refused == 0 {
        return Vec::new();
    }
    vec![format!("{refused} webhooks not accepted: {statuses:?}")]
}

/// Sends the refused webhooks of `waiting` again every 500 ms, as GitLab does, for
/// at most 30 s; reports the MRs still refused (the store was back, or the server
/// started again).
pub(super) async fn resend_refused(run: &mut Run, mut waiting: Vec<i64>) -> Vec<String> {
    let resend_until = Instant::now() + Duration::from_secs(30);
    while !waiting.is_empty() && Instant::now() < resend_until {
        let statuses = run.send_webhooks(waiting.clone()).await;
        waiting = waiting
            .into_iter()
            .zip(statuses)
            .filter(|(_, s)| *s != 200)
            .map(|(iid, _)| iid)
            .collect();
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    if waiting.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "webhooks of MRs {waiting:?} still refused 30 s after the fault"
    )]
}
