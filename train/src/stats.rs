//! Match statistics: from wins, draws and losses to an Elo difference with a confidence
//! interval, and a sequential probability ratio test (SPRT) that stops a match as soon as
//! the data favour one hypothesis about the Elo difference.
//!
//! The model is the logistic Elo curve: a player rated `d` points above its opponent
//! expects the score `1 / (1 + 10^(-d/400))`. Intervals use the normal approximation of the
//! mean score with the trinomial per-game variance; the SPRT uses the usual GSPRT
//! approximation of the log-likelihood ratio (as in engine-testing frameworks):
//! `LLR = N (s1 − s0)(2 s̄ − s0 − s1) / (2 σ²)`, where `s0`, `s1` are the expected scores
//! under the two hypotheses, `s̄` the observed mean score and `σ²` its per-game variance.

/// Results of a match from the first player's point of view.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchResults {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// The expected score of a player `elo` points stronger than its opponent.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference whose expected score is `score` (infinite at 0 and 1).
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// An Elo estimate with a two-sided confidence interval.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct EloEstimate {
    pub elo: f64,
    pub lower: f64,
    pub upper: f64,
}

impl MatchResults {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Mean score per game (a win 1, a draw ½).
    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games() as f64
    }

    /// Per-game variance of the score.
    pub fn score_variance(&self) -> f64 {
        let n = self.games() as f64;
        if n == 0.0 {
            return 0.0;
        }
        let s = self.score();
        (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n
    }

    /// The Elo difference with a confidence interval at `confidence` (e.g. 0.95). With no
    /// games the estimate is 0 and the interval unbounded.
    pub fn elo(&self, confidence: f64) -> EloEstimate {
        let n = self.games() as f64;
        if n == 0.0 {
            return EloEstimate { elo: 0.0, lower: f64::NEG_INFINITY, upper: f64::INFINITY };
        }
        let s = self.score();
        let z = normal_quantile(0.5 + confidence / 2.0);
        let variance = self.score_variance();
        let (lower, upper) = if variance > 0.0 {
            let margin = z * (variance / n).sqrt();
            (s - margin, s + margin)
        } else {
            // Every game ended alike (all wins, all draws or all losses): the normal
            // approximation has no spread, so use Wilson's score interval, which still bounds
            // the score away from the observed extreme.
            let centre = (s + z * z / (2.0 * n)) / (1.0 + z * z / n);
            let half = z * (s * (1.0 - s) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
            (centre - half, centre + half)
        };
        EloEstimate { elo: elo_from_score(s), lower: elo_from_score(lower), upper: elo_from_score(upper) }
    }
}

/// The quantile function of the standard normal distribution (Acklam's rational
/// approximation, relative error below 1.2e-9), for confidence intervals.
pub fn normal_quantile(p: f64) -> f64 {
    assert!(p > 0.0 && p < 1.0, "normal_quantile needs 0 < p < 1, got {p}");
    const A: [f64; 6] = [
        -3.969683028665376e+01,
        2.209460984245205e+02,
        -2.759285104469687e+02,
        1.38357751867269e+02,
        -3.066479806614716e+01,
        2.506628277459239e+00,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e+01,
        1.615858368580409e+02,
        -1.556989798598866e+02,
        6.680131188771972e+01,
        -1.328068155288572e+01,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-03,
        -3.223964580411365e-01,
        -2.400758277161838e+00,
        -2.549732539343734e+00,
        4.374664141464968e+00,
        2.938163982698783e+00,
    ];
    const D: [f64; 4] =
        [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// A sequential probability ratio test of H0: Elo = `elo0` against H1: Elo = `elo1`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
}

/// Where an SPRT stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    AcceptH0,
    AcceptH1,
    Continue,
}

impl Sprt {
    /// The lower and upper stopping bounds of the log-likelihood ratio.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The approximate log-likelihood ratio of H1 against H0 given `results`.
    pub fn llr(&self, results: &MatchResults) -> f64 {
        let variance = results.score_variance();
        if results.games() == 0 || variance <= 0.0 {
            // All games ended alike: no spread to measure yet, so no evidence either way.
            return 0.0;
        }
        let (s0, s1) = (expected_score(self.elo0), expected_score(self.elo1));
        results.games() as f64 * (s1 - s0) * (2.0 * results.score() - s0 - s1) / (2.0 * variance)
    }

    pub fn decide(&self, results: &MatchResults) -> SprtDecision {
        let llr = self.llr(results);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtDecision::AcceptH1
        } else if llr <= lower {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_and_expected_score_are_inverse() {
        for elo in [-800.0, -200.0, 0.0, 35.0, 400.0] {
            assert!((elo_from_score(expected_score(elo)) - elo).abs() < 1e-9);
        }
        // 400 points stronger scores 10:1.
        assert!((expected_score(400.0) - 10.0 / 11.0).abs() < 1e-12);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
    }

    #[test]
    fn normal_quantile_matches_tables() {
        assert!((normal_quantile(0.975) - 1.959964).abs() < 1e-6);
        assert!((normal_quantile(0.5)).abs() < 1e-12);
        assert!((normal_quantile(0.01) + 2.326348).abs() < 1e-6);
        assert!((normal_quantile(0.9999) - 3.719016).abs() < 1e-5);
    }

    #[test]
    fn elo_of_a_match_with_interval() {
        // 60 wins, 20 draws, 20 losses: score 0.7, about +147 Elo.
        let results = MatchResults { wins: 60, draws: 20, losses: 20 };
        assert!((results.score() - 0.7).abs() < 1e-12);
        let estimate = results.elo(0.95);
        assert!((estimate.elo - 147.19).abs() < 0.01, "{estimate:?}");
        // variance = (60·0.09 + 20·0.04 + 20·0.49)/100 = 0.16, se = 0.04, margin ≈ 0.0784.
        assert!((estimate.lower - elo_from_score(0.7 - 1.959964 * 0.04)).abs() < 0.01);
        assert!((estimate.upper - elo_from_score(0.7 + 1.959964 * 0.04)).abs() < 0.01);
        assert!(estimate.lower < estimate.elo && estimate.elo < estimate.upper);
        // Four times the games halve the interval's score width.
        let more = MatchResults { wins: 240, draws: 80, losses: 80 }.elo(0.95);
        assert!(more.upper - more.lower < estimate.upper - estimate.lower);
    }

    #[test]
    fn a_clean_sweep_still_gets_a_finite_lower_bound() {
        // 20 wins of 20: Wilson's interval puts the score above ≈ 0.839, ≈ +286 Elo.
        let estimate = MatchResults { wins: 20, draws: 0, losses: 0 }.elo(0.95);
        assert_eq!(estimate.elo, f64::INFINITY);
        assert!((estimate.lower - 285.9).abs() < 1.0, "{estimate:?}");
        assert_eq!(estimate.upper, f64::INFINITY);
        let swept = MatchResults { wins: 0, draws: 0, losses: 20 }.elo(0.95);
        assert!((swept.upper + 285.9).abs() < 1.0, "{swept:?}");
        // All draws: centred on 0 with a finite interval.
        let drawn = MatchResults { wins: 0, draws: 20, losses: 0 }.elo(0.95);
        assert!(drawn.elo.abs() < 1e-9 && drawn.lower < -50.0 && drawn.upper > 50.0, "{drawn:?}");
    }

    #[test]
    fn an_even_match_is_zero_elo() {
        let estimate = MatchResults { wins: 10, draws: 5, losses: 10 }.elo(0.95);
        assert!(estimate.elo.abs() < 1e-9);
        assert!(estimate.lower < 0.0 && estimate.upper > 0.0);
    }

    #[test]
    fn sprt_accepts_the_right_hypothesis_on_synthetic_results() {
        let sprt = Sprt { elo0: 0.0, elo1: 100.0, alpha: 0.05, beta: 0.05 };
        let (lower, upper) = sprt.bounds();
        assert!((upper - (0.95f64 / 0.05).ln()).abs() < 1e-12 && (lower + upper).abs() < 1e-12);
        // Clearly stronger: +190 Elo-ish results.
        assert_eq!(
            sprt.decide(&MatchResults { wins: 150, draws: 20, losses: 30 }),
            SprtDecision::AcceptH1
        );
        // Even results favour H0.
        assert_eq!(
            sprt.decide(&MatchResults { wins: 100, draws: 0, losses: 100 }),
            SprtDecision::AcceptH0
        );
        // Too few games to tell.
        assert_eq!(sprt.decide(&MatchResults { wins: 3, draws: 1, losses: 2 }), SprtDecision::Continue);
        assert_eq!(sprt.llr(&MatchResults::default()), 0.0);
    }

    #[test]
    fn sprt_llr_grows_with_the_evidence() {
        let sprt = Sprt { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.05 };
        let small = sprt.llr(&MatchResults { wins: 12, draws: 4, losses: 8 });
        let large = sprt.llr(&MatchResults { wins: 120, draws: 40, losses: 80 });
        assert!(small > 0.0 && large > 9.0 * small);
    }
}

/// The results of one pairing in a tournament: `first` against `second`, from `first`'s view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub first: usize,
    pub second: usize,
    pub results: MatchResults,
}

/// Elo ratings of `players` players fitted to the pairings' results by maximum likelihood under
/// the logistic Elo model (Bradley–Terry), centred on a mean of 0. Each player also gets one
/// virtual draw against a player rated 0, a weak prior that keeps the ratings of a player who
/// won or lost everything finite.
pub fn fit_elo(players: usize, pairings: &[Pairing]) -> Vec<f64> {
    let mut ratings = vec![0.0f64; players];
    // Gradient ascent on the log-likelihood, in Elo units; the step shrinks with the games.
    let games: Vec<f64> = (0..players)
        .map(|p| {
            1.0 + pairings
                .iter()
                .filter(|x| x.first == p || x.second == p)
                .map(|x| x.results.games() as f64)
                .sum::<f64>()
        })
        .collect();
    for _ in 0..20_000 {
        let mut gradient = vec![0.0f64; players];
        for (player, rating) in ratings.iter().enumerate() {
            gradient[player] += 0.5 - expected_score(*rating);
        }
        for pairing in pairings {
            let n = pairing.results.games() as f64;
            let scored = pairing.results.wins as f64 + 0.5 * pairing.results.draws as f64;
            let expected = n * expected_score(ratings[pairing.first] - ratings[pairing.second]);
            gradient[pairing.first] += scored - expected;
            gradient[pairing.second] -= scored - expected;
        }
        let mut largest = 0.0f64;
        for player in 0..players {
            let step = 400.0 * gradient[player] / games[player];
            ratings[player] += step;
            largest = largest.max(step.abs());
        }
        if largest < 1e-7 {
            break;
        }
    }
    let mean = ratings.iter().sum::<f64>() / players.max(1) as f64;
    ratings.iter().map(|r| r - mean).collect()
}

/// The ratings of a ladder's rungs from the results of each rung against the next (`steps[i]`
/// is rung `i + 1`'s results against rung `i`, from rung `i + 1`'s view), anchored at the
/// first rung = 0, each with an interval at `confidence`.
///
/// In a chain the maximum-likelihood rating of rung `k` is the sum of the steps' Elo
/// differences below it, and its variance the sum of theirs: the interval's half-widths below
/// and above are those of the steps added in quadrature (each step's own interval is
/// asymmetric on the Elo scale, so each side is added on its own). A step won or lost in every
/// game has no finite estimate: the rungs above it are unbounded on that side, and bounded on
/// the other by the step's Wilson bound plus the rest, so a ladder with a sweep still says how
/// far up at least its top rungs are (and that a rung between is missing).
pub fn ladder_ratings(steps: &[MatchResults], confidence: f64) -> Vec<EloEstimate> {
    let mut ratings = vec![EloEstimate { elo: 0.0, lower: 0.0, upper: 0.0 }];
    let (mut centre, mut below, mut above) = (0.0f64, 0.0f64, 0.0f64);
    // Sums of the finite bounds of the steps won (lost) in every game.
    let (mut swept_up, mut swept_down) = (0.0f64, 0.0f64);
    let (mut ups, mut downs) = (0u32, 0u32);
    for step in steps {
        let estimate = step.elo(confidence);
        if estimate.elo == f64::INFINITY {
            ups += 1;
            swept_up += estimate.lower;
        } else if estimate.elo == f64::NEG_INFINITY {
            downs += 1;
            swept_down += estimate.upper;
        } else {
            centre += estimate.elo;
            below += (estimate.elo - estimate.lower).powi(2);
            above += (estimate.upper - estimate.elo).powi(2);
        }
        ratings.push(match (ups > 0, downs > 0) {
            (false, false) => EloEstimate { elo: centre, lower: centre - below.sqrt(), upper: centre + above.sqrt() },
            (true, false) => EloEstimate {
                elo: f64::INFINITY,
                lower: centre + swept_up - below.sqrt(),
                upper: f64::INFINITY,
            },
            (false, true) => EloEstimate {
                elo: f64::NEG_INFINITY,
                lower: f64::NEG_INFINITY,
                upper: centre + swept_down + above.sqrt(),
            },
            (true, true) => EloEstimate { elo: f64::NAN, lower: f64::NEG_INFINITY, upper: f64::INFINITY },
        });
    }
    ratings
}

#[cfg(test)]
mod rating_tests {
    use super::*;

    fn pairing(first: usize, second: usize, wins: u32, draws: u32, losses: u32) -> Pairing {
        Pairing { first, second, results: MatchResults { wins, draws, losses } }
    }

    #[test]
    fn two_players_get_the_match_elo_apart() {
        // 300 of 400 points: the fitted gap is close to the match's own Elo (+190.8), pulled
        // in slightly by the prior.
        let ratings = fit_elo(2, &[pairing(0, 1, 250, 100, 50)]);
        let gap = ratings[0] - ratings[1];
        assert!((gap - 190.8).abs() < 6.0, "{ratings:?}");
        assert!(gap < 190.8, "the prior pulls the gap in");
        assert!((ratings[0] + ratings[1]).abs() < 1e-6, "centred");
    }

    #[test]
    fn ratings_order_a_transitive_tournament_and_stay_finite() {
        // 0 beats 1 beats 2, and 0 beats 2 every time.
        let ratings = fit_elo(
            3,
            &[pairing(0, 1, 14, 2, 4), pairing(1, 2, 13, 3, 4), pairing(0, 2, 20, 0, 0)],
        );
        assert!(ratings[0] > ratings[1] && ratings[1] > ratings[2], "{ratings:?}");
        assert!(ratings.iter().all(|r| r.is_finite()));
        // Even results give equal ratings.
        let even = fit_elo(2, &[pairing(0, 1, 5, 10, 5)]);
        assert!(even[0].abs() < 1e-6 && even[1].abs() < 1e-6, "{even:?}");
    }

    #[test]
    fn a_ladder_adds_its_steps_and_their_uncertainty() {
        let step = MatchResults { wins: 30, draws: 0, losses: 10 };
        let single = step.elo(0.95);
        let ratings = ladder_ratings(&[step, step], 0.95);
        assert_eq!(ratings.len(), 3);
        assert_eq!((ratings[0].elo, ratings[0].lower, ratings[0].upper), (0.0, 0.0, 0.0), "anchored");
        assert!((ratings[1].elo - single.elo).abs() < 1e-9 && (ratings[1].lower - single.lower).abs() < 1e-9);
        assert!((ratings[2].elo - 2.0 * single.elo).abs() < 1e-9, "{ratings:?}");
        // Independent steps: the half-widths add in quadrature, not linearly.
        let half = |e: &EloEstimate| (e.elo - e.lower, e.upper - e.elo);
        let (one, two) = (half(&ratings[1]), half(&ratings[2]));
        assert!((two.0 - 2f64.sqrt() * one.0).abs() < 1e-9 && (two.1 - 2f64.sqrt() * one.1).abs() < 1e-9, "{ratings:?}");
        // A step lost on balance goes down.
        let down = ladder_ratings(&[MatchResults { wins: 10, draws: 0, losses: 30 }], 0.95);
        assert!((down[1].elo + single.elo).abs() < 1e-9 && down[1].upper < 0.0, "{down:?}");
    }

    #[test]
    fn a_sweep_leaves_the_rungs_above_it_bounded_on_one_side() {
        let sweep = MatchResults { wins: 20, draws: 0, losses: 0 };
        let even = MatchResults { wins: 10, draws: 0, losses: 10 };
        let ratings = ladder_ratings(&[sweep, even], 0.95);
        let wilson = sweep.elo(0.95).lower;
        assert!((ratings[1].lower - wilson).abs() < 1e-9 && ratings[1].elo == f64::INFINITY && ratings[1].upper == f64::INFINITY);
        // The even step above adds its downward uncertainty to the bound.
        let spread = -even.elo(0.95).lower;
        assert!((ratings[2].lower - (wilson - spread)).abs() < 1e-9, "{ratings:?}");
        let lost = ladder_ratings(&[MatchResults { wins: 0, draws: 0, losses: 20 }], 0.95);
        assert!(lost[1].elo == f64::NEG_INFINITY && (lost[1].upper + wilson).abs() < 1e-9, "{lost:?}");
        let both = ladder_ratings(&[sweep, MatchResults { wins: 0, draws: 0, losses: 20 }], 0.95);
        assert!(both[2].elo.is_nan() && both[2].lower == f64::NEG_INFINITY && both[2].upper == f64::INFINITY);
    }
}
