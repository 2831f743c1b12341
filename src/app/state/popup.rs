//! Popups in front of the board: text prompts, the confirm dialog, the run chooser, the fix
//! menu, the bulk picker and help. A confirm holds the action it will hand back to `update`.

use super::fixmenu::FixMenu;
use crate::dataset::Variant;
use crate::ids::Short;

/// What a text prompt is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptPurpose {
    Filter,
    LogSearch,
    UnfixableReason,
    Note,
    /// The `:` command line.
    Command,
    /// Knobs for a baseline build: `max_jobs=8 nvcc_threads=1 timeout_s=7200 cuda_arch=8.0`.
    BuildKnobs,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub purpose: PromptPurpose,
    pub short: Short,
    pub text: String,
}

impl Prompt {
    pub fn new(purpose: PromptPurpose, short: &str, text: String) -> Prompt {
        Prompt { purpose, short: short.into(), text }
    }
}

/// What a confirm dialog does when the operator says yes; `update` dispatches it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfirmAction {
    MarkUnfixable {
        short: Short,
        reason: String,
    },
    StartRuns {
        short: Short,
        variants: Vec<Variant>,
        /// A `[[hosts]]` host chosen in the confirm (`o`); `None`: placed when each starts.
        host: Option<String>,
        /// Benchmark runs against one server start (`+` in the confirm).
        repeat: crate::runs::Repeat,
    },
    /// Stop a live run, fix or build, or ask a campaign's driver to stop one of its runs.
    Cancel(crate::app::JobKey),
    /// Pause, resume or cancel the workspace's campaign.
    Campaign {
        name: crate::ids::CampaignName,
        verb: crate::campaigns::Verb,
    },
    ApplyFix {
        short: Short,
        variant: Variant,
        recipe: String,
        commit_image: bool,
        /// Re-run the variant once the fix is verified (in the committed image, if one was made).
        rerun: bool,
    },
    RemoveImage {
        tag: String,
    },
    /// Build the commit's baseline image; `max_jobs` set when a failed build suggested one.
    StartBuild {
        short: Short,
        knobs: Box<crate::builds::KnobSet>,
    },
    BulkFix {
        targets: Vec<BulkTarget>,
        recipe: String,
        /// Above `BULK_SECOND_CONFIRM` variants a second confirm is asked; this is that one.
        again: bool,
    },
    /// Quit with runs still live: yes stops them first (their containers are removed); the
    /// leave key quits at once and they are re-attached at the next start.
    QuitStoppingRuns,
    /// Remove containers left behind by a perftriage that is gone.
    RemoveOrphans {
        ids: Vec<String>,
    },
    StartCampaign {
        shorts: Vec<Short>,
        name: crate::ids::CampaignName,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    pub title: String,
    /// Exactly what will happen, line by line.
    pub preview: Vec<String>,
    pub action: ConfirmAction,
    /// The focused button; Cancel is the default.
    pub yes_focused: bool,
    /// The first preview line shown, and the last first line that still fills the dialog (the
    /// view reports it once drawn, as `Msg::ConfirmLimit`).
    pub scroll: usize,
    pub scroll_limit: usize,
}

impl Confirm {
    pub fn new(title: String, preview: Vec<String>, action: ConfirmAction) -> Confirm {
        let scroll_limit = preview.len().saturating_sub(1);
        Confirm { title, preview, action, yes_focused: false, scroll: 0, scroll_limit }
    }
}

/// `m`: what can be done to one commit now, each action with its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionMenu {
    pub short: Short,
    pub items: Vec<crate::app::Action>,
    pub selected: usize,
}

/// A variant a bulk fix applies its recipe to, with the failure it answers there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkTarget {
    pub short: Short,
    pub variant: Variant,
    pub category: String,
}

/// Choosing the recipe to apply to several commits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkPicker {
    pub shorts: Vec<Short>,
    /// (id, title) of the recipes that answer their failures.
    pub recipes: Vec<(String, String)>,
    pub selected: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    Normal,
    Prompt(Prompt),
    Confirm(Confirm),
    /// Choosing which variants of this commit to run.
    Choose(Short),
    /// The chosen runs are being planned; their confirm comes next (keys typed meanwhile are
    /// not taken as board keys; Esc gives up).
    Planning(Short),
    Fix(FixMenu),
    BulkFix(BulkPicker),
    Help,
    /// The message log (`M`); it scrolls with the help overlay's keys.
    Messages,
    /// The runs view (`R`): every run of this session, the selected one by position, newest first.
    Runs(usize),
    /// The images view (`I`): our fixed images, the selected one by position.
    Images(usize),
    /// The campaign view (`O`): its progress by commit and variant; it scrolls with the help
    /// overlay's keys.
    Campaign,
    /// The action menu (`m`) of the selected commit.
    Actions(ActionMenu),
    /// The verdict plot (`v`): a forest plot of one pair over the commits the filter shows.
    Plot(PlotView),
}

/// The verdict plot's pair, its rows (taken when it opened or changed pair) and the selected one.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotView {
    pub pair: usize,
    pub rows: Vec<crate::report::ForestRow>,
    pub selected: usize,
}
