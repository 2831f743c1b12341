//! `campaign list [--json]`: every campaign of the workspace, newest first — its state, when it
//! started and ended, its cells measured and left failed, and its commits usable 3-way before and
//! now.

use crate::campaigns::{CampaignState, Liveness};
use crate::ids::CampaignName;
use crate::jobs::journal::Journal;
use crate::session::Context;
use anyhow::Result;
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;

pub fn list(ctx: &Context, as_json: bool) -> Result<ExitCode> {
    let mut rows: Vec<serde_json::Value> =
        crate::jobs::journal::all(&ctx.workspace).iter().map(|name| row(ctx, name)).collect();
    rows.sort_by(|a, b| b["started"].as_str().cmp(&a["started"].as_str()));
    let mut out = crate::cli::out::stdout();
    for row in &rows {
        match as_json {
            true => writeln!(out, "{}", crate::cli::out::json(row)?)?,
            false => writeln!(out, "{}", text(row))?,
        }
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// One campaign's line, or why its journal cannot be read.
fn row(ctx: &Context, name: &CampaignName) -> serde_json::Value {
    let state = match Journal::of(&ctx.workspace, name).state() {
        Ok(state) => state,
        Err(why) => return json!({ "name": name, "state": "unreadable", "why": why.to_string() }),
    };
    let p = state.progress();
    let outcome = crate::campaigns::outcome(&state, |short| super::usable(ctx, short));
    json!({
        "name": name,
        "state": state_word(&state, &crate::jobs::driver::liveness(&ctx.workspace, name)),
        "started": state.started_at,
        "ended": state.ended_at(),
        "cells": p.total, "ok": p.ok, "failed": p.failed,
        "usable_before": outcome.usable_before, "usable_now": outcome.usable_now,
    })
}

/// `running`, `paused`, `cancelled`, `ended`, or `stopped` (its driver gone before its end).
fn state_word(state: &CampaignState, liveness: &Liveness) -> &'static str {
    match () {
        _ if state.cancelled => "cancelled",
        _ if state.has_ended() => "ended",
        _ if state.paused => "paused",
        _ if liveness.is_driving() => "running",
        _ => "stopped",
    }
}

/// `nightly  ended  2026-11-28T01:00:00Z → 2026-11-28T05:12:40Z  21 cells ✓18 ✗3  usable 4 → 6`.
fn text(row: &serde_json::Value) -> String {
    if row["state"] == "unreadable" {
        return format!(
            "{}  unreadable: {}",
            row["name"].as_str().unwrap_or_default(),
            row["why"].as_str().unwrap_or_default()
        );
    }
    let word = |k: &str| row[k].as_str().map_or_else(|| "…".to_string(), str::to_string);
    let number = |k: &str| row[k].as_u64().map_or_else(|| "?".to_string(), |n| n.to_string());
    format!(
        "{}  {}  {} → {}  {} cells ✓{} ✗{}  usable {} → {}",
        word("name"),
        word("state"),
        word("started"),
        word("ended"),
        number("cells"),
        number("ok"),
        number("failed"),
        number("usable_before"),
        number("usable_now")
    )
}
