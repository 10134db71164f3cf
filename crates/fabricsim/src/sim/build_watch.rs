//! A model's build, watched from outside: building a large fabric takes
//! seconds (tables for every switch and adapter, the channel-dependency
//! check), so its long loops call [`step`], which every 50 ms or so tells
//! the watcher where the build is and lets it stop the build (Ctrl-C);
//! and what a user should hear before the run (a routing that may
//! deadlock) goes to the watcher through [`notice`].
//!
//! The watcher is the thread's own, installed around a build with
//! [`watched`]; without one, `step` costs a thread-local read and never
//! stops anything, and notices go unheard (the report says as much).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// Wall time between two reports of one stage (a new stage is reported at once).
const REPORT_EVERY: Duration = Duration::from_millis(50);

/// Hears a build's progress and notices.
pub trait BuildWatch {
    /// The build is at `stage`, `done` of `total` steps of it (0 of 0: no
    /// count); returns false to stop the build.
    fn at(&mut self, stage: &str, done: u64, total: u64) -> bool;
    /// Whether notices are wanted (some take work to make).
    fn hears_notices(&self) -> bool {
        true
    }
    /// Something to tell the user before the run.
    fn notice(&mut self, text: &str);
}

struct Watching {
    watch: Rc<RefCell<dyn BuildWatch>>,
    stage: &'static str,
    reported: Instant,
}

thread_local! {
    static WATCH: RefCell<Option<Watching>> = const { RefCell::new(None) };
}

/// Runs `f` (a build) with `watch` as this thread's watcher, then puts back
/// the one before (also when `f` panics).
pub fn watched<R>(watch: Rc<RefCell<dyn BuildWatch>>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Watching>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            WATCH.with(|w| *w.borrow_mut() = previous);
        }
    }
    let now = Watching { watch, stage: "", reported: Instant::now() };
    let _restore = Restore(WATCH.with(|w| w.replace(Some(now))));
    f()
}

/// A point of a long build: at `stage`, `done` of `total`. An error when
/// the watcher stops the build.
pub fn step(stage: &'static str, done: usize, total: usize) -> Result<()> {
    WATCH.with(|w| {
        let mut w = w.borrow_mut();
        let Some(w) = w.as_mut() else { return Ok(()) };
        let now = Instant::now();
        if stage == w.stage && now.duration_since(w.reported) < REPORT_EVERY {
            return Ok(());
        }
        (w.stage, w.reported) = (stage, now);
        let go_on = w.watch.borrow_mut().at(stage, done as u64, total as u64);
        if go_on {
            Ok(())
        } else {
            Err(Error::model(format!("the build was stopped while building {stage}")))
        }
    })
}

/// Whether this thread's watcher, if any, wants notices.
pub fn hears_notices() -> bool {
    WATCH.with(|w| w.borrow().as_ref().is_some_and(|w| w.watch.borrow().hears_notices()))
}

/// Tells the watcher, if any, something the user should know before the run.
pub fn notice(text: &str) {
    WATCH.with(|w| {
        if let Some(w) = w.borrow().as_ref() {
            w.watch.borrow_mut().notice(text);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Heard {
        stages: Vec<(String, u64, u64)>,
        notices: Vec<String>,
        stop_at: Option<&'static str>,
    }

    impl BuildWatch for Heard {
        fn at(&mut self, stage: &str, done: u64, total: u64) -> bool {
            self.stages.push((stage.to_string(), done, total));
            self.stop_at != Some(stage)
        }

        fn notice(&mut self, text: &str) {
            self.notices.push(text.to_string());
        }
    }

    #[test]
    fn a_watcher_hears_each_new_stage_and_may_stop_the_build() {
        let heard = Rc::new(RefCell::new(Heard { stop_at: Some("switches"), ..Heard::default() }));
        let result = watched(heard.clone(), || -> Result<()> {
            assert!(hears_notices());
            for i in 0..1000 {
                step("tables", i, 1000)?;
            }
            notice("the routing may deadlock");
            step("switches", 0, 10)?;
            unreachable!("the watcher stops the build at its switches");
        });
        assert!(result.unwrap_err().message.contains("stopped while building switches"));
        let heard = heard.borrow();
        // A thousand quick steps of one stage are reported once (or a few times on a slow machine).
        assert_eq!(heard.stages.first(), Some(&("tables".to_string(), 0, 1000)));
        assert!(heard.stages.len() < 100, "{:?}", heard.stages.len());
        assert_eq!(heard.stages.last(), Some(&("switches".to_string(), 0, 10)));
        assert_eq!(heard.notices, ["the routing may deadlock"]);
        // Outside `watched` nothing listens and nothing stops.
        assert!(!hears_notices());
        step("tables", 0, 1).unwrap();
        notice("unheard");
        assert_eq!(heard.notices.len(), 1);
    }
}
