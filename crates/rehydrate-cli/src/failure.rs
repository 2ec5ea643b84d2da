//! Why a command failed, and the exit code that says so.

/// A failed command: bad input or usage (exit 2), a verification failure (exit 1) listing
/// every failed check, evidence over its size limit (exit 3), divergence signals that say
/// freeze (exit 4), or some of several session files that `reduce` could not reduce (exit 5).
#[derive(Debug)]
pub(crate) enum Failure {
    /// Bad input or usage: exit 2, one line.
    Input(String),
    /// Verification failed: exit 1, one line per failed check.
    Verify(Vec<String>),
    /// The projected evidence is over its size limit: exit 3, one line naming
    /// `evidence-too-large`.
    TooLarge(String),
    /// The divergence signals decided freeze: exit 4, one line with the reasons (the report
    /// itself is on stdout).
    Freeze(String),
    /// `rehydrate call` answered with a tool error: exit 1, nothing on stderr (the error text
    /// is the tool result, already on stdout).
    ToolError,
    /// Some of several session files failed, each already reported on its own: exit 5, one
    /// line counting them.
    SomeFailed(String),
}

impl Failure {
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            Failure::Input(_) => 2,
            Failure::Verify(_) => 1,
            Failure::TooLarge(_) => 3,
            Failure::Freeze(_) => 4,
            Failure::ToolError => 1,
            Failure::SomeFailed(_) => 5,
        }
    }

    /// The kind of failure, as the summary of several files groups them: `input-error`,
    /// `verification-failed`, `too-large`, `freeze`, `tool-error` or `some-failed`.
    pub(crate) fn reason(&self) -> &'static str {
        match self {
            Failure::Input(_) => "input-error",
            Failure::Verify(_) => "verification-failed",
            Failure::TooLarge(_) => "too-large",
            Failure::Freeze(_) => "freeze",
            Failure::ToolError => "tool-error",
            Failure::SomeFailed(_) => "some-failed",
        }
    }

    pub(crate) fn lines(&self) -> Vec<String> {
        match self {
            Failure::Input(line)
            | Failure::TooLarge(line)
            | Failure::Freeze(line)
            | Failure::SomeFailed(line) => vec![line.clone()],
            Failure::Verify(lines) => lines.clone(),
            Failure::ToolError => Vec::new(),
        }
    }
}

/// Shorthand for a bad-input failure.
pub(crate) fn input(msg: impl Into<String>) -> Failure {
    Failure::Input(msg.into())
}

impl From<rehydrate::formats::Error> for Failure {
    fn from(e: rehydrate::formats::Error) -> Self {
        Failure::Input(e.to_string())
    }
}

/// A store error is a verification failure when a session directory is damaged, and bad input
/// otherwise (not an output directory, a lock held, a file the system refused).
impl From<rehydrate::store::Error> for Failure {
    fn from(e: rehydrate::store::Error) -> Self {
        match e {
            rehydrate::store::Error::DirDamaged(lines) => Failure::Verify(lines),
            e => Failure::Input(e.to_string()),
        }
    }
}

/// A sidecar error is a verification failure when bytes or structure do not verify, and bad
/// input when the request itself is wrong (an unknown id, a bad range).
impl From<rehydrate::sidecar::Error> for Failure {
    fn from(e: rehydrate::sidecar::Error) -> Self {
        use rehydrate::sidecar::Error as E;
        match e {
            E::UnknownId { .. } | E::ReversedRange { .. } | E::RangeBeyondEnd { .. } => {
                Failure::Input(e.to_string())
            }
            _ => Failure::Verify(vec![e.to_string()]),
        }
    }
}
