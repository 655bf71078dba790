//! Dataset shards: the `.npz` files self-play writes and training reads (schema in
//! docs/DATASETS.md).
//!
//! Why npz written by hand: numpy (and through it PyTorch) reads it with no extra package, and
//! the format is small enough — a zip of `.npy` arrays, each a short text header and raw
//! little-endian data — that writing and checking it here costs less than a dependency on an
//! array crate. The reader trusts nothing: every array's dtype, byte order and shape is checked
//! against the shard's `info` and the number of positions, and a damaged or truncated file is
//! an error (the zip's CRC catches altered data), never a panic.
//!
//! A shard is written whole to a temporary name, synced and renamed
//! ([`gipfzero_store::write_atomically`]), so a directory only ever holds complete shards.
use std::collections::HashMap;
use std::fs;
use std::io::{self, Cursor, Read, Write};
use std::path::{Path, PathBuf};

use gipfzero_store::write_atomically;
use serde::{Deserialize, Serialize};
use thiserror::Error;
use zip::write::FileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use crate::samples::Samples;

/// The version of the shard layout; readers refuse any other. Bumped whenever an array is
/// added, removed or changes meaning.
pub const FORMAT_VERSION: i32 = 1;

/// What a shard says about itself (the `info` array, UTF-8 JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardInfo {
    pub game: String,
    pub variant: String,
    pub planes: usize,
    pub height: usize,
    pub width: usize,
    pub action_count: usize,
    /// Who produced the data (`selfplay uniform`, `selfplay checkpoint run1/step-000100`, …).
    pub generator: String,
}

impl ShardInfo {
    /// The info for a variant's spec.
    pub fn for_spec(spec: &gipfzero_games::Spec, generator: impl Into<String>) -> ShardInfo {
        ShardInfo {
            game: spec.game.to_string(),
            variant: spec.variant.to_string(),
            planes: spec.planes,
            height: spec.height,
            width: spec.width,
            action_count: spec.action_count,
            generator: generator.into(),
        }
    }

    /// Number of `f32` values in one observation.
    pub fn observation_len(&self) -> usize {
        self.planes * self.height * self.width
    }
}

/// The JSON stored in `info`: the [`ShardInfo`] plus the format version.
#[derive(Serialize, Deserialize)]
struct InfoJson {
    game: String,
    variant: String,
    format_version: i32,
    planes: usize,
    height: usize,
    width: usize,
    action_count: usize,
    generator: String,
}

/// The positions of one shard and what the shard says about itself.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardData {
    pub info: ShardInfo,
    /// The arrays; their shapes are the info's (`observation_len = P·H·W`, `action_count = A`).
    pub samples: Samples,
}

impl ShardData {
    /// An empty shard for `info`.
    pub fn new(info: ShardInfo) -> ShardData {
        let samples = Samples::with_shape(info.observation_len(), info.action_count);
        ShardData { info, samples }
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Checks that the samples have the info's shapes and every array the length N positions
    /// require.
    pub fn check_lengths(&self) -> Result<(), ShardError> {
        let shape = (self.samples.observation_len, self.samples.action_count);
        let expected = (self.info.observation_len(), self.info.action_count);
        if shape != expected {
            return Err(ShardError::Inconsistent(format!(
                "samples of shape {shape:?} (observation values, actions) in a shard of shape {expected:?}"
            )));
        }
        self.samples.check().map_err(|error| ShardError::Inconsistent(error.0))
    }
}

/// Why a shard could not be written or read.
#[derive(Debug, Error)]
pub enum ShardError {
    #[error("cannot write {path}")]
    Write { path: PathBuf, source: io::Error },
    #[error("cannot read {path}")]
    Read { path: PathBuf, source: io::Error },
    #[error("{path} is not a readable npz archive: {message}")]
    Archive { path: PathBuf, message: String },
    #[error("{path}: array {array}: {message}")]
    Array { path: PathBuf, array: String, message: String },
    #[error("{path}: shard format version {found}, this program reads version {FORMAT_VERSION}")]
    Version { path: PathBuf, found: i32 },
    #[error("{path}: bad info: {message}")]
    Info { path: PathBuf, message: String },
    #[error("inconsistent shard: {0}")]
    Inconsistent(String),
}

/// One array's element type as numpy spells it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Dtype {
    F32,
    U8,
    I32,
    I64,
}

