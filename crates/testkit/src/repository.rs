//! A fixture's repository as the platforms serve it: each file's git blob id,
//! the directories a tree listing shows beside the files, and the commit as a
//! `tar.gz` archive under one top directory.

use flate2::Compression;
use flate2::write::GzEncoder;
/// Git's id of a blob holding `bytes`, as the adapters compute it for archives.
pub use reviewd_http::archive::git_blob_id;
use std::collections::BTreeSet;

/// The directories that hold `files` (`a/b/c.rs` gives `a` and `a/b`), as a
/// recursive tree lists them.
#[must_use]
pub fn directories(files: &[(String, String)]) -> BTreeSet<String> {
    let mut dirs = BTreeSet::new();
    for (path, _) in files {
        let mut at = path.as_str();
        while let Some((dir, _)) = at.rsplit_once('/') {
            dirs.insert(dir.to_owned());
            at = dir;
        }
    }
    dirs
}

/// `files` as a `tar.gz` under `top/`, as GitLab's and GitHub's archives are.
#[must_use]
pub fn tar_gz(top: &str, files: &[(String, String)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
    // A pax global header first, as `git archive` writes one with the commit id.
    let mut global = tar::Header::new_ustar();
    global.set_entry_type(tar::EntryType::XGlobalHeader);
    let comment = b"52 comment=0000000000000000000000000000000000000000\n";
    global.set_size(comment.len() as u64);
    global.set_cksum();
    let _ = builder.append_data(&mut global, "pax_global_header", &comment[..]);
    for dir in directories(files) {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Directory);
        header.set_size(0);
        header.set_mode(0o755);
        header.set_cksum();
        let _ = builder.append_data(&mut header, format!("{top}/{dir}/"), std::io::empty());
    }
    for (path, content) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(content.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        let _ = builder.append_data(&mut header, format!("{top}/{path}"), content.as_bytes());
    }
    builder
        .into_inner()
        .and_then(GzEncoder::finish)
        .unwrap_or_default()
}
