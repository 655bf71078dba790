//! Search settings: one plain struct with documented defaults.
//!
//! Flat on purpose, as KataGo's `SearchParams`: the root policy is a name, and the settings of
//! each policy sit beside it whichever is chosen ([`SearchConfig::gumbel`],
//! [`SearchConfig::ucb1`]), so the struct is the whole schema of a run config's YAML `search`
//! block (with the `serde` feature it reads and writes that block itself; nothing here knows
//! about files). Defaults follow the published values (AlphaZero, KataGo, Danihelka et al.
//! 2022) where they exist, and say so; [`SearchConfig::validate`] refuses settings the search
//! cannot run.
#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// How the search chooses at the root (and, following from it, inside the tree); the chosen
/// policy's settings are [`SearchConfig::gumbel`] or [`SearchConfig::ucb1`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize), serde(rename_all = "lowercase"))]
pub enum RootPolicy {
    /// AlphaZero's PUCT at every node, with Dirichlet noise at the root and a visit-count
    /// policy target.
    Puct,
    /// Gumbel AlphaZero (Danihelka et al. 2022): Gumbel-top-k sampling and sequential halving
    /// at the root, the deterministic "π'(a) − N(a)/(1 + ΣN)" rule inside the tree, and the
    /// improved policy softmax(logits + σ(completed Q)) as target. Chosen inside the tree because
    /// it is the paper's rule (it keeps the policy-improvement guarantee at small budgets) and
    /// needs no exploration constant.
    Gumbel,
    /// Classic UCT: UCB1 at every node, priors ignored. The baseline `rollout:<sims>` player
    /// runs this with random playouts; it is not meant for network search.
    Ucb1,
}

/// Settings of UCB1 ([`RootPolicy::Ucb1`]).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize), serde(deny_unknown_fields, default))]
pub struct Ucb1Config {
    /// The exploration constant c of `Q + c·sqrt(ln N / n)` (values in [-1, 1]). Default √2.
    pub exploration: f32,
}

impl Default for Ucb1Config {
    fn default() -> Self {
        Ucb1Config { exploration: std::f32::consts::SQRT_2 }
    }
}

/// Settings of the Gumbel root search; defaults are the paper's (and `mctx`'s).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize), serde(deny_unknown_fields, default))]
pub struct GumbelConfig {
    /// m: how many root actions Gumbel-top-k samples for sequential halving. Default 16.
    pub max_considered: u32,
    /// c_visit of σ(q) = (c_visit + max_b N(b)) · c_scale · q. Default 50.
    pub c_visit: f32,
    /// c_scale of σ. Default 0.1.
    pub c_scale: f32,
    /// Rescale completed Q values to [0, 1] by their min and max before σ, as `mctx` does, so
    /// that c_scale means the same whatever the spread of the values. Default true.
    pub rescale_values: bool,
    /// Add Gumbel noise to the root logits, scaled by the move's temperature
    /// ([`SearchConfig::temperature`]). True for self-play (it is the exploration); false for
    /// evaluation games, which then consider the top-m actions of the prior. Default true.
    pub noise: bool,
}

impl Default for GumbelConfig {
    fn default() -> Self {
        GumbelConfig {
            max_considered: 16,
            c_visit: 50.0,
            c_scale: 0.1,
            rescale_values: true,
            noise: true,
        }
    }
}

/// Dirichlet noise mixed into the root priors of a PUCT search: P' = (1 − ε)·P + ε·η with
/// η ~ Dir(α), α = `alpha_scale / n_legal` (KataGo's scaling, so the total concentration — and
/// so the shape of the noise — does not depend on how many actions a position has).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize), serde(deny_unknown_fields))]
pub struct DirichletNoise {
    /// Total concentration; α per action is this divided by the number of legal actions.
    /// Default 10 (AlphaZero's chess 0.3 × ~30 moves; KataGo 0.03 × 361 ≈ 10.8).
    pub alpha_scale: f32,
    /// ε, the weight of the noise. Default 0.25 (AlphaZero).
    pub epsilon: f32,
}

