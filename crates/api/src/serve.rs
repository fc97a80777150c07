//! The HTTP server around the routes: the middleware in its order, the API document and
//! Swagger UI, the dashboard's pages beside `/api`, and the fallback for unknown paths.

use crate::csrf::TrustedOrigins;
use crate::extract::{json_config, path_config, query_config};
use crate::state::AppState;
use crate::{request_id, routes};
use actix_web::dev::Server;
use actix_web::http::header::LOCATION;
use actix_web::middleware::{Compress, from_fn};
use actix_web::{App, HttpResponse, HttpServer, web};
use std::net::TcpListener;
use std::time::Duration;
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

/// How the server is run: its listener, its worker count and the pages mounted beside
/// the API (the dashboard of `reviewd-web`, which depends on this crate).
pub struct Serving {
    pub listener: TcpListener,
    /// `None`: one HTTP worker per core.
    pub http_workers: Option<usize>,
    /// How long a stop waits for in-flight requests.
    pub shutdown_timeout: Duration,
    pub pages: fn(&mut web::ServiceConfig),
}

/// The running server (it serves once awaited or spawned).
///
/// # Errors
/// The listener cannot be used.
pub fn http_server(state: web::Data<AppState>, serving: Serving) -> std::io::Result<Server> {
    let settings = state.settings.clone();
    let trusted = web::Data::new(TrustedOrigins::from_settings(&settings));
    // Built once and kept serialized: every worker serves the same bytes (a copy
    // of the document in each worker, as Swagger UI's own route kept, held about
    // 4.5 MB of every worker's heap).
    let api_document = crate::openapi::document();
    let route_table = web::Data::new(crate::fallback::RouteTable::from_document(&api_document));
    let api_json = web::Data::new(crate::openapi::Serialized::of(&api_document));
    drop(api_document);
    let pages = serving.pages;
    let mut server =
        HttpServer::new(move || {
            App::new()
                .app_data(state.clone())
                .app_data(trusted.clone())
                .app_data(route_table.clone())
                .app_data(json_config())
                .app_data(query_config())
                .app_data(path_config())
                .wrap(from_fn(crate::hygiene::check_input))
                .wrap(from_fn(crate::csrf::check_origin))
                .wrap(Compress::default())
                .wrap(crate::cors::cors(&settings))
                .wrap(from_fn(crate::metrics::track))
                .wrap(from_fn(request_id::request_id))
                // The address people type: the UI itself lives under the slash.
                .service(web::resource("/api/docs").get(|| async {
                    HttpResponse::PermanentRedirect()
                        .insert_header((LOCATION, "/api/docs/"))
                        .finish()
                }))
                .service(SwaggerUi::new("/api/docs/{_:.*}").config(
                    utoipa_swagger_ui::Config::from(crate::openapi::DOCUMENT_PATH),
                ))
                .service(
                    web::resource(crate::openapi::DOCUMENT_PATH)
                        .app_data(api_json.clone())
                        .get(crate::openapi::serve),
                )
                .into_utoipa_app()
                .configure(routes::configure)
                .into_app()
                .configure(pages)
                .default_service(web::to(crate::fallback::not_found))
        })
        .shutdown_timeout(serving.shutdown_timeout.as_secs());
    if let Some(workers) = serving.http_workers {
        server = server.workers(workers);
    }
    Ok(server.listen(serving.listener)?.run())
}
