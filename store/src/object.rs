//! One small blocking API over object storage, so that a run can live at a URL shared by
//! machines: `s3://bucket/prefix` (AWS S3 and S3-compatible stores), `gs://bucket/prefix`
//! (Google Cloud Storage), `az://container/prefix` (Azure Blob), `file:///path` or a plain
//! path (a local or shared folder). Self-play workers and the trainer exchange shards,
//! networks and the trainer's manifest through it, with no network protocol of gipfzero's own.
//!
//! Why these operations and no others: object stores give whole-object writes that become
//! visible at once (a reader never sees half an object), create-only writes (an existing
//! object is an error, never overwritten) and listing by prefix. That is enough for
//! immutable shards uploaded under unique names ([`RunStore::put_create_only`]) and for one
//! commit point that the trainer replaces whole ([`RunStore::put`]); see
//! `docs/DISTRIBUTED.md` for the design built on them.
//!
//! Why blocking: the rest of gipfzero is synchronous (threads, not async), and an object
//! operation is rare next to the games and SGD steps between two of them. So a [`RunStore`]
//! owns a small tokio runtime (one worker thread) and every call blocks on it; callers need
//! no async code and any thread may call it.
//!
//! Credentials come from each cloud's standard environment variables, read the way
//! `object_store` reads them (`AWS_*`, `GOOGLE_*` and `SERVICE_ACCOUNT`, `AZURE_*`), and
//! from the files and services `object_store` itself consults (Google's application default
//! credentials file, instance metadata, container and web-identity credentials). AWS's own
//! shared files (`~/.aws/credentials`, `~/.aws/config`, `AWS_PROFILE`), which `object_store`
//! does not read, are read here for static keys, region and endpoint, below the environment
//! (see `aws_profile_settings`). An S3 endpoint of one's own (MinIO, a test server) comes
//! from `AWS_ENDPOINT_URL` or `AWS_ENDPOINT`, with `AWS_ALLOW_HTTP=true` for plain HTTP, or
//! from the profile's `endpoint_url`. The run URL may not carry
//! credentials (no user, password or query string): they would end up in logs and run
//! files. Every error names the run URL and the object key, and its text is scrubbed of the
//! secret values the store was configured with and of URL query strings (where SAS tokens
//! travel), so printing an error never prints a credential.
//!
//! Local folders go through `object_store`'s `LocalFileSystem` with fsync on, so a write
//! reported done is on disk, and a replaced object is renamed into place whole.
use std::fmt;
use std::path::{Path as FsPath, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
use object_store::local::LocalFileSystem;
use object_store::path::Path as ObjectPath;
use object_store::prefix::PrefixStore;
use object_store::{ClientConfigKey, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, RetryConfig};
use url::Url;

/// What went wrong with a run's object store. Every variant names the run URL (`url`) and,
/// where one is concerned, the object's key under it; none carries a credential.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ObjectError {
    /// The run location could not be understood (`given` is what was given, less any
    /// user, password or query part).
    #[error("run location {given:?}: {reason}")]
    InvalidLocation { given: String, reason: String },
    /// The store could not be set up from the location and the environment.
    #[error("{url}: cannot open the store: {detail}")]
    Open { url: String, detail: String },
    /// A key that gipfzero does not write (see [`RunStore::put`] for the rule).
    #[error("{url}: object key {key:?} is not valid: {reason}")]
    InvalidKey { url: String, key: String, reason: &'static str },
    /// A create-only write found the object there already; the object was left as it was.
    #[error("{url}/{key}: the object already exists (a create-only write never replaces an object)")]
    AlreadyExists { url: String, key: String },
    /// A read of an object that does not exist.
    #[error("{url}/{key}: no such object")]
    NotFound { url: String, key: String },
    /// The bucket, container or folder of the run does not exist (or these credentials do
    /// not let one see it).
    #[error("{url}: the bucket, container or folder does not exist ({operation}{}): {detail}", of(key))]
    MissingBucket { url: String, operation: Operation, key: String, detail: String },
    /// The store refused the credentials, or they do not allow the operation.
    #[error("{url}: the store refused the credentials for {operation}{}: {detail}", of(key))]
    Credentials { url: String, operation: Operation, key: String, detail: String },
    /// No answer within [`Options::operation_timeout`].
    #[error("{url}: {operation}{} had no answer within {after:?}", of(key))]
    TimedOut { url: String, operation: Operation, key: String, after: Duration },
    /// Anything else: the endpoint cannot be reached, the server failed, a local I/O error.
    #[error("{url}: {operation}{} failed: {detail}", of(key))]
    Failed { url: String, operation: Operation, key: String, detail: String },
}

impl ObjectError {
    /// Whether this is a read of a missing object (as opposed to a store that failed).
    pub fn is_not_found(&self) -> bool {
        matches!(self, ObjectError::NotFound { .. })
    }

    /// Whether this is a create-only write that found the object there.
    pub fn is_already_exists(&self) -> bool {
        matches!(self, ObjectError::AlreadyExists { .. })
    }
}

/// ` KEY`, or nothing for the run itself (an error's operation and object).
fn of(key: &str) -> String {
    if key.is_empty() {
        String::new()
    } else {
        format!(" {key}")
    }
}

/// The operation an error happened in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    /// The check [`RunStore::open`] makes that the store answers.
    Open,
    PutCreateOnly,
    Put,
    Get,
    List,
    Delete,
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Operation::Open => "opening the run",
            Operation::PutCreateOnly => "creating",
            Operation::Put => "writing",
            Operation::Get => "reading",
            Operation::List => "listing",
            Operation::Delete => "deleting",
        })
    }
}

