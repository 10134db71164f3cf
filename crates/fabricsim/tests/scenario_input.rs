//! Scenario input that overflows, makes no physical sense, or is written in
//! an unusual way: each is refused (or taken) by the loader with an error
//! that names the file, the key, the value and what is allowed, before any
//! model arithmetic can wrap or panic.

use fabricsim::{Error, Scenario};

fn refused(toml: &str) -> Error {
    match Scenario::from_toml_str(toml, "s.toml") {
        Ok(s) => match fabricsim::run::check(&s) {
            Ok(()) => panic!("accepted:\n{toml}"),
            Err(e) => e,
        },
        Err(e) => e,
    }
}

/// The error names `key`, carries a value and what is allowed, and speaks no Rust.
fn assert_names(e: &Error, key: &str) {
    assert_eq!(e.key.as_deref(), Some(key), "{e}");
    assert_eq!(e.file.as_deref(), Some("s.toml"), "{e}");
    assert!(e.value.is_some() && e.allowed.is_some(), "{e}");
    assert_plain(e);
}

fn assert_plain(e: &Error) {
    let text = e.to_string();
    for rust in [
        "expected u",
        "expected i",
        "expected f",
        "struct ",
        "trailing characters",
        "invalid type",
        "invalid value",
        "invalid length",
        "sequence",
        "(line ",
    ] {
        assert!(!text.contains(rust), "`{rust}` in {text}");
    }
}

#[test]
fn a_delay_too_long_for_the_clock_is_refused() {
    let e = refused("[link]\npropagation_ns = 1e17\n");
    assert_names(&e, "link.propagation_ns");
    assert_eq!(e.value.as_deref(), Some("1e17"));
    assert!(e.allowed.as_deref().unwrap().contains("1e9"), "{e}");
    let e = refused("[switch]\nrouting_time_ns = 1e300\n");
    assert_names(&e, "switch.routing_time_ns");
}

#[test]
fn a_payload_that_would_wrap_the_frame_size_is_refused() {
    let e = refused("[protocol]\nframe_payload_bytes = 4294967295\n");
    assert_names(&e, "protocol.frame_payload_bytes");
    assert_eq!(e.value.as_deref(), Some("4294967295"));
}

#[test]
fn trunks_whose_sum_wraps_are_refused_before_anything_is_allocated() {
    let e = refused(
        "[topology]\nkind = \"custom\"\nnodes = [2, 2, 2]\n\
         trunks = [[1, 2, 2147483648], [1, 3, 2147483648], [2, 3, 2147483648]]\n",
    );
    assert_names(&e, "topology.trunks[0]");
    let e = refused(
        "[switch]\nports = 256\n[topology]\nkind = \"custom\"\nnodes = [2, 2, 2]\n\
         trunks = [[1, 2, 200], [1, 3, 200], [2, 3, 20]]\n",
    );
    assert_names(&e, "topology.trunks");
    assert!(e.value.as_deref().unwrap().contains("400 trunk ports"), "{e}");
    let e = refused("[switch]\nports = 256\n[topology]\nkind = \"complete\"\nswitches = 200\n");
    assert_names(&e, "topology.nodes");
    let e = refused("[topology]\nkind = \"complete\"\nswitches = 5\nmultiplicity = 4294967295\n");
    assert_names(&e, "topology.multiplicity");
}

#[test]
fn disk_counts_whose_sum_wraps_are_refused() {
    let e = refused("[loop]\n[[disks]]\ncount = 4294967295\n[[disks]]\ncount = 2\n");
    assert_names(&e, "disks[0].count");
    let e = refused("[loop]\n[[disks]]\ncount = 100\n[[disks]]\ncount = 100\n");
    assert_names(&e, "disks");
}

#[test]
fn a_loop_whose_times_make_no_sense_is_refused() {
    let e = refused("[loop]\npropagation_ns_per_m = 1e300\n[[disks]]\ncount = 2\n");
    assert_names(&e, "loop.propagation_ns_per_m");
    let e = refused("[loop]\nbaud = 1e-300\n[[disks]]\ncount = 2\n");
    assert_names(&e, "loop.baud");
    assert_eq!(e.value.as_deref(), Some("1e-300"));
}

#[test]
fn link_rates_out_of_range_are_refused() {
    let e = refused("[link]\nbandwidth_mb_s = 1e-300\n");
    assert_names(&e, "link.bandwidth_mb_s");
    let e = refused("[link]\nbandwidth_mb_s = 1e9\n[protocol]\nframe_payload_bytes = 93\n");
    assert_names(&e, "link.bandwidth_mb_s");
}

#[test]
fn a_load_so_light_that_messages_never_come_is_refused() {
    let e = refused("[workload]\noffered_load = 1e-300\n");
    assert_names(&e, "workload.offered_load");
    assert!(e.message.contains("mean time between"), "{e}");
    let e = refused("[link]\nbandwidth_mb_s = 0.1\n[workload.sizes]\nframes = 1000000\n");
    assert_names(&e, "workload.offered_load");
}

#[test]
fn nan_and_infinity_are_refused_and_unknown_keys_named() {
    for v in ["nan", "inf", "-inf", "+nan"] {
        let e = refused(&format!("[workload]\noffered_load = {v}\n"));
        assert_names(&e, "workload.offered_load");
        assert_eq!(e.value.as_deref(), Some(v.trim_start_matches('+')), "{e}");
    }
    let e = refused("[workload]\nbogus = nan\n");
    assert_eq!(e.key.as_deref(), Some("workload.bogus"));
    assert_eq!(e.message, "unknown key");
}

