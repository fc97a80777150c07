use rand::TryRng;
use rand::rngs::SysRng;

/// `N` bytes from the operating system's generator.
///
/// # Panics
/// When the operating system cannot supply random bytes: nothing secure can be
/// done without them, so the process stops rather than issue weak tokens.
#[must_use]
#[expect(
    clippy::expect_used,
    reason = "no secure fallback exists: see # Panics"
)]
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    SysRng
        .try_fill_bytes(&mut bytes)
        .expect("the operating system's random generator failed");
    bytes
}
