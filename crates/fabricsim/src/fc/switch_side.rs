//! One Fibre Channel switch with its own event set, for models that attach
//! their own endpoints to its ports (TCP hosts, loop bridges) instead of the
//! fabric's N_Ports.
//!
//! The switch's events ([`SideEvent`]) stay in their own queue; the host
//! model keeps its own. [`step`] runs whichever is due first, the
//! switch's on a tie, so one run is one deterministic sequence of events.
//! What reaches an endpoint (a frame, a credit, a refused connect request)
//! comes back to the model as an [`Arrival`] for [`OnSwitch::on_switch`];
//! everything else the switch handles itself.

use std::collections::VecDeque;

use super::connection::{ConnectionEvent, Connections};
use super::metrics::{FcMetrics, FcMetricsSpec};
use super::shared::Shared;
use super::switch::{FcSwitch, FcSwitchSpec, SwitchEvent};
use super::timing::FcTiming;
use crate::kernel::{Arena, EventQueue, Time};
use crate::scenario::fc::Arbitration;
use crate::sim::{Carries, Clock, ComponentKind, Context, Delivery, Link, Model};

/// The switch's events and what its links and connections deliver.
#[derive(Clone, Copy, Debug)]
pub enum SideEvent {
    Switch(SwitchEvent),
    Delivery(u32, Delivery),
    Connection(u32, ConnectionEvent),
}

impl Carries<SwitchEvent> for SideEvent {
    fn wrap(_: u32, ev: SwitchEvent) -> Self {
        SideEvent::Switch(ev)
    }
}

impl Carries<Delivery> for SideEvent {
    fn wrap(index: u32, ev: Delivery) -> Self {
        SideEvent::Delivery(index, ev)
    }
}

impl Carries<ConnectionEvent> for SideEvent {
    fn wrap(index: u32, ev: ConnectionEvent) -> Self {
        SideEvent::Connection(index, ev)
    }
}

/// What the switch hands to the endpoints at its ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Terminal node `node` has received `frame` whole.
    Frame { node: u32, frame: u32 },
    /// The first byte of `frame` has reached loop bridge `bridge` (it holds
    /// the frame in a receive buffer the switch had credit for).
    FrameHead { bridge: u32, frame: u32 },
    /// A buffer-to-buffer credit (R_RDY) has reached node `node`.
    Credit { node: u32 },
    /// A buffer-to-buffer credit has reached loop bridge `bridge`.
    BridgeCredit { bridge: u32 },
    /// Class 1: the F_BSY answering connect request `connection` is back at its source.
    Refused { connection: u32 },
}

/// What [`SwitchSide::next`] found due.
enum Due<E> {
    /// The switch ran an event; it may have handed an endpoint something.
    Switch(Option<Arrival>),
    /// The model's own event, for it to run.
    Model(E),
}

/// How a lone switch is built: its ports' far ends, the buffers there, and
/// the output port towards each endpoint.
pub struct SwitchSideSpec<'a> {
    pub peers: &'a [Option<Link>],
    pub buffers_per_port: u32,
    /// Receive buffers of a buffering peer's port (a loop bridge's inbound buffers).
    pub peer_buffers: u32,
    /// `forwarding[n]`: the output ports towards endpoint `n`.
    pub forwarding: &'a [Vec<u16>],
    pub arbitration: Arbitration,
    pub class: u8,
    pub batches: u32,
    pub seed: u64,
}

pub struct SwitchSide {
    pub queue: EventQueue<SideEvent>,
    pub sh: Shared,
    pub switch: FcSwitch,
}

