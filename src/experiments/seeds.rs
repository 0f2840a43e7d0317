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
pub const BENDERSKY_HW: &str = "Intel Core i7-4771 (Haswell), 2018";
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

/// Every seed file, cited. Two files (001 and 004) are the same article.
pub static CITATIONS: &[Citation] = &[
    Citation {
        file: SEED_CLONE,
        short: "Bendersky 2018, clone",
        author: "Eli Bendersky",
        title: "Launching Linux threads and processes with clone",
        year: Some(2018),
    },
    Citation {
        file: SEED_SYSEL_TEXT,
        short: "Sysel",
        author: SYSEL_AUTHOR,
        title: SYSEL_TITLE,
        year: None,
    },
    Citation {
        file: SEED_SWITCH,
        short: "Bendersky 2018, switching",
        author: "Eli Bendersky",
        title: "Measuring context switching and memory overheads for Linux threads",
        year: Some(2018),
    },
    Citation {
        file: SEED_FORK,
        short: "Linux Fu",
        author: "Hackaday Linux Fu",
        title: "An Odd Use For Fork()",
        year: None,
    },
    Citation {
        file: SEED_SYSEL,
        short: "Sysel",
        author: SYSEL_AUTHOR,
        title: SYSEL_TITLE,
        year: None,
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

/// The anchor a report gives an article: one per article, not per file.
pub fn anchor(file: &str) -> String {
    let first = citation(file)
        .and_then(|c| CITATIONS.iter().find(|o| o.short == c.short))
        .map_or(file, |c| c.file);
    format!("seed-{}", &first[..3.min(first.len())])
}
