//! How reading a configuration value fails (the error that names its variable), and the
//! parsers of numbers, bounded numbers, prices, minutes, booleans and URLs.
use reviewd_api::client_addr::{ProxyHeader, TrustedProxies};

/// A configuration problem, displayed as one line that starts with the variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{var}: {reason}")]
pub struct ConfigError {
    pub var: &'static str,
    pub reason: String,
}

impl ConfigError {
    pub(super) fn new(var: &'static str, reason: impl Into<String>) -> Self {
        Self {
            var,
            reason: reason.into(),
        }
    }
}

pub(super) fn number<T: std::str::FromStr>(
    get: &impl Fn(&str) -> Option<String>,
    name: &'static str,
    default: T,
) -> Result<T, ConfigError> {
    match get(name) {
        None => Ok(default),
        Some(v) => v.parse().map_err(|_| {
            ConfigError::new(
                name,
                format!("must be a non-negative whole number, not `{v}`"),
            )
        }),
    }
}

/// A whole number within `range`.
pub(super) fn bounded<T>(
    get: &impl Fn(&str) -> Option<String>,
    name: &'static str,
    default: T,
    range: std::ops::RangeInclusive<T>,
) -> Result<T, ConfigError>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
{
    let value = number(get, name, default)?;
    if range.contains(&value) {
        Ok(value)
    } else {
        Err(ConfigError::new(
            name,
            format!(
                "must be from {} to {}, not {value}",
                range.start(),
                range.end()
            ),
        ))
    }
}

/// A price in USD per million tokens: unset is unknown (no cost recorded), 0 free.
pub(super) fn price(
    get: &impl Fn(&str) -> Option<String>,
    name: &'static str,
) -> Result<Option<f64>, ConfigError> {
    get(name)
        .map(|v| {
            v.parse::<f64>()
                .ok()
                .filter(|p| p.is_finite() && *p >= 0.0)
                .ok_or_else(|| {
                    ConfigError::new(
                        name,
                        format!(
                            "must be a non-negative number of USD per million tokens, not `{v}`"
                        ),
                    )
                })
        })
        .transpose()
}

pub(super) fn positive_minutes(
    get: &impl Fn(&str) -> Option<String>,
    name: &'static str,
    default: f64,
) -> Result<f64, ConfigError> {
    match get(name) {
        None => Ok(default),
        Some(v) => v
            .parse::<f64>()
            .ok()
            .filter(|m| m.is_finite() && *m > 0.0)
            .ok_or_else(|| {
                ConfigError::new(
                    name,
                    format!("must be a positive number of minutes, not `{v}`"),
                )
            }),
    }
}

pub(super) fn boolean(
    get: &impl Fn(&str) -> Option<String>,
    name: &'static str,
    default: bool,
) -> Result<bool, ConfigError> {
    match get(name).as_deref() {
        None => Ok(default),
        Some("true" | "1" | "yes") => Ok(true),
        Some("false" | "0" | "no") => Ok(false),
        Some(v) => Err(ConfigError::new(
            name,
            format!("must be true or false, not `{v}`"),
        )),
    }
}

pub(super) fn check_url(name: &'static str, value: &str) -> Result<(), ConfigError> {
    match url::Url::parse(value) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => Ok(()),
        _ => Err(ConfigError::new(
            name,
            format!("must be an http(s) URL, not `{value}`"),
        )),
    }
}

/// `TRUSTED_PROXIES`: addresses (`10.0.0.7`) and ranges (`10.0.0.0/8`, `fd00::/8`),
/// comma-separated, an address being a range of one; `TRUSTED_PROXY_HEADER`: the
/// header they write, `x-forwarded-for` (default) or `forwarded`.
pub(super) fn trusted_proxies(
    get: &impl Fn(&str) -> Option<String>,
) -> Result<TrustedProxies, ConfigError> {
    let header = match get("TRUSTED_PROXY_HEADER")
        .map(|h| h.to_ascii_lowercase())
        .as_deref()
    {
        None | Some("x-forwarded-for") => ProxyHeader::XForwardedFor,
        Some("forwarded") => ProxyHeader::Forwarded,
        Some(other) => {
            return Err(ConfigError::new(
                "TRUSTED_PROXY_HEADER",
                format!("must be x-forwarded-for or forwarded, not `{other}`"),
            ));
        }
    };
    let nets = get("TRUSTED_PROXIES")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|item| {
            item.parse::<ipnet::IpNet>()
                .or_else(|_| item.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| {
                    ConfigError::new(
                        "TRUSTED_PROXIES",
                        format!("`{item}` is neither an address nor a range (10.0.0.0/8)"),
                    )
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(TrustedProxies { nets, header })
}

/// The variables of AI providers other than PROVIDERA (`PROVIDERB_API_KEY` ...
/// `PROVIDERZ_MODEL`) that are set. `API_URL` is not read at all: it names a
/// development proxy in front of a separate dashboard, and here one server serves both.
pub(super) fn inactive_ai_variables(get: &impl Fn(&str) -> Option<String>) -> Vec<String> {
    ('B'..='Z')
        .flat_map(|letter| {
            ["API_KEY", "ENDPOINT", "MODEL"].map(move |suffix| format!("PROVIDER{letter}_{suffix}"))
        })
        .filter(|name| get(name).is_some_and(|v| !v.trim().is_empty()))
        .collect()
}
