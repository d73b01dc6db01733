//! The shared second level of the [`DiskCache`](crate::disk_cache::DiskCache): entries in object storage through
//! the `object_store` crate, so that a team's CI runners and workstations fill and read one cache.
//!
//! URLs: `s3://bucket/prefix`, `gs://bucket/prefix`, `az://container/prefix` (and the other forms `object_store`
//! parses), or `file:///path`. Credentials, region and endpoint come from the usual environment variables of each
//! service (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT`, `AWS_ALLOW_HTTP`,
//! `GOOGLE_SERVICE_ACCOUNT`, `AZURE_STORAGE_ACCOUNT_NAME`, …), as every tool built on `object_store` reads them.
//!
//! The store holds packs ([`crate::disk_cache::pack`]): the entries one command used, as one object, each the
//! same checked container as a local entry (a damaged one is refused alone and compiled again). It is only ever a
//! cache: an unreachable server costs one short wait and one warning, and the build goes on with the local cache.
//! A connection times out after 2 s and a request is retried twice, not the library's default of minutes,
//! because waiting longer than compiling would defeat the purpose; a request itself may take two minutes (a pack
//! of tens of MiB over a slow link).
//!
//! ```no_run
//! use shader_info_gpu::disk_cache::DiskCache;
//! use shader_info_gpu::remote_cache::ObjectStoreRemote;
//! let remote = ObjectStoreRemote::from_url("s3://team-shaders/main")?;
//! let cache = DiskCache::open("target/shader-cache", DiskCache::DEFAULT_LIMIT)
//!     .map_err(|e| e.to_string())?
//!     .with_remote(Box::new(remote));
//! cache.pull_pack("build debug"); // before the run; `push_pack` after it
//! # Ok::<(), String>(())
//! ```

use crate::disk_cache::{Fetched, RemoteStore};
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};
use std::sync::Arc;
use std::time::Duration;

/// A [`RemoteStore`] over any `object_store` backend.
pub struct ObjectStoreRemote {
    store: Arc<dyn ObjectStore>,
    prefix: ObjectPath,
    url: String,
    runtime: tokio::runtime::Runtime,
}

impl ObjectStoreRemote {
    /// The store a URL names, configured from the environment, with short timeouts and few retries.
    pub fn from_url(url: &str) -> Result<ObjectStoreRemote, String> {
        use object_store::{BackoffConfig, ClientConfigKey, RetryConfig};
        let parsed = url::Url::parse(url).map_err(|e| format!("`{url}` is not a URL: {e}"))?;
        let fail = |e: object_store::Error| format!("cannot use the remote cache `{url}`: {e}");
        // A cache that waits longer than a compile is worse than none.
        let retry = RetryConfig {
            max_retries: 2,
            retry_timeout: Duration::from_secs(5),
            backoff: BackoffConfig::default(),
        };
        // Set key by key: replacing the client options would drop what the environment configured
        // (`AWS_ALLOW_HTTP`, proxies). An unreachable store is found out by the connection's timeout; a request
        // carries a whole pack (75 MiB for `build --target all`), so it may take as long as a slow link needs.
        let timeouts = [
            (ClientConfigKey::ConnectTimeout, "2s"),
            (ClientConfigKey::Timeout, "120s"),
        ];
        let path = parsed.path().trim_matches('/');
        // The three cloud builders share these calls but no trait: one expansion per service.
        macro_rules! cloud {
            ($builder:ty, $key:path) => {
                Arc::new(
                    timeouts
                        .iter()
                        .fold(<$builder>::from_env().with_url(url), |b, (k, v)| {
                            b.with_config($key(*k), *v)
                        })
                        .with_retry(retry)
                        .build()
                        .map_err(fail)?,
                ) as Arc<dyn ObjectStore>
            };
        }
        let (store, prefix): (Arc<dyn ObjectStore>, &str) = match parsed.scheme() {
            "s3" | "s3a" => (
                cloud!(
                    object_store::aws::AmazonS3Builder,
                    object_store::aws::AmazonS3ConfigKey::Client
                ),
                path,
            ),
            "gs" => (
                cloud!(
                    object_store::gcp::GoogleCloudStorageBuilder,
                    object_store::gcp::GoogleConfigKey::Client
                ),
                path,
            ),
            "az" | "azure" | "abfs" | "abfss" | "adl" => (
                cloud!(
                    object_store::azure::MicrosoftAzureBuilder,
                    object_store::azure::AzureConfigKey::Client
                ),
                path,
            ),
            "file" => {
                let dir = parsed
                    .to_file_path()
                    .map_err(|_| format!("`{url}` is not a local path"))?;
                std::fs::create_dir_all(&dir)
                    .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
                (
                    Arc::new(
                        object_store::local::LocalFileSystem::new_with_prefix(&dir)
                            .map_err(fail)?,
                    ),
                    "",
                )
            }
            other => {
                return Err(format!(
                    "the remote cache `{url}` has scheme `{other}`; use s3://, gs://, az:// or file://"
                ));
            }
        };
        let prefix = ObjectPath::parse(prefix).map_err(|e| format!("`{url}`: {e}"))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the remote cache's runtime: {e}"))?;
        Ok(ObjectStoreRemote {
            store,
            prefix,
            url: url.trim_end_matches('/').to_string(),
            runtime,
        })
    }

    fn path(&self, name: &str) -> ObjectPath {
        name.split('/')
            .fold(self.prefix.clone(), |p, part| p.join(part))
    }

    fn block_on<T>(&self, f: impl std::future::Future<Output = T>) -> Result<T, String> {
        let deadline = Duration::from_secs(150);
        self.runtime
            .block_on(async { tokio::time::timeout(deadline, f).await })
            .map_err(|_| format!("no answer within {} s", deadline.as_secs()))
    }
}

impl RemoteStore for ObjectStoreRemote {
    fn get(&self, name: &str, max_bytes: u64) -> Result<Fetched, String> {
        let path = self.path(name);
        self.block_on(async {
            match self.store.get(&path).await {
                // The size is known before the body is read: a huge object costs no memory.
                Ok(r) if r.meta.size > max_bytes => Ok(Fetched::TooLarge(r.meta.size)),
                Ok(r) => r.bytes().await.map(|b| Fetched::Bytes(b.to_vec())),
                Err(object_store::Error::NotFound { .. }) => Ok(Fetched::Missing),
                Err(e) => Err(e),
            }
        })?
        .map_err(|e| e.to_string())
    }

    fn put(&self, name: &str, bytes: &[u8]) -> Result<(), String> {
        let path = self.path(name);
        let payload = PutPayload::from(bytes.to_vec());
        self.block_on(self.store.put(&path, payload))?
            .map(drop)
            .map_err(|e| e.to_string())
    }

    fn describe(&self) -> String {
        self.url.clone()
    }
}
