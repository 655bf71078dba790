//! The AlphaZero loop: self-play → replay window → SGD → checkpoint → evaluation → gating,
//! resumable after a crash.
//!
//! The loop knows nothing of how games are played: self-play is a [`SelfPlay`]
//! ([`crate::generation::ShardSelfPlay`] plays a generation with a network, writes its shards
//! and reads them back) and evaluation matches are an [`Arena`]
//! ([`crate::evaluate::NetworkArena`]). That keeps this module testable with stand-ins.
//! [`train`] is the whole run as one library call: it picks the game, the threads and those
//! two implementations from the config; the `gipfzero train` command only maps its arguments
//! onto it.
//!
//! One iteration `i` (0-based):
//! 1. self-play: generation `i` with the self-play network — the champion (`best`) when
//!    gating is on, else the current network — seeded from the run's seed stream;
//! 2. the generation enters the replay window;
//! 3. once the window is ready, `steps_per_iteration` SGD steps on minibatches drawn from it;
//! 4. checkpoint `latest` (every iteration), `iter-NNNNNN` (every `checkpoints.every`) and
//!    the restart's own copy `resume/trainer-NNNNNN`;
//! 5. every `evaluation.every` iterations, a match against each opponent (`previous` = the
//!    network at the start of this iteration), then gating: against `best`, or against a
//!    baseline that the new network and the champion both play over the same openings (a
//!    new champion is also kept as `resume/best-NNNNNN`);
//! 6. metrics line, plots, and last the resume state — the commit point: a crash before it
//!    redoes iteration `i` from the state after `i − 1` (the generation's shards are
//!    rewritten by the same seed; the resume state names the restart copies of `i − 1`,
//!    which iteration `i` does not touch, and the ones it replaces are deleted after it).
//!
//! **Overlap** (`overlap: true`, the default): SGD and self-play need not take turns. While
//! iteration `i` trains, generation `i + 1` is already being played in the background, by the
//! network as it was before this iteration's SGD (the champion with gating): every generation
//! is played by a network one iteration older than without overlap (generation `g` by the
//! network after iteration `g − 2`; generations 0 and 1 by the initial one). That lag is the
//! price; the gain is that SGD, evaluation and self-play keep all the cores busy. A fixed lag,
//! rather than "whatever network is newest when a game starts", keeps a run a function of its
//! config: each generation's player, seed and games are fixed, whichever part runs faster.
//! The commit point names the next generation, its seed and its player (a restart copy
//! `resume/player-NNNNNN`, written when the generation is fixed), so a restart after a kill at
//! any moment plays it again from its complete shards, a finished run extended by more
//! iterations plays it as the longer run would have, and either ends with the same weights.
//!
//! Resumption is exact on the CPU: the network and optimiser come from the restart copy of
//! the last committed iteration, the window
//! from the generations' shards and its saved counters, the seed stream from its saved
//! state; a run interrupted and resumed ends with the same weights as one that was not (a
//! test checks it).
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread;
use std::time::Instant;

use gipfzero_games::registry::{GameName, GameSetting, GameVisitor};
use gipfzero_games::{Game, SplitMix64};
use gipfzero_model::checkpoint::{self, CheckpointError};
use gipfzero_model::Network;
use thiserror::Error;

use crate::config::{Opponent, RunConfig};
use crate::cpu::process_cpu_seconds;
use crate::evaluate::{MatchReport, NetworkArena};
use crate::generation::ShardSelfPlay;
use crate::metrics::{keep_committed_metrics, read_metrics, EvaluationMetrics, IterationMetrics, SelfPlayMetrics, TrainingMetrics};
use crate::replay::{ReplayError, ReplayWindow, Samples};
use crate::run::{NextGeneration, ResumeState, RunDir, RunError};
use crate::trainer::{Trainer, TrainerError};

/// One generation of self-play.
#[derive(Clone, Debug)]
pub struct Generation {
    pub samples: Samples,
    pub games: u32,
    /// Actions played over all games.
    pub actions: u64,
    /// Positions this call played: fewer than `samples` holds when the generation resumes
    /// games stored before a restart (the self-play speed counts only these).
    pub positions_played: u64,
    /// The network's results in the league games, per opponent (empty without a league).
    pub league: Vec<gipfzero_selfplay::LeagueTally>,
    /// SGD steps this iteration takes, as a multiple of `training.steps_per_iteration`: 1 for
    /// a generation of `self_play.games` games; a run at a URL, whose workers may deliver more
    /// games than that between two iterations, scales the steps with the games (up to its cap,
    /// see [`crate::distributed`]), so that the steps per new position stay as configured.
    pub step_scale: f64,
}

/// Plays self-play generations ([`crate::generation::ShardSelfPlay`]).
pub trait SelfPlay<G: Game> {
    type Error: std::error::Error + Send + Sync + 'static;

    /// Plays generation `generation` with `network` from `seed`, stores it (shards in
    /// `run.shards()`), and returns its samples.
    fn generate(
        &mut self,
        run: &RunDir,
        network: &Network,
        generation: u64,
        seed: u64,
    ) -> Result<Generation, Self::Error>;

    /// The samples of a stored generation, as `generate` returned them (for restoring the
    /// replay window after a restart).
    fn load(&mut self, run: &RunDir, generation: u64) -> Result<Samples, Self::Error>;
}

/// Plays evaluation matches ([`crate::evaluate::NetworkArena`]).
pub trait Arena<G: Game> {
    type Error: std::error::Error + Send + Sync + 'static;

