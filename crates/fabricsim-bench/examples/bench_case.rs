//! Runs one `fabricsim bench` workload once, for instruction counts:
//! `valgrind --tool=callgrind target/release/examples/bench_case ib-irregular 60000`.
//! Callgrind's counts are exact on a shared machine where wall time is not.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = format!(
        "usage: bench_case NAME SIZE, NAME one of {} (SIZE as `fabricsim bench --size` counts it)",
        fabricsim::bench::NAMES.join(", ")
    );
    let [name, size] = args.as_slice() else { panic!("{usage}") };
    let size: u64 = size.parse().unwrap_or_else(|_| panic!("{usage}"));
    let result = fabricsim::bench::by_name(name, size).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", serde_json::to_string_pretty(&result).unwrap());
}
