//! A GitHub App's side of the adapter: the App's own calls (signed with its JWT),
//! the installation each repository is reached through, with one client per
//! installation holding its token, and the narrow tokens minted for runners.

use crate::api::{GhApp, GhInstallation, GhInstallationToken, GhRepo};
use crate::client::{GithubPlatform, get_all_on, github_error};
use crate::route_repo::Repository;
use octocrab::Octocrab;
use octocrab::models::InstallationId;
use reviewd_domain::model::{PlatformProject, RunnerToken, SecretString, TokenIdentity};
use reviewd_domain::ports::PlatformError;
use serde_json::json;
use std::collections::HashSet;
use std::sync::Arc;

const NOT_FOR_APPS: PlatformError =
    PlatformError::Unsupported("hostB App: its webhook is set in the App's settings");

impl GithubPlatform {
    /// The client of installation `id`, made once: it keeps the installation's
    /// token and mints a new one when it is 30 s from expiring or refused (401).
    pub(crate) fn installation(&self, id: u64) -> Result<Arc<Octocrab>, PlatformError> {
        let app = self.crab()?;
        let mut clients = self
            .installations
            .lock()
            .map_err(|_| PlatformError::Unavailable("the installation clients".into()))?;
        if let Some(client) = clients.get(&id) {
            return Ok(client.clone());
        }
        // Shares the App client's service (its queue, layers and reqwest client).
        let client = app
            .installation(InstallationId(id))
            .map(Arc::new)
            .map_err(github_error)?;
        clients.insert(id, client.clone());
        Ok(client)
    }

    fn remember(&self, repository: Repository, installation: u64) {
        if let Ok(mut known) = self.installation_of.lock() {
            known.insert(repository, installation);
        }
    }

    fn remembered(&self, repository: &Repository) -> Option<u64> {
        self.installation_of.lock().ok()?.get(repository).copied()
    }

    /// The installation that reaches `repository`: the config's, else the one
    /// GitHub names for it (`GET /repos/{owner}/{repo}/installation`), kept.
    pub(crate) async fn installation_for(
        &self,
        repository: &Repository,
    ) -> Result<u64, PlatformError> {
        if let Some(Some(configured)) = self.app_installation()? {
            return Ok(configured);
        }
        if let Some(known) = self.remembered(repository) {
            return Ok(known);
        }
        let not_installed = |what: &dyn std::fmt::Display| {
            PlatformError::NotFound(format!("the GitHub App is not installed on {what}"))
        };
        let installation = match repository {
            Repository::Name(full_name) => {
                let found: Result<GhInstallation, _> = self
                    .crab()?
                    .get(format!("/repos/{full_name}/installation"), None::<&()>)
                    .await
                    .map_err(github_error);
                match found {
                    Ok(found) => found.id,
                    Err(PlatformError::NotFound(_)) => return Err(not_installed(full_name)),
                    Err(other) => return Err(other),
                }
            }
            // Only the lists of the installations' repositories tell (and are
            // remembered whole as they are read).
            Repository::Id(id) => {
                self.app_projects().await?;
                return self
                    .remembered(repository)
                    .ok_or_else(|| not_installed(&format!("repository {id}")));
            }
        };
        self.remember(repository.clone(), installation);
        Ok(installation)
    }

    /// `GET /app`: the App is who the config acts as.
    pub(crate) async fn app_identity(&self) -> Result<TokenIdentity, PlatformError> {
        let app: GhApp = self
            .crab()?
            .get("/app", None::<&()>)
            .await
            .map_err(github_error)?;
        Ok(TokenIdentity {
            user_id: app.id.to_string(),
            username: app.slug,
            name: app.name,
            // An App has permissions per installation, no OAuth scopes.
            scopes: None,
        })
    }

    /// The login the App's comments show: `{slug}[bot]`, the slug read once from
    /// `GET /app` (it changes only with the App's settings, and the adapter of an
    /// App lives long).
    pub(crate) async fn app_login(&self) -> Result<String, PlatformError> {
        if let Some(login) = self.app_login.get() {
            return Ok(login.clone());
        }
        let login = format!("{}[bot]", self.app_identity().await?.username);
        Ok(self.app_login.get_or_init(|| login).clone())
    }

