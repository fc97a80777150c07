//! The analyzers a runner knows: which changed files each takes, how it is run
//! (the repository's own configuration read by the tool itself: `pyproject.toml`
//! or `ruff.toml`, `.shellcheckrc`, the local semgrep rules, the ESLint config),
//! and how its output becomes findings. SARIF where the tool writes it; the
//! tool's own JSON where it does not.

/// A tool's invocation for a set of changed files, and how its output is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub tool: String,
    pub argv: Vec<String>,
    pub output: OutputKind,
}

/// What a tool's standard output holds (or the file it writes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputKind {
    Sarif,
    ShellcheckJson,
    EslintJson,
    /// Cargo's JSON messages (`--message-format=json`).
    CargoJson,
    /// A SARIF file the command writes, from the checkout's root.
    SarifFile(String),
}

fn with_extension<'a>(files: &'a [String], extensions: &[&str]) -> Vec<&'a String> {
    files
        .iter()
        .filter(|f| {
            f.rsplit_once('.')
                .is_some_and(|(_, ext)| extensions.contains(&ext.to_ascii_lowercase().as_str()))
        })
        .collect()
}

/// `ruff check` on the changed Python files, SARIF on stdout.
#[must_use]
pub fn ruff(files: &[String]) -> Option<Invocation> {
    let py = with_extension(files, &["py", "pyi"]);
    if py.is_empty() {
        return None;
    }
    let mut argv: Vec<String> = [
        "ruff",
        "check",
        "--output-format=sarif",
        "--no-fix",
        "--exit-zero",
        "--no-cache",
        "--force-exclude",
        "--",
    ]
    .map(String::from)
    .to_vec();
    argv.extend(py.into_iter().cloned());
    Some(Invocation {
        tool: "ruff".into(),
        argv,
        output: OutputKind::Sarif,
    })
}

/// `shellcheck` on the changed shell scripts, its `json1` on stdout.
#[must_use]
pub fn shellcheck(files: &[String]) -> Option<Invocation> {
    let sh = with_extension(files, &["sh", "bash", "ksh", "bats"]);
    if sh.is_empty() {
        return None;
    }
    let mut argv: Vec<String> = ["shellcheck", "--format=json1", "--"]
        .map(String::from)
        .to_vec();
    argv.extend(sh.into_iter().cloned());
    Some(Invocation {
        tool: "shellcheck".into(),
        argv,
        output: OutputKind::ShellcheckJson,
    })
}

/// `semgrep scan` with the repository's local rules (`rules`: those that exist),
/// on the changed files; no registry rules, no metrics, SARIF on stdout.
#[must_use]
pub fn semgrep(files: &[String], rules: &[String]) -> Option<Invocation> {
    if files.is_empty() || rules.is_empty() {
        return None;
    }
    // One job: the runner runs one tool at a time, and each of semgrep's engine
    // processes reserves its heap up front, against the memory limit.
    let mut argv: Vec<String> = [
        "semgrep",
        "scan",
        "--sarif",
        "--metrics=off",
        "--quiet",
        "--jobs=1",
    ]
    .map(String::from)
    .to_vec();
    argv.push("--disable-version-check".into());
    for rule in rules {
        argv.push(format!("--config={rule}"));
    }
    argv.push("--".into());
    argv.extend(files.iter().cloned());
    Some(Invocation {
        tool: "semgrep".into(),
        argv,
        output: OutputKind::Sarif,
    })
}

/// The project's own ESLint (`node_modules/.bin/eslint`) on the changed script
/// files, JSON on stdout.
#[must_use]
pub fn eslint(files: &[String]) -> Option<Invocation> {
    let js = with_extension(files, &["js", "jsx", "mjs", "cjs", "ts", "tsx"]);
    if js.is_empty() {
        return None;
    }
    let mut argv: Vec<String> = ["node_modules/.bin/eslint", "--format=json", "--"]
        .map(String::from)
        .to_vec();
    argv.extend(js.into_iter().cloned());
    Some(Invocation {
        tool: "eslint".into(),
        argv,
        output: OutputKind::EslintJson,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tool_takes_only_its_files() {
        let files: Vec<String> = ["app.py", "deploy.sh", "web/x.TS", "README.md"]
            .map(String::from)
            .to_vec();
        assert_eq!(ruff(&files).unwrap().argv.last().unwrap(), "app.py");
        assert_eq!(
            shellcheck(&files).unwrap().argv.last().unwrap(),
            "deploy.sh"
        );
        assert_eq!(eslint(&files).unwrap().argv.last().unwrap(), "web/x.TS");
        assert_eq!(ruff(&["a.rs".into()]), None);
        assert_eq!(semgrep(&files, &[]), None, "no local rules, no semgrep");
        let s = semgrep(&files, &[".semgrep.yml".into()]).unwrap();
        assert!(s.argv.contains(&"--config=.semgrep.yml".to_owned()));
        assert!(s.argv.contains(&"--metrics=off".to_owned()));
    }
}
