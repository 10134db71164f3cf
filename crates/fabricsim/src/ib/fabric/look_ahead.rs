//! The look ahead: while an event runs, the driver shows the model the
//! next one ([`Model::prefetch`](crate::sim::Model::prefetch)), and the
//! fabric asks the caches for the lines that event will read first: its
//! switch's line and port, or its HCA, and its packet; for a header, also
//! the output its forwarding table names. On a fabric larger than the
//! caches (an 8-ary 4-tree's 49 MiB) those misses then overlap the running
//! event's work instead of following it.
//!
//! The first lines are picked without a branch on the next event's kind,
//! whose outcome is as unpredictable as the event order: a `match` there
//! cost more in mispredictions than its hints saved. Following a transfer's
//! end to its output and upstream port read the input's line at once and
//! lost time too, so only a header's route is followed. Hinting the event
//! after next as well (the ring's second earliest) measured no different.
//!
//! A hint only: the run is the same with or without it. A fabric whose
//! switches fit in a few L2 caches goes without, as its next event's state
//! is in cache already.

use std::hint::select_unpredictable;

use super::{Event, IbFabric, IbSwitch, Kind, VL15};
use crate::kernel::prefetch::prefetch;

/// Switch state from which the look ahead pays: four times a 1 MiB L2.
pub(super) const MIN_SWITCH_BYTES: u64 = 4 << 20;

/// Which side of its component an event reads.
const INPUT: usize = 0;
const OUTPUT: usize = 1;
const HCA: usize = 2;

/// Where every switch's input and output ports start, and their size.
#[derive(Debug, Default)]
pub(super) struct LookAhead {
    /// Per switch, [inputs, outputs] as (address, bytes per port); empty
    /// when the fabric goes without the look ahead.
    ports: Vec<[(usize, usize); 2]>,
    /// Per side, the lines an event reads beyond the first, as offsets
    /// (repeated where a side reads fewer than four).
    lines: [[usize; 3]; 3],
}

impl LookAhead {
    /// The look ahead over switches whose ports are at `ports`, if their
    /// state (`switch_bytes`) is large enough for it to pay; the traffic's
    /// data VLs are in `halves` of an output's per-VL lines (bit 0: VLs
    /// 0-7, bit 1: VLs 8-14; see `output_port.rs`).
    pub(super) fn new(switch_bytes: u64, ports: impl IntoIterator<Item = [(usize, usize); 2]>, halves: u8) -> Self {
        if switch_bytes < MIN_SWITCH_BYTES {
            return LookAhead::default();
        }
        let [low, high, rest] = IbSwitch::OUTPUT_LINES;
        let output = match halves {
            1 => [low, rest, low],
            2 => [high, rest, high],
            _ => [low, high, rest],
        };
        // An input's first line holds VLs 0-7's requests and queues, its
        // second VLs 8-15's.
        let input = if halves == 1 { [0, 0, 0] } else { [64, 0, 64] };
        LookAhead { ports: ports.into_iter().collect(), lines: [input, output, [64, 128, 192]] }
    }

    pub(super) fn is_on(&self) -> bool {
        !self.ports.is_empty()
    }

    /// Hints the lines `event` reads.
    #[inline(always)]
    pub(super) fn prefetch(&self, fabric: &IbFabric, event: &Event) {
        if !self.is_on() {
            return;
        }
        for at in self.lines(fabric, event) {
            prefetch(at as *const u8);
        }
        if event.kind == Kind::Header {
            if let Some(at) = self.route(fabric, event) {
                prefetch(at as *const u8);
                for line in self.lines[OUTPUT] {
                    prefetch(at.wrapping_add(line) as *const u8);
                }
            }
        }
    }

