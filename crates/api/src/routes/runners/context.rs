//! The context's wire shapes and the domain's: the settings a claimed task
//! carries out, and what a result brings back (each file's context, what
//! gathering cost, the summary note).

use reviewd_domain::context as domain;
use reviewd_domain::review::mr_summary;
use reviewd_domain::review::tools;
use reviewd_domain::review::tools::settings::RepoTools;
use reviewd_runner_protocol as protocol;

pub(super) fn settings_dto(s: domain::ContextSettings) -> protocol::ContextSettings {
    protocol::ContextSettings {
        mode: match s.mode {
            domain::ContextMode::Full => protocol::ContextMode::Full,
            domain::ContextMode::None => protocol::ContextMode::None,
        },
        budget_tokens: s.budget_tokens,
        max_calls: s.max_calls,
        max_bytes: s.max_bytes,
        max_file_bytes: s.max_file_bytes,
        index_repository: s.index_repository,
        max_index_files: u64::try_from(s.max_index_files).unwrap_or(u64::MAX),
        always: s.always,
        never: s.never,
        ignore: s.ignore,
        instructions: s.instructions,
        guidance_files: s.guidance_files,
    }
}

fn kind(k: protocol::PieceKind) -> domain::PieceKind {
    match k {
        protocol::PieceKind::Enclosing => domain::PieceKind::Enclosing,
        protocol::PieceKind::Window => domain::PieceKind::Window,
        protocol::PieceKind::Definition => domain::PieceKind::Definition,
        protocol::PieceKind::Caller => domain::PieceKind::Caller,
        protocol::PieceKind::Pinned => domain::PieceKind::Pinned,
        protocol::PieceKind::Guidance => domain::PieceKind::Guidance,
        protocol::PieceKind::Overview => domain::PieceKind::Overview,
    }
}

pub(super) fn report(r: protocol::ContextReport) -> domain::ContextReport {
    domain::ContextReport {
        tokens: r.tokens,
        budget: r.budget,
        pieces: r
            .pieces
            .into_iter()
            .map(|p| domain::PieceReport {
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
        tools: r.tools.into_iter().filter_map(evidence).collect(),
    }
}

/// A finding's fate as the runner reports it; an unknown outcome or severity is
/// left out (the comments it produced arrive on their own).
fn evidence(e: protocol::RunnerToolEvidence) -> Option<tools::ToolEvidence> {
    Some(tools::ToolEvidence {
        tool: e.tool,
        rule: e.rule,
        line: e.line,
        severity: e.severity.parse().ok()?,
        message: e.message,
        outcome: [
            tools::Outcome::Posted,
            tools::Outcome::Merged,
            tools::Outcome::Dismissed,
            tools::Outcome::Unconfirmed,
        ]
        .into_iter()
        .find(|o| o.as_str() == e.outcome)?,
        reason: e.reason,
    })
}

/// `.reviewd.yml`'s `tools:` as a claimed task carries it, defaults resolved.
pub(super) fn tools_dto(t: RepoTools) -> protocol::RunnerTools {
    protocol::RunnerTools {
        timeout_secs: t.timeout_secs(),
        memory_mb: t.memory_mb(),
        post: match t.post {
            tools::PostMode::Confirmed => "confirmed".into(),
            tools::PostMode::All => "all".into(),
        },
        run: t.run,
        semgrep_rules: t.semgrep_rules,
        commands: t
            .commands
            .into_iter()
            .map(|c| protocol::RunnerToolCommand {
                name: c.name,
                run: c.run,
                sarif: c.sarif,
            })
            .collect(),
    }
}

pub(super) fn stats(s: protocol::ContextStats) -> domain::ContextStats {
    domain::ContextStats {
        mode: s.mode,
        source: s.source,
        calls: s.calls,
        bytes: s.bytes,
        cache_hits: s.cache_hits,
        limited: s.limited,
        errors: s.errors,
        indexed_files: usize::try_from(s.indexed_files).unwrap_or(usize::MAX),
        indexed_lines: usize::try_from(s.indexed_lines).unwrap_or(usize::MAX),
        guidance: s.guidance,
        shared_tokens: s.shared_tokens,
        elapsed_ms: s.elapsed_ms,
    }
}

pub(super) fn summary(s: protocol::MrSummary) -> mr_summary::MrSummary {
    mr_summary::MrSummary {
        summary: s.summary,
        files: s
            .files
            .into_iter()
            .map(|f| mr_summary::FileChange {
                path: f.path,
                change: f.change,
            })
            .collect(),
        risks: s.risks,
    }
}
