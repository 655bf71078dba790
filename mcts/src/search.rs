//! One search tree over one game: PUCT, Gumbel AlphaZero or UCT, driven step by step.
//!
//! Why step by step: a [`Search`] never calls the evaluator itself. [`Search::gather`] walks
//! the tree down to one or a few leaves and puts them in the search's batch; whoever drives the
//! search (the lockstep loop of [`crate::pool`]) evaluates the batches of many searches in one
//! call and hands the results back with [`Search::absorb`]. [`Search::run`] drives a single
//! search as a pool of one, so a search alone and a search in a pool take the same steps; it
//! is written in `pool.rs`, which builds on this module, so that this module needs nothing of
//! the pool.
//!
//! One search is one *decision* (one action); an agent that owes a whole turn runs one search
//! per action of its turn ([`crate::agent::MctsAgent`]). Between decisions [`Search::advance`]
//! re-roots the tree on the action played.
use gipfzero_games::{Action, Game, Player, SplitMix64, Status};
use thiserror::Error;

use crate::config::{InvalidSetting, GumbelConfig, RootPolicy, SearchConfig};
use crate::evaluator::{LeafBatch, EvalError};
use crate::noise;
use crate::tree::{NodeKind, Tree, EDGE_BYTES, NODE_BYTES};

/// Why a search could not run or produced no result.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SearchError {
    #[error("the game is over: there is no decision to search")]
    GameOver,
    #[error(transparent)]
    Evaluator(#[from] EvalError),
    #[error("the evaluator returned a value that is not a finite number: {0}")]
    BadValue(f32),
    #[error("action {0} is not legal at the root")]
    IllegalAction(u16),
    #[error(transparent)]
    Config(#[from] InvalidSetting),
    #[error("the search has not finished: its root was never evaluated")]
    Unfinished,
}

/// What a search found about its root: the training targets and the decision.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The player who decides at the root.
    pub to_move: Player,
    /// The legal actions at the root, in `legal_actions` order.
    pub actions: Vec<Action>,
    /// Visits of each root action, including those inherited by tree reuse.
    pub visits: Vec<u32>,
    /// The policy target over `actions`: visit proportions (PUCT, UCT) or Gumbel's improved
    /// policy softmax(logits + σ(completed Q)). Sums to 1.
    pub policy_target: Vec<f32>,
    /// The root's value for `to_move`, in [-1, 1]: the mean backed-up value (PUCT, UCT), or
    /// the improved policy's expectation of the completed Q values (Gumbel).
    pub root_value: f32,
    /// The action to play.
    pub action: Action,
    /// True when the search had the full budget, so that `policy_target` is meant for training
    /// (always true without playout-cap randomisation).
    pub full_search: bool,
    /// Simulations run by this search (inherited visits not counted).
    pub simulations: u32,
    /// Of those, the ones that ended in an evaluation; the others ended on a game end or a
    /// node the solver had proven, and cost next to nothing (a search of a proven position
    /// takes microseconds: what a time budget must know to size the next one).
    pub evaluated: u32,
    /// The simulations the search was given: [`SearchConfig::simulations`], or the playout
    /// cap's cheap budget. `simulations` falls short of it when the search stopped once its
    /// choice was settled ([`SearchConfig::stop_when_decided`]).
    pub budget: u32,
}

/// Gumbel's per-search root state.
#[derive(Clone, Debug, Default)]
struct GumbelRoot {
    /// g(a) for each root edge (zero without noise).
    noise: Vec<f32>,
    /// For simulation i, the visit count (this search) an action must have to be chosen:
    /// sequential halving as a table.
    schedule: Vec<u32>,
    /// Visits of each root edge during this search, in-flight ones included.
    visits: Vec<u32>,
}

/// One search tree with its root position, settings and random stream.
#[derive(Clone, Debug)]
pub struct Search<G: Game> {
    config: SearchConfig,
    position: G,
    tree: Tree,
    rng: SplitMix64,
    move_number: u32,
    // The search in progress.
    budget: u32,
    started: u32,
    completed: u32,
    /// Simulations of this search that ended in an evaluation.
    evaluated: u32,
    full_search: bool,
    prepared: bool,
    root_noised: bool,
    gumbel: GumbelRoot,
    // Buffers reused from step to step.
    legal: Vec<Action>,
    scratch: Vec<f32>,
    scratch2: Vec<f32>,
    batch: LeafBatch<G>,
    pending: Vec<u32>,
}

/// Smallest logit: ln of a zero prior, kept finite so that arithmetic on it stays defined.
const MIN_LOGIT: f32 = -1e9;

