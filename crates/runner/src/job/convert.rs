//! The protocol's types and the engine's, which know nothing of each other.

use reviewd_domain::model::diff::ChangeType;
use reviewd_domain::ports::ActiveRule;
use reviewd_domain::review::rating::Severity;
use reviewd_runner_protocol as protocol;

pub(super) fn active_rule(r: &protocol::RunnerRule) -> ActiveRule {
    ActiveRule {
        id: r.id,
        rule_name: r.rule_name.clone(),
        instructions: r.instructions.clone(),
        file_type_patterns: r.file_type_patterns.clone(),
        file_path_patterns: r.file_path_patterns.clone(),
        priority: r.priority,
    }
}

pub(super) fn change_type(c: protocol::ChangeType) -> ChangeType {
    match c {
        protocol::ChangeType::New => ChangeType::New,
        protocol::ChangeType::Modified => ChangeType::Modified,
        protocol::ChangeType::Deleted => ChangeType::Deleted,
        protocol::ChangeType::Renamed => ChangeType::Renamed,
    }
}

pub(super) fn severity(s: protocol::Severity) -> Severity {
    match s {
        protocol::Severity::Info => Severity::Info,
        protocol::Severity::Warning => Severity::Warning,
        protocol::Severity::Error => Severity::Error,
    }
}

pub(super) fn severity_dto(s: Severity) -> protocol::Severity {
    match s {
        Severity::Info => protocol::Severity::Info,
        Severity::Warning => protocol::Severity::Warning,
        Severity::Error => protocol::Severity::Error,
    }
}
