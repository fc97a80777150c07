//! The Kubernetes examples (`deploy/kubernetes/base/`) against the variables the
//! server reads: an operator who copies them is told about every variable, and the
//! values as shipped start a server (placeholders included).
#![expect(
    clippy::unwrap_used,
    reason = "tests: a panic fails the test, with its message"
)]

use reviewd_server::config::Config;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

#[derive(serde::Deserialize)]
struct Manifest {
    kind: String,
    #[serde(default)]
    data: BTreeMap<String, String>,
    #[serde(default, rename = "stringData")]
    string_data: BTreeMap<String, String>,
}

/// Every key and value of the named ConfigMap and Secret examples.
fn examples(files: &[&str]) -> BTreeMap<String, String> {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../deploy/kubernetes/base");
    let mut all = BTreeMap::new();
    for file in files {
        let text = std::fs::read_to_string(base.join(file)).unwrap();
        let manifest: Manifest = serde_saphyr::from_str(&text).unwrap();
        assert!(
            ["ConfigMap", "Secret"].contains(&manifest.kind.as_str()),
            "{file}: {}",
            manifest.kind
        );
        for (key, value) in manifest.data.into_iter().chain(manifest.string_data) {
            assert!(all.insert(key.clone(), value).is_none(), "{key} twice");
        }
    }
    all
}

#[test]
fn the_examples_list_every_variable_the_server_reads_and_start_it() {
    let given = examples(&["reviewd-config.yaml", "reviewd-secrets.yaml"]);
    let asked = RefCell::new(BTreeSet::new());
    let config = Config::from_lookup(|name| {
        asked.borrow_mut().insert(name.to_owned());
        given.get(name).cloned()
    });
    if let Err(e) = config {
        panic!("the examples as shipped do not start the server: {e}");
    }
    let asked = asked.into_inner();
    // Other providers' variables are read only to say they are unused.
    let inactive = |name: &str| {
        name.starts_with("PROVIDER") && !name.starts_with("PROVIDERA_") && name.len() > 9
    };
    let missing: Vec<&String> = asked
        .iter()
        .filter(|name| !inactive(name) && !given.contains_key(*name))
        .collect();
    assert!(
        missing.is_empty(),
        "read by the server, absent from the examples: {missing:?}"
    );
    let unread: Vec<&String> = given.keys().filter(|k| !asked.contains(*k)).collect();
    assert!(
        unread.is_empty(),
        "in the examples, never read by the server: {unread:?}"
    );

    // And every variable of the operations guide's tables (`| `NAME`` or
    // `| `A`, `B`` rows), but the one it says is not read.
    let guide = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/operations.md"),
    )
    .unwrap();
    let documented: BTreeSet<&str> = guide
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once(" |").map(|(names, _)| names))
        .flat_map(|names| names.split(", "))
        .map(|name| name.trim_matches('`'))
        .filter(|name| {
            name.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_' || c == 's')
        })
        .filter(|name| !name.is_empty() && *name != "API_URL" && !name.contains('.'))
        .collect();
    assert!(documented.len() > 50, "{documented:?}");
    let undocumented: Vec<&&str> = documented
        .iter()
        .filter(|name| !given.contains_key(**name) && !name.starts_with("PROVIDERB"))
        .collect();
    assert!(
        undocumented.is_empty(),
        "in docs/operations.md, absent from the examples: {undocumented:?}"
    );
}