impl Default for DirichletNoise {
    fn default() -> Self {
        DirichletNoise {
            alpha_scale: 10.0,
            epsilon: 0.25,
        }
    }
}

/// Playout-cap randomisation (KataGo, Wu 2019): only some moves get the full budget and yield
/// policy targets; the others are searched cheaply, which buys more games per hour for the
/// value target. As in KataGo, cheap searches get no root noise: they play their best move.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize), serde(deny_unknown_fields))]
pub struct PlayoutCap {
    /// Probability that a move gets the full budget ([`SearchConfig::simulations`]).
    /// KataGo: 0.25.
    pub full_probability: f32,
    /// The cheap budget. KataGo: about a sixth of the full one.
    pub cheap_simulations: u32,
}

/// From move `from_move` on (counting the search's decisions — actions — from the start of the
/// game), actions are chosen with this temperature, until the next step takes over.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize), serde(deny_unknown_fields))]
pub struct TemperatureStep {
    pub from_move: u32,
    /// 1 samples in proportion to visits, 0 takes the most visited, values between sharpen.
    pub temperature: f32,
}

/// Everything one search needs to know.
///
/// As a YAML block (the `serde` feature), what it leaves out comes from
/// [`SearchConfig::self_play`] with 24 simulations, the training configs' default search, not
/// from [`SearchConfig::default`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(Serialize, Deserialize),
    serde(deny_unknown_fields, default = "SearchConfig::self_play_default")
)]
pub struct SearchConfig {
    /// Simulations per search (per action decision), not counting the evaluation of a fresh
    /// root. With tree reuse, visits inherited from the previous move do not count.
    /// Default 800 (AlphaZero).
    pub simulations: u32,
    /// How the root (and the tree) chooses. Default [`RootPolicy::Puct`].
    pub root_policy: RootPolicy,
    /// The Gumbel root's settings, read when `root_policy` is [`RootPolicy::Gumbel`].
    pub gumbel: GumbelConfig,
    /// UCB1's settings, read when `root_policy` is [`RootPolicy::Ucb1`].
    pub ucb1: Ucb1Config,
    /// c_init of the PUCT constant c(s) = c_init + ln((N + c_base + 1) / c_base). Default 1.25
    /// (AlphaZero pseudocode).
    pub c_puct: f32,
    /// c_base of the growth term. Default 19652 (AlphaZero pseudocode).
    pub c_base: f32,
    /// First-play urgency: an unvisited child is valued at the parent's value minus this times
    /// sqrt(prior mass of the visited children) (Leela Chess Zero). Default 0.25.
    pub fpu_reduction: f32,
    /// The same reduction at the root, where exploration matters more. Default 0.0.
    pub root_fpu_reduction: f32,
    /// Root Dirichlet noise for PUCT searches; `None` for evaluation play. Default `Some`.
    pub dirichlet: Option<DirichletNoise>,
    /// Move temperature by move number; the step with the largest `from_move` not above the
    /// move number applies (temperature 1 before any step). Default: 1 for the first 30
    /// actions, then 0. A Gumbel root scales its Gumbel noise by it: the considered actions
    /// are then drawn from the prior at this temperature, and 0 removes the noise.
    pub temperature: Vec<TemperatureStep>,
    /// Playout-cap randomisation; `None` gives every move the full budget. Default `None`.
    pub playout_cap: Option<PlayoutCap>,
    /// Keep the subtree of the played action for the next search. Default true.
    pub reuse_tree: bool,
    /// Leaves collected per tree per evaluator call, kept apart by virtual loss. One gives the
    /// sequential algorithm exactly (and determinism independent of batching); more trades
    /// search quality for bigger batches when there are few trees. Default 1.
    pub leaves_per_tree: u32,
    /// Value counted against an edge while a leaf under it waits for its evaluation (the
    /// waiting visit counts as a loss of this size). Default 1.0.
    pub virtual_loss: f32,
    /// Walk through positions with a single legal action (below the root) instead of
    /// evaluating them: the descent plays the forced action and goes on, so the leaf evaluated
    /// is the first position with a choice (or the game's end). Self-play records no sample
    /// at a forced position (there is nothing to learn for the policy), so a network has
    /// never been trained on them and its value there is a guess; walking through also spends
    /// no simulation on a position without a decision. Default true; the `rollout:<sims>`
    /// baseline keeps false, the plain UCT it was defined as.
    pub skip_forced: bool,
    /// MCTS-solver (Winands et al. 2008): the ends of games in the tree are exact results,
    /// carried up — a node is won when one child is won for its chooser, lost when all its
    /// children are, across the several actions of one turn as between turns; a proven node
    /// is not searched further, a proven win is chosen, a proven loss avoided while anything
    /// else is left, and a proven root reports its exact value. A node's children that end
    /// the game are looked at when the node is expanded (one `apply` per legal action), so a
    /// win one action away is found whatever its prior. Default true; false in configs of
    /// format 4 and older.
    pub solver: bool,
    /// w in [0, 1]: each leaf's value is `(1 − w)·v + w·z`, the evaluator's value v blended
    /// with the outcome z of one random playout from the leaf (AlphaGo's λ). Not read by the
    /// search itself: whoever builds the search's evaluator wraps it in a
    /// [`crate::MixedEvaluator`] of this weight. Default 0 (the evaluator alone).
    pub rollout_mix: f32,
    /// Stop a search once its choice is settled: when it will play the most visited action
    /// (PUCT or UCB1 at temperature 0) and no other action could reach that count in the
    /// simulations left, or when the root has one action. The move is then the one the whole
    /// budget would have played by visits (a proven win the rest might have found aside), so
    /// this only saves time: a time budget gives it to the turns after. Not for training
    /// searches, whose visit counts are targets. Default false; left out of a written config
    /// when false, so the hashes of configs written before it stay the same.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_false"))]
    pub stop_when_decided: bool,
    /// Before the tree search of a turn, an exact alpha-beta search of the game's result
    /// ([`crate::endgame`]) may make this many positions per simulation of the budget: a
    /// proven win or draw is played at once, anything else (a proven loss, a budget too small)
    /// is left to the tree search. What it costs is bounded (a position is well under a
    /// microsecond, a simulation with a network tens of microseconds) and it pays near a
    /// game's end. Not for training searches, whose visit counts are targets. Default 0
    /// (none); left out of a written config when 0, so the hashes of configs written before
    /// it stay the same.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_zero"))]
    pub endgame_nodes: u32,
}

