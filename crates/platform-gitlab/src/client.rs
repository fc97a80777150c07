use crate::rest::GlRest;
use reviewd_domain::model::PlatformConnection;
use reviewd_http::HttpClient;

/// GitLab's REST API v4 at one instance, through one token.
pub struct GitlabPlatform {
    pub(crate) rest: GlRest,
}

impl GitlabPlatform {
    #[must_use]
    pub fn new(http: HttpClient, connection: &PlatformConnection) -> Self {
        let credentials = Some((connection.auth_type, connection.token.clone()));
        Self {
            rest: GlRest::new(http, &connection.base_url, credentials),
        }
    }
}
