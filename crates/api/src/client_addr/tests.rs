//! Which address a login is counted under, from trusted and untrusted peers.

use super::*;
use actix_web::test::TestRequest;

fn nets(list: &[&str]) -> Vec<IpNet> {
    list.iter().map(|n| n.parse().unwrap()).collect()
}

fn from(peer: &str, headers: &[(&str, &str)]) -> HttpRequest {
    let mut req = TestRequest::default().peer_addr(format!("{peer}:5000").parse().unwrap());
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
        "203.0.113.9",
        &[
            ("x-forwarded-for", "10.1.1.1"),
            ("forwarded", "for=10.1.1.2"),
        ],
    );
    assert_eq!(client_ip(&req, &nets(&["10.0.0.0/8"])), ip("203.0.113.9"));
    assert_eq!(
        client_ip(&req, &[]),
        ip("203.0.113.9"),
        "none trusted by default"
    );
}

#[test]
fn behind_trusted_proxies_the_first_untrusted_hop_from_the_right_is_the_client() {
    let trusted = nets(&["10.0.0.0/8"]);
    // The client forged `1.2.3.4`; the ingress (10.0.0.5) added what it saw.
    let req = from(
        "10.0.0.2",
        &[("x-forwarded-for", "1.2.3.4, 198.51.100.7, 10.0.0.5")],
    );
    assert_eq!(client_ip(&req, &trusted), ip("198.51.100.7"));
    let two_lines = from(
        "10.0.0.2",
        &[
            ("x-forwarded-for", "1.2.3.4"),
            ("x-forwarded-for", "198.51.100.8"),
        ],
    );
    assert_eq!(client_ip(&two_lines, &trusted), ip("198.51.100.8"));
}

#[test]
fn forwarded_wins_over_x_forwarded_for_and_reads_ports_and_ipv6() {
    let trusted = nets(&["10.0.0.2/32"]);
    let req = from(
        "10.0.0.2",
        &[
            ("x-forwarded-for", "198.51.100.1"),
            (
                "forwarded",
                r#"for="[2001:db8:cafe::17]:4711";proto=https, for=10.0.0.2"#,
            ),
        ],
    );
    assert_eq!(client_ip(&req, &trusted), ip("2001:db8:cafe::17"));
    let with_port = from(
        "10.0.0.2",
        &[("forwarded", "for=192.0.2.60:8080;by=10.0.0.2")],
    );
    assert_eq!(client_ip(&with_port, &trusted), ip("192.0.2.60"));
}

#[test]
fn an_unreadable_hop_stops_at_the_proxy_that_wrote_it() {
    let trusted = nets(&["10.0.0.0/8"]);
    let req = from("10.0.0.2", &[("forwarded", "for=unknown, for=10.0.0.3")]);
    assert_eq!(client_ip(&req, &trusted), ip("10.0.0.3"));
    let no_header = from("10.0.0.2", &[]);
    assert_eq!(client_ip(&no_header, &trusted), ip("10.0.0.2"));
}
