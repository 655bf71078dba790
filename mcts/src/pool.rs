//! Many searches in lockstep, one evaluator call per step.
//!
//! Two ways to drive a pool: [`SearchPool::run`] runs one whole search in every tree and
//! returns when the last one ends (every tree waits for the slowest); [`SearchPool::step`]
//! runs single steps, and the caller takes each search's result when it is done and begins
//! its next one at once (self-play does this: its games each go at their own pace).
//!
//! Why: a network evaluates 256 positions in about the time it takes for one, so self-play
//! plays many games at once and searches all their trees together. Each step every unfinished
//! search gathers its next leaf (or a few, kept apart by virtual loss), all leaves go to the
//! evaluator in ONE call, and every search backs up its own results. The descents and backups
//! of different trees are independent, so they may run on rayon's threads; whether that pays
//! depends on the game and the number of trees, hence the switch (off by default). Self-play
//! does not use it: its workers each run a pool of their own on a thread of their own
//! (`gipfzero_selfplay::generator`), which keeps every core busy without splitting a step.
//!
//! [`Search::run`], one search alone, is defined here too, as a pool of one: this module builds
//! on [`crate::search`], never the reverse.
//!
//! Measured (`cargo bench -p gipfzero-mcts --bench search -- --quick`, uniform evaluator, 400
//! simulations per tree, a 2-core machine shared with other builds, load ≈ 6): with Nim's
//! trivial move generator a step is about a microsecond per tree and rayon loses (16 trees:
//! 0.81 M simulations/s on one thread, 0.23 M with rayon; 64 trees: 0.69 M vs 0.39 M). With a
//! move generator costing a few microseconds, like a real engine's, rayon breaks even at 16
//! trees and wins slightly at 64 (0.21 M vs 0.22 M). Measure again with the real engines
//! before switching it on.
use gipfzero_games::Game;
use rayon::prelude::*;

use crate::evaluator::{LeafBatch, Evaluator};
use crate::search::{Search, SearchError, SearchResult};

/// Buffers of the lockstep loop, kept between runs to avoid reallocating.
#[derive(Debug)]
pub struct StepBuffers<G> {
    batch: LeafBatch<G>,
    values: Vec<f32>,
    policy: Vec<f32>,
    /// Per search: where its leaves start in `values` and in `policy`.
    offsets: Vec<(usize, usize)>,
}

impl<G> Default for StepBuffers<G> {
    fn default() -> Self {
        StepBuffers {
            batch: LeafBatch::default(),
            values: Vec::new(),
            policy: Vec::new(),
            offsets: Vec::new(),
        }
    }
}

/// Runs one search in every element of `searches` together, evaluating all their leaves of a
/// step in one evaluator call, and returns their results in order. With `parallel` the
/// descents and backups of the trees run on rayon's thread pool; the results are the same
/// either way (each tree has its own random stream).
pub fn run_lockstep<G: Game, E: Evaluator<G> + ?Sized>(
    searches: &mut [Search<G>],
    evaluator: &E,
    parallel: bool,
    buffers: &mut StepBuffers<G>,
) -> Result<Vec<SearchResult>, SearchError> {
    for search in searches.iter_mut() {
        search.begin()?;
    }
    loop {
        step(searches, evaluator, parallel, buffers)?;
        if searches.iter().all(|s| s.is_done()) {
            break;
        }
    }
    searches.iter_mut().map(|s| s.finish()).collect()
}

