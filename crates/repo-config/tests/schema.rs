//! The published JSON Schema (`docs/reviewd-yml.schema.json`) and the parser agree:
//! the docs' example is valid for both, and files one of them refuses the other
//! refuses too. The schema is checked with a small validator of the keywords it
//! uses (no JSON Schema crate for one file); `pattern` is left to the parser.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_domain::review::repo_config::read;
use reviewd_repo_config::YamlRepoConfig;
use serde_json::Value;
use std::path::PathBuf;

fn docs(file: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs")
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn schema() -> Value {
    serde_json::from_str(&docs("reviewd-yml.schema.json")).unwrap()
}

/// Problems of `value` against `schema`, for the keywords the file's schema uses.
fn violations(schema: &Value, value: &Value, at: &str) -> Vec<String> {
    let mut found = Vec::new();
    if let Some(allowed) = schema["enum"].as_array()
        && !allowed.contains(value)
    {
        found.push(format!("{at}: not one of {allowed:?}"));
    }
    let kind_ok = match schema["type"].as_str() {
        Some("object") => value.is_object(),
        Some("array") => value.is_array(),
        Some("string") => value.is_string(),
        Some("boolean") => value.is_boolean(),
        Some("integer") => value.is_u64() || value.is_i64(),
        Some(other) => panic!("type {other} not handled"),
        None => true,
    };
    if !kind_ok {
        found.push(format!("{at}: not a {}", schema["type"]));
        return found;
    }
    if let Some(object) = value.as_object() {
        let properties = schema["properties"].as_object();
        for (key, item) in object {
            match properties.and_then(|p| p.get(key)) {
                Some(sub) => found.extend(violations(sub, item, &format!("{at}.{key}"))),
                None if schema["additionalProperties"] == Value::Bool(false) => {
                    found.push(format!("{at}: unknown key {key}"));
                }
                None => {}
            }
        }
        for key in schema["required"].as_array().into_iter().flatten() {
            if !object.contains_key(key.as_str().unwrap()) {
                found.push(format!("{at}: missing {key}"));
            }
        }
    }
    if let Some(items) = value.as_array() {
        if schema["maxItems"]
            .as_u64()
            .is_some_and(|max| items.len() as u64 > max)
        {
            found.push(format!("{at}: too many items"));
        }
        for (i, item) in items.iter().enumerate() {
            found.extend(violations(&schema["items"], item, &format!("{at}[{i}]")));
        }
    }
    if let Some(n) = value.as_i64() {
        if schema["minimum"].as_i64().is_some_and(|min| n < min) {
            found.push(format!("{at}: below the minimum"));
        }
        if schema["maximum"].as_i64().is_some_and(|max| n > max) {
            found.push(format!("{at}: above the maximum"));
        }
    }
    if let Some(text) = value.as_str() {
        let chars = text.chars().count() as u64;
        if schema["minLength"].as_u64().is_some_and(|min| chars < min) {
            found.push(format!("{at}: too short"));
        }
        if schema["maxLength"].as_u64().is_some_and(|max| chars > max) {
            found.push(format!("{at}: too long"));
        }
    }
    found
}

fn schema_accepts(yaml: &str) -> bool {
    let value: Value = serde_saphyr::from_str(yaml).unwrap();
    violations(&schema(), &value, "$").is_empty()
}

fn parser_accepts(yaml: &str) -> bool {
    read(yaml.as_bytes(), &YamlRepoConfig).is_ok()
}

/// The fenced `yaml` block of `docs/reviewd-yml.md`.
fn docs_example() -> String {
    let page = docs("reviewd-yml.md");
    let start = page.find("```yaml\n").expect("an example") + "```yaml\n".len();
    page[start..start + page[start..].find("```").unwrap()].to_owned()
}

#[test]
fn the_docs_example_is_valid_for_the_schema_and_the_parser() {
    let example = docs_example();
    assert!(example.contains("minSeverity"), "{example}");
    let value: Value = serde_saphyr::from_str(&example).unwrap();
    assert_eq!(violations(&schema(), &value, "$"), Vec::<String>::new());
    assert!(
        parser_accepts(&example),
        "{:?}",
        read(example.as_bytes(), &YamlRepoConfig)
    );
}

#[test]
fn the_schema_names_exactly_the_keys_the_parser_knows() {
    let schema = schema();
    let mut keys: Vec<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "context",
            "gate",
            "ignore",
            "instructions",
            "language",
            "minSeverity",
            "rules",
            "skipDrafts",
            "template",
            "tools"
        ]
    );
    for key in keys {
        // Each key alone, with a value of the right type, is fine for both.
        let yaml = match key {
            "ignore" => "ignore: [\"docs/**\"]\n".to_owned(),
            "rules" => "rules: [{name: a, instructions: b}]\n".to_owned(),
            "minSeverity" => "minSeverity: info\n".to_owned(),
            "skipDrafts" => "skipDrafts: false\n".to_owned(),
            "context" => {
                "context: {budgetTokens: 4000, always: [docs/arch.md], never: [\"fixtures/**\"]}\n"
                    .to_owned()
            }
            "gate" => "gate: {enabled: true, failOn: warning, minRating: C}\n".to_owned(),
            "tools" => {
                "tools: {run: [ruff], post: all, commands: [{name: b, run: [b], sarif: o.sarif}]}\n"
                    .to_owned()
            }
            other => format!("{other}: English\n"),
        };
        assert!(schema_accepts(&yaml) && parser_accepts(&yaml), "{yaml}");
    }
}

