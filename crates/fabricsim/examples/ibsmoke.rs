fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let s = fabricsim::Scenario::from_toml_str(&text, &path).unwrap();
    match fabricsim::run(&s) {
        Ok(r) => {
            let j = r.to_json();
            let m = &j["metrics"];
            let g = |k: &str| m[k]["mean"].as_f64().map(|x| (x * 1000.0).round() / 1000.0);
            println!(
                "{} {:.0}us flags={} offered={:?} accepted={:?} rt={:?} be={:?} ctl={:?} dmp={:?}",
                j["run"]["stop_reason"],
                j["run"]["sim_time_us"].as_f64().unwrap(),
                j["run"]["flags"],
                g("offered_load_pct"),
                g("accepted_load_pct"),
                g("real_time_latency_us"),
                g("best_effort_latency_us"),
                g("control_latency_us"),
                g("deadline_missing_probability")
            );
        }
        Err(e) => println!("ERROR {e}"),
    }
}