/// Move temperatures below this play the most visited action (no sampling): what
/// [`Search::finish`] does, and what a search that stops once settled relies on.
const GREEDY_TEMPERATURE: f32 = 1e-3;

fn logit(prior: f32) -> f32 {
    if prior > 0.0 {
        prior.ln()
    } else {
        MIN_LOGIT
    }
}

/// Softmax of `x` in place.
fn softmax(x: &mut [f32]) {
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in x.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    for v in x.iter_mut() {
        *v /= sum;
    }
}

/// Index of the largest `score(i)` over `0..n` for which it is `Some`, first on ties.
fn argmax_by(n: usize, mut score: impl FnMut(usize) -> Option<f32>) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for i in 0..n {
        if let Some(s) = score(i) {
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((i, s));
            }
        }
    }
    best.map(|(i, _)| i)
}

/// The sequential-halving schedule of Gumbel AlphaZero as a table (after `mctx`'s
/// `get_sequence_of_considered_visits`): simulation `i` goes to the best action, by
/// g + logits + σ(q̂), among those visited exactly `table[i]` times so far in this search.
/// Phase after phase every surviving action gets the same number of visits and half of them
/// survive, until the budget is spent.
pub fn considered_visits(max_considered: u32, simulations: u32) -> Vec<u32> {
    if max_considered <= 1 {
        return (0..simulations).collect();
    }
    let log2max = (max_considered as f64).log2().ceil() as u32;
    let mut sequence = Vec::with_capacity(simulations as usize);
    let mut visits = vec![0u32; max_considered as usize];
    let mut considered = max_considered as usize;
    while sequence.len() < simulations as usize {
        let extra = (simulations / (log2max * considered as u32)).max(1);
        for _ in 0..extra {
            sequence.extend_from_slice(&visits[..considered]);
            for v in &mut visits[..considered] {
                *v += 1;
            }
        }
        considered = (considered / 2).max(2);
    }
    sequence.truncate(simulations as usize);
    sequence
}

/// Writes the completed Q values of the edges of `node` into `out` (Danihelka et al. 2022,
/// eq. 10, with `mctx`'s mixed value): a visited edge keeps its Q; an unvisited one gets v_mix,
/// the node's raw value mixed with the prior-weighted Q of the visited edges. Returns the
/// largest visit count, which σ needs.
fn completed_q(tree: &Tree, node: u32, out: &mut Vec<f32>) -> u32 {
    let raw_value = tree.node(node).raw_value;
    let edges = tree.edges_of(node);
    let (mut visits, mut visited_prior, mut weighted_q, mut max_visits) =
        (0u32, 0.0f32, 0.0f32, 0u32);
    for e in edges {
        if let Some(q) = e.q() {
            visits += e.visits;
            visited_prior += e.prior;
            weighted_q += e.prior * q;
            max_visits = max_visits.max(e.visits);
        }
    }
    let v_mix = if visits > 0 && visited_prior > 0.0 {
        (raw_value + visits as f32 * weighted_q / visited_prior) / (visits as f32 + 1.0)
    } else {
        raw_value
    };
    out.clear();
    out.extend(edges.iter().map(|e| e.q().unwrap_or(v_mix)));
    max_visits
}

/// σ of completed Q values in place: (c_visit + max_b N(b)) · c_scale · q, after an optional
/// min–max rescaling to [0, 1] (as `mctx` does, so c_scale means the same whatever the spread).
fn sigma(q: &mut [f32], max_visits: u32, cfg: &GumbelConfig) {
    if cfg.rescale_values {
        let min = q.iter().copied().fold(f32::INFINITY, f32::min);
        let max = q.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let spread = (max - min).max(1e-8);
        q.iter_mut().for_each(|v| *v = (*v - min) / spread);
    }
    let scale = (cfg.c_visit + max_visits as f32) * cfg.c_scale;
    q.iter_mut().for_each(|v| *v *= scale);
}

/// σ(completed Q) for the edges of `node`, into `out`.
fn sigma_completed_q(tree: &Tree, node: u32, cfg: &GumbelConfig, out: &mut Vec<f32>) {
    let max_visits = completed_q(tree, node, out);
    sigma(out, max_visits, cfg);
}

