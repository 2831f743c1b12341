//! The GPU pane's keys and samples: attribution to our runs happens here, on arrival.

use crate::app::{Action, AppState, Effect, GpuMsg, Level};
use crate::telemetry::FLOOR_MS;

pub fn act(state: &mut AppState, action: Action) -> Vec<Effect> {
    let gpu = &mut state.gpu;
    match action {
        Action::GpuPane => gpu.visible = !gpu.visible,
        Action::GpuWindow => gpu.window = gpu.window.next(),
        Action::GpuHost => {
            gpu.visible = true;
            gpu.host = next_host(&gpu.hosts, gpu.host.as_deref());
        }
        Action::GpuFaster | Action::GpuSlower => {
            let ms = gpu.interval_ms;
            let next =
                if action == Action::GpuFaster { (ms / 2).max(FLOOR_MS) } else { (ms * 2).min(60_000) };
            gpu.interval_ms = next;
            state.notify(Level::Info, format!("GPU sampling every {next} ms"));
            return vec![Effect::GpuInterval(next)];
        }
        _ => {}
    }
    Vec::new()
}

pub fn message(state: &mut AppState, msg: GpuMsg) -> Vec<Effect> {
    match msg {
        GpuMsg::Sample { source, sample } => {
            state.gpu.unavailable = None;
            state.gpu.record(sample, source, state.session.ticks);
            state.refresh_live_cells();
        }
        GpuMsg::Unavailable(why) => state.gpu.unavailable = Some(why),
    }
    Vec::new()
}

/// This machine, then each `[[hosts]]` host, then this machine again.
fn next_host(hosts: &[(String, crate::telemetry::HostGpus)], now: Option<&str>) -> Option<String> {
    let at = now.and_then(|h| hosts.iter().position(|(name, _)| name == h));
    let next = match at {
        None if now.is_none() => hosts.first(),
        None => None,
        Some(i) => hosts.get(i + 1),
    };
    next.map(|(name, _)| name.clone())
}
