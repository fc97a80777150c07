//! The table `reviewd eval` prints, per case and in total, and its JSON form.

use crate::run::CaseResult;
use crate::score::Matches;
use serde::Serialize;

/// One configuration's results over the cases.
#[derive(Debug, Clone)]
pub struct Report {
    pub target: String,
    pub context: &'static str,
    pub cases: Vec<CaseResult>,
}

/// The totals of a report.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub cases: usize,
    pub goldens: usize,
    pub found: usize,
    pub comments: usize,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub f1: Option<f64>,
    /// Golden findings whose evidence all reached their file's prompt.
    pub context_recall: Option<f64>,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cached_tokens: u64,
    /// Of the prompt tokens, the share a provider served (or could serve) from
    /// its prefix cache.
    pub cached_share: Option<f64>,
    pub cost_usd: Option<f64>,
    /// Prompt characters over diff characters, mean and 90th percentile per case.
    pub prompt_to_diff_mean: Option<f64>,
    pub prompt_to_diff_p90: Option<f64>,
    pub context_ms_p50: u64,
    pub context_ms_p99: u64,
    pub elapsed_ms: u64,
    pub failed_calls: usize,
}

impl Report {
    #[must_use]
    pub fn totals(&self) -> Totals {
        let mut matches = Matches::default();
        for c in &self.cases {
            matches.add(c.matches);
        }
        let reached: usize = self.cases.iter().map(|c| c.evidence_reached).sum();
        let prompt_tokens = self.cases.iter().map(|c| c.prompt_tokens).sum::<u64>();
        let cached_tokens = self.cases.iter().map(|c| c.cached_tokens).sum::<u64>();
        let mut ratios: Vec<f64> = self
            .cases
            .iter()
            .filter(|c| c.diff_chars > 0)
            .map(|c| c.prompt_chars as f64 / c.diff_chars as f64)
            .collect();
        ratios.sort_by(f64::total_cmp);
        let mut context_ms: Vec<u64> = self.cases.iter().map(|c| c.context_ms).collect();
        context_ms.sort_unstable();
        let costs: Vec<f64> = self.cases.iter().filter_map(|c| c.cost_usd).collect();
        Totals {
            cases: self.cases.len(),
            goldens: matches.goldens,
            found: matches.found,
            comments: matches.comments,
            precision: matches.precision(),
            recall: matches.recall(),
            f1: matches.f1(),
            context_recall: (matches.goldens > 0).then(|| reached as f64 / matches.goldens as f64),
            prompt_tokens,
            completion_tokens: self.cases.iter().map(|c| c.completion_tokens).sum(),
            cached_tokens,
            cached_share: (prompt_tokens > 0).then(|| cached_tokens as f64 / prompt_tokens as f64),
            cost_usd: (costs.len() == self.cases.len() && !costs.is_empty())
                .then(|| costs.iter().sum()),
            prompt_to_diff_mean: (!ratios.is_empty())
                .then(|| ratios.iter().sum::<f64>() / ratios.len() as f64),
            prompt_to_diff_p90: percentile_f(&ratios, 0.9),
            context_ms_p50: percentile(&context_ms, 0.5),
            context_ms_p99: percentile(&context_ms, 0.99),
            elapsed_ms: self.cases.iter().map(|c| c.elapsed_ms).sum(),
            failed_calls: self.cases.iter().map(|c| c.failed_calls).sum(),
        }
    }

    /// The table: one line per case, then the totals.
    #[must_use]
    pub fn table(&self) -> String {
        let mut out = format!(
            "{} (context: {})\n{:<34} {:<10} {:>5} {:>8} {:>6} {:>6} {:>6} {:>7} {:>8} {:>7} {:>9} {:>7}\n",
            self.target,
            self.context,
            "case",
            "language",
            "found",
            "comments",
            "prec",
            "recall",
            "F1",
            "ctx-rec",
            "prompt",
            "cached",
            "cost $",
            "time s"
        );
        for c in &self.cases {
            let m = c.matches;
            out.push_str(&format!(
                "{:<34} {:<10} {:>5} {:>8} {:>6} {:>6} {:>6} {:>7} {:>8} {:>7} {:>9} {:>7.2}\n",
                truncate(&c.id, 34),
                truncate(&c.language, 10),
                format!("{}/{}", m.found, m.goldens),
                m.comments,
                ratio(m.precision()),
                ratio(m.recall()),
                ratio(m.f1()),
                format!("{}/{}", c.evidence_reached, m.goldens),
                c.prompt_tokens,
                c.cached_tokens,
                c.cost_usd
                    .map_or_else(|| "-".to_owned(), |v| format!("{v:.4}")),
                c.elapsed_ms as f64 / 1000.0,
            ));
        }
        let t = self.totals();
        out.push_str(&format!(
            "{:<34} {:<10} {:>5} {:>8} {:>6} {:>6} {:>6} {:>7} {:>8} {:>7} {:>9} {:>7.2}\n",
            format!("total ({} cases)", t.cases),
            "",
            format!("{}/{}", t.found, t.goldens),
            t.comments,
            ratio(t.precision),
            ratio(t.recall),
            ratio(t.f1),
            ratio(t.context_recall),
            t.prompt_tokens,
            t.cached_tokens,
            t.cost_usd
                .map_or_else(|| "-".to_owned(), |v| format!("{v:.4}")),
            t.elapsed_ms as f64 / 1000.0,
        ));
        out.push_str(&format!(
            "prompt/diff size: mean {}, p90 {}; cached share of prompt tokens {}; context gathering p50 {} ms, p99 {} ms{}\n",
            t.prompt_to_diff_mean.map_or_else(|| "-".to_owned(), |v| format!("{v:.1}x")),
            t.prompt_to_diff_p90.map_or_else(|| "-".to_owned(), |v| format!("{v:.1}x")),
            ratio(t.cached_share),
            t.context_ms_p50,
            t.context_ms_p99,
            if t.failed_calls > 0 {
                format!("; {} failed call(s)", t.failed_calls)
            } else {
                String::new()
            }
        ));
        out
    }
}

fn ratio(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| format!("{:.0}%", v * 100.0))
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('~');
        t
    }
}

fn percentile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn percentile_f(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    Some(sorted[i.min(sorted.len() - 1)])
}

/// The JSON written with `--json`: each report's totals and cases.
#[must_use]
pub fn json(reports: &[Report]) -> serde_json::Value {
    serde_json::json!(
        reports
            .iter()
            .map(|r| serde_json::json!({
                "target": r.target,
                "context": r.context,
                "totals": r.totals(),
                "cases": r.cases.iter().map(|c| serde_json::json!({
                    "id": c.id,
                    "language": c.language,
                    "goldens": c.matches.goldens,
                    "found": c.matches.found,
                    "comments": c.matches.comments,
                    "evidenceReached": c.evidence_reached,
                    "promptTokens": c.prompt_tokens,
                    "cachedTokens": c.cached_tokens,
                    "completionTokens": c.completion_tokens,
                    "diffChars": c.diff_chars,
                    "promptChars": c.prompt_chars,
                    "contextMs": c.context_ms,
                    "contextTokens": c.context_tokens,
                    "pieces": c.pieces,
                    "elapsedMs": c.elapsed_ms,
                })).collect::<Vec<_>>(),
            }))
            .collect::<Vec<_>>()
    )
}
