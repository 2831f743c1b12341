//! What `update` asks the runtime to do.

use crate::triage::TriageBook;

#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    SaveTriage(TriageBook),
    Quit,
}
