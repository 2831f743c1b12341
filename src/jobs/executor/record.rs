//! The one rule for a run's result file, whoever ran it: a run that reached its container and
//! ended — measured, or failed for the commit's reasons or Docker's — writes one; a run
//! cancelled (by a person, a signal or its campaign) or stopped by this host's set-up (no plan,
//! no scripts, no room) writes none, because it says nothing about the commit. A run that was
//! never placed never gets here.

use crate::jobs::run::{RunOutcome, write_result};
use crate::logs::Redactor;
use crate::runs::FailureKind;
use std::path::{Path, PathBuf};

/// How a run's end was recorded.
#[derive(Debug)]
pub enum Recorded {
    /// Its result file.
    Written(PathBuf),
    /// No file, by the rule: the run's category says why.
    NotWritten(FailureKind),
}

/// Why a result file the rule asks for could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the result of run {run_id} into {}: {source}", workspace.display())]
pub struct RecordError {
    run_id: crate::ids::RunId,
    workspace: PathBuf,
    source: std::io::Error,
}

/// Whether a run ending as `category` (`None`: a success) writes a result file.
pub fn records_a_result(category: Option<&FailureKind>) -> bool {
    category.is_none_or(|kind| *kind != FailureKind::Cancelled && !kind.is_setup_error())
}

/// Record `outcome` under `workspace` by the rule, with the GPU use the model saw (`gpu`).
pub fn record(
    outcome: &RunOutcome,
    (workspace, redactor): (&Path, &Redactor),
    gpu: Option<&serde_json::Value>,
) -> Result<Recorded, RecordError> {
    if let Some(kind) = outcome.category.as_ref().filter(|k| !records_a_result(Some(k))) {
        return Ok(Recorded::NotWritten(kind.clone()));
    }
    let now = crate::session::now_rfc3339();
    match write_result(outcome, workspace, redactor, &now, gpu) {
        Ok(path) => Ok(Recorded::Written(path)),
        Err(source) => {
            let (run_id, workspace) = (outcome.plan.run_id.clone(), workspace.to_path_buf());
            Err(RecordError { run_id, workspace, source })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_that_ended_writes_a_result_and_a_cancelled_or_unset_up_one_does_not() {
        assert!(records_a_result(None), "a success");
        assert!(records_a_result(Some(&FailureKind::ServerCrash)), "the commit failed");
        assert!(records_a_result(Some(&FailureKind::DockerUnreachable)), "Docker went away mid-run");
        assert!(records_a_result(Some(&FailureKind::Timeout)));
        assert!(!records_a_result(Some(&FailureKind::Cancelled)));
        for kind in [FailureKind::PlanError, FailureKind::ScriptsMissing, FailureKind::NoRoom] {
            assert!(!records_a_result(Some(&kind)), "{kind} is this host's set-up");
        }
    }

    /// A result that cannot be written (here `results/` is a file; a full disk the same) says
    /// which file, not only `os error 28`.
    #[test]
    fn a_result_that_cannot_be_written_names_its_file() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(ws.path().join("results"), "").unwrap();
        let commits = crate::dataset::load_embedded().unwrap().commits;
        let (config, images) = (crate::runs::RunConfig::default(), crate::dataset::ImageTemplates::default());
        let variant = crate::dataset::Variant::Human;
        let plan =
            crate::runs::plan(&commits[0], variant, &config, &images, ws.path(), &"r1".into()).unwrap();
        let redactor = crate::logs::Redactor::process();
        let err = record(&RunOutcome::new(&plan), (ws.path(), redactor), None).unwrap_err().to_string();
        assert!(err.contains(&ws.path().join("results").display().to_string()), "{err}");
    }
}
