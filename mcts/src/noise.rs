//! The random draws of the search — normal, Gamma, Dirichlet and Gumbel samples — written out
//! on [`SplitMix64`].
//!
//! Why not a crate: self-play data and tests must be reproducible from a seed on every machine
//! and with every dependency version, like the games' own random set-ups. `rand_distr` changes
//! its algorithms between versions; these few lines do not.
use gipfzero_games::SplitMix64;

/// A uniform float in the open interval `(0, 1)`: safe to take the logarithm of.
fn open_unit(rng: &mut SplitMix64) -> f64 {
    loop {
        let u = rng.unit_f64();
        if u > 0.0 {
            return u;
        }
    }
}

/// A standard normal sample (Box–Muller, one of the pair).
pub fn standard_normal(rng: &mut SplitMix64) -> f64 {
    let radius = (-2.0 * open_unit(rng).ln()).sqrt();
    let angle = std::f64::consts::TAU * rng.unit_f64();
    radius * angle.cos()
}

/// A Gamma(`shape`, 1) sample by Marsaglia and Tsang (2000); shapes below one are boosted
/// (`Gamma(a) = Gamma(a + 1) · U^(1/a)`), which the Dirichlet noise of large action spaces
/// needs (alpha ≈ 0.03).
pub fn gamma(rng: &mut SplitMix64, shape: f64) -> f64 {
    debug_assert!(shape > 0.0, "Gamma needs a positive shape");
    if shape < 1.0 {
        let boost = open_unit(rng).powf(1.0 / shape);
        return gamma(rng, shape + 1.0) * boost;
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = standard_normal(rng);
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = open_unit(rng);
        if u < 1.0 - 0.0331 * x * x * x * x || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
            return d * v;
        }
    }
}

/// Fills `out` with a symmetric Dirichlet(`alpha`) sample (normalised Gamma draws).
///
/// With a tiny alpha every Gamma draw can underflow to zero; the limit of the distribution is
/// then a point mass on one uniformly chosen component, which is what is returned.
pub fn dirichlet(rng: &mut SplitMix64, alpha: f64, out: &mut [f32]) {
    if out.is_empty() {
        return;
    }
    let mut draws = Vec::with_capacity(out.len());
    let mut sum = 0.0;
    for _ in 0..out.len() {
        let g = gamma(rng, alpha);
        sum += g;
        draws.push(g);
    }
    if sum > 0.0 && sum.is_finite() {
        for (o, g) in out.iter_mut().zip(draws) {
            *o = (g / sum) as f32;
        }
    } else {
        out.fill(0.0);
        out[rng.below(out.len() as u64) as usize] = 1.0;
    }
}

/// A standard Gumbel sample, `-ln(-ln U)`: adding it to logits and taking the top k samples
/// k actions without replacement from the softmax (the Gumbel-top-k trick).
pub fn gumbel(rng: &mut SplitMix64) -> f32 {
    (-(-open_unit(rng).ln()).ln()) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean_and_variance(samples: &[f64]) -> (f64, f64) {
        let n = samples.len() as f64;
        let mean = samples.iter().sum::<f64>() / n;
        let var = samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
        (mean, var)
    }

    #[test]
    fn gamma_has_the_right_mean_and_variance() {
        // Gamma(a, 1) has mean a and variance a, for shapes on both sides of the boost.
        let mut rng = SplitMix64::new(11);
        for shape in [0.05, 0.3, 1.0, 2.5, 9.0] {
            let samples: Vec<f64> = (0..40_000).map(|_| gamma(&mut rng, shape)).collect();
            assert!(samples.iter().all(|&x| x >= 0.0));
            let (mean, var) = mean_and_variance(&samples);
            assert!(
                (mean - shape).abs() < 0.05 * shape + 0.01,
                "shape {shape}: mean {mean}"
            );
            assert!(
                (var - shape).abs() < 0.12 * shape + 0.01,
                "shape {shape}: var {var}"
            );
        }
    }

    #[test]
    fn normal_is_standard() {
        let mut rng = SplitMix64::new(5);
        let samples: Vec<f64> = (0..40_000).map(|_| standard_normal(&mut rng)).collect();
        let (mean, var) = mean_and_variance(&samples);
        assert!(mean.abs() < 0.02, "mean {mean}");
        assert!((var - 1.0).abs() < 0.03, "var {var}");
    }

    #[test]
    fn dirichlet_is_a_distribution_with_uniform_mean() {
        let mut rng = SplitMix64::new(9);
        let mut totals = [0.0f64; 4];
        let mut out = [0.0f32; 4];
        for _ in 0..5000 {
            dirichlet(&mut rng, 0.5, &mut out);
            let sum: f32 = out.iter().sum();
            assert!((sum - 1.0).abs() < 1e-5);
            for (t, o) in totals.iter_mut().zip(out) {
                *t += o as f64;
            }
        }
        for t in totals {
            assert!(
                (t / 5000.0 - 0.25).abs() < 0.02,
                "component mean {}",
                t / 5000.0
            );
        }
    }

    #[test]
    fn dirichlet_with_tiny_alpha_is_still_a_distribution() {
        let mut rng = SplitMix64::new(1);
        let mut out = [0.0f32; 50];
        dirichlet(&mut rng, 1e-6, &mut out);
        let sum: f32 = out.iter().sum();
        assert!((sum - 1.0).abs() < 1e-5);
    }

    #[test]
    fn gumbel_has_the_euler_mascheroni_mean() {
        let mut rng = SplitMix64::new(2);
        let samples: Vec<f64> = (0..40_000).map(|_| gumbel(&mut rng) as f64).collect();
        let (mean, var) = mean_and_variance(&samples);
        assert!((mean - 0.5772).abs() < 0.03, "mean {mean}");
        // Variance pi^2 / 6.
        assert!((var - 1.6449).abs() < 0.06, "var {var}");
    }

    #[test]
    fn draws_are_reproducible() {
        let a: Vec<f64> = {
            let mut rng = SplitMix64::new(42);
            (0..10).map(|_| gamma(&mut rng, 0.3)).collect()
        };
        let b: Vec<f64> = {
            let mut rng = SplitMix64::new(42);
            (0..10).map(|_| gamma(&mut rng, 0.3)).collect()
        };
        assert_eq!(a, b);
    }
}
