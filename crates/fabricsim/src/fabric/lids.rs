//! Local identifiers (LIDs), the addresses a linear forwarding table is
//! indexed by: one per switch (its port 0) and one per endpoint (an adapter
//! port), with LMC 0.
//!
//! Assigned as OpenSM's LID manager does on a subnet it sweeps for the first
//! time (`osm_lid_mgr.c`): a port that already has a LID keeps it (ibsim
//! gives the ports of a dump the LIDs the dump records, and OpenSM keeps
//! them); then the subnet manager's own port takes the lowest free LID, and
//! every other port the next lowest free one, in the order of OpenSM's port
//! GUID map (`identity::opensm_guid_order`).

use super::identity::{opensm_guid_order, SmPort};
use super::topology::Topology;
use crate::error::{Error, Result};

/// The highest unicast LID (0xC000 and above are multicast).
pub const MAX_UNICAST_LID: u16 = 0xBFFF;

/// What a LID addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LidOwner {
    Switch(u32),
    Endpoint(u32),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lids {
    /// LID of every switch's port 0.
    pub switch: Vec<u16>,
    /// LID of every endpoint.
    pub endpoint: Vec<u16>,
}

impl Lids {
    /// The highest LID in use.
    pub fn top(&self) -> u16 {
        self.switch.iter().chain(&self.endpoint).copied().max().unwrap_or(0)
    }

    /// The owner of every LID from 0 to `top()` (None where unused).
    pub fn owners(&self) -> Vec<Option<LidOwner>> {
        let mut owners = vec![None; self.top() as usize + 1];
        for (s, &l) in self.switch.iter().enumerate() {
            owners[l as usize] = Some(LidOwner::Switch(s as u32));
        }
        for (e, &l) in self.endpoint.iter().enumerate() {
            owners[l as usize] = Some(LidOwner::Endpoint(e as u32));
        }
        owners
    }

    /// OpenSM's assignment for `topo` (its recorded identity, or the one
    /// ibsim would give it).
    pub fn assign(topo: &Topology) -> Result<Lids> {
        let id = topo.subnet_identity();
        let (n_sw, n_ep) = (id.switches.len(), id.endpoints.len());
        if n_sw + n_ep > MAX_UNICAST_LID as usize {
            return Err(Error::invalid(
                "topology",
                format!("{n_sw} switches and {n_ep} adapter ports"),
                format!("at most {MAX_UNICAST_LID} LIDs (InfiniBand's unicast range, LMC 0)"),
            ));
        }
        // Ports as (owner, port GUID, recorded LID), in OpenSM's map order.
        let mut ports: Vec<(LidOwner, u64, Option<u16>)> = id
            .switches
            .iter()
            .enumerate()
            .map(|(s, sw)| (LidOwner::Switch(s as u32), sw.node.guid, sw.lid))
            .chain(id.endpoints.iter().enumerate().map(|(e, ep)| (LidOwner::Endpoint(e as u32), ep.port_guid, ep.lid)))
            .collect();
        ports.sort_by_key(|&(owner, guid, _)| (opensm_guid_order(guid), owner_rank(owner)));
        let mut lids = Lids { switch: vec![0; n_sw], endpoint: vec![0; n_ep] };
        let mut used = vec![false; MAX_UNICAST_LID as usize + 1];
        used[0] = true;
        let set = |lids: &mut Lids, owner: LidOwner, lid: u16| match owner {
            LidOwner::Switch(s) => lids.switch[s as usize] = lid,
            LidOwner::Endpoint(e) => lids.endpoint[e as usize] = lid,
        };
        let mut waiting = Vec::new();
        for &(owner, _, recorded) in &ports {
            match recorded.filter(|&l| (1..=MAX_UNICAST_LID).contains(&l) && !used[l as usize]) {
                Some(l) => {
                    used[l as usize] = true;
                    set(&mut lids, owner, l);
                }
                None => waiting.push(owner),
            }
        }
        let sm = match id.sm {
            SmPort::Switch(s) => LidOwner::Switch(s),
            SmPort::Endpoint(e) => LidOwner::Endpoint(e),
        };
        if let Some(i) = waiting.iter().position(|&o| o == sm) {
            waiting.remove(i);
            waiting.insert(0, sm);
        }
        let mut next = 1usize;
        for owner in waiting {
            while used[next] {
                next += 1;
            }
            used[next] = true;
            set(&mut lids, owner, next as u16);
        }
        Ok(lids)
    }
}

/// Orders a switch before an adapter port of the same GUID (never in a real subnet).
fn owner_rank(owner: LidOwner) -> u32 {
    match owner {
        LidOwner::Switch(s) => s,
        LidOwner::Endpoint(e) => (1 << 31) + e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::import::parse;
    use crate::fabric::shapes::{build_shape, ShapeParams};

    #[test]
    fn the_sm_first_then_port_guid_order() {
        // ibsim's GUIDs: switches 0x200000.., adapter ports 0x100001, 0x100003, ...
        let topo =
            build_shape("fat_tree", &ShapeParams { arity: Some(2), levels: Some(2), ..Default::default() }).unwrap();
        let lids = Lids::assign(&topo).unwrap();
        // Byte-swapped order: 0x200000 (the SM), 0x100001, 0x200001, 0x200002, 0x100003, ...
        // (as OpenSM numbered ibsim's fat tree: Switch2 LID 4, Hca1 LID 5).
        assert_eq!(lids.switch, vec![1, 3, 4, 6]);
        assert_eq!(lids.endpoint, vec![2, 5, 7, 8]);
        assert_eq!(lids.top(), 8);
        assert_eq!(lids.owners()[5], Some(LidOwner::Endpoint(1)));
    }

    #[test]
    fn recorded_lids_are_kept_and_the_rest_fill_the_gaps() {
        let text = "Switch 4 \"a\" # \"a\" lid 5\n[1] \"b\"[1]\n[2] \"h\"[1]\n\nSwitch 4 \"b\"\n[1] \"a\"[1]\n[2] \"g\"[1]\n\n\
                    Ca 1 \"h\"\n[1] \"a\"[2] # lid 1 lmc 0\n\nCa 1 \"g\"\n[1] \"b\"[2]\n";
        let topo = parse(text, "t").unwrap();
        let lids = Lids::assign(&topo).unwrap();
        assert_eq!(lids.switch[0], 5);
        assert_eq!(lids.endpoint[0], 1);
        // Switch b and adapter g have none: the lowest free LIDs, 2 and 3, in GUID order.
        let (b, g) = (lids.switch[1], lids.endpoint[1]);
        assert_eq!([b.min(g), b.max(g)], [2, 3]);
    }
}