impl<G: Game> Search<G> {
    /// A search rooted at `position` (any position, also inside a turn), seeded for its noise
    /// and its temperature draws.
    pub fn new(position: G, config: SearchConfig, seed: u64) -> Result<Self, InvalidSetting> {
        config.validate()?;
        Ok(Search {
            tree: Tree::new(position.to_move()),
            position,
            config,
            rng: SplitMix64::new(seed),
            move_number: 0,
            budget: 0,
            started: 0,
            completed: 0,
            evaluated: 0,
            full_search: true,
            prepared: false,
            root_noised: false,
            gumbel: GumbelRoot::default(),
            legal: Vec::new(),
            scratch: Vec::new(),
            scratch2: Vec::new(),
            batch: LeafBatch::new(),
            pending: Vec::new(),
        })
    }

    /// The root position.
    pub fn position(&self) -> &G {
        &self.position
    }

    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Changes the simulations of the searches to come (the tree stays), refusing a count
    /// the settings do not allow.
    pub fn set_simulations(&mut self, simulations: u32) -> Result<(), InvalidSetting> {
        let config = SearchConfig { simulations, ..self.config.clone() };
        config.validate()?;
        self.config = config;
        Ok(())
    }

    /// The number of the next decision in the game (0-based, counting actions), which selects
    /// the temperature. [`Search::advance`] counts up; set it when starting mid-game.
    pub fn move_number(&self) -> u32 {
        self.move_number
    }

    pub fn set_move_number(&mut self, move_number: u32) {
        self.move_number = move_number;
    }

    /// Starts again from `position` with an empty tree (a new game), keeping the buffers.
    pub fn reset(&mut self, position: G) {
        // The waiting leaves (if an evaluation failed) belong to the tree being dropped.
        self.pending.clear();
        self.batch.clear();
        self.tree.reset(position.to_move());
        self.position = position;
        self.move_number = 0;
        self.root_noised = false;
        self.prepared = false;
    }

    /// Nodes and edges in the tree.
    pub fn tree_size(&self) -> (usize, usize) {
        (self.tree.nodes.len(), self.tree.edges.len())
    }

    /// Bytes used by the tree's nodes and edges (not counting spare capacity).
    pub fn tree_bytes(&self) -> usize {
        self.tree.nodes.len() * NODE_BYTES + self.tree.edges.len() * EDGE_BYTES
    }

    /// Visits the root has accumulated (including those inherited by tree reuse).
    pub fn root_visits(&self) -> u32 {
        self.tree.node(Tree::ROOT).visits
    }

    /// Starts a search: draws the budget (playout cap) and prepares the root if it is already
    /// expanded. Fails if the game is over.
    pub fn begin(&mut self) -> Result<(), SearchError> {
        if self.position.status().is_over() {
            return Err(SearchError::GameOver);
        }
        self.full_search = match &self.config.playout_cap {
            Some(cap) => self.rng.unit_f64() < cap.full_probability as f64,
            None => true,
        };
        self.budget = match (&self.config.playout_cap, self.full_search) {
            (Some(cap), false) => cap.cheap_simulations,
            _ => self.config.simulations,
        };
        self.started = 0;
        self.completed = 0;
        self.evaluated = 0;
        self.prepared = false;
        self.abandon_pending();
        if self.tree.node(Tree::ROOT).kind == NodeKind::Expanded {
            self.prepare_root();
        }
        Ok(())
    }

    /// True when the budget is spent (or the choice settled, with
    /// [`SearchConfig::stop_when_decided`]) and nothing waits for an evaluation.
    pub fn is_done(&self) -> bool {
        self.prepared && self.pending.is_empty() && (self.completed >= self.budget || self.decided())
    }

    /// With [`SearchConfig::stop_when_decided`]: true when the search will play the most
    /// visited root action and no other can catch up in the simulations not yet started
    /// (the in-flight ones already count in the visits), or the root has a single action.
    fn decided(&self) -> bool {
        if !self.config.stop_when_decided
            || self.config.root_policy == RootPolicy::Gumbel
            || self.config.temperature_at(self.move_number) >= GREEDY_TEMPERATURE
            || self.tree.node(Tree::ROOT).kind != NodeKind::Expanded
        {
            return false;
        }
        let edges = self.tree.edges_of(Tree::ROOT);
        if edges.len() == 1 {
            return true;
        }
        let (mut most, mut next) = (0u32, 0u32);
        for e in edges {
            if e.visits > most {
                next = most;
                most = e.visits;
            } else if e.visits > next {
                next = e.visits;
            }
        }
        // Strictly ahead: a tie would go to the larger prior, which may be the other's.
        most > next + self.budget.saturating_sub(self.started)
    }

    /// The leaves waiting for evaluation, filled by [`Search::gather`].
    pub fn batch(&self) -> &LeafBatch<G> {
        &self.batch
    }