#[cfg(feature = "serde")]
fn is_false(value: &bool) -> bool {
    !*value
}

#[cfg(feature = "serde")]
fn is_zero(value: &u32) -> bool {
    *value == 0
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            simulations: 800,
            root_policy: RootPolicy::Puct,
            gumbel: GumbelConfig::default(),
            ucb1: Ucb1Config::default(),
            c_puct: 1.25,
            c_base: 19652.0,
            fpu_reduction: 0.25,
            root_fpu_reduction: 0.0,
            dirichlet: Some(DirichletNoise::default()),
            temperature: vec![
                TemperatureStep {
                    from_move: 0,
                    temperature: 1.0,
                },
                TemperatureStep {
                    from_move: 30,
                    temperature: 0.0,
                },
            ],
            playout_cap: None,
            reuse_tree: true,
            leaves_per_tree: 1,
            virtual_loss: 1.0,
            skip_forced: true,
            solver: true,
            rollout_mix: 0.0,
            stop_when_decided: false,
            endgame_nodes: 0,
        }
    }
}

/// A setting the search cannot run with.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("invalid search setting {field}: {reason}")]
pub struct InvalidSetting {
    pub field: &'static str,
    pub reason: String,
}

impl SearchConfig {
    /// Gumbel root search with `simulations` and 8 considered actions: the paper's choice for
    /// small budgets, where PUCT with Dirichlet noise learns little (Danihelka et al. 2022),
    /// and the training configs' default. The Gumbel noise stays on at every move: cooling it
    /// to none after 30 actions (the schedule PUCT's visit sampling wants) scored 18–1–21
    /// head to head after an hour of ZÈRTZ training (docs/RESULTS.md).
    pub fn self_play(simulations: u32) -> Self {
        SearchConfig {
            simulations,
            root_policy: RootPolicy::Gumbel,
            gumbel: GumbelConfig { max_considered: 8, ..GumbelConfig::default() },
            temperature: vec![TemperatureStep { from_move: 0, temperature: 1.0 }],
            ..SearchConfig::default()
        }
    }

