//! `/platforms`: connections to GitLab (hostA) and GitHub (hostB).

use crate::form::{NoFields, PageForm};
use crate::page_error::{PageError, describe};
use crate::render::{self, Chrome};
use crate::session::{Viewer, state};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use reviewd_domain::model::{
    AuthType, MASK, Permission, PlatformConfig, PlatformType, SecretString,
};
use reviewd_domain::services::platform_access::app_credentials;
use reviewd_domain::services::{
    FieldError, PlatformConfigInput, PlatformConfigPatch, ServiceError,
};
use serde::Deserialize;
use uuid::Uuid;

crate::render::pages!(ListPage, FormPage);
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/platforms", web::get().to(list))
        .route("/platforms/new", web::get().to(new_form))
        .route("/platforms/new", web::post().to(create))
        .route("/platforms/test", web::post().to(test_connection))
        .route("/platforms/{id}", web::get().to(edit_form))
        .route("/platforms/{id}", web::post().to(update))
        .route("/platforms/{id}/default", web::post().to(set_default))
        .route("/platforms/{id}/delete", web::post().to(delete))
        .route("/platforms/{id}/sync", web::post().to(sync))
        .route("/platforms/{id}/oauth", web::post().to(oauth_start))
        .route(
            "/platforms/{id}/oauth/callback",
            web::get().to(oauth_callback),
        );
}

/// A config as listed, with how many projects it brings.
struct Row {
    config: PlatformConfig,
    projects: u64,
}

#[derive(Template)]
#[template(path = "platforms.html")]
struct ListPage {
    chrome: Chrome,
    rows: Vec<Row>,
    receiver_a: String,
    receiver_b: String,
}

async fn list(req: HttpRequest, viewer: Viewer) -> Result<HttpResponse, PageError> {
    let state = state(&req)?;
    let configs = state.platform_configs.list(None, false).await?;
    let mut rows = Vec::with_capacity(configs.len());
    for config in configs {
        let filter = reviewd_domain::model::ProjectFilter {
            platform_config_id: Some(config.id),
            ..Default::default()
        };
        let projects = state
            .projects
            .list(&filter, reviewd_domain::PageRequest::new(1, 1, 1))
            .await?
            .total;
        rows.push(Row { config, projects });
    }
    render::page(&ListPage {
        chrome: Chrome::new(&viewer, "platforms", "Platforms"),
        rows,
        receiver_a: state.webhooks.receiver_url(PlatformType::Gitlab),
        receiver_b: state.webhooks.receiver_url(PlatformType::Github),
    })
}

/// The form's fields; secrets are never filled back in (shown as `***` when stored).
#[derive(Deserialize, Default, Clone)]
struct ConfigForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    platform_type: String,
    #[serde(default)]
    base_url: String,
    #[serde(default)]
    auth_type: String,
    access_token: Option<String>,
    app_id: Option<String>,
    app_secret: Option<String>,
    webhook_secret: Option<String>,
    enabled: Option<String>,
    is_default: Option<String>,
    /// The GitHub App's id (its own field: the OAuth application id is another).
    gh_app_id: Option<String>,
    private_key: Option<String>,
    #[serde(default)]
    installation_id: String,
}

impl ConfigForm {
    /// The `appId` the chosen authentication uses.
    fn app_id(&self) -> Option<String> {
        if self.auth_type == "app" {
            given(self.gh_app_id.clone())
        } else {
            given(self.app_id.clone())
        }
    }

    /// The installation id typed, if any; a non-number is the domain's to refuse.
    fn installation(&self) -> Result<Option<i64>, FieldError> {
        let typed = self.installation_id.trim();
        if typed.is_empty() {
            return Ok(None);
        }
        typed.parse::<i64>().map(Some).map_err(|_| {
            FieldError::new(
                "installationId",
                "is the number GitHub shows in the installation's URL",
            )
        })
    }
}

#[derive(Template)]
#[template(path = "platform_form.html")]
struct FormPage {
    chrome: Chrome,
    /// `None` for a new connection.
    id: Option<Uuid>,
    form: ConfigForm,
    has_token: bool,
    has_app_secret: bool,
    has_webhook_secret: bool,
    has_private_key: bool,
    errors: Vec<FieldError>,
    message: Option<String>,
    test_result: Option<(bool, String)>,
}

impl FormPage {
    fn error(&self, field: &str) -> Option<&str> {
        self.errors
            .iter()
            .find(|e| e.field == field)
            .map(|e| e.message.as_str())
    }
}

