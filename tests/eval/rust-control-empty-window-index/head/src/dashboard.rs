//! The dashboard's JSON view of the history.

use crate::history::History;
use serde::Serialize;

#[derive(Serialize)]
pub struct Summary {
    pub snapshots: usize,
    pub error_rate: f64,
}

pub fn summary(history: &History) -> Summary {
    Summary {
        snapshots: history.len(),
        error_rate: history.error_rate(),
    }
}

pub fn render(history: &History) -> String {
    serde_json::to_string(&summary(history)).unwrap_or_else(|_| "{}".into())
}

#[cfg(test)]
mod tests {
    #[test]
    fn empty_history_renders() {
        let h = super::History::new(4);
        assert!(super::render(&h).contains("\"snapshots\":0"));
    }
}
