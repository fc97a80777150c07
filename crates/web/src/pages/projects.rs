//! `/projects`: the synced projects, their review switches and webhooks, and a
//! project's settings and pipeline history.

use crate::form::PageForm;
use crate::page_error::{PageError, describe};
use crate::pager::Pager;
use crate::render::{self, Chrome};
use crate::session::{Viewer, state};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use reviewd_domain::PageRequest;
use reviewd_domain::model::ProjectId;
use reviewd_domain::model::grade::Rating;
use reviewd_domain::model::review_views::TemplateItem;
use reviewd_domain::model::{
    AiConfig, Permission, PipelineEntry, PipelineFilter, PlatformConfig, PlatformUser, Project,
    ProjectFilter, ProjectSettingsChanges, ProjectStats, WebhookStatusFilter,
};
use reviewd_domain::ports::FeedbackScope;
use reviewd_domain::services::ServiceError;
use serde::Deserialize;
use uuid::Uuid;

crate::render::pages!(ListPage, DetailPage);
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/projects", web::get().to(list))
        .route("/projects/toggle", web::post().to(toggle))
        .route("/projects/webhooks", web::post().to(webhooks))
        .route("/projects/{id}", web::get().to(detail))
        .route("/projects/{id}", web::post().to(save_settings));
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ListQuery {
    search: Option<String>,
    platform_config_id: Option<String>,
    enabled: Option<String>,
    webhook_status: Option<String>,
    page: Option<u32>,
}

impl ListQuery {
    fn filter(&self) -> ProjectFilter {
        let non_empty = |v: &Option<String>| v.clone().filter(|s| !s.trim().is_empty());
        ProjectFilter {
            search: non_empty(&self.search),
            platform_type: None,
            platform_config_id: self
                .platform_config_id
                .as_deref()
                .and_then(|v| v.parse().ok()),
            enabled: match self.enabled.as_deref() {
                Some("true") => Some(true),
                Some("false") => Some(false),
                _ => None,
            },
            webhook_status: match self.webhook_status.as_deref() {
                Some("not_configured") => Some(WebhookStatusFilter::NotConfigured),
                Some(other) => other.parse().ok().map(WebhookStatusFilter::Is),
                None => None,
            },
        }
    }

    /// The query string of these filters (for pager links and redirects).
    fn query_string(&self) -> String {
        crate::pager::filters_query(&[
            ("search", self.search.as_deref()),
            ("platformConfigId", self.platform_config_id.as_deref()),
            ("enabled", self.enabled.as_deref()),
            ("webhookStatus", self.webhook_status.as_deref()),
        ])
    }
}

#[derive(Template)]
#[template(path = "projects.html")]
struct ListPage {
    chrome: Chrome,
    projects: Vec<Project>,
    configs: Vec<PlatformConfig>,
    stats: ProjectStats,
    query: ListQuery,
    pager: Pager,
    back: String,
}

async fn list(
    req: HttpRequest,
    viewer: Viewer,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, PageError> {
    let state = state(&req)?;
    let query = query.into_inner();
    let page = state
        .projects
        .list(
            &query.filter(),
            PageRequest::new(query.page.unwrap_or(1), 25, 25),
        )
        .await?;
    let qs = query.query_string();
    let pager = Pager::new(&page, "/projects", &qs);
    let back = format!("/projects?{qs}&page={}", page.request.page);
    render::page(&ListPage {
        chrome: Chrome::new(&viewer, "projects", "Projects"),
        projects: page.items,
        configs: state.platform_configs.list(None, false).await?,
        stats: state.projects.stats().await?,
        query,
        pager,
        back,
    })
}

#[derive(Deserialize)]
struct ToggleForm {
    project_id: ProjectId,
    /// `enabled` or `auto_review`.
    switch: String,
    /// `on`, `off`, or `inherit` (auto-review only).
    value: String,
    back: Option<String>,
}

async fn toggle(
    req: HttpRequest,
    viewer: Viewer,
    form: PageForm<ToggleForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ProjectUpdate)?;
    let state = state(&req)?;
    let f = form.fields;
    let on = match f.value.as_str() {
        "on" => Some(true),
        "off" => Some(false),
        "inherit" => None,
        _ => {
            return Err(PageError::BadRequest(
                "value must be on, off or inherit".to_owned(),
            ));
        }
    };
    let changes = match (f.switch.as_str(), on) {
        ("enabled", Some(on)) => ProjectSettingsChanges {
            enabled: Some(on),
            ..ProjectSettingsChanges::default()
        },
        ("auto_review", on) => ProjectSettingsChanges {
            auto_review: Some(on),
            ..ProjectSettingsChanges::default()
        },
        _ => return Err(PageError::BadRequest("unknown switch".to_owned())),
    };
    let project = state
        .projects
        .update_settings(f.project_id, changes)
        .await?;
    let what = match (f.switch.as_str(), on) {
        ("enabled", Some(true)) => "enabled",
        ("enabled", _) => "disabled",
        (_, Some(true)) => "set to review automatically",
        (_, Some(false)) => "set not to review automatically",
        (_, None) => "set to the global auto-review default",
    };
    Ok(render::redirect_with(
        &render::local_path(f.back.as_deref(), "/projects"),
        &format!("{} {what}.", project.full_path),
    ))
}

