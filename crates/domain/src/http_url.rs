//! The http(s) URLs the service will call. They are parsed the way the HTTP client
//! parses them (WHATWG, the `url` crate), so a check sees the host a request would
//! really reach: `https://0x7f000001/` is 127.0.0.1, and `https://[0` is no URL at all.

use std::net::IpAddr;
use url::{Host, Url};

/// An absolute URL with one of `schemes`, a host, no credentials and no whitespace.
///
/// # Errors
/// Why it is not one, as a message for the caller.
pub fn parse(value: &str, schemes: &[&str]) -> Result<Url, &'static str> {
    if value.chars().any(char::is_whitespace) {
        return Err("must be a URL without spaces");
    }
    let url = Url::parse(value).map_err(|_| "must be an absolute http(s) URL")?;
    if !schemes.contains(&url.scheme()) {
        return Err("must be an absolute http(s) URL");
    }
    if url.host().is_none() {
        return Err("must name a host");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("must not carry credentials");
    }
    Ok(url)
}

/// True for this host, its private networks and the names that mean them: where a
/// URL given by any signed-in user must not send the server.
#[must_use]
pub fn is_private(url: &Url) -> bool {
    match url.host() {
        None => true,
        Some(Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost"
                || [".localhost", ".local", ".internal"]
                    .iter()
                    .any(|suffix| name.ends_with(suffix))
                || name.parse::<IpAddr>().is_ok_and(private_ip)
        }
        Some(Host::Ipv4(ip)) => private_ip(IpAddr::V4(ip)),
        Some(Host::Ipv6(ip)) => private_ip(IpAddr::V6(ip)),
    }
}

fn private_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => {
            ip.is_private()
                || ip.is_loopback()
                || ip.is_link_local()
                || ip.is_unspecified()
                || ip.is_broadcast()
                || ip.octets()[0] == 0
                || (ip.octets()[0] == 100 && (64..128).contains(&ip.octets()[1]))
        }
        IpAddr::V6(ip) => {
            let first = ip.segments()[0];
            ip.is_loopback()
                || ip.is_unspecified()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || ip
                    .to_ipv4_mapped()
                    .is_some_and(|v4| private_ip(IpAddr::V4(v4)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HTTP: &[&str] = &["http", "https"];

    #[test]
    fn accepts_absolute_http_urls() {
        for ok in [
            "https://gitlab.example.com",
            "http://127.0.0.1:8080/gitlab",
            "https://[::1]:8443/x",
        ] {
            assert!(parse(ok, HTTP).is_ok(), "{ok}");
        }
    }

    #[test]
    fn refuses_what_is_not_one() {
        for bad in [
            "https://[0",
            "https://",
            "gitlab.example.com",
            "ftp://example.com",
            " https://example.com",
            "https://exa mple.com",
            "https://user:pw@example.com",
            "https://example.com:99999",
        ] {
            assert!(parse(bad, HTTP).is_err(), "{bad}");
        }
        assert!(parse("http://example.com", &["https"]).is_err());
    }

    #[test]
    fn private_hosts_are_seen_through_their_spellings() {
        for private in [
            "https://0x7f000001/",
            "https://127.1/",
            "https://localhost./x",
            "https://db.internal/x",
            "https://[::ffff:10.0.0.1]/x",
            "https://[fd00::1]/x",
            "https://169.254.169.254/latest",
        ] {
            let url = parse(private, HTTP).unwrap();
            assert!(is_private(&url), "{private}");
        }
        let public = parse("https://fcm.googleapis.com/fcm/send/abc", HTTP).unwrap();
        assert!(!is_private(&public));
    }
}
