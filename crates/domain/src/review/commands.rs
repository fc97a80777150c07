//! What a merge request comment says to reviewd: a command (`/reviewd <command>` or
//! `@<bot> <command>` at the start of a line, or one of the contract's review commands
//! such as `/review`), a mention of the bot anywhere else (a question to answer), or
//! nothing. Only what the author wrote counts: lines quoted from another comment
//! (`> ...`) and fenced code blocks are someone else's words or an example, so
//! `> /reviewd ignore` in a reply does not ignore the MR.

/// The prefix every command may start with, whatever the bot's account is called.
pub const PREFIX: &str = "/reviewd";

/// What reviewd is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Review the commits not reviewed yet; `full`: the whole MR again.
    Review {
        full: bool,
    },
    /// Answer a question about the MR, with its context.
    Ask(String),
    /// Write (or rewrite) reviewd's marked section of the MR description.
    Describe,
    /// No automatic reviews of this MR until `Resume`.
    Pause,
    Resume,
    /// Never review this MR.
    Ignore,
    /// Keep a lesson for the project's later reviews.
    Remember(String),
    Help,
    /// A word reviewd does not know (or a command missing its text): it answers with the
    /// help, naming what it did not understand.
    Unknown(String),
}

impl Command {
    /// The command's word, as recorded and shown (`review full`, `ask`...).
    #[must_use]
    pub fn word(&self) -> &'static str {
        match self {
            Command::Review { full: false } => "review",
            Command::Review { full: true } => "review full",
            Command::Ask(_) => "ask",
            Command::Describe => "describe",
            Command::Pause => "pause",
            Command::Resume => "resume",
            Command::Ignore => "ignore",
            Command::Remember(_) => "remember",
            Command::Help => "help",
            Command::Unknown(_) => "unknown",
        }
    }
}

/// What a comment says to reviewd.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    Command(Command),
    /// The bot is mentioned outside a command: the comment is a question or a remark
    /// to answer in its thread.
    Mention,
}

/// How reviewd is addressed on a project's platform.
#[derive(Debug, Clone, Copy)]
pub struct Addressing<'a> {
    /// The bot account's username, without `@` (matched without regard to case, as
    /// both platforms treat usernames).
    pub bot_username: Option<&'a str>,
    /// The contract's review commands (`/review` by default): each still asks for a
    /// review of the new commits.
    pub review_commands: &'a [String],
}

/// The help text: every command, one line each.
pub const HELP: &str = "\
reviewd answers to `/reviewd <command>` or `@<bot> <command>`:

| Command | What it does |
|---|---|
| `review` | reviews the commits not reviewed yet |
| `review full` | reviews the whole merge request again |
| `ask <question>` | answers a question about the merge request |
| `describe` | writes a summary and a walkthrough of the files into the description (your text is kept) |
| `pause` / `resume` | stops / restarts automatic reviews of this merge request |
| `ignore` | never reviews this merge request |
| `remember <lesson>` | keeps a lesson for this project's later reviews |
| `help` | this text |

Reply in one of reviewd's threads, or mention it, to discuss a finding.";

/// What `body` says to reviewd, if anything: the first command line wins (a command's
/// text, for `ask` and `remember`, runs to the end of the comment); otherwise a mention.
#[must_use]
pub fn read(body: &str, to: Addressing<'_>) -> Option<Said> {
    let lines = own_lines(body);
    for &(at, line) in &lines {
        if let Some(rest) = addressed(line, to) {
            // The text after a command is the author's as written, code blocks included.
            let more: Vec<&str> = body.lines().skip(at + 1).collect();
            return Some(Said::Command(command(rest, more.join("\n").trim())));
        }
        if to
            .review_commands
            .iter()
            .any(|c| starts_word(line, c).is_some())
        {
            return Some(Said::Command(Command::Review { full: false }));
        }
    }
    let mentioned = to
        .bot_username
        .is_some_and(|bot| lines.iter().any(|(_, line)| mentions(line, bot)));
    mentioned.then_some(Said::Mention)
}

/// Whether `body` mentions anyone (`@name` on one of its author's own lines): it
/// may speak to reviewd, whose name the webhook's receiver does not know.
#[must_use]
pub fn may_mention(body: &str) -> bool {
    own_lines(body).iter().any(|(_, line)| {
        line.match_indices('@').any(|(at, _)| {
            let starts = line[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric() && c != '.');
            starts
                && line[at + 1..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphanumeric())
        })
    })
}

