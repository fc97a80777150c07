//! The runner protocol: what a `reviewd-runner` and the reviewd server say to each
//! other under `/api/runners`. Each body is one of these types on both sides: the
//! server (`reviewd-app`, which turns on the `openapi` feature to document them) and
//! the runner agent. The server wraps every successful answer as `{"data": ...}`.
//!
//! | Call | Sends | Answer's `data` |
//! |---|---|---|
//! | `POST /api/runners/register` | the [`headers`], no body | [`Runner`] |
//! | `POST /api/runners/{runner_id}/heartbeat` | [`Heartbeat`] | [`HeartbeatAck`] |
//! | `GET /api/runners/tasks/pending` | [`PendingTasksQuery`] | a list of [`ClaimedTask`] |
//! | `POST /api/runners/tasks/{task_id}/status` | [`PhaseUpdate`] | [`PhaseAck`] |
//! | `POST /api/runners/tasks/{task_id}/logs` | [`LogBatch`] | [`LogsAck`] |
//! | `POST /api/runners/tasks/{task_id}/result` | [`RunnerResult`] | [`ResultAck`] |
//! | `DELETE /api/runners/{runner_id}` | | [`RunnerDeregistered`] |
//! | `GET /api/runners`, `GET /api/runners/{runner_id}` | | [`Runner`] (a list, one) |
//!
//! Values the server checks itself travel as text: a heartbeat's and a phase's
//! `status`, a result's `rating`. An unknown one is then the server's
//! `VALIDATION_FAILED` naming it, not a body that fails to parse; the enums
//! ([`RunnerStatus`], [`RunnerPhase`], [`Rating`]) write and read them.

mod claim;
mod context;
mod report;
mod runner;
mod tools;

pub use claim::{
    AssignedFile, ChangeType, ClaimedTask, CloneCredentials, PendingTasksQuery, RunnerAiConfig,
    RunnerRule,
};
pub use context::{
    ContextMode, ContextPiece, ContextReport, ContextSettings, ContextStats, FileChange, MrSummary,
    PieceKind,
};
pub use report::{
    LogBatch, LogsAck, MAX_LOG_LINES, PhaseAck, PhaseUpdate, Rating, ResultAck, RunnerComment,
    RunnerFileResult, RunnerMetrics, RunnerOutcome, RunnerPhase, RunnerResult, RunnerSuggestion,
    Severity, TaskStatus,
};
pub use runner::{
    DEFAULT_CONCURRENCY, Heartbeat, HeartbeatAck, MAX_CONCURRENCY, MAX_CURRENT_JOBS,
    MAX_RUNNER_ID_LEN, MIN_CONCURRENCY, Runner, RunnerDeregistered, RunnerStatus, headers,
};
pub use tools::{RunnerToolCommand, RunnerToolEvidence, RunnerTools};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bodies_keep_their_wire_names() {
        let beat = Heartbeat::new(RunnerStatus::Busy, 2);
        assert_eq!(
            serde_json::to_value(&beat).unwrap(),
            json!({ "status": "busy", "currentJobs": 2 })
        );
        assert_eq!(beat.status(), Some(RunnerStatus::Busy));
        assert_eq!(
            serde_json::to_value(PhaseUpdate::new(RunnerPhase::Cloning)).unwrap(),
            json!({ "status": "cloning" })
        );
        let unknown: PhaseUpdate = serde_json::from_value(json!({ "status": "dancing" })).unwrap();
        assert_eq!(unknown.phase(), None, "read as text, refused by the server");
        assert!(serde_json::from_value::<LogBatch>(json!({ "logs": [], "x": 1 })).is_err());
    }

    #[test]
    fn a_result_reads_as_the_runner_sends_it() {
        let body = json!({
            "runnerId": "r1", "status": "success", "totalComments": 1, "rating": "B",
            "files": [{ "filePath": "src/app.rs", "status": "success",
                "comments": [{ "line": 2, "severity": "error", "message": "m" }] }],
            "metrics": { "durationMs": 9, "containerPrepareMs": 1, "cloneMs": 2, "reviewMs": 3, "submitMs": 4 }
        });
        let result: RunnerResult = serde_json::from_value(body).unwrap();
        assert_eq!(result.files[0].comments[0].severity, Severity::Error);
        assert_eq!(result.files[0].summary, None);
        assert_eq!(result.metrics.tokens_used, None);
        assert_eq!(result.logs, None);
        assert_eq!(
            result.rating.as_deref().and_then(Rating::parse),
            Some(Rating::B)
        );
        assert_eq!(
            result.files[0].comments[0].suggestion, None,
            "a runner older than suggestions"
        );
    }

    #[test]
    fn a_suggestion_travels_with_its_comment_and_is_left_out_when_none() {
        let with = json!({ "line": 3, "severity": "warning", "message": "m",
            "suggestion": { "startLine": 2, "endLine": 3, "code": "a();\nb();" } });
        let comment: RunnerComment = serde_json::from_value(with.clone()).unwrap();
        assert_eq!(
            comment.suggestion,
            Some(RunnerSuggestion {
                start_line: 2,
                end_line: 3,
                code: "a();\nb();".into()
            })
        );
        assert_eq!(serde_json::to_value(&comment).unwrap(), with);
        let without = RunnerComment {
            suggestion: None,
            ..comment
        };
        assert_eq!(
            serde_json::to_value(&without).unwrap(),
            json!({ "line": 3, "severity": "warning", "message": "m" }),
            "no field a server older than suggestions would refuse"
        );
    }
}
