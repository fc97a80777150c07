//! `/ai-configs`: the AI models reviews are sent to (OpenAI-compatible endpoints), which
//! one is the default, and trying settings before they are stored. While no stored
//! configuration is the default, the built-in one of the `PROVIDERA_*` variables is
//! what reviews use, so it is listed too.

use crate::form::{NoFields, PageForm};
use crate::page_error::{PageError, describe};
use crate::render::{self, Chrome};
use crate::session::{Viewer, state};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use reviewd_api::state::AppState;
use reviewd_domain::model::ai_config::BUILTIN_NAME;
use reviewd_domain::model::{AiConfig, AiProviderKind, BuiltinAi, MASK, Permission};
use reviewd_domain::services::{
    AiConfigInput, AiConfigPatch, AiTestReport, AiTrial, FieldError, ServiceError,
};
use serde::Deserialize;
use uuid::Uuid;

crate::render::pages!(ListPage, FormPage);
pub fn configure(cfg: &mut web::ServiceConfig) {
    // `/new` and `/test` before `/{id}`, which would take them for ids.
    cfg.route("/ai-configs", web::get().to(list))
        .route("/ai-configs/new", web::get().to(new_form))
        .route("/ai-configs/new", web::post().to(create))
        .route("/ai-configs/test", web::post().to(test_settings))
        .route("/ai-configs/{id}", web::get().to(edit_form))
        .route("/ai-configs/{id}", web::post().to(update))
        .route("/ai-configs/{id}/default", web::post().to(set_default))
        .route("/ai-configs/{id}/test", web::post().to(test_stored))
        .route("/ai-configs/{id}/delete", web::post().to(delete));
}

#[derive(Template)]
#[template(path = "ai_configs.html")]
struct ListPage {
    chrome: Chrome,
    configs: Vec<AiConfig>,
    /// The `PROVIDERA_*` configuration, while it is the default (no stored one is).
    builtin: Option<BuiltinAi>,
    builtin_name: &'static str,
}

impl ListPage {
    /// "b (gpt-4o) then c (llama3)": a configuration's fallbacks in order.
    fn fallbacks(&self, config: &AiConfig) -> String {
        config
            .fallback_ids
            .iter()
            .filter_map(|id| self.configs.iter().find(|c| c.id == *id))
            .map(|c| format!("{} ({})", c.name, c.model))
            .collect::<Vec<_>>()
            .join(" then ")
    }
}

async fn list(req: HttpRequest, viewer: Viewer) -> Result<HttpResponse, PageError> {
    let state = state(&req)?;
    let configs = state.ai_configs.list().await?;
    let builtin =
        (!configs.iter().any(|c| c.is_default)).then(|| state.ai_configs.builtin().clone());
    render::page(&ListPage {
        chrome: Chrome::new(&viewer, "ai-configs", "AI models"),
        configs,
        builtin,
        builtin_name: BUILTIN_NAME,
    })
}

/// The form's fields as typed: numbers stay text so that a bad one is shown again
/// beside its field; the key is never filled back in (a stored one shows as `***`).
#[derive(Deserialize, Default, Clone)]
struct ConfigForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    provider: String,
    #[serde(default)]
    endpoint: String,
    api_key: Option<String>,
    clear_api_key: Option<String>,
    #[serde(default)]
    model: String,
    #[serde(default)]
    max_concurrency: String,
    #[serde(default)]
    timeout_secs: String,
    #[serde(default)]
    input_price_per_mtok: String,
    #[serde(default)]
    output_price_per_mtok: String,
    is_default: Option<String>,
    /// The fallbacks' ids in order, an empty one for "none".
    #[serde(default)]
    fallback_1: String,
    #[serde(default)]
    fallback_2: String,
    #[serde(default)]
    fallback_3: String,
}

/// What the API's request body checks before the domain sees it (lengths, one line,
/// numbers), so that the page accepts no more than the API does.
struct Checked {
    provider: Option<AiProviderKind>,
    max_concurrency: Option<i64>,
    timeout_secs: Option<i64>,
    input_price: Option<f64>,
    output_price: Option<f64>,
    fallback_ids: Vec<Uuid>,
}

/// The longest name or model the API takes (`CreateAiConfigBody`).
const MAX_LINE: usize = 200;

fn one_line(errors: &mut Vec<FieldError>, field: &str, value: &str) {
    if value.chars().count() > MAX_LINE || value.chars().any(char::is_control) {
        errors.push(FieldError::new(
            field,
            format!("must be one line of at most {MAX_LINE} characters"),
        ));
    }
}

