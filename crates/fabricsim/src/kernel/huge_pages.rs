//! Backs a large model's memory with transparent huge pages (Linux).
//!
//! A fabric of thousands of switches reads its ports and forwarding tables
//! at random over tens of megabytes: with 4 KiB pages nearly every such read
//! also misses the TLB and walks the page tables. In 2 MiB pages the whole
//! model is a few dozen TLB entries. The system's default (`madvise` mode)
//! gives huge pages only to memory that asks, and the model's memory is
//! already in place when it is built, so this asks the kernel to collapse
//! it (`MADV_COLLAPSE`, Linux 6.1) and to fault later growth in huge pages
//! (`MADV_HUGEPAGE`). It changes no result: only how memory is mapped.
//!
//! Only mappings that are mostly resident are collapsed (the heap and large
//! anonymous allocations, not thread stacks or reserved address space), so
//! the resident memory grows by at most the unfilled part of their 2 MiB
//! pages.

// Elsewhere nothing is collapsed, so the mappings are never read.
#![cfg_attr(not(target_os = "linux"), allow(dead_code))]

/// Models whose own estimate of their memory is below this keep their
/// pages: they fit the TLB's reach as they are.
pub const MIN_MODEL_BYTES: u64 = 16 << 20;

/// The share of a mapping that must be resident for it to be collapsed.
const MIN_RESIDENT_SHARE: f64 = 0.5;

const HUGE_PAGE: usize = 2 << 20;

/// What [`back_with_huge_pages`] asked for: mappings and bytes offered, and
/// bytes the kernel collapsed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Collapsed {
    pub mappings: usize,
    pub offered_bytes: usize,
    pub collapsed_bytes: usize,
}

/// Bytes collapsed at a time: the kernel copies them (about 5 ms per MiB
/// on a busy 2-core machine: 1.2 s for the 32-ary 3-tree's 250 MiB), and
/// between two calls a build's watcher may stop it.
const COLLAPSE_STEP: usize = 16 * HUGE_PAGE;

/// Asks for huge pages under the process's mostly resident writable private
/// mappings of at least one huge page. Best effort: where the system has no
/// transparent huge pages, or refuses, nothing changes. An error only when
/// a build's watcher stops it.
pub fn back_with_huge_pages() -> crate::error::Result<Collapsed> {
    #[cfg(target_os = "linux")]
    {
        let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else {
            return Ok(Collapsed::default());
        };
        let mappings = candidates(&smaps);
        let total: usize = mappings.iter().map(|m| m.end - m.start).sum();
        let mut done = Collapsed::default();
        for m in mappings {
            done.mappings += 1;
            let mut collapsed = true;
            for start in (m.start..m.end).step_by(COLLAPSE_STEP) {
                crate::sim::build_watch::step("huge pages", done.offered_bytes, total)?;
                let end = (start + COLLAPSE_STEP).min(m.end);
                collapsed &= linux::advise(start, end);
                done.offered_bytes += end - start;
            }
            if collapsed {
                done.collapsed_bytes += m.end - m.start;
            }
        }
        Ok(done)
    }
    #[cfg(not(target_os = "linux"))]
    {
        Ok(Collapsed::default())
    }
}

/// A mapping's whole huge pages: `start..end`, both huge-page aligned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Range {
    start: usize,
    end: usize,
}

/// The whole huge pages of the writable private mappings in `smaps` (the
/// format of `/proc/PID/smaps`) that are anonymous or the heap and at
/// least [`MIN_RESIDENT_SHARE`] resident.
fn candidates(smaps: &str) -> Vec<Range> {
    let mut out = Vec::new();
    let mut current: Option<(usize, usize)> = None;
    for line in smaps.lines() {
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        if let Some((lo, hi)) = first
            .split_once('-')
            .and_then(|(a, b)| Some((usize::from_str_radix(a, 16).ok()?, usize::from_str_radix(b, 16).ok()?)))
        {
            // A mapping's header: "start-end perms offset dev inode [path]".
            let perms = words.next().unwrap_or("");
            let path = words.nth(3).unwrap_or("");
            let anonymous = path.is_empty() || path == "[heap]";
            current = (perms == "rw-p" && anonymous).then_some((lo, hi));
        } else if first == "Rss:" {
            let Some((lo, hi)) = current.take() else { continue };
            let rss = words.next().and_then(|k| k.parse::<usize>().ok()).unwrap_or(0) * 1024;
            let (start, end) = (lo.next_multiple_of(HUGE_PAGE), hi / HUGE_PAGE * HUGE_PAGE);
            if end > start && rss as f64 >= MIN_RESIDENT_SHARE * (hi - lo) as f64 {
                out.push(Range { start, end });
            }
        }
    }
    out
}

