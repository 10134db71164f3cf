//! The workstations of seed 002 (section 3.1) as parameter sets: a CPU
//! clock, the memory system's cost per byte copied and checksummed, the
//! HP-UX protocol stack's time per system call, per packet and per
//! interrupt, and the background load the paper describes ("lightly to
//! moderately loaded" machines in a departmental LAN).
//!
//! The stack's per-packet and per-call times are one set for HP-UX 10.x on
//! every machine, not cycles scaled by the clock: kernel entry, context
//! switches, mbuf and PCB handling and the driver's uncached register
//! accesses across the EISA bridge are bound by memory and I/O latency,
//! which did not shrink with the clock (Ousterhout, "Why aren't operating
//! systems getting faster as fast as hardware?", USENIX 1990). The paper's
//! own latencies agree: the 180 MHz C180 and the 120 MHz C110 differ by a
//! few microseconds (section 4.2.2). Per-byte costs belong to each
//! machine's memory system. The 9000/735 (HP-UX 10.01) also pays a lumped
//! penalty per byte it sends (`send_penalty_ns_per_byte`, calibrated, see
//! docs/tcp-netperf-model.md): not one mechanism but everything that makes
//! it the slow sender of section 4.1.2.

use crate::kernel::{time, Time};
use crate::scenario::MachineType;

/// Microseconds the HP-UX 10.x stack spends on each unit of protocol work.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StackCosts {
    /// Entering and leaving a send or receive system call.
    pub syscall: f64,
    /// TCP and IP output and the driver, per segment sent (data or ACK).
    pub packet_output: f64,
    /// The driver, IP and TCP input, per segment received.
    pub packet_input: f64,
    /// Taking the interface's interrupt.
    pub interrupt: f64,
    /// Waking a process blocked in a socket call (scheduling, context switch).
    pub wakeup: f64,
    /// One pass of tcp_output that finds nothing to send.
    pub output_check: f64,
}

/// The HP-UX 10.x stack. Orders of magnitude from the BSD-derived stacks
/// of the period (tens of microseconds per packet each way on 100 MHz
/// class workstations).
pub const HPUX_10_X: StackCosts = StackCosts {
    syscall: 20.0,
    packet_output: 40.0,
    packet_input: 40.0,
    interrupt: 20.0,
    wakeup: 30.0,
    output_check: 5.0,
};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Machine {
    pub name: &'static str,
    /// The CPU clock (section 3.1). No cost of this model scales with it:
    /// the stack's are memory- and I/O-bound, and the per-byte costs are
    /// each machine's own (see the module comment).
    pub cpu_mhz: f64,
    /// Copying between user space and socket buffers, ns per byte.
    pub copy_ns_per_byte: f64,
    /// The Internet checksum over data sent or received, ns per byte.
    pub checksum_ns_per_byte: f64,
    /// A lumped send-path penalty, ns per byte sent beyond the copy and
    /// checksum every machine pays (0 on the HP-UX 10.20 machines). On the
    /// 9000/735 it is six times the machine's own copy cost, so it is not
    /// one extra copy: it stands for what the paper leaves unseparated, the
    /// older HP-UX 10.01 send path (a copy into the driver's transmit
    /// buffers), the cache flushes a PA-7150 makes before non-coherent DMA,
    /// and CPU stalls on the 735's EISA path.
    pub send_penalty_ns_per_byte: f64,
    /// Default share of the CPU taken by other work.
    pub background_load: f64,
}

/// Background load of a lightly loaded machine (C110, C180).
pub const LIGHT_LOAD: f64 = 0.02;
/// Background load of a moderately loaded machine (J210, 9000/735);
/// calibrated on the 398 us one-byte latency, the low end of section
/// 4.2.2's loaded range, of the C110 to J210 pair.
pub const MODERATE_LOAD: f64 = 0.22;
/// The 9000/735's lumped send-path penalty, ns per byte; calibrated on the
/// 67 Mbit/s of the 735 sending 2 MB messages.
pub const HP735_SEND_PENALTY_NS_PER_BYTE: f64 = 71.0;

