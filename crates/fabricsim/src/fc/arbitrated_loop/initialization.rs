//! Loop initialization (FC-AL LIP procedure) and the time it takes.
//!
//! After LIP has gone round the loop, every port sends LISM frames carrying
//! its port name; a port forwards names lower than its own and replaces
//! higher ones, so only the lowest name (the FL_Port's, if present) comes
//! back to its sender, which becomes loop master. The master confirms with
//! ARB(F0) and then circulates four address bitmap frames in turn: LIFA
//! (fabric-assigned: the FL_Port's 0x00), LIPA (previously acquired), LIHA
//! (hard) and LISA (soft: the first free bit). Optionally LIRP and LILP
//! circulate the position map; the master closes with CLS.
//!
//! Ports must rewrite the bitmap, so each stores a whole initialization frame
//! before forwarding it (`store_and_forward`): a frame trip costs the frame
//! time at every port on top of the node delay. This is a closed-form walk
//! of the procedure, not part of the event loop: initialization happens
//! before any I/O.

use super::al_pa::VALID_AL_PAS;
use super::timing::LoopTiming;
use crate::kernel::Time;

/// What initialization needs to know about one port, in ring order.
#[derive(Clone, Debug)]
pub struct InitPort {
    pub port_name: u64,
    pub fl_port: bool,
    pub hard_al_pa: Option<u8>,
    pub previous_al_pa: Option<u8>,
}

#[derive(Clone, Debug)]
pub struct LoopInit {
    /// Acquired AL_PA per port (None: no address left, the port does not participate).
    pub al_pas: Vec<Option<u8>>,
    pub master: usize,
    /// Duration of each step: LIP, LISM, ARB(F0), LIFA, LIPA, LIHA, LISA, LIRP, LILP, CLS.
    pub phases: Vec<(&'static str, Time)>,
    pub duration: Time,
    /// Ports that wanted a hard address but had to take a soft one.
    pub hard_conflicts: u32,
}

/// Payload of LISM (8-byte code + port name) and of the LIxA frames (code + 16-byte bitmap).
const LISM_PAYLOAD: u32 = 12;
const LIXA_PAYLOAD: u32 = 20;
/// LIRP/LILP: code + offset byte + 127 positions.
const POSITION_MAP_PAYLOAD: u32 = 132;

/// Runs the initialization procedure over `ports` (ring order, LIP started by port 0).
pub fn initialize(ports: &[InitPort], timing: &LoopTiming, store_and_forward: bool, position_map: bool) -> LoopInit {
    let n = ports.len() as u64;
    let trip = timing.trip();
    // A primitive sequence is recognized after three identical ordered sets.
    let primitive_trip = trip + 3 * timing.word;
    let frame_trip = |payload: u32| {
        let per_port = if store_and_forward { timing.frame_time(payload) } else { 0 };
        trip + n * per_port
    };
    let mut phases = Vec::with_capacity(10);
    phases.push(("lip", primitive_trip));
    // Every port starts LISM at once; the winner's frame needs one full frame trip.
    phases.push(("lism", frame_trip(LISM_PAYLOAD)));
    phases.push(("arb_f0", primitive_trip));
    let master = (0..ports.len())
        .min_by_key(|&i| (!ports[i].fl_port, ports[i].port_name))
        .expect("a loop has at least one port");

    let mut taken = [false; 127];
    let mut al_pas: Vec<Option<u8>> = vec![None; ports.len()];
    let order: Vec<usize> = (0..ports.len()).map(|k| (master + k) % ports.len()).collect();
    let mut claim = |al_pas: &mut Vec<Option<u8>>, i: usize, a: u8| -> bool {
        let Some(bit) = VALID_AL_PAS.binary_search(&a).ok() else {
            return false;
        };
        if taken[bit] || al_pas[i].is_some() {
            return false;
        }
        taken[bit] = true;
        al_pas[i] = Some(a);
        true
    };
    // LIFA: only the FL_Port's 0x00 is fabric-assigned here.
    for &i in &order {
        if ports[i].fl_port {
            claim(&mut al_pas, i, 0x00);
        }
    }
    phases.push(("lifa", frame_trip(LIXA_PAYLOAD)));
    for &i in &order {
        if let Some(a) = ports[i].previous_al_pa {
            claim(&mut al_pas, i, a);
        }
    }
    phases.push(("lipa", frame_trip(LIXA_PAYLOAD)));
    let mut hard_conflicts = 0;
    for &i in &order {
        if let Some(a) = ports[i].hard_al_pa {
            if al_pas[i].is_none() && !claim(&mut al_pas, i, a) {
                hard_conflicts += 1;
            }
        }
    }
    phases.push(("liha", frame_trip(LIXA_PAYLOAD)));
    // LISA: every port still without an address takes the first free NL_Port AL_PA.
    for &i in &order {
        if al_pas[i].is_none() {
            if let Some(bit) = (1..127).find(|&b| !taken[b]) {
                taken[bit] = true;
                al_pas[i] = Some(VALID_AL_PAS[bit]);
            }
        }
    }
    phases.push(("lisa", frame_trip(LIXA_PAYLOAD)));
    if position_map {
        phases.push(("lirp", frame_trip(POSITION_MAP_PAYLOAD)));
        phases.push(("lilp", frame_trip(POSITION_MAP_PAYLOAD)));
    }
    phases.push(("cls", primitive_trip));
    let duration = phases.iter().map(|p| p.1).sum();
    LoopInit { al_pas, master, phases, duration, hard_conflicts }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::LoopSpec;

    fn ports(n: usize, hard: bool) -> Vec<InitPort> {
        (0..n)
            .map(|i| InitPort {
                port_name: 0x2000_0000_0000_0000 + i as u64,
                fl_port: false,
                hard_al_pa: hard
                    .then(|| super::super::al_pa::al_pa_of_loop_id(if i == 0 { 125 } else { (i - 1) as u8 }).unwrap()),
                previous_al_pa: None,
            })
            .collect()
    }

    #[test]
    fn hard_soft_and_time_grows_with_size() {
        let t = LoopTiming::new(&LoopSpec { length_m: 50.0, ..LoopSpec::default() }, 13);
        let init = initialize(&ports(13, true), &t, true, true);
        assert_eq!(init.master, 0);
        assert_eq!(init.al_pas[0], Some(0x01));
        assert_eq!(init.al_pas[1], Some(0xEF));
        let soft = initialize(&ports(13, false), &t, true, true);
        assert_eq!(soft.al_pas[0], Some(0x01));
        assert_eq!(soft.al_pas[1], Some(0x02));
        let t97 = LoopTiming::new(&LoopSpec { length_m: 50.0, ..LoopSpec::default() }, 97);
        let big = initialize(&ports(97, true), &t97, true, true);
        assert!(big.duration > 5 * init.duration);
        // Two ports asking for the same hard address: the second goes soft.
        let mut p = ports(3, true);
        p[2].hard_al_pa = p[1].hard_al_pa;
        let t3 = LoopTiming::new(&LoopSpec { length_m: 50.0, ..LoopSpec::default() }, 3);
        let c = initialize(&p, &t3, true, false);
        assert_eq!(c.hard_conflicts, 1);
        assert_eq!(c.al_pas[2], Some(0x02));
    }
}
