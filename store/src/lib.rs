//! Crash-safe file replacement: every file gipfzero reports saved (checkpoints, shards, game
//! records, run state) goes through here, so a crash or `kill -9` at any moment leaves either
//! the old file or the whole new one, never a mix.
//!
//! The protocol: write to a hidden temporary file in the same directory (a rename across file
//! systems is not atomic), fsync it, rename it over the target, fsync the directory (the
//! rename is durable only once the directory entry is). A crash can leave a temporary file
//! behind; [`is_temporary`] recognises them so that readers skip or remove them.
//!
//! The crate does not depend on tch: the tch-free crates (self-play) and the tch ones (model,
//! train) share it. Its `object` module (default feature `object`) is the object-storage
//! API for runs that span machines; without that feature the crate has no dependencies.
#[cfg(feature = "object")]
pub mod object;

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Replaces `path` with `bytes` crash-safely (see the crate docs).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace_with(path, |temporary| {
        let mut file = File::create(temporary)?;
        file.write_all(bytes)
    })
}

/// Replaces `path` crash-safely with what `write` writes to the temporary path it is given
/// (for writers that want a path rather than bytes, such as libtorch's). The temporary file
/// is removed when `write` fails.
pub fn replace_with(path: &Path, write: impl FnOnce(&Path) -> io::Result<()>) -> io::Result<()> {
    let temporary = temporary_path(path);
    let written = write(&temporary).and_then(|()| File::open(&temporary)?.sync_all());
    if let Err(error) = written {
        let _ = fs::remove_file(&temporary);
        return Err(error);
    }
    fs::rename(&temporary, path)?;
    File::open(directory_of(path))?.sync_all()
}

/// The temporary file `path` is written through: `DIR/.NAME.tmp-PID`.
pub fn temporary_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}{TEMPORARY_MARK}{}", std::process::id()))
}

/// Whether the file name `name` is one of [`temporary_path`]'s (left by an interrupted write).
pub fn is_temporary(name: &str) -> bool {
    name.starts_with('.') && name.contains(TEMPORARY_MARK)
}

const TEMPORARY_MARK: &str = ".tmp-";

fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("gipfzero-store-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn writes_and_replaces_leaving_no_temporary_file() {
        let dir = test_dir("replace");
        let path = dir.join("state.json");
        write_atomically(&path, b"first").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"first");
        write_atomically(&path, b"second, longer").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second, longer");
        assert_eq!(names(&dir), ["state.json"]);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_removes_the_temporary_one() {
        let dir = test_dir("failed");
        let path = dir.join("weights.bin");
        write_atomically(&path, b"old").unwrap();
        let error = replace_with(&path, |temporary| {
            fs::write(temporary, b"half")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(error.to_string(), "disk full");
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(names(&dir), ["weights.bin"]);
    }

    #[test]
    fn a_missing_directory_is_an_error() {
        let dir = test_dir("missing");
        let error = write_atomically(&dir.join("nowhere").join("file"), b"x").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn temporary_files_are_recognised() {
        let temporary = temporary_path(Path::new("runs/a/shard-000001.npz"));
        assert_eq!(temporary.parent(), Some(Path::new("runs/a")));
        let name = temporary.file_name().unwrap().to_str().unwrap();
        assert!(is_temporary(name), "{name}");
        for kept in ["shard-000001.npz", "latest.json", ".hidden", "notes.tmp-1"] {
            assert!(!is_temporary(kept), "{kept}");
        }
    }
}
