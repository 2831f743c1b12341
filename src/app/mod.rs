//! MODEL + UPDATE: pure and synchronous. No I/O, no clock, no terminal; effects are returned as data.

mod action;
pub mod commands;
mod effect;
pub mod filter;
mod input;
mod keymap;
mod msg;
pub mod rows;
mod sort;
mod state;
pub mod update;

pub use action::Action;
pub use effect::{Document, Effect, FixRequest};
pub use input::{Key, KeyCode};
pub use keymap::{KeyError, KeyMap, KeyMode};
pub use msg::{
    BuildMsg, CampaignPlan, DockerMsg, FixDone, FixMsg, GpuMsg, JobError, LogMsg, Msg, Pointed, Reread,
    RunMsg,
};
pub use state::*;
pub use update::update;