    /// [`SearchConfig::self_play`] with 24 simulations: what a YAML `search` block leaves out.
    pub fn self_play_default() -> Self {
        Self::self_play(24)
    }

    /// Settings for evaluation games: no root noise, always the most visited action, no
    /// playout cap; a Gumbel root also drops its Gumbel noise.
    pub fn evaluation(simulations: u32, root_policy: RootPolicy) -> Self {
        SearchConfig { simulations, root_policy, ..SearchConfig::default() }.for_evaluation()
    }

    /// These settings for evaluation games: the same search without noise (no Dirichlet
    /// noise, no Gumbel noise, temperature 0: the best action) and without a playout cap.
    pub fn for_evaluation(&self) -> Self {
        SearchConfig {
            gumbel: GumbelConfig { noise: false, ..self.gumbel.clone() },
            dirichlet: None,
            temperature: vec![TemperatureStep { from_move: 0, temperature: 0.0 }],
            playout_cap: None,
            ..self.clone()
        }
    }

    /// The temperature for the decision number `move_number` (0-based, counting actions).
    pub fn temperature_at(&self, move_number: u32) -> f32 {
        self.temperature
            .iter()
            .filter(|step| step.from_move <= move_number)
            .max_by_key(|step| step.from_move)
            .map_or(1.0, |step| step.temperature)
    }

