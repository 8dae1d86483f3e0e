//! Why a network could not be built: the kernel or the options (the user's to change), or a
//! broken invariant of dpnc's own (a bug to report).

use dpnc_frontend::Diagnostic;

/// An error from network construction or its analyses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Something about the kernel or the options that the user can change: where, what and
    /// how to fix it.
    #[error(transparent)]
    User(#[from] Diagnostic),
    /// A fault of dpnc's: an invariant of the construction or of isl's answers does not hold.
    /// Not the kernel's fault; the message says what broke.
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// An internal fault with this description.
    pub fn internal(what: impl Into<String>) -> Error {
        Error::Internal(what.into())
    }

    /// The error as a diagnostic to print; an internal fault says it is a bug in dpnc and
    /// what to report.
    pub fn into_diagnostic(self) -> Diagnostic {
        match self {
            Error::User(d) => d,
            Error::Internal(what) => Diagnostic::bug(None, what),
        }
    }
}

/// Construction's results.
pub type Result<T> = std::result::Result<T, Error>;
