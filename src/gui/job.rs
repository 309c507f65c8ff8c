//! One computation off the UI thread: [`Job`] runs a closure on its own thread, lets it report
//! progress and see a Cancel, and asks the window to repaint when it ends. The report, the
//! suggestions, a suggestion's new measurement, the balance meter, Learn now, the CPU's thinking
//! and the win-path search all run as one.
//!
//! The checker ([`super::worker`]) is not a `Job`: it is one long-lived thread taking a queue of
//! texts, where a `Job` is one closure run once.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::time::{Duration, Instant};

/// What polling a job gives: its progress messages in the order they were sent, then how it
/// ended. A job without progress (`P` = [`Infallible`]) never gives `Progress`, and a `match`
/// on it may leave that arm out.
#[derive(Debug, PartialEq)]
pub enum Polled<T, P = Infallible> {
    /// Still running, nothing new.
    Pending,
    /// A progress message (more may follow: poll again).
    Progress(P),
    /// Finished with this result.
    Done(T),
    /// The thread ended without a result (a panic): the job is lost, the window is not.
    Died,
}

/// What the thread sends: progress, then the result.
enum Event<T, P> {
    Progress(P),
    Done(T),
}

/// The job's side of a [`Job`], handed to its closure.
pub struct JobHandle<P> {
    cancel: Arc<AtomicBool>,
    /// Sends one progress message (the channel also carries the result, whose type the handle
    /// need not know).
    send: Box<dyn Fn(P) + Send + Sync>,
    ctx: Option<egui::Context>,
}

impl<P> JobHandle<P> {
    /// True once the job has been asked to stop (or its [`Job`] was dropped).
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// The cancel flag itself, for code that checks it on its own (a CPU's search).
    pub fn cancel_flag(&self) -> &Arc<AtomicBool> {
        &self.cancel
    }

    /// Reports progress to the window, which is asked to repaint to show it.
    pub fn progress(&self, p: P) {
        (self.send)(p);
        self.repaint();
    }

    /// Asks the window to repaint (for progress it reads from elsewhere, such as counters).
    pub fn repaint(&self) {
        if let Some(ctx) = &self.ctx {
            ctx.request_repaint();
        }
    }
}

/// A computation on its own thread, with a cancel flag it is expected to check and progress
/// messages of type `P` (none by default).
pub struct Job<T, P = Infallible> {
    rx: Receiver<Event<T, P>>,
    cancel: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
    started: Instant,
}

/// Runs when the job's thread ends, finished or panicking: disconnects the channel (so a job
/// that sent no result reads as [`Polled::Died`]), marks the job finished and wakes the window.
struct Ending<T, P> {
    tx: Option<Sender<Event<T, P>>>,
    done: Arc<AtomicBool>,
    ctx: Option<egui::Context>,
}

impl<T, P> Drop for Ending<T, P> {
    fn drop(&mut self) {
        self.tx = None;
        self.done.store(true, Ordering::Release);
        if let Some(ctx) = &self.ctx {
            ctx.request_repaint();
        }
    }
}

impl<T: Send + 'static, P: Send + 'static> Job<T, P> {
    /// Starts `f` on a new thread named `name`; `ctx` is asked to repaint on each progress
    /// message and when the job ends. Fails only if the thread cannot be started.
    pub fn spawn(
        name: &str,
        ctx: Option<egui::Context>,
        f: impl FnOnce(&JobHandle<P>) -> T + Send + 'static,
    ) -> std::io::Result<Self> {
        let (tx, rx) = mpsc::channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let done = Arc::new(AtomicBool::new(false));
        let progress_tx = tx.clone();
        let handle = JobHandle {
            cancel: cancel.clone(),
            send: Box::new(move |p| {
                let _ = progress_tx.send(Event::Progress(p));
            }),
            ctx: ctx.clone(),
        };
        let ending = Ending {
            tx: Some(tx),
            done: done.clone(),
            ctx,
        };
        std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                // Declared in this order so that, on a panic, the handle's sender is dropped
                // before `ending` reports the end.
                let ending = ending;
                let handle = handle;
                let r = f(&handle);
                drop(handle);
                if let Some(tx) = &ending.tx {
                    let _ = tx.send(Event::Done(r));
                }
            })?;
        Ok(Self {
            rx,
            cancel,
            done,
            started: Instant::now(),
        })
    }
}

