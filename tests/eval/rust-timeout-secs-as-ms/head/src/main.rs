mod client;
mod config;

use client::ClientBuilder;
use config::Config;

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt::init();
    let config = Config::from_env()?;
    let pricing = ClientBuilder::new(&config.pricing_url)
        .request_timeout(config.upstream_timeout_secs)
        .retries(config.upstream_retries)
        .build();
    tracing::info!(
        addr = %config.listen_addr,
        timeout = ?pricing.timeout(),
        "starting price gateway"
    );
    serve(&config.listen_addr, pricing)
}

fn serve(addr: &str, pricing: client::PricingClient) -> anyhow::Result<()> {
    let listener = std::net::TcpListener::bind(addr)?;
    for stream in listener.incoming() {
        let _stream = stream?;
        tracing::debug!(upstream = %pricing.url("/quote"), "connection accepted");
    }
    Ok(())
}
