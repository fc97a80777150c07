//! Sealing secrets into their `*_enc` columns and opening them again.

use crate::error::corrupt;
use reviewd_crypto::SecretBox;
use reviewd_domain::model::SecretString;
use reviewd_domain::ports::RepoError;

/// Decrypts a stored secret; a value that does not open (another key, tampering) is
/// an error rather than a silently missing secret.
pub(crate) fn open(
    secrets: &SecretBox,
    sealed: Option<String>,
    what: &str,
) -> Result<Option<SecretString>, RepoError> {
    sealed
        .map(|s| {
            secrets
                .open(&s)
                .map(SecretString::new)
                .map_err(|e| corrupt(format!("{what}: {e}")))
        })
        .transpose()
}

pub(crate) fn seal(secrets: &SecretBox, secret: Option<&SecretString>) -> Option<String> {
    secret.map(|s| secrets.seal(s.expose()))
}