#[derive(Deserialize)]
struct WebhookForm {
    /// `create`, `verify` or `remove`.
    action: String,
    back: Option<String>,
}

async fn webhooks(
    req: HttpRequest,
    viewer: Viewer,
    form: PageForm<WebhookForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ProjectUpdate)?;
    let state = state(&req)?;
    let back = render::local_path(form.fields.back.as_deref(), "/projects");
    let ids: Vec<ProjectId> = form
        .all("project_id")
        .iter()
        .filter_map(|v| v.parse().ok())
        .collect();
    let message = match form.fields.action.as_str() {
        "verify" => {
            let s = state.webhooks.verify_all().await?;
            format!(
                "Checked {} webhook(s): {} active, {} inactive, {} with errors, {} not configured.",
                s.checked, s.active, s.inactive, s.error, s.not_configured
            )
        }
        "create" | "remove" if ids.is_empty() => {
            return Ok(render::redirect_error(&back, "Tick the projects first."));
        }
        "create" => {
            let results = state.webhooks.create_many(&ids, None).await?;
            let ok = results.iter().filter(|r| r.success).count();
            let first_error = results.iter().find_map(|r| r.error.clone());
            match first_error {
                None => format!("Webhooks created for {ok} project(s)."),
                Some(e) => {
                    return Ok(render::redirect_error(
                        &back,
                        &format!(
                            "Webhooks created for {ok} of {} project(s); {e}",
                            results.len()
                        ),
                    ));
                }
            }
        }
        "remove" => {
            let mut removed = 0;
            for id in &ids {
                match state.webhooks.remove(*id).await {
                    Ok(_) => removed += 1,
                    Err(err @ (ServiceError::Platform(_) | ServiceError::BadRequest { .. })) => {
                        return Ok(render::redirect_error(
                            &back,
                            &format!("Removed {removed} webhook(s), then: {}", describe(&err)),
                        ));
                    }
                    Err(err) => return Err(err.into()),
                }
            }
            format!("Removed {removed} webhook(s).")
        }
        _ => return Err(PageError::BadRequest("unknown webhook action".to_owned())),
    };
    Ok(render::redirect_with(&back, &message))
}

#[derive(Template)]
#[template(path = "project.html")]
struct DetailPage {
    chrome: Chrome,
    project: Project,
    ignore_patterns: String,
    inherits_ignore: bool,
    global_ignore: String,
    members: Vec<PlatformUser>,
    members_error: Option<String>,
    /// Saved reviewer ids that the member list no longer shows.
    other_reviewers: Vec<String>,
    pipelines: Vec<PipelineEntry>,
    pager: Pager,
    /// The project's own template, if it has one (else the global default applies).
    template: Option<TemplateItem>,
    /// The stored AI configurations the project may be bound to.
    ai_configs: Vec<AiConfig>,
    /// The one reviews use: the project's, else the default; `None` for `PROVIDERA_*`.
    ai_in_use: Option<String>,
    /// The monthly budget as the form shows it (blank for none).
    budget: String,
    /// The context budget as the form shows it (blank for the server's).
    context_budget: String,
    /// What the project's AI calls cost this month, formatted.
    spent_this_month: String,
    /// How readers judged the project's comments, in words.
    acceptance: String,
    /// The grades the gate's bar may be set to.
    ratings: &'static [Rating],
    /// The latest SARIF logs CI uploaded.
    uploads: Vec<reviewd_domain::ports::Upload>,
}

