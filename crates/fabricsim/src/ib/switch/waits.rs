//! The waits a run-time deadlock is a cycle of, as one switch sees them:
//! "this buffer's head waits on that buffer", each named by its kind, so a
//! deadlock can be attributed to the unicast routing or to replication
//! (seed 003 section 5.2: "We did not observe deadlocks with the
//! Synchronous Replication because preemption between multicast packets
//! is resolved in the FCFS order").
//!
//! Nodes are input VLs (switch, input port, VL) and two buffers of the
//! multicast schemes: an input's one-packet buffer (asynchronous) and an
//! output's FIFO (central buffer). A wait across a link (`through` an
//! output) is hard only if no credit is on its way back; the fabric checks
//! that (it sees both ends). An asynchronous packet may take any of its
//! outputs first, so it waits only when every one of them is blocked.

use super::replication::Request;
use super::*;
use crate::scenario::ib::MulticastScheme;

/// The node of an input's one-packet multicast buffer: (switch, input, this).
pub const INPUT_BUFFER: u8 = 16;
/// The node of an output's multicast FIFO: (switch, output, this).
pub const OUTPUT_FIFO: u8 = 17;

/// What a wait is; the deadlock report names each wait of its cycle by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WaitKind {
    /// A unicast head waits on a full output VL.
    Unicast,
    /// A multicast packet (or an output's FIFO) waits on a full output VL for a copy.
    MulticastCopy,
    /// A packet waits on an output a synchronous multicast request holds.
    Reservation,
    /// Asynchronous: a multicast packet waits for its input's buffer.
    ReplicationBuffer,
    /// Central buffer: a multicast packet waits for room in an output's FIFO.
    CentralFifo,
}

impl WaitKind {
    /// Whether the wait exists only because switches replicate.
    pub fn of_replication(self) -> bool {
        self != WaitKind::Unicast
    }

    pub fn name(self) -> &'static str {
        match self {
            WaitKind::Unicast => "unicast packet on a full output VL",
            WaitKind::MulticastCopy => "multicast copy on a full output VL",
            WaitKind::Reservation => "output reserved by synchronous replication",
            WaitKind::ReplicationBuffer => "input's multicast buffer",
            WaitKind::CentralFifo => "output's multicast FIFO full",
        }
    }
}

/// `from` waits on `to`; `through`: the output whose credits decide
/// whether the wait is hard (`to` is then the input VL across its link).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wait {
    pub from: InputVl,
    pub to: InputVl,
    pub through: Option<u16>,
    pub kind: WaitKind,
}

impl IbSwitch {
    /// Every wait of this switch's buffers at `now` (see the module doc);
    /// `block`: bytes per credit block.
    pub fn waits(&self, packets: &Arena<Packet>, block: u32, now: Time) -> Vec<Wait> {
        let mut out = Vec::new();
        for port in 0..self.ports() {
            for vl in 0..15u8 {
                let input = &self.inputs[port];
                if input.queue(vl).is_empty() || input.ready & (1 << vl) == 0 {
                    continue;
                }
                let (from, o, blocks) = ((self.index, port as u16, vl), input.head_out(vl), input.head_blocks(vl));
                if let Some(to) = self.full_downstream(o, vl, blocks, now) {
                    out.push(Wait { from, to, through: Some(o as u16), kind: WaitKind::Unicast });
                } else if blocks <= self.free_at(o, vl, now) {
                    self.reservation_waits(from, 1 << o, None, &mut out);
                }
            }
        }
        if self.replication.is_some() {
            self.replication_waits(packets, block, now, &mut out);
        }
        out
    }

    /// The input VL across output `o`'s link if the packet of `blocks` on
    /// `vl` waiting for `o` finds its VL full and that VL's head waits for
    /// credit (a switch across the link: an HCA always drains).
    fn full_downstream(&self, o: usize, vl: u8, blocks: u16, now: Time) -> Option<InputVl> {
        let port = &self.outputs[o].port;
        if blocks <= self.free_at(o, vl, now) || port.queue(vl).is_empty() || !port.blocked_on_credit(vl, now) {
            return None;
        }
        let w = self.inputs[o].peer?;
        (w.to.kind == ComponentKind::Switch).then_some((w.to.index, w.to.port, vl))
    }

