//! Criterion benchmarks of fabricsim (`cargo bench -p fabricsim-bench`); the
//! code they measure lives in `fabricsim::bench` and `fabricsim::kernel`.
