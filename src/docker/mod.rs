//! The Docker adapter (bollard): connecting like the docker CLI, containers, exec, uploads,
//! images. Depends on the domain only; reports through return values, never touches the UI.

use crate::ids::ImageRef;

mod archive;
mod container;
mod disk;
pub mod endpoint;
mod exec;
mod host_probe;
mod image;
pub mod registry;
mod stats;

pub use archive::tar_of;
pub use container::Ours;
pub use disk::Room;
pub use exec::ExecOutput;
pub use host_probe::{Gpus, HostProbe};
pub use image::{PullEvent, RepoFilter, TaggedImage};

use bollard::Docker;

#[derive(Debug, thiserror::Error)]
pub enum DockerError {
    #[error("Docker unreachable: {0}")]
    Unreachable(String),
    #[error("image {image} not found: {message}")]
    ImageMissing { image: ImageRef, message: String },
    #[error("pulling {image} failed, the registry may answer later: {message}")]
    PullFailed { image: ImageRef, message: String },
    #[error(
        "the daemon cannot give this container GPUs ({0}); install the NVIDIA Container Toolkit, or set gpus = \"none\" in the config"
    )]
    NoGpuRuntime(String),
    #[error("{action}: not found: {message}")]
    NotFound { action: String, message: String },
    #[error("{action}: {message}")]
    Api { action: String, message: String },
    #[error(
        "not enough disk for {what}: it needs about {needed}, the Docker data root {root} has {free} free (the images view, I then d, removes fixed images; [runs] pull_estimate_gb and disk_reserve_gb set the estimates)"
    )]
    NoRoom { what: String, needed: String, free: String, root: String },
}

impl DockerError {
    /// By the daemon's status code (bollard carries it), not by words in the message: 404 is
    /// "not found"; a 500 saying it could not select a device driver means no GPU runtime;
    /// a broken connection means the daemon is unreachable.
    fn api(action: &str, e: bollard::errors::Error) -> DockerError {
        use bollard::errors::Error as E;
        let action = action.to_string();
        match e {
            E::DockerResponseServerError { status_code: 404, message } => {
                DockerError::NotFound { action, message }
            }
            E::DockerResponseServerError { status_code: 500, message } if message.starts_with(NO_DRIVER) => {
                DockerError::NoGpuRuntime(message)
            }
            E::DockerResponseServerError { status_code, message } => {
                DockerError::Api { action, message: format!("{message} (status {status_code})") }
            }
            e @ (E::IOError { .. }
            | E::HyperResponseError { .. }
            | E::HyperLegacyError { .. }
            | E::SocketNotFoundError(_)
            | E::RequestTimeoutError) => DockerError::Unreachable(format!("{action}: {e}")),
            e => DockerError::Api { action, message: e.to_string() },
        }
    }
}

/// How the daemon starts its answer when no runtime gives a container the GPUs it asks for.
const NO_DRIVER: &str = "could not select device driver";

/// A connected engine.
#[derive(Debug, Clone)]
pub struct Engine {
    docker: Docker,
    /// `engine 20.10.24, API 1.41`
    pub description: String,
    /// The endpoint it was reached at (`None`: the docker CLI's defaults, `DOCKER_HOST`).
    origin: Option<endpoint::Endpoint>,
}

impl Engine {
    /// Connect the way the docker CLI does: `DOCKER_HOST` (unix, tcp, https with `DOCKER_CERT_PATH`/
    /// `DOCKER_TLS_VERIFY`, ssh), else the default socket; then agree on an API version.
    pub async fn connect() -> Result<Engine, DockerError> {
        let docker = Docker::connect_with_defaults().map_err(|e| DockerError::Unreachable(e.to_string()))?;
        Engine::agree(docker).await
    }

    /// Agree on an API version with a connected client and say which engine it is.
    async fn agree(docker: Docker) -> Result<Engine, DockerError> {
        let docker = docker.negotiate_version().await.map_err(|e| DockerError::Unreachable(e.to_string()))?;
        let version = docker.version().await.map_err(|e| DockerError::Unreachable(e.to_string()))?;
        let description = format!(
            "engine {}, API {}",
            version.version.as_deref().unwrap_or("?"),
            version.api_version.as_deref().unwrap_or("?")
        );
        Ok(Engine { docker, description, origin: None })
    }

    /// Connect again to the same engine (after a dropped connection).
    pub async fn reconnect(&self) -> Result<Engine, DockerError> {
        match &self.origin {
            Some(endpoint) => Engine::connect_to(endpoint).await,
            None => Engine::connect().await,
        }
    }

    /// Whether the daemon is on this machine, so that its data root and the ports it publishes (on
    /// its own 127.0.0.1) are this machine's too. Without a `[[hosts]]` endpoint, `DOCKER_HOST` says.
    pub fn is_on_this_machine(&self) -> bool {
        match &self.origin {
            Some(endpoint) => endpoint.is_on_this_machine(),
            None => endpoint::Endpoint::from_docker_host().is_ok_and(|e| e.is_on_this_machine()),
        }
    }

    pub fn raw(&self) -> &Docker {
        &self.docker
    }
}