#[test]
fn toml_dates_are_refused_by_key() {
    let e = refused("[protocol]\nclass = 1979-05-27\n");
    assert_names(&e, "protocol.class");
    assert_eq!(e.value.as_deref(), Some("1979-05-27"));
    assert_eq!(e.allowed.as_deref(), Some("1, 2 or 3"));
    let e = refused("name = 07:32:00\n");
    assert_names(&e, "name");
    let e = refused("[protocol]\nklass = 1979-05-27T07:32:00Z\n");
    assert_eq!(e.key.as_deref(), Some("protocol.klass"));
    assert_eq!(e.message, "unknown key");
}

#[test]
fn a_byte_order_mark_is_dropped() {
    let s = Scenario::from_toml_str("\u{feff}name = \"bom\"\n", "s.toml").unwrap();
    assert_eq!(s.name, "bom");
    let s = Scenario::from_json_str("\u{feff}{\"name\": \"bom\"}", "s.json").unwrap();
    assert_eq!(s.name, "bom");
}

#[test]
fn counts_written_as_whole_floats_are_taken() {
    let s = Scenario::from_toml_str("[run]\nmax_observations = 1e6\nbatches = 16.0\n", "s.toml").unwrap();
    assert_eq!(s.run.max_observations, Some(1_000_000));
    assert_eq!(s.run.batches, 16);
    let s = Scenario::from_toml_str("[topology]\nkind = \"custom\"\nnodes = [2.0, 3e0]\ntrunks = [[1, 2, 1.0]]\n", "s")
        .unwrap();
    fabricsim::run::check(&s).unwrap();
    let s = Scenario::from_json_str(r#"{"run": {"max_observations": 1e6}, "switch": {"ports": 8.0}}"#, "d").unwrap();
    assert_eq!(s.run.max_observations, Some(1_000_000));
    let e = refused("[run]\nmax_observations = 2.5\n");
    assert_names(&e, "run.max_observations");
    assert_eq!(e.message, "expected a whole number");
    assert_eq!(e.value.as_deref(), Some("2.5"));
    let e = refused("[run]\nmax_observations = 1e300\n");
    assert_names(&e, "run.max_observations");
}

#[test]
fn sizes_without_kind_take_the_documented_default() {
    let s = Scenario::from_toml_str("[workload.sizes]\nframes = 4\n", "s").unwrap();
    assert_eq!(s.fc_fabric().unwrap().workload.sizes.frames, Some(4));
}

#[test]
fn type_errors_speak_the_users_language() {
    let cases = [
        ("[run]\nmax_observations = \"many\"\n", "run.max_observations", "expected a whole number"),
        ("run = 5\n", "run", "expected a table"),
        ("[run]\nseed = -1\n", "run.seed", "out of range"),
        ("[protocol]\nclass = 300\n", "protocol.class", "out of range"),
        ("[run]\ndrain = 1\n", "run.drain", "expected true or false"),
        ("name = 5\n", "name", "expected text in quotes"),
        ("[topology]\nnodes = 5\n", "topology.nodes", "expected a list"),
    ];
    for (toml, key, message) in cases {
        let e = refused(toml);
        assert_names(&e, key);
        assert_eq!(e.message, message, "{e}");
        let json = serde_json::to_string(&toml::from_str::<toml::Value>(toml).unwrap()).unwrap();
        let e = Scenario::from_json_str(&json, "s.toml").unwrap_err();
        assert_names(&e, key);
        assert_eq!(e.message, message, "{e}");
    }
    let e = Scenario::from_json_str(r#"{"workload": {"pattern": "pair", "pair": [1, 2, 3]}}"#, "s.toml").unwrap_err();
    assert_names(&e, "workload.pair");
    assert_eq!(e.message, "wrong number of values");
    let e = refused("[topology]\nkind = \"custom\"\nnodes = [1, 1]\ntrunks = [[1, 2]]\n");
    assert_names(&e, "topology.trunks[0]");
    let e = refused("[[routing.override]]\nswitch = 1\nnode = 0\n");
    assert_names(&e, "routing.override[0].ports");
    assert_eq!(e.message, "required");
}

#[test]
fn unknown_keys_list_the_allowed_ones_without_a_line_number() {
    let e = refused("[run]\nseed = 1\nsede = 2\n");
    assert_eq!(e.key.as_deref(), Some("run.sede"));
    let allowed = e.allowed.as_deref().unwrap();
    assert!(allowed.contains("seed") && !allowed.contains("line"), "{e}");
}

#[test]
fn the_extremes_of_every_range_build() {
    for toml in [
        "[link]\nbandwidth_mb_s = 1e5\n[protocol]\nframe_header_bytes = 1\nframe_payload_bytes = 1\n",
        "[link]\nbandwidth_mb_s = 0.1\npropagation_ns = 1e9\n[protocol]\nframe_payload_bytes = 65536\n",
        "[switch]\nports = 256\n[topology]\nkind = \"complete\"\nswitches = 17\n",
        "[loop]\nbaud = 1e6\nlength_m = 200000\npropagation_ns_per_m = 1000\nnode_delay_words = 1000\n\
         [[disks]]\ncount = 125\n[initiator]\nloop_id = 125\n",
        "[loop]\nbaud = 1e11\nlength_m = 0\nnode_delay_words = 0\n[[disks]]\ncount = 1\n",
    ] {
        let s = Scenario::from_toml_str(toml, "s.toml").unwrap_or_else(|e| panic!("{e}\n{toml}"));
        fabricsim::run::check(&s).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    }
}

#[test]
fn an_error_is_one_line_whatever_the_value_holds() {
    let e = refused("[workload]\npattern = \"0\\n0\"\n");
    assert_eq!(e.key.as_deref(), Some("workload.pattern"));
    assert!(!e.to_string().contains('\n') && e.to_string().contains("0\\n0"), "{e}");
}