/// Which kind of store a run location names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// `s3://bucket/prefix`: AWS S3 or an S3-compatible store (`AWS_ENDPOINT_URL`).
    S3,
    /// `gs://bucket/prefix`: Google Cloud Storage.
    Gcs,
    /// `az://container/prefix`: Azure Blob Storage (the account from `AZURE_STORAGE_ACCOUNT_NAME`).
    Azure,
    /// `file:///path` or a plain path: a local or shared folder.
    Local,
}

/// Where a run lives: parsed, checked, without credentials. [`fmt::Display`] gives the form
/// errors name it by: the URL for a cloud store, the absolute path for a folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunLocation {
    backend: Backend,
    /// `scheme://bucket` for a cloud store; unused for a folder.
    store_url: String,
    /// The prefix inside the bucket (no leading or trailing `/`); empty for a folder.
    prefix: String,
    /// The folder, absolute, for [`Backend::Local`].
    dir: PathBuf,
}

impl RunLocation {
    /// Parses `s3://`, `s3a://`, `gs://`, `az://`, `azure://` and `file://` URLs and plain
    /// paths (anything without `://`; relative ones are taken from the current directory).
    pub fn parse(text: &str) -> Result<Self, ObjectError> {
        let invalid = |given: String, reason: &str| ObjectError::InvalidLocation { given, reason: reason.to_string() };
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(invalid(String::new(), "empty: give a URL (s3://, gs://, az://, file://) or a folder"));
        }
        if !trimmed.contains("://") {
            let path = FsPath::new(trimmed);
            let dir = if path.is_absolute() {
                path.to_path_buf()
            } else {
                std::env::current_dir()
                    .map_err(|error| {
                        invalid(trimmed.to_string(), &format!("no current directory to resolve it in: {error}"))
                    })?
                    .join(path)
            };
            return Ok(RunLocation::local(dir));
        }
        let url =
            Url::parse(trimmed).map_err(|error| invalid(redact_url_text(trimmed), &format!("not a URL: {error}")))?;
        let shown = redacted(&url);
        if !url.username().is_empty() || url.password().is_some() || url.query().is_some() || url.fragment().is_some() {
            return Err(invalid(
                shown,
                "a run URL carries no user, password, query or fragment: credentials and options come from the environment",
            ));
        }
        let backend = match url.scheme() {
            "s3" | "s3a" => Backend::S3,
            "gs" => Backend::Gcs,
            "az" | "azure" => Backend::Azure,
            "file" => Backend::Local,
            _ => {
                return Err(invalid(
                    shown,
                    "unsupported scheme: use s3://bucket/prefix, gs://bucket/prefix, az://container/prefix, file:///path or a plain path",
                ))
            }
        };
        if backend == Backend::Local {
            if !matches!(url.host_str(), None | Some("") | Some("localhost")) {
                return Err(invalid(shown, "a file:// URL names a folder of this machine: file:///path"));
            }
            let dir = url.to_file_path().map_err(|()| invalid(shown.clone(), "not a local path"))?;
            return Ok(RunLocation::local(dir));
        }
        let bucket = match url.host_str() {
            Some(host) if !host.is_empty() => host.to_string(),
            _ => return Err(invalid(shown, "no bucket or container name after the scheme")),
        };
        let prefix = ObjectPath::from_url_path(url.path())
            .map_err(|error| invalid(shown.clone(), &format!("the prefix is not a valid object path: {error}")))?;
        Ok(RunLocation {
            backend,
            store_url: format!("{}://{bucket}", url.scheme()),
            prefix: prefix.as_ref().to_string(),
            dir: PathBuf::new(),
        })
    }

    fn local(dir: PathBuf) -> Self {
        RunLocation { backend: Backend::Local, store_url: String::new(), prefix: String::new(), dir }
    }

    /// The kind of store.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The folder of a local run; `None` for a cloud store.
    pub fn local_dir(&self) -> Option<&FsPath> {
        (self.backend == Backend::Local).then_some(self.dir.as_path())
    }

    /// The prefix inside the bucket or container ("" for its root or for a folder).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }
}

impl fmt::Display for RunLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.backend {
            Backend::Local => write!(f, "{}", self.dir.display()),
            _ if self.prefix.is_empty() => f.write_str(&self.store_url),
            _ => write!(f, "{}/{}", self.store_url, self.prefix),
        }
    }
}

/// How a [`RunStore`] is set up. The defaults suit a worker or trainer; tests shorten them.
#[derive(Clone)]
pub struct Options {
    /// The environment variables to configure the store from; `None` (the default): the
    /// process's own. Tests give an explicit one so that a developer's credentials never
    /// reach a test server.
    pub environment: Option<Vec<(String, String)>>,
    /// The longest one operation may take in all, retries included (default 10 minutes).
    pub operation_timeout: Duration,
    /// How long a failed request is retried, with backoff, before the operation fails
    /// (default 60 s): a dropped connection or a busy server costs a retry, not the run.
    pub retry_timeout: Duration,
    /// The limit on connecting to a cloud endpoint (default 5 s).
    pub connect_timeout: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            environment: None,
            operation_timeout: Duration::from_secs(600),
            retry_timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(5),
        }
    }
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The environment's values may be credentials: only the names are shown.
        let names: Option<Vec<&str>> =
            self.environment.as_ref().map(|vars| vars.iter().map(|(name, _)| name.as_str()).collect());
        f.debug_struct("Options")
            .field("environment (names)", &names)
            .field("operation_timeout", &self.operation_timeout)
            .field("retry_timeout", &self.retry_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .finish()
    }
}

