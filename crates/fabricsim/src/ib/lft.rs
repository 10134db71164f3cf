//! The switches' linear forwarding tables in blocks of 64 LIDs, the unit
//! in which the IBA hands a switch its table (LinearForwardingTable
//! blocks), each distinct block stored once for every switch that holds it.
//!
//! Most blocks repeat from switch to switch: under D-Mod-K every switch of
//! a fat tree's level sends a destination up the same way, so only the
//! blocks of the destinations below a switch are its own. An 8-ary
//! 4-tree's 2,048 tables of 4,096 ports (8 MiB, a random line of which
//! every packet-hop reads) become a few hundred blocks and a row of block
//! numbers per switch (256 bytes). A table with nothing in common with
//! another's costs 4 bytes per 64 LIDs more than a port byte per LID.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};

/// LIDs per block.
pub const BLOCK: usize = 64;

/// Bytes the builder keeps per distinct block besides the block: its
/// hash's entry and its link to the next block of the same hash.
pub const INDEX_BYTES: u64 = 24;

/// No next block of the same hash.
const NONE: u32 = u32::MAX;

/// The distinct blocks of a fabric's tables, as they are added. Found by
/// their hash, not kept twice as a map's keys.
#[derive(Debug, Default)]
pub struct LftBuilder {
    blocks: Vec<[u8; BLOCK]>,
    /// Per hash, the last block added with it; per block, the one before.
    last: HashMap<u64, u32>,
    before: Vec<u32>,
    hasher: RandomState,
}

impl LftBuilder {
    /// `table` (a port byte per LID) as a row of block numbers; its last
    /// block is filled out with `fill` (what an unrouted LID holds).
    pub fn row(&mut self, table: &[u8], fill: u8) -> Box<[u32]> {
        table
            .chunks(BLOCK)
            .map(|chunk| {
                let mut block = [fill; BLOCK];
                block[..chunk.len()].copy_from_slice(chunk);
                self.number(&block)
            })
            .collect()
    }

    /// The number of `block`, added if new.
    fn number(&mut self, block: &[u8; BLOCK]) -> u32 {
        let hash = self.hasher.hash_one(block);
        let head = self.last.get(&hash).copied().unwrap_or(NONE);
        let mut at = head;
        while at != NONE {
            if self.blocks[at as usize] == *block {
                return at;
            }
            at = self.before[at as usize];
        }
        let n = self.blocks.len() as u32;
        self.blocks.push(*block);
        self.before.push(head);
        self.last.insert(hash, n);
        n
    }

    /// Bytes of the distinct blocks so far and of their index.
    pub fn bytes(&self) -> u64 {
        self.blocks.len() as u64 * (BLOCK as u64 + INDEX_BYTES)
    }

    /// The blocks, numbered as the rows name them.
    pub fn finish(self) -> Box<[[u8; BLOCK]]> {
        self.blocks.into_boxed_slice()
    }
}

/// The port `row` (block numbers into `blocks`) gives for `lid`.
#[inline(always)]
pub fn port(blocks: &[[u8; BLOCK]], row: &[u32], lid: usize) -> u8 {
    blocks[row[lid / BLOCK] as usize][lid % BLOCK]
}

/// [`port`] for a LID the row may not cover (a hint's guess): None then.
#[inline(always)]
pub fn checked_port(blocks: &[[u8; BLOCK]], row: &[u32], lid: usize) -> Option<u8> {
    let block = blocks.get(*row.get(lid / BLOCK)? as usize)?;
    Some(block[lid % BLOCK])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_read_back_entry_by_entry_and_shared_blocks_are_stored_once() {
        let mut b = LftBuilder::default();
        // Two tables of 150 LIDs that differ only in their second block.
        let t1: Vec<u8> = (0..150).map(|l| (l % 7) as u8).collect();
        let mut t2 = t1.clone();
        t2[70] = 200;
        let (r1, r2) = (b.row(&t1, 255), b.row(&t2, 255));
        let blocks = b.finish();
        assert_eq!((r1.len(), blocks.len()), (3, 4), "blocks 0 and 2 shared, block 1 twice");
        assert_eq!((r1[0], r1[2]), (r2[0], r2[2]));
        for (t, r) in [(&t1, &r1), (&t2, &r2)] {
            assert!((0..150).all(|l| port(&blocks, r, l) == t[l]));
            assert!((150..192).all(|l| port(&blocks, r, l) == 255), "the last block filled out");
            assert!((0..192).all(|l| checked_port(&blocks, r, l) == Some(port(&blocks, r, l))));
            assert_eq!(checked_port(&blocks, r, 192), None, "beyond the row");
        }
    }
}