impl DetailPage {
    fn is_reviewer(&self, id: &str) -> bool {
        self.project.default_reviewer_ids.iter().any(|r| r == id)
    }

    fn is_ai(&self, id: &Uuid) -> bool {
        self.project.ai_config_id.as_ref() == Some(id)
    }
}

#[derive(Deserialize)]
struct DetailQuery {
    page: Option<u32>,
}

async fn detail(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<ProjectId>,
    query: web::Query<DetailQuery>,
) -> Result<HttpResponse, PageError> {
    let state = state(&req)?;
    let project = state.projects.get(*id).await?;
    let resolved = state.projects.resolved_config(*id).await?;
    // The member list comes from the platform, which may be down: the page still works.
    let (members, members_error) = if viewer.may(Permission::ProjectUpdate) {
        match state
            .projects
            .members(*id, None, PageRequest::new(1, 100, 100))
            .await
        {
            Ok(page) => (page.items, None),
            Err(e) => (Vec::new(), Some(describe(&e))),
        }
    } else {
        (Vec::new(), None)
    };
    let other_reviewers = project
        .default_reviewer_ids
        .iter()
        .filter(|r| !members.iter().any(|m| &&m.id == r))
        .cloned()
        .collect();
    let pipelines = state
        .projects
        .pipelines(
            *id,
            &PipelineFilter::default(),
            PageRequest::new(query.page.unwrap_or(1), 20, 20),
        )
        .await?;
    let pager = Pager::new(&pipelines, &format!("/projects/{id}"), "");
    let template = state
        .history
        .templates()
        .await?
        .into_iter()
        .find(|t| Some(t.id) == resolved.template_id);
    let ai_configs = state.ai_configs.list().await?;
    let ai_in_use = resolved
        .ai_config_id
        .and_then(|id| ai_configs.iter().find(|c| c.id == id))
        .map(|c| format!("{} ({})", c.name, c.model));
    let spent_this_month = crate::format::usd(&Some(state.budgets.this_month(project.id).await?));
    let judged = state
        .feedback
        .acceptance(FeedbackScope::Project(project.id))
        .await?;
    let acceptance = crate::format::acceptance(judged.helped, judged.judged);
    render::page(&DetailPage {
        template,
        ai_configs,
        ai_in_use,
        budget: project
            .monthly_budget_usd
            .map(|b| b.to_string())
            .unwrap_or_default(),
        context_budget: project
            .context_budget_tokens
            .map(|n| n.to_string())
            .unwrap_or_default(),
        spent_this_month,
        acceptance,
        ratings: &Rating::ALL,
        uploads: state.analysis.recent(project.id, 10).await?,
        chrome: Chrome::new(&viewer, "projects", project.full_path.clone()),
        ignore_patterns: project
            .file_ignore_patterns
            .clone()
            .unwrap_or_default()
            .join("\n"),
        inherits_ignore: project.file_ignore_patterns.is_none(),
        global_ignore: resolved.file_ignore_patterns.join(", "),
        project,
        members,
        members_error,
        other_reviewers,
        pipelines: pipelines.items,
        pager,
    })
}

#[derive(Deserialize)]
struct SettingsForm {
    enabled: Option<String>,
    auto_review: String,
    inherit_ignore: Option<String>,
    #[serde(default)]
    ignore_patterns: String,
    auto_assign_author: Option<String>,
    /// `inherit`, or the id of an AI configuration.
    #[serde(default)]
    ai_config: String,
    /// USD; blank for no budget.
    #[serde(default)]
    monthly_budget: String,
    /// Tokens; blank for the server's.
    #[serde(default)]
    context_budget: String,
    suppress_rejected: Option<String>,
    refuse_outsiders: Option<String>,
    gate_enabled: Option<String>,
    /// A grade, or blank for none.
    #[serde(default)]
    gate_min_rating: String,
}

