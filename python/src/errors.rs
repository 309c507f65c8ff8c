//! The package's exceptions, raised from Rust. They are Python classes (`kumite/errors.py`:
//! `RuleError` is also a `ValueError`, the others `RuntimeError`s, which one exception type
//! made here could not be), made with their attributes.

use crate::*;

/// An instance of `kumite.errors.<class>` made from `args`, as the error to raise (or the
/// error of importing it).
fn raise<'py>(py: Python<'py>, class: &str, args: impl pyo3::call::PyCallArgs<'py>) -> PyErr {
    py.import("kumite.errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1(args))
        .map_or_else(|e| e, PyErr::from_value)
}

/// `RuleError(message, diagnostics)`: a rule file that does not compile.
pub(crate) fn rule_error(py: Python<'_>, message: String, diagnostics: Bound<'_, PyList>) -> PyErr {
    raise(py, "RuleError", (message, diagnostics))
}

/// `RuleRuntimeError(message, line, side)`: a rule failed while being played.
pub(crate) fn rule_runtime_error(py: Python<'_>, e: &RuntimeError) -> PyErr {
    raise(
        py,
        "RuleRuntimeError",
        (e.message.as_str(), e.line, e.side.name()),
    )
}

/// `Cancelled()`: a solve stopped because it was asked to.
pub(crate) fn cancelled(py: Python<'_>) -> PyErr {
    raise(py, "Cancelled", ("cancelled",))
}

/// `LimitExceeded(message)`: a solve ran out of its time or positions.
pub(crate) fn limit_exceeded(py: Python<'_>, message: String) -> PyErr {
    raise(py, "LimitExceeded", (message,))
}
