//! Trace-driven video: the real-time traffic class of seed 003, section 4,
//! and the playout deadlines its QoS metrics are measured against.
//!
//! The seed drives its real-time class with "seven MPEG-2 traces [24], where
//! each trace has different bandwidth requirement. Each stream generates 30
//! frames/sec, and each frame is divided into fixed-size packets". The
//! traces themselves are not published with it. We have one real VBR trace
//! (`movietrace.data`, 53,997 frames at 30 frames/s, GoP of 16; see the
//! data README) and derive the seven streams from it:
//!
//! - stream k (k = 0..7) scales every frame size by (k + 1) / 4, so the mean
//!   rates are 1/4, 2/4, ..., 7/4 of the trace's (3.6 to 25 Mbit/s, the span
//!   from standard- to high-definition MPEG-2) and average exactly the
//!   trace's own 14.27 Mbit/s; scaling keeps the trace's burstiness
//!   (coefficient of variation, GoP pattern);
//! - stream k starts at the first I frame at or after k/7 of the trace, so
//!   concurrent streams send different scenes and their I frames do not line
//!   up; each stream loops over the whole trace.
//!
//! Frames are sent in the file's order, which is transmission order (an
//! anchor P frame precedes the B frames displayed before it), one every
//! 1/30 s; times are exact multiples of 10^12 / 30 picoseconds.
//!
//! Deadlines (section 4): "The deadline for each frame is determined by adding
//! 33.3 msec to the previous deadline. However, if a previous frame misses its
//! deadline, a new deadline is set by adding 33.3 msec to the arrival time of
//! the previous frame." The first frame's "previous deadline" is taken to be
//! its generation time. A frame arrives when its last packet does (the
//! selective dropping of section 3.5 never drops a frame's last packet).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use crate::error::{Error, Result};
use crate::kernel::time::SECOND;
use crate::kernel::Time;

/// Frame rate of every stream (seed 003, section 4).
pub const FRAMES_PER_SECOND: u64 = 30;
/// Streams of the seed's real-time class.
pub const PAPER_STREAM_COUNT: usize = 7;

/// Start of frame period `i` after a stream starts: exactly `i / 30` s, rounded down to the picosecond.
#[inline]
pub fn frame_time(i: u64) -> Time {
    (i as u128 * SECOND as u128 / FRAMES_PER_SECOND as u128) as Time
}

/// MPEG coding type of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameType {
    I,
    P,
    B,
}

impl FrameType {
    /// Seed 003, section 3.5: I-frame packets are never dropped.
    pub fn is_protected(self) -> bool {
        self == FrameType::I
    }
}

/// One line of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceFrame {
    /// Position in display order (the trace's first column).
    pub display_index: u32,
    pub kind: FrameType,
    pub bytes: u32,
}

/// A frame-size trace in transmission order.
#[derive(Clone, Debug, PartialEq)]
pub struct VideoTrace {
    frames: Vec<TraceFrame>,
    source: String,
}

impl VideoTrace {
    /// Reads a trace file: tab-separated lines of frame index, time (ms),
    /// type (I/P/B), size (bytes), then optional quality columns.
    pub fn read(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let bytes =
            std::fs::read(path).map_err(|e| Error::scenario(format!("cannot read video trace: {e}")).in_file(&name))?;
        let text = std::str::from_utf8(&bytes)
            .ok()
            .filter(|t| !t.contains('\0'))
            .ok_or_else(|| Error::scenario("a binary file, not a text trace".to_string()).in_file(&name))?;
        Self::parse(text, &name)
    }

    /// The trace at `path`, read once per process while the file is
    /// unchanged (same length and modification time): a sweep builds many
    /// runs from one trace, and parsing it costs more than building a fabric.
    pub fn shared(path: impl AsRef<Path>) -> Result<Arc<Self>> {
        type Cache = HashMap<PathBuf, (Option<SystemTime>, u64, Arc<VideoTrace>)>;
        static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
        let path = path.as_ref();
        let stamp = std::fs::metadata(path).map(|m| (m.modified().ok(), m.len())).ok();
        let cache = CACHE.get_or_init(Default::default);
        if let Some((modified, len)) = stamp {
            if let Some((m, l, t)) = cache.lock().expect("trace cache lock").get(path) {
                if (*m, *l) == (modified, len) && modified.is_some() {
                    return Ok(t.clone());
                }
            }
        }
        let trace = Arc::new(Self::read(path)?);
        if let Some((modified, len)) = stamp {
            cache.lock().expect("trace cache lock").insert(path.to_path_buf(), (modified, len, trace.clone()));
        }
        Ok(trace)
    }