#[test]
fn schema_and_parser_refuse_the_same_mistakes() {
    let cases = [
        ("ignored: [\"docs/**\"]\n", false),
        ("minSeverity: critical\n", false),
        ("minSeverity: error\n", true),
        ("skipDrafts: \"yes\"\n", false),
        ("ignore: docs/**\n", false),
        ("rules: [{name: a}]\n", false),
        ("rules: [{name: a, instructions: b, path: [x]}]\n", false),
        (
            "rules: [{name: a, instructions: b, paths: [\"src/**\"]}]\n",
            true,
        ),
        ("rules: [{name: \"\", instructions: b}]\n", false),
        ("template: \"\"\n", false),
        ("language: Brazilian Portuguese\n", true),
        ("{}\n", true),
        ("instructions: Prefer early returns.\n", true),
        ("instructions: \"\"\n", false),
        ("context: {budgetTokens: 8000}\n", true),
        ("context: {budgetTokens: 200000}\n", false),
        ("context: {budgetTokens: -1}\n", false),
        ("context: {budget: 8000}\n", false),
        ("context: {always: docs/arch.md}\n", false),
        ("context: {never: [\"fixtures/**\"]}\n", true),
        ("gate: {failOn: never}\n", true),
        ("gate: {failOn: fatal}\n", false),
        ("gate: {minRating: E}\n", false),
        ("gate: {minGrade: B}\n", false),
        ("gate: {enabled: \"no\"}\n", false),
        ("tools: {run: [ruff, semgrep], post: confirmed}\n", true),
        ("tools: {run: [pylint]}\n", false),
        ("tools: {post: some}\n", false),
        ("tools: {timeoutSecs: 0}\n", false),
        ("tools: {memoryMb: 100000}\n", false),
        ("tools: {commands: [{name: x, run: [x]}]}\n", false),
        (
            "tools: {commands: [{name: x, run: [x], sarif: o.sarif, shell: true}]}\n",
            false,
        ),
        ("tools: {semgrepRules: [ci/rules.yml]}\n", true),
        ("tools: {linters: [ruff]}\n", false),
    ];
    for (yaml, valid) in cases {
        assert_eq!(schema_accepts(yaml), valid, "schema on {yaml}");
        assert_eq!(parser_accepts(yaml), valid, "parser on {yaml}");
    }
}
