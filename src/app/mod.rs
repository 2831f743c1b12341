//! MODEL + UPDATE: pure and synchronous. No I/O, no clock, no terminal; effects are returned as data.

mod action;
mod effect;
pub mod filter;
pub mod fixmenu;
pub mod gpu;
mod input;
pub mod logview;
mod msg;
pub mod rows;
pub mod runs;
mod sort;
mod state;
pub mod update;

pub use action::Action;
pub use effect::Effect;
pub use fixmenu::{FixMenu, FixOffer};
pub use input::{Key, KeyCode};
pub use logview::{LogKey, LogView};
pub use msg::Msg;
pub use runs::{DockerStatus, RunView};
pub use state::{AppState, Confirm, ConfirmAction, Level, Mode, Prompt, PromptPurpose, View};
pub use update::update;
