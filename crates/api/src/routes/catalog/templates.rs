//! Creating and changing review templates.

use super::lists::OneReviewTemplate;
use crate::envelope::{self, Data};
use crate::error::ApiError;
use crate::extract::SingleLine;
use crate::extract::{RequireAdmin, ValidatedJson};
use crate::routes::serde_helpers::double_option;
use crate::state::AppState;
use actix_web::{HttpResponse, patch, post, web};
use reviewd_domain::model::ProjectId;
use reviewd_domain::ports::TemplateChanges;
use serde::Deserialize;
use serde_json::Value;
use utoipa::openapi::schema::{
    AllOfBuilder, AnyOfBuilder, ObjectBuilder, Schema, SchemaType, Type,
};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};
use uuid::Uuid;
use validator::Validate;

/// A template as created: a name and a prompt text, both not blank.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CreateReviewTemplateBody {
    #[validate(length(max = 200))]
    #[schema(value_type = crate::extract::SingleLine<200>, required = true)]
    #[validate(custom(function = "crate::extract::single_line"))]
    name: Option<SingleLine<200>>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, nullable)]
    description: Option<Option<String>>,
    /// The prompt text that frames a review.
    #[validate(length(max = 20000, message = "at most 20000 characters"))]
    #[schema(
        value_type = String,
        required = true,
        max_length = 20000,
        pattern = r"^[^\u0000]*[^\s\u0000\u0085][^\u0000]*$"
    )]
    content: Option<String>,
    /// Makes it the global default (the previous default stops being one); a project's
    /// template cannot be.
    is_default: Option<bool>,
    /// The project it belongs to; `null` or absent for a global template.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>, nullable)]
    project_id: Option<Option<Uuid>>,
}

/// A template's changes: what is absent stays; a name or text given is not blank.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UpdateReviewTemplateBody {
    #[validate(length(max = 200))]
    #[schema(value_type = Option<crate::extract::SingleLine<200>>)]
    #[validate(custom(function = "crate::extract::single_line"))]
    name: Option<SingleLine<200>>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, nullable)]
    description: Option<Option<String>>,
    /// The prompt text that frames a review.
    #[validate(length(max = 20000, message = "at most 20000 characters"))]
    #[schema(
        value_type = Option<String>,
        max_length = 20000,
        pattern = r"^[^\u0000]*[^\s\u0000\u0085][^\u0000]*$"
    )]
    content: Option<String>,
    /// Makes it the global default (the previous default stops being one); a project's
    /// template cannot be.
    is_default: Option<bool>,
    /// The project it belongs to; `null` for a global template.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<Uuid>, nullable)]
    project_id: Option<Option<Uuid>>,
}

/// `isDefault: true` only without a project: the default template is global (a 400
/// otherwise, whatever is stored).
fn default_is_global() -> AnyOfBuilder {
    AnyOfBuilder::new()
        .item(
            ObjectBuilder::new().property(
                "isDefault",
                ObjectBuilder::new()
                    .schema_type(SchemaType::from_iter([Type::Boolean, Type::Null]))
                    .enum_values(Some([Value::Bool(false), Value::Null])),
            ),
        )
        .item(
            ObjectBuilder::new()
                .property("projectId", ObjectBuilder::new().schema_type(Type::Null)),
        )
        .description(Some(
            "`isDefault: true` only without a `projectId`: the default template is global.",
        ))
}

/// A template body's schema: the fields of `T`, and [`default_is_global`].
fn template_body_schema<T: ToSchema>() -> RefOr<Schema> {
    AllOfBuilder::new()
        .item(Ref::from_schema_name(T::name()))
        .item(default_is_global())
        .into()
}

/// The schema of `create_review_template`'s body (it reads [`CreateReviewTemplateBody`]).
struct CreateReviewTemplateRequest;

impl PartialSchema for CreateReviewTemplateRequest {
    fn schema() -> RefOr<Schema> {
        template_body_schema::<CreateReviewTemplateBody>()
    }
}

impl ToSchema for CreateReviewTemplateRequest {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((
            CreateReviewTemplateBody::name().into(),
            CreateReviewTemplateBody::schema(),
        ));
        <CreateReviewTemplateBody as ToSchema>::schemas(schemas);
    }
}

/// The schema of `update_review_template`'s body (it reads [`UpdateReviewTemplateBody`]).
struct UpdateReviewTemplateRequest;

impl PartialSchema for UpdateReviewTemplateRequest {
    fn schema() -> RefOr<Schema> {
        template_body_schema::<UpdateReviewTemplateBody>()
    }
}

impl ToSchema for UpdateReviewTemplateRequest {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((
            UpdateReviewTemplateBody::name().into(),
            UpdateReviewTemplateBody::schema(),
        ));
        <UpdateReviewTemplateBody as ToSchema>::schemas(schemas);
    }
}

impl From<CreateReviewTemplateBody> for TemplateChanges {
    fn from(b: CreateReviewTemplateBody) -> Self {
        TemplateChanges {
            name: b.name.map(String::from),
            description: b.description,
            content: b.content,
            is_default: b.is_default,
            project_id: b.project_id.map(|p| p.map(ProjectId)),
        }
    }
}

impl From<UpdateReviewTemplateBody> for TemplateChanges {
    fn from(b: UpdateReviewTemplateBody) -> Self {
        TemplateChanges {
            name: b.name.map(String::from),
            description: b.description,
            content: b.content,
            is_default: b.is_default,
            project_id: b.project_id.map(|p| p.map(ProjectId)),
        }
    }
}

/// Creates a review template.
///
/// Answers 200 (not 201) with the template.
#[utoipa::path(
    request_body = CreateReviewTemplateRequest,
    responses((status = 200, body = Data<OneReviewTemplate>))
)]
#[post("/reviews/templates")]
pub(super) async fn create_review_template(
    state: web::Data<AppState>,
    _admin: RequireAdmin,
    body: ValidatedJson<CreateReviewTemplateBody>,
) -> Result<HttpResponse, ApiError> {
    let template = state.catalog.create_template(body.0.into()).await?;
    Ok(envelope::ok(OneReviewTemplate {
        template: template.into(),
    }))
}

/// Changes a review template.
#[utoipa::path(
    request_body = UpdateReviewTemplateRequest,
    responses((status = 200, body = Data<OneReviewTemplate>))
)]
#[patch("/reviews/templates/{id}")]
pub(super) async fn update_review_template(
    state: web::Data<AppState>,
    _admin: RequireAdmin,
    id: web::Path<Uuid>,
    body: ValidatedJson<UpdateReviewTemplateBody>,
) -> Result<HttpResponse, ApiError> {
    let template = state.catalog.update_template(*id, body.0.into()).await?;
    Ok(envelope::ok(OneReviewTemplate {
        template: template.into(),
    }))
}
