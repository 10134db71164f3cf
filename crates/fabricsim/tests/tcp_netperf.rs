//! TCP over the Fibre Channel switch, measured like netperf (seed 002):
//! window and CPU bounds from theory, conservation, order, determinism and
//! the errors bad input gets.

use fabricsim::transport::machine::{HostCosts, Machine};
use fabricsim::transport::netperf::COPY_CHUNK;
use fabricsim::{RunReport, Scenario};

fn run(toml: &str) -> RunReport {
    let s = Scenario::from_toml_str(toml, "<test>").expect("valid scenario");
    fabricsim::run(&s).expect("run succeeds")
}

fn mean(r: &RunReport, metric: &str) -> f64 {
    r.metric(metric).unwrap_or_else(|| panic!("no metric {metric}")).mean
}

fn counter(r: &RunReport, name: &str) -> i64 {
    r.counter(name).unwrap_or_else(|| panic!("no counter {name}"))
}

/// A stream whose window is the bottleneck sends one window per round
/// trip: the time per window, W / throughput, grows by exactly the added
/// round-trip propagation (four fibres: host to switch to host and back).
/// A 4 KB window is one segment, answered by the receiver's window update
/// as soon as its application has read it. A delayed-ACK tick may fall
/// while a segment waits to be read; its ACK offers no window and paces nothing.
#[test]
fn window_limited_stream_runs_at_window_over_round_trip() {
    let window = 4096.0;
    let stream = |prop_ms: f64| {
        let r = run(&format!(
            "[netperf]\nlength_s = 4.0\nmessage_bytes = 4096\nlocal_socket_bytes = 4096\n\
             remote_socket_bytes = 4096\n[hosts]\nsender_background_load = 0.0\nreceiver_background_load = 0.0\n\
             [link]\npropagation_ns = {}\n",
            prop_ms * 1e6
        ));
        assert!(counter(&r, "delayed_acks_by_timer") * 100 <= counter(&r, "pure_acks"), "the timer paces the stream");
        mean(&r, "throughput_mbit_s") * 1e6 / 8.0
    };
    let (p1, p2) = (1.0, 3.0);
    let (x1, x2) = (stream(p1), stream(p2));
    let rtt1 = window / x1;
    let rtt2 = window / x2;
    assert!(rtt1 > 4.0 * p1 * 1e-3, "a window cannot come back faster than the propagation: {rtt1}");
    let added = rtt2 - rtt1;
    let expected = 4.0 * (p2 - p1) * 1e-3;
    assert!((added - expected).abs() < 0.01 * expected, "time per window grew by {added} s, expected {expected} s");
}

/// With a fast bus and link, a slow sender's CPU is the bottleneck: the
/// stream runs between the per-byte bound (copy and checksum of every
/// byte) and that bound plus the per-call and per-packet costs of one
/// segment and one ACK per copied chunk. The CPU is not busy all the time:
/// now and then the sender waits for a window update with its buffer full.
#[test]
fn cpu_limited_stream_runs_at_the_cost_bound() {
    let r = run("[netperf]\nlength_s = 2.0\n[hosts]\nsender = \"hp735\"\nreceiver = \"c180\"\n\
                 sender_background_load = 0.0\nreceiver_background_load = 0.0\nbus_mb_s = 2000.0\n\
                 adapter_send_us = 0.0\nadapter_receive_us = 0.0\n[link]\nbandwidth_mb_s = 2000.0\n");
    assert!(mean(&r, "local_cpu_utilization_pct") > 95.0, "the sender's CPU is the bottleneck");
    let bytes_per_s = mean(&r, "throughput_mbit_s") * 1e6 / 8.0;
    let c = HostCosts::new(&Machine::of(fabricsim::scenario::MachineType::Hp735));
    let per_byte_s = (c.copy_ps_per_byte + c.checksum_ps_per_byte + c.send_penalty_ps_per_byte) * 1e-12;
    let chunk = COPY_CHUNK as f64;
    let per_chunk_ps = (c.output_check + c.packet_output + c.interrupt + c.packet_input) as f64;
    let upper = 1.0 / per_byte_s;
    let lower = 1.0 / (per_byte_s + per_chunk_ps * 1e-12 / chunk);
    assert!(bytes_per_s < upper, "{bytes_per_s} B/s beats the per-byte bound {upper}");
    assert!(bytes_per_s > lower, "{bytes_per_s} B/s below the per-chunk bound {lower}");
}