    /// Root noise (PUCT) or Gumbel samples and schedule, once per search, once the root's
    /// priors are known.
    fn prepare_root(&mut self) {
        let range = self.tree.edge_range(Tree::ROOT);
        let n = range.len();
        match self.config.root_policy {
            RootPolicy::Puct => {
                if let (Some(noise), true, false) =
                    (&self.config.dirichlet, self.full_search, self.root_noised)
                {
                    if n > 1 {
                        let alpha = noise.alpha_scale as f64 / n as f64;
                        self.scratch.resize(n, 0.0);
                        noise::dirichlet(&mut self.rng, alpha, &mut self.scratch);
                        for (edge, eta) in self.tree.edges[range].iter_mut().zip(&self.scratch) {
                            edge.prior = (1.0 - noise.epsilon) * edge.prior + noise.epsilon * eta;
                        }
                    }
                    self.root_noised = true;
                }
            }
            RootPolicy::Gumbel => {
                let g = &self.config.gumbel;
                // g(a) scaled by the move's temperature T: the top-m of logits + T·g are m
                // draws without replacement from the prior at temperature T, so the schedule
                // that cools PUCT's visit sampling cools the Gumbel root's choice the same
                // way (T = 0: the deterministic top-m, as in evaluation).
                let scale = if g.noise {
                    self.config.temperature_at(self.move_number)
                } else {
                    0.0
                };
                let rng = &mut self.rng;
                self.gumbel.noise.clear();
                self.gumbel.noise.extend((0..n).map(|_| {
                    if scale > 0.0 {
                        scale * noise::gumbel(rng)
                    } else {
                        0.0
                    }
                }));
                let m = g.max_considered.min(n as u32);
                self.gumbel.schedule = considered_visits(m, self.budget);
                self.gumbel.visits.clear();
                self.gumbel.visits.resize(n, 0);
            }
            RootPolicy::Ucb1 => {}
        }
        self.prepared = true;
    }

    /// Collects up to `leaves_per_tree` leaves into [`Search::batch`]; leaves that are game ends
    /// are backed up at once. Gathers nothing when the search is done.
    pub fn gather(&mut self) {
        self.abandon_pending();
        match self.tree.node(Tree::ROOT).kind {
            NodeKind::Unexpanded => {
                // A fresh root is evaluated before the simulations start (not one of them).
                self.position.legal_actions(&mut self.legal);
                self.batch.push(self.position.clone(), &self.legal);
                self.pending.push(Tree::ROOT);
                self.tree.node_mut(Tree::ROOT).kind = NodeKind::Pending;
                return;
            }
            NodeKind::Pending | NodeKind::Terminal => return,
            NodeKind::Expanded => {}
        }
        if !self.prepared {
            self.prepare_root();
        }
        while (self.pending.len() as u32) < self.config.leaves_per_tree
            && self.started < self.budget
            && !self.decided()
        {
            if !self.descend() {
                break;
            }
        }
    }

    /// Takes back the leaves of a step whose evaluation never came (the evaluator failed), so
    /// that the tree is consistent and they can be chosen again.
    fn abandon_pending(&mut self) {
        let virtual_loss = self.config.virtual_loss;
        for &node in &self.pending {
            if self.tree.node(node).kind == NodeKind::Pending {
                self.tree.node_mut(node).kind = NodeKind::Unexpanded;
                self.tree.undo_descent(node, virtual_loss);
            }
        }
        self.pending.clear();
        self.batch.clear();
    }