impl Dtype {
    fn descr(self) -> &'static str {
        match self {
            Dtype::F32 => "<f4",
            Dtype::U8 => "|u1",
            Dtype::I32 => "<i4",
            Dtype::I64 => "<i8",
        }
    }

    fn size(self) -> usize {
        match self {
            Dtype::F32 | Dtype::I32 => 4,
            Dtype::U8 => 1,
            Dtype::I64 => 8,
        }
    }
}

/// Little-endian bytes of numbers (the `.npy` data section).
trait LeBytes: Sized + Copy {
    const DTYPE: Dtype;
    fn put(self, out: &mut Vec<u8>);
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! le_bytes {
    ($t:ty, $d:expr) => {
        impl LeBytes for $t {
            const DTYPE: Dtype = $d;
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("chunk of the dtype's size"))
            }
        }
    };
}
le_bytes!(f32, Dtype::F32);
le_bytes!(u8, Dtype::U8);
le_bytes!(i32, Dtype::I32);
le_bytes!(i64, Dtype::I64);

/// A `.npy` file, format 1.0: magic, version, header length, a Python dict literal padded with
/// spaces to a multiple of 64 bytes and ended by a newline, then the data in C order.
fn npy_bytes<T: LeBytes>(shape: &[usize], values: &[T]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_text = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
        T::DTYPE.descr(),
        shape_text
    );
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + values.len() * T::DTYPE.size());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for &value in values {
        value.put(&mut out);
    }
    out
}

/// The bytes of the whole `.npz` archive for `data`.
pub fn shard_bytes(data: &ShardData) -> Result<Vec<u8>, ShardError> {
    data.check_lengths()?;
    let info = &data.info;
    let info_json = serde_json::to_vec(&InfoJson {
        game: info.game.clone(),
        variant: info.variant.clone(),
        format_version: FORMAT_VERSION,
        planes: info.planes,
        height: info.height,
        width: info.width,
        action_count: info.action_count,
        generator: info.generator.clone(),
    })
    .expect("the shard info always serialises");
    let n = data.len();
    let a = info.action_count;
    let data = &data.samples;
    let arrays: [(&str, Vec<u8>); 10] = [
        ("format_version", npy_bytes(&[1], &[FORMAT_VERSION])),
        ("info", npy_bytes(&[info_json.len()], &info_json)),
        (
            "observations",
            npy_bytes(&[n, info.planes, info.height, info.width], &data.observations),
        ),
        ("legal_mask", npy_bytes(&[n, a], &data.legal_mask)),
        ("policy", npy_bytes(&[n, a], &data.policy)),
        ("outcome", npy_bytes(&[n], &data.outcome)),
        ("root_value", npy_bytes(&[n], &data.root_value)),
        ("game_id", npy_bytes(&[n], &data.game_id)),
        ("move_number", npy_bytes(&[n], &data.move_number)),
        ("full_search", npy_bytes(&[n], &data.full_search)),
    ];
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let options = FileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .large_file(false);
    let archive_error = |e: &dyn std::fmt::Display| ShardError::Archive {
        path: PathBuf::new(),
        message: e.to_string(),
    };
    for (name, bytes) in arrays {
        zip.start_file(format!("{name}.npy"), options)
            .map_err(|e| archive_error(&e))?;
        zip.write_all(&bytes).map_err(|e| archive_error(&e))?;
    }
    let cursor = zip.finish().map_err(|e| archive_error(&e))?;
    Ok(cursor.into_inner())
}