fn platform_type(value: &str) -> Option<PlatformType> {
    match value {
        "hostA" => Some(PlatformType::Gitlab),
        "hostB" => Some(PlatformType::Github),
        _ => None,
    }
}

fn auth_type(value: &str) -> Option<AuthType> {
    match value {
        "token" => Some(AuthType::Token),
        "oauth" => Some(AuthType::OAuth),
        "app" => Some(AuthType::App),
        _ => None,
    }
}

/// An empty field means "not given".
fn given(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

fn form_page(viewer: &Viewer, id: Option<Uuid>, form: ConfigForm) -> FormPage {
    let title = if id.is_some() {
        "Edit connection"
    } else {
        "Connect a platform"
    };
    FormPage {
        chrome: Chrome::new(viewer, "platforms", title),
        id,
        form,
        has_token: false,
        has_app_secret: false,
        has_webhook_secret: false,
        has_private_key: false,
        errors: Vec::new(),
        message: None,
        test_result: None,
    }
}

async fn new_form(viewer: Viewer) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigCreate)?;
    let form = ConfigForm {
        platform_type: "hostA".to_owned(),
        auth_type: "token".to_owned(),
        enabled: Some("on".to_owned()),
        ..ConfigForm::default()
    };
    render::page(&form_page(&viewer, None, form))
}

/// Re-shows the form with the domain's complaints beside their fields.
fn invalid(mut page: FormPage, err: ServiceError) -> Result<HttpResponse, PageError> {
    match err {
        ServiceError::Invalid(fields) => page.errors = fields,
        ServiceError::BadRequest { .. } | ServiceError::Conflict(_) | ServiceError::Platform(_) => {
            page.message = Some(describe(&err));
        }
        other => return Err(other.into()),
    }
    render::html(actix_web::http::StatusCode::BAD_REQUEST, &page)
}

async fn create(
    req: HttpRequest,
    viewer: Viewer,
    form: PageForm<ConfigForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigCreate)?;
    let state = state(&req)?;
    let f = form.fields;
    let Some(kind) = platform_type(&f.platform_type) else {
        let mut page = form_page(&viewer, None, f);
        page.errors
            .push(FieldError::new("platformType", "choose GitLab or GitHub"));
        return render::html(actix_web::http::StatusCode::BAD_REQUEST, &page);
    };
    let installation_id = match f.installation() {
        Ok(id) => id,
        Err(e) => {
            let mut page = form_page(&viewer, None, f);
            page.errors.push(e);
            return render::html(actix_web::http::StatusCode::BAD_REQUEST, &page);
        }
    };
    let input = PlatformConfigInput {
        name: f.name.trim().to_owned(),
        platform_type: kind,
        base_url: f.base_url.trim().to_owned(),
        auth_type: auth_type(&f.auth_type),
        access_token: given(f.access_token.clone()),
        app_id: f.app_id(),
        app_secret: given(f.app_secret.clone()),
        webhook_secret: given(f.webhook_secret.clone()),
        enabled: Some(f.enabled.is_some()),
        is_default: Some(f.is_default.is_some()),
        private_key: given(f.private_key.clone()),
        installation_id,
    };
    match state.platform_configs.create(input).await {
        Ok(config) => Ok(render::redirect_with(
            "/platforms",
            &format!("Connected “{}”. Sync its projects to start.", config.name),
        )),
        Err(err) => invalid(form_page(&viewer, None, f), err),
    }
}