    /// A trace of `frames` in transmission order (`source` names it).
    pub fn from_frames(frames: Vec<TraceFrame>, source: &str) -> Result<Self> {
        if frames.is_empty() {
            return Err(Error::scenario("video trace has no frames").in_file(source));
        }
        Ok(VideoTrace { frames, source: source.to_string() })
    }

    /// Parses trace text; `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> Result<Self> {
        let mut frames = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() {
                continue;
            }
            let bad = |what: String| Error::scenario(format!("line {}: {what}", n + 1)).in_file(source);
            let cols: Vec<&str> = line.split('\t').map(str::trim).collect();
            if cols.len() < 4 {
                return Err(bad(format!(
                    "expected at least 4 tab-separated columns (index, time ms, type, bytes), found {}",
                    cols.len()
                )));
            }
            let display_index =
                cols[0].parse::<u32>().map_err(|_| bad(format!("frame index `{}` is not a whole number", cols[0])))?;
            cols[1].parse::<f64>().map_err(|_| bad(format!("time `{}` is not a number of milliseconds", cols[1])))?;
            let kind = match cols[2] {
                "I" => FrameType::I,
                "P" => FrameType::P,
                "B" => FrameType::B,
                other => return Err(bad(format!("frame type `{other}` is not I, P or B"))),
            };
            let bytes =
                cols[3].parse::<u32>().map_err(|_| bad(format!("frame size `{}` is not a byte count", cols[3])))?;
            frames.push(TraceFrame { display_index, kind, bytes });
        }
        Self::from_frames(frames, source)
    }

    pub fn frames(&self) -> &[TraceFrame] {
        &self.frames
    }

    pub fn len(&self) -> usize {
        self.frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    pub fn total_bytes(&self) -> u64 {
        self.frames.iter().map(|f| f.bytes as u64).sum()
    }

    pub fn mean_frame_bytes(&self) -> f64 {
        self.total_bytes() as f64 / self.len() as f64
    }

    /// Mean rate of the trace played at 30 frames/s.
    pub fn mean_bytes_per_second(&self) -> f64 {
        self.mean_frame_bytes() * FRAMES_PER_SECOND as f64
    }

    /// Position (transmission order) of the first I frame at or after `from`,
    /// wrapping around; `None` if the trace has no I frame.
    pub fn next_i_frame(&self, from: usize) -> Option<usize> {
        let n = self.len();
        (0..n).map(|k| (from + k) % n).find(|&i| self.frames[i].kind == FrameType::I)
    }
}

/// How one stream is derived from a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamProfile {
    /// Frame sizes are multiplied by `scale_num / scale_den`, rounded to the nearest byte.
    pub scale_num: u32,
    pub scale_den: u32,
    /// Trace position (transmission order) of the stream's first frame.
    pub start: u32,
}

impl StreamProfile {
    pub fn scale(&self) -> f64 {
        self.scale_num as f64 / self.scale_den as f64
    }

    #[inline]
    pub fn scaled(&self, bytes: u32) -> u32 {
        let b = (bytes as u64 * self.scale_num as u64 + self.scale_den as u64 / 2) / self.scale_den as u64;
        b.min(u32::MAX as u64) as u32
    }
}

/// The seven streams of seed 003, section 4, from one trace (see the module doc).
pub fn paper_streams(trace: &VideoTrace) -> [StreamProfile; PAPER_STREAM_COUNT] {
    let n = trace.len();
    std::array::from_fn(|k| {
        let at = k * n / PAPER_STREAM_COUNT;
        let start = trace.next_i_frame(at).unwrap_or(at);
        StreamProfile { scale_num: k as u32 + 1, scale_den: 4, start: start as u32 }
    })
}

/// A frame as a stream sends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VideoFrame {
    pub bytes: u32,
    pub kind: FrameType,
}

/// One video stream: the frames a source sends, one per 1/30 s.
#[derive(Clone, Debug)]
pub struct VideoStream {
    trace: Arc<VideoTrace>,
    profile: StreamProfile,
    next: u64,
}