impl Machine {
    pub fn of(kind: MachineType) -> Machine {
        match kind {
            MachineType::C110 => Machine {
                name: "C110",
                cpu_mhz: 120.0,
                copy_ns_per_byte: 10.0,
                checksum_ns_per_byte: 6.0,
                send_penalty_ns_per_byte: 0.0,
                background_load: LIGHT_LOAD,
            },
            MachineType::C180 => Machine {
                name: "C180",
                cpu_mhz: 180.0,
                copy_ns_per_byte: 8.0,
                checksum_ns_per_byte: 4.5,
                send_penalty_ns_per_byte: 0.0,
                background_load: LIGHT_LOAD,
            },
            MachineType::J210 => Machine {
                name: "J210",
                cpu_mhz: 120.0,
                copy_ns_per_byte: 10.0,
                checksum_ns_per_byte: 6.0,
                send_penalty_ns_per_byte: 0.0,
                background_load: MODERATE_LOAD,
            },
            MachineType::Hp735 => Machine {
                name: "HP 9000/735",
                cpu_mhz: 125.0,
                copy_ns_per_byte: 12.0,
                checksum_ns_per_byte: 7.0,
                send_penalty_ns_per_byte: HP735_SEND_PENALTY_NS_PER_BYTE,
                background_load: MODERATE_LOAD,
            },
        }
    }
}

/// A machine's costs as picosecond counts, derived once per run.
#[derive(Clone, Copy, Debug)]
pub struct HostCosts {
    pub syscall: Time,
    pub packet_output: Time,
    pub packet_input: Time,
    pub interrupt: Time,
    pub wakeup: Time,
    pub output_check: Time,
    /// Picoseconds per byte copied.
    pub copy_ps_per_byte: f64,
    /// Picoseconds per byte checksummed.
    pub checksum_ps_per_byte: f64,
    /// Picoseconds per byte of the lumped send-path penalty.
    pub send_penalty_ps_per_byte: f64,
}

impl HostCosts {
    pub fn new(m: &Machine) -> Self {
        let c = HPUX_10_X;
        HostCosts {
            syscall: time::from_us(c.syscall),
            packet_output: time::from_us(c.packet_output),
            packet_input: time::from_us(c.packet_input),
            interrupt: time::from_us(c.interrupt),
            wakeup: time::from_us(c.wakeup),
            output_check: time::from_us(c.output_check),
            copy_ps_per_byte: m.copy_ns_per_byte * 1000.0,
            checksum_ps_per_byte: m.checksum_ns_per_byte * 1000.0,
            send_penalty_ps_per_byte: m.send_penalty_ns_per_byte * 1000.0,
        }
    }

    #[inline]
    pub fn copy(&self, bytes: u64) -> Time {
        (bytes as f64 * self.copy_ps_per_byte) as Time
    }

    /// Output of a segment of `bytes` data bytes: protocol work, checksum, send-path penalty.
    #[inline]
    pub fn output(&self, bytes: u64) -> Time {
        self.packet_output + (bytes as f64 * (self.checksum_ps_per_byte + self.send_penalty_ps_per_byte)) as Time
    }

    #[inline]
    pub fn checksum(&self, bytes: u64) -> Time {
        (bytes as f64 * self.checksum_ps_per_byte) as Time
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_costs_do_not_scale_with_the_clock_and_the_735_pays_a_send_penalty() {
        let c110 = HostCosts::new(&Machine::of(MachineType::C110));
        let c180 = HostCosts::new(&Machine::of(MachineType::C180));
        let hp735 = HostCosts::new(&Machine::of(MachineType::Hp735));
        assert_eq!(c110.syscall, time::from_ns(20_000.0));
        assert_eq!(c180.packet_input, c110.packet_input, "memory- and I/O-bound, not clock-bound");
        assert!(c180.copy(4096) < c110.copy(4096), "the C180's memory system copies faster");
        assert!(hp735.output(4096) > c110.output(4096) + hp735.packet_output - c110.packet_output);
    }
}