    /// One descent from the root. Returns false on a collision with a leaf already waiting.
    fn descend(&mut self) -> bool {
        let virtual_loss = self.config.virtual_loss;
        let mut node = Tree::ROOT;
        let mut position = self.position.clone();
        let mut root_edge = None;
        loop {
            let proof = self.tree.node(node).proof;
            if proof != 0 && node != Tree::ROOT && self.tree.node(node).kind == NodeKind::Expanded {
                // A proven node is worth its result exactly: nothing under it is searched.
                self.tree.backup(node, proof as f32, virtual_loss);
                self.started += 1;
                self.completed += 1;
                return true;
            }
            match self.tree.node(node).kind {
                NodeKind::Expanded => {
                    let edge = self.select(node);
                    self.tree.enter(edge, virtual_loss);
                    if node == Tree::ROOT {
                        let slot = edge - self.tree.node(Tree::ROOT).first_edge as usize;
                        if let Some(v) = self.gumbel_visits_mut(slot) {
                            *v += 1;
                        }
                        root_edge = Some(slot);
                    }
                    position.apply(self.tree.edges[edge].action);
                    node = self.tree.child(node, edge, position.to_move());
                }
                NodeKind::Unexpanded => {
                    if let Status::Over(outcome) = position.status() {
                        let value = outcome.value_for(self.tree.node(node).to_move);
                        let n = self.tree.node_mut(node);
                        n.kind = NodeKind::Terminal;
                        n.raw_value = value;
                        self.tree.backup(node, value, virtual_loss);
                        self.started += 1;
                        self.completed += 1;
                    } else {
                        position.legal_actions(&mut self.legal);
                        if self.config.skip_forced && self.legal.len() == 1 && node != Tree::ROOT {
                            // A forced position: expanded without an evaluation (its value
                            // is its only child's), and the descent goes on through it; the
                            // simulation is counted where it ends.
                            self.tree.expand(node, &self.legal, &[1.0], 0.0);
                            self.note_terminal_children(node, &position);
                            continue;
                        }
                        self.started += 1;
                        self.batch.push(position, &self.legal);
                        self.pending.push(node);
                        self.tree.node_mut(node).kind = NodeKind::Pending;
                    }
                    return true;
                }
                NodeKind::Terminal => {
                    self.started += 1;
                    let value = self.tree.node(node).raw_value;
                    self.tree.backup(node, value, virtual_loss);
                    self.completed += 1;
                    return true;
                }
                NodeKind::Pending => {
                    self.tree.undo_descent(node, virtual_loss);
                    if let Some(v) = root_edge.and_then(|slot| self.gumbel_visits_mut(slot)) {
                        *v -= 1;
                    }
                    return false;
                }
            }
        }
    }

    fn gumbel_visits_mut(&mut self, slot: usize) -> Option<&mut u32> {
        match self.config.root_policy {
            RootPolicy::Gumbel => self.gumbel.visits.get_mut(slot),
            _ => None,
        }
    }

    /// MCTS-solver: the children of a freshly expanded `node` (at `position`) that end the
    /// game become proven terminal nodes at once, so that a win one action away is known
    /// before any simulation goes there, whatever its prior.
    fn note_terminal_children(&mut self, node: u32, position: &G) {
        if !self.config.solver {
            return;
        }
        for edge in self.tree.edge_range(node) {
            let mut child = position.clone();
            child.apply(self.tree.edges[edge].action);
            if let Status::Over(outcome) = child.status() {
                let to_move = child.to_move();
                self.tree.terminal_child(node, edge, to_move, outcome.value_for(to_move));
            }
        }
    }

    /// With the solver, the slot of `node` proven won for the player choosing there (the one
    /// with the most visits, then the largest prior), if any.
    fn won_slot(&self, node: u32) -> Option<usize> {
        if !self.config.solver {
            return None;
        }
        self.most_visited_slot(node, |proof| proof > 0)
    }

    /// `slot` of `node`, unless the solver proved it lost while another slot is not: then
    /// the slot not proven lost with the most visits, then the largest prior.
    fn avoid_lost_slot(&self, node: u32, slot: usize) -> usize {
        let edges = self.tree.edges_of(node);
        if !self.config.solver || self.tree.edge_proof(node, &edges[slot]) >= 0 {
            return slot;
        }
        self.most_visited_slot(node, |proof| proof >= 0).unwrap_or(slot)
    }

    /// Among the slots of `node` whose proof (for the chooser) `keep` accepts, the one with
    /// the most visits, then the largest prior.
    fn most_visited_slot(&self, node: u32, keep: impl Fn(i8) -> bool) -> Option<usize> {
        let edges = self.tree.edges_of(node);
        argmax_by(edges.len(), |i| {
            keep(self.tree.edge_proof(node, &edges[i])).then(|| edges[i].visits as f32 + edges[i].prior)
        })
    }

    /// The edge (arena index) the descent takes at `node`: a proven win for the chooser when
    /// there is one, else the root policy's choice, steered off a proven loss.
    fn select(&mut self, node: u32) -> usize {
        let first = self.tree.node(node).first_edge as usize;
        if let Some(slot) = self.won_slot(node) {
            return first + slot;
        }
        let slot = match self.config.root_policy {
            RootPolicy::Puct => self.select_puct(node),
            RootPolicy::Ucb1 => self.select_ucb1(node, self.config.ucb1.exploration),
            RootPolicy::Gumbel if node == Tree::ROOT => {
                let g = self.config.gumbel.clone();
                self.select_gumbel_root(&g)
            }
            RootPolicy::Gumbel => {
                let g = self.config.gumbel.clone();
                self.select_gumbel_interior(node, &g)
            }
        };
        first + self.avoid_lost_slot(node, slot)
    }