impl VideoStream {
    pub fn new(trace: Arc<VideoTrace>, profile: StreamProfile) -> Self {
        assert!(profile.scale_den > 0, "video stream scale has a zero denominator");
        assert!((profile.start as usize) < trace.len(), "video stream starts past the end of its trace");
        VideoStream { trace, profile, next: 0 }
    }

    pub fn profile(&self) -> StreamProfile {
        self.profile
    }

    /// The `i`-th frame the stream sends (0-based), looping over the trace.
    #[inline]
    pub fn frame(&self, i: u64) -> VideoFrame {
        let n = self.trace.len() as u64;
        let f = self.trace.frames[((self.profile.start as u64 + i % n) % n) as usize];
        VideoFrame { bytes: self.profile.scaled(f.bytes), kind: f.kind }
    }

    /// The next frame, and its index in the stream.
    #[inline]
    pub fn next_frame(&mut self) -> (u64, VideoFrame) {
        let i = self.next;
        self.next += 1;
        (i, self.frame(i))
    }

    pub fn frames_sent(&self) -> u64 {
        self.next
    }

    /// Frame sizes of one full pass over the trace, in sending order.
    pub fn frame_sizes(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.trace.len() as u64).map(|i| self.frame(i).bytes)
    }

    /// Mean rate over one full pass over the trace.
    pub fn mean_bytes_per_second(&self) -> f64 {
        let total: u64 = self.frame_sizes().map(u64::from).sum();
        total as f64 / self.trace.len() as f64 * FRAMES_PER_SECOND as f64
    }

    pub fn peak_frame_bytes(&self) -> u32 {
        self.frame_sizes().max().unwrap_or(0)
    }
}

/// Playout deadlines of one stream at its receiver, and the seed's two QoS
/// metrics: Deadline Missing Probability (missed / delivered frames) and
/// Deadline Missing Time (mean lateness of the frames that missed).
///
/// Deadlines are kept by frame number: frame n is due `anchor + (n - k)`
/// frame periods, where frame k set the anchor (the first frame's release
/// one period before its deadline; after a miss, the late frame's arrival).
/// With every frame delivered this is the seed's rule, each deadline the
/// previous one plus 33.3 ms, or the previous frame's arrival plus 33.3 ms
/// after a miss; a frame that never arrives (refused at a full source)
/// keeps its slot, so it does not pull the next frame's deadline forward.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayoutDeadlines {
    anchor: Time,
    /// The frame whose deadline `anchor` is, in periods before frame 0 if negative.
    anchor_frame: i64,
    /// Frames seen so far, for callers that do not number them.
    next_frame: u64,
    delivered: u64,
    missed: u64,
    missed_time: u128,
}

impl PlayoutDeadlines {
    pub fn new() -> Self {
        Self::default()
    }

    /// The deadline of the next frame in sequence; `None` before the first one.
    pub fn next_deadline(&self) -> Option<Time> {
        (self.delivered > 0).then(|| self.deadline(self.next_frame))
    }

    fn deadline(&self, frame: u64) -> Time {
        self.anchor + frame_time((frame as i64 - self.anchor_frame) as u64)
    }

    /// Frame arrivals, in stream order with none lost: `release` is when the
    /// source generated the frame (used for the first frame only), `arrival`
    /// when its last packet reached the receiver. Returns the lateness of a
    /// frame that missed its deadline.
    pub fn on_frame(&mut self, release: Time, arrival: Time) -> Option<Time> {
        self.on_frame_number(self.next_frame, release, arrival)
    }

    /// Arrival of frame number `frame` (increasing; numbers of frames that
    /// never arrive are skipped).
    pub fn on_frame_number(&mut self, frame: u64, release: Time, arrival: Time) -> Option<Time> {
        if self.delivered == 0 {
            // The first frame's deadline is one period after its release.
            self.anchor = release;
            self.anchor_frame = frame as i64 - 1;
        }
        assert!(frame >= self.next_frame, "frames arrive in order: {frame} after {}", self.next_frame);
        self.next_frame = frame + 1;
        let deadline = self.deadline(frame);
        self.delivered += 1;
        if arrival > deadline {
            let late = arrival - deadline;
            self.missed += 1;
            self.missed_time += late as u128;
            self.anchor = arrival;
            self.anchor_frame = frame as i64;
            Some(late)
        } else {
            None
        }
    }

    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    pub fn missed(&self) -> u64 {
        self.missed
    }

