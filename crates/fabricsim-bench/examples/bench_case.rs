//! Runs one `fabricsim bench` workload once, for instruction counts:
//! `valgrind --tool=callgrind target/release/examples/bench_case ib-irregular 60000`.
//! Callgrind's counts are exact on a shared machine where wall time is not.

use fabricsim::bench;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: bench_case kernel-hold|fc-switch|fc-envelope|fc-loop|switched-loop|ib-irregular|ib-fat-tree|tcp-stream SIZE \
                 (events, frames, I/Os or packets; simulated milliseconds for tcp-stream)";
    let (name, size) = match args.as_slice() {
        [name, size] => (name.as_str(), size.parse::<u64>().expect(usage)),
        _ => panic!("{usage}"),
    };
    let result = match name {
        "kernel-hold" => bench::kernel_hold(size),
        "fc-switch" => bench::fc_switch(size).unwrap(),
        "fc-envelope" => bench::fc_envelope(size).unwrap(),
        "fc-loop" => bench::fc_loop(size).unwrap(),
        "switched-loop" => bench::switched_loop(size).unwrap(),
        "tcp-stream" => bench::tcp_stream(size as f64 / 1000.0).unwrap(),
        "ib-irregular" => bench::ib_irregular(size).unwrap(),
        "ib-fat-tree" => bench::ib_fat_tree(size).unwrap(),
        other => panic!("{other}: {usage}"),
    };
    println!("{}", serde_json::to_string_pretty(&result).unwrap());
}
