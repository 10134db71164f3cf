use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fabricsim::bench::fc_switch_scenario;

fn switch(c: &mut Criterion) {
    let mut g = c.benchmark_group("fc_switch");
    let frames = 200_000;
    let scenario = fc_switch_scenario(frames);
    // Elements are data frames delivered (each with its ACK in class 2).
    g.throughput(Throughput::Elements(frames));
    g.bench_function("class2_load50", |b| b.iter(|| fabricsim::run(&scenario).unwrap()));
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = switch
}
criterion_main!(benches);