    /// PUCT with the AlphaZero growth term and first-play urgency.
    fn select_puct(&self, node: u32) -> usize {
        let cfg = &self.config;
        let n = self.tree.node(node);
        let edges = self.tree.edges_of(node);
        let parent_q = if n.visits > 0 {
            n.value_sum / n.visits as f32
        } else {
            0.0
        };
        let (mut total, mut visited_mass) = (0u32, 0.0f32);
        for e in edges {
            total += e.visits;
            if e.visits > 0 {
                visited_mass += e.prior;
            }
        }
        let reduction = if node == Tree::ROOT {
            cfg.root_fpu_reduction
        } else {
            cfg.fpu_reduction
        };
        let fpu = parent_q - reduction * visited_mass.sqrt();
        let c = cfg.c_puct + ((total as f32 + cfg.c_base + 1.0) / cfg.c_base).ln();
        let scale = c * (total.max(1) as f32).sqrt();
        argmax_by(edges.len(), |i| {
            let e = &edges[i];
            Some(e.q().unwrap_or(fpu) + scale * e.prior / (1.0 + e.visits as f32))
        })
        .unwrap_or(0)
    }

    /// UCB1: every action once (in order), then Q + c·sqrt(ln N / n).
    fn select_ucb1(&self, node: u32, exploration: f32) -> usize {
        let edges = self.tree.edges_of(node);
        if let Some(unvisited) = edges.iter().position(|e| e.visits == 0) {
            return unvisited;
        }
        let log_total = (edges.iter().map(|e| e.visits).sum::<u32>() as f32).ln();
        argmax_by(edges.len(), |i| {
            let e = &edges[i];
            Some(e.value_sum / e.visits as f32 + exploration * (log_total / e.visits as f32).sqrt())
        })
        .unwrap_or(0)
    }

    /// Sequential halving: the best action by g + logits + σ(q̂) among those with the visit
    /// count the schedule asks for.
    fn select_gumbel_root(&mut self, cfg: &GumbelConfig) -> usize {
        sigma_completed_q(&self.tree, Tree::ROOT, cfg, &mut self.scratch);
        let edges = self.tree.edges_of(Tree::ROOT);
        let schedule = &self.gumbel.schedule;
        let wanted = schedule
            .get(self.started as usize)
            .or(schedule.last())
            .copied()
            .unwrap_or(0);
        let visits = &self.gumbel.visits;
        let score = |i: usize| self.gumbel.noise[i] + logit(edges[i].prior) + self.scratch[i];
        argmax_by(edges.len(), |i| (visits[i] == wanted).then(|| score(i)))
            .or_else(|| {
                // Not reachable with one leaf per step; with several leaves in flight, fall back
                // to the least visited action, best score first.
                let fewest = visits.iter().copied().min().unwrap_or(0);
                argmax_by(edges.len(), |i| (visits[i] == fewest).then(|| score(i)))
            })
            .unwrap_or(0)
    }

    /// Gumbel's deterministic interior rule: argmax π'(a) − N(a)/(1 + ΣN), with
    /// π' = softmax(logits + σ(completed Q)), which makes the visit counts track π'.
    fn select_gumbel_interior(&mut self, node: u32, cfg: &GumbelConfig) -> usize {
        sigma_completed_q(&self.tree, node, cfg, &mut self.scratch);
        let edges = self.tree.edges_of(node);
        for (s, e) in self.scratch.iter_mut().zip(edges) {
            *s += logit(e.prior);
        }
        softmax(&mut self.scratch);
        let total = edges.iter().map(|e| e.visits).sum::<u32>() as f32;
        argmax_by(edges.len(), |i| {
            Some(self.scratch[i] - edges[i].visits as f32 / (1.0 + total))
        })
        .unwrap_or(0)
    }

