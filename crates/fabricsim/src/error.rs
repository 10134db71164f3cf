//! The one error type of the crate, shaped so every message can name the
//! file, the key, the offending value and what is allowed.

use serde::Serialize;

/// What went wrong, by family; the Python package maps each to an exception class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    /// The scenario is malformed or asks for something impossible.
    Scenario,
    /// The model stopped abnormally (e.g. a deadlock) or broke an invariant.
    Model,
}

#[derive(Clone, Debug, PartialEq, Serialize, thiserror::Error)]
#[error("{}", self.render())]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    pub file: Option<String>,
    pub key: Option<String>,
    pub value: Option<String>,
    pub allowed: Option<String>,
}

impl Error {
    /// A scenario error about `key` having `value`, which is not within `allowed`.
    pub fn invalid(key: &str, value: impl ToString, allowed: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Scenario,
            message: "value not allowed".into(),
            file: None,
            key: Some(key.to_string()),
            value: Some(value.to_string()),
            allowed: Some(allowed.into()),
        }
    }

    pub fn scenario(message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Scenario, message: message.into(), file: None, key: None, value: None, allowed: None }
    }

    pub fn model(message: impl Into<String>) -> Self {
        Error { kind: ErrorKind::Model, message: message.into(), file: None, key: None, value: None, allowed: None }
    }

    pub fn in_file(mut self, file: &str) -> Self {
        self.file = Some(file.to_string());
        self
    }

    /// In `file`, unless it is about a file the scenario names (an
    /// opensm.conf's line), whose key and value it quotes.
    pub fn or_in_file(self, file: &str) -> Self {
        if self.file.is_some() {
            self
        } else {
            self.in_file(file)
        }
    }

    pub fn with_key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// The same error with a message other than "value not allowed".
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = message.into();
        self
    }

    fn render(&self) -> String {
        let mut s = String::new();
        if let Some(f) = &self.file {
            s.push_str(f);
            s.push_str(": ");
        }
        match (&self.key, &self.value) {
            (Some(k), Some(v)) => s.push_str(&format!("key `{k}` = {v}: {}", self.message)),
            (Some(k), None) => s.push_str(&format!("key `{k}`: {}", self.message)),
            _ => s.push_str(&self.message),
        }
        if let Some(a) = &self.allowed {
            s.push_str(&format!("; allowed: {a}"));
        }
        // A key or value as written may hold a newline or other control
        // character: escape it, so that an error is always one line.
        s.chars().flat_map(|c| if c.is_control() { c.escape_default().collect() } else { vec![c] }).collect()
    }
}

pub type Result<T> = std::result::Result<T, Error>;
