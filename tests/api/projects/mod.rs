//! Projects end to end: syncing from both platforms, the paged list, per-project
//! settings, live platform views, webhooks and deleting. This module holds the
//! tokens and the id helper the cases share; each child is one topic.

mod delete;
mod learnings;
mod list;
mod platform;
mod settings;
mod sync;
mod webhooks;

use serde_json::Value;

const GL_TOKEN: &str = "glpat-projects";
const GH_TOKEN: &str = "ghp_projects";

fn ids(body: &Value) -> Vec<String> {
    body["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect()
}
