//! Small display helpers called from the templates (`crate::format::ago(&x)`).

use chrono::{DateTime, Utc};

/// "2026-11-23 16:40 UTC".
pub fn when(t: &DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// `when`, or a dash for a missing time.
pub fn maybe_when(t: &Option<DateTime<Utc>>) -> String {
    t.as_ref().map_or_else(|| "—".to_owned(), when)
}

/// "just now", "5 min ago", "3 h ago", "2 days ago" (the exact time is in a title).
pub fn ago(t: &DateTime<Utc>) -> String {
    let secs = (Utc::now() - *t).num_seconds();
    match secs {
        s if s < 45 => "just now".to_owned(),
        s if s < 3600 => format!("{} min ago", (s + 30) / 60),
        s if s < 86_400 => format!("{} h ago", s / 3600),
        s if s < 2 * 86_400 => "yesterday".to_owned(),
        s => format!("{} days ago", s / 86_400),
    }
}

pub fn maybe_ago(t: &Option<DateTime<Utc>>) -> String {
    t.as_ref().map_or_else(|| "never".to_owned(), ago)
}

/// The first 8 characters of a commit SHA.
pub fn short(sha: &str) -> String {
    sha.chars().take(8).collect()
}

/// Milliseconds as "850 ms" or "2.4 s".
pub fn millis(ms: &i64) -> String {
    if *ms < 1000 {
        format!("{ms} ms")
    } else {
        #[expect(clippy::cast_precision_loss, reason = "display only")]
        let secs = *ms as f64 / 1000.0;
        format!("{secs:.1} s")
    }
}

/// A size in bytes, in the unit that reads best (`52 KB`, `3.1 MB`).
#[must_use]
pub fn bytes(n: &u64) -> String {
    #[expect(clippy::cast_precision_loss, reason = "display only")]
    let n = *n as f64;
    if n < 1024.0 {
        format!("{n} B")
    } else if n < 1024.0 * 1024.0 {
        format!("{:.0} KB", n / 1024.0)
    } else {
        format!("{:.1} MB", n / 1024.0 / 1024.0)
    }
}

/// US dollars spent: "$1.25", "$0.0042" under a dollar (a review's calls cost cents),
/// "—" when unknown (no price was configured).
pub fn usd(value: &Option<f64>) -> String {
    match *value {
        None => "—".to_owned(),
        Some(0.0) => "$0.00".to_owned(),
        Some(v) if v.abs() < 0.000_1 => "< $0.0001".to_owned(),
        Some(v) if v.abs() < 1.0 => format!("${v:.4}"),
        Some(v) => format!("${v:.2}"),
    }
}

/// How readers judged comments: "75% of 4 judged comments", or a word that no
/// comment has a verdict yet.
pub fn acceptance(helped: u64, judged: u64) -> String {
    match reviewd_domain::review::feedback::acceptance_rate(helped, judged) {
        None => "no comment judged yet".to_owned(),
        Some(rate) => format!(
            "{:.0}% of {judged} judged comment{}",
            rate * 100.0,
            if judged == 1 { "" } else { "s" }
        ),
    }
}

/// A price per million tokens as it was typed ("$0.15", "$2.50", "$0.075"), "—" when
/// none is set.
pub fn price(value: &Option<f64>) -> String {
    match *value {
        None => "—".to_owned(),
        Some(v) if ((v * 100.0).round() - v * 100.0).abs() < 1e-9 => format!("${v:.2}"),
        Some(v) => format!("${v}"),
    }
}

/// Percent-encoding of one query-string value.
pub fn url_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A string, or a dash when it is missing or empty.
pub fn or_dash(value: &Option<String>) -> String {
    value
        .as_deref()
        .filter(|v| !v.is_empty())
        .unwrap_or("—")
        .to_owned()
}

/// A string, or nothing when it is missing (form values).
pub fn or_empty(value: &Option<String>) -> String {
    value.clone().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn acceptance_reads_as_a_share_of_the_judged() {
        assert_eq!(super::acceptance(0, 0), "no comment judged yet");
        assert_eq!(super::acceptance(3, 4), "75% of 4 judged comments");
        assert_eq!(super::acceptance(1, 1), "100% of 1 judged comment");
        assert_eq!(super::acceptance(1, 3), "33% of 3 judged comments");
    }

    use super::*;

    #[test]
    fn relative_times_read_naturally() {
        let now = Utc::now();
        assert_eq!(ago(&now), "just now");
        assert_eq!(ago(&(now - chrono::Duration::minutes(5))), "5 min ago");
        assert_eq!(ago(&(now - chrono::Duration::hours(3))), "3 h ago");
        assert_eq!(ago(&(now - chrono::Duration::days(9))), "9 days ago");
    }

    #[test]
    fn query_values_are_encoded() {
        assert_eq!(
            url_encode("/reviews?status=a b&x"),
            "/reviews%3Fstatus%3Da%20b%26x"
        );
        assert_eq!(millis(&850), "850 ms");
        assert_eq!(millis(&2400), "2.4 s");
    }

    #[test]
    fn money_shows_cents_of_a_review_and_prices_as_typed() {
        assert_eq!(usd(&None), "—");
        assert_eq!(usd(&Some(0.0)), "$0.00");
        assert_eq!(usd(&Some(0.004_2)), "$0.0042");
        assert_eq!(usd(&Some(0.000_01)), "< $0.0001");
        assert_eq!(usd(&Some(12.345)), "$12.35");
        assert_eq!(price(&Some(2.5)), "$2.50");
        assert_eq!(price(&Some(0.075)), "$0.075");
        assert_eq!(price(&None), "—");
    }
}
