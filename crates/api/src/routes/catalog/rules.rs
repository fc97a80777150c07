//! Creating and changing review rules, and the globs they target files with.

use super::lists::OneReviewRule;
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::SingleLine;
use crate::extract::{RequireAdmin, ValidatedJson};
use crate::routes::serde_helpers::double_option;
use crate::state::AppState;
use actix_web::{HttpResponse, patch, post, web};
use reviewd_domain::model::ProjectId;
use reviewd_domain::ports::RuleChanges;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa::openapi::schema::{Array, ArrayBuilder, ObjectBuilder, SchemaType, Type};
use uuid::Uuid;
use validator::Validate;

/// A glob the rules accept (`globset` after trimming): escapes (`\x`, not of a trailing
/// blank), classes (`[abc]`, `[!a-z]`: ranges only `0-9`, `a-z`, `A-Z`), and
/// alternates (`{a,b}`) nested up to two deep. Some valid globs fall outside (other
/// ranges, deeper nesting), none that is refused falls inside; no NUL.
fn glob_pattern() -> String {
    let range = r"(?:0-9|a-z|A-Z)";
    let atom = format!(
        r"[^\\\[{{}}\u0000]|\\[^\s\u0000\u0085]|\[(?:[!^](?:{range}|[^\u0000])|{range}|[^!^\u0000])(?:{range}|[^\]\-\u0000])*-?\]"
    );
    let inner = format!(r"\{{(?:{atom})*\}}");
    let outer = format!(r"\{{(?:{atom}|{inner})*\}}");
    format!(r"^(?:{atom}|{outer})*$")
}

/// `fileTypePatterns`/`filePathPatterns`: at most 50 globs, or `null` (unchanged).
fn glob_list_schema() -> Array {
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some(glob_pattern())),
        )
        .max_items(Some(50))
        .description(Some(
            "Globs (`rs`, `*.ts`, `src/**`); a glob without `/` also matches at any depth. \
             An invalid glob is a 400 naming the field.",
        ))
        .build()
}

/// A rule as created: a name and instructions, both not blank.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CreateReviewRuleBody {
    #[validate(length(max = 200))]
    #[schema(value_type = crate::extract::SingleLine<200>, required = true)]
    #[validate(custom(function = "crate::extract::single_line"))]
    rule_name: Option<SingleLine<200>>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, nullable)]
    description: Option<Option<String>>,
    /// What the model is told for the files the rule targets.
    #[validate(length(max = 10000, message = "at most 10000 characters"))]
    #[schema(
        value_type = String,
        required = true,
        max_length = 10000,
        pattern = r"^[^\u0000]*[^\s\u0000\u0085][^\u0000]*$"
    )]
    instructions: Option<String>,
    enabled: Option<bool>,
    /// The file types it targets (every file when empty).
    #[validate(length(max = 50))]
    #[schema(schema_with = glob_list_schema)]
    file_type_patterns: Option<Vec<String>>,
    /// The paths it targets (every file when empty).
    #[validate(length(max = 50))]
    #[schema(schema_with = glob_list_schema)]
    file_path_patterns: Option<Vec<String>>,
    /// Higher rules come first in the prompt.
    #[schema(minimum = -2_147_483_648_i64, maximum = 2_147_483_647_i64)]
    priority: Option<i32>,
    /// The project it belongs to; `null` or absent for a global rule.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>, nullable)]
    project_id: Option<Option<Uuid>>,
}

/// A rule's changes: what is absent stays; a name or instructions given are not blank.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UpdateReviewRuleBody {
    #[validate(length(max = 200))]
    #[schema(value_type = Option<crate::extract::SingleLine<200>>)]
    #[validate(custom(function = "crate::extract::single_line"))]
    rule_name: Option<SingleLine<200>>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, nullable)]
    description: Option<Option<String>>,
    /// What the model is told for the files the rule targets.
    #[validate(length(max = 10000, message = "at most 10000 characters"))]
    #[schema(
        value_type = Option<String>,
        max_length = 10000,
        pattern = r"^[^\u0000]*[^\s\u0000\u0085][^\u0000]*$"
    )]
    instructions: Option<String>,
    enabled: Option<bool>,
    /// The file types it targets (every file when empty).
    #[validate(length(max = 50))]
    #[schema(schema_with = glob_list_schema)]
    file_type_patterns: Option<Vec<String>>,
    /// The paths it targets (every file when empty).
    #[validate(length(max = 50))]
    #[schema(schema_with = glob_list_schema)]
    file_path_patterns: Option<Vec<String>>,
    /// Higher rules come first in the prompt.
    #[schema(minimum = -2_147_483_648_i64, maximum = 2_147_483_647_i64)]
    priority: Option<i32>,
    /// The project it belongs to; `null` for a global rule.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>, nullable)]
    project_id: Option<Option<Uuid>>,
}

impl From<CreateReviewRuleBody> for RuleChanges {
    fn from(b: CreateReviewRuleBody) -> Self {
        RuleChanges {
            rule_name: b.rule_name.map(String::from),
            description: b.description,
            instructions: b.instructions,
            enabled: b.enabled,
            file_type_patterns: b.file_type_patterns,
            file_path_patterns: b.file_path_patterns,
            priority: b.priority,
            project_id: b.project_id.map(|p| p.map(ProjectId)),
        }
    }
}

impl From<UpdateReviewRuleBody> for RuleChanges {
    fn from(b: UpdateReviewRuleBody) -> Self {
        RuleChanges {
            rule_name: b.rule_name.map(String::from),
            description: b.description,
            instructions: b.instructions,
            enabled: b.enabled,
            file_type_patterns: b.file_type_patterns,
            file_path_patterns: b.file_path_patterns,
            priority: b.priority,
            project_id: b.project_id.map(|p| p.map(ProjectId)),
        }
    }
}

/// Creates a review rule.
///
/// Answers 200 (not 201) with the rule.
#[utoipa::path(
    request_body = CreateReviewRuleBody,
    responses((status = 200, body = Data<OneReviewRule>))
)]
#[post("/reviews/rules")]
pub(super) async fn create_review_rule(
    state: web::Data<AppState>,
    _admin: RequireAdmin,
    body: ValidatedJson<CreateReviewRuleBody>,
) -> Result<HttpResponse, ApiError> {
    let rule = state.catalog.create_rule(body.0.into()).await?;
    Ok(envelope::ok(OneReviewRule { rule: rule.into() }))
}

/// Changes a review rule.
#[utoipa::path(
    request_body = UpdateReviewRuleBody,
    responses((status = 200, body = Data<OneReviewRule>))
)]
#[patch("/reviews/rules/{id}")]
pub(super) async fn update_review_rule(
    state: web::Data<AppState>,
    _admin: RequireAdmin,
    id: web::Path<Uuid>,
    body: ValidatedJson<UpdateReviewRuleBody>,
) -> Result<HttpResponse, ApiError> {
    let rule = state.catalog.update_rule(*id, body.0.into()).await?;
    Ok(envelope::ok(OneReviewRule { rule: rule.into() }))
}
