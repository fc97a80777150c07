//! Rules for text that names something (a key, a user, a platform config, a template):
//! one line a person can read. Free text (instructions, summaries, log lines) may hold
//! newlines and tabs and is not checked here.

use validator::ValidationError;

/// No control character (newline, tab, escape, C1...) anywhere. Blankness is left to
/// the service, which reports it with the body's other faults in one answer; the
/// document states both as the field's pattern
/// (`^[^controls]*[^controls and white space][^controls]*$`).
///
/// # Errors
/// A `single_line` error with a message for the client.
pub fn single_line(value: &str) -> Result<(), ValidationError> {
    if value.chars().any(char::is_control) {
        return Err(ValidationError::new("single_line")
            .with_message("must be one line without control characters".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_one_readable_line() {
        assert!(single_line("CI key – build 7").is_ok());
        // Blank is the service's to refuse (with the body's other faults).
        assert!(single_line("   ").is_ok());
        for bad in ["two\nlines", "tab\there", "bell\u{7}", "c1\u{85}"] {
            assert!(single_line(bad).is_err(), "{bad:?}");
        }
    }
}