/// Writes `data` as the shard `path` (crash-safely, see [`gipfzero_store`]).
pub fn write_shard(path: &Path, data: &ShardData) -> Result<(), ShardError> {
    let bytes = shard_bytes(data)?;
    write_atomically(path, &bytes).map_err(|source| ShardError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes numbered shards `shard-000000.npz`, `shard-000001.npz`, … into a directory.
#[derive(Debug)]
pub struct ShardWriter {
    directory: PathBuf,
    next_index: usize,
}

impl ShardWriter {
    /// A writer whose next shard has number `next_index`.
    pub fn new(directory: impl Into<PathBuf>, next_index: usize) -> ShardWriter {
        ShardWriter {
            directory: directory.into(),
            next_index,
        }
    }

    /// The file name of shard number `index`.
    pub fn shard_name(index: usize) -> String {
        format!("shard-{index:06}.npz")
    }

    /// The shard number of a file name written by [`ShardWriter::shard_name`].
    pub fn parse_shard_name(name: &str) -> Option<usize> {
        let digits = name.strip_prefix("shard-")?.strip_suffix(".npz")?;
        (digits.len() >= 6 && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse().ok())?
    }

    pub fn next_index(&self) -> usize {
        self.next_index
    }

    /// Writes the next shard and returns its path.
    pub fn write(&mut self, data: &ShardData) -> Result<PathBuf, ShardError> {
        let path = self.directory.join(Self::shard_name(self.next_index));
        write_shard(&path, data)?;
        self.next_index += 1;
        Ok(path)
    }
}

/// A parsed `.npy` header.
struct NpyHeader {
    descr: String,
    fortran_order: bool,
    shape: Vec<usize>,
}

/// The value of `key` in a numpy header dict literal, as text (up to the next top-level comma).
fn header_value<'a>(dict: &'a str, key: &str) -> Option<&'a str> {
    let quoted = [format!("'{key}'"), format!("\"{key}\"")];
    let start = quoted.iter().find_map(|q| dict.find(q.as_str()).map(|i| i + q.len()))?;
    let rest = dict[start..].trim_start().strip_prefix(':')?.trim_start();
    let mut depth = 0usize;
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.checked_sub(1)?,
            ',' | '}' if depth == 0 => return Some(rest[..i].trim()),
            _ => {}
        }
    }
    None
}

fn parse_npy_header(bytes: &[u8]) -> Result<(NpyHeader, usize), String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not an .npy array (no magic string)".into());
    }
    let (header_len, header_start): (usize, usize) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        major => return Err(format!("unsupported .npy format version {major}")),
    };
    let end = header_start
        .checked_add(header_len)
        .filter(|&end| end <= bytes.len())
        .ok_or("the .npy header runs past the end of the array")?;
    let dict = std::str::from_utf8(&bytes[header_start..end])
        .map_err(|_| "the .npy header is not text")?
        .trim();
    let descr = header_value(dict, "descr")
        .ok_or("the .npy header has no descr")?
        .trim_matches(|c| c == '\'' || c == '"')
        .to_string();
    let fortran_order = match header_value(dict, "fortran_order") {
        Some("False") => false,
        Some("True") => true,
        _ => return Err("the .npy header has no valid fortran_order".into()),
    };
    let shape_text = header_value(dict, "shape").ok_or("the .npy header has no shape")?;
    let inner = shape_text
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .ok_or_else(|| format!("shape {shape_text} is not a tuple"))?;
    let shape = inner
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.parse::<usize>().map_err(|_| format!("shape {shape_text} is not a tuple of sizes")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((
        NpyHeader {
            descr,
            fortran_order,
            shape,
        },
        end,
    ))
}

/// Reads the shard at `path`, checking its version, info, dtypes and shapes.
pub fn read_shard(path: &Path) -> Result<ShardData, ShardError> {
    let bytes = fs::read(path).map_err(|source| ShardError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_shard(path, &bytes)
}

/// The arrays of an npz archive, by name without `.npy`.
fn unzip(path: &Path, bytes: &[u8]) -> Result<HashMap<String, Vec<u8>>, ShardError> {
    let archive_error = |message: String| ShardError::Archive {
        path: path.to_path_buf(),
        message,
    };
    let mut archive = ZipArchive::new(Cursor::new(bytes)).map_err(|e| archive_error(e.to_string()))?;
    let mut arrays = HashMap::new();
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).map_err(|e| archive_error(e.to_string()))?;
        let name = file.name().to_string();
        let Some(stem) = name.strip_suffix(".npy") else {
            continue;
        };
        // The declared size only hints the allocation: a damaged header may claim anything.
        let mut content = Vec::with_capacity((file.size() as usize).min(1 << 26));
        // Reading to the end checks the CRC: altered data is an error here.
        file.read_to_end(&mut content)
            .map_err(|e| archive_error(format!("{name}: {e}")))?;
        arrays.insert(stem.to_string(), content);
    }
    Ok(arrays)
}

