//! Running commands inside a container, streaming their output with its stream tag; uploads.

use super::{DockerError, Engine};
use crate::logs::Stream;
use bollard::exec::{CreateExecOptions, StartExecResults};
use bollard::query_parameters::{LogsOptionsBuilder, UploadToContainerOptionsBuilder};
use futures_util::{Stream as FutStream, StreamExt};

#[derive(Debug, Clone, PartialEq)]
pub struct ExecOutput {
    pub exit_code: Option<i64>,
}

/// An output chunk with its stream; `action` names what was being read, for an error.
fn tagged(
    action: &str,
    item: Result<bollard::container::LogOutput, bollard::errors::Error>,
) -> Result<(Stream, Vec<u8>), DockerError> {
    use bollard::container::LogOutput;
    match item.map_err(|e| DockerError::api(action, e))? {
        LogOutput::StdErr { message } => Ok((Stream::Stderr, message.to_vec())),
        LogOutput::StdOut { message } | LogOutput::Console { message } | LogOutput::StdIn { message } => {
            Ok((Stream::Stdout, message.to_vec()))
        }
    }
}

impl Engine {
    /// The container's output from its start, following, as (stream, bytes) chunks.
    pub fn follow_logs(
        &self,
        id: &str,
    ) -> impl FutStream<Item = Result<(Stream, Vec<u8>), DockerError>> + use<> {
        self.follow_logs_since(id, 0)
    }

    /// The container's output from `since` (unix seconds; 0: from its start), following.
    pub fn follow_logs_since(
        &self,
        id: &str,
        since: i64,
    ) -> impl FutStream<Item = Result<(Stream, Vec<u8>), DockerError>> + use<> {
        let options = LogsOptionsBuilder::default()
            .follow(true)
            .stdout(true)
            .stderr(true)
            .since(since.try_into().unwrap_or(0))
            .build();
        self.raw().logs(id, Some(options)).map(|item| tagged("container logs", item))
    }

    /// Run `cmd` in the container, handing each output chunk to `sink`; returns the exit code.
    pub async fn exec(
        &self,
        id: &str,
        cmd: Vec<String>,
        env: Vec<String>,
        mut sink: impl FnMut(Stream, &[u8]),
    ) -> Result<ExecOutput, DockerError> {
        let config = CreateExecOptions {
            cmd: Some(cmd),
            env: Some(env),
            attach_stdout: Some(true),
            attach_stderr: Some(true),
            ..Default::default()
        };
        let created =
            self.raw().create_exec(id, config).await.map_err(|e| DockerError::api("create exec", e))?;
        let started =
            self.raw().start_exec(&created.id, None).await.map_err(|e| DockerError::api("start exec", e))?;
        if let StartExecResults::Attached { mut output, .. } = started {
            while let Some(item) = output.next().await {
                let (stream, bytes) = tagged("exec output", item)?;
                sink(stream, &bytes);
            }
        }
        let inspected =
            self.raw().inspect_exec(&created.id).await.map_err(|e| DockerError::api("inspect exec", e))?;
        Ok(ExecOutput { exit_code: inspected.exit_code })
    }

    /// Unpack a tar archive at `path` in the container.
    pub async fn upload(&self, id: &str, path: &str, tar: Vec<u8>) -> Result<(), DockerError> {
        let options = UploadToContainerOptionsBuilder::default().path(path).build();
        self.raw()
            .upload_to_container(id, Some(options), bollard::body_full(tar.into()))
            .await
            .map_err(|e| DockerError::api(&format!("upload to {path}"), e))
    }
}
