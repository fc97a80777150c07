//! The context's wire shapes and the engine's: the settings a claimed task
//! brings (the runner reads locally, so its read budget is its own), and what
//! goes back with the result.

use reviewd_domain::context as domain;
use reviewd_domain::review::mr_summary;
use reviewd_domain::review::tools::PostMode;
use reviewd_domain::review::tools::settings::{RepoTools, ToolCommand};
use reviewd_runner_protocol as protocol;

/// Reads from the clone per task: local reads cost no platform quota, so the
/// bound is only against a runaway.
const LOCAL_READS: u32 = 20_000;

/// The task's settings (the defaults when the server sent none).
pub fn settings(s: Option<protocol::ContextSettings>) -> domain::ContextSettings {
    let Some(s) = s else {
        return domain::ContextSettings {
            max_calls: LOCAL_READS,
            ..domain::ContextSettings::default()
        };
    };
    domain::ContextSettings {
        mode: match s.mode {
            protocol::ContextMode::Full => domain::ContextMode::Full,
            protocol::ContextMode::None => domain::ContextMode::None,
        },
        budget_tokens: s.budget_tokens,
        max_calls: s.max_calls.max(LOCAL_READS),
        max_bytes: s.max_bytes,
        max_file_bytes: s.max_file_bytes,
        index_repository: s.index_repository,
        max_index_files: usize::try_from(s.max_index_files).unwrap_or(usize::MAX),
        always: s.always,
        never: s.never,
        ignore: s.ignore,
        instructions: s.instructions,
        guidance_files: s.guidance_files,
    }
}

fn kind(k: domain::PieceKind) -> protocol::PieceKind {
    match k {
        domain::PieceKind::Enclosing => protocol::PieceKind::Enclosing,
        domain::PieceKind::Window => protocol::PieceKind::Window,
        domain::PieceKind::Definition => protocol::PieceKind::Definition,
        domain::PieceKind::Caller => protocol::PieceKind::Caller,
        domain::PieceKind::Pinned => protocol::PieceKind::Pinned,
        domain::PieceKind::Guidance => protocol::PieceKind::Guidance,
        domain::PieceKind::Overview => protocol::PieceKind::Overview,
    }
}

pub fn report(r: domain::ContextReport) -> protocol::ContextReport {
    protocol::ContextReport {
        tokens: r.tokens,
        budget: r.budget,
        pieces: r
            .pieces
            .into_iter()
            .map(|p| protocol::ContextPiece {
                kind: kind(p.kind),
                path: p.path,
                symbol: p.symbol,
                start_line: p.start_line,
                end_line: p.end_line,
                tokens: p.tokens,
                reason: p.reason,
            })
            .collect(),
        dropped: r.dropped,
        masked: r.masked,
        tools: r
            .tools
            .into_iter()
            .map(|e| protocol::RunnerToolEvidence {
                tool: e.tool,
                rule: e.rule,
                line: e.line,
                severity: e.severity.as_str().into(),
                message: e.message,
                outcome: e.outcome.as_str().into(),
                reason: e.reason,
            })
            .collect(),
    }
}

/// The task's `tools:` (an older server sends none: the defaults).
#[must_use]
pub fn tools(t: Option<protocol::RunnerTools>) -> RepoTools {
    let Some(t) = t else {
        return RepoTools::default();
    };
    RepoTools {
        run: t.run,
        post: if t.post == "all" {
            PostMode::All
        } else {
            PostMode::Confirmed
        },
        timeout_secs: Some(t.timeout_secs),
        memory_mb: Some(t.memory_mb),
        semgrep_rules: t.semgrep_rules,
        commands: t
            .commands
            .into_iter()
            .map(|c| ToolCommand {
                name: c.name,
                run: c.run,
                sarif: c.sarif,
            })
            .collect(),
    }
}

pub fn stats(s: &domain::ContextStats) -> protocol::ContextStats {
    protocol::ContextStats {
        mode: s.mode.clone(),
        source: s.source.clone(),
        calls: s.calls,
        bytes: s.bytes,
        cache_hits: s.cache_hits,
        limited: s.limited,
        errors: s.errors.clone(),
        indexed_files: u64::try_from(s.indexed_files).unwrap_or(u64::MAX),
        indexed_lines: u64::try_from(s.indexed_lines).unwrap_or(u64::MAX),
        guidance: s.guidance.clone(),
        shared_tokens: s.shared_tokens,
        elapsed_ms: s.elapsed_ms,
    }
}

pub fn summary(s: mr_summary::MrSummary) -> protocol::MrSummary {
    protocol::MrSummary {
        summary: s.summary,
        files: s
            .files
            .into_iter()
            .map(|f| protocol::FileChange {
                path: f.path,
                change: f.change,
            })
            .collect(),
        risks: s.risks,
    }
}