    /// The lines `event` reads first, found without a branch on its kind:
    /// its switch's line, its port's first lines (an input's first line,
    /// and its second if the traffic uses VLs 8-15; an output's first line,
    /// the per-VL lines of the traffic's VLs and the held credits) or its
    /// HCA's first four, and its packet (packet 0 if it carries none). An
    /// input's further lines are cold: asking for them would only crowd
    /// the caches, so its slots ask for its first lines again.
    #[inline(always)]
    fn lines(&self, fabric: &IbFabric, event: &Event) -> [usize; 6] {
        let (side, packet) = event.target();
        let i = event.index as usize;
        let hca = fabric.hcas.as_ptr().wrapping_add(i) as usize;
        let switch = fabric.switches.as_ptr().wrapping_add(i) as usize;
        let (base, bytes) = self.ports[i.min(self.ports.len() - 1)][side & OUTPUT];
        let port = base.wrapping_add(event.port as usize * bytes);
        let on_hca = side == HCA;
        let at = select_unpredictable(on_hca, hca, port);
        let [a, b, c] = self.lines[side];
        [
            select_unpredictable(on_hca, hca, switch),
            at,
            at.wrapping_add(a),
            at.wrapping_add(b),
            at.wrapping_add(c),
            fabric.sh.packets.address(packet),
        ]
    }

    /// Where a header's output starts, as its switch's data table names it: the packet
    /// and the switch were asked for just before, so these reads wait for
    /// them, not for memory twice.
    #[inline(always)]
    fn route(&self, fabric: &IbFabric, event: &Event) -> Option<usize> {
        let i = event.index as usize;
        let dlid = fabric.sh.packets.try_get(event.arg)?.dlid;
        let (base, bytes) = self.ports.get(i)?[OUTPUT];
        Some(base + fabric.switches.get(i)?.data_route(&fabric.sh.lft, dlid) * bytes)
    }
}

/// The halves of an output's per-VL lines data VLs `vls` are in (bit 0:
/// VLs 0-7, bit 1: VLs 8-14). VL15's control packets, a few, are not asked for.
pub(super) fn halves_of(vls: &[u8]) -> u8 {
    vls.iter().filter(|&&vl| vl != VL15).fold(0, |halves, &vl| halves | 1 << (vl >> 3))
}

/// How many kinds of event there are: `Kind`'s last variant, plus one (a
/// kind added after it moves this, and the test of every kind's row fails
/// until it does).
const KINDS: usize = Kind::HcaReady as usize + 1;

