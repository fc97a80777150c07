//! Recognising a comment posted in an earlier round: same file, same words.

/// A stable fingerprint of a comment: FNV-1a over the file path and the message with
/// whitespace collapsed and case folded. Lines are left out on purpose: code moves
/// between rounds, and the same remark on a shifted line is the same remark.
#[must_use]
pub fn fingerprint(file_path: &str, message: &str) -> String {
    let normalized: String = message
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in file_path.bytes().chain([0]).chain(normalized.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PINNED: &str = "db482ab048d3c1da";

    #[test]
    fn same_remark_same_fingerprint_whatever_the_spacing_or_case() {
        assert_eq!(
            fingerprint("a.rs", "Unwrap  may panic"),
            fingerprint("a.rs", "unwrap may\npanic ")
        );
        assert_ne!(
            fingerprint("a.rs", "unwrap may panic"),
            fingerprint("b.rs", "unwrap may panic")
        );
        assert_ne!(
            fingerprint("a.rs", "x"),
            fingerprint("a.r", "sx"),
            "the separator keeps path and text apart"
        );
        assert_eq!(fingerprint("a.rs", "x").len(), 16);
        assert_eq!(
            fingerprint("src/lib.rs", "Consider a test"),
            PINNED,
            "stored fingerprints must stay valid across releases"
        );
    }
}
