//! Which address a login is counted under, from trusted and untrusted peers.

use super::*;
use actix_web::test::TestRequest;

fn trusting(list: &[&str], header: ProxyHeader) -> TrustedProxies {
    TrustedProxies {
        nets: list.iter().map(|n| n.parse().unwrap()).collect(),
        header,
    }
}

fn xff(list: &[&str]) -> TrustedProxies {
    trusting(list, ProxyHeader::XForwardedFor)
}

fn from(peer: &str, headers: &[(&str, &str)]) -> HttpRequest {
    let mut req = TestRequest::default().peer_addr(peer.parse().unwrap());
    for (name, value) in headers {
        req = req.append_header((*name, *value));
    }
    req.to_http_request()
}

fn ip(s: &str) -> Option<IpAddr> {
    Some(s.parse().unwrap())
}

#[test]
fn an_untrusted_peers_headers_are_ignored() {
    let req = from(
        "203.0.113.9:5000",
        &[
            ("x-forwarded-for", "10.1.1.1"),
            ("forwarded", "for=10.1.1.2"),
        ],
    );
    assert_eq!(client_ip(&req, &xff(&["10.0.0.0/8"])), ip("203.0.113.9"));
    assert_eq!(
        client_ip(&req, &TrustedProxies::default()),
        ip("203.0.113.9"),
        "none trusted by default"
    );
}

#[test]
fn behind_trusted_proxies_the_first_untrusted_hop_from_the_right_is_the_client() {
    let trusted = xff(&["10.0.0.0/8"]);
    // The client forged `1.2.3.4`; the ingress (10.0.0.5) added what it saw.
    let req = from(
        "10.0.0.2:5000",
        &[("x-forwarded-for", "1.2.3.4, 198.51.100.7, 10.0.0.5")],
    );
    assert_eq!(client_ip(&req, &trusted), ip("198.51.100.7"));
    let two_lines = from(
        "10.0.0.2:5000",
        &[
            ("x-forwarded-for", "1.2.3.4"),
            ("x-forwarded-for", "198.51.100.8"),
        ],
    );
    assert_eq!(client_ip(&two_lines, &trusted), ip("198.51.100.8"));
}

#[test]
fn only_the_header_the_proxies_write_is_read_the_other_is_the_clients() {
    // The proxy writes X-Forwarded-For and passes the client's Forwarded through.
    let req = from(
        "10.0.0.2:5000",
        &[
            ("x-forwarded-for", "198.51.100.1"),
            ("forwarded", "for=192.0.2.99"),
        ],
    );
    assert_eq!(client_ip(&req, &xff(&["10.0.0.2/32"])), ip("198.51.100.1"));
    // And the other way round.
    let forwarded = trusting(&["10.0.0.2/32"], ProxyHeader::Forwarded);
    let req = from(
        "10.0.0.2:5000",
        &[
            ("x-forwarded-for", "192.0.2.99"),
            (
                "forwarded",
                r#"for="[2001:db8:cafe::17]:4711";proto=https, for=10.0.0.2"#,
            ),
        ],
    );
    assert_eq!(client_ip(&req, &forwarded), ip("2001:db8:cafe::17"));
    let with_port = from(
        "10.0.0.2:5000",
        &[("forwarded", "for=192.0.2.60:8080;by=10.0.0.2")],
    );
    assert_eq!(client_ip(&with_port, &forwarded), ip("192.0.2.60"));
}

#[test]
fn an_ipv4_address_seen_as_ipv6_is_the_ipv4_one() {
    // A server bound to `::` sees IPv4 peers as `::ffff:a.b.c.d`.
    let req = from(
        "[::ffff:10.0.0.2]:5000",
        &[("x-forwarded-for", "::ffff:198.51.100.4")],
    );
    assert_eq!(client_ip(&req, &xff(&["10.0.0.0/8"])), ip("198.51.100.4"));
    let direct = from("[::ffff:203.0.113.9]:5000", &[]);
    assert_eq!(client_ip(&direct, &xff(&[])), ip("203.0.113.9"));
}

#[test]
fn an_unreadable_hop_stops_at_the_proxy_that_wrote_it() {
    let trusted = xff(&["10.0.0.0/8"]);
    let req = from("10.0.0.2:5000", &[("x-forwarded-for", "unknown, 10.0.0.3")]);
    assert_eq!(client_ip(&req, &trusted), ip("10.0.0.3"));
    let no_header = from("10.0.0.2:5000", &[]);
    assert_eq!(client_ip(&no_header, &trusted), ip("10.0.0.2"));
}