/// The requests a [`RunStore`] made and the bytes it moved since it was opened (for the
/// cost figures of docs/DISTRIBUTED.md). A listing counts once however many pages it took;
/// the check made when the store is opened is not counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    pub puts: u64,
    pub gets: u64,
    pub lists: u64,
    pub deletes: u64,
    pub bytes_written: u64,
    pub bytes_read: u64,
}

impl std::ops::Add for Traffic {
    type Output = Traffic;
    fn add(self, other: Traffic) -> Traffic {
        Traffic {
            puts: self.puts + other.puts,
            gets: self.gets + other.gets,
            lists: self.lists + other.lists,
            deletes: self.deletes + other.deletes,
            bytes_written: self.bytes_written + other.bytes_written,
            bytes_read: self.bytes_read + other.bytes_read,
        }
    }
}

impl fmt::Display for Traffic {
    /// `puts=… gets=… lists=… deletes=… bytes_written=… bytes_read=…`, one line that
    /// `gipfzero bench distributed` reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "puts={} gets={} lists={} deletes={} bytes_written={} bytes_read={}",
            self.puts, self.gets, self.lists, self.deletes, self.bytes_written, self.bytes_read
        )
    }
}

impl std::str::FromStr for Traffic {
    type Err = String;
    /// The [`fmt::Display`] form back.
    fn from_str(text: &str) -> Result<Traffic, String> {
        let mut traffic = Traffic::default();
        for field in text.split_whitespace() {
            let (name, value) = field.split_once('=').ok_or_else(|| format!("{field:?} is not name=value"))?;
            let value: u64 = value.parse().map_err(|_| format!("{field:?}: not a count"))?;
            let slot = match name {
                "puts" => &mut traffic.puts,
                "gets" => &mut traffic.gets,
                "lists" => &mut traffic.lists,
                "deletes" => &mut traffic.deletes,
                "bytes_written" => &mut traffic.bytes_written,
                "bytes_read" => &mut traffic.bytes_read,
                _ => return Err(format!("{name:?} is not a traffic count")),
            };
            *slot = value;
        }
        Ok(traffic)
    }
}

#[derive(Default)]
struct TrafficCounters {
    puts: AtomicU64,
    gets: AtomicU64,
    lists: AtomicU64,
    deletes: AtomicU64,
    bytes_written: AtomicU64,
    bytes_read: AtomicU64,
}

/// One object under a run's prefix, as [`RunStore::list`] gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectInfo {
    /// The key under the run's prefix (`games/…`, `manifest.json`).
    pub key: String,
    /// The size in bytes.
    pub size: u64,
}

/// A run's object store: the objects under its location, by key, with blocking operations
/// (see the module docs). Keys are relative to the run's prefix.
pub struct RunStore {
    location: RunLocation,
    url: String,
    store: Arc<dyn ObjectStore>,
    runtime: tokio::runtime::Runtime,
    operation_timeout: Duration,
    /// The secret values the store was configured with, scrubbed from every error.
    secrets: Vec<String>,
    traffic: TrafficCounters,
}

impl fmt::Debug for RunStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not the store itself: its configuration holds the credentials.
        f.debug_struct("RunStore").field("url", &self.url).finish_non_exhaustive()
    }
}

impl RunStore {
    /// Opens the run at `location` (a URL or a path, see [`RunLocation::parse`]) with the
    /// process's environment and the default [`Options`].
    pub fn open(location: &str) -> Result<Self, ObjectError> {
        RunStore::open_location(RunLocation::parse(location)?, Options::default())
    }