    /// The repositories of every installation the config covers (its own, or every
    /// one not suspended), each once; each repository's installation is kept. An
    /// installation that fails (suspended or removed since it was listed) is
    /// skipped; the call fails only when every one does.
    pub(crate) async fn app_projects(&self) -> Result<Vec<PlatformProject>, PlatformError> {
        let installations = match self.app_installation()? {
            Some(Some(configured)) => vec![configured],
            _ => {
                let listed: Vec<GhInstallation> =
                    get_all_on(self.crab()?, "/app/installations").await?;
                listed
                    .into_iter()
                    .filter(|i| i.suspended_at.is_none())
                    .map(|i| i.id)
                    .collect()
            }
        };
        let mut seen = HashSet::new();
        let mut projects = Vec::new();
        let mut failures = Vec::new();
        let count = installations.len();
        for installation in installations {
            let repos = match self.installation_repositories(installation).await {
                Ok(repos) => repos,
                Err(error) => {
                    tracing::warn!(installation.id = installation, error = %error, "github_app.installation_skipped");
                    failures.push(error);
                    continue;
                }
            };
            for repo in repos {
                if let Ok(id) = u64::try_from(repo.id) {
                    self.remember(Repository::Id(id), installation);
                }
                let name = Repository::Name(repo.full_name.to_lowercase());
                self.remember(name, installation);
                if seen.insert(repo.id) {
                    projects.push(repo.into());
                }
            }
        }
        if failures.len() == count
            && let Some(first) = failures.into_iter().next()
        {
            return Err(first);
        }
        Ok(projects)
    }

    /// `GET /installation/repositories` with installation `id`'s token.
    async fn installation_repositories(&self, id: u64) -> Result<Vec<GhRepo>, PlatformError> {
        let client = self.installation(id)?;
        get_all_on(&client, "/installation/repositories").await
    }

    /// A token of its own for a runner to clone `repository` (route `repo`) with:
    /// that repository only, `contents: read`, minted with the App's JWT. Not the
    /// installation token the adapter keeps, which a runner could use beyond the
    /// clone and whose revocation would hit both.
    pub(crate) async fn mint_runner_token(
        &self,
        repo: &str,
        project_id: &str,
    ) -> Result<RunnerToken, PlatformError> {
        let repository = Repository::of_route(repo).ok_or_else(|| {
            PlatformError::InvalidResponse(format!("`{repo}` names no repository"))
        })?;
        let installation = self.installation_for(&repository).await?;
        let narrowed = match (project_id.parse::<u64>(), &repository) {
            (Ok(id), _) => json!({ "repository_ids": [id] }),
            (Err(_), Repository::Id(id)) => json!({ "repository_ids": [id] }),
            // The mint takes names without their owner: the installation's account.
            (Err(_), Repository::Name(full_name)) => {
                let name = full_name.rsplit('/').next().unwrap_or(full_name);
                json!({ "repositories": [name] })
            }
        };
        let mut body = narrowed;
        body["permissions"] = json!({ "contents": "read" });
        let minted: GhInstallationToken = self
            .crab()?
            .post(
                format!("/app/installations/{installation}/access_tokens"),
                Some(&body),
            )
            .await
            .map_err(github_error)?;
        Ok(RunnerToken {
            token: SecretString::new(minted.token),
            expires_at: minted.expires_at,
        })
    }

    /// `Err` for webhook calls of a GitHub App config: the App's one webhook (set
    /// in its settings) delivers for every installation, and per-repository hooks
    /// would need the `repository_hooks` permission.
    pub(crate) fn repository_hooks_allowed(&self) -> Result<(), PlatformError> {
        match self.app_installation()? {
            Some(_) => Err(NOT_FOR_APPS),
            None => Ok(()),
        }
    }
}