impl SwitchSide {
    pub fn new(timing: FcTiming, spec: SwitchSideSpec) -> Self {
        let ports = spec.peers.len();
        let switch = FcSwitch::new(FcSwitchSpec {
            id: 0,
            peers: spec.peers,
            buffers_per_port: spec.buffers_per_port,
            peer_buffers: spec.peer_buffers,
            forwarding: spec.forwarding,
            arbitration: spec.arbitration,
            seed: spec.seed,
        });
        let metrics = FcMetrics::new(
            &[ports],
            FcMetricsSpec {
                buffers: spec.buffers_per_port,
                batches: spec.batches,
                batch_ps: 10 * timing.data_time,
                nodes: spec.forwarding.len(),
                class: spec.class,
            },
        );
        SwitchSide {
            queue: EventQueue::with_capacity(1024),
            sh: Shared {
                frames: Arena::with_capacity(1024),
                messages: Arena::with_capacity(16),
                connections: Connections::new(spec.seed, 0.0),
                timing,
                metrics,
            },
            switch,
        }
    }

    /// A context on the switch's event set at `now`, for a sender's link.
    #[inline]
    pub fn cx(&mut self, now: Time) -> Context<'_, SideEvent, EventQueue<SideEvent>> {
        Context::new(now, &mut self.queue)
    }

    /// Whether the switch's next event comes before the model's own, which
    /// is due at `other` (the switch goes first on a tie).
    #[inline]
    fn first(&self, other: Option<Time>) -> bool {
        match (other, self.queue.peek_time()) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(a), Some(b)) => b <= a,
        }
    }

    /// Runs switch event `ev` at `now`; what it hands an endpoint comes back.
    #[inline]
    pub fn handle(&mut self, now: Time, ev: SideEvent) -> Option<Arrival> {
        let mut cx = Context::new(now, &mut self.queue);
        let (sw, sh) = (&mut self.switch, &mut self.sh);
        match ev {
            SideEvent::Switch(ev) => sw.handle(&mut cx, sh, ev),
            SideEvent::Delivery(_, Delivery::Head { kind: ComponentKind::Switch, port, frame }) => {
                sw.on_frame_start(&mut cx, sh, port as usize, frame)
            }
            SideEvent::Delivery(_, Delivery::Credit { kind: ComponentKind::Switch, port }) => {
                sw.on_credit(&mut cx, sh, port as usize)
            }
            SideEvent::Delivery(bridge, Delivery::Head { frame, .. }) => {
                return Some(Arrival::FrameHead { bridge, frame })
            }
            SideEvent::Delivery(node, Delivery::Whole { frame, .. }) => return Some(Arrival::Frame { node, frame }),
            SideEvent::Delivery(i, Delivery::Credit { kind: ComponentKind::LoopBridge, .. }) => {
                return Some(Arrival::BridgeCredit { bridge: i })
            }
            SideEvent::Delivery(node, Delivery::Credit { .. }) => return Some(Arrival::Credit { node }),
            SideEvent::Connection(connection, ConnectionEvent::Refused) => {
                return Some(Arrival::Refused { connection })
            }
            SideEvent::Connection(_, ConnectionEvent::Teardown) => unreachable!("a lone switch schedules no teardown"),
        }
        None
    }

    /// The next event of the two sets up to `limit`, the switch's first on
    /// a tie: a switch event is run here (what it hands an endpoint comes
    /// back), the model's is returned for the model to run. `clock` is the
    /// model's; it counts both.
    #[inline]
    fn next<E: Copy>(&mut self, clock: &mut Clock<E>, limit: Time) -> Option<Due<E>> {
        if !self.first(clock.queue.peek_time()) {
            return clock.next(limit).map(Due::Model);
        }
        let (t, ev) = self.queue.pop_until(limit)?;
        clock.now = t;
        clock.events += 1;
        Some(Due::Switch(self.handle(t, ev)))
    }

    pub fn memory_bytes(&self) -> u64 {
        self.sh.frames.memory_bytes() + self.queue.memory_bytes()
    }
}