async fn test_connection(
    req: HttpRequest,
    viewer: Viewer,
    form: PageForm<ConfigForm>,
) -> Result<HttpResponse, PageError> {
    let state = state(&req)?;
    let f = form.fields;
    let id = form
        .pairs
        .iter()
        .find(|(k, _)| k == "id")
        .and_then(|(_, v)| v.parse::<Uuid>().ok());
    // As the API: testing is `config:update` (a new connection's form, `config:create`).
    viewer.require(if id.is_some() {
        Permission::ConfigUpdate
    } else {
        Permission::ConfigCreate
    })?;
    let mut page = form_page(&viewer, id, f.clone());
    let Some(kind) = platform_type(&f.platform_type) else {
        page.errors
            .push(FieldError::new("platformType", "choose GitLab or GitHub"));
        return render::html(actix_web::http::StatusCode::BAD_REQUEST, &page);
    };
    let stored = match id {
        Some(id) => Some(state.platform_configs.get(id).await?),
        None => None,
    };
    if let Some(stored) = &stored {
        page.has_token = stored.access_token.is_some();
        page.has_app_secret = stored.app_secret.is_some();
        page.has_webhook_secret = stored.webhook_secret.is_some();
        page.has_private_key = stored.private_key.is_some();
    }
    // Testing a stored connection without retyping its token uses the stored one, but
    // only against the address it already goes to: never to one typed in the form.
    let token = match (given(f.access_token.clone()), &stored) {
        (Some(t), _) if t != MASK => Some(t),
        (_, Some(stored)) if stored.access_token.is_some() => {
            let same_target = stored.platform_type == kind
                && stored.base_url.trim_end_matches('/') == f.base_url.trim().trim_end_matches('/');
            if !same_target {
                page.errors.push(FieldError::new(
                    "accessToken",
                    "type the token again to test it against another address or platform",
                ));
                return render::html(actix_web::http::StatusCode::BAD_REQUEST, &page);
            }
            stored.access_token.as_ref().map(|t| t.expose().to_owned())
        }
        _ => None,
    };
    // The same for an App's stored key: a JWT signed with it is a credential for
    // nine minutes, so it goes only where the key already goes.
    let typed_key = given(f.private_key.clone()).map(SecretString::new);
    let stored_key = stored
        .as_ref()
        .filter(|s| {
            s.platform_type == kind
                && s.base_url.trim_end_matches('/') == f.base_url.trim().trim_end_matches('/')
        })
        .and_then(|s| s.private_key.as_ref());
    match state
        .platform_configs
        .test_connection(
            kind,
            f.base_url.trim(),
            token.as_deref(),
            auth_type(&f.auth_type).unwrap_or(AuthType::Token),
            app_credentials(
                f.app_id().as_deref(),
                typed_key.as_ref().or(stored_key),
                f.installation().ok().flatten(),
            ),
        )
        .await
    {
        Ok(report) => {
            let mut text = report.message;
            if let Some(identity) = report.identity {
                text.push_str(&format!(" Signed in as {}.", identity.username));
            }
            if let Some(n) = report.project_count {
                text.push_str(&format!(" {n} project(s) visible."));
            }
            page.test_result = Some((report.success, text));
            render::page(&page)
        }
        Err(err) => invalid(page, err),
    }
}

async fn edit_form(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigUpdate)?;
    let state = state(&req)?;
    let config = state.platform_configs.get(*id).await?;
    render::page(&stored_form(&viewer, &config))
}

fn stored_form(viewer: &Viewer, config: &PlatformConfig) -> FormPage {
    let form = ConfigForm {
        name: config.name.clone(),
        platform_type: config.platform_type.as_str().to_owned(),
        base_url: config.base_url.clone(),
        auth_type: config.auth_type.as_str().to_owned(),
        access_token: None,
        app_id: config.app_id.clone(),
        app_secret: None,
        webhook_secret: None,
        enabled: config.enabled.then(|| "on".to_owned()),
        is_default: config.is_default.then(|| "on".to_owned()),
        gh_app_id: config.app_id.clone(),
        private_key: None,
        installation_id: config
            .installation_id
            .map(|id| id.to_string())
            .unwrap_or_default(),
    };
    let mut page = form_page(viewer, Some(config.id), form);
    page.has_private_key = config.private_key.is_some();
    page.has_token = config.access_token.is_some();
    page.has_app_secret = config.app_secret.is_some();
    page.has_webhook_secret = config.webhook_secret.is_some();
    page
}

async fn update(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
    form: PageForm<ConfigForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigUpdate)?;
    let state = state(&req)?;
    let f = form.fields;
    let stored = state.platform_configs.get(*id).await?;
    // Only what changed: a new address or platform makes the domain verify the token
    // again, which a rename must not need (the platform may be down).
    let changed = |new: Option<&str>, old: &str| new.filter(|n| *n != old).map(str::to_owned);
    let base_url = f.base_url.trim().trim_end_matches('/');
    // Empty secret fields keep what is stored.
    let installation_id = match f.installation() {
        Ok(id) => Some(id).filter(|id| *id != stored.installation_id),
        Err(e) => {
            let mut page = stored_form(&viewer, &stored);
            page.form = f;
            page.errors.push(e);
            return render::html(actix_web::http::StatusCode::BAD_REQUEST, &page);
        }
    };
    let patch = PlatformConfigPatch {
        name: Some(f.name.trim().to_owned()),
        platform_type: platform_type(&f.platform_type).filter(|k| *k != stored.platform_type),
        base_url: changed(Some(base_url), stored.base_url.trim_end_matches('/')),
        auth_type: auth_type(&f.auth_type).filter(|a| *a != stored.auth_type),
        access_token: given(f.access_token.clone()),
        app_id: f.app_id(),
        app_secret: given(f.app_secret.clone()),
        webhook_secret: given(f.webhook_secret.clone()),
        enabled: Some(f.enabled.is_some()).filter(|e| *e != stored.enabled),
        is_default: Some(f.is_default.is_some()).filter(|d| *d != stored.is_default),
        private_key: given(f.private_key.clone()),
        installation_id,
    };
    match state.platform_configs.update(*id, patch).await {
        Ok(config) => Ok(render::redirect_with(
            "/platforms",
            &format!("Saved “{}”.", config.name),
        )),
        Err(err) => {
            let mut page = stored_form(&viewer, &stored);
            page.form = f;
            invalid(page, err)
        }
    }
}