/// The form's grade bar of the merge gate: blank for none.
fn rating_choice(value: &str) -> Result<Option<Rating>, ServiceError> {
    match value.trim() {
        "" => Ok(None),
        grade => grade
            .parse()
            .map(Some)
            .map_err(|_| ServiceError::invalid("gateMinRating", "choose a grade from the list")),
    }
}

/// The form's AI configuration: `inherit` (the default one) or an id.
fn ai_config_choice(value: &str) -> Result<Option<Uuid>, ServiceError> {
    match value.trim() {
        "" | "inherit" => Ok(None),
        id => Uuid::parse_str(id)
            .map(Some)
            .map_err(|_| ServiceError::invalid("aiConfigId", "choose an AI model from the list")),
    }
}

/// The form's budget: blank for none, else a number of USD (the service checks
/// its range).
fn budget_choice(value: &str) -> Result<Option<f64>, ServiceError> {
    let value = value.trim().trim_start_matches('$').trim();
    if value.is_empty() {
        return Ok(None);
    }
    value.parse::<f64>().map(Some).map_err(|_| {
        ServiceError::invalid(
            "monthlyBudget",
            "a budget is a number of USD, like 50 or 12.5; leave it blank for none",
        )
    })
}

/// The form's context budget: blank for the server's, else a whole number of
/// tokens (the service checks its range).
fn context_budget_choice(value: &str) -> Result<Option<u32>, ServiceError> {
    let value = value.trim().replace([',', '_', ' '], "");
    if value.is_empty() {
        return Ok(None);
    }
    value.parse::<u32>().map(Some).map_err(|_| {
        ServiceError::invalid(
            "contextBudgetTokens",
            "a context budget is a whole number of tokens, like 8000; leave it blank for the server's",
        )
    })
}

async fn save_settings(
    req: HttpRequest,
    viewer: Viewer,
    id: web::Path<ProjectId>,
    form: PageForm<SettingsForm>,
) -> Result<HttpResponse, PageError> {
    viewer.require(Permission::ProjectUpdate)?;
    let state = state(&req)?;
    let reviewers: Vec<String> = form
        .all("reviewer")
        .into_iter()
        .map(str::to_owned)
        .collect();
    let f = form.fields;
    let patterns: Vec<String> = f
        .ignore_patterns
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    let back = format!("/projects/{id}");
    let choices = ai_config_choice(&f.ai_config).and_then(|ai| {
        Ok((
            ai,
            budget_choice(&f.monthly_budget)?,
            context_budget_choice(&f.context_budget)?,
            rating_choice(&f.gate_min_rating)?,
        ))
    });
    let (ai_config_id, monthly_budget_usd, context_budget_tokens, gate_min_rating) = match choices {
        Ok(choices) => choices,
        Err(e) => return render::after(Err::<(), _>(e), &back, |_| String::new()),
    };
    let changes = ProjectSettingsChanges {
        enabled: Some(f.enabled.is_some()),
        auto_review: Some(match f.auto_review.as_str() {
            "on" => Some(true),
            "off" => Some(false),
            _ => None,
        }),
        file_ignore_patterns: Some(if f.inherit_ignore.is_some() {
            None
        } else {
            Some(patterns)
        }),
        ai_config_id: Some(ai_config_id),
        default_reviewer_ids: Some(reviewers),
        auto_assign_author: Some(f.auto_assign_author.is_some()),
        monthly_budget_usd: Some(monthly_budget_usd),
        suppress_rejected: Some(f.suppress_rejected.is_some()),
        refuse_outsiders: Some(f.refuse_outsiders.is_some()),
        gate_enabled: Some(f.gate_enabled.is_some()),
        gate_min_rating: Some(gate_min_rating),
        context_budget_tokens: Some(context_budget_tokens),
    };
    let saved = state.projects.update_settings(*id, changes).await;
    render::after(saved, &back, |_| "Settings saved.".to_owned())
}
