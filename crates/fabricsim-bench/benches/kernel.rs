use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use fabricsim::kernel::hold_benchmark::run_hold;

fn hold(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue");
    let steps = 1_000_000;
    g.throughput(Throughput::Elements(steps));
    for size in [64usize, 1024, 16384] {
        g.bench_function(format!("hold_{size}"), |b| b.iter(|| run_hold(size, steps, 1)));
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = hold
}
criterion_main!(benches);
