//! The report in a real browser: the report tests' fixed results file (a
//! real quick run, samples thinned) rendered with `tasklab report`, then opened by headless
//! Chromium, which runs a probe script after the page has loaded and writes
//! what it saw into the DOM it dumps. The page must load without a script
//! or resource error, show every chart, keep its tables and notes in closed
//! `<details>`, link every in-page reference to an element that exists, be
//! under 10,000 px tall at 1400 px wide, and keep chart text at 11 px or
//! more on a page 800 px wide.
//!
//! Without Chromium the test says why and passes, except under CI (`CI` set,
//! as `.ci/run` is run), where it must run: `.ci/run` installs Chromium.

mod common;

use common::tasklab;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The page with everything closed, at 1400 px wide, stays under this.
const MAX_HEIGHT_PX: f64 = 10_000.0;
/// The smallest chart text, in CSS px, on a page 800 px wide.
const MIN_TEXT_PX: f64 = 11.0;
/// Chromium gets this long to load the page; it takes a few seconds.
const TIMEOUT: Duration = Duration::from_secs(120);

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-results.json")
}

/// Recorded before anything else on the page runs: every uncaught error and
/// every resource that failed to load.
const RECORD_ERRORS: &str = r#"<script>
window.__tasklabErrors = [];
window.addEventListener("error", function (e) {
  var what = e.message || (e.target && (e.target.src || e.target.href || e.target.tagName)) || e.type;
  window.__tasklabErrors.push(String(what));
}, true);
</script>"#;

/// Run once the page has loaded: what the test asserts, as JSON in a <pre>.
const PROBE: &str = r#"<script>
window.addEventListener("load", function () {
  var details = Array.prototype.slice.call(document.querySelectorAll("details"));
  var openAtLoad = details.filter(function (d) { return d.open; }).length;
  details.forEach(function (d) { d.open = false; });
  var small = [];
  var minText = Infinity;
  var charts = document.querySelectorAll("figure .chart svg");
  charts.forEach(function (svg) {
    var scale = svg.getBoundingClientRect().width / svg.width.baseVal.value;
    svg.querySelectorAll("text").forEach(function (t) {
      if (!t.textContent.trim()) { return; }
      var px = parseFloat(getComputedStyle(t).fontSize) * scale;
      minText = Math.min(minText, px);
      if (px < 11) { small.push(t.textContent.trim() + " at " + px.toFixed(1) + " px"); }
    });
  });
  var broken = [];
  document.querySelectorAll("a[href^='#']").forEach(function (a) {
    var id = decodeURIComponent(a.getAttribute("href").slice(1));
    if (!document.getElementById(id)) { broken.push(a.getAttribute("href")); }
  });
  var out = {
    errors: window.__tasklabErrors,
    charts: charts.length,
    captions: document.querySelectorAll("figure figcaption").length,
    details: details.length,
    details_with_summary: document.querySelectorAll("details > summary:first-child").length,
    open_at_load: openAtLoad,
    tables: document.querySelectorAll("table").length,
    tables_outside_details: Array.prototype.filter.call(document.querySelectorAll("table"),
      function (t) { return !t.closest("details"); }).length,
    height: Math.max(document.documentElement.scrollHeight, document.body.scrollHeight),
    min_text_px: minText === Infinity ? null : minText,
    small_text: small.slice(0, 10),
    broken_links: broken,
    title: document.title
  };
  var pre = document.createElement("pre");
  pre.id = "tasklab-probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"#;

/// The Chromium binary on PATH, if there is one.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| {
            ["chromium", "chromium-browser", "google-chrome"]
                .into_iter()
                .map(move |n| d.join(n))
        })
        .find(|p| p.is_file())
}

fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Opens `page` at `width` px and returns what the probe wrote.
fn probe(browser: &Path, dir: &Path, page: &Path, width: u32) -> Value {
    let dump = dir.join(format!("dom-{width}.html"));
    let mut child = Command::new(browser)
        .args([
            "--headless",
            // CI runs as root, where Chromium refuses its sandbox.
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-extensions",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.join(format!("profile-{width}")).display()
        ))
        .arg(format!("--window-size={width},1000"))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&dump).expect("the dump file"))
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("chromium's status") {
            assert!(status.success(), "chromium exited with {status}");
            break;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let dom = std::fs::read_to_string(&dump).expect("the dumped DOM");
    let start = dom
        .find("<pre id=\"tasklab-probe\">")
        .unwrap_or_else(|| panic!("the probe never ran: the page did not load\n{dom:.2000}"));
    let text = &dom[start + "<pre id=\"tasklab-probe\">".len()..];
    let text = &text[..text.find("</pre>").expect("the probe's end")];
    let json = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&");
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"))
}

#[test]
fn the_report_loads_in_chromium_closed_short_and_legible() {
    let Some(browser) = chromium() else {
        assert!(
            !under_ci(),
            "CI is set but chromium is not on PATH: .ci/run installs it"
        );
        eprintln!("skipped: chromium is not installed (apt-get install chromium); CI runs it");
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("report");
    tasklab()
        .arg("report")
        .arg(fixture())
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let charts: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("chart-") && n.ends_with(".svg"))
        .collect();
    assert!(charts.len() >= 5, "charts written: {charts:?}");

    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let page = d.path().join("probe.html");
    let probed = html
        .replacen("<head>", &format!("<head>\n{RECORD_ERRORS}"), 1)
        .replacen("</body>", &format!("{PROBE}\n</body>"), 1);
    assert_ne!(probed, html, "the page has a <head> and a </body>");
    std::fs::write(&page, probed).unwrap();

    let wide = probe(&browser, d.path(), &page, 1400);
    let num = |v: &Value, k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {v}"));
    assert_eq!(wide["errors"], serde_json::json!([]), "{wide}");
    assert_eq!(
        num(&wide, "charts"),
        charts.len() as f64,
        "every chart inline: {wide}"
    );
    assert_eq!(num(&wide, "captions"), charts.len() as f64, "{wide}");
    // Every experiment's table and notes, the checks, the seed table and
    // the environment: closed, each with its line to open it.
    assert!(num(&wide, "details") >= 18.0, "{wide}");
    assert_eq!(num(&wide, "details"), num(&wide, "details_with_summary"));
    assert_eq!(num(&wide, "open_at_load"), 0.0, "{wide}");
    assert!(num(&wide, "tables") >= 18.0, "{wide}");
    assert_eq!(num(&wide, "tables_outside_details"), 0.0, "{wide}");
    assert_eq!(wide["broken_links"], serde_json::json!([]), "{wide}");
    let height = num(&wide, "height");
    eprintln!("the page with everything closed: {height} px tall at 1400 px wide");
    assert!(
        height < MAX_HEIGHT_PX,
        "the page is {height} px tall at 1400 px wide with everything closed"
    );
    let title = wide["title"].as_str().unwrap();
    assert!(
        title.contains("2026-11-24"),
        "the title names the day: {title}"
    );

    let narrow = probe(&browser, d.path(), &page, 800);
    assert_eq!(narrow["errors"], serde_json::json!([]), "{narrow}");
    let min = num(&narrow, "min_text_px");
    eprintln!("the smallest chart text on a page 800 px wide: {min:.1} px");
    assert!(
        min >= MIN_TEXT_PX,
        "chart text at {min:.1} px on a page 800 px wide: {}",
        narrow["small_text"]
    );
}