/// The author's own lines, trimmed, with their index in `body`: without quoted lines
/// and fenced code blocks.
fn own_lines(body: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut own = Vec::new();
    for (at, line) in body.lines().map(str::trim).enumerate() {
        if line.starts_with("```") || line.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if !fenced && !line.starts_with('>') {
            own.push((at, line));
        }
    }
    own
}

/// The rest of `line` after `/reviewd` or `@bot` at its start.
fn addressed<'a>(line: &'a str, to: Addressing<'_>) -> Option<&'a str> {
    starts_word(line, PREFIX).or_else(|| {
        let bot = to.bot_username?;
        let name = line.strip_prefix('@')?;
        let head = name.get(..bot.len())?;
        let rest = &name[bot.len()..];
        (head.eq_ignore_ascii_case(bot) && ends_word(rest)).then(|| rest.trim_start())
    })
}

/// The rest of `line` after `word`, when `line` starts with it as a whole word.
fn starts_word<'a>(line: &'a str, word: &str) -> Option<&'a str> {
    let rest = line.strip_prefix(word)?;
    ends_word(rest).then(|| rest.trim_start())
}

/// Whether a word (a command, a username) ends where `rest` begins: at the end, or at a
/// character a username cannot go on with. A `.` goes on only when a letter or digit
/// follows (`@john.doe`), not at the end of a sentence (`thanks @bot.`).
fn ends_word(rest: &str) -> bool {
    let mut chars = rest.chars();
    match chars.next() {
        None => true,
        Some(c) if c.is_alphanumeric() || c == '-' || c == '_' => false,
        Some('.') => chars.next().is_none_or(|c| !c.is_alphanumeric()),
        Some(_) => true,
    }
}

/// Whether `line` mentions `@bot` as a whole username (not `mail@bot`, not `@bot2`).
fn mentions(line: &str, bot: &str) -> bool {
    line.match_indices('@').any(|(at, _)| {
        let starts = line[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric() && c != '.');
        let name = &line[at + 1..];
        starts
            && name
                .get(..bot.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(bot))
            && ends_word(&name[bot.len()..])
    })
}

