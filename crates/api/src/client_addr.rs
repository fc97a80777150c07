//! The client's address as a login throttle must see it. A request from a trusted
//! proxy (`TRUSTED_PROXIES`) names the client in `Forwarded` (RFC 7239) or, without
//! it, `X-Forwarded-For`; anyone else's headers are ignored, since a client can
//! write them. The list is read from the right, the hop nearest to us first: every
//! trusted proxy added the address of the one before it, and the first address that
//! is not a trusted proxy's is the client's (a client's own forged entries sit to
//! its left and are never reached).

use actix_web::HttpRequest;
use actix_web::http::header::{FORWARDED, USER_AGENT, X_FORWARDED_FOR};
use ipnet::IpNet;
use reviewd_domain::services::ClientInfo;
use std::net::IpAddr;

/// Who sent `req`, for logins: its address and its user agent (cut to 256 characters).
#[must_use]
pub fn client_info(req: &HttpRequest, trusted: &[IpNet]) -> ClientInfo {
    ClientInfo {
        ip: client_ip(req, trusted).map(|ip| ip.to_string()),
        user_agent: req
            .headers()
            .get(USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(|s| s.chars().take(256).collect()),
    }
}

/// The client's address: the peer's, unless the peer is a trusted proxy.
#[must_use]
pub fn client_ip(req: &HttpRequest, trusted: &[IpNet]) -> Option<IpAddr> {
    let peer = req.peer_addr()?.ip();
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return Some(peer);
    }
    let hops = forwarded_for(req);
    let mut client = peer;
    for hop in hops.iter().rev() {
        // An entry that is no address (`unknown`, an obfuscated name): the proxy
        // that wrote it is as far as we can see.
        let Some(ip) = hop else { break };
        client = *ip;
        if !is_trusted(ip) {
            break;
        }
    }
    Some(client)
}

/// The addresses the proxies listed, leftmost (farthest) first: `Forwarded`'s
/// `for=` when that header is present, else `X-Forwarded-For`.
fn forwarded_for(req: &HttpRequest) -> Vec<Option<IpAddr>> {
    let headers = req.headers();
    let values = |name| {
        headers
            .get_all(name)
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect::<Vec<_>>()
    };
    let forwarded = values(FORWARDED);
    if !forwarded.is_empty() {
        return forwarded
            .into_iter()
            .map(|element| {
                element
                    .split(';')
                    .filter_map(|pair| pair.split_once('='))
                    .find(|(k, _)| k.trim().eq_ignore_ascii_case("for"))
                    .and_then(|(_, v)| node_address(v.trim()))
            })
            .collect();
    }
    values(X_FORWARDED_FOR)
        .into_iter()
        .map(node_address)
        .collect()
}

/// An address out of a node: `192.0.2.1`, `192.0.2.1:4711`, `"[2001:db8::1]:4711"`.
fn node_address(node: &str) -> Option<IpAddr> {
    let node = node.trim_matches('"');
    if let Ok(ip) = node.parse() {
        return Some(ip);
    }
    if let Some(rest) = node.strip_prefix('[') {
        return rest.split_once(']')?.0.parse().ok();
    }
    node.rsplit_once(':')?.0.parse().ok()
}

#[cfg(test)]
mod tests;
