//! `GET/POST /api/users`, `GET/PATCH /api/users/:id`: user administration (admins).

use super::dto::{UserDto, nullable_role_schema, role_schema};
use crate::envelope::{self, Data, Paginated};
use crate::error::ApiError;
use crate::extract::SingleLine;
use crate::extract::{PageParams, RequireAdmin, ValidatedJson};
use crate::state::AppState;
use actix_web::{HttpResponse, get, patch, post, web};
use reviewd_domain::model::Role;
use reviewd_domain::services::{NewUserInput, UserUpdateInput};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;
use validator::Validate;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(
        scope("/users")
            .service(list_users)
            .service(create_user)
            .service(get_user)
            .service(update_user),
    );
}

/// `{"user": {...}}`: one user.
#[derive(Serialize, ToSchema)]
pub struct UserEnvelope {
    user: UserDto,
}

impl From<reviewd_domain::model::User> for UserEnvelope {
    fn from(user: reviewd_domain::model::User) -> Self {
        UserEnvelope {
            user: UserDto::from(user),
        }
    }
}

/// Every user, oldest first (admins only).
#[utoipa::path(params(PageParams), responses((status = 200, body = Paginated<UserDto>)))]
#[get("")]
async fn list_users(
    state: web::Data<AppState>,
    _admin: RequireAdmin,
    query: web::Query<PageParams>,
) -> Result<HttpResponse, ApiError> {
    let page = state.users.list(query.to_request(20, 100)?).await?;
    Ok(envelope::paginated(page, UserDto::from))
}

/// One user (admins only).
#[utoipa::path(responses((status = 200, body = Data<UserEnvelope>)))]
#[get("/{id}")]
async fn get_user(
    state: web::Data<AppState>,
    _admin: RequireAdmin,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let user = state.users.get(id.into_inner()).await?;
    Ok(envelope::ok(UserEnvelope::from(user)))
}

/// A new account. The email is stored lowercased and must be unused (409 otherwise);
/// the name is stored trimmed.
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
struct CreateUserBody {
    #[validate(email(message = "must be an email address"), length(max = 320))]
    #[schema(format = Email, max_length = 320)]
    email: String,
    #[validate(length(min = 1, max = 200, message = "must be 1 to 200 characters"))]
    #[validate(custom(function = "crate::extract::single_line"))]
    name: SingleLine<200>,
    #[validate(length(min = 8, max = 1024, message = "must be 8 to 1024 characters"))]
    #[schema(min_length = 8, max_length = 1024)]
    password: String,
    #[serde(deserialize_with = "super::serde_helpers::from_text")]
    #[schema(schema_with = role_schema)]
    role: Role,
}

/// Creates a user (admins only).
#[utoipa::path(request_body = CreateUserBody, responses((status = 201, body = Data<UserEnvelope>)))]
#[post("")]
async fn create_user(
    state: web::Data<AppState>,
    _admin: RequireAdmin,
    body: ValidatedJson<CreateUserBody>,
) -> Result<HttpResponse, ApiError> {
    let b = body.0;
    let user = state
        .users
        .create(NewUserInput {
            email: b.email,
            name: b.name.into(),
            password: b.password,
            role: b.role,
        })
        .await?;
    Ok(envelope::created(UserEnvelope::from(user)))
}

/// Changes to an account; an absent or `null` field stays as it is. The root user
/// stays an enabled admin (403 otherwise).
#[derive(Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
struct UpdateUserBody {
    #[validate(email(message = "must be an email address"), length(max = 320))]
    #[schema(format = Email, max_length = 320)]
    email: Option<String>,
    #[validate(length(min = 1, max = 200, message = "must be 1 to 200 characters"))]
    #[validate(custom(function = "crate::extract::single_line"))]
    name: Option<SingleLine<200>>,
    #[validate(length(min = 8, max = 1024, message = "must be 8 to 1024 characters"))]
    #[schema(min_length = 8, max_length = 1024)]
    password: Option<String>,
    #[serde(default, deserialize_with = "super::serde_helpers::from_optional_text")]
    #[schema(schema_with = nullable_role_schema)]
    role: Option<Role>,
    /// A disabled user can no longer log in; their sessions and API keys stop working.
    disabled: Option<bool>,
}

/// Updates a user (admins only).
#[utoipa::path(request_body = UpdateUserBody, responses((status = 200, body = Data<UserEnvelope>)))]
#[patch("/{id}")]
async fn update_user(
    state: web::Data<AppState>,
    _admin: RequireAdmin,
    id: web::Path<Uuid>,
    body: ValidatedJson<UpdateUserBody>,
) -> Result<HttpResponse, ApiError> {
    let b = body.0;
    let input = UserUpdateInput {
        email: b.email,
        name: b.name.map(String::from),
        password: b.password,
        role: b.role,
        disabled: b.disabled,
    };
    let user = state.users.update(id.into_inner(), input).await?;
    Ok(envelope::ok(UserEnvelope::from(user)))
}
