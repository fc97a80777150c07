//! VAPID key pairs (RFC 8292): P-256, both halves base64url without padding, the
//! public one as the 65-byte uncompressed point browsers take as
//! `applicationServerKey`.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use p256::SecretKey;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use rand::TryRng;
use rand::rngs::SysRng;
use reviewd_domain::model::SecretString;
use reviewd_domain::model::notification::VapidKeys;
use reviewd_domain::ports::VapidKeyGenerator;

/// Makes VAPID key pairs from the operating system's random generator.
#[derive(Debug, Clone, Copy, Default)]
pub struct P256VapidKeys;

impl VapidKeyGenerator for P256VapidKeys {
    fn generate(&self) -> Result<VapidKeys, String> {
        // A random 32-byte string is a valid scalar but for about 2^-32 of them
        // (zero or not below the group order): draw again then.
        for _ in 0..8 {
            let mut bytes = [0u8; 32];
            SysRng
                .try_fill_bytes(&mut bytes)
                .map_err(|e| format!("the random generator failed: {e}"))?;
            if let Ok(secret) = SecretKey::from_slice(&bytes) {
                let public = secret.public_key().to_encoded_point(false);
                return Ok(VapidKeys {
                    public_key: URL_SAFE_NO_PAD.encode(public.as_bytes()),
                    private_key: SecretString::new(URL_SAFE_NO_PAD.encode(secret.to_bytes())),
                });
            }
        }
        Err("the random generator keeps yielding invalid P-256 scalars".into())
    }
}

/// Base64url as browsers and key tools write it: with or without padding, and
/// tolerant of the standard alphabet that some clients send.
pub(crate) fn decode_b64url(text: &str) -> Option<Vec<u8>> {
    let normalised: String = text
        .trim()
        .trim_end_matches('=')
        .chars()
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            c => c,
        })
        .collect();
    URL_SAFE_NO_PAD.decode(normalised).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_round_trip() {
        let keys = P256VapidKeys.generate().unwrap();
        let public = decode_b64url(&keys.public_key).unwrap();
        let private = decode_b64url(keys.private_key.expose()).unwrap();
        assert_eq!(public.len(), 65);
        assert_eq!(public[0], 0x04);
        assert_eq!(private.len(), 32);
        assert!(!keys.public_key.contains('='));
        // The public half is the private half's point.
        let secret = SecretKey::from_slice(&private).unwrap();
        assert_eq!(
            secret.public_key().to_encoded_point(false).as_bytes(),
            &public[..]
        );
        assert_ne!(
            P256VapidKeys.generate().unwrap().public_key,
            keys.public_key
        );
    }

    #[test]
    fn lenient_base64url() {
        assert_eq!(decode_b64url("-_8=").unwrap(), vec![0xfb, 0xff]);
        assert_eq!(decode_b64url("+/8").unwrap(), vec![0xfb, 0xff]);
        assert!(decode_b64url("not base64!").is_none());
    }
}
