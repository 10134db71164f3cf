//! Drive parameter sets derived from the DiskSim 4.0 validated drive files
//! (`../shared/data/disks`, CMU PDL): seek curve, geometry, zones, overheads
//! and cache layout. Generated from those files; `disksim::parse_drive`
//! re-derives them and an integration test checks the two agree. One file
//! per drive.
//! Spare sectors, slips and skews are not carried over (see README).

use super::drive_params::DriveParams;

mod atlas10k;
mod barracuda;
mod cheetah4lp;
mod cheetah9lp;
mod ibm18es;

/// The DiskSim-derived drives by name.
pub fn disksim_drive(name: &str) -> Option<DriveParams> {
    match name {
        "cheetah4lp" => Some(cheetah4lp::params()),
        "cheetah9lp" => Some(cheetah9lp::params()),
        "barracuda" => Some(barracuda::params()),
        "ibm18es" => Some(ibm18es::params()),
        "atlas10k" => Some(atlas10k::params()),
        _ => None,
    }
}

/// Names of the DiskSim-derived drives and the file stem each comes from.
pub const DISKSIM_DRIVES: &[(&str, &str)] = &[
    ("cheetah4lp", "cheetah4LP"),
    ("cheetah9lp", "cheetah9LP"),
    ("barracuda", "barracuda"),
    ("ibm18es", "ibm18es"),
    ("atlas10k", "atlas10k"),
];