fn at_most(errors: &mut Vec<FieldError>, field: &str, value: &str, max: usize) {
    if value.chars().count() > max {
        errors.push(FieldError::new(
            field,
            format!("must be at most {max} characters"),
        ));
    }
}

/// An empty field is "not given".
fn number<T: std::str::FromStr>(
    errors: &mut Vec<FieldError>,
    field: &str,
    value: &str,
    what: &str,
) -> Option<T> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    value.parse().ok().or_else(|| {
        errors.push(FieldError::new(field, format!("must be {what}")));
        None
    })
}

impl ConfigForm {
    /// # Errors
    /// Every field the API's body would refuse.
    fn check(&self) -> Result<Checked, Vec<FieldError>> {
        let mut errors = Vec::new();
        one_line(&mut errors, "name", &self.name);
        one_line(&mut errors, "model", &self.model);
        at_most(&mut errors, "endpoint", &self.endpoint, 2000);
        at_most(
            &mut errors,
            "apiKey",
            self.api_key.as_deref().unwrap_or_default(),
            4096,
        );
        let provider = match self.provider.trim() {
            "" => None,
            text => text.parse::<AiProviderKind>().map_or_else(
                |why| {
                    errors.push(FieldError::new("provider", why));
                    None
                },
                Some,
            ),
        };
        let whole = "a whole number";
        let dollars = "a number of US dollars per million tokens, 0 or more";
        let mut fallback_ids = Vec::new();
        for chosen in [&self.fallback_1, &self.fallback_2, &self.fallback_3] {
            match chosen.trim() {
                "" => {}
                text => match text.parse() {
                    Ok(id) => fallback_ids.push(id),
                    Err(_) => errors.push(FieldError::new(
                        "fallbackIds",
                        "choose stored AI models from the lists",
                    )),
                },
            }
        }
        let checked = Checked {
            fallback_ids,
            provider,
            max_concurrency: number(&mut errors, "maxConcurrency", &self.max_concurrency, whole),
            timeout_secs: number(&mut errors, "timeoutSecs", &self.timeout_secs, whole),
            input_price: number(
                &mut errors,
                "inputPricePerMTok",
                &self.input_price_per_mtok,
                dollars,
            ),
            output_price: number(
                &mut errors,
                "outputPricePerMTok",
                &self.output_price_per_mtok,
                dollars,
            ),
        };
        if errors.is_empty() {
            Ok(checked)
        } else {
            Err(errors)
        }
    }

    /// The key as the domain takes it: a typed one, an empty one to clear the stored
    /// key, or `None` to keep it (an empty field, or `***` sent back).
    fn key(&self) -> Option<String> {
        if self.clear_api_key.is_some() {
            return Some(String::new());
        }
        self.api_key
            .clone()
            .filter(|k| !k.trim().is_empty() && k.trim() != MASK)
    }
}

#[derive(Template)]
#[template(path = "ai_config_form.html")]
struct FormPage {
    chrome: Chrome,
    /// `None` for a new configuration.
    id: Option<Uuid>,
    form: ConfigForm,
    has_key: bool,
    providers: &'static [AiProviderKind],
    errors: Vec<FieldError>,
    message: Option<String>,
    test_result: Option<(bool, String)>,
    /// The stored configurations it may fall back on (every other one): id, name
    /// and model.
    choices: Vec<(Uuid, String, String)>,
}

impl FormPage {
    /// `checked`, when every fallback chosen is one the lists offered.
    fn offered(&self, checked: Checked) -> Result<Checked, Vec<FieldError>> {
        let known = |id: &Uuid| self.choices.iter().any(|(c, _, _)| c == id);
        if checked.fallback_ids.iter().all(known) {
            Ok(checked)
        } else {
            Err(vec![FieldError::new(
                "fallbackIds",
                "choose stored AI models from the lists",
            )])
        }
    }

    /// Whether the `slot`th fallback list (1..=3) shows `id` as chosen.
    fn chosen(&self, slot: &usize, id: &Uuid) -> bool {
        let value = match *slot {
            1 => &self.form.fallback_1,
            2 => &self.form.fallback_2,
            _ => &self.form.fallback_3,
        };
        value.trim() == id.to_string()
    }

    fn error(&self, field: &str) -> Option<&str> {
        self.errors
            .iter()
            .find(|e| e.field == field)
            .map(|e| e.message.as_str())
    }
}