    /// Synchronous replication: `from`, wanting `outs`, waits on every
    /// request (before `before` in service order, if given) that holds its
    /// outputs (it has room on all of them, or requests hold and wait).
    fn reservation_waits(&self, from: InputVl, outs: u64, before: Option<usize>, out: &mut Vec<Wait>) {
        let Some(r) = self.replication.as_ref().filter(|r| r.scheme == MulticastScheme::Synchronous) else {
            return;
        };
        let mut order = Vec::new();
        r.service_order(self.ports(), &mut order);
        for &k in order.iter().take_while(|&&k| Some(k) != before) {
            let q = &r.requests[k];
            if q.remaining & outs != 0 && (r.hold_and_wait || self.has_room(q.remaining, q.vl, q.blocks)) {
                out.push(Wait { from, to: self.request_node(q), through: None, kind: WaitKind::Reservation });
            }
        }
    }

    fn request_node(&self, q: &Request) -> InputVl {
        let vl = if q.buffered { INPUT_BUFFER } else { q.vl };
        (self.index, q.input, vl)
    }

    /// The waits of multicast packets and of the buffers that hold them.
    fn replication_waits(&self, packets: &Arena<Packet>, block: u32, now: Time, out: &mut Vec<Wait>) {
        let r = self.replication.as_ref().expect("replicating switch");
        let blocked = |q: &Request, o: usize| self.full_downstream(o, q.vl, q.blocks, now);
        let copy_waits = |from: InputVl, q: &Request, out: &mut Vec<Wait>| {
            for o in bits(q.remaining) {
                if let Some(to) = blocked(q, o) {
                    out.push(Wait { from, to, through: Some(o as u16), kind: WaitKind::MulticastCopy });
                }
            }
        };
        let all_blocked = |q: &Request| bits(q.remaining).all(|o| blocked(q, o).is_some());
        for (k, q) in r.requests.iter().enumerate() {
            let from = self.request_node(q);
            match r.scheme {
                MulticastScheme::Synchronous => {
                    if self.has_room(q.remaining, q.vl, q.blocks) {
                        self.reservation_waits(from, q.remaining, Some(k), out);
                    } else {
                        copy_waits(from, q, out);
                        if r.hold_and_wait {
                            self.reservation_waits(from, q.remaining, Some(k), out);
                        }
                    }
                }
                MulticastScheme::Asynchronous => {
                    let holder = r.requests.iter().find(|b| b.buffered && b.input == q.input);
                    match holder {
                        Some(b) if !q.buffered => {
                            let to = self.request_node(b);
                            out.push(Wait { from, to, through: None, kind: WaitKind::ReplicationBuffer });
                        }
                        _ if !q.copying && all_blocked(q) => copy_waits(from, q, out),
                        _ => {}
                    }
                }
                MulticastScheme::CentralBuffer => {
                    let bytes = packets[q.id].bytes as u32;
                    for o in bits(q.remaining) {
                        if r.central[o].bytes + bytes > r.central_bytes {
                            let to = (self.index, o as u16, OUTPUT_FIFO);
                            out.push(Wait { from, to, through: None, kind: WaitKind::CentralFifo });
                        }
                    }
                }
                MulticastScheme::ReplicatedUnicast => unreachable!("no switch replication"),
            }
        }
        if r.scheme == MulticastScheme::CentralBuffer {
            for (o, c) in r.central.iter().enumerate() {
                if let Some(id) = c.fifo.front(packets) {
                    let p = &packets[id];
                    if let Some(to) = self.full_downstream(o, p.vl, credit_blocks(p, p.vl, block), now) {
                        let from = (self.index, o as u16, OUTPUT_FIFO);
                        out.push(Wait { from, to, through: Some(o as u16), kind: WaitKind::MulticastCopy });
                    }
                }
            }
        }
    }
}

/// The set bits of `mask`, lowest first.
fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let b = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            b
        })
    })
}
