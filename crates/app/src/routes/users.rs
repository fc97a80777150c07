//! `GET/POST /api/users`, `GET/PATCH /api/users/:id`: user administration (admins).

use super::dto::UserDto;
use crate::envelope;
use crate::error::ApiError;
use crate::extract::{PageParams, RequireAdmin, ValidatedJson};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use reviewd_domain::model::Role;
use reviewd_domain::services::{NewUserInput, UserUpdateInput};
use serde::Deserialize;
use serde_json::json;
use utoipa_actix_web::{scope, service_config::ServiceConfig};
use uuid::Uuid;
use validator::Validate;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(scope(
        web::scope("/users")
            .route("", web::get().to(list_users))
            .route("", web::post().to(create_user))
            .route("/{id}", web::get().to(get_user))
            .route("/{id}", web::patch().to(update_user)),
    ));
}

async fn list_users(
    state: web::Data<AppState>,
    _admin: RequireAdmin,
    query: web::Query<PageParams>,
) -> Result<HttpResponse, ApiError> {
    let page = state.users.list(query.to_request(20, 100)?).await?;
    Ok(envelope::paginated(page, UserDto::from))
}

async fn get_user(
    state: web::Data<AppState>,
    _admin: RequireAdmin,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let user = state.users.get(id.into_inner()).await?;
    Ok(envelope::ok(json!({ "user": UserDto::from(user) })))
}

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields)]
struct CreateUserBody {
    #[validate(email(message = "must be an email address"), length(max = 320))]
    email: String,
    #[validate(length(min = 1, max = 200, message = "must be 1 to 200 characters"))]
    name: String,
    #[validate(length(min = 8, max = 1024, message = "must be 8 to 1024 characters"))]
    password: String,
    role: Role,
}

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
            name: b.name,
            password: b.password,
            role: b.role,
        })
        .await?;
    Ok(envelope::created(json!({ "user": UserDto::from(user) })))
}

#[derive(Deserialize, Validate)]
#[serde(deny_unknown_fields)]
struct UpdateUserBody {
    #[validate(email(message = "must be an email address"), length(max = 320))]
    email: Option<String>,
    #[validate(length(min = 1, max = 200, message = "must be 1 to 200 characters"))]
    name: Option<String>,
    #[validate(length(min = 8, max = 1024, message = "must be 8 to 1024 characters"))]
    password: Option<String>,
    role: Option<Role>,
    disabled: Option<bool>,
}

async fn update_user(
    state: web::Data<AppState>,
    _admin: RequireAdmin,
    id: web::Path<Uuid>,
    body: ValidatedJson<UpdateUserBody>,
) -> Result<HttpResponse, ApiError> {
    let b = body.0;
    let input = UserUpdateInput {
        email: b.email,
        name: b.name,
        password: b.password,
        role: b.role,
        disabled: b.disabled,
    };
    let user = state.users.update(id.into_inner(), input).await?;
    Ok(envelope::ok(json!({ "user": UserDto::from(user) })))
}