#[cfg(target_os = "linux")]
mod linux {
    const MADV_HUGEPAGE: i32 = 14;
    const MADV_COLLAPSE: i32 = 25;

    extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }

    /// Huge pages for `start..end` now and when it grows; whether the collapse took.
    pub(super) fn advise(start: usize, end: usize) -> bool {
        let (addr, len) = (start as *mut std::ffi::c_void, end - start);
        // SAFETY: both advices change only how the mapped range is backed,
        // never its contents; a range the kernel will not back in huge
        // pages only makes the call fail.
        unsafe {
            madvise(addr, len, MADV_HUGEPAGE);
            madvise(addr, len, MADV_COLLAPSE) == 0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMAPS: &str = "\
55d0a0000000-55d0a4000000 rw-p 00000000 00:00 0                          [heap]
Size:              65536 kB
Rss:               60000 kB
7f0000000000-7f0000800000 rw-p 00000000 00:00 0 
Size:               8192 kB
Rss:                  12 kB
7f1000100000-7f1000900000 rw-p 00000000 00:00 0 
Size:               8192 kB
Rss:                8192 kB
7f2000000000-7f2004000000 r--p 00000000 08:01 1234                       /usr/lib/libfoo.so
Size:              65536 kB
Rss:               65536 kB
7f3000000000-7f3000100000 rw-p 00000000 00:00 0 
Size:               1024 kB
Rss:                1024 kB
";

    /// The heap and a resident anonymous mapping are offered in whole huge
    /// pages; a mostly empty one (a thread's stack), a file mapping and one
    /// smaller than a huge page are not.
    #[test]
    fn only_resident_anonymous_mappings_are_offered_in_whole_huge_pages() {
        let got = candidates(SMAPS);
        assert_eq!(
            got,
            vec![
                Range { start: 0x55d0a0000000, end: 0x55d0a4000000 },
                // 0x7f1000100000 rounds up, 0x7f1000900000 down: three whole pages.
                Range { start: 0x7f1000200000, end: 0x7f1000800000 },
            ]
        );
    }

    /// The `AnonHugePages` of the mapping holding `addr`, in bytes.
    fn huge_bytes_at(addr: usize) -> usize {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        for line in smaps.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            if let Some((a, b)) = first.split_once('-') {
                if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) {
                    inside = a <= addr && addr < b;
                    continue;
                }
            }
            if inside && first == "AnonHugePages:" {
                return line.split_whitespace().nth(1).unwrap().parse::<usize>().unwrap() * 1024;
            }
        }
        0
    }

    /// On this system: a resident 32 MiB buffer is offered and, unless the
    /// system has transparent huge pages off, backed by them afterwards,
    /// with its contents as they were.
    #[test]
    fn a_resident_buffer_is_backed_by_huge_pages_and_keeps_its_contents() {
        let buffer: Vec<u64> = (0..(32u64 << 20) / 8).collect();
        let middle = buffer.as_ptr() as usize + buffer.len() * 4;
        let done = back_with_huge_pages().unwrap();
        if cfg!(target_os = "linux") {
            assert!(done.offered_bytes >= 28 << 20, "{done:?}");
            let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
            if !thp.is_empty() && !thp.contains("[never]") {
                assert!(huge_bytes_at(middle) >= 16 << 20, "THP {thp:?}: {done:?}");
            }
        }
        assert!(buffer.iter().enumerate().all(|(i, &v)| v == i as u64));
    }
}
