//! Self-play generations on disk: the [`SelfPlay`] the training loop runs with.
//!
//! Generation `i` is played by the self-play crate's [`Generator`] with the network served
//! through [`ServedNetwork`] (the one factory of agents and evaluators) and written as shards
//! and records under `<run>/shards/gen-NNNNNN/`; the loop gets the positions back by reading
//! those shards, so a restarted run rebuilds its replay window from the same files, and a
//! generation cut short by a crash resumes the games it had stored (the generator skips them).
use std::path::{Path, PathBuf};

use gipfzero_games::Game;
use gipfzero_model::Network;
use gipfzero_mcts::{parse_agent, Agent};
use gipfzero_selfplay::generator::{league_tally, BoxError, Generator, GeneratorConfig, OpponentFactory};
use gipfzero_selfplay::shard::{read_shard, ShardData};
use thiserror::Error;

use crate::agents::{AgentsError, ServedNetwork};
use crate::config::{Opponent, RunConfig};
use crate::pipeline::{fixed_network, Generation, SelfPlay};
use crate::replay::Samples;
use crate::run::RunDir;

/// Why a generation could not be played or read back.
#[derive(Debug, Error)]
pub enum GenerationError {
    #[error(transparent)]
    Network(#[from] AgentsError),
    #[error(transparent)]
    SelfPlay(#[from] gipfzero_selfplay::SelfPlayError),
    #[error("{}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}", path.display())]
    Shard {
        path: PathBuf,
        #[source]
        source: gipfzero_selfplay::shard::ShardError,
    },
    #[error("{}: positions of another variant ({found} for {expected})", path.display())]
    Variant { path: PathBuf, found: String, expected: String },
    #[error("league opponent {name}")]
    Opponent {
        name: String,
        #[source]
        source: BoxError,
    },
}

/// The directory of generation `generation`'s shards and records inside a run.
pub fn generation_dir(run: &RunDir, generation: u64) -> PathBuf {
    run.shards().join(format!("gen-{generation:06}"))
}

/// Self-play generations written as shards under `<run>/shards/gen-NNNNNN/`.
pub struct ShardSelfPlay<G: Game> {
    start: G,
    config: RunConfig,
}

impl<G: Game> ShardSelfPlay<G> {
    pub fn new(start: G, config: &RunConfig) -> Self {
        ShardSelfPlay { start, config: config.clone() }
    }

    /// The generator's settings for one generation: the run's `self_play` block (its
    /// run-level fields from [`GeneratorConfig::training`]) with the generation's seed, searched
    /// by the run's workers (`threads.workers`).
    fn generator_config(&self, seed: u64) -> GeneratorConfig {
        GeneratorConfig { seed, workers: self.config.worker_threads(), ..self.config.self_play.clone() }
    }
}

/// The positions of a generation directory's shards as one batch, ordered by game id (the
/// shards' order depends on the order the workers finished the games in; the games do not).
fn load_generation(directory: &Path, start: &impl Game) -> Result<Samples, GenerationError> {
    let read_error = |source| GenerationError::Read { path: directory.to_path_buf(), source };
    let mut names: Vec<PathBuf> = std::fs::read_dir(directory)
        .map_err(read_error)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "npz"))
        .collect();
    names.sort();
    let mut batch = Samples::new(start.spec());
    for path in names {
        let shard: ShardData = read_shard(&path).map_err(|source| GenerationError::Shard { path: path.clone(), source })?;
        let shape = (shard.samples.observation_len, shard.samples.action_count);
        if shape != (batch.observation_len, batch.action_count) {
            return Err(GenerationError::Variant {
                path,
                found: shard.info.variant.to_string(),
                expected: start.spec().variant.to_string(),
            });
        }
        batch.extend_from(&shard.samples);
    }
    Ok(batch.sorted_by_game())
}

/// The league's opponents of a run's self-play: baselines from their spec, fixed networks
/// (`checkpoint:`, `model:`) served once for the generation (one replica per worker on a CPU,
/// all their games sharing it) and searching as the run's evaluation matches do.
pub(crate) fn league_opponents<G: Game>(start: &G, config: &RunConfig, workers: usize) -> Result<Box<OpponentFactory<G>>, GenerationError> {
    let names = config.self_play.league.as_ref().map(|league| league.opponents.clone()).unwrap_or_default();
    let spec = start.spec();
    let device = config.device_choice();
    let serving = config.serving().for_matches();
    let mut networks = Vec::new();
    for name in &names {
        let failed = |source: BoxError| GenerationError::Opponent { name: name.clone(), source };
        let opponent: Opponent = name.parse().map_err(|message: String| failed(message.into()))?;
        let network = fixed_network(&opponent, spec, device.resolve()).map_err(|e| failed(Box::new(e)))?;
        let served = network
            .map(|network| ServedNetwork::serve_in(&network, spec, serving, config.self_play.games_in_flight, workers))
            .transpose()?;
        networks.push(served);
    }
    let search = config.evaluation.search.for_evaluation();
    Ok(Box::new(move |index: usize, seed: u64| -> Result<Box<dyn Agent<G>>, BoxError> {
        match &networks[index] {
            Some(network) => Ok(Box::new(network.agent::<G>(names[index].clone(), &search, seed)?)),
            None => Ok(parse_agent::<G>(&names[index], seed)?),
        }
    }))
}

impl<G: Game> SelfPlay<G> for ShardSelfPlay<G> {
    type Error = GenerationError;