    /// Opens the run at `location` and checks that the store answers: a list of the run's
    /// top level, so that an unreachable endpoint, refused credentials or a missing bucket
    /// show at once, naming the URL. A local folder is created if it does not exist (as a
    /// prefix in a bucket needs no creating); a bucket or container is never created.
    pub fn open_location(location: RunLocation, options: Options) -> Result<Self, ObjectError> {
        let url = location.to_string();
        let open_error = |detail: String| ObjectError::Open { url: url.clone(), detail };
        let environment: Vec<(String, String)> = match &options.environment {
            Some(vars) => vars.clone(),
            None => std::env::vars_os()
                .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
                .collect(),
        };
        // AWS's shared files come first, so that the environment overrides them.
        let environment = match location.backend {
            Backend::S3 => {
                let mut with_files = aws_profile_settings(&environment).map_err(&open_error)?;
                with_files.extend(environment);
                with_files
            }
            _ => environment,
        };
        let secrets = secret_values(&environment);
        let scrub = |text: String| scrub(&text, &secrets);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("gipfzero-object-store")
            .enable_all()
            .build()
            .map_err(|error| open_error(format!("cannot start the I/O runtime: {error}")))?;
        let retry = RetryConfig { retry_timeout: options.retry_timeout, ..RetryConfig::default() };
        let connect_timeout = format!("{}ms", options.connect_timeout.as_millis());
        let store: Arc<dyn ObjectStore> = match location.backend {
            Backend::Local => {
                std::fs::create_dir_all(&location.dir)
                    .map_err(|error| open_error(format!("cannot create the folder: {error}")))?;
                let local = LocalFileSystem::new_with_prefix(&location.dir)
                    .map_err(|error| open_error(scrub(error.to_string())))?
                    .with_fsync(true);
                Arc::new(local)
            }
            Backend::S3 => {
                let mut builder = AmazonS3Builder::new();
                for (name, value) in &environment {
                    if name.starts_with("AWS_") {
                        if let Ok(key) = name.to_ascii_lowercase().parse::<AmazonS3ConfigKey>() {
                            builder = builder.with_config(key, value);
                        }
                    }
                }
                let builder = builder
                    .with_url(location.store_url.as_str())
                    .with_config(AmazonS3ConfigKey::Client(ClientConfigKey::ConnectTimeout), &connect_timeout)
                    .with_retry(retry);
                let s3 = builder.build().map_err(|error| open_error(scrub(error.to_string())))?;
                Arc::new(PrefixStore::new(s3, location.prefix.as_str()))
            }
            Backend::Gcs => {
                let mut builder = GoogleCloudStorageBuilder::new();
                for (name, value) in &environment {
                    if name == "SERVICE_ACCOUNT" {
                        builder = builder.with_service_account_path(value);
                    } else if name.starts_with("GOOGLE_") {
                        if let Ok(key) = name.to_ascii_lowercase().parse::<GoogleConfigKey>() {
                            builder = builder.with_config(key, value);
                        }
                    }
                }
                let builder = builder
                    .with_url(location.store_url.as_str())
                    .with_config(GoogleConfigKey::Client(ClientConfigKey::ConnectTimeout), &connect_timeout)
                    .with_retry(retry);
                let gcs = builder.build().map_err(|error| open_error(scrub(error.to_string())))?;
                Arc::new(PrefixStore::new(gcs, location.prefix.as_str()))
            }
            Backend::Azure => {
                let mut builder = MicrosoftAzureBuilder::new();
                for (name, value) in &environment {
                    if name.starts_with("AZURE_") {
                        if let Ok(key) = name.to_ascii_lowercase().parse::<AzureConfigKey>() {
                            builder = builder.with_config(key, value);
                        }
                    } else if name == "IDENTITY_ENDPOINT" {
                        builder = builder.with_msi_endpoint(value);
                    }
                }
                let builder = builder
                    .with_url(location.store_url.as_str())
                    .with_config(AzureConfigKey::Client(ClientConfigKey::ConnectTimeout), &connect_timeout)
                    .with_retry(retry);
                let azure = builder.build().map_err(|error| open_error(scrub(error.to_string())))?;
                Arc::new(PrefixStore::new(azure, location.prefix.as_str()))
            }
        };
        let run = RunStore { location, url, store, runtime, operation_timeout: options.operation_timeout, secrets, traffic: TrafficCounters::default() };
        run.check()?;
        Ok(run)
    }

    /// Where the run lives.
    pub fn location(&self) -> &RunLocation {
        &self.location
    }

    /// The run's URL (or folder) as errors name it.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Writes `bytes` at `key` only if no object is there: a second create of the same key
    /// fails with [`ObjectError::AlreadyExists`] and leaves the first object as it was
    /// (`PutMode::Create`: a conditional write on the server, not a check then a write). For
    /// shards uploaded by workers under unique names.
    pub fn put_create_only(&self, key: &str, bytes: impl Into<Vec<u8>>) -> Result<(), ObjectError> {
        self.write(Operation::PutCreateOnly, key, bytes.into(), PutMode::Create)
    }

    /// Writes `bytes` at `key`, replacing the whole object if one is there. Readers see the
    /// old object or the new one, never a mix: the trainer's commit point (the manifest).
    ///
    /// Keys are gipfzero's own names: `/`-separated segments of ASCII letters, digits, `.`,
    /// `_` and `-`, none empty, none starting with `.` (so no `.`, `..` or hidden names, which
    /// local folders keep for temporary files), at most 512 bytes.
    pub fn put(&self, key: &str, bytes: impl Into<Vec<u8>>) -> Result<(), ObjectError> {
        self.write(Operation::Put, key, bytes.into(), PutMode::Overwrite)
    }

    /// What this store has requested and moved so far.
    pub fn traffic(&self) -> Traffic {
        let t = &self.traffic;
        Traffic {
            puts: t.puts.load(Ordering::Relaxed),
            gets: t.gets.load(Ordering::Relaxed),
            lists: t.lists.load(Ordering::Relaxed),
            deletes: t.deletes.load(Ordering::Relaxed),
            bytes_written: t.bytes_written.load(Ordering::Relaxed),
            bytes_read: t.bytes_read.load(Ordering::Relaxed),
        }
    }

    fn write(&self, operation: Operation, key: &str, bytes: Vec<u8>, mode: PutMode) -> Result<(), ObjectError> {
        let path = self.key_path(key)?;
        self.traffic.puts.fetch_add(1, Ordering::Relaxed);
        self.traffic.bytes_written.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        let options = PutOptions { mode, ..PutOptions::default() };
        let store = Arc::clone(&self.store);
        self.run(
            operation,
            key,
            async move { store.put_opts(&path, PutPayload::from(bytes), options).await.map(|_| ()) },
        )
    }

    /// Reads the whole object at `key`; [`ObjectError::NotFound`] if there is none.
    pub fn get(&self, key: &str) -> Result<Vec<u8>, ObjectError> {
        let path = self.key_path(key)?;
        let store = Arc::clone(&self.store);
        self.traffic.gets.fetch_add(1, Ordering::Relaxed);
        let bytes = self.run(Operation::Get, key, async move {
            let bytes = store.get(&path).await?.bytes().await?;
            Ok(bytes.to_vec())
        })?;
        self.traffic.bytes_read.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(bytes)
    }