/// HP-UX's send call copies all the free buffer in one pass before
/// tcp_output, so 2 MB writes leave as segments of many clusters; 8 KB
/// writes leave one segment each. Its receiver ACKs by window update (two
/// full segments read with the buffer empty, or a third of the buffer), so
/// with 8 KB segments an ACK answers about ten of them, not two.
#[test]
fn send_passes_shape_the_segments_and_window_updates_pace_the_acks() {
    let stream = |m: u32| {
        let r = run(&format!(
            "[netperf]\nlength_s = 1.0\nmessage_bytes = {m}\n[hosts]\nsender_background_load = 0.0\n\
             receiver_background_load = 0.0\n"
        ));
        let acks = counter(&r, "pure_acks");
        let data = counter(&r, "segments_delivered") - acks;
        (counter(&r, "bytes_sent") / data, data / acks.max(1))
    };
    let (large, _) = stream(2 * 1024 * 1024);
    assert!(large > 8 * COPY_CHUNK as i64, "2 MB writes: {large}-byte segments");
    let (small, per_ack) = stream(8192);
    // A write is one segment, or a few together when the window held them back.
    assert!((8000..=12_000).contains(&small), "8 KB writes: {small}-byte segments");
    assert!(per_ack >= 6, "{per_ack} segments per ACK");
}

/// The interface moves frames, not packets, across the bus: a request of
/// m bytes takes longer than a one-byte one by the per-byte CPU costs on
/// both hosts and one bus crossing of its data, plus at most the last
/// frame's trip (two fibres through the switch, routing, the receiving
/// bus); a packet moved across each bus whole would add a second crossing
/// of the data and its time on the fibres.
#[test]
fn the_interface_moves_frames_across_the_bus_as_it_sends_them() {
    let (bus_mb_s, link_mb_s) = (10.0, 26.6);
    let transaction_s = |m: u32| {
        let r = run(&format!(
            "[netperf]\ntest = \"TCP_RR\"\nlength_s = 1.0\nrequest_bytes = {m}\nresponse_bytes = 1\n\
             [hosts]\nsender_background_load = 0.0\nreceiver_background_load = 0.0\nbus_mb_s = {bus_mb_s}\n\
             [link]\nbandwidth_mb_s = {link_mb_s}\n"
        ));
        1.0 / mean(&r, "transactions_per_s")
    };
    let m = 30_000u32;
    let added = transaction_s(m) - transaction_s(1);
    let c = HostCosts::new(&Machine::of(fabricsim::scenario::MachineType::C110));
    let cpu = 2.0 * (c.copy_ps_per_byte + c.checksum_ps_per_byte) * 1e-12 * (m - 1) as f64;
    let bus = (m - 1) as f64 / (bus_mb_s * 1e6);
    let frame = 2048.0 / (bus_mb_s * 1e6) + 2.0 * 2084.0 / (link_mb_s * 1e6) + 3e-6;
    assert!(added > cpu + bus, "{added} s: less than the CPU and one bus crossing ({} s)", cpu + bus);
    assert!(
        added < cpu + bus + frame,
        "{added} s: more than the CPU, one bus crossing and one frame ({} s)",
        cpu + bus + frame
    );
}

