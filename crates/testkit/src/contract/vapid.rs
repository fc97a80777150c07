//! VAPID key generation: pairs in the encoding browsers and push services take.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use reviewd_domain::ports::VapidKeyGenerator;

pub fn run(generator: &dyn VapidKeyGenerator) {
    let keys = generator.generate().unwrap();
    let public = URL_SAFE_NO_PAD
        .decode(&keys.public_key)
        .expect("the public key is base64url without padding");
    assert_eq!(public.len(), 65, "an uncompressed P-256 point");
    assert_eq!(public[0], 0x04, "the uncompressed point's tag");
    let private = URL_SAFE_NO_PAD
        .decode(keys.private_key.expose())
        .expect("the private key is base64url without padding");
    assert_eq!(private.len(), 32, "a P-256 scalar");
    assert!(
        !format!("{keys:?}").contains(keys.private_key.expose()),
        "the private half never shows in debug output"
    );

    let other = generator.generate().unwrap();
    assert_ne!(other.public_key, keys.public_key, "a new pair at each call");
    assert_ne!(other.private_key.expose(), keys.private_key.expose());
}
