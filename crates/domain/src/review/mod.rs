//! The review engine's rules, as pure functions: which lines of a diff a comment may
//! land on, which files are ignored, which rules apply, how a model's answer is read,
//! how comments are recognised across rounds, which suggested code fits the diff,
//! how a review is rated, what a repository's `.reviewd.yml` changes, and what the
//! readers' reactions and replies say about a comment.

pub mod answer;
pub mod chunking;
pub mod commands;
pub mod describe;
pub mod diff_lines;
pub mod feedback;
pub mod file_review;
pub mod fingerprint;
pub mod gate;
pub mod globs;
pub mod likeness;
pub mod markers;
pub mod model_chain;
pub mod mr_summary;
pub mod output;
pub mod prompt;
pub mod rating;
pub mod repo_config;
pub mod rules;
pub mod standing;
pub mod suggestion;
pub mod suppression;
pub mod tools;
