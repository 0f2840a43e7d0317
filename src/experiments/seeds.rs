//! The seed articles' files, citations and machines, as the seeds describe them.

pub const SEED_CLONE: &str = "000_e2b023eeee857798.txt";
/// Another copy of Sysel's article (a plain-text extraction of the same paper).
pub const SEED_SYSEL_TEXT: &str = "001_f81550968fa7636c.txt";
pub const SEED_SWITCH: &str = "002_5f4198dc3381193f.txt";
pub const SEED_FORK: &str = "003_641a413697a75944.txt";
pub const SEED_SYSEL: &str = "004_37eeb410f17232cd.txt";

pub const SYSEL_HW: &str = "Intel Core i7-1065G7, 1.3-3.9 GHz, Ubuntu 20.04, Linux 5.4";
/// What Sysel's ranges sweep: his Table 1 gives each time as a range "caused
/// mainly by different CPU frequencies" (1.3 GHz base to 3.4 GHz turbo), not
/// a spread of repetitions.
pub const SYSEL_SWEEP: &str = "the CPU frequency, 3.4 GHz (turbo) to 1.3 GHz (base)";
/// The clock of the near end of Sysel's sweep (Turbo Boost), in MHz: his
/// low figures, and the one clock his timer figures name.
pub const SYSEL_TURBO_MHZ: f64 = 3400.0;
/// The clock of the far end of Sysel's sweep (the base clock), in MHz.
pub const SYSEL_BASE_MHZ: f64 = 1300.0;
pub const BENDERSKY_HW: &str = "Intel Core i7-4771 (Haswell), 2018";
/// Bendersky's memcpy figures name no layout of their buffers: what a copy
/// row says beside ours.
pub const BENDERSKY_COPY_LAYOUT: &str =
    "the seed does not say where its buffers lay; ours compared is the page-aligned copy";
pub const SEED_FORK_HW: &str =
    "the author's machine, not described (Hackaday Linux Fu, c. 2022); built with `gcc -o stress stress.c` (no -O)";

/// How a seed article is cited: its author, title and year, as the seed's
/// own text gives them (no year where the text names none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Citation {
    /// The seed file, one of the `SEED_*` constants.
    pub file: &'static str,
    /// What a figure is labelled with: short, and unique per article.
    pub short: &'static str,
    pub author: &'static str,
    pub title: &'static str,
    pub year: Option<u16>,
    /// Where the article is read: the address the seed files give (seed
    /// 004's references name Bendersky's clone post) or the article's own
    /// page; `None` where no address is known.
    pub url: Option<&'static str>,
}

impl Citation {
    /// Author, "Title" (year).
    pub fn full(&self) -> String {
        let year = self.year.map(|y| format!(" ({y})")).unwrap_or_default();
        format!("{}, \u{201c}{}\u{201d}{year}", self.author, self.title)
    }
}

const SYSEL_AUTHOR: &str = "Martin Sysel";
const SYSEL_TITLE: &str = "A Comparison of Processes and Threads Creation";
/// The paper's DOI (CoMeSySo 2020, AISC vol. 1294), the publisher's page.
const SYSEL_URL: &str = "https://doi.org/10.1007/978-3-030-63322-6_85";

/// Every seed file, cited. Two files (001 and 004) are the same article.
pub static CITATIONS: &[Citation] = &[
    Citation {
        file: SEED_CLONE,
        short: "Bendersky 2018, clone",
        author: "Eli Bendersky",
        title: "Launching Linux threads and processes with clone",
        year: Some(2018),
        url: Some("https://eli.thegreenplace.net/2018/launching-linux-threads-and-processes-with-clone/"),
    },
    Citation {
        file: SEED_SYSEL_TEXT,
        short: "Sysel",
        author: SYSEL_AUTHOR,
        title: SYSEL_TITLE,
        year: None,
        url: Some(SYSEL_URL),
    },
    Citation {
        file: SEED_SWITCH,
        short: "Bendersky 2018, switching",
        author: "Eli Bendersky",
        title: "Measuring context switching and memory overheads for Linux threads",
        year: Some(2018),
        url: Some("https://eli.thegreenplace.net/2018/measuring-context-switching-and-memory-overheads-for-linux-threads/"),
    },
    Citation {
        file: SEED_FORK,
        short: "Linux Fu",
        author: "Hackaday",
        title: "Linux Fu: An Odd Use For Fork()",
        year: None,
        // The seed file carries no address, and none is recorded here.
        url: None,
    },
    Citation {
        file: SEED_SYSEL,
        short: "Sysel",
        author: SYSEL_AUTHOR,
        title: SYSEL_TITLE,
        year: None,
        url: Some(SYSEL_URL),
    },
];

/// The citation of the seed file `file` (as a results file records it).
pub fn citation(file: &str) -> Option<&'static Citation> {
    CITATIONS.iter().find(|c| c.file == file)
}

/// How a figure names its seed: the citation's short label, or the file's
/// number for a file this tasklab does not know.
pub fn cite_short(file: &str) -> String {
    citation(file).map_or_else(
        || format!("seed {}", &file[..3.min(file.len())]),
        |c| c.short.to_string(),
    )
}

/// `text` with every "seed NNN" (or "Seed NNN") of a known seed file named
/// by its citation's short label instead: an older results file's findings
/// named the seeds by number.
pub fn cite_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("eed ") {
        let start = i.saturating_sub(1);
        let word = &rest[start..];
        let number = word
            .get(5..8)
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()));
        let whole = (word.starts_with("seed ") || word.starts_with("Seed "))
            && word[8.min(word.len())..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_ascii_digit())
            && (start == 0 || !rest[..start].ends_with(|c: char| c.is_alphanumeric()));
        match number
            .filter(|_| whole)
            .and_then(|n| CITATIONS.iter().find(|c| c.file.starts_with(n)))
        {
            Some(c) => {
                out.push_str(&rest[..start]);
                out.push_str(c.short);
                rest = &rest[start + 8..];
            }
            None => {
                out.push_str(&rest[..i + 4]);
                rest = &rest[i + 4..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The anchor a report gives an article: one per article, not per file.
pub fn anchor(file: &str) -> String {
    let first = citation(file)
        .and_then(|c| CITATIONS.iter().find(|o| o.short == c.short))
        .map_or(file, |c| c.file);
    format!("seed-{}", &first[..3.min(first.len())])
}