    /// A match of `network` against `opponent`; `opponent_network` is the network of
    /// `previous`, `best` and `checkpoint:` opponents (loaded by the pipeline).
    fn play(
        &mut self,
        network: &Network,
        opponent: &Opponent,
        opponent_network: Option<&Network>,
        games: u32,
        seed: u64,
    ) -> Result<MatchReport, Self::Error>;
}

/// Told of each commit point, after the run directory holds it: nothing to do for a local
/// run (`()`); a run at a URL copies its directory to the object store
/// ([`crate::distributed`]), whose copy of the commit point is then the one that counts.
pub trait Publish {
    /// The commit point of the run in `run` was just written.
    fn committed(&mut self, run: &RunDir) -> Result<(), BoxedError>;
}

impl Publish for () {
    fn committed(&mut self, _run: &RunDir) -> Result<(), BoxedError> {
        Ok(())
    }
}

/// An error of a [`SelfPlay`] or [`Arena`] implementation, kept whole.
pub type BoxedError = Box<dyn std::error::Error + Send + Sync>;

/// Why the loop stopped.
#[derive(Debug, Error)]
pub enum PipelineError {
    #[error(transparent)]
    Run(#[from] RunError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(transparent)]
    Trainer(#[from] TrainerError),
    #[error(transparent)]
    Replay(#[from] ReplayError),
    #[error("network")]
    Network(#[source] gipfzero_model::NetConfigError),
    #[error("self-play of generation {generation}")]
    SelfPlay {
        generation: u64,
        #[source]
        source: BoxedError,
    },
    #[error("evaluation against {opponent}")]
    Evaluation {
        opponent: String,
        #[source]
        source: BoxedError,
    },
    #[error("publishing the commit point")]
    Publish(#[source] BoxedError),
    #[error("cannot start the worker threads")]
    Threads(#[source] rayon::ThreadPoolBuildError),
    #[error("the config's game")]
    Game(#[source] gipfzero_games::SetupError),
    #[error(transparent)]
    Agents(#[from] crate::agents::AgentsError),
    #[error("init_from {from}: the network is {found:?}, the config's network {expected:?}")]
    InitShape {
        from: String,
        found: Box<checkpoint::NetworkShape>,
        expected: Box<checkpoint::NetworkShape>,
    },
}

/// Runs (or resumes) the training run `config` describes, start to end: libtorch's intra-op
/// threads and a worker pool as the config says (the inter-op pool is sized once per process,
/// before this call; see `gipfzero_model::ThreadSettings`), the game and variant it names,
/// self-play written as shards ([`ShardSelfPlay`]) and evaluation matches
/// ([`NetworkArena`]). `progress` sees each iteration's metrics as they are written.
pub fn train(config: &RunConfig, progress: impl FnMut(&IterationMetrics) + Send) -> Result<(), PipelineError> {
    on_the_configs_game(config, Train { config, progress })
}

/// Visits the config's game and variant with `visitor`, on a worker pool of the config's
/// threads, libtorch's intra-op threads set as the config says: the set-up of every run.
pub(crate) fn on_the_configs_game<T, V>(config: &RunConfig, visitor: V) -> Result<T, PipelineError>
where
    V: GameVisitor<Output = Result<T, PipelineError>> + Send,
    T: Send,
{
    tch::set_num_threads(config.threads.intra_op as i32);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.worker_threads())
        .build()
        .map_err(PipelineError::Threads)?;
    let game: GameName = config.game.parse().map_err(PipelineError::Game)?;
    let variant = (game == GameName::Zertz).then(|| config.variant_name().to_string());
    let setting = GameSetting { game, variant, setup: None, seed: None };
    let start = setting.start().map_err(PipelineError::Game)?;
    pool.install(|| start.visit(visitor))
}

/// [`train`] for whichever game the config names.
struct Train<'a, P> {
    config: &'a RunConfig,
    progress: P,
}

impl<P: FnMut(&IterationMetrics)> GameVisitor for Train<'_, P> {
    type Output = Result<(), PipelineError>;
    fn visit<G: Game>(self, start: G) -> Self::Output {
        let mut self_play = ShardSelfPlay::new(start.clone(), self.config);
        let mut arena = NetworkArena::new(start.clone(), self.config);
        run(self.config, &start, &mut self_play, &mut arena, self.progress)
    }
}

/// Runs (or resumes) the training run `config` on the variant of `start`. `progress` sees
/// each iteration's metrics as they are written.
pub fn run<G: Game>(
    config: &RunConfig,
    start: &G,
    self_play: &mut (impl SelfPlay<G> + Send),
    arena: &mut impl Arena<G>,
    progress: impl FnMut(&IterationMetrics),
) -> Result<(), PipelineError> {
    run_publishing(config, start, self_play, arena, &mut (), progress)
}

/// [`run`], telling `publish` of each commit point.
pub fn run_publishing<G: Game>(
    config: &RunConfig,
    start: &G,
    self_play: &mut (impl SelfPlay<G> + Send),
    arena: &mut impl Arena<G>,
    publish: &mut impl Publish,
    mut progress: impl FnMut(&IterationMetrics),
) -> Result<(), PipelineError> {
    let began = Instant::now();
    let spec = start.spec();
    let device = config.device_choice().resolve();
    let run = RunDir::new(&config.run_dir);
    let resume = run.open(config)?;
    run.prune_resume(resume.as_ref());
    // The lines of iterations after the commit point (written before a kill) go: those
    // iterations are played again.
    keep_committed_metrics(&run.metrics_path(), resume.as_ref().map_or(0, |state| state.iteration))?;
    let mut metrics = read_metrics(&run.metrics_path())?;
    // The champion's restart copy named by the last commit (kept until a new champion).
    // (A run directory of older builds named `checkpoints/best`, which every iteration
    // rewrites: its champion gets a restart copy in the first iteration.)
    let mut best_checkpoint = resume
        .as_ref()
        .and_then(|state| state.best.clone())
        .filter(|path| run.root().join(path).starts_with(run.resume_dir()));

    let mut next_generation = resume.as_ref().and_then(|state| state.next_generation.clone());
    let (mut trainer, mut window, mut seeds, mut best, first_iteration) = match resume {
        Some(state) => {
            let loaded = checkpoint::load(run.root().join(&state.checkpoint), spec, device)?;
            let trainer = Trainer::restore(loaded.network, &config.training, &loaded.training)?;
            let window = ReplayWindow::restore(&config.replay, &state.replay, |id| {
                self_play.load(&run, id)
            })?;
            let best = match &state.best {
                Some(path) => Some(checkpoint::load(run.root().join(path), spec, device)?.network),
                None => None,
            };
            let seeds = SplitMix64::new(state.next_self_play_seed);
            (trainer, window, seeds, best, state.iteration)
        }
        None => {
            tch::manual_seed(config.seed as i64);
            let network = match &config.init_from {
                Some(from) => initial_network(from, spec, &config.network, device)?,
                None => Network::new(spec, &config.network, device).map_err(PipelineError::Network)?,
            };
            let best = config
                .evaluation
                .gating
                .as_ref()
                .map(|_| network.copy_to(device));
            let trainer = Trainer::new(network, &config.training, config.seed ^ 0xA5A5);
            let window = ReplayWindow::new(&config.replay, config.seed ^ 0x5A5A);
            (trainer, window, SplitMix64::new(config.seed), best, 0)
        }
    };

    // CPU time of the processes before this one: the last committed iteration's (unknown if
    // an older build wrote it, and then unknown for the rest of the run).
    let cpu_before = match metrics.last() {
        None => Some(0.0),
        Some(last) => last.cpu_s,
    };

    // Every iteration redraws the plots; a run started again with none left to play redraws
    // them here, so that a finished run gets the charts of the build that reopens it.
    if first_iteration >= config.iterations && !metrics.is_empty() {
        run.plot(&metrics)?;
    }

    // The self-play side: played here, or in the background while SGD runs (`overlap`).
    let self_play = Mutex::new(self_play);
    let generate = |network: &Network, generation: u64, seed: u64| -> Result<(Generation, f64), PipelineError> {
        let began = Instant::now();
        let mut self_play = self_play.lock().unwrap_or_else(|e| e.into_inner());
        let played = self_play.generate(&run, network, generation, seed).map_err(|source| PipelineError::SelfPlay {
            generation,
            source: Box::new(source),
        })?;
        Ok((played, began.elapsed().as_secs_f64()))
    };
    let intra_op = config.threads.intra_op as i32;
    thread::scope(|scope| -> Result<(), PipelineError> {
        let mut background: Option<thread::ScopedJoinHandle<'_, Result<(Generation, f64), PipelineError>>> = None;
        for iteration in first_iteration..config.iterations {
            let previous = trainer.network().copy_to(device);

            // 1–2. Self-play into the window: the generation played in the background since the
            // last iteration, or the one a restart finds in play, or (first, or without overlap)
            // one played now by the newest network.
            let (generation, seconds) = match (background.take(), next_generation.take()) {
                (Some(handle), _) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?,
                (None, Some(state)) => {
                    let player = checkpoint::load(run.root().join(&state.player), spec, device)?.network;
                    generate(&player, state.generation, state.seed)?
                }
                (None, None) => {
                    let player = best.as_ref().unwrap_or(trainer.network());
                    generate(player, iteration as u64, seeds.next_u64())?
                }
            };
            // Overlap: the next generation is fixed now — its seed, and its player: the network as
            // it is before this iteration's SGD, with a restart copy for the commit point — and
            // starts at once unless this is the last iteration (a run extended later plays it).
            if config.overlap {
                let next = NextGeneration {
                    generation: iteration as u64 + 1,
                    seed: seeds.next_u64(),
                    player: relative(&run, &run.resume_player(iteration as u64 + 1)),
                };
                let player = best.as_ref().unwrap_or(trainer.network());
                checkpoint::save(run.root().join(&next.player), player, &Default::default())?;
                if iteration + 1 < config.iterations {
                    let player = player.copy_to(device);
                    let (generate, generation, seed) = (&generate, next.generation, next.seed);
                    background = Some(scope.spawn(move || {
                        // libtorch's OpenMP setting is per thread.
                        tch::set_num_threads(intra_op);
                        generate(&player, generation, seed)
                    }));
                }
                next_generation = Some(next);
            }
            let positions = generation.samples.len() as u64;
            let positions_resumed = positions.saturating_sub(generation.positions_played);
            let league = generation.league;
            let steps_wanted = (config.training.steps_per_iteration as f64 * generation.step_scale).round() as u32;
            window
                .add_generation(iteration as u64, generation.samples)
                .map_err(|source| PipelineError::SelfPlay {
                    generation: iteration as u64,
                    source: Box::new(source),
                })?;
            let self_play_metrics = SelfPlayMetrics {
                games: generation.games,
                positions,
                seconds,
                positions_per_second: generation.positions_played as f64 / seconds.max(1e-9),
                positions_resumed,
                mean_game_length: generation.actions as f64 / generation.games.max(1) as f64,
                window_positions: window.stored_positions() as u64,
                league,
            };

            // 3. SGD.
            let training_began = Instant::now();
            let mut steps = Vec::new();
            if window.ready() {
                for _ in 0..steps_wanted {
                    let Some(batch) = window.sample(config.training.batch_size) else {
                        break;
                    };
                    steps.push(trainer.train_step(start, &batch));
                }
            }
            let training = TrainingMetrics::from_steps(&steps, training_began.elapsed().as_secs_f64());

            // 4. Checkpoints.
            let state = trainer.training_state(&config.hash());
            let network = trainer.network();
            checkpoint::save(run.latest_checkpoint(), network, &state)?;
            let trainer_checkpoint = run.resume_trainer(iteration);
            checkpoint::save(&trainer_checkpoint, network, &state)?;
            if (iteration + 1) % config.checkpoints.every == 0 {
                checkpoint::save(run.iteration_checkpoint(iteration), network, &state)?;
                prune_checkpoints(&run, iteration, config.checkpoints.keep);
            }

            // 5. Evaluation and gating.
            let mut evaluations = Vec::new();
            let mut accepted = None;
            let evaluation = &config.evaluation;
            if evaluation.every > 0 && (iteration + 1) % evaluation.every == 0 {
                for opponent in &evaluation.opponents {
                    let loaded;
                    let opponent_network = match opponent {
                        Opponent::Previous => Some(&previous),
                        Opponent::Best => best.as_ref().or(Some(&previous)),
                        // A fixed network (`checkpoint:`, `model:`), or none for a baseline.
                        _ => {
                            loaded = fixed_network(opponent, spec, device)?;
                            loaded.as_ref()
                        }
                    };
                    let report = arena
                        .play(
                            network,
                            opponent,
                            opponent_network,
                            evaluation.games,
                            seeds.next_u64(),
                        )
                        .map_err(|source| PipelineError::Evaluation {
                            opponent: opponent.to_string(),
                            source: Box::new(source),
                        })?;
                    evaluations.push(EvaluationMetrics::new(&opponent.to_string(), &report));
                }
                if let (Some(gating), Some(champion)) = (&evaluation.gating, best.as_ref()) {
                    let games = gating.games.unwrap_or(evaluation.games);
                    let seed = seeds.next_u64();
                    let mut gate = |player: &Network, name: &str, opponent_network: Option<&Network>| {
                        arena
                            .play(player, &gating.against, opponent_network, games, seed)
                            .map(|report| EvaluationMetrics::new(name, &report))
                            .map_err(|source| PipelineError::Evaluation {
                                opponent: name.to_string(),
                                source: Box::new(source),
                            })
                    };
                    let wins = if gating.against == Opponent::Best {
                        let result = gate(network, "best (gating)", Some(champion))?;
                        let wins = result.score >= gating.threshold;
                        evaluations.push(result);
                        wins
                    } else {
                        // Both play the baseline (or the fixed network) over the same openings and
                        // seeds.
                        let against = gating.against.to_string();
                        let fixed = fixed_network(&gating.against, spec, device)?;
                        let new = gate(network, &format!("{against} (gating)"), fixed.as_ref())?;
                        let old = gate(champion, &format!("{against} (gating, best)"), fixed.as_ref())?;
                        let wins = new.score - old.score >= gating.threshold - 0.5;
                        evaluations.extend([new, old]);
                        wins
                    };
                    if wins {
                        best = Some(network.copy_to(device));
                    }
                    accepted = Some(wins);
                }
            }
            if let Some(champion) = &best {
                checkpoint::save(run.best_checkpoint(), champion, &Default::default())?;
                if accepted == Some(true) || best_checkpoint.is_none() {
                    let path = run.resume_best(iteration);
                    checkpoint::save(&path, champion, &Default::default())?;
                    best_checkpoint = Some(relative(&run, &path));
                }
            }

            // 6. Metrics, plots, then the commit point.
            let record = IterationMetrics {
                iteration,
                step: trainer.step_count(),
                elapsed_s: began.elapsed().as_secs_f64(),
                cpu_s: cpu_before.zip(process_cpu_seconds()).map(|(before, now)| before + now),
                self_play: self_play_metrics,
                training,
                evaluations,
                accepted,
            };
            run.append_metrics(&record)?;
            metrics.push(record);
            run.plot(&metrics)?;
            let committed = ResumeState {
                iteration: iteration + 1,
                step: trainer.step_count(),
                checkpoint: relative(&run, &trainer_checkpoint),
                best: best_checkpoint.clone(),
                replay: window.state(),
                next_self_play_seed: seeds.state(),
                next_generation: next_generation.clone(),
            };
            run.write_resume(&committed)?;
            run.prune_resume(Some(&committed));
            publish.committed(&run).map_err(PipelineError::Publish)?;
            progress(metrics.last().expect("just pushed"));
        }
        Ok(())
    })
}

/// The weights a run starts from when its config says `init_from` (a checkpoint path or
/// `model:NAME`): the network must have the config's shape.
fn initial_network(from: &str, spec: &gipfzero_games::Spec, config: &gipfzero_model::NetConfig, device: tch::Device) -> Result<Network, PipelineError> {
    let path = match from.strip_prefix("model:") {
        Some(name) => crate::agents::model_checkpoint(name)?,
        None => PathBuf::from(from),
    };
    let loaded = checkpoint::load(&path, spec, device)?;
    let expected = checkpoint::NetworkShape::new(spec, config);
    if loaded.info.shape != expected {
        return Err(PipelineError::InitShape { from: from.to_string(), found: Box::new(loaded.info.shape), expected: Box::new(expected) });
    }
    Ok(loaded.network)
}

/// The network of a `checkpoint:` or `model:` opponent; `None` for every other opponent.
pub(crate) fn fixed_network(opponent: &Opponent, spec: &gipfzero_games::Spec, device: tch::Device) -> Result<Option<Network>, PipelineError> {
    let path = match opponent {
        Opponent::Checkpoint(path) => path.clone(),
        Opponent::Model(name) => crate::agents::model_checkpoint(name)?,
        _ => return Ok(None),
    };
    Ok(Some(checkpoint::load(path, spec, device)?.network))
}

fn relative(run: &RunDir, path: &Path) -> PathBuf {
    path.strip_prefix(run.root())
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf())
}

/// Deletes numbered checkpoints beyond the `keep` most recent (0 keeps all).
fn prune_checkpoints(run: &RunDir, iteration: u32, keep: u32) {
    if keep == 0 || iteration < keep {
        return;
    }
    // Only the one that just fell out of the window: earlier ones were pruned before.
    let stale = run.iteration_checkpoint(iteration - keep);
    let paths = checkpoint::CheckpointPaths::new(&stale);
    // Best effort: a checkpoint already gone (or never written) is not an error.
    let _ = std::fs::remove_file(paths.sidecar);
    let _ = std::fs::remove_file(paths.weights);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunConfig;
    use crate::stats::{EloEstimate, MatchResults};
    use gipfzero_games::dvonn::Dvonn;
    use std::collections::HashMap;

    /// Self-play stand-in: random DVONN positions with random targets, by seed; "shards" are
    /// kept in memory, keyed by generation.
    struct FakeSelfPlay {
        stored: HashMap<u64, Samples>,
    }

    /// The stand-ins' error: a generation they never stored.
    #[derive(Debug, Error)]
    #[error("missing")]
    struct Missing;

    impl SelfPlay<Dvonn> for FakeSelfPlay {
        type Error = Missing;

        fn generate(
            &mut self,
            _run: &RunDir,
            _network: &Network,
            generation: u64,
            seed: u64,
        ) -> Result<Generation, Missing> {
            let start = Dvonn::new();
            let mut rng = SplitMix64::new(seed);
            let mut batch = Samples::new(start.spec());
            let mut legal = Vec::new();
            let mut observation = vec![0.0; start.spec().observation_len()];
            let mut position = start;
            while batch.len() < 40 {
                position.legal_actions(&mut legal);
                if legal.is_empty() {
                    position = start;
                    continue;
                }
                position.encode(&mut observation);
                batch.observations.extend_from_slice(&observation);
                let mut mask = vec![0u8; start.spec().action_count];
                for a in &legal {
                    mask[a.index()] = 1;
                }
                batch
                    .policy
                    .extend(mask.iter().map(|&m| m as f32 / legal.len() as f32));
                batch.legal_mask.extend(mask);
                batch
                    .outcome
                    .push(if rng.below(2) == 0 { 1.0 } else { -1.0 });
                batch.root_value.push(0.0);
                batch.game_id.push(0);
                batch.move_number.push(0);
                batch.full_search.push(1);
                position.apply(legal[rng.below(legal.len() as u64) as usize]);
            }
            self.stored.insert(generation, batch.clone());
            Ok(Generation {
                positions_played: batch.len() as u64,
                samples: batch,
                games: 1,
                actions: 40,
                league: Vec::new(),
                step_scale: 1.0,
            })
        }

        fn load(&mut self, _run: &RunDir, generation: u64) -> Result<Samples, Missing> {
            self.stored.get(&generation).cloned().ok_or(Missing)
        }
    }

    /// A match report of `wins` out of `games`, the rest lost (the Elo is not read).
    fn report(wins: u32, games: u32) -> MatchReport {
        MatchReport {
            results: MatchResults { wins, draws: 0, losses: games - wins },
            unfinished: 0,
            elo: EloEstimate { elo: 0.0, lower: -1.0, upper: 1.0 },
            sprt: None,
            games: Vec::new(),
        }
    }

    struct FakeArena {
        played: Vec<String>,
    }

    impl Arena<Dvonn> for FakeArena {
        type Error = Missing;

        fn play(
            &mut self,
            _network: &Network,
            opponent: &Opponent,
            opponent_network: Option<&Network>,
            games: u32,
            _seed: u64,
        ) -> Result<MatchReport, Missing> {
            assert_eq!(
                opponent_network.is_some(),
                matches!(
                    opponent,
                    Opponent::Previous | Opponent::Best | Opponent::Checkpoint(_) | Opponent::Model(_)
                )
            );
            self.played.push(opponent.to_string());
            Ok(report(games, games))
        }
    }

    fn config(dir: &Path, iterations: u32) -> RunConfig {
        let mut config = RunConfig::from_yaml(
            include_str!("../../configs/quick.yaml"),
            "configs/quick.yaml",
        )
        .unwrap();
        config.run_dir = dir.to_path_buf();
        config.iterations = iterations;
        config.evaluation.gating = Some(crate::config::GatingConfig {
            threshold: 0.55,
            games: Some(2),
            against: Opponent::Best,
        });
        config.evaluation.opponents = vec![Opponent::Random, Opponent::Previous, Opponent::Best];
        config
    }

    fn weights(path: &Path) -> Vec<(String, Vec<f32>)> {
        let loaded = checkpoint::load(path, Dvonn::new().spec(), tch::Device::Cpu).unwrap();
        let mut vars: Vec<_> = loaded
            .network
            .var_store()
            .variables()
            .into_iter()
            .map(|(name, t)| (name, Vec::<f32>::try_from(t.flatten(0, -1)).unwrap()))
            .collect();
        vars.sort_by(|a, b| a.0.cmp(&b.0));
        vars
    }

    #[test]
    fn interrupted_run_resumes_to_the_same_weights() {
        let _rng = crate::TORCH_RNG.lock().unwrap_or_else(|e| e.into_inner());
        tch::set_num_threads(1);
        resumes_to_the_same_weights(true);
        resumes_to_the_same_weights(false);
    }

    /// An uninterrupted run, one extended after two iterations and one killed before its
    /// third commit end with the same weights, with self-play and SGD overlapping or not.
    fn resumes_to_the_same_weights(overlap: bool) {
        let base = crate::fresh_test_dir(&format!("pipeline-overlap-{overlap}"));
        let start = Dvonn::new();
        let config = |dir: &Path, iterations: u32| RunConfig { overlap, ..config(dir, iterations) };

        // Uninterrupted: three iterations.
        let straight = base.join("straight");
        let mut self_play = FakeSelfPlay {
            stored: HashMap::new(),
        };
        let mut arena = FakeArena { played: Vec::new() };
        let mut seen = Vec::new();
        run(
            &config(&straight, 3),
            &start,
            &mut self_play,
            &mut arena,
            |m| seen.push(m.clone()),
        )
        .unwrap();
        assert_eq!(seen.len(), 3);
        assert!(
            seen.iter().all(|m| m.training.is_some()),
            "the window was ready every time"
        );
        assert_eq!(seen[2].step, 12);
        assert_eq!(seen[0].accepted, Some(true));
        assert_eq!(
            arena.played,
            ["random", "previous", "best", "best"].repeat(3)
        );
        let run_dir = RunDir::new(&straight);
        // (serde_json's float parsing may differ from the written value in the last bit.)
        let read = read_metrics(&run_dir.metrics_path()).unwrap();
        let key = |m: &IterationMetrics| (m.iteration, m.step, m.evaluations.len(), m.accepted);
        assert_eq!(
            read.iter().map(key).collect::<Vec<_>>(),
            seen.iter().map(key).collect::<Vec<_>>()
        );
        let loss = |m: &IterationMetrics| m.training.as_ref().unwrap().loss;
        assert!(read
            .iter()
            .zip(&seen)
            .all(|(a, b)| (loss(a) - loss(b)).abs() < 1e-12));
        assert!(run_dir.plots().join("learning.svg").exists());
        assert!(run_dir
            .iteration_checkpoint(2)
            .with_extension("json")
            .exists());

        // Interrupted after two iterations, then resumed (a new process: fresh stand-ins
        // that only know the stored generations).
        let resumed = base.join("resumed");
        let mut self_play = FakeSelfPlay {
            stored: HashMap::new(),
        };
        let mut arena = FakeArena { played: Vec::new() };
        let mut config_resumed = config(&resumed, 2);
        run(&config_resumed, &start, &mut self_play, &mut arena, |_| {}).unwrap();
        config_resumed.iterations = 3;
        let mut arena = FakeArena { played: Vec::new() };
        run(&config_resumed, &start, &mut self_play, &mut arena, |_| {}).unwrap();
        assert_eq!(arena.played.len(), 4, "only the third iteration was played");
        // CPU time adds up over the restart: the resumed process's own time (here the same
        // process, so at least all of the first's) on top of the second iteration's figure.
        let cpu: Vec<f64> = read_metrics(&RunDir::new(&resumed).metrics_path())
            .unwrap()
            .iter()
            .map(|m| m.cpu_s.expect("unix tells the process CPU time"))
            .collect();
        assert!(cpu[0] > 0.0 && cpu[0] <= cpu[1], "{cpu:?}");
        assert!(cpu[2] >= 2.0 * cpu[1], "the first process's time is carried over: {cpu:?}");
        // Started again when finished: nothing is played, the plots are drawn anew.
        let elo_plot = RunDir::new(&resumed).plots().join("elo.svg");
        std::fs::remove_file(&elo_plot).unwrap();
        let mut arena = FakeArena { played: Vec::new() };
        run(&config_resumed, &start, &mut self_play, &mut arena, |_| panic!("no iteration is left")).unwrap();
        assert!(arena.played.is_empty() && elo_plot.exists());
        assert_eq!(
            weights(&RunDir::new(&resumed).latest_checkpoint()),
            weights(&run_dir.latest_checkpoint())
        );

        // Killed at the last moment of the third iteration, just before its commit point:
        // its checkpoints, champion, metrics line and plots are written, resume.json is
        // still the second's. The restart must not train on top of the third's weights.
        let crashed = base.join("crashed");
        let crashed_dir = RunDir::new(&crashed);
        let mut self_play = FakeSelfPlay {
            stored: HashMap::new(),
        };
        let mut config_crashed = config(&crashed, 2);
        let mut arena = FakeArena { played: Vec::new() };
        run(&config_crashed, &start, &mut self_play, &mut arena, |_| {}).unwrap();
        // The files a commit names (the third's commit deletes the second's after it; a
        // crash before that commit leaves them, so the simulation puts them back).
        let named = |state: &ResumeState| crashed_dir.checkpoint_files(state);
        let second_state = crashed_dir.read_resume().unwrap().unwrap();
        let second: Vec<(PathBuf, Vec<u8>)> = named(&second_state)
            .into_iter()
            .chain([crashed_dir.resume_path()])
            .map(|path| (path.clone(), std::fs::read(&path).unwrap()))
            .collect();
        let after_second = weights(&crashed_dir.latest_checkpoint());
        let champion_after_second = weights(&crashed_dir.best_checkpoint());
        config_crashed.iterations = 3;
        run(&config_crashed, &start, &mut self_play, &mut arena, |_| {}).unwrap();
        assert_ne!(weights(&crashed_dir.latest_checkpoint()), after_second);
        assert_ne!(weights(&crashed_dir.best_checkpoint()), champion_after_second);
        // The third iteration wrote none of the files the second commit named.
        let third_state = crashed_dir.read_resume().unwrap().unwrap();
        assert!(named(&third_state).iter().all(|path| !named(&second_state).contains(path)));
        for (path, bytes) in &second {
            std::fs::write(path, bytes).unwrap();
        }
        assert_eq!(weights(&crashed.join(&second_state.checkpoint)), after_second);
        let mut arena = FakeArena { played: Vec::new() };
        let mut seen = Vec::new();
        run(&config_crashed, &start, &mut self_play, &mut arena, |m| seen.push(m.clone())).unwrap();
        assert_eq!(seen.len(), 1, "the third iteration is redone, once");
        assert_eq!(seen[0].step, 12, "no SGD step counted twice");
        assert_eq!(
            weights(&crashed_dir.latest_checkpoint()),
            weights(&run_dir.latest_checkpoint())
        );
        let read = read_metrics(&crashed_dir.metrics_path()).unwrap();
        assert_eq!(read.iter().map(|m| m.iteration).collect::<Vec<_>>(), [0, 1, 2]);
        // Only the copies the last commit names are left.
        let mut left: Vec<_> = std::fs::read_dir(crashed_dir.resume_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let mut expected = vec!["best-000002.json", "best-000002.safetensors"];
        if overlap {
            // The next generation's player, fixed for a run extended later.
            expected.extend(["player-000003.json", "player-000003.safetensors"]);
        }
        expected.extend(["trainer-000002.json", "trainer-000002.safetensors"]);
        assert_eq!(left, expected);
        std::fs::remove_dir_all(&base).ok();
    }

    /// A sum over a network's weights: tells networks apart.
    fn fingerprint(network: &Network) -> f64 {
        network
            .var_store()
            .variables()
            .values()
            .map(|t| t.abs().sum(tch::Kind::Double).double_value(&[]))
            .sum()
    }

    /// Scores scripted per call, and who played each call.
    struct ScriptedArena {
        wins: Vec<u32>,
        calls: Vec<(String, f64, u64)>,
    }

    impl Arena<Dvonn> for ScriptedArena {
        type Error = Missing;

        fn play(
            &mut self,
            network: &Network,
            opponent: &Opponent,
            opponent_network: Option<&Network>,
            games: u32,
            seed: u64,
        ) -> Result<MatchReport, Missing> {
            assert!(opponent_network.is_none(), "a baseline needs no network");
            let wins = self.wins[self.calls.len()];
            self.calls.push((opponent.to_string(), fingerprint(network), seed));
            Ok(report(wins, games))
        }
    }

    /// A generation that found most of its games stored (a restart in its self-play) reports
    /// the speed of what it played, and the rest as resumed.
    #[test]
    fn resumed_self_play_positions_are_not_counted_in_the_speed() {
        struct Resuming(FakeSelfPlay);
        impl SelfPlay<Dvonn> for Resuming {
            type Error = Missing;
            fn generate(&mut self, run: &RunDir, network: &Network, generation: u64, seed: u64) -> Result<Generation, Missing> {
                let mut played = self.0.generate(run, network, generation, seed)?;
                if generation == 0 {
                    played.positions_played = 10;
                }
                Ok(played)
            }
            fn load(&mut self, run: &RunDir, generation: u64) -> Result<Samples, Missing> {
                self.0.load(run, generation)
            }
        }
        let _rng = crate::TORCH_RNG.lock().unwrap_or_else(|e| e.into_inner());
        tch::set_num_threads(1);
        let dir = crate::fresh_test_dir("pipeline-resumed");
        let mut config = config(&dir, 2);
        config.evaluation.opponents.clear();
        config.evaluation.gating = None;
        let mut self_play = Resuming(FakeSelfPlay { stored: HashMap::new() });
        let mut seen = Vec::new();
        run(&config, &Dvonn::new(), &mut self_play, &mut FakeArena { played: Vec::new() }, |m| seen.push(m.clone())).unwrap();
        let speed = |m: &IterationMetrics| m.self_play.positions_per_second * m.self_play.seconds;
        assert_eq!((seen[0].self_play.positions, seen[0].self_play.positions_resumed), (40, 30));
        assert!((speed(&seen[0]) - 10.0).abs() < 1e-6, "{:?}", seen[0].self_play);
        assert_eq!((seen[1].self_play.positions, seen[1].self_play.positions_resumed), (40, 0));
        assert!((speed(&seen[1]) - 40.0).abs() < 1e-6, "{:?}", seen[1].self_play);
        let read = read_metrics(&RunDir::new(&dir).metrics_path()).unwrap();
        assert_eq!(read.iter().map(|m| m.self_play.positions_resumed).collect::<Vec<_>>(), [30, 0]);
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Self-play that notes which network played each generation, and on which thread.
    struct Recording {
        inner: FakeSelfPlay,
        players: Vec<f64>,
        threads: Vec<std::thread::ThreadId>,
    }

    impl SelfPlay<Dvonn> for Recording {
        type Error = Missing;
        fn generate(&mut self, run: &RunDir, network: &Network, generation: u64, seed: u64) -> Result<Generation, Missing> {
            self.players.push(fingerprint(network));
            self.threads.push(std::thread::current().id());
            self.inner.generate(run, network, generation, seed)
        }
        fn load(&mut self, run: &RunDir, generation: u64) -> Result<Samples, Missing> {
            self.inner.load(run, generation)
        }
    }

    #[test]
    fn overlapping_self_play_plays_each_generation_one_network_older_in_the_background() {
        let _rng = crate::TORCH_RNG.lock().unwrap_or_else(|e| e.into_inner());
        tch::set_num_threads(1);
        let base = crate::fresh_test_dir("pipeline-lag");
        let played = |overlap: bool| {
            let dir = base.join(format!("overlap-{overlap}"));
            let mut config = RunConfig { overlap, ..config(&dir, 4) };
            config.evaluation.opponents.clear();
            config.evaluation.gating = None;
            let mut self_play = Recording { inner: FakeSelfPlay { stored: HashMap::new() }, players: Vec::new(), threads: Vec::new() };
            tch::manual_seed(5);
            run(&config, &Dvonn::new(), &mut self_play, &mut FakeArena { played: Vec::new() }, |_| {}).unwrap();
            let run_dir = RunDir::new(&dir);
            // The network after each iteration (checkpoints every iteration in quick.yaml).
            let after: Vec<f64> = (0..4)
                .map(|i| fingerprint(&checkpoint::load(run_dir.iteration_checkpoint(i), Dvonn::new().spec(), tch::Device::Cpu).unwrap().network))
                .collect();
            (self_play.players, self_play.threads, after)
        };
        let here = std::thread::current().id();
        // Taking turns: generation g by the network after iteration g − 1, here.
        let (players, threads, after) = played(false);
        assert_eq!(players.len(), 4);
        assert_eq!(players[1..], after[..3]);
        assert!(threads.iter().all(|&t| t == here));
        // Overlapping: generations 0 and 1 by the initial network, then g by the one after
        // g − 2; all but the first in the background.
        let (players, threads, after) = played(true);
        assert_eq!(players.len(), 4);
        assert_eq!(players[0], players[1]);
        assert_eq!(players[2..], after[..2]);
        assert_eq!(threads[0], here);
        assert!(threads[1..].iter().all(|&t| t != here));
        std::fs::remove_dir_all(&base).ok();
    }

    #[test]
    fn a_run_starts_from_the_network_init_from_names() {
        let _rng = crate::TORCH_RNG.lock().unwrap_or_else(|e| e.into_inner());
        tch::set_num_threads(1);
        let base = crate::fresh_test_dir("pipeline-init");
        let quiet = |dir: &Path| {
            let mut config = config(dir, 1);
            config.evaluation.opponents.clear();
            config.evaluation.gating = None;
            config
        };
        let first_player = |config: &RunConfig| {
            let mut self_play = Recording { inner: FakeSelfPlay { stored: HashMap::new() }, players: Vec::new(), threads: Vec::new() };
            run(config, &Dvonn::new(), &mut self_play, &mut FakeArena { played: Vec::new() }, |_| {}).map(|()| self_play.players[0])
        };
        let source = quiet(&base.join("source"));
        first_player(&source).unwrap();
        let trained = RunDir::new(base.join("source")).latest_checkpoint();
        let network = checkpoint::load(&trained, Dvonn::new().spec(), tch::Device::Cpu).unwrap().network;

        let mut started = quiet(&base.join("started"));
        started.init_from = Some(trained.display().to_string());
        assert_eq!(first_player(&started).unwrap(), fingerprint(&network), "the first generation is played by the given network");
        let fresh = quiet(&base.join("fresh"));
        assert_ne!(first_player(&fresh).unwrap(), fingerprint(&network), "without init_from the weights are random");

        // A network of another shape is refused, naming both.
        let mut wider = quiet(&base.join("wider"));
        wider.init_from = started.init_from.clone();
        wider.network.channels *= 2;
        let error = first_player(&wider).unwrap_err();
        assert!(matches!(error, PipelineError::InitShape { .. }), "{error}");
        assert!(error.to_string().starts_with(&format!("init_from {}", trained.display())), "{error}");
        std::fs::remove_dir_all(&base).ok();
    }

    #[test]
    fn gating_against_a_baseline_keeps_the_network_that_scores_more() {
        let _rng = crate::TORCH_RNG.lock().unwrap_or_else(|e| e.into_inner());
        tch::set_num_threads(1);
        let dir = crate::fresh_test_dir("pipeline-gate");
        let mut config = config(&dir, 3);
        config.evaluation.opponents.clear();
        config.evaluation.gating = Some(crate::config::GatingConfig {
            threshold: 0.5,
            games: Some(4),
            against: Opponent::Rollout(8),
        });
        let mut self_play = FakeSelfPlay { stored: HashMap::new() };
        // (new, champion) wins out of 4: 3–1 accepted, 1–2 refused, 2–2 accepted (not worse).
        let mut arena = ScriptedArena { wins: vec![3, 1, 1, 2, 2, 2], calls: Vec::new() };
        let mut seen = Vec::new();
        run(&config, &Dvonn::new(), &mut self_play, &mut arena, |m| seen.push(m.clone())).unwrap();
        assert_eq!(seen.iter().map(|m| m.accepted).collect::<Vec<_>>(), [Some(true), Some(false), Some(true)]);
        let names: Vec<Vec<&str>> = seen.iter().map(|m| m.evaluations.iter().map(|e| e.opponent.as_str()).collect()).collect();
        assert_eq!(names, [["rollout:8 (gating)", "rollout:8 (gating, best)"]; 3]);
        let calls = &arena.calls;
        assert!(calls.iter().all(|(opponent, ..)| opponent == "rollout:8"));
        for pair in calls.chunks(2) {
            assert_eq!(pair[0].2, pair[1].2, "the new network and the champion meet the same openings");
            assert_ne!(pair[0].1, pair[1].1, "two different networks");
        }
        // The champion is the first iteration's network until the third replaces it.
        assert_eq!(calls[3].1, calls[0].1);
        assert_eq!(calls[5].1, calls[0].1);
        assert_eq!(weights(&RunDir::new(&dir).best_checkpoint()), weights(&RunDir::new(&dir).latest_checkpoint()));
        std::fs::remove_dir_all(&dir).ok();
    }
}
