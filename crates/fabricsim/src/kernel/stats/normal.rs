//! The standard normal distribution: its CDF and quantile function, for
//! models calibrated on data through normal scores (Gaussian copulas).

/// P(Z <= z) for a standard normal Z, within 1e-7 (Abramowitz and Stegun
/// 7.1.26 for erfc).
pub fn cdf(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly =
        t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erfc = poly * (-x * x).exp();
    if z >= 0.0 {
        1.0 - 0.5 * erfc
    } else {
        0.5 * erfc
    }
}

/// The z with P(Z <= z) = p, for 0 < p < 1, within 1.2e-9 relative (Acklam's
/// rational approximation).
pub fn quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] =
        [7.784_695_709_041_462e-3, 3.224_671_290_700_398e-1, 2.445_134_137_142_996, 3.754_408_661_907_416];
    assert!(p > 0.0 && p < 1.0, "a normal quantile needs 0 < p < 1, not {p}");
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.024_25 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.024_25 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_and_inverse() {
        assert!((cdf(0.0) - 0.5).abs() < 1e-9);
        assert!((cdf(1.959_963_985) - 0.975).abs() < 2e-7);
        assert!((cdf(-1.0) - 0.158_655_254).abs() < 2e-7);
        assert!((quantile(0.975) - 1.959_963_985).abs() < 1e-8);
        assert!((quantile(0.001) + 3.090_232_306).abs() < 1e-8);
        for k in 1..1000 {
            let p = k as f64 / 1000.0;
            assert!((cdf(quantile(p)) - p).abs() < 2e-7, "{p}");
        }
    }
}
