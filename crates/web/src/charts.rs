//! Charts as SVG drawn on the server: no chart library in the browser. Each returns
//! markup with every label escaped, sized by `viewBox` so it scales with the page.

use std::fmt::Write;

/// One bar: a label under it and its value.
pub struct Bar {
    pub label: String,
    pub value: f64,
}

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 180.0;
const BOTTOM: f64 = 22.0;
const TOP: f64 = 16.0;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A bar chart of `bars`, titled `title` for screen readers; an empty-state text when
/// every value is zero.
pub fn bars(title: &str, bars: &[Bar]) -> String {
    let max = bars.iter().map(|b| b.value).fold(0.0_f64, f64::max);
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{}"><title>{}</title>"#,
        escape(title),
        escape(title)
    );
    if bars.is_empty() || max <= 0.0 {
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle" class="chart-empty">No data yet</text></svg>"#,
            WIDTH / 2.0,
            HEIGHT / 2.0
        );
        return svg;
    }
    #[expect(clippy::cast_precision_loss, reason = "a handful of bars")]
    let slot = WIDTH / bars.len() as f64;
    let plot = HEIGHT - BOTTOM - TOP;
    for (i, bar) in bars.iter().enumerate() {
        #[expect(clippy::cast_precision_loss, reason = "a handful of bars")]
        let x = i as f64 * slot + slot * 0.15;
        let h = (bar.value / max * plot).max(if bar.value > 0.0 { 1.0 } else { 0.0 });
        let y = TOP + plot - h;
        let w = slot * 0.7;
        let _ = write!(
            svg,
            r#"<g><title>{label}: {value}</title><rect class="bar" x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" rx="2"/>"#,
            label = escape(&bar.label),
            value = bar.value
        );
        if bar.value > 0.0 {
            let _ = write!(
                svg,
                r#"<text class="chart-value" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                x + w / 2.0,
                y - 3.0,
                bar.value
            );
        }
        let _ = write!(
            svg,
            r#"<text class="chart-label" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text></g>"#,
            x + w / 2.0,
            HEIGHT - 6.0,
            escape(&bar.label)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// A line of `points` (oldest first) between 0 and `max` (or the largest point).
pub fn line(title: &str, points: &[f64], max: Option<f64>) -> String {
    let top = max.unwrap_or_else(|| points.iter().copied().fold(0.0, f64::max));
    let mut svg = format!(
        r#"<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{t}"><title>{t}</title>"#,
        t = escape(title)
    );
    if points.len() < 2 || top <= 0.0 {
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle" class="chart-empty">Not enough samples yet</text></svg>"#,
            WIDTH / 2.0,
            HEIGHT / 2.0
        );
        return svg;
    }
    #[expect(clippy::cast_precision_loss, reason = "at most a few hundred samples")]
    let step = WIDTH / (points.len() - 1) as f64;
    let plot = HEIGHT - TOP - 4.0;
    let path: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, v)| {
            #[expect(clippy::cast_precision_loss, reason = "at most a few hundred samples")]
            let x = i as f64 * step;
            let y = TOP + plot - (v / top).clamp(0.0, 1.0) * plot;
            format!("{x:.1},{y:.1}")
        })
        .collect();
    let _ = write!(
        svg,
        r#"<polyline class="line" fill="none" points="{}"/><text class="chart-label" x="4" y="12">max {top:.1}</text></svg>"#,
        path.join(" ")
    );
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_escaped_and_bars_scaled() {
        let svg = bars(
            "Reviews",
            &[
                Bar {
                    label: "<script>".to_owned(),
                    value: 2.0,
                },
                Bar {
                    label: "b".to_owned(),
                    value: 4.0,
                },
            ],
        );
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("&lt;script&gt;"));
        // The largest bar fills the plot height.
        assert!(svg.contains(&format!("height=\"{:.1}\"", HEIGHT - BOTTOM - TOP)));
    }

    #[test]
    fn empty_data_says_so() {
        assert!(bars("x", &[]).contains("No data yet"));
        assert!(line("x", &[1.0], None).contains("Not enough samples"));
    }
}
