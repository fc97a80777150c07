//! Where a result is: its URI as a path from the repository's root.

/// `uri` as a path from the repository's root; `None` when it names no file in
/// it (another scheme, a path leaving it).
pub(crate) fn relative(uri: &str, root: Option<&str>) -> Option<String> {
    let path = uri.strip_prefix("file://").unwrap_or(uri);
    if path.contains("://") {
        return None;
    }
    let path = decode(path);
    let path = match root.map(|r| format!("{}/", r.trim_end_matches('/'))) {
        Some(prefix) if path.starts_with(&prefix) => path[prefix.len()..].to_owned(),
        _ => path,
    };
    let path = path.trim_start_matches("./").to_owned();
    let ok = !path.is_empty()
        && !path.chars().any(char::is_control)
        && path.split('/').all(|p| p != "..");
    ok.then_some(path)
}

/// A URI path's `%XX` escapes decoded (an invalid escape is kept as written).
fn decode(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
