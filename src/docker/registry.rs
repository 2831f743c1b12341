//! Pushing fixed images to a registry and pulling them back by digest, with the login the config
//! names or, by default, the docker CLI's `config.json` login for the registry's host.

use super::{DockerError, Engine, PullEvent};
use base64::Engine as _;
use bollard::auth::DockerCredentials;
use bollard::query_parameters::PushImageOptionsBuilder;
use futures_util::StreamExt;

/// No `[registry] url` in the config.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no registry: set [registry] url = \"host:port\" in the config")]
pub struct NoRegistry;

/// Where `local` goes in the configured registry (`host/name:tag`) and the login to use; the
/// password is read from the environment variable the config names.
pub fn target(
    config: &crate::config::RegistryConfig,
    local: &str,
) -> Result<(String, Option<DockerCredentials>), NoRegistry> {
    let Some(host) = config.url.as_deref() else { return Err(NoRegistry) };
    let password = config.password_env.as_deref().and_then(|name| std::env::var(name).ok());
    let login = login_for(host, config.username.as_deref(), password);
    Ok((format!("{host}/{}", local.rsplit('/').next().unwrap_or(local)), login))
}

/// The login for `host`: the given user and password, else the docker CLI's saved one.
pub fn login_for(host: &str, user: Option<&str>, password: Option<String>) -> Option<DockerCredentials> {
    match (user, password) {
        (Some(user), Some(password)) => Some(credentials(host, user, &password)),
        _ => cli_login(host),
    }
}

fn credentials(host: &str, user: &str, password: &str) -> DockerCredentials {
    DockerCredentials {
        username: Some(user.into()),
        password: Some(password.into()),
        serveraddress: Some(host.into()),
        ..Default::default()
    }
}

/// `auths.<host>.auth` (base64 `user:password`) of `$DOCKER_CONFIG/config.json` or
/// `~/.docker/config.json`.
fn cli_login(host: &str) -> Option<DockerCredentials> {
    let dir = std::env::var_os("DOCKER_CONFIG")
        .map(std::path::PathBuf::from)
        .or_else(|| directories::BaseDirs::new().map(|b| b.home_dir().join(".docker")))?;
    let text = std::fs::read_to_string(dir.join("config.json")).ok()?;
    login_in(&text, host)
}

/// The login for `host` in a docker CLI `config.json` text.
pub fn login_in(config_json: &str, host: &str) -> Option<DockerCredentials> {
    let config: serde_json::Value = serde_json::from_str(config_json).ok()?;
    let encoded = config["auths"][host]["auth"].as_str()?;
    let decoded = base64::engine::general_purpose::STANDARD.decode(encoded).ok()?;
    let (user, password) = std::str::from_utf8(&decoded).ok()?.split_once(':')?;
    Some(credentials(host, user, password))
}

/// A progress callback that calls `say` once each time another layer is done.
pub fn on_layer(mut say: impl FnMut(usize)) -> impl FnMut(&PullEvent) {
    let mut said = usize::MAX;
    move |e: &PullEvent| {
        if e.layers_done != said {
            said = e.layers_done;
            say(said);
        }
    }
}

/// `host/repo@sha256:…` from the push's closing line (`tag: digest: sha256:… size: N`).
fn pushed_digest(status: &str) -> Option<&str> {
    let rest = &status[status.find("digest: ")? + "digest: ".len()..];
    rest.split_whitespace().next().filter(|d| d.starts_with("sha256:"))
}

impl Engine {
    /// Tag `local` as `remote` (`host/repo:tag`) and push it, reporting progress; the pushed
    /// image's reference by digest (`host/repo@sha256:…`).
    pub async fn push(
        &self,
        local: &str,
        remote: &str,
        login: Option<DockerCredentials>,
        mut progress: impl FnMut(&PullEvent),
    ) -> Result<String, DockerError> {
        self.tag(local, remote).await?;
        let (repo, tag) = remote.rsplit_once(':').unwrap_or((remote, "latest"));
        let options = PushImageOptionsBuilder::default().tag(tag).build();
        let mut stream = self.raw().push_image(repo, Some(options), login);
        let (mut event, mut digest) = (PullEvent::default(), None);
        while let Some(item) = stream.next().await {
            let info = item.map_err(|e| DockerError::api(&format!("push {remote}"), e))?;
            if let Some(message) = info.error_detail.and_then(|d| d.message) {
                return Err(DockerError::Api { action: format!("push {remote}"), message });
            }
            let status = info.status.unwrap_or_default();
            digest = digest.or_else(|| pushed_digest(&status).map(str::to_string));
            // The push stream names no layer: count the finished ones, show the current one's bytes.
            event.layers_done += usize::from(super::image::LAYER_DONE.contains(&status.as_str()));
            let detail = info.progress_detail.unwrap_or_default();
            (event.current, event.total) = (detail.current.unwrap_or(0), detail.total.unwrap_or(0));
            event.status = status;
            progress(&event);
        }
        let digest = digest.ok_or_else(|| DockerError::Api {
            action: format!("push {remote}"),
            message: "the registry did not say the pushed digest".into(),
        })?;
        Ok(format!("{repo}@{digest}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cli_login_is_read_for_its_host_only() {
        let json = r#"{"auths": {"127.0.0.1:5000": {"auth": "dXNlcjpzM2NyZXQ6eA=="}}}"#;
        let login = login_in(json, "127.0.0.1:5000").unwrap();
        assert_eq!((login.username.as_deref(), login.password.as_deref()), (Some("user"), Some("s3cret:x")));
        assert!(login_in(json, "ghcr.io").is_none());
        assert!(login_in("not json", "127.0.0.1:5000").is_none());
    }

    #[test]
    fn the_digest_is_read_from_the_closing_status() {
        let status = format!("latest: digest: sha256:{} size: 527", "a".repeat(64));
        assert_eq!(pushed_digest(&status), Some(format!("sha256:{}", "a".repeat(64)).as_str()));
        assert_eq!(pushed_digest("Pushed"), None);
    }
}
