//! What a host has: its engine, whether it has the NVIDIA runtime, and its GPUs as `nvidia-smi`
//! lists them in a short-lived container that asks for all of them. A daemon that cannot give a
//! container GPUs answers "none"; that is a normal answer, not an error.

use super::{DockerError, Engine};
use crate::runs::{ContainerSpec, GpuRequest};
use std::collections::HashMap;

/// The local sampler's query, so a host's answer reads as a sample does.
fn query() -> Vec<String> {
    let fields = format!("--query-gpu={}", crate::telemetry::SMI_GPU_QUERY);
    vec!["nvidia-smi".into(), fields, "--format=csv,noheader,nounits".into()]
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "state", content = "detail")]
pub enum Gpus {
    /// One `nvidia-smi` CSV line each (`SMI_GPU_QUERY`'s fields).
    Found(Vec<String>),
    /// Why there are none (no runtime, no device): a normal answer.
    None(String),
    /// Not probed, and why.
    Unknown(String),
}

impl Gpus {
    /// How many: the lines found, 0 for none, `None` when unknown.
    pub fn count(&self) -> Option<usize> {
        match self {
            Gpus::Found(lines) => Some(lines.len()),
            Gpus::None(_) => Some(0),
            Gpus::Unknown(_) => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HostProbe {
    pub engine: String,
    pub nvidia_runtime: bool,
    pub gpus: Gpus,
}

/// Why `nvidia-smi` in the probe container told nothing.
#[derive(Debug, thiserror::Error)]
enum ProbeError {
    #[error("nvidia-smi exited {code:?}: {said}")]
    Exited { code: Option<i64>, said: String },
    #[error(transparent)]
    Docker(#[from] DockerError),
}

impl Engine {
    /// Probe this host's GPUs; `image`: one present there to run `nvidia-smi` in.
    pub async fn probe_host(&self, image: Option<&str>) -> HostProbe {
        let info = self.raw().info().await.ok();
        let nvidia_runtime = info.and_then(|i| i.runtimes).is_some_and(|r| r.contains_key("nvidia"));
        let gpus = match image {
            Some(image) => self.gpus_in(image).await,
            None if !nvidia_runtime => Gpus::None("no NVIDIA runtime on this daemon".into()),
            None => Gpus::Unknown("set probe_image for this host to count its GPUs".into()),
        };
        HostProbe { engine: self.description.clone(), nvidia_runtime, gpus }
    }

    async fn gpus_in(&self, image: &str) -> Gpus {
        let spec = ContainerSpec {
            name: format!("perftriage-gpu-probe-{}", std::process::id()),
            image: image.into(),
            cmd: query(),
            env: Vec::new(),
            labels: HashMap::new(),
            publish: None,
            gpus: GpuRequest::All,
            shm_bytes: 64 << 20,
            binds: Vec::new(),
            memory_bytes: None,
        };
        let id = match self.start(&spec).await {
            Ok(id) => id,
            Err(DockerError::NoGpuRuntime(why)) => return Gpus::None(why),
            Err(e) => return Gpus::Unknown(e.to_string()),
        };
        let output = self.output_of(&id).await;
        let _ = self.remove(&id).await;
        match output {
            Ok(text) => {
                Gpus::Found(text.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect())
            }
            Err(why) => Gpus::None(why.to_string()),
        }
    }

    /// A container's whole output once it exits; its exit code in the error when not 0.
    async fn output_of(&self, id: &str) -> Result<String, ProbeError> {
        use futures_util::StreamExt;
        let mut out = Vec::new();
        let mut logs = Box::pin(self.follow_logs(id));
        while let Some(Ok((_, bytes))) = logs.next().await {
            out.extend_from_slice(&bytes);
        }
        let text = String::from_utf8_lossy(&out).into_owned();
        match self.state(id).await {
            Ok((_, Some(0))) => Ok(text),
            Ok((_, code)) => Err(ProbeError::Exited { code, said: text.trim().to_string() }),
            Err(e) => Err(ProbeError::Docker(e)),
        }
    }
}