/// An endpoint's transmitter towards its switch port: frames wait in
/// order and go one at a time, each under a buffer-to-buffer credit for a
/// receive buffer of the switch port.
#[derive(Clone, Debug)]
pub struct Sender {
    /// The fibre to the switch port.
    pub link: Link,
    /// Free receive buffers at the switch port.
    pub bb_credit: u32,
    /// Frames waiting to go, in order.
    pub queue: VecDeque<u32>,
    /// A frame is on the fibre.
    pub transmitting: bool,
}

impl Sender {
    pub fn new(link: Link, bb_credit: u32) -> Self {
        Sender { link, bb_credit, queue: VecDeque::with_capacity(64), transmitting: false }
    }

    /// Puts the next frame's head on the fibre now, if the fibre is free and
    /// the switch port has a buffer for it: the frame and when its last byte
    /// has gone (the caller's transmit-done event clears `transmitting`).
    #[inline]
    pub fn start_next(&mut self, fc: &mut SwitchSide, now: Time) -> Option<(u32, Time)> {
        if self.transmitting || self.bb_credit == 0 {
            return None;
        }
        let frame = self.queue.pop_front()?;
        self.bb_credit -= 1;
        self.transmitting = true;
        let done = now + fc.sh.timing.frame_time(fc.sh.frames.get(frame).bytes);
        self.link.send_head(&mut fc.cx(now), frame);
        Some((frame, done))
    }
}

/// A model whose endpoints sit on a lone switch.
pub trait OnSwitch: Model {
    /// The switch and the model's own clock, borrowed together.
    fn sides(&mut self) -> (&mut SwitchSide, &mut Clock<Self::Event>);
    /// Takes what the switch hands an endpoint.
    fn on_switch(&mut self, arrival: Arrival);
    /// Runs one of the model's own events.
    fn on_own(&mut self, event: Self::Event);
}

/// One step of such a model: its event or the switch's, whichever is due
/// first (the switch's on a tie). False when nothing is due by `limit`.
#[inline]
pub fn step<M: OnSwitch>(model: &mut M, limit: Time) -> bool {
    let (fc, clock) = model.sides();
    match fc.next(clock, limit) {
        None => false,
        Some(Due::Switch(arrival)) => {
            if let Some(a) = arrival {
                model.on_switch(a);
            }
            true
        }
        Some(Due::Model(ev)) => {
            model.on_own(ev);
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fc::frame::Frame;
    use crate::scenario::FcFabricSpec;
    use crate::sim::PortRef;

    #[test]
    fn a_sender_sends_one_frame_at_a_time_under_credit() {
        let timing = FcTiming::new(&FcFabricSpec::default());
        let peers = [Some(Link::new(PortRef::node(0), 0)), Some(Link::new(PortRef::node(1), 0))];
        let spec = SwitchSideSpec {
            peers: &peers,
            buffers_per_port: 2,
            peer_buffers: 2,
            forwarding: &[vec![0], vec![1]],
            arbitration: Arbitration::Rotating,
            class: 3,
            batches: 10,
            seed: 1,
        };
        let mut fc = SwitchSide::new(timing.clone(), spec);
        let mut s = Sender::new(Link::new(PortRef::switch(0, 0), 0), 2);
        let frames: Vec<u32> = (0..3)
            .map(|_| fc.sh.frames.insert(Frame { dst: 1, bytes: timing.data_bytes, ..Frame::default() }))
            .collect();
        s.queue.extend(&frames);
        assert_eq!(s.start_next(&mut fc, 0), Some((frames[0], timing.data_time)));
        assert_eq!(s.start_next(&mut fc, 0), None, "the fibre is busy");
        s.transmitting = false;
        assert_eq!(s.start_next(&mut fc, 5).map(|(f, _)| f), Some(frames[1]));
        s.transmitting = false;
        assert_eq!(s.start_next(&mut fc, 9), None, "no buffer left at the switch port");
        s.bb_credit += 1;
        assert_eq!(s.start_next(&mut fc, 9).map(|(f, _)| f), Some(frames[2]));
        assert_eq!(fc.queue.len(), 3, "each head reaches the switch port");
    }
}
