//! Our containers, created from a run plan's `ContainerSpec`: the server port published on an
//! ephemeral 127.0.0.1 port, GPUs on request, found again by their labels.

use super::{DockerError, Engine};
use crate::runs::{ContainerSpec, CreatedAs, GpuRequest, LABEL_WORKSPACE};
use bollard::models::{ContainerCreateBody, DeviceRequest, HostConfig, PortBinding};
use bollard::query_parameters::{
    CreateContainerOptionsBuilder, InspectContainerOptions, ListContainersOptionsBuilder,
    RemoveContainerOptionsBuilder,
};
use std::collections::HashMap;

/// One of our containers, as found on the daemon.
#[derive(Debug, Clone, PartialEq)]
pub struct Ours {
    pub id: String,
    pub name: String,
    pub labels: HashMap<String, String>,
    pub running: bool,
    /// When it was created (unix seconds).
    pub created: i64,
}

/// The GPUs a container asks for, as its label says them (`0`, `all`, a count).
fn gpus_label(gpus: &GpuRequest) -> String {
    match gpus {
        GpuRequest::None => "0".to_string(),
        GpuRequest::All => "all".to_string(),
        GpuRequest::Count(n) => n.to_string(),
    }
}

impl Engine {
    /// Create and start; on a failed start the container is removed again.
    pub async fn start(&self, spec: &ContainerSpec) -> Result<String, DockerError> {
        let mut host = HostConfig {
            shm_size: Some(spec.shm_bytes),
            binds: (!spec.binds.is_empty()).then(|| spec.binds.clone()),
            memory: spec.memory_bytes,
            memory_swap: spec.memory_bytes,
            ..Default::default()
        };
        let mut exposed = None;
        if let Some(port) = spec.publish {
            let key = format!("{port}/tcp");
            let binding = PortBinding { host_ip: Some("127.0.0.1".into()), host_port: Some(String::new()) };
            host.port_bindings = Some(HashMap::from([(key.clone(), Some(vec![binding]))]));
            exposed = Some(vec![key]);
        }
        host.device_requests = match spec.gpus {
            GpuRequest::None => None,
            GpuRequest::All => Some(vec![gpu_request(-1)]),
            GpuRequest::Count(n) => Some(vec![gpu_request(i64::from(n))]),
        };
        // The first word is the entrypoint, so an image's own ENTRYPOINT (vLLM images have one) never wraps ours.
        let (entrypoint, cmd) = match spec.cmd.split_first() {
            Some((first, rest)) => (Some(vec![first.clone()]), Some(rest.to_vec())),
            None => (None, None),
        };
        let mut labels = spec.labels.clone();
        labels.insert(crate::runs::LABEL_GPUS.to_string(), gpus_label(&spec.gpus));
        let body = ContainerCreateBody {
            image: Some(spec.image.to_string()),
            entrypoint,
            cmd,
            env: Some(spec.env.clone()),
            labels: Some(labels),
            exposed_ports: exposed,
            host_config: Some(host),
            ..Default::default()
        };
        let options = CreateContainerOptionsBuilder::default().name(&spec.name).build();
        let created = self.raw().create_container(Some(options), body).await.map_err(|e| {
            match DockerError::api("create container", e) {
                DockerError::NotFound { message, .. } => {
                    DockerError::ImageMissing { image: spec.image.clone(), message }
                }
                other => other,
            }
        })?;
        if let Err(e) = self.raw().start_container(&created.id, None).await {
            let _ = self.remove(&created.id).await;
            return Err(DockerError::api("start container", e));
        }
        Ok(created.id)
    }

    /// Docker's inspect of a container.
    async fn inspected(&self, id: &str) -> Result<bollard::models::ContainerInspectResponse, DockerError> {
        let inspected = self.raw().inspect_container(id, None::<InspectContainerOptions>).await;
        inspected.map_err(|e| DockerError::api("inspect container", e))
    }

