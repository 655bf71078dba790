//! The glue of the training loop (this binary wires the crates together): implementations of
//! [`gipfzero_train::pipeline::SelfPlay`] (a generation of games played by the network through
//! an inference server, written as shards and read back) and
//! [`gipfzero_train::pipeline::Arena`] (evaluation matches of the network against baselines
//! or other networks). `gipfzero train` plugs them into the loop.
use std::path::{Path, PathBuf};
use std::time::Duration;

use gipfzero_games::Game;
use gipfzero_mcts::{parse_agent, Agent, MctsAgent, MixedEvaluator, RolloutEvaluator, SearchConfig};
use gipfzero_model::evaluator::NetworkEvaluator;
use gipfzero_model::inference::{InferenceServer, ServerConfig};
use gipfzero_model::{DeviceChoice, Network};
use gipfzero_train::config::{Opponent, RunConfig};
use gipfzero_train::evaluate::{opening, run_match, MatchReport, MatchSettings, Side};
use gipfzero_train::pipeline::{Arena, Generation, SelfPlay as PipelineSelfPlay};
use gipfzero_train::replay::Samples;
use gipfzero_train::run::RunDir;

use gipfzero_selfplay::generator::{league_tally, CapRule, LeagueConfig, SelfPlay, SelfPlayConfig};
use gipfzero_selfplay::shard::{read_shard, ShardData};

/// The directory of generation `generation`'s shards and records inside a run.
pub fn generation_dir(run: &RunDir, generation: u64) -> PathBuf {
    run.shards().join(format!("gen-{generation:06}"))
}

/// An inference server for `network` on the run's device, batching up to `max_batch`.
fn serve(network: &Network, device: &str, max_batch: usize) -> Result<InferenceServer, String> {
    let device: DeviceChoice = device.parse().map_err(|e| format!("{e}"))?;
    InferenceServer::spawn(
        network,
        ServerConfig {
            max_batch: max_batch.max(1),
            // The lockstep search sends whole batches: nothing is gained by waiting.
            max_wait: Duration::ZERO,
            device,
            ..ServerConfig::default()
        },
    )
    .map_err(|e| format!("cannot start the inference server: {e}"))
}

/// The network's evaluator with `rollout_mix` of one random playout blended into its values
/// (`SearchSettings::rollout_mix`; 0 plays no playouts and leaves the values alone).
pub(crate) fn leaf_evaluator(network: NetworkEvaluator, rollout_mix: f32, seed: u64) -> Result<MixedEvaluator<NetworkEvaluator>, String> {
    MixedEvaluator::new(network, RolloutEvaluator::new(1, seed), rollout_mix).map_err(|e| e.to_string())
}

/// Self-play generations written as shards under `<run>/shards/gen-NNNNNN/`.
pub struct ShardSelfPlay<G: Game> {
    start: G,
    config: RunConfig,
}

impl<G: Game> ShardSelfPlay<G> {
    pub fn new(start: G, config: &RunConfig) -> Result<Self, String> {
        Ok(ShardSelfPlay { start, config: config.clone() })
    }

    fn self_play_config(&self, seed: u64) -> SelfPlayConfig {
        let settings = &self.config.self_play;
        SelfPlayConfig {
            search: settings.search.to_search_config(),
            games_in_flight: settings.parallel_games.max(1) as usize,
            games: settings.games_per_iteration as u64,
            max_turns: settings.max_turns,
            cap_rule: CapRule::Draw,
            resign: None,
            positions_per_shard: 4096,
            seed,
            parallel: false,
            generator: "gipfzero train".into(),
            checkpoint: None,
            league: settings.league.as_ref().map(|league| LeagueConfig {
                share: league.share,
                opponents: league.opponents.iter().map(|o| o.to_string()).collect(),
            }),
        }
    }
}

/// Concatenates the shards of a generation directory (in name order) into one batch.
fn load_generation(directory: &Path, start: &impl Game) -> Result<Samples, String> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(directory)
        .map_err(|e| format!("{}: {e}", directory.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "npz"))
        .collect();
    names.sort();
    let mut batch = Samples::new(start.spec());
    for path in names {
        let shard: ShardData = read_shard(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let shape = (shard.samples.observation_len, shard.samples.action_count);
        if shape != (batch.observation_len, batch.action_count) {
            return Err(format!("{}: positions of another variant ({} for {})", path.display(), shard.info.variant, start.spec().variant));
        }
        batch.extend_from(&shard.samples);
    }
    Ok(batch)
}

