//! A campaign's journal on disk: each event appended as one line and synced before the step it
//! announces is taken; read back whole. The events' shape is `campaigns::Event`'s.

use crate::campaigns::{CampaignSpec, CampaignState, Event, JournalError, Parsed, parse, to_line};
use crate::ids::CampaignName;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum CampaignFileError {
    #[error("no campaign `{name}` in {}", path.display())]
    Missing { name: CampaignName, path: PathBuf },
    #[error("a campaign `{name}` already exists ({}): resume it, or choose another --name", path.display())]
    Exists { name: CampaignName, path: PathBuf },
    #[error("cannot read or write {}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: {source}", path.display())]
    Journal { path: PathBuf, source: JournalError },
    #[error(transparent)]
    Unusable(crate::files::RegularError),
}

/// A journal of 288 runs is ~300 KB; this is a thousand times that.
const MAX_JOURNAL: u64 = 256 * 1024 * 1024;

/// The workspace's campaign whose journal was written last.
pub fn newest(workspace: &Path) -> Option<CampaignName> {
    all(workspace).into_iter().next()
}

/// Every campaign of the workspace with a journal, the one written last first.
pub fn all(workspace: &Path) -> Vec<CampaignName> {
    let Ok(dirs) = std::fs::read_dir(workspace.join("campaigns")) else { return Vec::new() };
    let mut journals: Vec<_> = dirs
        .flatten()
        .filter_map(|d| {
            let modified = d.path().join("journal.jsonl").metadata().and_then(|m| m.modified()).ok()?;
            let name = CampaignName::from(d.file_name().to_string_lossy().into_owned());
            name.is_plain().then_some((modified, name))
        })
        .collect();
    journals.sort_by(|a, b| b.cmp(a));
    journals.into_iter().map(|(_, name)| name).collect()
}

/// How `name` stands as the board shows it, its driver's liveness with it (`perftriage` is
/// this process's command, flags and all, that a resume is printed with).
pub fn snapshot(
    workspace: &Path,
    name: &CampaignName,
    events: &[Event],
    perftriage: &str,
) -> Option<crate::campaigns::Snapshot> {
    let snapshot = crate::campaigns::CampaignState::fold(events)?.snapshot();
    let placed = |run_id: &crate::ids::RunId| {
        let launch = super::launches::read(workspace, run_id).ok()?;
        Some(crate::campaigns::Placed { image: launch.plan.image, host: launch.host })
    };
    Some(snapshot.with_placed(placed).with_liveness(super::driver::liveness(workspace, name), perftriage))
}

/// Where a campaign's journal is, and appending to it.
#[derive(Debug, Clone)]
pub struct Journal {
    pub name: CampaignName,
    pub path: PathBuf,
}

impl Journal {
    pub fn of(workspace: &Path, name: &CampaignName) -> Journal {
        Journal { name: name.clone(), path: CampaignSpec::journal_path(workspace, name) }
    }

    /// A new journal holding its `started` event; refused when one by that name exists.
    pub fn create(
        workspace: &Path,
        started: &Event,
        name: &CampaignName,
    ) -> Result<Journal, CampaignFileError> {
        let journal = Journal::of(workspace, name);
        if journal.path.exists() {
            return Err(CampaignFileError::Exists { name: name.clone(), path: journal.path });
        }
        journal.append(started)?;
        Ok(journal)
    }

    /// Append one event, synced to disk before this returns.
    pub fn append(&self, event: &Event) -> Result<(), CampaignFileError> {
        let io = |source| CampaignFileError::Io { path: self.path.clone(), source };
        let mut file = crate::files::append(&self.path).map_err(io)?;
        file.write_all(to_line(event).as_bytes()).map_err(io)?;
        file.sync_data().map_err(io)
    }

    /// The journal's events; it is opened only as a regular file (no symlink followed out, no
    /// FIFO waited on) and read up to `MAX_JOURNAL` bytes.
    pub fn read(&self) -> Result<Parsed, CampaignFileError> {
        let bytes = crate::files::read_regular(&self.path, MAX_JOURNAL).map_err(|e| match e {
            e if e.is_missing() => {
                CampaignFileError::Missing { name: self.name.clone(), path: self.path.clone() }
            }
            other => CampaignFileError::Unusable(other),
        })?;
        parse(&bytes).map_err(|source| CampaignFileError::Journal { path: self.path.clone(), source })
    }

    /// Read it for going on (its driver alone calls this): a last line a crash cut short is cut
    /// off the file (said by `torn_tail`), a whole one without its newline given one, so the next
    /// event starts a line of its own.
    pub fn repaired(&self) -> Result<Parsed, CampaignFileError> {
        let parsed = self.read()?;
        let io = |source| CampaignFileError::Io { path: self.path.clone(), source };
        if parsed.torn_tail {
            let text = std::fs::read(&self.path).map_err(io)?;
            let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let file = std::fs::OpenOptions::new().write(true).open(&self.path).map_err(io)?;
            file.set_len(keep as u64).map_err(io)?;
            file.sync_data().map_err(io)?;
        } else if parsed.unterminated {
            let mut file = crate::files::append(&self.path).map_err(io)?;
            file.write_all(b"\n").and_then(|()| file.sync_data()).map_err(io)?;
        }
        Ok(parsed)
    }

    /// The campaign as its journal says it stands.
    pub fn state(&self) -> Result<CampaignState, CampaignFileError> {
        self.fold(&self.read()?)
    }

    /// The campaign as these events, read from it, say it stands.
    pub fn fold(&self, parsed: &Parsed) -> Result<CampaignState, CampaignFileError> {
        let no_start =
            || CampaignFileError::Journal { path: self.path.clone(), source: JournalError::NoStart };
        CampaignState::fold(&parsed.events).ok_or_else(no_start)
    }
}