    /// Lists every object whose key starts with the segments of `prefix` (`""`: the whole
    /// run; `"games"`: everything under `games/`), in key order, with sizes. Objects of any
    /// name are listed, not only the keys gipfzero writes, so that a foreign object under
    /// the run shows rather than hides.
    pub fn list(&self, prefix: &str) -> Result<Vec<ObjectInfo>, ObjectError> {
        let path = if prefix.is_empty() { None } else { Some(self.key_path(prefix)?) };
        let store = Arc::clone(&self.store);
        self.traffic.lists.fetch_add(1, Ordering::Relaxed);
        let mut objects = self.run(Operation::List, prefix, async move {
            let mut stream = store.list(path.as_ref());
            let mut objects = Vec::new();
            while let Some(meta) = stream.next().await {
                let meta = meta?;
                objects.push(ObjectInfo { key: meta.location.as_ref().to_string(), size: meta.size });
            }
            Ok(objects)
        })?;
        objects.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(objects)
    }

    /// Deletes the object at `key`. Deleting a missing object is not an error (S3 and the
    /// others do not tell the two apart; a local folder is made to agree).
    pub fn delete(&self, key: &str) -> Result<(), ObjectError> {
        let path = self.key_path(key)?;
        let store = Arc::clone(&self.store);
        self.traffic.deletes.fetch_add(1, Ordering::Relaxed);
        match self.run(Operation::Delete, key, async move { store.delete(&path).await }) {
            Err(ObjectError::NotFound { .. }) if self.location.backend == Backend::Local => Ok(()),
            Err(ObjectError::MissingBucket { .. })
                if self.location.backend == Backend::Local && self.location.dir.is_dir() =>
            {
                Ok(())
            }
            other => other,
        }
    }

    /// The check [`RunStore::open_location`] makes: one listing of the run's top level.
    fn check(&self) -> Result<(), ObjectError> {
        let store = Arc::clone(&self.store);
        self.run(Operation::Open, "", async move { store.list_with_delimiter(None).await.map(|_| ()) })
    }

    fn key_path(&self, key: &str) -> Result<ObjectPath, ObjectError> {
        let invalid = |reason| ObjectError::InvalidKey { url: self.url.clone(), key: key.to_string(), reason };
        if key.is_empty() {
            return Err(invalid("empty"));
        }
        if key.len() > 512 {
            return Err(invalid("longer than 512 bytes"));
        }
        for segment in key.split('/') {
            if segment.is_empty() {
                return Err(invalid("an empty segment (a leading, trailing or doubled `/`)"));
            }
            if segment.starts_with('.') {
                return Err(invalid("a segment starting with `.`"));
            }
            if !segment.bytes().all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-')) {
                return Err(invalid("characters other than ASCII letters, digits, `.`, `_`, `-` and `/`"));
            }
        }
        ObjectPath::parse(key).map_err(|_| invalid("not an object path"))
    }

    /// Runs one operation on the store's runtime, with the operation timeout, and turns its
    /// error into an [`ObjectError`] naming the URL and key, scrubbed of credentials.
    fn run<T: Send + 'static>(
        &self,
        operation: Operation,
        key: &str,
        future: impl std::future::Future<Output = object_store::Result<T>> + Send + 'static,
    ) -> Result<T, ObjectError> {
        let timeout = self.operation_timeout;
        let outcome = self.runtime.block_on(async move { tokio::time::timeout(timeout, future).await });
        let url = self.url.clone();
        let key = key.to_string();
        let result = match outcome {
            Err(_elapsed) => return Err(ObjectError::TimedOut { url, operation, key, after: timeout }),
            Ok(result) => result,
        };
        result.map_err(|error| {
            let detail = shorten_error_body(&scrub(&error_chain(&error), &self.secrets));
            let refused =
                ObjectError::Credentials { url: url.clone(), operation, key: key.clone(), detail: detail.clone() };
            let missing_bucket =
                ObjectError::MissingBucket { url: url.clone(), operation, key: key.clone(), detail: detail.clone() };
            match server_says(&detail) {
                Some(ServerSays::Refused) => return refused,
                Some(ServerSays::NoBucket) => return missing_bucket,
                Some(ServerSays::NotFound) if matches!(operation, Operation::Open | Operation::List) => {
                    return missing_bucket
                }
                _ => {}
            }
            match error {
                object_store::Error::AlreadyExists { .. } | object_store::Error::Precondition { .. }
                    if operation == Operation::PutCreateOnly =>
                {
                    ObjectError::AlreadyExists { url, key }
                }
                object_store::Error::NotFound { .. } => match operation {
                    Operation::Get | Operation::Delete => ObjectError::NotFound { url, key },
                    _ => missing_bucket,
                },
                object_store::Error::Unauthenticated { .. } | object_store::Error::PermissionDenied { .. } => refused,
                _ => ObjectError::Failed { url, operation, key, detail },
            }
        })
    }
}