/// One step of every search in `searches` that is not done: each gathers its leaves, all of
/// them go to the evaluator in one call, and each search backs up its own answers. A search
/// that is done gathers nothing, so searches that began at different times, or with different
/// budgets, may share steps.
fn step<G: Game, E: Evaluator<G> + ?Sized>(
    searches: &mut [Search<G>],
    evaluator: &E,
    parallel: bool,
    buffers: &mut StepBuffers<G>,
) -> Result<(), SearchError> {
    // One chunk of trees per thread: a descent takes a microsecond or two, far less than what
    // rayon pays to hand out a task, so per-tree tasks would cost more than they save.
    let chunk = searches.len().div_ceil(rayon::current_num_threads()).max(1);
    if parallel {
        searches
            .par_chunks_mut(chunk)
            .for_each(|trees| trees.iter_mut().for_each(|s| s.gather()));
    } else {
        searches.iter_mut().for_each(|s| s.gather());
    }
    let StepBuffers {
        batch,
        values,
        policy,
        offsets,
    } = buffers;
    batch.clear();
    offsets.clear();
    for search in searches.iter() {
        offsets.push((batch.len(), batch.policy_len()));
        batch.extend_from(search.batch());
    }
    if batch.is_empty() {
        return Ok(());
    }
    values.clear();
    values.resize(batch.len(), 0.0);
    policy.clear();
    policy.resize(batch.policy_len(), 0.0);
    evaluator.evaluate(batch, values, policy)?;
    let (values, policy) = (&values[..], &policy[..]);
    let absorb = |(search, &(v, p)): (&mut Search<G>, &(usize, usize))| {
        let leaves = search.batch().len();
        let actions = search.batch().policy_len();
        search.absorb(&values[v..v + leaves], &policy[p..p + actions])
    };
    if parallel {
        searches
            .par_chunks_mut(chunk)
            .zip(offsets.par_chunks(chunk))
            .try_for_each(|(trees, offsets)| trees.iter_mut().zip(offsets).try_for_each(absorb))
    } else {
        searches.iter_mut().zip(offsets.iter()).try_for_each(absorb)
    }
}

impl<G: Game> Search<G> {
    /// Runs a whole search with `evaluator` alone (the same steps as in a pool of one).
    pub fn run<E: Evaluator<G> + ?Sized>(
        &mut self,
        evaluator: &E,
    ) -> Result<SearchResult, SearchError> {
        let mut results = run_lockstep(
            std::slice::from_mut(self),
            evaluator,
            false,
            &mut Default::default(),
        )?;
        Ok(results.remove(0))
    }
}

/// A set of searches (one per game in play) run in lockstep against one evaluator.
#[derive(Debug)]
pub struct SearchPool<G: Game> {
    searches: Vec<Search<G>>,
    parallel: bool,
    buffers: StepBuffers<G>,
}

impl<G: Game> Default for SearchPool<G> {
    fn default() -> Self {
        Self::new()
    }
}

impl<G: Game> SearchPool<G> {
    /// An empty pool whose steps run on one thread.
    pub fn new() -> Self {
        SearchPool {
            searches: Vec::new(),
            parallel: false,
            buffers: StepBuffers::default(),
        }
    }

    /// Whether descents and backups run on rayon's threads.
    pub fn set_parallel(&mut self, parallel: bool) {
        self.parallel = parallel;
    }

    pub fn push(&mut self, search: Search<G>) {
        self.searches.push(search);
    }

    /// The searches, to advance them after a step or to remove finished games.
    pub fn searches(&self) -> &[Search<G>] {
        &self.searches
    }

    pub fn searches_mut(&mut self) -> &mut Vec<Search<G>> {
        &mut self.searches
    }

    pub fn len(&self) -> usize {
        self.searches.len()
    }

    pub fn is_empty(&self) -> bool {
        self.searches.is_empty()
    }

    /// One search in every tree; the results in the order of the searches. Every search must
    /// stand on an unfinished game (remove finished ones first), else the run fails with
    /// [`SearchError::GameOver`] before any work is done.
    pub fn run<E: Evaluator<G> + ?Sized>(
        &mut self,
        evaluator: &E,
    ) -> Result<Vec<SearchResult>, SearchError> {
        run_lockstep(
            &mut self.searches,
            evaluator,
            self.parallel,
            &mut self.buffers,
        )
    }

    /// One step of the searches on their own clocks: every search that is not
    /// [`Search::is_done`] gathers its leaves, and all of them go to the evaluator in one
    /// call. The caller began each search ([`Search::begin`]) and, after the step, takes the
    /// result of each search that is done ([`Search::finish`]) and begins its next one, while
    /// the others go on. So no search waits for the slowest of the pool, as in
    /// [`SearchPool::run`]: with a playout cap (a few full searches among many cheap ones) or
    /// the solver ending searches early, the steps keep every tree's leaves and the batches
    /// stay as wide as the trees. A search's result is the same either way: it depends only on
    /// its own tree, its random stream and the answers to its own leaves.
    pub fn step<E: Evaluator<G> + ?Sized>(&mut self, evaluator: &E) -> Result<(), SearchError> {
        step(&mut self.searches, evaluator, self.parallel, &mut self.buffers)
    }
}
