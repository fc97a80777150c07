//! What never reaches a model: files that hold secrets by their name, and
//! secret-shaped strings wherever they appear (context, guidance, the diff).

use crate::review::globs::Patterns;
use regex::Regex;
use std::sync::LazyLock;

/// Files never read for context nor sent to a model (they are skipped when an MR
/// changes them): environment files, keys, certificates, credential stores.
pub const SECRET_FILE_GLOBS: &[&str] = &[
    ".env",
    ".env.*",
    "*.env",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "*.crt",
    "*.cer",
    "*.der",
    "*.kdbx",
    "*.tfvars",
    "*.tfstate",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".htpasswd",
    "credentials",
    "credentials.*",
    "*credentials*.json",
    "service-account*.json",
    "secrets.*",
    "*.secret",
    "*.secrets",
];

static SECRET_FILES: LazyLock<Option<Patterns>> =
    LazyLock::new(|| Patterns::new(SECRET_FILE_GLOBS).ok());

/// Whether `path`'s name marks it as holding secrets.
#[must_use]
pub fn is_secret_file(path: &str) -> bool {
    // The example and template files teams commit beside their env files hold no
    // values worth hiding, and their keys are useful context.
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    if [".example", ".sample", ".template", ".dist"]
        .iter()
        .any(|s| name.ends_with(s))
    {
        return false;
    }
    SECRET_FILES
        .as_ref()
        .is_none_or(|p| p.matches(path) || p.matches(&name))
}

/// What a masked value reads as.
pub const MASK: &str = "[secret masked by reviewd]";

/// Token shapes of the common providers, and private key blocks, each with the
/// name a finding gives it.
static TOKENS: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    [
        (
            "private key",
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|\z)",
        ),
        ("AWS access key", r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
        ("GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"),
        ("GitHub token", r"\bgithub_pat_[A-Za-z0-9_]{30,}\b"),
        ("GitLab token", r"\bglpat-[A-Za-z0-9_\-]{20,}"),
        ("GitLab runner token", r"\bglrt-[A-Za-z0-9_\-]{20,}"),
        ("Slack token", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
        ("AI provider key", r"\bsk-(proj-|ant-)?[A-Za-z0-9_\-]{20,}"),
        ("Stripe key", r"\b[rs]k_(live|test)_[A-Za-z0-9]{16,}"),
        ("Google API key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
        (
            "JSON web token",
            r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
        ),
        ("npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
        (
            "Slack webhook",
            r"https://hooks\.slack\.com/services/[A-Za-z0-9/]+",
        ),
        (
            "password in a URL",
            r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:[^\s:/@]{3,}@",
        ),
    ]
    .iter()
    .filter_map(|(name, p)| Regex::new(p).ok().map(|re| (*name, re)))
    .collect()
});

/// `password = "..."`, `api_key: '...'`, `SECRET_TOKEN="..."`: the value of an
/// assignment whose name says it is a secret.
static ASSIGNED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)([a-z0-9_.\-]*(password|passwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|client[_\-]?secret|auth)[a-z0-9_.\-]*["']?\s*(:=|=>|=|:)\s*)(["'])([^"'\s]{8,})(["'])"#,
    )
    .ok()
});

/// `text` with every secret-shaped string replaced by [`MASK`], and how many were.
#[must_use]
pub fn mask(text: &str) -> (String, usize) {
    let mut out = text.to_owned();
    let mut count = 0;
    for (_, re) in TOKENS.iter() {
        if re.is_match(&out) {
            count += re.find_iter(&out).count();
            out = re.replace_all(&out, MASK).into_owned();
        }
    }
    if let Some(re) = ASSIGNED.as_ref()
        && re.is_match(&out)
    {
        let mut n = 0;
        out = re
            .replace_all(&out, |c: &regex::Captures<'_>| {
                // A placeholder is not a secret, and masking it would hide the
                // code's intent from the reviewer.
                let value = &c[5];
                if value == MASK || looks_like_placeholder(value) {
                    return c[0].to_owned();
                }
                n += 1;
                format!("{}{}{MASK}{}", &c[1], &c[4], &c[6])
            })
            .into_owned();
        count += n;
    }
    (out, count)
}

/// The kinds of secret `text` holds (a token's provider, or "secret assignment"
/// for a named value that is not a placeholder), each once, in the order found.
#[must_use]
pub fn kinds(text: &str) -> Vec<&'static str> {
    let mut found: Vec<&'static str> = Vec::new();
    for (name, re) in TOKENS.iter() {
        if re.is_match(text) && !found.contains(name) {
            found.push(name);
        }
    }
    let assigned = ASSIGNED.as_ref().is_some_and(|re| {
        re.captures_iter(text).any(|c| {
            &c[5] != MASK
                && !looks_like_placeholder(&c[5])
                && !TOKENS.iter().any(|(_, t)| t.is_match(&c[5]))
        })
    });
    if assigned {
        found.push("secret assignment");
    }
    found
}

