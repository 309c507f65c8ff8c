//! Long solves that Python can stop: Ctrl-C, or a `cancel` object such as a `threading.Event`.

use crate::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

/// How often a waiting call looks at Python's signals and its `cancel` object.
const POLL: Duration = Duration::from_millis(50);

/// Runs `work` on a thread of its own and waits for it without the GIL, looking every [`POLL`]
/// for Ctrl-C and for `cancel.is_set()` (once before it starts too): either raises the flag
/// `work` is given, which stops it. Ctrl-C is then raised as the `KeyboardInterrupt` it is,
/// `cancel` as `Cancelled`; `work` giving up (None) unasked is `LimitExceeded`.
///
/// (The solve cannot look at Python itself: it runs without the GIL, so that other Python
/// threads — the one that sets `cancel` — go on meanwhile.)
pub(crate) fn run_cancellable<T: Send>(
    py: Python<'_>,
    cancel: Option<&Bound<'_, PyAny>>,
    work: impl FnOnce(&Arc<AtomicBool>) -> Option<T> + Send,
) -> PyResult<T> {
    // Ctrl-C (the signal handler's exception), then `cancel`.
    let asked = || -> PyResult<bool> {
        py.check_signals()?;
        match cancel {
            Some(c) => c.call_method0("is_set")?.is_truthy(),
            None => Ok(false),
        }
    };
    match asked() {
        Ok(false) => {}
        Ok(true) => return Err(cancelled(py)),
        Err(e) => return Err(e),
    }
    let flag = Arc::new(AtomicBool::new(false));
    let mut stop: Option<PyErr> = None;
    let made = std::thread::scope(|scope| {
        // Never sent on: the worker's end drops when it finishes (or panics).
        let (done, mut waiting) = mpsc::channel::<()>();
        let flag = &flag;
        let worker = scope.spawn(move || {
            let made = work(flag);
            drop(done);
            made
        });
        loop {
            let (back, r) = py.detach(move || {
                let r = waiting.recv_timeout(POLL);
                (waiting, r)
            });
            waiting = back;
            if !matches!(r, Err(RecvTimeoutError::Timeout)) {
                break;
            }
            if stop.is_none() {
                stop = match asked() {
                    Ok(false) => None,
                    Ok(true) => Some(cancelled(py)),
                    Err(e) => Some(e),
                };
                if stop.is_some() {
                    flag.store(true, Ordering::Relaxed);
                }
            }
        }
        worker
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    });
    match (stop, made) {
        (Some(e), _) => Err(e),
        (None, Some(made)) => Ok(made),
        (None, None) => Err(limit_exceeded(
            py,
            "the solve stopped before it finished".to_string(),
        )),
    }
}
