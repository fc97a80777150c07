//! `.reviewd.yml`'s `tools:`: which analyzers a runner runs in the checkout, with
//! what limits, and which findings are posted. The built-in secrets scan is not
//! listed: it always runs.

use super::PostMode;
use serde::{Deserialize, Serialize};

/// The analyzers a runner knows by name; each runs only where it applies (files
/// of its language changed, its rules present) and its program is installed.
pub const KNOWN_TOOLS: &[&str] = &["ruff", "shellcheck", "semgrep", "clippy", "eslint"];
/// What runs when the file names none.
pub const DEFAULT_TOOLS: &[&str] = KNOWN_TOOLS;
/// Semgrep's local rules looked for when the file names none (no rules are
/// fetched from the network at review time).
pub const DEFAULT_SEMGREP_RULES: &[&str] = &[".semgrep.yml", ".semgrep.yaml", ".semgrep"];
pub const DEFAULT_TIMEOUT_SECS: u32 = 120;
pub const MAX_TIMEOUT_SECS: u32 = 900;
/// 4 GiB: at 2 GiB semgrep's engine was killed in 1 of 15 runs when three ran at once
/// (RLIMIT_DATA counts its up-front heap reservations); at 4 GiB in none of 21.
pub const DEFAULT_MEMORY_MB: u32 = 4_096;
pub const MAX_MEMORY_MB: u32 = 16_384;
const MAX_COMMANDS: usize = 10;
const MAX_ARGS: usize = 50;
const MAX_ARG_CHARS: usize = 500;

/// `tools:` as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RepoTools {
    /// Tools by name (of [`KNOWN_TOOLS`]); absent: [`DEFAULT_TOOLS`]; empty: none.
    #[serde(default)]
    pub run: Option<Vec<String>>,
    /// Which findings are posted.
    #[serde(default)]
    pub post: PostMode,
    /// Each tool's time limit, in seconds.
    #[serde(default)]
    pub timeout_secs: Option<u32>,
    /// Each tool's memory limit, in MiB.
    #[serde(default)]
    pub memory_mb: Option<u32>,
    /// Semgrep's rule files or folders in the repository.
    #[serde(default)]
    pub semgrep_rules: Option<Vec<String>>,
    /// Other tools, each run as given and read from the SARIF file it writes.
    #[serde(default)]
    pub commands: Vec<ToolCommand>,
}

/// A tool of the repository's own: `run` in the checkout, then `sarif` read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolCommand {
    /// The name its findings carry.
    pub name: String,
    /// The program and its arguments (no shell).
    pub run: Vec<String>,
    /// The SARIF file it writes, from the checkout's root.
    pub sarif: String,
}

impl RepoTools {
    /// The tools to run, by name.
    #[must_use]
    pub fn tools(&self) -> Vec<&str> {
        match &self.run {
            Some(names) => names.iter().map(String::as_str).collect(),
            None => DEFAULT_TOOLS.to_vec(),
        }
    }

    #[must_use]
    pub fn timeout_secs(&self) -> u32 {
        self.timeout_secs.unwrap_or(DEFAULT_TIMEOUT_SECS)
    }

    #[must_use]
    pub fn memory_mb(&self) -> u32 {
        self.memory_mb.unwrap_or(DEFAULT_MEMORY_MB)
    }

    /// The values YAML types cannot check.
    ///
    /// # Errors
    /// A message naming the value at fault.
    pub fn check(&self) -> Result<(), String> {
        for name in self.run.iter().flatten() {
            if !KNOWN_TOOLS.contains(&name.as_str()) {
                return Err(format!(
                    "tools.run: `{name}` is not a known tool ({}); run others with tools.commands",
                    KNOWN_TOOLS.join(", ")
                ));
            }
        }
        if self
            .timeout_secs
            .is_some_and(|t| t == 0 || t > MAX_TIMEOUT_SECS)
        {
            return Err(format!(
                "tools.timeoutSecs: 1 to {MAX_TIMEOUT_SECS} seconds"
            ));
        }
        if self
            .memory_mb
            .is_some_and(|m| !(64..=MAX_MEMORY_MB).contains(&m))
        {
            return Err(format!("tools.memoryMb: 64 to {MAX_MEMORY_MB} MiB"));
        }
        if self.commands.len() > MAX_COMMANDS {
            return Err(format!("tools.commands: at most {MAX_COMMANDS}"));
        }
        for c in &self.commands {
            if c.name.trim().is_empty() || c.name.len() > super::MAX_NAME_CHARS {
                return Err("tools.commands: each needs a name of 1 to 80 characters".into());
            }
            if c.run.is_empty()
                || c.run.len() > MAX_ARGS
                || c.run.iter().any(|a| a.len() > MAX_ARG_CHARS)
            {
                return Err(format!(
                    "tools.commands `{}`: run is the program and up to {MAX_ARGS} arguments",
                    c.name
                ));
            }
            if !inside_checkout(&c.sarif) {
                return Err(format!(
                    "tools.commands `{}`: sarif must be a path inside the repository",
                    c.name
                ));
            }
        }
        for path in self.semgrep_rules.iter().flatten() {
            if !inside_checkout(path) {
                return Err(format!(
                    "tools.semgrepRules: `{path}` must be a path inside the repository (rules are not fetched)"
                ));
            }
        }
        Ok(())
    }
}

/// A relative path that stays inside the checkout.
#[must_use]
pub fn inside_checkout(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.contains('\\')
        && !path.contains("://")
        && path.split('/').all(|part| part != "..")
}
