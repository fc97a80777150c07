//! What the load scripts share.

/// A numeric setting from the environment, or its default.
pub fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The `p` quantile (0 to 1) of sorted durations.
pub fn percentile(sorted: &[std::time::Duration], p: f64) -> std::time::Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}
