//! The client's address as a login throttle must see it. A request from a trusted
//! proxy (`TRUSTED_PROXIES`) names the client in the one header the proxies write
//! (`TRUSTED_PROXY_HEADER`: `X-Forwarded-For`, or RFC 7239's `Forwarded`): the other
//! is the client's own, passed through untouched by most proxies, and never read.
//! Anyone else's headers are ignored, since a client can write them. The list is read from the right, the hop nearest to us first: every
//! trusted proxy added the address of the one before it, and the first address that
//! is not a trusted proxy's is the client's (a client's own forged entries sit to
//! its left and are never reached).

use actix_web::HttpRequest;
use actix_web::http::header::{FORWARDED, USER_AGENT, X_FORWARDED_FOR};
use ipnet::IpNet;
use reviewd_domain::services::ClientInfo;
use std::net::IpAddr;

/// The proxies to believe and the header they write.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    pub nets: Vec<IpNet>,
    pub header: ProxyHeader,
}

/// The header trusted proxies name the client in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ProxyHeader {
    #[default]
    XForwardedFor,
    Forwarded,
}

/// Who sent `req`, for logins: its address and its user agent (cut to 256 characters).
#[must_use]
pub fn client_info(req: &HttpRequest, trusted: &TrustedProxies) -> ClientInfo {
    ClientInfo {
        ip: client_ip(req, trusted).map(|ip| ip.to_string()),
        user_agent: req
            .headers()
            .get(USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(|s| s.chars().take(256).collect()),
    }
}

/// The client's address: the peer's, unless the peer is a trusted proxy. An
/// IPv4 address seen as IPv6 (`::ffff:10.0.0.1`, on a server bound to `::`) is
/// taken as the IPv4 one, for the ranges and for the counts.
#[must_use]
pub fn client_ip(req: &HttpRequest, trusted: &TrustedProxies) -> Option<IpAddr> {
    let peer = req.peer_addr()?.ip().to_canonical();
    let is_trusted = |ip: &IpAddr| trusted.nets.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return Some(peer);
    }
    let hops = forwarded_for(req, trusted.header);
    let mut client = peer;
    for hop in hops.iter().rev() {
        // An entry that is no address (`unknown`, an obfuscated name): the proxy
        // that wrote it is as far as we can see.
        let Some(ip) = hop else { break };
        client = ip.to_canonical();
        if !is_trusted(&client) {
            break;
        }
    }
    Some(client)
}

/// The addresses the proxies listed in `header`, leftmost (farthest) first.
fn forwarded_for(req: &HttpRequest, header: ProxyHeader) -> Vec<Option<IpAddr>> {
    let headers = req.headers();
    let values = |name| {
        headers
            .get_all(name)
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect::<Vec<_>>()
    };
    if header == ProxyHeader::Forwarded {
        return values(FORWARDED)
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