    fn generate(&mut self, run: &RunDir, network: &Network, generation: u64, seed: u64) -> Result<Generation, GenerationError> {
        let directory = generation_dir(run, generation);
        let config = self.generator_config(seed);
        let spec = self.start.spec();
        let served = ServedNetwork::serve_in(network, spec, self.config.serving(), config.games_in_flight, config.workers)?;
        let evaluator = served.evaluator(self.config.self_play.search.rollout_mix, seed)?;
        let opponents = league_opponents(&self.start, &self.config, config.workers)?;
        let mut generator = Generator::new(self.start.clone(), config.clone(), &directory)?.with_opponents(opponents);
        let summary = generator.run(&evaluator, &mut ())?;
        drop(served);
        let samples = load_generation(&directory, &self.start)?;
        let actions = samples.outcome.len() as u64;
        let league = league_tally(&directory, &config)?;
        Ok(Generation {
            samples,
            games: (summary.games_resumed + summary.games_played) as u32,
            actions,
            positions_played: summary.positions,
            league,
            step_scale: 1.0,
        })
    }

    fn load(&mut self, run: &RunDir, generation: u64) -> Result<Samples, GenerationError> {
        load_generation(&generation_dir(run, generation), &self.start)
    }
}

#[cfg(test)]
mod tests {
    use gipfzero_games::dvonn::Dvonn;

    use super::*;

    #[test]
    fn a_generation_is_the_same_whatever_the_workers() {
        // A real network behind the inference server (one replica per worker) and a league:
        // the samples of one, two and three workers agree to the bit, in the same order.
        let _rng = crate::TORCH_RNG.lock().unwrap_or_else(|e| e.into_inner());
        tch::set_num_threads(1);
        let mut config = RunConfig::from_yaml(include_str!("../../configs/quick.yaml"), "configs/quick.yaml").unwrap();
        config.self_play.games = 6;
        config.self_play.games_in_flight = 6;
        config.device = "cpu".into();
        let start = Dvonn::new();
        let base = crate::fresh_test_dir("generation-workers");
        let generate = |workers: usize, precision: &str| {
            let run = RunDir::new(base.join(format!("workers-{workers}-{precision}")));
            let config = RunConfig { threads: crate::config::ThreadsConfig { workers, ..config.threads.clone() }, precision: precision.into(), ..config.clone() };
            tch::manual_seed(3);
            let network = Network::new(start.spec(), &config.network, tch::Device::Cpu).unwrap();
            let generation = ShardSelfPlay::new(start, &config).generate(&run, &network, 0, 17).unwrap();
            (generation.samples, generation.games, generation.league)
        };
        let one = generate(1, "f32");
        assert_eq!(one.1, 6);
        assert!(one.0.len() > 100, "{} positions", one.0.len());
        for workers in [2, 3] {
            let many = generate(workers, "f32");
            assert!(many == one, "{workers} workers played other games");
        }
        // In bf16 too (other games than in f32: the values differ in their low bits).
        let one_bf16 = generate(1, "bf16");
        assert!(one_bf16 != one, "bf16 played the f32 games");
        assert!(generate(2, "bf16") == one_bf16, "2 workers played other bf16 games");
    }

    #[test]
    fn league_games_may_pit_the_network_against_a_fixed_network() {
        let _rng = crate::TORCH_RNG.lock().unwrap_or_else(|e| e.into_inner());
        tch::set_num_threads(1);
        let base = crate::fresh_test_dir("generation-league-network");
        let start = Dvonn::new();
        let mut config = RunConfig::from_yaml(include_str!("../../configs/quick.yaml"), "configs/quick.yaml").unwrap();
        config.device = "cpu".into();
        tch::manual_seed(4);
        let opponent = Network::new(start.spec(), &config.network, tch::Device::Cpu).unwrap();
        let path = base.join("opponent");
        std::fs::create_dir_all(&base).unwrap();
        gipfzero_model::checkpoint::save(&path, &opponent, &Default::default()).unwrap();
        let name = format!("checkpoint:{}", path.display());
        config.self_play.games = 4;
        config.self_play.league = Some(gipfzero_selfplay::LeagueConfig { share: 1.0, opponents: vec![name.clone()] });
        tch::manual_seed(5);
        let network = Network::new(start.spec(), &config.network, tch::Device::Cpu).unwrap();
        let run = RunDir::new(base.join("run"));
        let generation = ShardSelfPlay::new(start, &config).generate(&run, &network, 0, 3).unwrap();
        // Every game is a league game against the checkpoint, tallied and recorded by name.
        assert_eq!(generation.league.len(), 1);
        let tally = &generation.league[0];
        assert_eq!((tally.opponent.as_str(), tally.wins + tally.draws + tally.losses), (name.as_str(), 4));
        let records = std::fs::read_to_string(generation_dir(&run, 0).join(gipfzero_selfplay::RECORDS_FILE)).unwrap();
        assert_eq!(records.lines().count(), 4);
        assert!(records.lines().all(|line| line.contains(&format!("\"{name}\""))), "{records}");

        // A network that is not there stops the generation, naming it.
        config.self_play.league = Some(gipfzero_selfplay::LeagueConfig { share: 1.0, opponents: vec!["checkpoint:/nonexistent/net".into()] });
        let error = ShardSelfPlay::new(start, &config).generate(&RunDir::new(base.join("missing")), &network, 0, 3).unwrap_err();
        assert!(error.to_string().contains("league opponent checkpoint:/nonexistent/net"), "{error}");
        std::fs::remove_dir_all(&base).ok();
    }
}