/// A unified diff with its secrets masked line by line, so every line keeps its
/// place (and its number) and its `+`/`-`/` ` marker; the lines of a private
/// key block are masked whole.
#[must_use]
pub fn mask_diff(diff: &str) -> (String, usize) {
    let mut out = String::with_capacity(diff.len());
    let mut count = 0;
    let mut in_key = false;
    for line in diff.split_inclusive('\n') {
        let (marker, rest) = match line.as_bytes().first() {
            Some(b'+' | b'-' | b' ') if !line.starts_with("@@") => line.split_at(1),
            _ => ("", line),
        };
        let starts_key = rest.contains("PRIVATE KEY-----") && rest.contains("-----BEGIN");
        if in_key || starts_key {
            in_key = !rest.contains("-----END");
            count += usize::from(starts_key);
            out.push_str(marker);
            out.push_str(MASK);
            if line.ends_with('\n') {
                out.push('\n');
            }
            continue;
        }
        let (masked, n) = mask(rest);
        count += n;
        out.push_str(marker);
        out.push_str(&masked);
    }
    (out, count)
}

fn looks_like_placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    value.starts_with('$')
        || value.starts_with('<')
        || value.starts_with('{')
        || value.contains("${")
        || [
            "changeme",
            "example",
            "placeholder",
            "your_",
            "xxxx",
            "dummy",
            "redacted",
            "***",
        ]
        .iter()
        .any(|p| lower.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_files_are_known_by_name_at_any_depth() {
        for path in [
            ".env",
            "config/.env.production",
            "deploy/tls/server.key",
            "certs/ca.pem",
            "home/.ssh/id_ed25519",
            ".npmrc",
            "gcp/service-account-prod.json",
            "infra/prod.tfvars",
            "app/credentials.yml",
        ] {
            assert!(is_secret_file(path), "{path}");
        }
        for path in [
            "src/env.rs",
            ".env.example",
            "src/keys.py",
            "docs/secrets.md.example",
            "README.md",
            "src/token.ts",
        ] {
            assert!(!is_secret_file(path), "{path}");
        }
    }

    #[test]
    fn token_shapes_and_assigned_secrets_are_masked() {
        let text = "aws = AKIAIOSFODNN7EXAMPLE\n\
            gh = ghp_0123456789abcdefghijABCDEFGHIJ0123456789\n\
            gl = glpat-abcdefghij0123456789\n\
            DB_PASSWORD = \"hunter2-very-secret\"\n\
            api_key: 'sk-live-abcdef0123456789'\n\
            url = postgres://app:s3cr3tpass@db:5432/app\n\
            -----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----\n\
            keep = compute_token(user)\n";
        let (masked, count) = mask(text);
        for secret in [
            "AKIAIOSFODNN7EXAMPLE",
            "ghp_0123456789",
            "glpat-abcdefghij",
            "hunter2-very-secret",
            "sk-live-abcdef",
            "s3cr3tpass",
            "MIIEabc",
        ] {
            assert!(!masked.contains(secret), "{secret} left in:\n{masked}");
        }
        assert!(count >= 7, "{count}");
        assert!(masked.contains("keep = compute_token(user)"), "code stays");
        assert!(masked.contains("DB_PASSWORD = \"[secret masked by reviewd]\""));
    }

    #[test]
    fn a_diff_keeps_its_lines_and_markers_when_masked() {
        let diff = "@@ -1,2 +1,5 @@\n ok = 1\n-old = 2\n+token = \"abcdefgh12345678\"\n+-----BEGIN PRIVATE KEY-----\n+MIIEvQIBADANBg\n+-----END PRIVATE KEY-----\n";
        let (masked, count) = mask_diff(diff);
        assert_eq!(masked.lines().count(), diff.lines().count());
        assert!(!masked.contains("abcdefgh12345678") && !masked.contains("MIIEvQIBADANBg"));
        assert!(masked.contains("+token = \"[secret masked by reviewd]\""));
        assert!(masked.contains(" ok = 1\n-old = 2\n"));
        assert_eq!(count, 2);
    }

    #[test]
    fn placeholders_and_plain_code_are_left_alone() {
        let text = "password = \"${DB_PASSWORD}\"\ntoken: \"<your token here>\"\nlet token = read_token(path);\n";
        assert_eq!(mask(text), (text.to_owned(), 0));
    }
}
