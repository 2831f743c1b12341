//! Row ordering for each column; ties fall back to the commit hash so the order is stable.

use super::rows::{Cell, Column, Row};
use std::cmp::Ordering;

pub fn compare(a: &Row, b: &Row, column: Column) -> Ordering {
    let primary = match column {
        Column::Commit => Ordering::Equal,
        Column::Subject => a.subject.cmp(&b.subject),
        Column::Model => a.model.cmp(&b.model),
        Column::Kind => a.kind.name().cmp(b.kind.name()),
        Column::Gpus => a.gpus.cmp(&b.gpus),
        Column::Baseline => cell(&a.cells[0], &b.cells[0]),
        Column::Human => cell(&a.cells[1], &b.cells[1]),
        Column::Agent => cell(&a.cells[2], &b.cells[2]),
        Column::AgentName => a.agent.cmp(&b.agent),
        Column::Category => a.category.cmp(&b.category),
        Column::Mark => a.mark_text.cmp(&b.mark_text),
        Column::Host => a.host.cmp(&b.host),
        Column::Delta => a.delta.partial_cmp(&b.delta).unwrap_or(Ordering::Equal),
    };
    primary.then_with(|| a.short.cmp(&b.short))
}

fn cell(a: &Cell, b: &Cell) -> Ordering {
    a.status.cmp(&b.status).then_with(|| match (a.value, b.value) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (x, y) => x.is_some().cmp(&y.is_some()).reverse(),
    })
}