/// The settings of the AWS profile (`AWS_PROFILE`, else `default`) from AWS's shared files,
/// as the environment variables they stand for, for what `object_store` does not read:
/// `aws_access_key_id`, `aws_secret_access_key` and `aws_session_token` from the credentials
/// file (`AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials`), `region` and
/// `endpoint_url` from the config file (`AWS_CONFIG_FILE`, else `~/.aws/config`; its
/// sections are `[default]` and `[profile NAME]`). Static keys only: a profile that assumes
/// a role, uses SSO or runs a credential process gives no keys here. Keys are taken only
/// when the environment has none, a region and endpoint only when it names none. A missing
/// file is no error; an unreadable one is, as is an `AWS_PROFILE` found in neither file.
fn aws_profile_settings(environment: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let var = |name: &str| environment.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str());
    let has = |names: &[&str]| names.iter().any(|name| var(name).is_some_and(|value| !value.is_empty()));
    let home = var("HOME").filter(|home| !home.is_empty());
    let file = |variable: &str, default: &str| -> Option<PathBuf> {
        match var(variable).filter(|path| !path.is_empty()) {
            Some(path) => Some(PathBuf::from(path)),
            None => home.map(|home| FsPath::new(home).join(".aws").join(default)),
        }
    };
    let read = |path: Option<PathBuf>| -> Result<String, String> {
        let Some(path) = path else { return Ok(String::new()) };
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(text),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
            Err(error) => Err(format!("cannot read the AWS file {}: {error}", path.display())),
        }
    };
    let chosen = var("AWS_PROFILE").filter(|profile| !profile.is_empty());
    let profile = chosen.unwrap_or("default");
    let credentials = ini_section(&read(file("AWS_SHARED_CREDENTIALS_FILE", "credentials"))?, profile);
    let config_section = if profile == "default" { "default".to_string() } else { format!("profile {profile}") };
    let config = ini_section(&read(file("AWS_CONFIG_FILE", "config"))?, &config_section);
    if let Some(profile) = chosen {
        if credentials.is_none() && config.is_none() {
            return Err(format!("AWS_PROFILE names the profile {profile:?}, which neither AWS file has"));
        }
    }
    let (credentials, config) = (credentials.unwrap_or_default(), config.unwrap_or_default());
    let value = |entries: &[(String, String)], key: &str| {
        entries.iter().find(|(name, _)| name == key).map(|(_, value)| value.clone())
    };
    let mut settings = Vec::new();
    if !has(&["AWS_ACCESS_KEY_ID"]) {
        // The config file may hold keys too; the credentials file wins.
        for (file_key, variable) in [
            ("aws_access_key_id", "AWS_ACCESS_KEY_ID"),
            ("aws_secret_access_key", "AWS_SECRET_ACCESS_KEY"),
            ("aws_session_token", "AWS_SESSION_TOKEN"),
        ] {
            if let Some(found) = value(&credentials, file_key).or_else(|| value(&config, file_key)) {
                settings.push((variable.to_string(), found));
            }
        }
    }
    if !has(&["AWS_REGION", "AWS_DEFAULT_REGION"]) {
        if let Some(region) = value(&config, "region") {
            settings.push(("AWS_REGION".to_string(), region));
        }
    }
    if !has(&["AWS_ENDPOINT_URL", "AWS_ENDPOINT", "AWS_ENDPOINT_URL_S3"]) {
        if let Some(endpoint) = value(&config, "endpoint_url") {
            settings.push(("AWS_ENDPOINT_URL".to_string(), endpoint));
        }
    }
    Ok(settings)
}

/// The `key = value` lines of the section `[name]` of an INI text (AWS's file format:
/// `#` and `;` start comments; keys are kept as written, lower case in AWS's files).
fn ini_section(text: &str, name: &str) -> Option<Vec<(String, String)>> {
    let mut entries: Option<Vec<(String, String)>> = None;
    let mut inside = false;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(section) = line.strip_prefix('[').and_then(|rest| rest.strip_suffix(']')) {
            inside = section.trim() == name;
            if inside && entries.is_none() {
                entries = Some(Vec::new());
            }
            continue;
        }
        if inside {
            if let (Some(entries), Some((key, value))) = (entries.as_mut(), line.split_once('=')) {
                entries.push((key.trim().to_string(), value.trim().to_string()));
            }
        }
    }
    entries
}

/// What a cloud server's refusal says, read from the error's text. object_store reports a
/// failed listing as a `Generic` error whose text carries the HTTP status and the server's
/// body (the error type with the status is private to it), so the status line and the
/// error codes of S3 (`<Code>…</Code>`), Azure and GCS are what there is to go by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ServerSays {
    Refused,
    NoBucket,
    NotFound,
}

fn server_says(detail: &str) -> Option<ServerSays> {
    const REFUSED: [&str; 9] = [
        "SignatureDoesNotMatch",
        "InvalidAccessKeyId",
        "AccessDenied",
        "ExpiredToken",
        "InvalidToken",
        "InvalidClientTokenId",
        "AuthenticationFailed",
        "AuthorizationFailure",
        "AuthorizationPermissionMismatch",
    ];
    const NO_BUCKET: [&str; 3] = ["NoSuchBucket", "ContainerNotFound", "The specified bucket does not exist"];
    if NO_BUCKET.iter().any(|code| detail.contains(code)) {
        Some(ServerSays::NoBucket)
    } else if REFUSED.iter().any(|code| detail.contains(code))
        || detail.contains("401 Unauthorized")
        || detail.contains("403 Forbidden")
    {
        Some(ServerSays::Refused)
    } else if detail.contains("404 Not Found") {
        Some(ServerSays::NotFound)
    } else {
        None
    }
}

