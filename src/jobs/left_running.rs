//! What became of a campaign's runs in flight once its driver is gone: each run's container,
//! found by its labels on the host its launch record names, asked for its state. It only reads.

use crate::config::HostConfig;
use crate::docker::Engine;
use crate::ids::RunId;
use std::collections::HashMap;
use std::path::Path;

/// Each run's container in a few words: `its container still runs`, `… exited (code 1)`,
/// `… is gone`, or why it could not be asked.
pub async fn container_words(
    workspace: &Path,
    hosts: &[HostConfig],
    runs: &[RunId],
) -> HashMap<RunId, String> {
    let mut words = HashMap::new();
    for run_id in runs {
        words.insert(run_id.clone(), word_of(workspace, hosts, run_id).await);
    }
    words
}

async fn word_of(workspace: &Path, hosts: &[HostConfig], run_id: &RunId) -> String {
    let Ok(launch) = super::launches::read(workspace, run_id) else {
        return "it had no launch record: no container was made".into();
    };
    let host = launch.host.as_deref();
    let engine = match host.and_then(|name| hosts.iter().find(|h| h.name == name)) {
        Some(config) => super::fleet::connect(config).await,
        None if host.is_none() => Engine::connect().await,
        None => return format!("its host {} is not in [[hosts]]", host.unwrap_or_default()),
    };
    let Ok(engine) = engine else { return format!("its host {} does not answer", host.unwrap_or("local")) };
    let Ok(ours) = engine.ours(&workspace.display().to_string()).await else {
        return "its engine could not list containers".into();
    };
    let label =
        |c: &&crate::docker::Ours| c.labels.get(crate::runs::LABEL_RUN).is_some_and(|r| r == run_id.as_str());
    let Some(container) = ours.iter().find(label) else { return "its container is gone".into() };
    match engine.state(&container.id).await {
        Ok((true, _)) => "its container still runs".into(),
        Ok((false, code)) => format!("its container exited (code {})", code.unwrap_or(-1)),
        Err(_) => "its container could not be inspected".into(),
    }
}
