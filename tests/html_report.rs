//! `report --format html` in a real browser: Debian's chromium-headless-shell renders the page
//! (its DOM compared with the 3-way table `status --json` gives; a screenshot of the right size,
//! not blank, with the verdict colours drawn), html5lib's strict HTML5 parser finds no error, and
//! hostile record text (markup, terminal escapes, an HF token) stays text, cleaned and redacted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

const REAL: &str = "fixtures/results/isobench/claude_code/results/99abb8b6_human_result.json";
const TOKEN: &str = "hf_abcdefghijklmnopqrstuvwxyz0123456789";
const BROWSER: &str = "chromium-headless-shell";

/// A failure's text with markup, an OSC 52 clipboard write and a token in it.
fn hostile() -> String {
    format!("ImportError: cannot import name '<script>alert(1)</script>' \u{1b}]52;c;aGk=\u{7} token={TOKEN}")
}

/// The real fixtures, 99abb8b6 given five TPOT runs a variant (the agent 10 % faster), and a
/// hostile agent failure for cf2f084d; the page `report --format html` writes for them.
fn page() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(Path::new("fixtures/results/isobench"), &dir.path().join("isobench"));
    let results = dir.path().join("omniperf_results_3way_claude_code/results");
    std::fs::create_dir_all(&results).unwrap();
    let real: Value = serde_json::from_str(&std::fs::read_to_string(REAL).unwrap()).unwrap();
    for (variant, mean) in [("baseline", 10.0), ("human", 10.0), ("agent", 9.0)] {
        let samples: Vec<f64> = [0.99, 0.995, 1.0, 1.005, 1.01].iter().map(|f| mean * f).collect();
        let mut value = real.clone();
        value["metrics"]["tpot_mean_ms"] = json!(mean);
        value["perftriage"] = json!({ "repeats": { "n": 5, "samples": { "tpot_mean": samples } } });
        std::fs::write(results.join(format!("99abb8b6_{variant}_result.json")), value.to_string()).unwrap();
    }
    let failure =
        json!({ "human_commit": "cf2f084d", "status": "error", "error": hostile(), "raw_output": hostile() });
    std::fs::write(results.join("cf2f084d_agent_result.json"), failure.to_string()).unwrap();
    let out = common::cli(
        &dir.path().join("ws"),
        &["--results", dir.path().to_str().unwrap(), "report", "--format", "html"],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let path = dir.path().join("report.html");
    std::fs::write(&path, &out.stdout).unwrap();
    (dir, path)
}

fn browser(args: &[&str], page: &Path) -> Vec<u8> {
    let out = Command::new(BROWSER)
        .args(["--no-sandbox", "--disable-gpu", "--hide-scrollbars"])
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium-headless-shell (Debian's package)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// The `<tr>` of the dumped DOM's 3-way table whose first cell is `short`, its cells' texts.
fn three_way_row(dom: &str, short: &str) -> Vec<String> {
    let table = dom.split("<table class=\"three-way\">").nth(1).unwrap().split("</table>").next().unwrap();
    let row = table.split("<tr>").find(|r| r.starts_with(&format!("<td>{short}</td>"))).unwrap();
    let cells = row.split("<td").skip(1).map(|c| c.split_once('>').unwrap().1.split("</td>").next().unwrap());
    cells.map(str::to_string).collect()
}

/// What a pair of `status --json`'s comparison should read as in the page.
fn expected_cell(pair: &Value) -> String {
    let word = |v: &Value| v.as_str().unwrap().to_string();
    let verdicts = match (word(&pair["verdict_2pct"]), word(&pair["verdict_5pct"])) {
        (two, five) if two == five => format!("{two} at ±2/±5%"),
        (two, five) => format!("{two} at ±2%, {five} at ±5%"),
    };
    let i = &pair["interval"];
    let (pct, low, high) =
        (i["pct"].as_f64().unwrap(), i["low"].as_f64().unwrap(), i["high"].as_f64().unwrap());
    format!("{pct:+.1}% [{low:+.1}, {high:+.1}] {verdicts}")
}

#[test]
#[cfg_attr(not(has_html5lib), ignore = "needs Debian's python3-html5lib")]
fn the_page_is_valid_html5_and_self_contained() {
    let (_dir, path) = page();
    let check = "import html5lib, sys; html5lib.HTMLParser(strict=True).parse(open(sys.argv[1], 'rb'))";
    let out = Command::new("/usr/bin/python3").args(["-c", check]).arg(&path).output().unwrap();
    assert!(out.status.success(), "html5lib: {}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&path).unwrap();
    for outside in ["<script", "<link", "src=", "href=", "url(", "@import"] {
        assert!(!html.contains(outside), "the page reaches outside itself: {outside}");
    }
    assert_eq!(html.matches("<svg class=\"forest\"").count(), 3, "a forest plot per pair");
}

#[test]
#[cfg_attr(not(has_chromium), ignore = "needs Debian's chromium-headless-shell")]
fn the_browser_shows_the_three_way_table_status_gives_and_hostile_text_as_text() {
    let (dir, path) = page();
    let dom = String::from_utf8(browser(&["--dump-dom"], &path)).unwrap();
    let status =
        common::cli(&dir.path().join("ws"), &["--results", dir.path().to_str().unwrap(), "status", "--json"]);
    let text = String::from_utf8(status.stdout).unwrap();
    let record: Value = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .find(|r: &Value| r["short"] == "99abb8b6")
        .unwrap();
    let pairs = record["comparison"]["pairs"].as_array().unwrap();
    let row = three_way_row(&dom, "99abb8b6");
    let cells: Vec<String> = pairs.iter().map(expected_cell).collect();
    assert_eq!(row[5..], cells[..], "the page's pairs are status --json's");
    assert!(cells[2].ends_with("beats at ±2/±5%"), "an agent 10 % faster beats at both bands: {cells:?}");
    assert!(!dom.contains("<script"), "a record's markup became an element");
    assert!(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "the markup is shown as text");
    assert!(!dom.contains(TOKEN) && !dom.contains("hf_abcdefghij"), "the token is redacted");
    assert!(!dom.contains('\u{1b}') && !dom.contains("]52;"), "the terminal escape is gone");
}

#[test]
#[cfg_attr(not(has_chromium), ignore = "needs Debian's chromium-headless-shell")]
fn the_browsers_screenshot_is_the_page_with_its_verdict_colours() {
    let (dir, path) = page();
    let shot = dir.path().join("page.png");
    browser(&["--window-size=1280,2400", &format!("--screenshot={}", shot.display())], &path);
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((info.width, info.height), (1280, 2400));
    let step = info.color_type.samples();
    let rgb: Vec<&[u8]> = pixels[..info.buffer_size()].chunks(step).collect();
    let inked = rgb.iter().filter(|p| p[..3] != [255, 255, 255]).count();
    assert!(inked * 100 > rgb.len(), "the page is drawn: {inked} of {} pixels not white", rgb.len());
    let beats = rgb.iter().any(|p| p[..3] == [0x1a, 0x7f, 0x37]);
    let bands = rgb.iter().any(|p| p[..3] == [0xdc, 0xdc, 0xdc]);
    assert!(beats && bands, "the verdict colour ({beats}) and the ±2% band ({bands}) are drawn");
}