    /// The 127.0.0.1 port the daemon published for `port/tcp`.
    pub async fn published_port(&self, id: &str, port: u16) -> Result<Option<u16>, DockerError> {
        let info = self.inspected(id).await?;
        let ports = info.network_settings.and_then(|n| n.ports).unwrap_or_default();
        Ok(ports
            .get(&format!("{port}/tcp"))
            .and_then(|b| b.as_ref())
            .and_then(|b| b.iter().find_map(|p| p.host_port.as_ref()?.parse().ok())))
    }

    /// Whether the container is running, and its exit code once it is not.
    pub async fn state(&self, id: &str) -> Result<(bool, Option<i64>), DockerError> {
        let info = self.inspected(id).await?;
        let state = info.state.unwrap_or_default();
        Ok((state.running.unwrap_or(false), state.exit_code))
    }

    /// What the container was created as: its name, image and labels (Docker's inspect).
    pub async fn created_as(&self, id: &str) -> Result<CreatedAs, DockerError> {
        let info = self.inspected(id).await?;
        let config = info.config.unwrap_or_default();
        Ok(CreatedAs {
            name: info.name.unwrap_or_default().trim_start_matches('/').to_string(),
            image: config.image.unwrap_or_default(),
            labels: config.labels.unwrap_or_default(),
        })
    }

    /// Bytes the container wrote over its image (what a commit adds); 0 when unknown.
    pub async fn diff_bytes(&self, id: &str) -> u64 {
        let options = bollard::query_parameters::InspectContainerOptionsBuilder::default().size(true).build();
        let inspected = self.raw().inspect_container(id, Some(options)).await.ok();
        inspected.and_then(|c| c.size_rw).and_then(|s| u64::try_from(s).ok()).unwrap_or(0)
    }

    /// Stop and remove, whatever state it is in; a container already gone is fine.
    pub async fn remove(&self, id: &str) -> Result<(), DockerError> {
        self.remove_found(id).await.map(|_| ())
    }

    /// Remove a container, saying whether there was one to remove.
    pub async fn remove_found(&self, id: &str) -> Result<bool, DockerError> {
        let options = RemoveContainerOptionsBuilder::default().force(true).build();
        match self.raw().remove_container(id, Some(options)).await {
            Ok(()) => Ok(true),
            Err(e) => match DockerError::api("remove container", e) {
                DockerError::NotFound { .. } => Ok(false),
                other => Err(other),
            },
        }
    }

    /// Whether a container of this name or id is there (running or not).
    pub async fn exists(&self, name: &str) -> bool {
        self.raw().inspect_container(name, None).await.is_ok()
    }

    /// Our containers for this workspace, running or not.
    pub async fn ours(&self, workspace: &str) -> Result<Vec<Ours>, DockerError> {
        let filters = HashMap::from([("label".to_string(), vec![format!("{LABEL_WORKSPACE}={workspace}")])]);
        let options = ListContainersOptionsBuilder::default().all(true).filters(&filters).build();
        let list = self
            .raw()
            .list_containers(Some(options))
            .await
            .map_err(|e| DockerError::api("list containers", e))?;
        Ok(list
            .into_iter()
            .map(|c| Ours {
                id: c.id.unwrap_or_default(),
                name: c
                    .names
                    .and_then(|n| n.first().cloned())
                    .unwrap_or_default()
                    .trim_start_matches('/')
                    .to_string(),
                labels: c.labels.unwrap_or_default(),
                running: c.state.map(|s| s.to_string() == "running").unwrap_or(false),
                created: c.created.unwrap_or(0),
            })
            .collect())
    }
}

fn gpu_request(count: i64) -> DeviceRequest {
    DeviceRequest {
        driver: Some("nvidia".into()),
        count: Some(count),
        capabilities: Some(vec![vec!["gpu".into()]]),
        ..Default::default()
    }
}