/// The form, with the configurations it may name as fallbacks.
async fn form_page(
    state: &AppState,
    viewer: &Viewer,
    id: Option<Uuid>,
    form: ConfigForm,
) -> Result<FormPage, PageError> {
    let choices = state
        .ai_configs
        .list()
        .await?
        .into_iter()
        .filter(|c| Some(c.id) != id)
        .map(|c| (c.id, c.name, c.model))
        .collect();
    let title = if id.is_some() {
        "Edit AI model"
    } else {
        "Add an AI model"
    };
    Ok(FormPage {
        chrome: Chrome::new(viewer, "ai-configs", title),
        id,
        form,
        has_key: false,
        providers: &AiProviderKind::ALL,
        errors: Vec::new(),
        message: None,
        test_result: None,
        choices,
    })
}

async fn stored_form(
    state: &AppState,
    viewer: &Viewer,
    config: &AiConfig,
) -> Result<FormPage, PageError> {
    let fallback = |i: usize| {
        config
            .fallback_ids
            .get(i)
            .map(ToString::to_string)
            .unwrap_or_default()
    };
    let price = |p: Option<f64>| p.map(|v| v.to_string()).unwrap_or_default();
    let form = ConfigForm {
        name: config.name.clone(),
        provider: config.provider.as_str().to_owned(),
        endpoint: config.endpoint.clone(),
        api_key: None,
        clear_api_key: None,
        model: config.model.clone(),
        max_concurrency: config.max_concurrency.to_string(),
        timeout_secs: config.timeout_secs.to_string(),
        input_price_per_mtok: price(config.input_price_per_mtok),
        output_price_per_mtok: price(config.output_price_per_mtok),
        is_default: config.is_default.then(|| "on".to_owned()),
        fallback_1: fallback(0),
        fallback_2: fallback(1),
        fallback_3: fallback(2),
    };
    let mut page = form_page(state, viewer, Some(config.id), form).await?;
    page.has_key = config.api_key.is_some();
    Ok(page)
}

/// Re-shows the form with the complaints beside their fields (400).
fn refused(mut page: FormPage, errors: Vec<FieldError>) -> Result<HttpResponse, PageError> {
    page.errors = errors;
    render::html(StatusCode::BAD_REQUEST, &page)
}

/// Re-shows the form with the domain's complaints; other failures get their own page.
fn invalid(mut page: FormPage, err: ServiceError) -> Result<HttpResponse, PageError> {
    match err {
        ServiceError::Invalid(fields) => page.errors = fields,
        ServiceError::BadRequest { .. } | ServiceError::Conflict(_) => {
            page.message = Some(describe(&err));
        }
        other => return Err(other.into()),
    }
    render::html(StatusCode::BAD_REQUEST, &page)
}

async fn new_form(req: HttpRequest, viewer: Viewer) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigCreate)?;
    let form = ConfigForm {
        provider: AiProviderKind::OpenAiCompatible.as_str().to_owned(),
        ..ConfigForm::default()
    };
    let state = state(&req)?;
    render::page(&form_page(&state, &viewer, None, form).await?)
}

async fn create(
    req: HttpRequest,
    viewer: Viewer,
    form: PageForm<ConfigForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigCreate)?;
    let state = state(&req)?;
    let f = form.fields;
    let page = form_page(&state, &viewer, None, f.clone()).await?;
    let checked = match f.check().and_then(|c| page.offered(c)) {
        Ok(checked) => checked,
        Err(errors) => return refused(page, errors),
    };
    let input = AiConfigInput {
        name: f.name.clone(),
        provider: checked.provider,
        endpoint: f.endpoint.clone(),
        api_key: f.key(),
        model: f.model.clone(),
        max_concurrency: checked.max_concurrency,
        timeout_secs: checked.timeout_secs,
        input_price_per_mtok: checked.input_price,
        output_price_per_mtok: checked.output_price,
        is_default: Some(f.is_default.is_some()),
        fallback_ids: Some(checked.fallback_ids),
    };
    match state.ai_configs.create(input).await {
        Ok(config) => Ok(render::redirect_with(
            "/ai-configs",
            &format!("Added “{}”.", config.name),
        )),
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
    let config = state.ai_configs.get(*id).await?;
    render::page(&stored_form(&state, &viewer, &config).await?)
}