/// A server's XML error body (request ids and all) cut down to its code and message.
fn shorten_error_body(detail: &str) -> String {
    let Some(start) = detail.find("<?xml").or_else(|| detail.find("<Error>")) else { return detail.to_string() };
    let element = |name: &str| {
        let open = format!("<{name}>");
        let from = detail[start..].find(&open)? + start + open.len();
        let to = detail[from..].find(&format!("</{name}>"))? + from;
        Some(detail[from..to].trim().to_string())
    };
    let mut short = detail[..start].trim_end().to_string();
    match (element("Code"), element("Message")) {
        (Some(code), Some(message)) => short.push_str(&format!(" {code}: {message}")),
        (Some(code), None) => short.push_str(&format!(" {code}")),
        _ => return detail.to_string(),
    }
    short
}

/// The error and its sources, `: `-joined, skipping a source whose text its parent already
/// contains (object_store's messages often include their source's).
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let part = cause.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = cause.source();
    }
    text
}

/// The values in `environment` that are credentials: those of variables whose names say
/// secret, token, password, signature or key (an access key *id* is not a secret, but an
/// account key is), at least 4 characters long so that scrubbing stays meaningful.
fn secret_values(environment: &[(String, String)]) -> Vec<String> {
    let mut secrets: Vec<String> = environment
        .iter()
        .filter(|(name, value)| {
            let name = name.to_ascii_uppercase();
            let cloud = ["AWS_", "GOOGLE_", "AZURE_", "SERVICE_ACCOUNT"].iter().any(|start| name.starts_with(start));
            let secret = ["SECRET", "TOKEN", "PASSWORD", "SAS", "SIGNATURE", "CREDENTIAL"]
                .iter()
                .any(|word| name.contains(word))
                || (name.ends_with("_KEY") && !name.ends_with("_KEY_ID"));
            cloud && secret && value.len() >= 4
        })
        .map(|(_, value)| value.clone())
        .collect();
    // Longest first, so that a secret containing another is scrubbed whole.
    secrets.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
    secrets
}

/// `text` with every secret value replaced and every URL's query string removed.
fn scrub(text: &str, secrets: &[String]) -> String {
    let mut text = redact_url_text(text);
    for secret in secrets {
        text = text.replace(secret.as_str(), "[redacted]");
    }
    text
}

