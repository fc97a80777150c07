//! A project's review settings: changing them, and reading them with the global
//! values they inherit.

use super::ProjectDto;
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::{AuthUser, RequirePermission, ValidatedJson, perm};
use crate::routes::serde_helpers::double_option;
use crate::state::AppState;
use actix_web::{HttpResponse, get, patch, web};
use reviewd_domain::context::settings::BUDGET_RANGE;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::ProjectSettingsChanges;
use reviewd_domain::model::grade::Rating;
use reviewd_domain::services::ResolvedProjectConfig;
use reviewd_domain::services::projects::MAX_MONTHLY_BUDGET_USD;
use reviewd_domain::services::{FieldError, ServiceError};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, SchemaType, Type};
use uuid::Uuid;
use validator::Validate;

/// A text the service refuses when it is empty or only whitespace (`str::trim`):
/// at least one character outside Unicode's `White_Space`.
/// Not blank once trimmed (Unicode white space), and no NUL anywhere.
const NOT_BLANK: &str = "^[^\\u0000]*[^\\u0000\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\u0000]*$";

/// `fileIgnorePatterns`: `null` (inherit the global patterns) or up to 200 globs,
/// each non-blank and at most 500 characters.
fn file_ignore_patterns_schema() -> utoipa::openapi::schema::Array {
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .min_length(Some(1))
                .max_length(Some(500))
                .pattern(Some(NOT_BLANK)),
        )
        .max_items(Some(200))
        .description(Some(
            "Glob patterns of files the review skips (at most 200, each non-blank and at \
             most 500 bytes); `null` returns to the global patterns.",
        ))
        .build()
}

/// `defaultReviewerIds`: up to 50 non-blank platform user ids.
fn default_reviewer_ids_schema() -> utoipa::openapi::schema::Array {
    ArrayBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .min_length(Some(1))
                .pattern(Some(NOT_BLANK)),
        )
        .max_items(Some(50))
        .description(Some(
            "Platform user ids assigned as reviewers of reviewed merge requests (at most \
             50, each non-blank); `null` or absent keeps the stored list.",
        ))
        .build()
}

/// The settings to change; an absent field is kept. For `autoReview`,
/// `fileIgnorePatterns` and `aiConfigId`, `null` returns to the global value.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UpdateProjectBody {
    /// Whether webhooks of this project trigger anything at all.
    enabled: Option<bool>,
    /// Review every new head automatically; `null` inherits the global setting.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<bool>, nullable)]
    auto_review: Option<Option<bool>>,
    #[serde(default, deserialize_with = "double_option")]
    #[validate(length(max = 200, message = "at most 200 patterns"))]
    #[schema(schema_with = file_ignore_patterns_schema)]
    file_ignore_patterns: Option<Option<Vec<String>>>,
    /// An existing AI configuration; `null` inherits the default one.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>, nullable)]
    ai_config_id: Option<Option<Uuid>>,
    #[validate(length(max = 50, message = "at most 50 reviewers"))]
    #[schema(schema_with = default_reviewer_ids_schema)]
    default_reviewer_ids: Option<Vec<String>>,
    /// Assign merge requests to their author when reviewed.
    auto_assign_author: Option<bool>,
    /// USD the project's AI calls may cost per calendar month (UTC); once spent,
    /// webhooks queue no automatic review until the next month (manual reviews
    /// still run). `null` removes the budget.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(schema_with = monthly_budget_schema)]
    monthly_budget: Option<Option<f64>>,
    /// Leave out of later reviews a comment that readers of this project rejected
    /// twice (a 👎 or a "won't fix" reply); on by default.
    suppress_rejected: Option<bool>,
    /// Someone without developer access (GitLab Developer, GitHub write) who
    /// speaks to reviewd gets one polite refusal per merge request (`true`, the
    /// default) or silence (`false`).
    refuse_outsiders: Option<bool>,
    /// Tokens of context (the code around a change, definitions, callers,
    /// guidance) per prompt besides the diff, from 0 to 100000; `null` inherits
    /// the server's `REVIEW_CONTEXT_TOKENS`. A repository's `.reviewd.yml`
    /// (`context.budgetTokens`) wins over it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(schema_with = context_budget_schema)]
    context_budget_tokens: Option<Option<u32>>,
    /// Whether reviewd posts its merge gate, a `reviewd` commit status (or check
    /// run for a GitHub App) on each MR head; on by default.
    gate_enabled: Option<bool>,
    /// A round graded below this (`A`-`F`) fails the gate besides an open error;
    /// `null` removes the bar. A repository's `.reviewd.yml` (`gate.minRating`)
    /// wins over it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(schema_with = gate_rating_schema)]
    gate_min_rating: Option<Option<String>>,
}

/// `gateMinRating`: a grade, or `null`.
fn gate_rating_schema() -> utoipa::openapi::Object {
    crate::routes::dto::nullable_string_enum(Rating::ALL.iter().map(|r| r.as_str()))
}

/// `contextBudgetTokens`: `null` or tokens from 0 to 100000.
fn context_budget_schema() -> utoipa::openapi::Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Integer, Type::Null]))
        .minimum(Some(0.0))
        .maximum(Some(f64::from(*BUDGET_RANGE.end())))
        .description(Some(
            "Tokens of context per prompt besides the diff; `null` inherits the server's \
             REVIEW_CONTEXT_TOKENS.",
        ))
        .build()
}

