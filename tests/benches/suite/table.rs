//! The one table `just bench` prints: a row per measure, with the bound or baseline
//! measured in the same run beside it, their ratio and the target.

use std::fmt::Write as _;

/// Whether a row meets its target (`Info` for rows without one).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Met,
    Missed,
    Info,
}

impl Verdict {
    pub fn of(met: bool) -> Verdict {
        if met { Verdict::Met } else { Verdict::Missed }
    }

    fn mark(self) -> &'static str {
        match self {
            Verdict::Met => "met",
            Verdict::Missed => "**missed**",
            Verdict::Info => "",
        }
    }
}

pub struct Row {
    pub section: &'static str,
    pub measure: String,
    pub value: String,
    /// The bound or baseline, measured in the same run ("" when none applies).
    pub bound: String,
    /// value / bound, as a percentage or a factor ("" when none applies).
    pub ratio: String,
    pub target: String,
    pub verdict: Verdict,
}

impl Row {
    /// A row without a bound or a target: a figure the others are read against.
    pub fn info(
        section: &'static str,
        measure: impl Into<String>,
        value: impl Into<String>,
    ) -> Row {
        Row {
            section,
            measure: measure.into(),
            value: value.into(),
            bound: String::new(),
            ratio: String::new(),
            target: String::new(),
            verdict: Verdict::Info,
        }
    }

    pub fn bound(mut self, bound: impl Into<String>, ratio: impl Into<String>) -> Row {
        self.bound = bound.into();
        self.ratio = ratio.into();
        self
    }

    pub fn target(mut self, target: impl Into<String>, met: bool) -> Row {
        self.target = target.into();
        self.verdict = Verdict::of(met);
        self
    }
}

#[derive(Default)]
pub struct Table {
    pub rows: Vec<Row>,
}

impl Table {
    /// Adds a row and prints it at once, so a long run shows its progress.
    pub fn push(&mut self, row: Row) {
        println!(
            "  [{}] {}: {}{}{}",
            row.section,
            row.measure,
            row.value,
            if row.bound.is_empty() {
                String::new()
            } else {
                format!(" (bound {}: {})", row.bound, row.ratio)
            },
            if row.target.is_empty() {
                String::new()
            } else {
                format!(" target {} {}", row.target, row.verdict.mark())
            }
        );
        self.rows.push(row);
    }

    /// The table in Markdown, as docs/benchmarks.md holds it.
    pub fn markdown(&self) -> String {
        let mut out = String::from(
            "| section | measure | value | bound or baseline (same run) | ratio | target | |\n\
             |---|---|---|---|---|---|---|\n",
        );
        for r in &self.rows {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} |",
                r.section,
                r.measure,
                r.value,
                r.bound,
                r.ratio,
                r.target,
                r.verdict.mark()
            );
        }
        out
    }

    pub fn missed(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.verdict == Verdict::Missed)
            .count()
    }
}

/// `part / whole` as a percentage.
pub fn percent(part: f64, whole: f64) -> String {
    if whole > 0.0 {
        format!("{:.0} %", 100.0 * part / whole)
    } else {
        "n/a".to_owned()
    }
}

/// Microseconds as milliseconds with two decimals.
pub fn ms(us: u64) -> String {
    format!("{:.2} ms", us as f64 / 1000.0)
}
