//! The GPU pane: per GPU a gauge line (utilisation, memory, temperature, power, clocks) and a
//! utilisation sparkline over the chosen window; then the GPU processes with their owners.

use crate::app::AppState;
use crate::app::Window;
use crate::telemetry::{GpuInfo, GpuProcess, HostGpus};
use crate::ui::Theme;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Sparkline};

/// Rows the pane wants: a border, two per GPU, the processes (at most four), or one line without a
/// GPU; for a `[[hosts]]` host, one per GPU and one per run of ours there (at most four).
pub fn height(state: &AppState) -> u16 {
    if let Some(host) = &state.gpu.host {
        let gpus = match state.gpu.hosts.iter().find(|(h, _)| h == host) {
            Some((_, HostGpus::Found(gpus))) => gpus.len().max(1),
            _ => 1,
        };
        return 1 + super::cells(gpus) + super::cells(runs_on(state, host).len().min(4));
    }
    match &state.gpu.latest {
        Some(s) if state.gpu.unavailable.is_none() => {
            2 + 2 * super::cells(s.gpus.len()) + super::cells(s.processes.len().min(4))
        }
        _ => 3,
    }
}

fn bar(fraction: f64, width: usize) -> String {
    // The product is within 0..=width, so the conversion cannot truncate.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let filled = ((fraction.clamp(0.0, 1.0)) * width as f64).round() as usize;
    format!("{}{}", "█".repeat(filled), "░".repeat(width - filled))
}

fn level(theme: &Theme, fraction: f64) -> Style {
    if fraction >= 0.9 {
        theme.fail
    } else if fraction >= 0.75 {
        theme.warn
    } else {
        theme.ok
    }
}

fn gpu_line<'a>(g: &GpuInfo, theme: &Theme) -> Line<'a> {
    let util = f64::from(g.util_gpu.unwrap_or(0)) / 100.0;
    let mem = if g.mem_total_mib == 0 { 0.0 } else { g.mem_used_mib as f64 / g.mem_total_mib as f64 };
    let na = |v: Option<String>| v.unwrap_or_else(|| "N/A".into());
    let temp_style = if g.temp_c.unwrap_or(0) >= 85 { theme.fail } else { theme.text };
    Line::from(vec![
        Span::styled(
            format!("GPU{} {:<22} ", g.index, g.name.chars().take(22).collect::<String>()),
            theme.accent,
        ),
        Span::styled("util ", theme.dim),
        Span::styled(bar(util, 10), level(theme, util)),
        Span::raw(format!(" {:>4} ", na(g.util_gpu.map(|u| format!("{u}%"))))),
        Span::styled("mem ", theme.dim),
        Span::styled(bar(mem, 10), level(theme, mem)),
        Span::raw(format!(
            " {:.1}/{:.1} GiB ",
            g.mem_used_mib as f64 / 1024.0,
            g.mem_total_mib as f64 / 1024.0
        )),
        Span::styled(format!("{:>5} ", na(g.temp_c.map(|t| format!("{t}°C")))), temp_style),
        Span::raw(format!(
            "{}/{} W  SM {} mem {} MHz",
            na(g.power_w.map(|p| format!("{p:.0}"))),
            na(g.power_limit_w.map(|p| format!("{p:.0}"))),
            na(g.sm_clock_mhz.map(|c| c.to_string())),
            na(g.mem_clock_mhz.map(|c| c.to_string())),
        )),
    ])
}

fn process_line<'a>(p: &GpuProcess, theme: &Theme) -> Line<'a> {
    let who = match (&p.owner, &p.container) {
        (Some(o), _) => Span::styled(format!("{} {} · run {}", o.short, o.variant, o.run_id), theme.accent),
        (None, Some(c)) => Span::styled(format!("container {} (not ours)", &c[..12.min(c.len())]), theme.dim),
        (None, None) => Span::styled("host process", theme.dim),
    };
    Line::from(vec![
        Span::raw(format!("  pid {:>7}  GPU{}  {:>6.1} GiB  ", p.pid, p.gpu, p.mem_mib as f64 / 1024.0)),
        who,
    ])
}

/// `hosts: [this machine] gpu2 gone · H` when there are `[[hosts]]`, the shown one bracketed.
fn host_picker(state: &AppState) -> String {
    if state.gpu.hosts.is_empty() {
        return String::new();
    }
    let shown = state.gpu.host.as_deref();
    let mark = |name: &str, on: bool| if on { format!("[{name}]") } else { name.to_string() };
    let mut names = vec![mark("this machine", shown.is_none())];
    names.extend(state.gpu.hosts.iter().map(|(h, _)| mark(h, shown == Some(h.as_str()))));
    format!("hosts: {} · H ", names.join(" "))
}