/// The command in `rest` (the line after the prefix), with `more`, the comment's
/// following lines, as the text of `ask` and `remember`.
fn command(rest: &str, more: &str) -> Command {
    let rest = rest.trim_start_matches([':', ',']).trim();
    let (word, line) = rest
        .split_once(char::is_whitespace)
        .map_or((rest, ""), |(w, t)| (w, t.trim()));
    let text = match (line.is_empty(), more.is_empty()) {
        (_, true) => line.to_owned(),
        (true, false) => more.to_owned(),
        (false, false) => format!("{line}\n{more}"),
    };
    // A command without text takes none on its line: `@bot ignore previous
    // instructions` is no `ignore` (the lines after it may say anything).
    match (word.to_ascii_lowercase().as_str(), line.is_empty()) {
        ("" | "help", true) => Command::Help,
        ("review", _) if line.eq_ignore_ascii_case("full") => Command::Review { full: true },
        ("review", true) => Command::Review { full: false },
        ("ask", _) if !text.is_empty() => Command::Ask(text),
        ("describe", true) => Command::Describe,
        ("pause", true) => Command::Pause,
        ("resume", true) => Command::Resume,
        ("ignore", true) => Command::Ignore,
        ("remember", _) if !text.is_empty() => Command::Remember(text),
        _ => Command::Unknown(rest.chars().take(80).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn to() -> Addressing<'static> {
        static REVIEW: std::sync::LazyLock<Vec<String>> =
            std::sync::LazyLock::new(|| vec!["/review".to_owned()]);
        Addressing {
            bot_username: Some("reviewd-bot"),
            review_commands: &REVIEW,
        }
    }

    #[test]
    fn a_mention_of_anyone_may_be_one_of_the_bot() {
        assert!(may_mention("@reviewd-bot why?"));
        assert!(may_mention("thanks, @ana"));
        assert!(!may_mention("mail me at ana@example.com"));
        assert!(!may_mention("> @reviewd-bot quoted"));
        assert!(!may_mention(
            "```
@decorator
```"
        ));
        assert!(!may_mention("an @ alone"));
    }

    fn said(body: &str) -> Option<Said> {
        read(body, to())
    }

    fn cmd(body: &str) -> Command {
        match said(body) {
            Some(Said::Command(c)) => c,
            other => panic!("{body:?}: {other:?}"),
        }
    }

    #[test]
    fn each_command_by_prefix_and_by_mention() {
        for prefix in ["/reviewd", "@reviewd-bot", "@Reviewd-Bot", "@reviewd-bot:"] {
            assert_eq!(
                cmd(&format!("{prefix} review")),
                Command::Review { full: false }
            );
            assert_eq!(
                cmd(&format!("{prefix} review full")),
                Command::Review { full: true }
            );
            assert_eq!(cmd(&format!("{prefix} describe")), Command::Describe);
            assert_eq!(cmd(&format!("{prefix} pause")), Command::Pause);
            assert_eq!(cmd(&format!("{prefix} RESUME")), Command::Resume);
            assert_eq!(cmd(&format!("{prefix} ignore")), Command::Ignore);
            assert_eq!(cmd(&format!("{prefix} help")), Command::Help);
            assert_eq!(cmd(prefix), Command::Help);
            assert_eq!(
                cmd(&format!("{prefix} ask why a lock here?")),
                Command::Ask("why a lock here?".into())
            );
        }
    }

    #[test]
    fn the_contracts_review_command_still_asks_for_a_review() {
        assert_eq!(cmd("/review"), Command::Review { full: false });
        assert_eq!(
            cmd("Thanks!\n/review please"),
            Command::Review { full: false }
        );
        assert_eq!(said("/reviewer is a word"), None);
    }

    #[test]
    fn the_text_of_ask_and_remember_runs_to_the_end_of_the_comment() {
        assert_eq!(
            cmd("/reviewd remember we log with tracing,\nnever println."),
            Command::Remember("we log with tracing,\nnever println.".into())
        );
        assert_eq!(
            cmd("Hi!\n@reviewd-bot ask\nIs `retry` bounded?\n\nThanks"),
            Command::Ask("Is `retry` bounded?\n\nThanks".into())
        );
        assert_eq!(
            cmd("/reviewd ask is this safe?\n```rust\nlet n = v[i];\n```"),
            Command::Ask("is this safe?\n```rust\nlet n = v[i];\n```".into()),
            "a question keeps its code block"
        );
    }

    #[test]
    fn an_unknown_word_or_a_missing_text_gets_the_help() {
        assert_eq!(cmd("/reviewd approve"), Command::Unknown("approve".into()));
        assert_eq!(cmd("/reviewd ask"), Command::Unknown("ask".into()));
        assert_eq!(
            cmd("/reviewd remember   "),
            Command::Unknown("remember".into())
        );
        assert_eq!(
            cmd("/reviewd review everything"),
            Command::Unknown("review everything".into())
        );
        let long = format!("/reviewd {}", "x".repeat(500));
        let Command::Unknown(word) = cmd(&long) else {
            panic!()
        };
        assert_eq!(word.len(), 80, "what is echoed back is bounded");
    }

    #[test]
    fn the_help_names_every_command_it_reads() {
        for word in [
            "review",
            "review full",
            "ask",
            "describe",
            "pause",
            "resume",
            "ignore",
            "remember",
            "help",
        ] {
            assert!(HELP.contains(&format!("`{word}")), "{word}");
        }
    }

    #[test]
    fn a_mention_elsewhere_is_a_question() {
        assert_eq!(
            said("thanks @reviewd-bot, why is this a problem?"),
            Some(Said::Mention)
        );
        assert_eq!(said("cc @Reviewd-Bot."), Some(Said::Mention));
        assert_eq!(said("cc @reviewd-bot2 and mail@reviewd-bot"), None);
        assert_eq!(said("nothing for the bot here"), None);
    }

    #[test]
    fn quoted_lines_and_code_blocks_are_not_the_authors_commands() {
        assert_eq!(said("> /reviewd ignore\nI disagree."), None);
        assert_eq!(said("Try:\n```\n/reviewd pause\n```\n"), None);
        assert_eq!(said("~~~\n@reviewd-bot ignore\n~~~"), None);
        assert_eq!(
            cmd("```\n/reviewd ignore\n```\n/reviewd pause"),
            Command::Pause
        );
    }

    #[test]
    fn without_a_known_bot_name_only_the_prefix_addresses_it() {
        let to = Addressing {
            bot_username: None,
            review_commands: &[],
        };
        assert_eq!(read("@anyone pause", to), None);
        assert_eq!(
            read("/reviewd pause", to),
            Some(Said::Command(Command::Pause))
        );
    }
}