/// Every byte written arrives, once and in order, in both tests.
#[test]
fn bytes_are_conserved_and_arrive_in_order() {
    let r = run("[netperf]\nlength_s = 1.0\nmessage_bytes = 10000\nlocal_socket_bytes = 32768\n\
                 remote_socket_bytes = 32768\n");
    let sent = counter(&r, "bytes_sent");
    assert!(sent > 1_000_000);
    assert_eq!(sent, counter(&r, "bytes_received"));
    assert_eq!(sent % 10000, 0, "netperf sends whole messages");
    assert_eq!(counter(&r, "frames_in_flight"), 0);
    assert_eq!(counter(&r, "data_frames_injected"), counter(&r, "data_frames_delivered"));
    let rr = run("[netperf]\ntest = \"TCP_RR\"\nlength_s = 0.5\nmessage_bytes = 3000\n");
    let t = counter(&rr, "transactions");
    assert!(t > 100);
    // The transaction cut short by the end of the test still completes.
    assert_eq!(counter(&rr, "bytes_sent"), counter(&rr, "bytes_received"));
    assert_eq!(counter(&rr, "bytes_returned"), counter(&rr, "bytes_sent"));
    assert_eq!(counter(&rr, "bytes_sent"), 3000 * (t + 1));
}

/// Same scenario and seed: the same numbers bit for bit; another seed
/// moves the background load and so the result.
#[test]
fn same_seed_same_result() {
    let text = |seed: u64| {
        format!("[run]\nseed = {seed}\n[netperf]\nlength_s = 1.0\nmessage_bytes = 8192\n[hosts]\nreceiver = \"j210\"\n")
    };
    let a = run(&text(7));
    let b = run(&text(7));
    let c = run(&text(8));
    assert_eq!(mean(&a, "throughput_mbit_s").to_bits(), mean(&b, "throughput_mbit_s").to_bits());
    assert_eq!(a.counters, b.counters);
    assert_ne!(mean(&a, "throughput_mbit_s"), mean(&c, "throughput_mbit_s"));
}

/// Small messages cost a system call and a segment each: throughput rises
/// with the message size and peaks by 4 KB (seed 002, section 4.1.2).
#[test]
fn small_messages_are_slow() {
    let x = |m: u32| {
        let r = run(&format!("[netperf]\nlength_s = 0.5\nmessage_bytes = {m}\n"));
        mean(&r, "throughput_mbit_s")
    };
    let (tiny, small, page) = (x(16), x(512), x(4096));
    assert!(tiny < small / 10.0 && small < page, "{tiny} {small} {page}");
}

#[test]
fn bad_input_names_the_key() {
    let e = Scenario::from_toml_str("[netperf]\nlocal_socket_bytes = 300000\n", "s.toml").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("netperf.local_socket_bytes"));
    assert_eq!(e.file.as_deref(), Some("s.toml"));
    assert!(e.allowed.as_deref().unwrap().contains("262143"), "{e}");
    let e = Scenario::from_toml_str("[netperf]\nwindow_scale = false\n", "s").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("netperf.local_socket_bytes"));
    assert!(e.allowed.as_deref().unwrap().contains("window_scale"), "{e}");
    let e = Scenario::from_toml_str("[netperf]\ntest = \"UDP_STREAM\"\n", "s").unwrap_err();
    assert!(e.to_string().contains("UDP_STREAM"), "{e}");
    let e = Scenario::from_toml_str("[netperf]\nsend_size = 4\n", "s").unwrap_err();
    assert!(e.to_string().contains("send_size"), "{e}");
    let e = Scenario::from_toml_str("[hosts]\nsender = \"c200\"\n", "s").unwrap_err();
    assert!(e.to_string().contains("c200"), "{e}");
    let e = Scenario::from_toml_str("[hosts]\n[workload]\noffered_load = 0.1\n", "s").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("workload"));
    let e = Scenario::from_toml_str("[netperf]\nmtu_bytes = 100000\n", "s").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("netperf.mtu_bytes"));
    // A timer period below a clock tick: 10^10 ticks in a 10 s test at 1e-6 ms.
    let e = Scenario::from_toml_str("[netperf]\ndelayed_ack_ms = 1e-6\n", "s").unwrap_err();
    assert_eq!(e.key.as_deref(), Some("netperf.delayed_ack_ms"));
    assert!(e.allowed.as_deref().unwrap().contains("a number from 1 to 10000 ms (a kernel timer"), "{e}");
}