/// Cuts the query string (`?…`) and user part (`user:password@`) out of every URL in `text`.
fn redact_url_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (before, after) = rest.split_at(at + 3);
        out.push_str(before);
        let end = after
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | '"' | '\'' | '<' | '>' | ',' | ';'))
            .unwrap_or(after.len());
        let (token, tail) = after.split_at(end);
        let token = token.split('?').next().unwrap_or("");
        let authority_end = token.find('/').unwrap_or(token.len());
        match token[..authority_end].rfind('@') {
            Some(at) => {
                out.push_str("[redacted]@");
                out.push_str(&token[at + 1..]);
            }
            None => out.push_str(token),
        }
        if after[..end].contains('?') {
            out.push_str("?[redacted]");
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// A URL as errors may show it: scheme, host, port and path only.
fn redacted(url: &Url) -> String {
    let mut shown = format!("{}://{}", url.scheme(), url.host_str().unwrap_or(""));
    if let Some(port) = url.port() {
        shown.push_str(&format!(":{port}"));
    }
    shown.push_str(url.path());
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cloud_urls_parse_into_bucket_and_prefix() {
        let s3 = RunLocation::parse("s3://my-bucket/runs/zertz/").unwrap();
        assert_eq!(s3.backend(), Backend::S3);
        assert_eq!(s3.prefix(), "runs/zertz");
        assert_eq!(s3.to_string(), "s3://my-bucket/runs/zertz");
        assert_eq!(s3.local_dir(), None);
        let gcs = RunLocation::parse("gs://b").unwrap();
        assert_eq!((gcs.backend(), gcs.prefix(), gcs.to_string().as_str()), (Backend::Gcs, "", "gs://b"));
        let azure = RunLocation::parse("az://container/a/b").unwrap();
        assert_eq!((azure.backend(), azure.prefix()), (Backend::Azure, "a/b"));
        assert_eq!(RunLocation::parse("s3a://b/p").unwrap().backend(), Backend::S3);
    }

    #[test]
    fn paths_and_file_urls_are_local_folders() {
        let plain = RunLocation::parse("/srv/runs/a").unwrap();
        assert_eq!(plain.local_dir(), Some(FsPath::new("/srv/runs/a")));
        assert_eq!(plain.to_string(), "/srv/runs/a");
        let url = RunLocation::parse("file:///srv/runs/a").unwrap();
        assert_eq!(url, plain);
        let relative = RunLocation::parse("data/runs/x").unwrap();
        assert_eq!(relative.local_dir(), Some(std::env::current_dir().unwrap().join("data/runs/x").as_path()));
        assert!(RunLocation::parse("file://otherhost/srv").is_err());
    }

    #[test]
    fn bad_locations_are_refused_without_echoing_credentials() {
        for (given, needle) in [
            ("", "empty"),
            ("http://example.invalid/x", "unsupported scheme"),
            ("s3:///prefix", "no bucket"),
            ("s3://AKIAXX:topsecret@bucket/p", "no user, password"),
            ("az://container/p?sig=topsecret", "no user, password"),
        ] {
            let error = RunLocation::parse(given).unwrap_err().to_string();
            assert!(error.contains(needle), "{given}: {error}");
            assert!(!error.contains("topsecret"), "{given}: {error}");
        }
    }

    #[test]
    fn errors_are_scrubbed_of_secrets_and_query_strings() {
        let environment = vec![
            ("AWS_SECRET_ACCESS_KEY".to_string(), "s3cr3t/abc+def".to_string()),
            ("AWS_ACCESS_KEY_ID".to_string(), "AKIAEXAMPLE".to_string()),
            ("AZURE_STORAGE_ACCOUNT_KEY".to_string(), "accountkey==".to_string()),
            ("HOME".to_string(), "/root".to_string()),
        ];
        let secrets = secret_values(&environment);
        assert_eq!(secrets.len(), 2);
        let text = "sent s3cr3t/abc+def to https://u:pw@acct.blob.core.windows.net/c/x?sv=1&sig=abc (accountkey==) as AKIAEXAMPLE";
        assert_eq!(
            scrub(text, &secrets),
            "sent [redacted] to https://[redacted]@acct.blob.core.windows.net/c/x?[redacted] ([redacted]) as AKIAEXAMPLE"
        );
    }

    #[test]
    fn aws_profiles_come_from_the_shared_files_below_the_environment() {
        let home = std::env::temp_dir().join(format!("gipfzero-object-aws-{}", std::process::id()));
        std::fs::create_dir_all(home.join(".aws")).unwrap();
        std::fs::write(
            home.join(".aws/credentials"),
            "# keys\n[default]\naws_access_key_id = AKIADEFAULT\naws_secret_access_key = default-secret\n\n\
             [ci]\naws_access_key_id=AKIACI\naws_secret_access_key=ci-secret\naws_session_token = ci-token\n",
        )
        .unwrap();
        std::fs::write(
            home.join(".aws/config"),
            "[default]\nregion = eu-west-1\n[profile ci]\nregion = us-east-2\nendpoint_url = http://127.0.0.1:9000\n",
        )
        .unwrap();
        let env = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            let mut vars = vec![("HOME".to_string(), home.display().to_string())];
            vars.extend(pairs.iter().map(|(name, value)| (name.to_string(), value.to_string())));
            vars
        };
        let pairs = |settings: Vec<(String, String)>| -> Vec<String> {
            settings.into_iter().map(|(name, value)| format!("{name}={value}")).collect()
        };
        assert_eq!(
            pairs(aws_profile_settings(&env(&[])).unwrap()),
            ["AWS_ACCESS_KEY_ID=AKIADEFAULT", "AWS_SECRET_ACCESS_KEY=default-secret", "AWS_REGION=eu-west-1"]
        );
        assert_eq!(
            pairs(aws_profile_settings(&env(&[("AWS_PROFILE", "ci")])).unwrap()),
            [
                "AWS_ACCESS_KEY_ID=AKIACI",
                "AWS_SECRET_ACCESS_KEY=ci-secret",
                "AWS_SESSION_TOKEN=ci-token",
                "AWS_REGION=us-east-2",
                "AWS_ENDPOINT_URL=http://127.0.0.1:9000"
            ]
        );
        // The environment's keys, region and endpoint win over the files'.
        let given = env(&[("AWS_PROFILE", "ci"), ("AWS_ACCESS_KEY_ID", "AKIAENV"), ("AWS_REGION", "ap-south-1")]);
        assert_eq!(pairs(aws_profile_settings(&given).unwrap()), ["AWS_ENDPOINT_URL=http://127.0.0.1:9000"]);
        let error = aws_profile_settings(&env(&[("AWS_PROFILE", "nobody")])).unwrap_err();
        assert!(error.contains("\"nobody\""), "{error}");
        // No HOME and no files: nothing, and no error.
        assert_eq!(aws_profile_settings(&[]).unwrap(), []);
        std::fs::remove_dir_all(&home).unwrap();
    }

    #[test]
    fn server_refusals_are_read_from_the_error_text() {
        let body = "GET http://127.0.0.1:1/b?[redacted] - Server returned non-2xx status code: 404 Not Found: <?xml version=\"1.0\"?>\n<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message><RequestId>xyz</RequestId></Error>";
        let short = shorten_error_body(body);
        assert_eq!(
            short,
            "GET http://127.0.0.1:1/b?[redacted] - Server returned non-2xx status code: 404 Not Found: NoSuchBucket: The specified bucket does not exist"
        );
        assert_eq!(server_says(&short), Some(ServerSays::NoBucket));
        assert_eq!(server_says("status code: 403 Forbidden: SignatureDoesNotMatch: x"), Some(ServerSays::Refused));
        assert_eq!(server_says("status code: 404 Not Found"), Some(ServerSays::NotFound));
        assert_eq!(server_says("error sending request: connection refused"), None);
        assert_eq!(shorten_error_body("no body here"), "no body here");
    }

    #[test]
    fn keys_follow_the_rule() {
        let dir = std::env::temp_dir().join(format!("gipfzero-object-keys-{}", std::process::id()));
        let store = RunStore::open(dir.to_str().unwrap()).unwrap();
        for good in ["manifest.json", "games/0001-w3.npz", "networks/g-12_a.safetensors"] {
            assert!(store.key_path(good).is_ok(), "{good}");
        }
        for bad in ["", "/a", "a/", "a//b", "../a", "a/./b", ".hidden", "a b", "a#1", "é", &"x".repeat(513)] {
            let error = store.key_path(bad).unwrap_err();
            assert!(matches!(error, ObjectError::InvalidKey { .. }), "{bad}: {error}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
