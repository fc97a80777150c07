//! What the adapters share: HTTP failures mapped to [`NotifyError`], secrets kept
//! out of error messages, required settings.

use reviewd_domain::model::SecretString;
use reviewd_domain::ports::NotifyError;
use reviewd_http::HttpError;

/// A failed HTTP call as a delivery failure. `secrets` are cut out of the message
/// (a webhook URL's path and query are its token, and reqwest errors print URLs).
pub(crate) fn from_http(err: HttpError, secrets: &[&str]) -> NotifyError {
    match err {
        HttpError::Status {
            status,
            message,
            rate_limited,
            ..
        } => {
            let text = scrub(&format!("HTTP {status}: {message}"), secrets);
            if rate_limited || matches!(status, 408 | 429 | 500..=599) {
                NotifyError::Unavailable(text)
            } else {
                NotifyError::Rejected(text)
            }
        }
        HttpError::Timeout(d) => NotifyError::Unavailable(format!("no answer within {d:?}")),
        HttpError::Connect(e) | HttpError::Interrupted(e) => {
            NotifyError::Unavailable(scrub(&e, secrets))
        }
        HttpError::Decode(e) => NotifyError::Rejected(scrub(&e, secrets)),
        e @ HttpError::TooLarge(_) => NotifyError::Rejected(e.to_string()),
    }
}

/// `text` with every secret replaced by `***`; for a secret that is a URL, its path
/// and query too, since the HTTP client prints URLs without their query or port.
/// Secrets shorter than four characters are left alone: cutting every `p` out of a
/// message would hide more than it protects.
pub(crate) fn scrub(text: &str, secrets: &[&str]) -> String {
    let mut out = text.to_owned();
    for secret in secrets.iter().filter(|s| s.len() >= 4) {
        out = out.replace(secret, "***");
        if let Ok(url) = url::Url::parse(secret) {
            if let Some(query) = url.query().filter(|q| !q.is_empty()) {
                out = out.replace(query, "***");
            }
            if url.path().len() > 1 {
                out = out.replace(url.path(), "/***");
            }
        }
    }
    out
}

/// A setting the channel cannot do without.
pub(crate) fn required<'a>(
    value: Option<&'a SecretString>,
    name: &str,
) -> Result<&'a str, NotifyError> {
    value
        .map(SecretString::expose)
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| NotifyError::NotConfigured(format!("{name} is not set")))
}

/// Seconds since the Unix epoch, as the signing schemes want them.
pub(crate) fn unix_now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// At most `max` characters of `text`, with an ellipsis when cut (chat APIs refuse
/// over-long fields outright).
pub(crate) fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_classes_map_to_retryable_or_not() {
        let status = |status| HttpError::Status {
            status,
            message: "nope".into(),
            retry_after: None,
            rate_limited: false,
        };
        for s in [408, 429, 500, 502, 503] {
            assert!(from_http(status(s), &[]).retryable(), "{s}");
        }
        for s in [400, 401, 403, 404, 413] {
            assert!(
                matches!(from_http(status(s), &[]), NotifyError::Rejected(_)),
                "{s}"
            );
        }
    }

    #[test]
    fn secrets_and_url_tokens_are_cut_out() {
        let url = "https://discord.test:8443/api/webhooks/1/tok3n?x=s1g";
        let text = "error sending request for url (https://discord.test/api/webhooks/1/tok3n): refused; sig x=s1g";
        let out = scrub(text, &[url]);
        assert!(!out.contains("tok3n") && !out.contains("s1g"), "{out}");
        assert!(out.contains("discord.test"));
    }

    #[test]
    fn truncation_counts_characters() {
        assert_eq!(truncate("héllo", 10), "héllo");
        assert_eq!(truncate("héllo", 3), "hé…");
    }
}