impl<G: Game> PipelineSelfPlay<G> for ShardSelfPlay<G> {
    fn generate(&mut self, run: &RunDir, network: &Network, generation: u64, seed: u64) -> Result<Generation, String> {
        let directory = generation_dir(run, generation);
        let config = self.self_play_config(seed);
        let server = serve(network, &self.config.device, config.games_in_flight)?;
        let network_evaluator = NetworkEvaluator::new(server.handle(), self.start.spec()).map_err(|e| e.to_string())?;
        let evaluator = leaf_evaluator(network_evaluator, self.config.self_play.search.rollout_mix, seed)?;
        let mut generator = SelfPlay::new(self.start.clone(), config.clone(), &directory).map_err(|e| e.to_string())?;
        let summary = generator.run(&evaluator, &mut ()).map_err(|e| e.to_string())?;
        drop(server);
        let samples = load_generation(&directory, &self.start)?;
        let actions = samples.outcome.len() as u64;
        let league = league_tally(&directory, &config).map_err(|e| e.to_string())?;
        Ok(Generation {
            samples,
            games: (summary.games_resumed + summary.games_played) as u32,
            actions,
            positions_played: summary.positions,
            league,
        })
    }

    fn load(&mut self, run: &RunDir, generation: u64) -> Result<Samples, String> {
        load_generation(&generation_dir(run, generation), &self.start)
    }
}

/// Random turns opening each pair of evaluation games (see `gipfzero_train::evaluate::opening`).
const OPENING_TURNS: usize = 2;

/// Evaluation matches of the network with the run's evaluation search.
pub struct NetworkArena<G: Game> {
    start: G,
    config: RunConfig,
}

impl<G: Game> NetworkArena<G> {
    pub fn new(start: G, config: &RunConfig) -> Result<Self, String> {
        Ok(NetworkArena { start, config: config.clone() })
    }
}

fn network_agent<G: Game>(
    name: &str,
    server: &InferenceServer,
    spec: &'static gipfzero_games::Spec,
    search: &SearchConfig,
    rollout_mix: f32,
    seed: u64,
) -> Box<dyn Agent<G>> {
    let network = NetworkEvaluator::new(server.handle(), spec).expect("the server serves this game's spec");
    let evaluator = leaf_evaluator(network, rollout_mix, seed).expect("the rollout mix was validated with the config");
    Box::new(MctsAgent::new(name, evaluator, search.clone(), seed).expect("the evaluation search config was validated"))
}

impl<G: Game> Arena<G> for NetworkArena<G> {
    fn play(
        &mut self,
        network: &Network,
        opponent: &Opponent,
        opponent_network: Option<&Network>,
        games: u32,
        seed: u64,
    ) -> Result<MatchReport, String> {
        let evaluation = &self.config.evaluation;
        let search = evaluation.search.to_evaluation_search_config();
        let rollout_mix = evaluation.search.rollout_mix;
        // The match's own threads, one per game in flight: the games mostly wait on the
        // network, whose server batches the leaves of all of them.
        let threads = evaluation.parallel_games.max(1) as usize;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("arena-{i}"))
            .build()
            .map_err(|e| format!("cannot start the evaluation threads: {e}"))?;
        let server = serve(network, &self.config.device, threads)?;
        let opponent_server = opponent_network.map(|n| serve(n, &self.config.device, threads)).transpose()?;
        let baseline = opponent.is_baseline().then(|| opponent.to_string());
        if baseline.is_none() && opponent_server.is_none() {
            return Err(format!("no network given for opponent {opponent:?}"));
        }
        let spec = self.start.spec();
        let settings = MatchSettings { games, max_turns: evaluation.max_turns, ..MatchSettings::default() };
        let start = &self.start;
        pool.install(|| run_match(
            |pair| opening(start, OPENING_TURNS, seed.wrapping_add(pair as u64)),
            |side, game| {
                let agent_seed = seed ^ ((game as u64) << 16) ^ (side == Side::Second) as u64;
                match side {
                    Side::First => network_agent("network", &server, spec, &search, rollout_mix, agent_seed),
                    Side::Second => match (&baseline, &opponent_server) {
                        (Some(spec_text), _) => parse_agent::<G>(spec_text, agent_seed).expect("baseline specs are valid"),
                        (None, Some(opponent)) => network_agent("opponent", opponent, spec, &search, rollout_mix, agent_seed),
                        (None, None) => unreachable!("checked above"),
                    },
                }
            },
            &settings,
            |_| {},
        ))
        .map_err(|e| e.to_string())
    }
}
