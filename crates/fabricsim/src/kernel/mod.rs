//! The simulation kernel: time, the future-event set, random streams and
//! statistics. It knows nothing about fabrics.

pub mod arena;
pub mod calendar_queue;
pub mod event_queue;
pub mod event_set;
pub mod hold_benchmark;
pub mod huge_pages;
pub mod prefetch;
pub mod random;
pub mod stats;
pub mod time;

pub use arena::Arena;
pub use calendar_queue::CalendarQueue;
pub use event_queue::EventQueue;
pub use event_set::EventSet;
pub use random::RandomStream;
pub use time::{LineRate, Time};
