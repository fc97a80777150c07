//! The calls the `gitlab` crate has no builder for, as `Endpoint`s of ours beside
//! its own, so they go through the same client.

use gitlab::api::common::path_escaped;
use gitlab::api::endpoint_prelude::{
    BodyError, Cow, Endpoint, FormParams, Method, Pageable, QueryParams, UrlBase,
};

/// `GET /projects/:id/merge_requests/:iid/changes`: the files of a merge request
/// on GitLab before 15.7, which has no `/diffs` (deprecated since, so not in the crate).
pub(crate) struct MergeRequestChanges<'a> {
    pub project: &'a str,
    pub merge_request: u64,
}

impl Endpoint for MergeRequestChanges<'_> {
    fn method(&self) -> Method {
        Method::GET
    }

    fn endpoint(&self) -> Cow<'static, str> {
        format!(
            "projects/{}/merge_requests/{}/changes",
            path_escaped(self.project),
            self.merge_request
        )
        .into()
    }
}

/// `GET /projects/:id/users`: the users who can be mentioned or assigned in a
/// project, which members of its groups are too.
pub(crate) struct ProjectUsers<'a> {
    pub project: &'a str,
    pub search: Option<&'a str>,
}

impl Endpoint for ProjectUsers<'_> {
    fn method(&self) -> Method {
        Method::GET
    }

    fn endpoint(&self) -> Cow<'static, str> {
        format!("projects/{}/users", path_escaped(self.project)).into()
    }

    fn parameters(&self) -> QueryParams<'_> {
        let mut params = QueryParams::default();
        params.push_opt("search", self.search);
        params
    }
}

impl Pageable for ProjectUsers<'_> {}

/// `POST /projects/:id/hooks` with `emoji_events` (GitLab 16.2+; older instances
/// ignore it), which the crate's `CreateHook` lacks: award emoji on reviewd's
/// comments are feedback.
pub(crate) struct CreateReviewHook<'a> {
    pub project: &'a str,
    pub url: &'a str,
    pub token: Option<&'a str>,
}

impl Endpoint for CreateReviewHook<'_> {
    fn method(&self) -> Method {
        Method::POST
    }

    fn endpoint(&self) -> Cow<'static, str> {
        format!("projects/{}/hooks", path_escaped(self.project)).into()
    }

    fn body(&self) -> Result<Option<(&'static str, Vec<u8>)>, BodyError> {
        let mut params = FormParams::default();
        params
            .push("url", self.url)
            .push("merge_requests_events", true)
            .push("note_events", true)
            .push("emoji_events", true)
            .push("push_events", false)
            .push("enable_ssl_verification", self.url.starts_with("https://"))
            .push_opt("token", self.token);
        params.into_body()
    }
}

/// `GET /oauth/token/info`: an OAuth token's scopes (outside `/api/v4`).
pub(crate) struct OAuthTokenInfo;

impl Endpoint for OAuthTokenInfo {
    fn method(&self) -> Method {
        Method::GET
    }

    fn endpoint(&self) -> Cow<'static, str> {
        "oauth/token/info".into()
    }

    fn url_base(&self) -> UrlBase {
        UrlBase::Instance
    }
}

/// `POST /oauth/token`: a grant (`authorization_code` or `refresh_token`) exchanged
/// for tokens, the client's credentials in the form.
pub(crate) struct OAuthToken<'a> {
    pub form: &'a [(&'a str, &'a str)],
}

impl Endpoint for OAuthToken<'_> {
    fn method(&self) -> Method {
        Method::POST
    }

    fn endpoint(&self) -> Cow<'static, str> {
        "oauth/token".into()
    }

    fn url_base(&self) -> UrlBase {
        UrlBase::Instance
    }

    fn body(&self) -> Result<Option<(&'static str, Vec<u8>)>, BodyError> {
        let mut params = FormParams::default();
        params.extend(self.form.iter().copied());
        params.into_body()
    }
}

/// `GET /projects/:id/repository/tree?ref=&recursive=true`: every entry of a
/// commit's tree, 100 a page. The crate's `Tree` sends its parameters as a form
/// body on a GET and asks for keyset pages; this one uses the query and offset
/// pages, as every other list here.
pub(crate) struct RepositoryTree<'a> {
    pub project: &'a str,
    pub sha: &'a str,
}

impl Endpoint for RepositoryTree<'_> {
    fn method(&self) -> Method {
        Method::GET
    }

    fn endpoint(&self) -> Cow<'static, str> {
        format!("projects/{}/repository/tree", path_escaped(self.project)).into()
    }

    fn parameters(&self) -> QueryParams<'_> {
        let mut params = QueryParams::default();
        params.push("ref", self.sha).push("recursive", true);
        params
    }
}

impl Pageable for RepositoryTree<'_> {}

/// `GET /projects/:id/repository/blobs/:sha/raw`: one blob's bytes (not in the
/// crate).
pub(crate) struct BlobRaw<'a> {
    pub project: &'a str,
    pub sha: &'a str,
}

impl Endpoint for BlobRaw<'_> {
    fn method(&self) -> Method {
        Method::GET
    }

    fn endpoint(&self) -> Cow<'static, str> {
        format!(
            "projects/{}/repository/blobs/{}/raw",
            path_escaped(self.project),
            self.sha
        )
        .into()
    }
}

/// `POST /projects/:id/merge_requests/:iid/discussions/:discussion_id/notes`: a
/// reply in a discussion (the crate only starts discussions).
pub(crate) struct ReplyInDiscussion<'a> {
    pub project: &'a str,
    pub merge_request: u64,
    pub discussion: &'a str,
    pub body: &'a str,
}

impl Endpoint for ReplyInDiscussion<'_> {
    fn method(&self) -> Method {
        Method::POST
    }

    fn endpoint(&self) -> Cow<'static, str> {
        format!(
            "projects/{}/merge_requests/{}/discussions/{}/notes",
            path_escaped(self.project),
            self.merge_request,
            path_escaped(self.discussion)
        )
        .into()
    }

    fn body(&self) -> Result<Option<(&'static str, Vec<u8>)>, BodyError> {
        let mut params = FormParams::default();
        params.push("body", self.body);
        params.into_body()
    }
}

/// `PUT /projects/:id/merge_requests/:iid/discussions/:discussion_id?resolved=true`.
pub(crate) struct ResolveDiscussion<'a> {
    pub project: &'a str,
    pub merge_request: u64,
    pub discussion: &'a str,
}

impl Endpoint for ResolveDiscussion<'_> {
    fn method(&self) -> Method {
        Method::PUT
    }

    fn endpoint(&self) -> Cow<'static, str> {
        format!(
            "projects/{}/merge_requests/{}/discussions/{}",
            path_escaped(self.project),
            self.merge_request,
            path_escaped(self.discussion)
        )
        .into()
    }

    fn body(&self) -> Result<Option<(&'static str, Vec<u8>)>, BodyError> {
        let mut params = FormParams::default();
        params.push("resolved", true);
        params.into_body()
    }
}
