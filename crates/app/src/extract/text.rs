//! Rules for text that names something (a key, a user, a platform config, a template):
//! one line a person can read. Free text (instructions, summaries, log lines) may hold
//! newlines and tabs and is not checked here.

use validator::ValidationError;

/// Not blank, and no control character (newline, tab, escape, C1...) anywhere. The
/// document states the same as the pattern of each such field
/// (`^[^controls]*[^controls and white space][^controls]*$`).
///
/// # Errors
/// A `single_line` error with a message for the client.
pub fn single_line(value: &str) -> Result<(), ValidationError> {
    if value.chars().any(char::is_control) {
        return Err(ValidationError::new("single_line")
            .with_message("must be one line without control characters".into()));
    }
    if value.trim().is_empty() {
        return Err(ValidationError::new("single_line").with_message("must not be blank".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_one_readable_line() {
        assert!(single_line("CI key – build 7").is_ok());
        for bad in [
            "",
            "   ",
            "\u{3000}",
            "two\nlines",
            "tab\there",
            "bell\u{7}",
            "c1\u{85}",
        ] {
            assert!(single_line(bad).is_err(), "{bad:?}");
        }
    }
}