    /// Takes the evaluations of the leaves of the last [`Search::gather`]: `values[i]` and
    /// `policy[batch.range(i)]` for leaf `i` of [`Search::batch`].
    pub fn absorb(&mut self, values: &[f32], policy: &[f32]) -> Result<(), SearchError> {
        let virtual_loss = self.config.virtual_loss;
        let mut root_expanded = false;
        for i in 0..self.pending.len() {
            let node = self.pending[i];
            let value = values[i];
            if !value.is_finite() {
                return Err(SearchError::BadValue(value));
            }
            let value = value.clamp(-1.0, 1.0);
            let range = self.batch.range(i);
            let priors = &policy[range.clone()];
            // Renormalise defensively: a network's masked softmax may be off by rounding, and a
            // broken one must not poison the tree with negative or NaN priors.
            self.scratch.clear();
            self.scratch.extend(
                priors
                    .iter()
                    .map(|&p| if p.is_finite() && p > 0.0 { p } else { 0.0 }),
            );
            let sum: f32 = self.scratch.iter().sum();
            if sum > 0.0 && sum.is_finite() {
                self.scratch.iter_mut().for_each(|p| *p /= sum);
            } else {
                let uniform = 1.0 / range.len().max(1) as f32;
                self.scratch.iter_mut().for_each(|p| *p = uniform);
            }
            self.tree
                .expand(node, self.batch.legal(i), &self.scratch, value);
            if self.config.solver {
                let position = self.batch.positions()[i].clone();
                self.note_terminal_children(node, &position);
            }
            self.tree.backup(node, value, virtual_loss);
            if node == Tree::ROOT {
                root_expanded = true;
            } else {
                self.completed += 1;
                self.evaluated += 1;
            }
        }
        self.pending.clear();
        if root_expanded {
            self.prepare_root();
        }
        Ok(())
    }

    /// The result of the finished search: targets, value and the action chosen.
    pub fn finish(&mut self) -> Result<SearchResult, SearchError> {
        let root = *self.tree.node(Tree::ROOT);
        if !self.prepared || root.kind != NodeKind::Expanded || root.edge_count == 0 {
            return Err(SearchError::Unfinished);
        }
        let edges = self.tree.edges_of(Tree::ROOT);
        let actions: Vec<Action> = edges.iter().map(|e| e.action).collect();
        let visits: Vec<u32> = edges.iter().map(|e| e.visits).collect();
        let mean_value = if root.visits > 0 {
            root.value_sum / root.visits as f32
        } else {
            0.0
        };
        let (policy_target, slot, root_value) = match self.config.root_policy {
            RootPolicy::Gumbel => {
                let g = self.config.gumbel.clone();
                let max_visits = completed_q(&self.tree, Tree::ROOT, &mut self.scratch);
                let completed = self.scratch.clone();
                sigma(&mut self.scratch, max_visits, &g);
                let edges = self.tree.edges_of(Tree::ROOT);
                self.scratch2.clear();
                self.scratch2.extend(
                    self.scratch
                        .iter()
                        .zip(edges)
                        .map(|(s, e)| s + logit(e.prior)),
                );
                let most = self.gumbel.visits.iter().copied().max().unwrap_or(0);
                let slot = argmax_by(edges.len(), |i| {
                    (self.gumbel.visits.get(i) == Some(&most))
                        .then(|| self.gumbel.noise[i] + self.scratch2[i])
                })
                .unwrap_or(0);
                let mut improved = self.scratch2.clone();
                softmax(&mut improved);
                // Sequential halving spends visits on actions it then drops, so the mean over
                // all visits understates the root; the improved policy's expected completed Q
                // is the value the search stands behind.
                let value = improved.iter().zip(&completed).map(|(p, q)| p * q).sum();
                (improved, slot, value)
            }
            RootPolicy::Puct | RootPolicy::Ucb1 => {
                let total = visits.iter().sum::<u32>().max(1) as f32;
                let target: Vec<f32> = visits.iter().map(|&v| v as f32 / total).collect();
                let temperature = self.config.temperature_at(self.move_number);
                (target, self.pick_by_visits(temperature), mean_value)
            }
        };
        // The solver's word is final: a proven win is played, a proven loss avoided while
        // anything else is left, and a proven root is worth its result.
        let slot = self.won_slot(Tree::ROOT).unwrap_or_else(|| self.avoid_lost_slot(Tree::ROOT, slot));
        let root_value = if self.config.solver && root.proof != 0 { root.proof as f32 } else { root_value };
        Ok(SearchResult {
            to_move: root.to_move,
            action: actions[slot],
            actions,
            visits,
            policy_target,
            root_value,
            full_search: self.full_search,
            simulations: self.completed,
            evaluated: self.evaluated,
            budget: self.budget,
        })
    }

