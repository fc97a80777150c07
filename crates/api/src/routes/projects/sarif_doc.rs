//! The SARIF log as the API document describes the upload's body: only the
//! parts reviewd reads (the body itself is read raw, by serde-sarif).

use utoipa::ToSchema;

/// A SARIF 2.1.0 log, as analyzers write it (only the parts reviewd reads are
/// described; every other SARIF property is accepted and ignored).
#[derive(ToSchema)]
#[schema(as = SarifLog)]
#[expect(
    dead_code,
    reason = "documents the body, which is read raw: never built"
)]
pub(super) struct SarifLogDoc {
    #[schema(value_type = String, pattern = "^2\\.1\\.0$")]
    version: String,
    runs: Vec<SarifRunDoc>,
}

#[derive(ToSchema)]
#[schema(as = SarifRun)]
#[expect(
    dead_code,
    reason = "documents the body, which is read raw: never built"
)]
struct SarifRunDoc {
    tool: SarifToolDoc,
    /// Results past 5,000 in all are left out.
    results: Option<Vec<SarifResultDoc>>,
}

#[derive(ToSchema)]
#[schema(as = SarifTool)]
#[expect(
    dead_code,
    reason = "documents the body, which is read raw: never built"
)]
struct SarifToolDoc {
    driver: SarifDriverDoc,
}

#[derive(ToSchema)]
#[schema(as = SarifDriver)]
#[expect(
    dead_code,
    reason = "documents the body, which is read raw: never built"
)]
struct SarifDriverDoc {
    name: String,
}

#[derive(ToSchema)]
#[schema(as = SarifResult)]
#[expect(
    dead_code,
    reason = "documents the body, which is read raw: never built"
)]
struct SarifResultDoc {
    #[schema(rename = "ruleId")]
    rule_id: Option<String>,
    #[schema(value_type = Option<String>, pattern = "^(none|note|warning|error)$")]
    level: Option<String>,
    message: SarifMessageDoc,
}

#[derive(ToSchema)]
#[schema(as = SarifMessage)]
#[expect(
    dead_code,
    reason = "documents the body, which is read raw: never built"
)]
struct SarifMessageDoc {
    text: Option<String>,
}
