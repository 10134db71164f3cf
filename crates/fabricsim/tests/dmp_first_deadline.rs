//! Seed 003's Deadline Missing Probability under its deadline recursion
//! (d(n) = d(n-1) + T after a frame on time, a(n-1) + T after a miss) is
//! the rate of record delays: with the first deadline one period after
//! frame 0's release (the model's reading, `traffic::video::PlayoutDeadlines`),
//! a frame misses exactly when its delay exceeds T and every earlier
//! frame's delay; so on a stationary stream DMP falls with run length (the
//! records of N delays grow like ln N), and the other start, the first
//! frame's arrival, makes every delay above frame 0's a candidate record.
//! Both are shown here on i.i.d. delays against an oracle of running maxima.

use fabricsim::kernel::{RandomStream, Time};
use fabricsim::traffic::video::{frame_time, PlayoutDeadlines};

const T: Time = 33_333_333_333; // one frame period in ps

/// Delays of `n` frames: exponential with mean T / 2 (about 13.5% above T).
fn delays(n: usize) -> Vec<Time> {
    let mut rng = RandomStream::new(7, "dmp-run-length", 0);
    (0..n).map(|_| rng.exponential(T as f64 / 2.0) as Time).collect()
}

/// DMP of the recursion, frame 0's deadline `first` (None: release + T).
fn dmp(d: &[Time], first_at_arrival: bool) -> (u64, f64) {
    let mut p = PlayoutDeadlines::new();
    for (i, &delay) in d.iter().enumerate() {
        let release = frame_time(i as u64) + T; // releases from T on, so release - T is no underflow
        let anchor = if i == 0 && first_at_arrival { release + delay - T } else { release };
        p.on_frame(anchor, release + delay);
    }
    (p.missed(), p.missing_probability())
}

/// Frames whose delay is above `floor` and above every earlier frame's.
fn records(d: &[Time], floor: Time) -> u64 {
    let mut best = floor;
    let mut n = 0;
    for &x in d {
        if x > best {
            n += 1;
            best = x;
        }
    }
    n
}

#[test]
fn dmp_counts_record_delays_and_falls_with_run_length() {
    let d = delays(100_000);
    let mut last = f64::INFINITY;
    for n in [1_000, 10_000, 100_000] {
        let (missed, p) = dmp(&d[..n], false);
        assert_eq!(missed, records(&d[..n], T), "{n} frames: misses are the records above T");
        assert!(p < last, "{n} frames: DMP {p} falls with run length (before {last})");
        last = p;
    }
    let (short, long) = (dmp(&d[..1_000], false).1, dmp(&d, false).1);
    assert!(short > 20.0 * long, "1,000 frames: {short}, 100,000: {long}");
}

#[test]
fn the_first_deadline_at_the_first_arrival_counts_records_above_frame_0() {
    let d = delays(10_000);
    let (missed, p) = dmp(&d, true);
    assert_eq!(missed, records(&d[1..], d[0]), "misses are the records above frame 0's delay");
    let (at_release, q) = dmp(&d, false);
    assert!(d[0] < T && missed > at_release && p > q, "{missed} against {at_release}");
}