async fn update(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
    form: PageForm<ConfigForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigUpdate)?;
    let state = state(&req)?;
    let stored = state.ai_configs.get(*id).await?;
    let f = form.fields;
    let mut page = stored_form(&state, &viewer, &stored).await?;
    page.form = f.clone();
    let checked = match f.check().and_then(|c| page.offered(c)) {
        Ok(checked) => checked,
        Err(errors) => return refused(page, errors),
    };
    // The form shows every field, so each is sent; an emptied price clears it, an
    // emptied number keeps what is stored, an empty key field keeps the key.
    let patch = AiConfigPatch {
        name: Some(f.name.clone()),
        provider: checked.provider,
        endpoint: Some(f.endpoint.clone()),
        api_key: f.key(),
        model: Some(f.model.clone()),
        max_concurrency: checked.max_concurrency,
        timeout_secs: checked.timeout_secs,
        input_price_per_mtok: Some(checked.input_price),
        output_price_per_mtok: Some(checked.output_price),
        is_default: Some(f.is_default.is_some()),
        fallback_ids: Some(checked.fallback_ids),
    };
    match state.ai_configs.update(*id, patch).await {
        Ok(config) => Ok(render::redirect_with(
            "/ai-configs",
            &format!("Saved “{}”.", config.name),
        )),
        Err(err) => invalid(page, err),
    }
}

/// "reachable, key accepted (model gpt-4o-mini, 120 ms)".
fn report_text(report: &AiTestReport) -> String {
    let ms = report.response_time.as_millis();
    match &report.model {
        Some(model) => format!("{} (model {model}, {ms} ms)", report.message),
        None => format!("{} ({ms} ms)", report.message),
    }
}

/// Tries the settings as typed (the form's **Test** button); stores nothing.
async fn test_settings(
    req: HttpRequest,
    viewer: Viewer,
    form: PageForm<ConfigForm>,
) -> Result<HttpResponse, PageError> {
    // As the API: trying settings is `config:update`, for a new configuration too.
    viewer.require(Permission::ConfigUpdate)?;
    let state = state(&req)?;
    let id = form
        .pairs
        .iter()
        .find(|(k, _)| k == "id")
        .and_then(|(_, v)| v.parse::<Uuid>().ok());
    let f = form.fields;
    let mut page = form_page(&state, &viewer, id, f.clone()).await?;
    let stored = match id {
        Some(id) => Some(state.ai_configs.get(id).await?),
        None => None,
    };
    page.has_key = stored.as_ref().is_some_and(|s| s.api_key.is_some());
    let checked = match f.check() {
        Ok(checked) => checked,
        Err(errors) => return refused(page, errors),
    };
    let key = f.key();
    // The stored key stands behind an empty field only for the address it already
    // goes to: never for one typed in the form, which could be anyone's.
    if let Some(stored) = &stored {
        let same_endpoint =
            stored.endpoint.trim_end_matches('/') == f.endpoint.trim().trim_end_matches('/');
        if key.is_none() && stored.api_key.is_some() && !same_endpoint {
            return refused(
                page,
                vec![FieldError::new(
                    "apiKey",
                    "type the key again to test it against another address",
                )],
            );
        }
    }
    let trial = AiTrial {
        id,
        provider: checked.provider,
        endpoint: Some(f.endpoint.clone()),
        api_key: key,
        model: Some(f.model.trim().to_owned()).filter(|m| !m.is_empty()),
        timeout_secs: checked.timeout_secs,
    };
    match state.ai_configs.test(trial).await {
        Ok(report) => {
            page.test_result = Some((report.success, report_text(&report)));
            render::page(&page)
        }
        Err(err) => invalid(page, err),
    }
}

/// Tries a stored configuration as it is (the list's **Test** button).
async fn test_stored(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
    _form: PageForm<NoFields>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigUpdate)?;
    let state = state(&req)?;
    let config = state.ai_configs.get(*id).await?;
    let trial = AiTrial {
        id: Some(config.id),
        ..AiTrial::default()
    };
    let report = state.ai_configs.test(trial).await?;
    let text = format!(
        "“{}” {}: {}.",
        config.name,
        if report.success { "works" } else { "failed" },
        report_text(&report)
    );
    Ok(if report.success {
        render::redirect_with("/ai-configs", &text)
    } else {
        render::redirect_error("/ai-configs", &text)
    })
}

async fn set_default(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
    _form: PageForm<NoFields>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigUpdate)?;
    let made = state(&req)?.ai_configs.set_default(*id).await;
    render::after(made, "/ai-configs", |config| {
        format!(
            "“{}” is now the default of projects without their own.",
            config.name
        )
    })
}

/// A configuration a project is bound to is refused by the domain, naming the
/// projects: that sentence is the flash.
async fn delete(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<Uuid>,
    _form: PageForm<NoFields>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ConfigDelete)?;
    let state = state(&req)?;
    let config = state.ai_configs.get(*id).await?;
    let deleted = state.ai_configs.delete(*id).await;
    render::after(deleted, "/ai-configs", |()| {
        format!("Deleted “{}”.", config.name)
    })
}
