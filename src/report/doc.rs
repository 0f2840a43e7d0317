//! The report as a list of blocks, written once and rendered twice: to
//! Markdown (charts as links to their SVG files) and to one self-contained
//! HTML page (charts inline).

use html_escape::encode_text as esc;

/// A chart: its SVG text and the file it is saved as.
#[derive(Clone, Debug)]
pub struct Chart {
    /// File name in the report folder, `chart-….svg`.
    pub file: String,
    pub title: String,
    /// What to look at, in a sentence.
    pub caption: String,
    pub svg: String,
    /// The SVG carries a script that reads its page's ids (a flame graph):
    /// the HTML shows it as a page of its own, in a frame this many px
    /// tall, where its ids and script meet no other chart's; drawn inline
    /// when None.
    pub own_page: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct Table {
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Right-aligned columns (numbers).
    pub right: Vec<usize>,
}

#[derive(Clone, Debug)]
pub enum Block {
    /// Level 1..=3, text, and the anchor id.
    Heading(u8, String, String),
    Para(String),
    /// Smaller, greyed text: notes, provenance.
    Aside(String),
    Bullets(Vec<String>),
    /// The headline findings, set apart at the top.
    Summary(Vec<String>),
    /// A warning the reader must not miss (partial run, busy machine).
    Warning(String),
    Table(Table),
    Chart(Chart),
    /// Closed until opened (HTML `<details>`): the line shown, then the
    /// blocks. Markdown shows the blocks as they are.
    Details(String, Vec<Block>),
    /// A reference list: each item with the anchor it is linked by.
    Refs(Vec<Ref>),
    /// Text set as it is, in a fixed-width font (a table drawn in text).
    Pre(String),
}

/// One item of a reference list.
#[derive(Clone, Debug)]
pub struct Ref {
    /// The id the report's labels link to.
    pub anchor: String,
    /// The whole reference, in plain text.
    pub text: String,
    /// The words of `text` that link to the source, and its address.
    pub link: Option<(String, String)>,
}

#[derive(Clone, Debug, Default)]
pub struct Doc {
    pub title: String,
    pub blocks: Vec<Block>,
    /// Text linked wherever it appears in the HTML (a seed's label to its
    /// reference): (text, anchor).
    pub links: Vec<(String, String)>,
}

impl Doc {
    pub fn push(&mut self, b: Block) {
        self.blocks.push(b);
    }

    pub fn heading(&mut self, level: u8, text: impl Into<String>, id: impl Into<String>) {
        self.blocks
            .push(Block::Heading(level, text.into(), id.into()));
    }

    pub fn charts(&self) -> impl Iterator<Item = &Chart> {
        fn walk<'a>(blocks: &'a [Block], out: &mut Vec<&'a Chart>) {
            for b in blocks {
                match b {
                    Block::Chart(c) => out.push(c),
                    Block::Details(_, inner) => walk(inner, out),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.blocks, &mut out);
        out.into_iter()
    }

    /// Markdown; charts are image links to `chart_prefix` + file name.
    pub fn markdown(&self, chart_prefix: &str) -> String {
        let mut s = format!("# {}\n", self.title);
        md_blocks(&mut s, &self.blocks, chart_prefix);
        s
    }
    /// One HTML page that opens offline: styles and charts inline.
    pub fn html(&self) -> String {
        let mut h = Html {
            links: &self.links,
            body: String::new(),
            toc: String::new(),
        };
        h.blocks(&self.blocks);
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{title}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
             <header><h1>{title}</h1><nav>{toc}</nav></header>\n<main>\n{body}</main>\n</body>\n</html>\n",
            title = esc(&self.title),
            toc = h.toc,
            body = h.body,
        )
    }
}

fn md_blocks(s: &mut String, blocks: &[Block], chart_prefix: &str) {
    for b in blocks {
        // A details block shows its content as it is: its first block
        // spaces itself, and a list it continues stays one list.
        let last_line = s.trim_end_matches('\n').rsplit('\n').next().unwrap_or("");
        let continues = matches!(b, Block::Bullets(_)) && last_line.starts_with("- ");
        if !matches!(b, Block::Details(..)) && !continues {
            s.push('\n');
        }
        match b {
            Block::Heading(l, t, _) => {
                s.push_str(&format!("{} {t}\n", "#".repeat(*l as usize + 1)));
            }
            Block::Para(t) => s.push_str(&format!("{t}\n")),
            Block::Pre(t) => s.push_str(&format!("```text\n{}\n```\n", t.trim_end())),
            Block::Aside(t) => s.push_str(&format!("<sub>{t}</sub>\n")),
            Block::Bullets(items) => {
                for i in items {
                    s.push_str(&format!("- {i}\n"));
                }
            }
            Block::Refs(items) => {
                for r in items {
                    let text = match &r.link {
                        Some((words, url)) => {
                            r.text
                                .replacen(words.as_str(), &format!("[{words}]({url})"), 1)
                        }
                        None => r.text.clone(),
                    };
                    s.push_str(&format!("- {text}\n"));
                }
            }
            // The Summary's sentences as a plain list: set apart by their
            // heading, not by bold on every line.
            Block::Summary(items) => {
                for i in items {
                    s.push_str(&format!("- {i}\n"));
                }
            }
            Block::Warning(t) => s.push_str(&format!("> **Warning:** {t}\n")),
            Block::Table(t) => s.push_str(&md_table(t)),
            Block::Chart(c) => {
                s.push_str(&format!(
                    "![{}]({chart_prefix}{})\n\n*{}*\n",
                    c.title, c.file, c.caption
                ));
            }
            Block::Details(_, inner) => md_blocks(s, inner, chart_prefix),
        }
    }
}

/// The HTML renderer: the body, the table of contents, and the text to link.
struct Html<'a> {
    links: &'a [(String, String)],
    body: String,
    toc: String,
}

