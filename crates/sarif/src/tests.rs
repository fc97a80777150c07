use super::*;
use serde_json::json;

fn log(results: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": { "driver": {
                "name": "ruff",
                "rules": [
                    { "id": "F401", "shortDescription": { "text": "unused-import" } },
                    { "id": "S307", "defaultConfiguration": { "level": "error" } }
                ]
            } },
            "results": results
        }]
    }))
    .unwrap()
}

fn result(uri: &str, line: i64) -> serde_json::Value {
    json!({
        "ruleId": "F401",
        "level": "warning",
        "message": { "text": "`os` imported but unused" },
        "locations": [{ "physicalLocation": {
            "artifactLocation": { "uri": uri },
            "region": { "startLine": line, "startColumn": 8 }
        } }]
    })
}

#[test]
fn results_become_findings_with_paths_from_the_repository_root() {
    let mut by_index = result("src/b.py", 2);
    by_index["ruleId"] = serde_json::Value::Null;
    by_index["ruleIndex"] = json!(1);
    by_index.as_object_mut().unwrap().remove("level");
    by_index["message"] = json!({ "text": "use of eval" });
    let bytes = log(json!([
        result("file:///work/t/app%20x.py", 3),
        result("./lib/util.py", 9),
        by_index,
    ]));
    let read = read(&bytes, Some("/work/t")).unwrap();
    assert_eq!(read.tools, vec!["ruff"]);
    let got: Vec<(&str, &str, u32, Severity)> = read
        .findings
        .iter()
        .map(|f| (f.rule.as_str(), f.path.as_str(), f.line, f.severity))
        .collect();
    assert_eq!(
        got,
        vec![
            ("F401", "app x.py", 3, Severity::Warning),
            ("F401", "lib/util.py", 9, Severity::Warning),
            ("S307", "src/b.py", 2, Severity::Error),
        ]
    );
    assert_eq!(read.findings[0].message, "`os` imported but unused");
}

#[test]
fn results_that_cannot_be_placed_are_counted_not_kept() {
    let bytes = log(json!([
        result("https://example.com/a.py", 3),
        result("../../etc/passwd", 3),
        result("a.py", 0),
        result("a.py", -4),
        { "ruleId": "X", "message": { "text": "no location" } },
        result("a.py", 1),
    ]));
    let read = read(&bytes, None).unwrap();
    assert_eq!((read.findings.len(), read.left_out), (1, 5));
}

#[test]
fn a_tools_own_errors_are_reported_beside_its_results() {
    let mut value: serde_json::Value = serde_json::from_slice(&log(json!([]))).unwrap();
    value["runs"][0]["invocations"] = json!([{
        "executionSuccessful": true,
        "toolExecutionNotifications": [
            { "level": "error", "message": { "text": "\n  Error while running rules:\n   You are seeing this because the engine was killed.\n\n   The most common reason" } },
            { "level": "warning", "message": { "text": "slow" } }
        ]
    }]);
    let read = read(&serde_json::to_vec(&value).unwrap(), None).unwrap();
    assert_eq!(
        read.errors,
        vec![
            "Error while running rules: You are seeing this because the engine was killed. \
             The most common reason"
        ],
        "semgrep's first line alone says nothing of what went wrong"
    );
}

#[test]
fn control_characters_never_reach_what_is_kept() {
    let mut value: serde_json::Value =
        serde_json::from_slice(&log(json!([result("a\u{0}b.py", 1), result("a.py", 2),]))).unwrap();
    value["runs"][0]["tool"]["driver"]["name"] = json!("ru\u{7}ff`");
    value["runs"][0]["results"][1]["message"]["text"] = json!("bad\u{7}text");
    let read = read(&serde_json::to_vec(&value).unwrap(), None).unwrap();
    assert_eq!(read.tools, vec!["ru ff'"]);
    assert_eq!(
        (read.findings.len(), read.left_out),
        (1, 1),
        "the path with a NUL is left out"
    );
    assert_eq!(read.findings[0].message, "bad text");
    // A NUL in a text reviewd reads is refused, as the API document says.
    value["runs"][0]["results"][1]["message"]["text"] = json!("bad\u{0}text");
    let refused = super::read(&serde_json::to_vec(&value).unwrap(), None);
    assert!(
        matches!(refused, Err(SarifError::Invalid(_))),
        "{refused:?}"
    );
}

#[test]
fn hostile_logs_are_errors_not_panics() {
    let big = vec![b' '; MAX_SARIF_BYTES + 1];
    assert_eq!(
        read(&big, None),
        Err(SarifError::TooLarge(MAX_SARIF_BYTES + 1))
    );
    assert!(matches!(
        read(b"{\"runs\": [", None),
        Err(SarifError::Invalid(_))
    ));
    assert!(matches!(
        read(b"[1, 2, 3]", None),
        Err(SarifError::Invalid(_))
    ));
    assert!(
        matches!(
            read(br#"{"version":"2.1.0","runs":[{"results":[]}]}"#, None),
            Err(SarifError::Invalid(_))
        ),
        "a run without its tool"
    );
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(matches!(
        read(deep.as_bytes(), None),
        Err(SarifError::Invalid(_))
    ));
    let old = br#"{"version":"2.0.0","runs":[]}"#;
    assert!(read(old, None).is_err(), "only 2.1.0");
}

#[test]
fn a_flood_of_results_is_capped_and_long_text_cut() {
    let mut one = result("a.py", 1);
    one["message"]["text"] = json!("x".repeat(1_000));
    let many: Vec<serde_json::Value> = (0..MAX_RESULTS + 7).map(|_| one.clone()).collect();
    let read = read(&log(json!(many)), None).unwrap();
    assert_eq!((read.findings.len(), read.left_out), (MAX_RESULTS, 7));
    assert!(read.findings[0].message.chars().count() <= 400);
}