async fn set_default(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
    _form: PageForm<NoFields>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigUpdate)?;
    let config = state(&req)?.platform_configs.set_default(*id).await?;
    Ok(render::redirect_with(
        "/platforms",
        &format!("“{}” is now the default for its platform.", config.name),
    ))
}

#[derive(Deserialize)]
struct DeleteForm {
    force: Option<String>,
}

async fn delete(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
    form: PageForm<DeleteForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigDelete)?;
    let state = state(&req)?;
    let deleted = state
        .platform_configs
        .delete(*id, form.fields.force.is_some())
        .await;
    render::after(deleted, "/platforms", |projects| {
        format!("Connection deleted, with {projects} linked project(s).")
    })
}

async fn sync(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
    _form: PageForm<NoFields>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ProjectCreate)?;
    let state = state(&req)?;
    let target = format!("/projects?platformConfigId={id}");
    match state.projects.sync(*id).await {
        Ok(report) if report.errors.is_empty() => Ok(render::redirect_with(
            &target,
            &format!("Synced {} of {} project(s).", report.synced, report.total),
        )),
        Ok(report) => Ok(render::redirect_error(
            &target,
            &format!(
                "Synced {} of {} project(s); {} failed (first: {}).",
                report.synced,
                report.total,
                report.errors.len(),
                report
                    .errors
                    .first()
                    .map_or_else(String::new, |e| e.error.clone())
            ),
        )),
        Err(err @ (ServiceError::Platform(_) | ServiceError::BadRequest { .. })) => {
            Ok(render::redirect_error("/platforms", &describe(&err)))
        }
        Err(err) => Err(err.into()),
    }
}

fn callback_uri(req: &HttpRequest, id: Uuid) -> Result<String, PageError> {
    let state = state(req)?;
    Ok(format!(
        "{}/platforms/{id}/oauth/callback",
        state.settings.auth_url
    ))
}

async fn oauth_start(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
    _form: PageForm<NoFields>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigUpdate)?;
    let state = state(&req)?;
    match state
        .platform_configs
        .oauth_authorize_url(*id, &callback_uri(&req, *id)?)
        .await
    {
        Ok(url) => Ok(render::redirect(&url)),
        Err(err @ (ServiceError::BadRequest { .. } | ServiceError::Invalid(_))) => Ok(
            render::redirect_error(&format!("/platforms/{id}"), &describe(&err)),
        ),
        Err(err) => Err(err.into()),
    }
}

#[derive(Deserialize)]
struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

async fn oauth_callback(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
    query: web::Query<CallbackQuery>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigUpdate)?;
    let state = state(&req)?;
    let back = format!("/platforms/{id}");
    let Some(code) = query.code.as_deref().filter(|c| !c.is_empty()) else {
        let why = query
            .error_description
            .clone()
            .or_else(|| query.error.clone())
            .unwrap_or_else(|| "the platform sent no authorisation code".to_owned());
        return Ok(render::redirect_error(
            &back,
            &format!("Not connected: {why}"),
        ));
    };
    // A GET that stores a token: only with the state this server issued (a link with an
    // attacker's code and no state must not connect the attacker's account).
    let Some(issued) = query.state.as_deref().filter(|s| !s.is_empty()) else {
        return Ok(render::redirect_error(
            &back,
            "Not connected: the platform's answer carries no state",
        ));
    };
    match state
        .platform_configs
        .oauth_callback(*id, code, &callback_uri(&req, *id)?, Some(issued))
        .await
    {
        Ok(config) => Ok(render::redirect_with(
            "/platforms",
            &format!("“{}” is connected through OAuth.", config.name),
        )),
        Err(
            err @ (ServiceError::BadRequest { .. }
            | ServiceError::Invalid(_)
            | ServiceError::Platform(_)),
        ) => Ok(render::redirect_error(
            &back,
            &format!("Not connected: {}", describe(&err)),
        )),
        Err(err) => Err(err.into()),
    }
}