    /// Checks every field; the search refuses to start with settings that fail here.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        fn check(ok: bool, field: &'static str, reason: &str) -> Result<(), InvalidSetting> {
            if ok {
                Ok(())
            } else {
                Err(InvalidSetting {
                    field,
                    reason: reason.to_string(),
                })
            }
        }
        let finite_non_negative = |x: f32| x.is_finite() && x >= 0.0;
        check(self.simulations >= 1, "simulations", "must be at least 1")?;
        check(
            finite_non_negative(self.c_puct),
            "c_puct",
            "must be a finite number ≥ 0",
        )?;
        check(
            self.c_base.is_finite() && self.c_base > 0.0,
            "c_base",
            "must be a finite number > 0",
        )?;
        check(
            finite_non_negative(self.fpu_reduction),
            "fpu_reduction",
            "must be a finite number ≥ 0",
        )?;
        check(
            finite_non_negative(self.root_fpu_reduction),
            "root_fpu_reduction",
            "must be a finite number ≥ 0",
        )?;
        check(
            self.leaves_per_tree >= 1,
            "leaves_per_tree",
            "must be at least 1",
        )?;
        check(
            finite_non_negative(self.virtual_loss),
            "virtual_loss",
            "must be a finite number ≥ 0",
        )?;
        for step in &self.temperature {
            check(
                finite_non_negative(step.temperature),
                "temperature",
                "temperatures must be finite numbers ≥ 0",
            )?;
        }
        if let Some(noise) = &self.dirichlet {
            check(
                noise.alpha_scale.is_finite() && noise.alpha_scale > 0.0,
                "dirichlet.alpha_scale",
                "must be a finite number > 0",
            )?;
            check(
                (0.0..=1.0).contains(&noise.epsilon),
                "dirichlet.epsilon",
                "must be between 0 and 1",
            )?;
        }
        if let Some(cap) = &self.playout_cap {
            check(
                (0.0..=1.0).contains(&cap.full_probability),
                "playout_cap.full_probability",
                "must be between 0 and 1",
            )?;
            check(
                cap.cheap_simulations >= 1,
                "playout_cap.cheap_simulations",
                "must be at least 1",
            )?;
        }
        // The evaluator's own check: the same bound, the same words.
        crate::evaluator::MixedEvaluator::<()>::check_weight(self.rollout_mix)
            .map_err(|error| InvalidSetting { field: "rollout_mix", reason: error.message })?;
        match self.root_policy {
            RootPolicy::Puct => {}
            RootPolicy::Gumbel => {
                let g = &self.gumbel;
                check(
                    g.max_considered >= 1,
                    "gumbel.max_considered",
                    "must be at least 1",
                )?;
                check(
                    finite_non_negative(g.c_visit),
                    "gumbel.c_visit",
                    "must be a finite number ≥ 0",
                )?;
                check(
                    finite_non_negative(g.c_scale),
                    "gumbel.c_scale",
                    "must be a finite number ≥ 0",
                )?;
            }
            RootPolicy::Ucb1 => {
                check(
                    finite_non_negative(self.ucb1.exploration),
                    "ucb1.exploration",
                    "must be a finite number ≥ 0",
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        assert_eq!(SearchConfig::default().validate(), Ok(()));
        assert_eq!(
            SearchConfig::evaluation(10, RootPolicy::Gumbel).validate(),
            Ok(())
        );
    }

    #[test]
    fn temperature_schedule_takes_the_latest_step() {
        let config = SearchConfig::default();
        assert_eq!(config.temperature_at(0), 1.0);
        assert_eq!(config.temperature_at(29), 1.0);
        assert_eq!(config.temperature_at(30), 0.0);
        assert_eq!(config.temperature_at(500), 0.0);
        let unsorted = SearchConfig {
            temperature: vec![
                TemperatureStep {
                    from_move: 10,
                    temperature: 0.5,
                },
                TemperatureStep {
                    from_move: 4,
                    temperature: 2.0,
                },
            ],
            ..SearchConfig::default()
        };
        assert_eq!(unsorted.temperature_at(3), 1.0);
        assert_eq!(unsorted.temperature_at(4), 2.0);
        assert_eq!(unsorted.temperature_at(12), 0.5);
    }

    #[test]
    fn bad_settings_are_refused_with_their_field() {
        let bad = SearchConfig {
            simulations: 0,
            ..SearchConfig::default()
        };
        assert_eq!(bad.validate().map_err(|e| e.field), Err("simulations"));
        let bad = SearchConfig {
            c_puct: f32::NAN,
            ..SearchConfig::default()
        };
        assert_eq!(bad.validate().map_err(|e| e.field), Err("c_puct"));
        let bad = SearchConfig {
            dirichlet: Some(DirichletNoise {
                alpha_scale: 1.0,
                epsilon: 1.5,
            }),
            ..SearchConfig::default()
        };
        assert_eq!(
            bad.validate().map_err(|e| e.field),
            Err("dirichlet.epsilon")
        );
        let bad = SearchConfig {
            root_policy: RootPolicy::Gumbel,
            gumbel: GumbelConfig {
                max_considered: 0,
                ..GumbelConfig::default()
            },
            ..SearchConfig::default()
        };
        assert_eq!(
            bad.validate().map_err(|e| e.field),
            Err("gumbel.max_considered")
        );
        // The settings of a policy not chosen are not checked.
        let unused = SearchConfig { root_policy: RootPolicy::Puct, ..bad.clone() };
        assert_eq!(unused.validate(), Ok(()));
        let bad = SearchConfig {
            rollout_mix: 1.5,
            ..SearchConfig::default()
        };
        assert_eq!(bad.validate().map_err(|e| e.field), Err("rollout_mix"));
    }

    #[test]
    fn evaluation_settings_drop_the_noise_and_keep_the_rest() {
        let self_play = SearchConfig { c_puct: 2.0, rollout_mix: 0.25, ..SearchConfig::self_play(50) };
        let evaluation = self_play.for_evaluation();
        assert!(!evaluation.gumbel.noise && evaluation.dirichlet.is_none() && evaluation.playout_cap.is_none());
        assert_eq!(evaluation.temperature_at(0), 0.0);
        assert_eq!((evaluation.simulations, evaluation.c_puct, evaluation.rollout_mix), (50, 2.0, 0.25));
        assert_eq!(evaluation.gumbel.max_considered, 8);
        assert_eq!(SearchConfig::evaluation(50, RootPolicy::Gumbel), SearchConfig { simulations: 50, root_policy: RootPolicy::Gumbel, ..SearchConfig::default() }.for_evaluation());
    }
}
