//! A review rule as the engine applies it (the catalog stores and edits it).

use uuid::Uuid;

/// A rule as the engine applies it (and as a runner receives it with its task).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveRule {
    pub id: Uuid,
    pub rule_name: String,
    pub instructions: String,
    pub file_type_patterns: Vec<String>,
    pub file_path_patterns: Vec<String>,
    pub priority: i32,
}