impl Html<'_> {
    /// Escaped text with every occurrence of a linked label made a link
    /// and every `code span` set as code (no literal backticks).
    fn text(&self, t: &str) -> String {
        let mut out = String::new();
        let mut rest = t;
        'scan: while !rest.is_empty() {
            if let Some(inner) = rest.strip_prefix('`') {
                if let Some(end) = inner.find('`').filter(|&e| e > 0) {
                    out.push_str(&format!("<code>{}</code>", esc(&inner[..end])));
                    rest = &inner[end + 1..];
                    continue 'scan;
                }
            }
            for (label, anchor) in self.links {
                if !label.is_empty() && rest.starts_with(label.as_str()) {
                    out.push_str(&format!("<a href=\"#{}\">{}</a>", esc(anchor), esc(label)));
                    rest = &rest[label.len()..];
                    continue 'scan;
                }
            }
            let n = rest.chars().next().map_or(1, char::len_utf8);
            out.push_str(&esc(&rest[..n]));
            rest = &rest[n..];
        }
        out
    }

    fn list(&self, class: &str, items: &[String]) -> String {
        let mut s = format!("<ul{class}>\n");
        for i in items {
            s.push_str(&format!("<li>{}</li>\n", self.text(i)));
        }
        s.push_str("</ul>\n");
        s
    }

    fn blocks(&mut self, blocks: &[Block]) {
        for b in blocks {
            let html = match b {
                Block::Heading(l, t, id) => {
                    if *l == 1 {
                        self.toc
                            .push_str(&format!("<a href=\"#{}\">{}</a>\n", esc(id), esc(t)));
                    }
                    let tag = format!("h{}", l + 1);
                    format!("<{tag} id=\"{}\">{}</{tag}>\n", esc(id), self.text(t))
                }
                Block::Para(t) => format!("<p>{}</p>\n", self.text(t)),
                Block::Aside(t) => format!("<p class=\"aside\">{}</p>\n", self.text(t)),
                Block::Pre(t) => format!("<pre>{}</pre>\n", esc(t.trim_end())),
                Block::Bullets(items) => self.list("", items),
                Block::Summary(items) => {
                    format!("<div class=\"summary\">{}</div>\n", self.list("", items))
                }
                Block::Refs(items) => {
                    let mut s = String::from("<ul class=\"refs\">\n");
                    for r in items {
                        let text = match &r.link {
                            Some((words, url)) => match r.text.split_once(words.as_str()) {
                                Some((before, after)) => format!(
                                    "{}<a href=\"{}\">{}</a>{}",
                                    esc(before),
                                    html_escape::encode_double_quoted_attribute(url),
                                    esc(words),
                                    esc(after)
                                ),
                                None => esc(&r.text).into_owned(),
                            },
                            None => esc(&r.text).into_owned(),
                        };
                        s.push_str(&format!("<li id=\"{}\">{text}</li>\n", esc(&r.anchor)));
                    }
                    s.push_str("</ul>\n");
                    s
                }
                Block::Warning(t) => {
                    format!("<p class=\"warning\">Warning: {}</p>\n", self.text(t))
                }
                Block::Table(t) => self.table(t),
                Block::Chart(c) => {
                    // The caption's first sentence shows; how to read the
                    // rest of the chart opens on a click.
                    let (first, rest) = first_sentence(&c.caption);
                    let caption = if rest.is_empty() {
                        format!("<b>{}.</b> {}", esc(&c.title), self.text(first))
                    } else {
                        format!(
                            "<details class=\"caption\"><summary><b>{}.</b> {} <span class=\"more\">More</span></summary>{}</details>",
                            esc(&c.title),
                            self.text(first),
                            self.text(rest)
                        )
                    };
                    if let Some(height) = c.own_page {
                        format!(
                            "<figure>\n<div class=\"flame\">{}</div>\n<figcaption>{caption}</figcaption>\n</figure>\n",
                            own_page(c, height)
                        )
                    } else {
                        format!(
                            "<figure>\n<div class=\"chart\">{}</div>\n<figcaption>{caption}</figcaption>\n</figure>\n",
                            strip_xml_prolog(&c.svg),
                        )
                    }
                }
                Block::Details(line, inner) => {
                    self.body
                        .push_str(&format!("<details>\n<summary>{}</summary>\n", esc(line)));
                    self.blocks(inner);
                    String::from("</details>\n")
                }
            };
            self.body.push_str(&html);
        }
    }

    fn table(&self, t: &Table) -> String {
        let cell = |tag: &str, i: usize, text: &str| {
            let class = if t.right.contains(&i) {
                " class=\"num\""
            } else {
                ""
            };
            format!("<{tag}{class}>{}</{tag}>", self.text(text))
        };
        let mut s = String::from("<div class=\"scroll\"><table>\n<thead><tr>");
        for (i, h) in t.head.iter().enumerate() {
            s.push_str(&cell("th", i, h));
        }
        s.push_str("</tr></thead>\n<tbody>\n");
        for r in &t.rows {
            s.push_str("<tr>");
            for (i, c) in r.iter().enumerate() {
                s.push_str(&cell("td", i, c));
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</tbody></table></div>\n");
        s
    }
}

/// A caption's first sentence and the rest: split at the first ". " that
/// ends a sentence (not "e.g. " or "i.e. ", and followed by a capital or a
/// digit). The rest is empty when there is one sentence.
fn first_sentence(text: &str) -> (&str, &str) {
    let mut from = 0;
    while let Some(i) = text[from..].find(". ").map(|i| i + from) {
        let next = text[i + 2..].chars().next();
        let abbrev = ["e.g", "i.e", "vs", "cf"]
            .iter()
            .any(|a| text[..i].ends_with(a));
        if !abbrev && next.is_some_and(|c| c.is_uppercase() || c.is_ascii_digit()) {
            return (&text[..=i], text[i + 2..].trim());
        }
        from = i + 2;
    }
    (text, "")
}

/// A chart as a page of its own: a frame whose document is the SVG (its
/// `srcdoc`, so the page stays one file that opens offline), as tall as
/// the SVG says, as wide as the page. Its script runs there, in the
/// frame's sandbox, which lets it run and ask (a search's prompt) and
/// nothing else; the frame has no address of its own, so the zoom the
/// script would keep in it (`history.replaceState`, refused there) is
/// not kept.
fn own_page(c: &Chart, height: u32) -> String {
    let svg = strip_xml_prolog(&c.svg);
    let page = format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>html,body{{margin:0;background:#fff}}svg{{display:block;width:100%}}</style><script>history.replaceState=function(){{}};</script></head><body>{svg}</body></html>"
    );
    format!(
        "<iframe title=\"{}\" sandbox=\"allow-scripts allow-modals\" style=\"height:{height}px\" srcdoc=\"{}\"></iframe>",
        html_escape::encode_double_quoted_attribute(&c.title),
        html_escape::encode_double_quoted_attribute(&page)
    )
}

/// An inline SVG must not carry an XML declaration.
fn strip_xml_prolog(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    }
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn md_table(t: &Table) -> String {
    let mut s = format!(
        "| {} |\n",
        t.head
            .iter()
            .map(|h| md_cell(h))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let rule: Vec<&str> = (0..t.head.len())
        .map(|i| if t.right.contains(&i) { "---:" } else { "---" })
        .collect();
    s.push_str(&format!("| {} |\n", rule.join(" | ")));
    for r in &t.rows {
        s.push_str(&format!(
            "| {} |\n",
            r.iter().map(|c| md_cell(c)).collect::<Vec<_>>().join(" | ")
        ));
    }
    s
}

pub(super) const STYLE: &str = r#"
:root { --fg: #1d2330; --muted: #5b6475; --line: #d9dee7; --accent: #2457a6; --bg: #fff; --bg-soft: #f4f6fa;
  --head-bg: #1d2330; --head-fg: #fff; --nav: #c9d6ff; --warn-bg: #fff4e0; --warn-line: #d98a00; --hover: #fafbfd;
  color-scheme: light dark; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { background: var(--head-bg); color: var(--head-fg); padding: 18px 28px 12px; position: sticky; top: 0; z-index: 2; }
header h1 { margin: 0 0 6px; font-size: 22px; }
nav a { color: var(--nav); margin-right: 16px; text-decoration: none; font-size: 14px; }
nav a:hover { text-decoration: underline; }
main { max-width: 1320px; margin: 0 auto; padding: 8px 28px 60px; }
h2 { margin: 34px 0 12px; padding-bottom: 4px; border-bottom: 2px solid var(--line); scroll-margin-top: 90px; }
h3 { margin: 16px 0 6px; scroll-margin-top: 90px; font-size: 17px; }
.summary { background: var(--bg-soft); border-left: 4px solid var(--accent); padding: 6px 18px; margin: 14px 0; }
.summary li { margin: 6px 0; font-weight: 500; }
.warning { background: var(--warn-bg); border-left: 4px solid var(--warn-line); padding: 8px 14px; }
.aside { color: var(--muted); font-size: 13px; }
.scroll { overflow-x: auto; margin: 10px 0 16px; }
table { border-collapse: collapse; font-size: 13.5px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: var(--bg-soft); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
tbody tr:hover { background: var(--hover); }
code { font: 0.92em ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--bg-soft); padding: 0 3px; border-radius: 3px; }
pre { background: var(--bg-soft); padding: 8px 12px; overflow-x: auto; }
figure { margin: 10px 0 14px; }
.chart svg { max-width: 100%; height: auto; display: block; border: 1px solid var(--line); border-radius: 4px; }
.flame iframe { width: 100%; display: block; border: 1px solid var(--line); border-radius: 4px; }
figcaption { color: var(--muted); font-size: 13px; line-height: 1.4; margin-top: 4px; max-width: 1100px; }
figcaption details.caption { margin: 0; }
figcaption details.caption > summary { color: var(--muted); font-size: 13px; list-style: none; }
figcaption details.caption > summary::-webkit-details-marker { display: none; }
figcaption .more { color: var(--accent); white-space: nowrap; }
figcaption details.caption[open] .more { display: none; }
li { margin: 1px 0; line-height: 1.4; }
ul { margin: 8px 0; }
.aside { margin: 4px 0 8px; }
details { margin: 2px 0 10px; }
details > summary { cursor: pointer; color: var(--accent); font-size: 14px; }
details[open] > summary { margin-bottom: 6px; }
.refs li { margin: 5px 0; }
.refs li:target { background: var(--warn-bg); }
figcaption a, td a, li a, p a { color: var(--accent); }
/* Dark: the page's colours turn; a chart (drawn dark on white) is
   inverted and turned back in hue, so its ink is light on dark and each
   series keeps its colour, the legend's with it. */
@media screen and (prefers-color-scheme: dark) {
  :root { --fg: #e2e6ee; --muted: #a3acbb; --line: #39414f; --accent: #8db4ff; --bg: #12161d; --bg-soft: #1c222c;
    --head-bg: #0a0d12; --head-fg: #e2e6ee; --nav: #a9c2ff; --warn-bg: #3b2c0c; --warn-line: #e0a030; --hover: #1a1f28; }
  .chart svg, .flame iframe { filter: invert(0.9) hue-rotate(180deg); border-color: #cfc7bb; }
}
/* Print: black on white, no sticky header or menu, every table and note
   shown, figures and tables kept whole on a page, links' addresses given. */
@media print {
  :root { --fg: #000; --muted: #333; --line: #bbb; --accent: #000; --bg: #fff; --bg-soft: #f2f2f2; --warn-bg: #fff; }
  body { font-size: 10.5pt; }
  header { position: static; background: none; color: #000; padding: 0 0 8px; }
  nav { display: none; }
  main { max-width: none; padding: 0; }
  .scroll { overflow: visible; }
  table { font-size: 9pt; }
  figure, tr, .summary, .warning { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  details > summary { color: #000; list-style: none; }
  figcaption .more { display: none; }
  .refs a[href^="http"]::after { content: " <" attr(href) ">"; font-size: 0.9em; }
  tbody tr:hover { background: none; }
}
@media print {
  details::details-content { content-visibility: visible; display: contents; }
}
"#;

#[cfg(test)]
#[path = "doc_tests.rs"]
mod tests;
