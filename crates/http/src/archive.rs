//! A repository archive as the platforms serve one (`tar.gz`, every path under
//! one top directory), unpacked within limits into files with their git blob
//! ids, so what the context reads from an archive shares the cache of what it
//! reads by blob id.

use flate2::read::GzDecoder;
use reviewd_domain::ports::{Archive, ArchiveLimits, ArchivedFile, PlatformError};
use sha1::{Digest, Sha1};
use std::io::Read;

/// Git's id of a blob holding `bytes`: SHA-1 of `blob <len>\0` and the bytes.
#[must_use]
pub fn git_blob_id(bytes: &[u8]) -> String {
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(bytes);
    hasher
        .finalize()
        .iter()
        .fold(String::with_capacity(40), |mut out, b| {
            out.push_str(&format!("{b:02x}"));
            out
        })
}

/// The regular files of a `tar.gz` archive, their paths without the archive's
/// top directory; files larger than `max_file_bytes` skipped, reading stopped
/// once `max_total_bytes` are kept (the archive then says it is truncated).
/// Runs on the blocking pool: decompressing is CPU work.
///
/// # Errors
/// `InvalidResponse` for bytes that are not a readable `tar.gz`.
pub async fn unpack_tar_gz(
    bytes: bytes::Bytes,
    limits: ArchiveLimits,
) -> Result<Archive, PlatformError> {
    let downloaded = bytes.len() as u64;
    tokio::task::spawn_blocking(move || unpack(&bytes, limits))
        .await
        .map_err(|e| PlatformError::InvalidResponse(format!("unpacking the archive: {e}")))?
        .map(|mut archive| {
            archive.downloaded_bytes = downloaded;
            archive
        })
}

fn unpack(bytes: &[u8], limits: ArchiveLimits) -> Result<Archive, PlatformError> {
    let invalid = |e: std::io::Error| PlatformError::InvalidResponse(format!("the archive: {e}"));
    let mut tar = tar::Archive::new(GzDecoder::new(bytes));
    let mut archive = Archive::default();
    let mut total = 0u64;
    for entry in tar.entries().map_err(invalid)? {
        let mut entry = entry.map_err(invalid)?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let size = entry.size();
        let path = entry.path().map_err(invalid)?;
        // GitLab's `<project>-<sha>/…` and GitHub's `<owner>-<repo>-<sha>/…`.
        let relative: Vec<String> = path
            .components()
            .skip(1)
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if relative.is_empty() || relative.iter().any(|c| c == "..") {
            continue;
        }
        if size > limits.max_file_bytes {
            continue;
        }
        if total + size > limits.max_total_bytes {
            archive.truncated = true;
            break;
        }
        let mut content = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        entry.read_to_end(&mut content).map_err(invalid)?;
        total += content.len() as u64;
        archive.files.push(ArchivedFile {
            path: relative.join("/"),
            blob_id: git_blob_id(&content),
            bytes: content,
        });
    }
    Ok(archive)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression;
    use flate2::write::GzEncoder;

    fn tar_gz(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut builder = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
        for (path, content) in files {
            let mut header = tar::Header::new_gnu();
            header.set_size(content.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            builder.append_data(&mut header, path, *content).unwrap();
        }
        builder.into_inner().unwrap().finish().unwrap()
    }

    #[test]
    fn git_blob_ids_are_gits() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            git_blob_id(b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
    }

    #[tokio::test]
    async fn files_come_without_the_top_directory_and_within_the_limits() {
        let bytes = tar_gz(&[
            ("app-abc123/src/lib.rs", b"fn a() {}\n"),
            ("app-abc123/big.bin", &[0u8; 2048]),
            ("app-abc123/docs/guide.md", b"# Guide\n"),
            ("app-abc123/z.txt", b"0123456789"),
        ]);
        let limits = ArchiveLimits {
            max_total_bytes: 20,
            max_file_bytes: 1024,
            max_download_bytes: 1 << 20,
        };
        let archive = unpack_tar_gz(bytes.clone().into(), limits).await.unwrap();
        let paths: Vec<_> = archive.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            ["src/lib.rs", "docs/guide.md"],
            "big.bin is skipped, z.txt is past the total"
        );
        assert!(archive.truncated);
        assert_eq!(archive.downloaded_bytes, bytes.len() as u64);
        assert_eq!(archive.files[0].blob_id, git_blob_id(b"fn a() {}\n"));
        let broken = unpack_tar_gz(bytes::Bytes::from_static(b"not gzip"), limits).await;
        assert!(matches!(broken, Err(PlatformError::InvalidResponse(_))));
    }
}
