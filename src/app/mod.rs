//! MODEL + UPDATE: pure and synchronous. No I/O, no clock, no terminal; effects are returned as data.

mod action;
pub mod commands;
mod effect;
pub mod filter;
mod input;
mod job;
mod keymap;
mod msg;
pub mod rows;
mod sort;
mod state;
pub mod update;

pub use action::Action;
pub use effect::{Document, Effect, FixRequest};
pub use input::{Key, KeyCode};
pub use job::{
    BuildEnd, BuildStatus, End, FixDone, FixEnd, Found, JobError, JobKey, JobMsg, NotConnected, Planned,
    Progress, Reread,
};
pub use keymap::{KeyError, KeyMap, KeyMode};
pub use msg::{CampaignPlan, DockerMsg, GpuMsg, LogMsg, Msg, Pointed};
pub use state::*;
pub use update::update;