/// Our live runs placed on `host`.
fn runs_on<'a>(state: &'a AppState, host: &str) -> Vec<&'a crate::app::RunView> {
    state.runs.live().filter(|r| r.host.as_deref() == Some(host)).collect()
}

/// A `[[hosts]]` host: its GPUs as its last probe saw them (no history: a probe every 10 s), and
/// our runs there.
fn render_host(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme, host: &str) {
    let block = Block::default().borders(Borders::TOP).border_style(theme.border).title(Span::styled(
        format!(" GPU {}on {host} (its probe, every 10 s) ", host_picker(state)),
        theme.header,
    ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut lines: Vec<Line> = match state.gpu.hosts.iter().find(|(h, _)| h == host).map(|(_, g)| g) {
        Some(HostGpus::Found(gpus)) if !gpus.is_empty() => gpus.iter().map(|g| gpu_line(g, theme)).collect(),
        Some(HostGpus::Found(_)) => vec![Line::styled("no GPUs listed", theme.dim)],
        Some(HostGpus::None(why)) => vec![Line::styled(format!("no GPUs: {why}"), theme.dim)],
        Some(HostGpus::Unknown(why)) => vec![Line::styled(format!("GPUs unknown: {why}"), theme.warn)],
        None => vec![Line::styled("not seen yet", theme.dim)],
    };
    lines.extend(runs_on(state, host).into_iter().take(4).map(|r| {
        let what = format!("  run {} · {} {} · {}", r.run_id, r.short(), r.variant().name(), r.phase.word());
        Line::styled(what, theme.accent)
    }));
    frame.render_widget(Paragraph::new(lines), inner);
}

pub fn render(frame: &mut Frame, area: Rect, state: &AppState, theme: &Theme) {
    let gpu = &state.gpu;
    if let Some(host) = &gpu.host {
        return render_host(frame, area, state, theme, host);
    }
    let stale = if gpu.is_stale(state.session.ticks) { " STALE (last good sample)" } else { "" };
    let window = match gpu.window {
        Window::Minute => "60 s",
        Window::TenMinutes => "10 min",
        Window::Run => "run",
    };
    let picker = host_picker(state);
    let title =
        format!(" GPU {picker}({}, every {} ms, history {window}){stale} ", gpu.source, gpu.interval_ms);
    let block = Block::default()
        .borders(Borders::TOP)
        .border_style(theme.border)
        .title(Span::styled(title, if stale.is_empty() { theme.header } else { theme.warn }));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let (Some(sample), None) = (&gpu.latest, &gpu.unavailable) else {
        let why = gpu.unavailable.as_deref().unwrap_or("waiting for the first sample");
        frame.render_widget(Paragraph::new(format!("GPU: unavailable — {why}")).style(theme.dim), inner);
        return;
    };
    let mut rows: Vec<Constraint> =
        sample.gpus.iter().flat_map(|_| [Constraint::Length(1), Constraint::Length(1)]).collect();
    rows.push(Constraint::Min(0));
    let areas = Layout::vertical(rows).split(inner);
    let since = match gpu.window {
        Window::Minute => state.session.ticks.saturating_sub(60),
        Window::TenMinutes => state.session.ticks.saturating_sub(600),
        Window::Run => state.runs.list.last().map_or(0, |r| r.started_tick),
    };
    for (i, g) in sample.gpus.iter().enumerate() {
        frame.render_widget(Paragraph::new(gpu_line(g, theme)), areas[2 * i]);
        let points: Vec<u64> = gpu.history.get(i).map_or(Vec::new(), |h| {
            h.iter().filter(|(t, _, _)| *t >= since).map(|(_, u, _)| u64::from(*u)).collect()
        });
        let width = usize::from(areas[2 * i + 1].width);
        let tail = &points[points.len().saturating_sub(width)..];
        frame.render_widget(Sparkline::default().data(tail).max(100).style(theme.accent), areas[2 * i + 1]);
    }
    let lines: Vec<Line> = sample.processes.iter().take(4).map(|p| process_line(p, theme)).collect();
    frame.render_widget(Paragraph::new(lines), areas[areas.len() - 1]);
}
