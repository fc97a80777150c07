//! Live views of a project on its platform: the project, its members and its merge
//! requests.

use super::platform_type_schema;
use crate::envelope::{self, Data, Items};
use crate::error::ApiError;
use crate::extract::{AuthUser, PageParams};
use crate::field_schemas::string_enum;
use crate::routes::dto::{MergeRequestDto, PlatformUserDto};
use crate::state::AppState;
use actix_web::{HttpResponse, get, web};
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::{MrState, PlatformPage, PlatformProject};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// The project as its platform describes it now (read live).
#[utoipa::path(responses((status = 200, body = Data<ProjectOnPlatformBody>)))]
#[get("/{id}/platform")]
pub(super) async fn get_project_platform(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(envelope::ok(ProjectOnPlatformBody {
        project: ProjectOnPlatformDto::from(state.projects.platform_details(ProjectId(*id)).await?),
    }))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ProjectMembersQuery {
    /// Only members whose name or username contains this (the platform's search).
    search: Option<String>,
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

/// The project's members on its platform (read live); the total only when the
/// platform tells it.
#[utoipa::path(
    params(ProjectMembersQuery, PageParams),
    responses((status = 200, body = PlatformPaginated<PlatformUserDto>))
)]
#[get("/{id}/members")]
pub(super) async fn list_project_members(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
    query: web::Query<ProjectMembersQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = query.page.to_request(20, 100)?;
    let members = state
        .projects
        .members(ProjectId(*id), query.search.as_deref(), page)
        .await?;
    Ok(HttpResponse::Ok().json(PlatformPaginated::of(members, PlatformUserDto::from)))
}

/// `opened` (the default), `merged`, `closed` or `all`.
fn mr_state_schema() -> utoipa::openapi::Object {
    string_enum(MrState::ALL.map(MrState::as_str))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ProjectMergeRequestsQuery {
    /// `opened` when absent.
    #[serde(
        default,
        deserialize_with = "crate::routes::serde_helpers::from_optional_text"
    )]
    #[param(schema_with = mr_state_schema)]
    state: Option<MrState>,
    /// Only merge requests whose title or description contains this.
    search: Option<String>,
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

/// The project's merge requests (pull requests on hostB) on its platform, read live.
#[utoipa::path(
    params(ProjectMergeRequestsQuery, PageParams),
    responses((status = 200, body = PlatformPaginated<MergeRequestDto>))
)]
#[get("/{id}/merge-requests")]
pub(super) async fn list_project_merge_requests(
    state: web::Data<AppState>,
    _user: AuthUser,
    id: web::Path<Uuid>,
    query: web::Query<ProjectMergeRequestsQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = query.page.to_request(20, 100)?;
    let mr_state = query.state.unwrap_or(MrState::Opened);
    let merge_requests = state
        .projects
        .merge_requests(ProjectId(*id), mr_state, query.search.as_deref(), page)
        .await?;
    Ok(HttpResponse::Ok().json(PlatformPaginated::of(merge_requests, MergeRequestDto::from)))
}

/// The project (hostA) or repository (hostB) as its platform describes it now.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct ProjectOnPlatformDto {
    id: String,
    name: String,
    full_path: String,
    web_url: String,
    default_branch: Option<String>,
    visibility: Option<String>,
    #[schema(schema_with = platform_type_schema)]
    platform_type: &'static str,
}

impl From<PlatformProject> for ProjectOnPlatformDto {
    fn from(p: PlatformProject) -> Self {
        ProjectOnPlatformDto {
            id: p.id,
            name: p.name,
            full_path: p.full_path,
            web_url: p.web_url,
            default_branch: p.default_branch,
            visibility: p.visibility,
            platform_type: p.platform_type.as_str(),
        }
    }
}

/// `{"project": {...}}`: the live platform view.
#[derive(Serialize, ToSchema)]
struct ProjectOnPlatformBody {
    project: ProjectOnPlatformDto,
}

/// Where a page read live from a platform stands: the total (and so the page count)
/// only when the platform tells it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct PlatformPagination {
    has_next: bool,
    page: u32,
    page_size: u32,
    total: Option<u64>,
    total_pages: Option<u64>,
}

#[derive(Serialize, ToSchema)]
struct PlatformPageMeta {
    pagination: PlatformPagination,
}

/// `{"data": {"items": [T]}, "meta": {"pagination": {...}}}` for a list read live
/// from the platform.
#[derive(Serialize, ToSchema)]
struct PlatformPaginated<T> {
    data: Items<T>,
    meta: PlatformPageMeta,
}

impl<T> PlatformPaginated<T> {
    fn of<D>(page: PlatformPage<D>, to_dto: impl FnMut(D) -> T) -> Self {
        let total_pages = page
            .total
            .map(|t| t.div_ceil(u64::from(page.per_page.max(1))));
        PlatformPaginated {
            data: Items {
                items: page.items.into_iter().map(to_dto).collect(),
            },
            meta: PlatformPageMeta {
                pagination: PlatformPagination {
                    has_next: page.has_next,
                    page: page.page,
                    page_size: page.per_page,
                    total: page.total,
                    total_pages,
                },
            },
        }
    }
}
