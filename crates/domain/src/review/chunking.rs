//! Splitting a file's diff so each piece fits the model's context.

/// Splits `diff` into pieces of at most `max_chars` (roughly 4 characters a token),
/// cutting between hunks, and inside a hunk that alone is too large at line
/// boundaries with a rewritten `@@` header, so every piece is a valid diff whose line
/// numbers stay true.
#[must_use]
pub fn split(diff: &str, max_chars: usize) -> Vec<String> {
    let max_chars = max_chars.max(200);
    if diff.len() <= max_chars {
        return vec![diff.to_owned()];
    }
    let mut pieces: Vec<String> = Vec::new();
    let mut current = String::new();
    for hunk in hunks(diff) {
        for part in split_hunk(&hunk, max_chars) {
            if !current.is_empty() && current.len() + part.len() > max_chars {
                pieces.push(std::mem::take(&mut current));
            }
            current.push_str(&part);
        }
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    pieces
}

/// `(old_start, new_start, lines)` of each hunk; text before the first header is dropped.
fn hunks(diff: &str) -> Vec<(u32, u32, Vec<&str>)> {
    let mut out: Vec<(u32, u32, Vec<&str>)> = Vec::new();
    for line in diff.lines() {
        if let Some((old, new)) = header(line) {
            out.push((old, new, Vec::new()));
        } else if let Some(last) = out.last_mut() {
            last.2.push(line);
        }
    }
    out
}

fn header(line: &str) -> Option<(u32, u32)> {
    let rest = line.strip_prefix("@@ ")?;
    let mut parts = rest.split_whitespace();
    let old = parts
        .next()?
        .strip_prefix('-')?
        .split(',')
        .next()?
        .parse()
        .ok()?;
    let new = parts
        .next()?
        .strip_prefix('+')?
        .split(',')
        .next()?
        .parse()
        .ok()?;
    Some((old, new))
}

fn render(old_start: u32, new_start: u32, lines: &[&str]) -> String {
    let old_count = lines
        .iter()
        .filter(|l| !l.starts_with('+') && !l.starts_with('\\'))
        .count();
    let new_count = lines
        .iter()
        .filter(|l| !l.starts_with('-') && !l.starts_with('\\'))
        .count();
    let mut text = format!("@@ -{old_start},{old_count} +{new_start},{new_count} @@\n");
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text
}

fn split_hunk(hunk: &(u32, u32, Vec<&str>), max_chars: usize) -> Vec<String> {
    let (mut old, mut new, lines) = (hunk.0, hunk.1, &hunk.2);
    let whole = render(old, new, lines);
    if whole.len() <= max_chars {
        return vec![whole];
    }
    let mut parts = Vec::new();
    let mut start = 0;
    let mut size = 0;
    for (i, line) in lines.iter().enumerate() {
        if size + line.len() + 1 > max_chars.saturating_sub(40) && i > start {
            let piece = &lines[start..i];
            parts.push(render(old, new, piece));
            old += piece
                .iter()
                .filter(|l| !l.starts_with('+') && !l.starts_with('\\'))
                .count() as u32;
            new += piece
                .iter()
                .filter(|l| !l.starts_with('-') && !l.starts_with('\\'))
                .count() as u32;
            start = i;
            size = 0;
        }
        size += line.len() + 1;
    }
    parts.push(render(old, new, &lines[start..]));
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::diff_lines::DiffLines;

    fn big_hunk(lines: u32) -> String {
        let mut d = format!("@@ -1,{lines} +1,{lines} @@\n");
        for i in 1..=lines {
            d.push_str(&format!("+line number {i} with some padding text\n"));
        }
        d
    }

    #[test]
    fn small_diffs_stay_whole() {
        let d = "@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(split(d, 10_000), vec![d.to_owned()]);
    }

    #[test]
    fn pieces_fit_and_keep_true_line_numbers() {
        let diff = big_hunk(300);
        let pieces = split(&diff, 2_000);
        assert!(pieces.len() > 3);
        assert!(pieces.iter().all(|p| p.len() <= 2_000), "every piece fits");
        let added: Vec<u32> = pieces
            .iter()
            .flat_map(|p| DiffLines::parse(p).added().collect::<Vec<_>>())
            .collect();
        assert_eq!(
            added,
            (1..=300).collect::<Vec<_>>(),
            "no line lost, none renumbered"
        );
    }

    #[test]
    fn whole_hunks_are_kept_together_when_they_fit() {
        let diff = format!(
            "{}{}",
            "@@ -1,2 +1,2 @@\n-a\n+b\n c\n", "@@ -50,2 +50,2 @@\n-x\n+y\n z\n"
        );
        let pieces = split(&diff, 200);
        assert_eq!(pieces.len(), 1);
        let lines = DiffLines::parse(&pieces[0]);
        assert_eq!(lines.added().collect::<Vec<_>>(), vec![1, 50]);
    }
}