fn flags(r: &RunReport) -> Vec<&str> {
    r.run.flags.iter().map(String::as_str).collect()
}

/// A time cap inside the test length: the figures cover the time run, the
/// result is flagged `max_time`, and nothing is divided by an empty span.
#[test]
fn a_time_cap_inside_the_test_is_flagged_and_measured_over_the_time_run() {
    let text = std::fs::read_to_string("../../scenarios/ong-farrell-fc/rr-1byte-hp735-j210.toml").unwrap();
    let r = run(&format!("{text}\n[run]\nmax_time_ms = 100.0\n"));
    assert_eq!(r.run.stop_reason, fabricsim::StopReason::MaxTime);
    assert!(flags(&r).contains(&"max_time"), "{:?}", r.run.flags);
    let elapsed = mean(&r, "elapsed_s");
    assert!((elapsed - 0.1).abs() < 1e-3, "{elapsed}");
    let (rate, latency) = (mean(&r, "transactions_per_s"), mean(&r, "latency_us"));
    assert!((rate - counter(&r, "transactions") as f64 / elapsed).abs() < 1e-6 * rate, "{rate}");
    // About 400 us one way on these loaded machines.
    assert!(latency > 300.0 && latency < 600.0, "{latency}");
    for side in ["local", "remote"] {
        let u = mean(&r, &format!("{side}_cpu_utilization_pct"));
        assert!(u > 0.0 && u <= 100.0, "{side}: {u}");
    }
}

/// TCP_RR whose test ends before a transaction can: a 1 ns test, and 64 MB
/// requests in 10 ms. No transaction, flagged; no latency; CPU time counted
/// only within the test, so utilization stays a share.
#[test]
fn a_test_without_transactions_is_flagged_and_never_divides_by_nothing() {
    for netperf in ["length_s = 1e-9", "length_s = 0.01\nrequest_bytes = 67108864\nresponse_bytes = 67108864"] {
        let r = run(&format!("[netperf]\ntest = \"TCP_RR\"\n{netperf}\n"));
        assert!(flags(&r).contains(&"no_transactions"), "{netperf}: {:?}", r.run.flags);
        assert_eq!(mean(&r, "transactions_per_s"), 0.0, "{netperf}");
        assert!(mean(&r, "latency_us").is_nan(), "{netperf}");
        for side in ["local", "remote"] {
            let u = mean(&r, &format!("{side}_cpu_utilization_pct"));
            assert!((0.0..=100.0).contains(&u), "{netperf}: {side} {u}");
        }
    }
    // A stream's measurement lasts until the receiver has read what was
    // sent, however short the test: the first send call always completes.
    let r = run("[netperf]\nlength_s = 1e-9\n");
    assert!(mean(&r, "elapsed_s") > 0.01 && mean(&r, "throughput_mbit_s") < 200.0, "{:?}", r.metrics);
}

/// Sizes of the other test are refused, naming the test; the scenario with
/// every default filled in leaves them out, so it reads back.
#[test]
fn keys_of_the_other_test_are_refused() {
    for (test, key) in [("TCP_STREAM", "request_bytes"), ("TCP_STREAM", "response_bytes"), ("TCP_RR", "receive_bytes")]
    {
        let e = Scenario::from_toml_str(&format!("[netperf]\ntest = \"{test}\"\n{key} = 64\n"), "n.toml").unwrap_err();
        assert_eq!(e.key.as_deref(), Some(format!("netperf.{key}").as_str()), "{e}");
        assert!(e.allowed.as_deref().unwrap().contains(test), "{e}");
    }
    let s = Scenario::from_toml_str("[netperf]\ntest = \"TCP_RR\"\nrequest_bytes = 64\n", "n.toml").unwrap();
    assert_eq!(Scenario::from_toml_str(&s.to_toml(), "round trip").unwrap(), s);
}