impl Event {
    /// The side of its component the event reads ([`INPUT`], [`OUTPUT`],
    /// [`HCA`]) and the packet it carries (0 if none), by table look-ups
    /// on its kind, not branches.
    #[inline(always)]
    fn target(&self) -> (usize, u32) {
        // Per kind, in `Kind`'s order: the side, and whether `arg` is a packet
        // (`every_kind_names_its_side...` below checks each kind has its row).
        const SIDE: [usize; KINDS] = [HCA, HCA, HCA, HCA, INPUT, INPUT, OUTPUT, OUTPUT, OUTPUT, OUTPUT, HCA];
        const PACKET: [u32; KINDS] = [0, 0, 0, !0, !0, 0, 0, 0, 0, 0, 0];
        let k = self.kind as usize;
        (SIDE[k], self.arg & PACKET[k])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ib::hca::HcaEvent;
    use crate::ib::packet::Packet;
    use crate::ib::sources::SourceEvent;
    use crate::ib::switch::{IbSwitch, SwitchEvent};
    use crate::ib::wire::Delivery;
    use crate::scenario::Scenario;
    use crate::sim::{Carries, ComponentKind, PortRef};

    /// Two switches, an HCA on each, no workload.
    fn fabric() -> IbFabric {
        let toml = "[ib.topology]\nkind = \"custom\"\nhcas = [1, 1]\ncables = [[1, 2]]\n\
                    [ib.workload]\ninjection_rate = 0\ncontrol_period_ms = 0\n";
        IbFabric::build(&Scenario::from_toml_str(toml, "look_ahead.toml").unwrap()).unwrap()
    }

    fn at<T>(r: &T) -> usize {
        r as *const T as usize
    }

    #[test]
    fn every_kind_names_its_side_and_only_a_packet_as_its_packet() {
        let sw = |p| PortRef { kind: ComponentKind::Switch, index: 1, port: p };
        let hca = PortRef { kind: ComponentKind::Hca, index: 1, port: 0 };
        let cases: [(Event, usize, u32); KINDS] = [
            (Event::wrap(1, SourceEvent::Control), HCA, 0),
            (Event::wrap(1, HcaEvent::Sent), HCA, 0),
            (Event::wrap(1, Delivery::credit(hca, 0, 9)), HCA, 0),
            (Event::wrap(1, Delivery::Packet { kind: ComponentKind::Hca, port: 0, packet: 7 }), HCA, 7),
            (Event::wrap(1, Delivery::Packet { kind: ComponentKind::Switch, port: 3, packet: 7 }), INPUT, 7),
            (Event::wrap(1, SwitchEvent::TransferDone { port: 3, out: 1 }), INPUT, 0),
            (Event::wrap(1, SwitchEvent::Sent { port: 3 }), OUTPUT, 0),
            (Event::wrap(1, SwitchEvent::Expire { port: 3 }), OUTPUT, 0),
            (Event::wrap(1, SwitchEvent::CentralDone { port: 3 }), OUTPUT, 0),
            (Event::wrap(1, Delivery::credit(sw(3), 0, 9)), OUTPUT, 0),
            (Event::wrap(1, HcaEvent::Ready), HCA, 0),
        ];
        for (k, (event, side, packet)) in cases.into_iter().enumerate() {
            assert_eq!(event.kind as usize, k, "{event:?}: every kind once, in order");
            assert_eq!(event.target(), (side, packet), "{event:?}");
        }
    }

    #[test]
    fn the_hints_name_the_lines_the_next_event_reads() {
        let mut f = fabric();
        assert!(!f.look_ahead.is_on(), "a fabric this small goes without");
        f.look_ahead = LookAhead::new(u64::MAX, f.switches.iter().map(IbSwitch::port_addresses), 3);
        assert!(f.look_ahead.is_on());
        let dlid = (f.hcas.len() - 1) as u16; // the last HCA
        let p = f.sh.packets.insert(Packet { dlid, ..Packet::default() });
        let la = &f.look_ahead;

        let header = Event::wrap(1, Delivery::Packet { kind: ComponentKind::Switch, port: 2, packet: p });
        let input = f.switches[1].input_address(2);
        assert_eq!(
            la.lines(&f, &header),
            [at(&f.switches[1]), input, input + 64, input, input + 64, at(f.sh.packets.get(p))]
        );
        let out = f.switches[1].data_route(&f.sh.lft, dlid);
        assert_eq!(la.route(&f, &header), Some(f.switches[1].output_address(out)));

        let sent = Event::wrap(0, SwitchEvent::Sent { port: 1 });
        let output = f.switches[0].output_address(1);
        assert_eq!(la.lines(&f, &sent)[..5], [at(&f.switches[0]), output, output + 64, output + 128, output + 192]);

        let hca_sent = Event::wrap(1, HcaEvent::Sent);
        let hca = at(&f.hcas[1]);
        assert_eq!(la.lines(&f, &hca_sent)[..5], [hca, hca, hca + 64, hca + 128, hca + 192]);

        // Traffic on VLs 8-14 only: an output's first line, VLs 8-15's and the held credits'.
        f.look_ahead = LookAhead::new(u64::MAX, f.switches.iter().map(IbSwitch::port_addresses), 2);
        assert_eq!(f.look_ahead.lines(&f, &sent)[1..5], [output, output + 128, output + 192, output + 128]);
        // Traffic on VLs 0-7 only: an input's first line alone.
        f.look_ahead = LookAhead::new(u64::MAX, f.switches.iter().map(IbSwitch::port_addresses), 1);
        assert_eq!(f.look_ahead.lines(&f, &header)[1..5], [input; 4]);
    }

    #[test]
    fn the_halves_asked_for_are_those_of_the_vls_in_use() {
        let halves = |workload: &str| {
            let toml = format!(
                "[ib.topology]\nkind = \"custom\"\nhcas = [1, 1]\ncables = [[1, 2]]\n[ib.workload]\n{workload}"
            );
            let f = IbFabric::build(&Scenario::from_toml_str(&toml, "halves.toml").unwrap()).unwrap();
            halves_of(&f.used_vls)
        };
        assert_eq!(halves(""), 3, "video on VLs 1-7, best effort on 8-14");
        assert_eq!(halves("real_time_share = 0\n"), 1, "best effort alone: the scenario's VLs 8-14, the model's 0-6");
        assert_eq!(halves("real_time_share = 1\n"), 1);
        assert_eq!(halves("real_time_share = 0\nbest_effort_sls = [0, 7]\n"), 1);
        assert_eq!(halves_of(&[VL15]), 0);
    }
}