impl<T, P> Job<T, P> {
    /// The next progress message, or the result, if there is one.
    pub fn poll(&self) -> Polled<T, P> {
        match self.rx.try_recv() {
            Ok(Event::Progress(p)) => Polled::Progress(p),
            Ok(Event::Done(r)) => Polled::Done(r),
            Err(TryRecvError::Empty) => Polled::Pending,
            Err(TryRecvError::Disconnected) => Polled::Died,
        }
    }

    /// Asks the job to stop.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// A flag that turns true when the thread ends (for measuring how fast Cancel acts).
    pub fn finished_flag(&self) -> Arc<AtomicBool> {
        self.done.clone()
    }

    /// Time since the job started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

impl<T, P> Drop for Job<T, P> {
    fn drop(&mut self) {
        // A job nobody waits for any more should not keep a core busy.
        self.cancel.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Polls until the job ends, giving the progress seen on the way (the timeout only guards
    /// against a hang; the loop waits on the job, not on the clock).
    fn wait<T, P>(job: &Job<T, P>) -> (Vec<P>, Polled<T, P>) {
        let t0 = Instant::now();
        let mut seen = Vec::new();
        loop {
            match job.poll() {
                Polled::Pending => {
                    assert!(t0.elapsed() < Duration::from_secs(60), "the job hangs");
                    std::thread::yield_now();
                }
                Polled::Progress(p) => seen.push(p),
                end => return (seen, end),
            }
        }
    }

    #[test]
    fn a_finished_job_gives_its_result() {
        let job: Job<u32> = Job::spawn("test-done", None, |_| 6 * 7).unwrap();
        let (_, end) = wait(&job);
        assert_eq!(end, Polled::Done(42));
    }

    #[test]
    fn a_panicking_job_dies_without_taking_the_caller_down() {
        let job: Job<u32, u32> = Job::spawn("test-panic", None, |h| {
            h.progress(1);
            panic!("on purpose");
        })
        .unwrap();
        let (seen, end) = wait(&job);
        assert_eq!(seen, vec![1]);
        assert_eq!(end, Polled::Died);
        // Polled again, a dead job stays dead.
        assert_eq!(job.poll(), Polled::Died);
    }

    #[test]
    fn the_closure_sees_cancel() {
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let job: Job<bool> = Job::spawn("test-cancel", None, move |h| {
            // Waits until the test has cancelled (or the test thread is gone).
            let _ = go_rx.recv();
            h.cancelled() && h.cancel_flag().load(Ordering::Relaxed)
        })
        .unwrap();
        job.cancel();
        go_tx.send(()).unwrap();
        assert_eq!(wait(&job).1, Polled::Done(true));
    }

    #[test]
    fn dropping_a_job_cancels_it() {
        let (flag_tx, flag_rx) = mpsc::channel();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let job: Job<()> = Job::spawn("test-drop", None, move |h| {
            let _ = flag_tx.send(h.cancel_flag().clone());
            let _ = go_rx.recv();
        })
        .unwrap();
        let flag = flag_rx.recv().unwrap();
        assert!(!flag.load(Ordering::Relaxed));
        drop(job);
        assert!(flag.load(Ordering::Relaxed));
        drop(go_tx);
    }

    #[test]
    fn progress_arrives_in_order_before_the_result() {
        let job: Job<&str, u32> = Job::spawn("test-progress", None, |h| {
            for k in 0..100 {
                h.progress(k);
            }
            "done"
        })
        .unwrap();
        let (seen, end) = wait(&job);
        assert_eq!(seen, (0..100).collect::<Vec<_>>());
        assert_eq!(end, Polled::Done("done"));
    }
}
