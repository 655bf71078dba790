//! Range checks of a parsed config: the values serde accepted but the run cannot use (a
//! warm-up longer than its schedule, an odd number of match games). They need whole values,
//! so they run after parsing and name the offending key by its YAML path; the caller places
//! that path in the text with the [`super::Locator`].
use super::*;

/// A value that parsed but cannot be used: the YAML path of the key and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    pub path: String,
    pub message: String,
}

impl Invalid {
    pub(super) fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Invalid {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// Why a number of match games must be even.
const EVEN_GAMES: &str =
    "must be an even number, at least 2 (games come in pairs that share a start, colours swapped)";

pub(super) fn check(ok: bool, path: &str, message: &str) -> Result<(), Invalid> {
    if ok {
        Ok(())
    } else {
        Err(Invalid::new(path, message))
    }
}

fn finite_in(value: f64, low: f64, high: f64) -> bool {
    value.is_finite() && value >= low && value <= high
}

impl RunConfig {
    /// Checks every value (the first problem found is returned).
    pub fn validate(&self) -> Result<(), Invalid> {
        check(
            self.config_version <= CONFIG_VERSION,
            "config_version",
            &format!(
                "format {} is newer than this build reads (up to {CONFIG_VERSION}): written by a newer gipfzero",
                self.config_version
            ),
        )?;
        check(self.config_version >= 1, "config_version", "formats start at 1")?;
        match self.game.as_str() {
            "zertz" => {
                if let Some(variant) = &self.variant {
                    if let Err(error) = gipfzero_games::zertz::Variant::from_name(variant) {
                        check(false, "variant", &error.to_string())?;
                    }
                }
            }
            "dvonn" | "lyngk" => {
                if let Some(variant) = &self.variant {
                    check(
                        variant == &self.game,
                        "variant",
                        &format!("{} has no variants (leave variant out)", self.game),
                    )?;
                }
            }
            other => {
                return Err(Invalid::new(
                    "game",
                    format!("unknown game \"{other}\": expected zertz, dvonn or lyngk"),
                ))
            }
        }
        check(self.iterations >= 1, "iterations", "must be at least 1")?;
        check(
            !self.run_dir.as_os_str().is_empty(),
            "run_dir",
            "must not be empty",
        )?;
        self.device
            .parse::<DeviceChoice>()
            .map_err(|error| Invalid::new("device", error.to_string()))?;
        self.precision
            .parse::<gipfzero_model::Precision>()
            .map_err(|error| Invalid::new("precision", error))?;
        check(
            self.threads.intra_op >= 1,
            "threads.intra_op",
            "must be at least 1",
        )?;
        check(
            self.threads.inter_op >= 1,
            "threads.inter_op",
            "must be at least 1",
        )?;
        check(
            crate::agents::valid_gpu_wait_ms(self.threads.gpu_wait_ms),
            "threads.gpu_wait_ms",
            "must be between 0 and 1000 milliseconds",
        )?;

        self.network.validate().map_err(|error| {
            use gipfzero_model::NetConfigError;
            let (field, message) = match &error {
                NetConfigError::Zero(name) => (name.to_string(), error.to_string()),
                NetConfigError::TooLarge { name, most, .. } => (name.to_string(), format!("must be at most {most}")),
                NetConfigError::TooManyPooled { .. } => ("global_pool_channels".to_string(), error.to_string()),
                NetConfigError::Groups { .. } => ("norm_groups".to_string(), error.to_string()),
                NetConfigError::EmptySpec => ("blocks".to_string(), error.to_string()),
            };
            Invalid::new(format!("network.{field}"), message)
        })?;

        if let Some(from) = &self.init_from {
            check(
                !from.is_empty() && from != "model:",
                "init_from",
                "a checkpoint's path or model:NAME (or null for random weights)",
            )?;
        }

        let sp = &self.self_play;
        check(
            sp.games >= 1,
            "self_play.games_per_iteration",
            "must be at least 1",
        )?;
        check(
            sp.games_in_flight >= 1,
            "self_play.parallel_games",
            "must be at least 1",
        )?;
        check(
            sp.max_turns >= 1,
            "self_play.max_turns",
            "must be at least 1",
        )?;
        search_settings(&sp.search, "self_play.search")?;
        if let Some(league) = &sp.league {
            check(
                finite_in(league.share as f64, 0.0, 1.0),
                "self_play.league.share",
                "must lie in [0, 1]",
            )?;
            check(
                !league.opponents.is_empty(),
                "self_play.league.opponents",
                "name at least one opponent",
            )?;
            for (i, name) in league.opponents.iter().enumerate() {
                let path = format!("self_play.league.opponents.{i}");
                let opponent: Opponent = name.parse().map_err(|message: String| Invalid::new(&path, message))?;
                let fixed = opponent.is_baseline() || matches!(opponent, Opponent::Checkpoint(_) | Opponent::Model(_));
                check(fixed, &path, "league opponents are random, greedy, rollout:N, checkpoint:PATH or model:NAME")?;
            }
        }

        let replay = &self.replay;
        check(
            replay.max_positions > 0 || replay.max_generations > 0,
            "replay",
            "bound the window: set max_positions or max_generations (or both)",
        )?;
        check(
            replay.max_reuse >= 1,
            "replay.max_reuse",
            "must be at least 1",
        )?;
        if replay.max_positions > 0 {
            check(
                replay.min_positions <= replay.max_positions,
                "replay.min_positions",
                "must not exceed replay.max_positions",
            )?;
        }

        let training = &self.training;
        check(
            training.batch_size >= 1,
            "training.batch_size",
            "must be at least 1",
        )?;
        check(
            replay.min_positions >= training.batch_size,
            "replay.min_positions",
            "must be at least training.batch_size",
        )?;
        check(
            training.steps_per_iteration >= 1,
            "training.steps_per_iteration",
            "must be at least 1",
        )?;
        check(
            training.value_loss_weight.is_finite() && training.value_loss_weight >= 0.0,
            "training.value_loss_weight",
            "must be a finite number ≥ 0",
        )?;
        check(
            (0.0..=1.0).contains(&training.root_value_weight),
            "training.root_value_weight",
            "must be between 0 and 1",
        )?;
        match training.optimizer {
            OptimizerConfig::Adam {
                beta1,
                beta2,
                eps,
                weight_decay,
            } => {
                check(
                    finite_in(beta1, 0.0, 0.999_999),
                    "training.optimizer.beta1",
                    "must be in [0, 1)",
                )?;
                check(
                    finite_in(beta2, 0.0, 0.999_999_999),
                    "training.optimizer.beta2",
                    "must be in [0, 1)",
                )?;
                check(
                    eps.is_finite() && eps > 0.0,
                    "training.optimizer.eps",
                    "must be a finite number > 0",
                )?;
                check(
                    finite_in(weight_decay, 0.0, 1.0),
                    "training.optimizer.weight_decay",
                    "must be in [0, 1]",
                )?;
            }
            OptimizerConfig::Sgd {
                momentum,
                weight_decay,
                ..
            } => {
                check(
                    finite_in(momentum, 0.0, 0.999_999),
                    "training.optimizer.momentum",
                    "must be in [0, 1)",
                )?;
                check(
                    finite_in(weight_decay, 0.0, 1.0),
                    "training.optimizer.weight_decay",
                    "must be in [0, 1]",
                )?;
            }
        }
        let positive_lr = |lr: f64| lr.is_finite() && lr > 0.0 && lr <= 10.0;
        match &training.lr {
            LrSchedule::Constant { base } => {
                check(
                    positive_lr(*base),
                    "training.lr.base",
                    "must be a number in (0, 10]",
                )?;
            }
            LrSchedule::Step {
                base,
                milestones,
                gamma,
            } => {
                check(
                    positive_lr(*base),
                    "training.lr.base",
                    "must be a number in (0, 10]",
                )?;
                check(
                    milestones.windows(2).all(|w| w[0] < w[1]),
                    "training.lr.milestones",
                    "must be strictly increasing",
                )?;
                check(
                    finite_in(*gamma, 1e-12, 1.0),
                    "training.lr.gamma",
                    "must be in (0, 1]",
                )?;
            }
            LrSchedule::Cosine {
                base,
                warmup_steps,
                total_steps,
                min,
            } => {
                check(
                    positive_lr(*base),
                    "training.lr.base",
                    "must be a number in (0, 10]",
                )?;
                check(
                    finite_in(*min, 0.0, *base),
                    "training.lr.min",
                    "must be in [0, base]",
                )?;
                check(
                    *total_steps >= 1,
                    "training.lr.total_steps",
                    "must be at least 1",
                )?;
                check(
                    warmup_steps < total_steps,
                    "training.lr.warmup_steps",
                    "must be less than total_steps",
                )?;
            }
        }

        let evaluation = &self.evaluation;
        if evaluation.every > 0 {
            check(
                is_even_game_count(evaluation.games),
                "evaluation.games",
                EVEN_GAMES,
            )?;
            check(
                evaluation.max_turns >= 1,
                "evaluation.max_turns",
                "must be at least 1",
            )?;
            check(
                (1..=256).contains(&evaluation.parallel_games),
                "evaluation.parallel_games",
                "must be between 1 and 256",
            )?;
            search_settings(&evaluation.search, "evaluation.search")?;
        }
        for (i, opponent) in evaluation.opponents.iter().enumerate() {
            check(
                !evaluation.opponents[..i].contains(opponent),
                &format!("evaluation.opponents.{i}"),
                &format!("{opponent} is listed twice"),
            )?;
        }
        if let Some(gating) = &evaluation.gating {
            check(
                finite_in(gating.threshold, 1e-9, 1.0) && gating.threshold > 0.0,
                "evaluation.gating.threshold",
                "must be a score in (0, 1]",
            )?;
            check(
                gating.games.is_none_or(is_even_game_count),
                "evaluation.gating.games",
                EVEN_GAMES,
            )?;
            check(
                evaluation.every > 0,
                "evaluation.every",
                "gating needs evaluations (every ≥ 1)",
            )?;
            check(
                gating.against != Opponent::Previous,
                "evaluation.gating.against",
                "gating is against best, a baseline (random, greedy, rollout:N), checkpoint:PATH or model:NAME",
            )?;
        }
        check(
            self.checkpoints.every >= 1,
            "checkpoints.every",
            "must be at least 1",
        )?;
        let distributed = &self.distributed;
        check(
            finite_in(distributed.max_step_scale, 1.0, 1000.0),
            "distributed.max_step_scale",
            "must be a number from 1 to 1000 (a multiple of training.steps_per_iteration)",
        )?;
        check(
            (1..=3_600_000).contains(&distributed.poll_ms),
            "distributed.poll_ms",
            "must be from 1 to 3600000 milliseconds",
        )?;
        Ok(())
    }
}

/// Checks a search block with the search's own validation; errors name `prefix.<key>`.
fn search_settings(search: &SearchConfig, prefix: &str) -> Result<(), Invalid> {
    search.validate().map_err(|error| Invalid::new(format!("{prefix}.{}", error.field), error.reason))
}