    /// A root edge slot chosen from the visit counts at `temperature` (0: the most visited,
    /// ties to the larger prior, then the first).
    fn pick_by_visits(&mut self, temperature: f32) -> usize {
        let edges = self.tree.edges_of(Tree::ROOT);
        let most = edges.iter().map(|e| e.visits).max().unwrap_or(0);
        if temperature < GREEDY_TEMPERATURE || most == 0 {
            return argmax_by(edges.len(), |i| {
                (edges[i].visits == most).then_some(edges[i].prior)
            })
            .unwrap_or(0);
        }
        // Normalising by the largest count keeps visits^(1/T) finite at low temperatures.
        let weights: Vec<f64> = edges
            .iter()
            .map(|e| (e.visits as f64 / most as f64).powf(1.0 / temperature as f64))
            .collect();
        let total: f64 = weights.iter().sum();
        let mut target = self.rng.unit_f64() * total;
        for (i, w) in weights.iter().enumerate() {
            if target < *w {
                return i;
            }
            target -= w;
        }
        weights.iter().rposition(|&w| w > 0.0).unwrap_or(0)
    }

    /// Plays `action` at the root and moves the tree along: with tree reuse the subtree under
    /// `action` becomes the tree, otherwise (or if it was never visited) the tree starts bare.
    pub fn advance(&mut self, action: Action) -> Result<(), SearchError> {
        let root = *self.tree.node(Tree::ROOT);
        let edge = if root.kind == NodeKind::Expanded {
            let range = self.tree.edge_range(Tree::ROOT);
            let slot = self.tree.edges[range.clone()]
                .iter()
                .position(|e| e.action == action);
            Some(range.start + slot.ok_or(SearchError::IllegalAction(action.0))?)
        } else {
            self.position.legal_actions(&mut self.legal);
            if !self.legal.contains(&action) {
                return Err(SearchError::IllegalAction(action.0));
            }
            None
        };
        self.abandon_pending();
        self.position.apply(action);
        self.move_number += 1;
        self.root_noised = false;
        self.prepared = false;
        let to_move = self.position.to_move();
        match edge {
            Some(edge) if self.config.reuse_tree => {
                self.tree.reroot(edge, to_move);
            }
            _ => self.tree.reset(to_move),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_schedule_matches_a_hand_worked_case() {
        // m = 4, 12 simulations: one visit to each of 4 actions, then the 2 best share the rest
        // in rounds of 3 (12 / (log2 4 · 2)).
        assert_eq!(
            considered_visits(4, 12),
            vec![0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
        );
        assert_eq!(considered_visits(1, 5), vec![0, 1, 2, 3, 4]);
        // m = 8, 32 simulations: rounds of 32 / (3·8) = 1, then 32 / (3·4) = 2, then 32/(3·2) = 5.
        let table = considered_visits(8, 32);
        assert_eq!(&table[..8], &[0; 8]);
        assert_eq!(&table[8..16], &[1, 1, 1, 1, 2, 2, 2, 2]);
        assert_eq!(&table[16..20], &[3, 3, 4, 4]);
        assert_eq!(table.len(), 32);
    }

    #[test]
    fn completed_q_mixes_the_raw_value_with_the_visited_q() {
        // Root raw value 0.2; edge 0 visited twice (Q 0.6), edge 1 once (Q -0.4), edge 2 never.
        let mut tree = Tree::new(Player::One);
        tree.expand(
            Tree::ROOT,
            &[Action(0), Action(1), Action(2)],
            &[0.5, 0.3, 0.2],
            0.2,
        );
        for (edge, value) in [(0, 0.6), (0, 0.6), (1, -0.4)] {
            let child = tree.child(Tree::ROOT, edge, Player::One);
            tree.enter(edge, 1.0);
            tree.backup(child, value, 1.0);
        }
        let mut out = Vec::new();
        assert_eq!(completed_q(&tree, Tree::ROOT, &mut out), 2);
        // v_mix = (0.2 + 3 · (0.5·0.6 + 0.3·(-0.4)) / 0.8) / 4 = 0.21875.
        let expected = [0.6, -0.4, 0.21875];
        for (got, want) in out.iter().zip(expected) {
            assert!((got - want).abs() < 1e-6, "{out:?}");
        }
        // Rescaled to [0, 1] by min -0.4 and max 0.6, then times (50 + 2) · 0.1.
        sigma(&mut out, 2, &GumbelConfig::default());
        for (got, want) in out.iter().zip([5.2, 0.0, 0.61875 * 5.2]) {
            assert!((got - want).abs() < 1e-5, "{out:?}");
        }
    }

    #[test]
    fn softmax_is_a_distribution() {
        let mut x = vec![1.0, 2.0, MIN_LOGIT, 0.5];
        softmax(&mut x);
        assert!((x.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(x[1] > x[0] && x[0] > x[3] && x[2] == 0.0);
    }
}