    /// Deadline Missing Probability; 0 before any frame.
    pub fn missing_probability(&self) -> f64 {
        if self.delivered == 0 {
            0.0
        } else {
            self.missed as f64 / self.delivered as f64
        }
    }

    /// Mean Deadline Missing Time in picoseconds; `None` if no frame missed.
    pub fn mean_missing_time(&self) -> Option<f64> {
        (self.missed > 0).then(|| self.missed_time as f64 / self.missed as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_that_never_arrives_keeps_its_slot() {
        let p = frame_time(1);
        let mut d = PlayoutDeadlines::new();
        assert_eq!(d.on_frame_number(0, 0, p / 2), None);
        // Frame 1 refused at the source: frame 2 is due three periods after frame 0's release.
        assert_eq!(d.on_frame_number(2, frame_time(2), frame_time(3) - 1), None);
        let mut tight = PlayoutDeadlines::new();
        tight.on_frame(0, p / 2);
        assert_eq!(tight.on_frame(frame_time(1), frame_time(3) - 1), Some(frame_time(3) - 1 - frame_time(2)));
    }
    use crate::kernel::time::MILLISECOND;

    const TRACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/traces/movietrace.data");

    fn trace() -> Arc<VideoTrace> {
        Arc::new(VideoTrace::read(TRACE).unwrap_or_else(|e| panic!("{e}")))
    }

    #[test]
    fn reads_the_real_trace() {
        let t = trace();
        assert_eq!(t.len(), 53_997);
        assert_eq!(t.total_bytes(), 3_209_958_344);
        // Transmission order: the anchor P4 before the B frames 1-3.
        let head: Vec<_> = t.frames()[..5].iter().map(|f| (f.display_index, f.kind)).collect();
        assert_eq!(
            head,
            [(0, FrameType::I), (4, FrameType::P), (1, FrameType::B), (2, FrameType::B), (3, FrameType::B)]
        );
        assert_eq!(t.frames()[0].bytes, 536);
        // GoP of 16: one I frame in 16.
        let i_frames = t.frames().iter().filter(|f| f.kind == FrameType::I).count();
        assert_eq!(i_frames, 53_997usize.div_ceil(16));
        // 59,446.98 bytes per frame at 30 frames/s: 1.783 MB/s, 14.27 Mbit/s.
        assert!((t.mean_frame_bytes() - 59_446.975_646_8).abs() < 1e-6);
        assert!((t.mean_bytes_per_second() * 8.0 / 1e6 - 14.267_274).abs() < 1e-6);
    }

    #[test]
    fn seven_streams_of_different_bandwidth() {
        let t = trace();
        let profiles = paper_streams(&t);
        let starts: Vec<u32> = profiles.iter().map(|p| p.start).collect();
        assert_eq!(starts, [0, 7725, 15437, 23149, 30861, 38573, 46285]);
        let mut rates = Vec::new();
        for (k, p) in profiles.iter().enumerate() {
            let s = VideoStream::new(t.clone(), *p);
            assert_eq!(s.frame(0).kind, FrameType::I, "stream {k} starts on an I frame");
            // Trace frame sizes are multiples of 8 bytes, so quarter scaling is exact
            // and each stream's mean is (k + 1) / 4 of the trace's mean times 30 frames/s.
            let want = (k + 1) as f64 / 4.0 * t.mean_frame_bytes() * 30.0;
            let got = s.mean_bytes_per_second();
            assert!((got - want).abs() < 1e-6 * want, "stream {k}: {got} vs {want}");
            rates.push(got);
        }
        assert!(rates.windows(2).all(|w| w[1] > w[0]));
        let mean = rates.iter().sum::<f64>() / 7.0;
        assert!((mean - t.mean_bytes_per_second()).abs() < 1e-6 * mean);
        // 3.57 to 24.97 Mbit/s.
        assert!((rates[0] * 8e-6 - 3.567).abs() < 1e-3 && (rates[6] * 8e-6 - 24.968).abs() < 1e-3);
    }

    #[test]
    fn streams_loop_over_the_trace_frame_by_frame() {
        let t = trace();
        let p = paper_streams(&t)[2];
        let mut s = VideoStream::new(t.clone(), p);
        let n = t.len() as u64;
        for i in [0u64, 1, 100, n - 1, n, n + 7, 5 * n + 3] {
            let f = t.frames()[((p.start as u64 + i) % n) as usize];
            assert_eq!(s.frame(i), VideoFrame { bytes: f.bytes * 3 / 4, kind: f.kind });
        }
        assert_eq!(s.next_frame(), (0, s.frame(0)));
        assert_eq!(s.next_frame(), (1, s.frame(1)));
        assert_eq!(s.frames_sent(), 2);
        assert_eq!(s.frame_sizes().count(), t.len());
        assert_eq!(s.peak_frame_bytes(), 657_824 * 3 / 4);
    }

    #[test]
    fn frame_times_are_exact_thirtieths_of_a_second() {
        assert_eq!(frame_time(0), 0);
        assert_eq!(frame_time(1), 33_333_333_333);
        assert_eq!(frame_time(3), 100 * MILLISECOND);
        assert_eq!(frame_time(30 * 3600), 3600 * SECOND);
    }

    #[test]
    fn parse_errors_name_file_and_line() {
        let e = VideoTrace::parse("0\t0.0\tI\t536\n4\t133.3\tX\t152\n", "t.data").unwrap_err();
        assert_eq!(e.file.as_deref(), Some("t.data"));
        assert!(e.to_string().contains("t.data: line 2: frame type `X`"), "{e}");
        let e = VideoTrace::parse("0\t0.0\tI\n", "t.data").unwrap_err();
        assert!(e.to_string().contains("line 1: expected at least 4"), "{e}");
        let e = VideoTrace::parse("0\t0.0\tI\t5x\n", "t.data").unwrap_err();
        assert!(e.to_string().contains("frame size `5x`"), "{e}");
        assert!(VideoTrace::parse("\r\n\n", "t.data").unwrap_err().to_string().contains("no frames"));
        let binary = std::env::temp_dir().join(format!("fabricsim-binary-trace-{}", std::process::id()));
        std::fs::write(&binary, [0u8, 159, 146, 150, 9, 9, 9, 10]).unwrap();
        let e = VideoTrace::read(&binary).unwrap_err();
        std::fs::remove_file(&binary).unwrap();
        assert!(e.to_string().ends_with(": a binary file, not a text trace"), "{e}");
        let e = VideoTrace::read("/nonexistent/movietrace.data").unwrap_err();
        assert!(e.to_string().starts_with("/nonexistent/movietrace.data: cannot read video trace"), "{e}");
        // CRLF lines and trailing quality columns are accepted.
        let t = VideoTrace::parse("0\t0.000000\tI\t536\t98.190\t92.170\t92.170\r\n", "t").unwrap();
        assert_eq!(t.frames()[0], TraceFrame { display_index: 0, kind: FrameType::I, bytes: 536 });
    }

    #[test]
    fn deadlines_follow_the_seeds_recursion() {
        let p = frame_time(1);
        let mut d = PlayoutDeadlines::new();
        assert_eq!(d.next_deadline(), None);
        // Frame 0 made at t = 5 ms: deadline 5 ms + one period.
        assert_eq!(d.on_frame(5 * MILLISECOND, 20 * MILLISECOND), None);
        assert_eq!(d.next_deadline(), Some(5 * MILLISECOND + frame_time(2)));
        // Frame 1 arrives 1 ms late: missed; frame 2 is due one period after that arrival.
        let late_arrival = 5 * MILLISECOND + frame_time(2) + MILLISECOND;
        assert_eq!(d.on_frame(0, late_arrival), Some(MILLISECOND));
        assert_eq!(d.next_deadline(), Some(late_arrival + p));
        // Exactly on the deadline is in time; the next one is a period later again.
        assert_eq!(d.on_frame(0, late_arrival + p), None);
        assert_eq!(d.on_frame(0, late_arrival + 2 * p + 3 * MILLISECOND), Some(3 * MILLISECOND));
        assert_eq!((d.delivered(), d.missed()), (4, 2));
        assert_eq!(d.missing_probability(), 0.5);
        assert_eq!(d.mean_missing_time(), Some(2.0 * MILLISECOND as f64));
    }

    #[test]
    fn on_time_deadlines_do_not_drift() {
        let mut d = PlayoutDeadlines::new();
        for i in 0..1_000_000u64 {
            // Every frame arrives exactly on its deadline: frame i is due at (i + 1) / 30 s.
            assert_eq!(d.on_frame(0, frame_time(i + 1)), None);
        }
        assert_eq!(d.next_deadline(), Some(frame_time(1_000_001)));
        assert_eq!(d.missing_probability(), 0.0);
        assert_eq!(d.mean_missing_time(), None);
    }
}