/// `monthlyBudget`: `null` or USD from 0 to 1e9.
fn monthly_budget_schema() -> utoipa::openapi::Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Number, Type::Null]))
        .minimum(Some(0.0))
        .maximum(Some(MAX_MONTHLY_BUDGET_USD))
        .description(Some(
            "USD the project's AI calls may cost per calendar month (UTC) before automatic \
             reviews stop until the next month; manual reviews still run. `null` removes \
             the budget.",
        ))
        .build()
}

/// Changes a project's review settings; answers the project as stored.
#[utoipa::path(
    request_body = UpdateProjectBody,
    responses((status = 200, body = Data<ProjectBody>))
)]
#[patch("/{id}")]
pub(super) async fn update_project(
    state: web::Data<AppState>,
    _user: RequirePermission<perm::ProjectUpdate>,
    id: web::Path<Uuid>,
    body: ValidatedJson<UpdateProjectBody>,
) -> Result<HttpResponse, ApiError> {
    let b = body.0;
    let gate_min_rating = match b.gate_min_rating {
        Some(Some(text)) => {
            Some(Some(text.parse::<Rating>().map_err(|e| {
                ServiceError::Invalid(vec![FieldError::new("gateMinRating", e)])
            })?))
        }
        other => other.map(|_| None),
    };
    let changes = ProjectSettingsChanges {
        enabled: b.enabled,
        auto_review: b.auto_review,
        file_ignore_patterns: b.file_ignore_patterns,
        ai_config_id: b.ai_config_id,
        default_reviewer_ids: b.default_reviewer_ids,
        auto_assign_author: b.auto_assign_author,
        monthly_budget_usd: b.monthly_budget,
        suppress_rejected: b.suppress_rejected,
        refuse_outsiders: b.refuse_outsiders,
        gate_enabled: b.gate_enabled,
        gate_min_rating,
        context_budget_tokens: b.context_budget_tokens,
    };
    let project = state
        .projects
        .update_settings(ProjectId(*id), changes)
        .await?;
    Ok(envelope::ok(ProjectBody {
        project: ProjectDto::from(project),
    }))
}

/// A project's settings with the global values it inherits filled in.
#[utoipa::path(responses((status = 200, body = Data<ResolvedProjectConfigBody>)))]
#[get("/{id}/config")]
pub(super) async fn get_project_config(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(ResolvedProjectConfigBody {
        config: ResolvedProjectConfigDto::from(
            state.projects.resolved_config(ProjectId(*id)).await?,
        ),
    }))
}

/// `{"project": {...}}`: the project after a change.
#[derive(Serialize, ToSchema)]
struct ProjectBody {
    project: ProjectDto,
}

/// A project's settings with the global values it inherits filled in; each
/// `...Inherited` says whether the value came from the global settings.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ResolvedProjectConfigDto {
    project_id: Uuid,
    enabled: bool,
    auto_review: bool,
    auto_review_inherited: bool,
    file_ignore_patterns: Vec<String>,
    file_ignore_patterns_inherited: bool,
    /// The project's AI configuration, else the stored default; `null` means the
    /// environment's configuration.
    ai_config_id: Option<Uuid>,
    ai_config_inherited: bool,
    send_to_platform: bool,
    default_reviewer_ids: Vec<String>,
    auto_assign_author: bool,
    template_id: Option<Uuid>,
    review_commands: Vec<String>,
    /// USD per calendar month (UTC) before automatic reviews stop; `null` for none.
    monthly_budget: Option<f64>,
    /// Comments rejected twice on this project are not posted again.
    suppress_rejected: bool,
    /// Outsiders who speak to reviewd get one polite refusal per MR, or silence.
    refuse_outsiders: bool,
    /// The project's context budget per prompt; `null` inherits the server's.
    context_budget_tokens: Option<u32>,
    /// Whether the merge gate is posted (before a repository's `.reviewd.yml`).
    gate_enabled: bool,
    /// The grade below which the gate fails; `null` for none.
    gate_min_rating: Option<&'static str>,
}

impl From<ResolvedProjectConfig> for ResolvedProjectConfigDto {
    fn from(c: ResolvedProjectConfig) -> Self {
        ResolvedProjectConfigDto {
            project_id: c.project_id.into(),
            enabled: c.enabled,
            auto_review: c.auto_review,
            auto_review_inherited: c.auto_review_inherited,
            file_ignore_patterns: c.file_ignore_patterns,
            file_ignore_patterns_inherited: c.file_ignore_patterns_inherited,
            ai_config_id: c.ai_config_id,
            ai_config_inherited: c.ai_config_inherited,
            send_to_platform: c.send_to_platform,
            default_reviewer_ids: c.default_reviewer_ids,
            auto_assign_author: c.auto_assign_author,
            template_id: c.template_id,
            review_commands: c.review_commands,
            monthly_budget: c.monthly_budget_usd,
            suppress_rejected: c.suppress_rejected,
            refuse_outsiders: c.refuse_outsiders,
            context_budget_tokens: c.context_budget_tokens,
            gate_enabled: c.gate.enabled,
            gate_min_rating: c.gate.min_rating.map(Rating::as_str),
        }
    }
}

/// `{"config": {...}}`.
#[derive(Serialize, ToSchema)]
struct ResolvedProjectConfigBody {
    config: ResolvedProjectConfigDto,
}