/// Parses the bytes of a shard read from `path` (named in errors).
pub fn parse_shard(path: &Path, bytes: &[u8]) -> Result<ShardData, ShardError> {
    let arrays = unzip(path, bytes)?;
    let array = |name: &str, shape: &[Option<usize>], dtype: Dtype| -> Result<(Vec<usize>, &[u8]), ShardError> {
        let fail = |message: String| ShardError::Array {
            path: path.to_path_buf(),
            array: name.to_string(),
            message,
        };
        let bytes = arrays.get(name).ok_or_else(|| fail("missing".into()))?;
        let (header, start) = parse_npy_header(bytes).map_err(fail)?;
        if header.descr != dtype.descr() {
            return Err(fail(format!("dtype {} where {} was expected", header.descr, dtype.descr())));
        }
        if header.fortran_order {
            return Err(fail("stored in Fortran order, expected C order".into()));
        }
        let matches = header.shape.len() == shape.len()
            && header.shape.iter().zip(shape).all(|(d, e)| e.is_none_or(|e| e == *d));
        if !matches {
            let expected: Vec<String> = shape
                .iter()
                .map(|d| d.map_or("N".to_string(), |d| d.to_string()))
                .collect();
            return Err(fail(format!("shape {:?} where [{}] was expected", header.shape, expected.join(", "))));
        }
        let count = header
            .shape
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| fail("shape too large".into()))?;
        let data = &bytes[start..];
        if Some(data.len()) != count.checked_mul(dtype.size()) {
            return Err(fail(format!(
                "{} bytes of data where shape {:?} needs {}",
                data.len(),
                header.shape,
                count.saturating_mul(dtype.size())
            )));
        }
        Ok((header.shape, data))
    };
    fn values<T: LeBytes>(data: &[u8]) -> Vec<T> {
        data.chunks_exact(T::DTYPE.size()).map(T::get).collect()
    }

    let (_, version) = array("format_version", &[Some(1)], Dtype::I32)?;
    let found = values::<i32>(version)[0];
    if found != FORMAT_VERSION {
        return Err(ShardError::Version {
            path: path.to_path_buf(),
            found,
        });
    }
    let (_, info_bytes) = array("info", &[None], Dtype::U8)?;
    let info_error = |message: String| ShardError::Info {
        path: path.to_path_buf(),
        message,
    };
    let json: InfoJson = serde_json::from_slice(info_bytes).map_err(|e| info_error(e.to_string()))?;
    if json.format_version != FORMAT_VERSION {
        return Err(info_error(format!(
            "format_version {} disagrees with the format_version array {FORMAT_VERSION}",
            json.format_version
        )));
    }
    let info = ShardInfo {
        game: json.game,
        variant: json.variant,
        planes: json.planes,
        height: json.height,
        width: json.width,
        action_count: json.action_count,
        generator: json.generator,
    };
    let (shape, _) = array("outcome", &[None], Dtype::F32)?;
    let n = Some(shape[0]);
    let a = Some(info.action_count);
    let (_, observations) = array(
        "observations",
        &[n, Some(info.planes), Some(info.height), Some(info.width)],
        Dtype::F32,
    )?;
    let (_, legal_mask) = array("legal_mask", &[n, a], Dtype::U8)?;
    let (_, policy) = array("policy", &[n, a], Dtype::F32)?;
    let (_, outcome) = array("outcome", &[n], Dtype::F32)?;
    let (_, root_value) = array("root_value", &[n], Dtype::F32)?;
    let (_, game_id) = array("game_id", &[n], Dtype::I64)?;
    let (_, move_number) = array("move_number", &[n], Dtype::I32)?;
    let (_, full_search) = array("full_search", &[n], Dtype::U8)?;
    let samples = Samples {
        observations: values(observations),
        legal_mask: values(legal_mask),
        policy: values(policy),
        outcome: values(outcome),
        root_value: values(root_value),
        game_id: values(game_id),
        move_number: values(move_number),
        full_search: values(full_search),
        ..Samples::with_shape(info.observation_len(), info.action_count)
    };
    Ok(ShardData { info, samples })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_dir;

    fn sample() -> ShardData {
        let info = ShardInfo {
            game: "dvonn".into(),
            variant: "dvonn".into(),
            planes: 2,
            height: 3,
            width: 4,
            action_count: 5,
            generator: "test".into(),
        };
        let n = 3;
        let samples = Samples {
            observations: (0..n * 24).map(|i| i as f32 * 0.5 - 7.0).collect(),
            legal_mask: (0..n * 5).map(|i| (i % 3 != 0) as u8).collect(),
            policy: (0..n * 5).map(|i| i as f32 / 100.0).collect(),
            outcome: vec![1.0, -1.0, 0.0],
            root_value: vec![0.25, -0.5, 0.125],
            game_id: vec![7, 7, 1 << 40],
            move_number: vec![0, 1, -3],
            full_search: vec![1, 0, 1],
            ..Samples::with_shape(info.observation_len(), info.action_count)
        };
        ShardData { info, samples }
    }

    #[test]
    fn npy_header_is_padded_to_64_bytes_and_ends_in_a_newline() {
        let bytes = npy_bytes(&[3, 2], &[1.0f32; 6]);
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + header_len) % 64, 0);
        assert_eq!(bytes[10 + header_len - 1], b'\n');
        assert_eq!(bytes.len(), 10 + header_len + 24);
        let (header, start) = parse_npy_header(&bytes).unwrap();
        assert_eq!((header.descr.as_str(), header.shape, start), ("<f4", vec![3, 2], 10 + header_len));
        let one = npy_bytes(&[5], &[0u8; 5]);
        assert!(std::str::from_utf8(&one[10..]).unwrap().contains("'shape': (5,)"));
    }

    #[test]
    fn round_trip_keeps_every_value() {
        let dir = test_dir("shard-round-trip");
        let data = sample();
        let path = dir.join("shard-000000.npz");
        write_shard(&path, &data).unwrap();
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1, "only the shard, no temporary file");
        assert_eq!(read_shard(&path).unwrap(), data);
        let empty = ShardData::new(data.info.clone());
        write_shard(&path, &empty).unwrap();
        assert_eq!(read_shard(&path).unwrap(), empty);
    }

    #[test]
    fn inconsistent_data_is_refused_before_writing() {
        let mut data = sample();
        data.samples.policy.pop();
        assert!(matches!(shard_bytes(&data), Err(ShardError::Inconsistent(_))));
        let mut data = sample();
        data.samples.observation_len += 1;
        assert!(matches!(shard_bytes(&data), Err(ShardError::Inconsistent(_))));
    }

    #[test]
    fn damaged_and_truncated_files_give_errors() {
        let bytes = shard_bytes(&sample()).unwrap();
        let path = Path::new("damaged.npz");
        for cut in [0, 10, bytes.len() / 2, bytes.len() - 1] {
            assert!(parse_shard(path, &bytes[..cut]).is_err(), "cut at {cut}");
        }
        // Flipping any byte is caught (the CRC guards the data, the zip structure the rest)
        // or leaves a shard that still reads back the same (bytes the format does not use).
        let original = sample();
        for i in 0..bytes.len() {
            let mut altered = bytes.clone();
            altered[i] ^= 0x55;
            if let Ok(data) = parse_shard(path, &altered) {
                assert_eq!(data, original, "flipped byte {i} changed the data unnoticed");
            }
        }
        assert!(matches!(read_shard(Path::new("/nonexistent/shard.npz")), Err(ShardError::Read { .. })));
    }

    /// An archive with one array replaced, to check the reader's validation.
    fn with_array(name: &str, npy: Vec<u8>) -> Vec<u8> {
        let arrays = unzip(Path::new("x"), &shard_bytes(&sample()).unwrap()).unwrap();
        let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
        let mut names: Vec<_> = arrays.keys().cloned().collect();
        names.sort();
        for stem in names {
            zip.start_file(format!("{stem}.npy"), FileOptions::default()).unwrap();
            let bytes = if stem == name { &npy } else { &arrays[&stem] };
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    #[test]
    fn wrong_version_dtype_or_shape_is_refused() {
        let path = Path::new("bad.npz");
        let bad = with_array("format_version", npy_bytes(&[1], &[2i32]));
        assert!(matches!(parse_shard(path, &bad), Err(ShardError::Version { found: 2, .. })));
        let bad = with_array("outcome", npy_bytes(&[3], &[1.0f64.to_bits() as i64; 3]));
        assert!(matches!(parse_shard(path, &bad), Err(ShardError::Array { array, .. }) if array == "outcome"));
        let bad = with_array("policy", npy_bytes(&[3, 4], &[0.0f32; 12]));
        assert!(matches!(parse_shard(path, &bad), Err(ShardError::Array { array, .. }) if array == "policy"));
        let bad = with_array("game_id", npy_bytes(&[2], &[0i64; 2]));
        assert!(matches!(parse_shard(path, &bad), Err(ShardError::Array { array, .. }) if array == "game_id"));
        let bad = with_array("info", npy_bytes(&[3], b"{x}"));
        assert!(matches!(parse_shard(path, &bad), Err(ShardError::Info { .. })));
        let mut short = npy_bytes(&[3], &[0u8; 3]);
        short.pop();
        let bad = with_array("full_search", short);
        assert!(matches!(parse_shard(path, &bad), Err(ShardError::Array { array, .. }) if array == "full_search"));
    }

    #[test]
    fn shard_names_round_trip() {
        assert_eq!(ShardWriter::shard_name(42), "shard-000042.npz");
        assert_eq!(ShardWriter::parse_shard_name("shard-000042.npz"), Some(42));
        assert_eq!(ShardWriter::parse_shard_name("shard-1234567.npz"), Some(1234567));
        for bad in ["shard-000042.npz.tmp", "shard-42.npz", "shard-00004x.npz", "games.jsonl"] {
            assert_eq!(ShardWriter::parse_shard_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn numpy_reads_the_shapes_dtypes_and_values() {
        let python = match std::env::var_os("VIRTUAL_ENV") {
            Some(venv) => Path::new(&venv).join("bin/python"),
            None => panic!(
                "VIRTUAL_ENV is not set: run `source scripts/torch-env.sh` first (it activates \
                 the venv whose numpy this test uses; `make test` does it)"
            ),
        };
        let dir = test_dir("shard-numpy");
        let path = dir.join("shard-000000.npz");
        let data = sample();
        write_shard(&path, &data).unwrap();
        let script = r#"
import json, sys
import numpy as np
d = np.load(sys.argv[1])
out = {}
for k in d.files:
    a = d[k]
    out[k] = {"dtype": a.dtype.str, "shape": list(a.shape), "values": a.ravel().tolist()}
out["info_json"] = json.loads(bytes(d["info"]).decode())
print(json.dumps(out))
"#;
        let output = std::process::Command::new(&python)
            .arg("-c")
            .arg(script)
            .arg(&path)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
        assert!(output.status.success(), "python failed: {}", String::from_utf8_lossy(&output.stderr));
        let seen: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let check = |name: &str, dtype: &str, shape: &[usize], values: Vec<f64>| {
            let a = &seen[name];
            assert_eq!(a["dtype"], dtype, "{name}");
            assert_eq!(a["shape"], serde_json::json!(shape), "{name}");
            // Compared as f32: serde_json's decimal parsing is not exact to the last f64 bit.
            let got: Vec<f32> = a["values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
            let values: Vec<f32> = values.into_iter().map(|v| v as f32).collect();
            assert_eq!(got, values, "{name}");
        };
        let f = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();
        check("format_version", "<i4", &[1], vec![1.0]);
        check("observations", "<f4", &[3, 2, 3, 4], f(&data.samples.observations));
        check("legal_mask", "|u1", &[3, 5], data.samples.legal_mask.iter().map(|&x| x as f64).collect());
        check("policy", "<f4", &[3, 5], f(&data.samples.policy));
        check("outcome", "<f4", &[3], f(&data.samples.outcome));
        check("root_value", "<f4", &[3], f(&data.samples.root_value));
        check("game_id", "<i8", &[3], data.samples.game_id.iter().map(|&x| x as f64).collect());
        check("move_number", "<i4", &[3], data.samples.move_number.iter().map(|&x| x as f64).collect());
        check("full_search", "|u1", &[3], data.samples.full_search.iter().map(|&x| x as f64).collect());
        assert_eq!(
            seen["info_json"],
            serde_json::json!({"game": "dvonn", "variant": "dvonn", "format_version": 1, "planes": 2,
                "height": 3, "width": 4, "action_count": 5, "generator": "test"})
        );
    }
}
