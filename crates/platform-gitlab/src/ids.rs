//! reviewd's ids (strings, signed numbers) as GitLab's unsigned ones: anything
//! else is refused before anything is sent.

use reviewd_domain::ports::PlatformError;

/// A GitLab id of ours as the API's unsigned one; anything else is refused before
/// anything is sent.
pub(crate) fn gl_id<T: TryInto<u64> + Copy + std::fmt::Display>(
    id: T,
    what: &str,
) -> Result<u64, PlatformError> {
    id.try_into()
        .map_err(|_| PlatformError::Rejected(format!("`{id}` is not a GitLab {what} id")))
}

pub(crate) fn parsed_id(id: &str, what: &str) -> Result<u64, PlatformError> {
    id.parse()
        .map_err(|_| PlatformError::Rejected(format!("`{id}` is not a GitLab {what} id")))
}

pub(crate) fn user_ids(ids: &[String]) -> Result<Vec<u64>, PlatformError> {
    ids.iter().map(|id| parsed_id(id, "user")).collect()
}
