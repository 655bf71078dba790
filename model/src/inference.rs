//! The inference server: copies of the network that answer evaluation requests from any
//! number of searching threads.
//!
//! Why a server: tch tensors are not `Sync`, and a network forward pass is far cheaper per
//! position in a batch than one at a time (see `benches/forward.rs`). Workers therefore never
//! hold the network; they send [`Batch`]es of positions (observation + legal actions) through
//! a handle, and a server thread gathers requests from its channel into one forward pass (or,
//! on a CPU, the asking thread runs its own request on a copy it takes: "Passes on the
//! callers" below). A gathered batch closes
//! when it holds `max_batch` positions, or a request from each of its `requesters` (when the
//! caller knows them: threads that each wait for their answer before they send again, so no
//! more can come), or `max_wait` after its first request arrived, whichever comes first; with
//! `max_wait` zero it takes just what is already queued.
//!
//! The search evaluates its leaves in lockstep batches, so [`InferenceHandle::evaluate_batch`]
//! is the main path; [`InferenceHandle::evaluate`] sends a single position. Each answer holds
//! the value and the policy over that position's legal actions, in the order they were given
//! (the softmax runs over the legal actions only). Outputs are always `f32`, whatever the
//! precision the server computes in.
//!
//! **Replicas.** A server may run several threads ([`ServerConfig::replicas`]), each with its
//! own copy of the network, all taking requests from the one queue: whichever replica is free
//! gathers the next batch. On a CPU one forward pass runs on one core (intra-op threads gain
//! little at self-play's batch sizes and fight the searching threads), so one replica per
//! core lets the passes of several searching workers run side by side; on a GPU one replica
//! gathers everything into large batches. On an H200 a pass of the 6 × 64 network costs about
//! the same from 8 positions to 512 (docs/PERFORMANCE.md, "GPU"), and passes launched from
//! several threads at once do not add up, so there a batch should hold every request that
//! can come: the GPU server waits for all its requesters (bounded by `max_wait`) instead of
//! taking what is queued.
//!
//! **Passes on the callers.** With [`ServerConfig::on_callers`] there are no server threads:
//! the replicas wait behind locks, and a thread that asks takes a free one (the one it took
//! first, when that is free) and runs the pass itself. On a CPU with a replica per searching
//! worker that is the same work without the hand-over: no channel, no waking of another
//! thread, and the observations, the weights and the answers stay in the caches of the core
//! that searched (docs/PERFORMANCE.md, "Passes on the workers' threads": one-worker CPU
//! self-play evaluated about a fifth more positions a second so). Requests are then not
//! gathered; a CPU server gathers little anyway, each worker's step being one request to a
//! replica of its own.
//! The asking threads get the server's intra-op thread count set (libtorch's setting is per
//! thread), so a thread that also trains should not ask.
//!
//! **Answers that do not depend on the batch.** libtorch's CPU matrix products (the linear
//! layers) give a row other last bits depending on how many rows the product has, unless
//! that number is a multiple of the kernels' row block: 4 on the AMD EPYC machines with AVX2
//! (every batch size from 1 to 256 measured with this libtorch), 16 on an Intel Xeon with
//! AVX-512 (the twenty-second session's machine: rows padded to 8 gave batches of 13 and 37
//! other bits); its convolutions and group norms compute each position on its own from two
//! rows on (one row takes another path). Every forward pass therefore runs its linear layers
//! on rows padded with zeros to a multiple of [`ServerConfig::pad_rows`] (16 by default),
//! and a pass of one position gets a second, zero row
//! ([`Network::forward_rows`]). So a position gets the same answer whichever positions share
//! its pass, and a self-play game is the same whichever worker plays it and however the
//! requests happened to be gathered. `batch_composition_leaves_no_trace` in the tests checks
//! this on whatever machine runs the tests. The padding costs a few rows of the linear layers
//! (the cheapest), not of the whole network: the thirteenth session's build padded whole
//! passes, up to 7 positions of 8 for a search alone.
//!
//! Shutdown: dropping the [`InferenceServer`] stops the threads after they have answered what
//! they already received (or, on the callers, waits for the passes under way and drops the
//! replicas); handles that outlive it get [`InferenceError::Closed`]. The threads
//! also stop by themselves when the server and every handle are gone.
use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use gipfzero_games::{Action, Spec};
use tch::{Device, Kind, Tensor};
use thiserror::Error;

use crate::cuda_graph::Buckets;
use crate::network::{softmax_over_legal, Network};
use crate::runtime::DeviceChoice;

/// The number precision of the server's forward passes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Precision {
    /// 32-bit floats throughout.
    #[default]
    F32,
    /// The server's copy of the weights and its inputs in bfloat16; outputs converted back to
    /// `f32`. Meant for GPUs (about twice the throughput on tensor cores); CPUs without
    /// bf16 instructions run it slower than `F32`.
    Bf16,
}

impl std::str::FromStr for Precision {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "f32" => Ok(Precision::F32),
            "bf16" => Ok(Precision::Bf16),
            _ => Err(format!("unknown precision \"{text}\": expected f32 or bf16")),
        }
    }
}

/// How the server batches and where it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    /// A gathered batch closes once it holds this many positions. One request larger than
    /// this still runs as a single forward pass.
    pub max_batch: usize,
    /// How long a batch waits for more requests after its first one.
    pub max_wait: Duration,
    /// A gathered batch closes once it holds this many requests: the threads that send to
    /// this server, each waiting for its answer before it sends again (per replica, the
    /// replicas' share of them). 0: no such bound.
    pub requesters: usize,
    pub device: DeviceChoice,
    pub precision: Precision,
    /// libtorch intra-op threads on each server thread; `None` keeps the count of the thread
    /// that spawns the server (libtorch's OpenMP setting is per thread).
    pub intra_op_threads: Option<usize>,
    /// Threads with a copy of the network each, taking batches from one queue (see the module
    /// docs): one per core on a CPU, one on a GPU. At least 1.
    pub replicas: usize,
    /// The linear layers of a forward pass run on a multiple of this many rows, padded with
    /// zero rows, so that a position's answer does not depend on its batch (module docs). 1
    /// pads nothing.
    pub pad_rows: usize,
    /// Passes of up to `max_batch` positions run in buckets, captured as CUDA graphs on a
    /// CUDA device ([`crate::cuda_graph`]); on a CPU the buckets run eagerly (what the tests
    /// check; slower than plain passes).
    pub cuda_graphs: bool,
    /// The forward passes run on the threads that ask, each taking a free replica, instead of
    /// on server threads (module docs, "Passes on the callers"): no hand-over between
    /// threads, and no gathering (`max_batch`, `max_wait` and `requesters` are then unused:
    /// each request is one pass; `cuda_graphs` is ignored). For CPU self-play, whose workers
    /// each have a replica.
    pub on_callers: bool,
}

/// Rows the linear layers of a forward pass are padded to a multiple of, by default: a
/// multiple of the row block at which libtorch's CPU matrix products stop depending on the
/// batch, 4 with AVX2 and 16 with AVX-512 (module docs). Up to 15 zero rows of the linear
/// layers, the cheapest part of a pass.
pub const DEFAULT_PAD_ROWS: usize = 16;

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_batch: 256,
            max_wait: Duration::from_millis(1),
            requesters: 0,
            device: DeviceChoice::Auto,
            precision: Precision::F32,
            intra_op_threads: None,
            replicas: 1,
            pad_rows: DEFAULT_PAD_ROWS,
            cuda_graphs: false,
            on_callers: false,
        }
    }
}

/// What can go wrong when evaluating.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InferenceError {
    #[error("observation has {found} values, the network expects {expected}")]
    ObservationLength { expected: usize, found: usize },
    #[error("action {action} is outside the action space of {action_count} actions")]
    ActionOutOfRange { action: usize, action_count: usize },
    #[error("batch was built for observations of {found} values and {found_actions} actions, the server's network takes {expected} and {expected_actions}")]
    BatchShape { expected: usize, found: usize, expected_actions: usize, found_actions: usize },
    #[error("the inference server has shut down")]
    Closed,
    #[error("the forward pass failed: {0}")]
    Forward(String),
    #[error("cannot start the inference server: {0}")]
    Start(String),
}

/// Positions to evaluate: their observations one after the other and their legal actions.
/// Reusable: [`BatchEvaluation::into_batch`] gives it back with its allocations.
#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    observation_len: usize,
    action_count: usize,
    observations: Vec<f32>,
    legal_actions: Vec<Action>,
    /// End of each position's actions in `legal_actions`.
    legal_ends: Vec<usize>,
}

impl Batch {
    /// An empty batch for positions of `spec`.
    pub fn new(spec: &Spec) -> Batch {
        Batch::with_shape(spec.observation_len(), spec.action_count)
    }

    fn with_shape(observation_len: usize, action_count: usize) -> Batch {
        Batch {
            observation_len,
            action_count,
            observations: Vec::new(),
            legal_actions: Vec::new(),
            legal_ends: Vec::new(),
        }
    }

    /// Adds a position whose observation `encode` writes into the batch's buffer (no copy:
    /// pass `|out| position.encode(out)`).
    pub fn push_with(
        &mut self,
        legal: &[Action],
        encode: impl FnOnce(&mut [f32]),
    ) -> Result<(), InferenceError> {
        self.check_actions(legal)?;
        let start = self.observations.len();
        self.observations.resize(start + self.observation_len, 0.0);
        encode(&mut self.observations[start..]);
        self.push_legal(legal);
        Ok(())
    }

    /// Adds a position from an observation already encoded.
    pub fn push(&mut self, observation: &[f32], legal: &[Action]) -> Result<(), InferenceError> {
        if observation.len() != self.observation_len {
            return Err(InferenceError::ObservationLength {
                expected: self.observation_len,
                found: observation.len(),
            });
        }
        self.check_actions(legal)?;
        self.observations.extend_from_slice(observation);
        self.push_legal(legal);
        Ok(())
    }

    fn check_actions(&self, legal: &[Action]) -> Result<(), InferenceError> {
        match legal.iter().find(|a| a.index() >= self.action_count) {
            Some(action) => Err(InferenceError::ActionOutOfRange {
                action: action.index(),
                action_count: self.action_count,
            }),
            None => Ok(()),
        }
    }

    fn push_legal(&mut self, legal: &[Action]) {
        self.legal_actions.extend_from_slice(legal);
        self.legal_ends.push(self.legal_actions.len());
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.legal_ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.legal_ends.is_empty()
    }

    /// Removes every position, keeping the allocations.
    pub fn clear(&mut self) {
        self.observations.clear();
        self.legal_actions.clear();
        self.legal_ends.clear();
    }

    /// The observation of position `i`.
    pub fn observation(&self, i: usize) -> &[f32] {
        &self.observations[i * self.observation_len..(i + 1) * self.observation_len]
    }

    /// The legal actions of position `i`, as given.
    pub fn legal(&self, i: usize) -> &[Action] {
        &self.legal_actions[self.legal_start(i)..self.legal_ends[i]]
    }

    fn legal_start(&self, i: usize) -> usize {
        if i == 0 {
            0
        } else {
            self.legal_ends[i - 1]
        }
    }
}

/// The network's answer for one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Expected outcome for the player to move, in `[-1, 1]`.
    pub value: f32,
    /// Probabilities of the legal actions, in the order they were given; they sum to 1.
    pub policy: Vec<f32>,
}

/// The answers for a [`Batch`], position by position.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchEvaluation {
    values: Vec<f32>,
    /// Policies of all positions, aligned with the batch's concatenated legal actions.
    priors: Vec<f32>,
    batch: Batch,
}

impl BatchEvaluation {
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The value of position `i`.
    pub fn value(&self, i: usize) -> f32 {
        self.values[i]
    }

    /// The policy of position `i` over its legal actions, in their order.
    pub fn policy(&self, i: usize) -> &[f32] {
        &self.priors[self.batch.legal_start(i)..self.batch.legal_ends[i]]
    }

    /// The batch that was evaluated.
    pub fn batch(&self) -> &Batch {
        &self.batch
    }

    /// The batch back, as evaluated; [`Batch::clear`] it to reuse its allocations.
    pub fn into_batch(self) -> Batch {
        self.batch
    }
}

struct Job {
    batch: Batch,
    reply: mpsc::SyncSender<Result<BatchEvaluation, InferenceError>>,
}

enum Message {
    Evaluate(Job),
    Stop,
}

/// The server's work so far (for benchmarks and tests): forward passes by the positions they
/// held, from which every count is derived (one lock a pass, against a pass's hundreds of
/// microseconds).
#[derive(Debug, Default)]
struct Counters {
    pass_sizes: Mutex<BTreeMap<usize, u64>>,
}

impl Counters {
    fn count(&self, positions: usize) {
        *self.passes().entry(positions).or_insert(0) += 1;
    }

    /// The map, also after a panic while it was held (a count is never left half-done).
    fn passes(&self) -> std::sync::MutexGuard<'_, BTreeMap<usize, u64>> {
        self.pass_sizes.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// What the server has done so far.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ServerStats {
    pub forward_passes: u64,
    pub positions: u64,
}

/// A cloneable, `Send + Sync` way to reach the inference server from any thread.
#[derive(Clone, Debug)]
pub struct InferenceHandle {
    route: Route,
    observation_len: usize,
    action_count: usize,
    counters: Arc<Counters>,
}

/// Where a handle's requests go.
#[derive(Clone)]
enum Route {
    /// To the server threads' queue.
    Queue(mpsc::Sender<Message>),
    /// To a replica the asking thread takes ([`ServerConfig::on_callers`]).
    Callers(Arc<CallerReplicas>),
}

impl std::fmt::Debug for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Route::Queue(_) => f.write_str("Queue"),
            Route::Callers(replicas) => write!(f, "Callers({} replicas)", replicas.slots.len()),
        }
    }
}

/// The replicas of a server whose passes run on the callers: each behind its own lock, taken
/// by one asking thread for one pass; `None` once the server has stopped.
struct CallerReplicas {
    slots: Vec<Mutex<Option<Replica>>>,
    /// libtorch intra-op threads for a pass, set on each asking thread (per thread in
    /// libtorch) before its first pass.
    intra_op_threads: i32,
    pad_rows: usize,
    /// Hands out the replica each asking thread tries first, in turn.
    next_preferred: AtomicUsize,
}

thread_local! {
    /// This thread's first choice among a callers server's replicas: its index in the order
    /// threads first asked (any server's), so that N threads asking N replicas each keep one
    /// (and its weights stay in that core's caches); another thread takes it only while its
    /// own is busy.
    static PREFERRED: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

impl CallerReplicas {
    /// One pass of `batch` on a replica: this thread's own when free, else any free one, else
    /// its own once free; counted in `counters` once a replica is taken (a request that
    /// finds the server stopped runs no pass).
    fn evaluate(&self, batch: Batch, counters: &Counters) -> Result<BatchEvaluation, InferenceError> {
        let n = self.slots.len();
        let preferred = PREFERRED.with(|cell| match cell.get() {
            Some(index) => index,
            None => {
                let index = self.next_preferred.fetch_add(1, Ordering::Relaxed);
                cell.set(Some(index));
                index
            }
        }) % n;
        let free = (0..n).find_map(|k| self.slots[(preferred + k) % n].try_lock().ok());
        let mut slot = free.unwrap_or_else(|| self.slots[preferred].lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
        let Some(replica) = slot.as_mut() else { return Err(InferenceError::Closed) };
        counters.count(batch.len());
        if tch::get_num_threads() != self.intra_op_threads {
            tch::set_num_threads(self.intra_op_threads);
        }
        match replica.forward(self.pad_rows, None, &batch.observations) {
            Ok(()) => Ok(replica.answer(batch, 0)),
            Err(message) => Err(InferenceError::Forward(message)),
        }
    }

    /// Drops every replica's network, after the passes under way.
    fn stop(&self) {
        for slot in &self.slots {
            *slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
        }
    }
}

impl InferenceHandle {
    /// Evaluates a whole batch in one request; blocks until the answer arrives.
    pub fn evaluate_batch(&self, batch: Batch) -> Result<BatchEvaluation, InferenceError> {
        if batch.observation_len != self.observation_len || batch.action_count != self.action_count
        {
            return Err(InferenceError::BatchShape {
                expected: self.observation_len,
                found: batch.observation_len,
                expected_actions: self.action_count,
                found_actions: batch.action_count,
            });
        }
        if batch.is_empty() {
            return Ok(BatchEvaluation { values: Vec::new(), priors: Vec::new(), batch });
        }
        match &self.route {
            Route::Queue(sender) => {
                let (reply, answer) = mpsc::sync_channel(1);
                sender.send(Message::Evaluate(Job { batch, reply })).map_err(|_| InferenceError::Closed)?;
                answer.recv().map_err(|_| InferenceError::Closed)?
            }
            Route::Callers(replicas) => replicas.evaluate(batch, &self.counters),
        }
    }

    /// Evaluates one position.
    pub fn evaluate(
        &self,
        observation: &[f32],
        legal: &[Action],
    ) -> Result<Evaluation, InferenceError> {
        let mut batch = self.new_batch();
        batch.push(observation, legal)?;
        let answer = self.evaluate_batch(batch)?;
        Ok(Evaluation { value: answer.value(0), policy: answer.policy(0).to_vec() })
    }

    /// An empty batch of the server's shape.
    pub fn new_batch(&self) -> Batch {
        Batch::with_shape(self.observation_len, self.action_count)
    }

    /// Forward passes run and positions evaluated so far.
    pub fn stats(&self) -> ServerStats {
        let passes = self.counters.passes();
        ServerStats {
            forward_passes: passes.values().sum(),
            positions: passes.iter().map(|(&size, &count)| size as u64 * count).sum(),
        }
    }

    /// The forward passes so far by size: (positions in the pass, passes of that size), the
    /// sizes ascending. What a benchmark needs to compare the server with bare forward passes
    /// of the same sizes: the requests a replica gathers into one pass are not the requests
    /// the searches sent.
    pub fn pass_sizes(&self) -> Vec<(usize, u64)> {
        self.counters.passes().iter().map(|(&size, &count)| (size, count)).collect()
    }
}

/// The running server; dropping it shuts its threads down.
#[derive(Debug)]
pub struct InferenceServer {
    handle: InferenceHandle,
    threads: Vec<thread::JoinHandle<()>>,
    replicas: usize,
}

impl InferenceServer {
    /// Starts the server's threads, each with a snapshot of `network`'s weights (copied to the
    /// configured device and precision; later training of `network` does not affect the
    /// server). With [`ServerConfig::on_callers`] it starts no threads: the replicas wait for
    /// the threads that ask.
    pub fn spawn(
        network: &Network,
        config: ServerConfig,
    ) -> Result<InferenceServer, InferenceError> {
        let device = config.device.resolve();
        if let Device::Cuda(index) = device {
            if index >= tch::Cuda::device_count().max(0) as usize {
                return Err(InferenceError::Start(format!(
                    "no CUDA device {index} on this machine"
                )));
            }
        }
        let intra_op_threads =
            config.intra_op_threads.unwrap_or(tch::get_num_threads().max(1) as usize);
        let spec = network.spec();
        let replicas = config.replicas.max(1);
        let new_replica = || {
            let mut model = network.copy_to(device);
            if config.precision == Precision::Bf16 {
                model.var_store_mut().bfloat16();
            }
            Replica { model, scratch: Scratch::default() }
        };
        let counters = Arc::new(Counters::default());
        let handle = |route| InferenceHandle {
            route,
            observation_len: spec.observation_len(),
            action_count: spec.action_count,
            counters: Arc::clone(&counters),
        };
        if config.on_callers {
            let callers = CallerReplicas {
                slots: (0..replicas).map(|_| Mutex::new(Some(new_replica()))).collect(),
                intra_op_threads: intra_op_threads as i32,
                pad_rows: config.pad_rows,
                next_preferred: AtomicUsize::new(0),
            };
            return Ok(InferenceServer { handle: handle(Route::Callers(Arc::new(callers))), threads: Vec::new(), replicas });
        }
        let (sender, receiver) = mpsc::channel();
        let receiver = Arc::new(Mutex::new(receiver));
        let mut server = InferenceServer { handle: handle(Route::Queue(sender)), threads: Vec::new(), replicas };
        for replica in 0..replicas {
            let model = new_replica();
            let (config, receiver, counters) = (config.clone(), Arc::clone(&receiver), Arc::clone(&counters));
            let thread = thread::Builder::new()
                .name(format!("inference-{replica}"))
                .spawn(move || {
                    tch::set_num_threads(intra_op_threads as i32);
                    serve(model, config, &receiver, &counters)
                })
                // Dropping `server` stops the replicas already started.
                .map_err(|error| InferenceError::Start(error.to_string()))?;
            server.threads.push(thread);
        }
        Ok(server)
    }

    /// The copies of the network serving requests (each on a thread of its own, or taken by
    /// the asking threads).
    pub fn replicas(&self) -> usize {
        self.replicas
    }

    /// Whether the passes run on the asking threads ([`ServerConfig::on_callers`]).
    pub fn on_callers(&self) -> bool {
        matches!(self.handle.route, Route::Callers(_))
    }

    /// A handle to send requests from another thread.
    pub fn handle(&self) -> InferenceHandle {
        self.handle.clone()
    }

    /// Stops the server after the requests it already received (the same as dropping it).
    pub fn shutdown(self) {}
}

impl Drop for InferenceServer {
    fn drop(&mut self) {
        match &self.handle.route {
            Route::Queue(sender) => {
                // One stop for each replica; a send fails only when every thread is already
                // gone.
                for _ in &self.threads {
                    let _ = sender.send(Message::Stop);
                }
            }
            Route::Callers(replicas) => replicas.stop(),
        }
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// One replica's loop: gather, run, answer, until stopped or every sender is gone. The
/// replica holds the queue while it gathers (the others wait for the queue, not for work).
fn serve(
    mut replica: Replica,
    config: ServerConfig,
    receiver: &Mutex<mpsc::Receiver<Message>>,
    counters: &Counters,
) {
    let max_batch = config.max_batch.max(1);
    let mut jobs: Vec<Job> = Vec::new();
    // Made on the thread that captures and replays them (a capture is per thread).
    let mut buckets = config.cuda_graphs.then(|| Buckets::new(max_batch, config.pad_rows));
    loop {
        let Ok(receiver) = receiver.lock() else { return };
        let first = match receiver.recv() {
            Ok(Message::Evaluate(job)) => job,
            Ok(Message::Stop) | Err(_) => return,
        };
        let deadline = Instant::now() + config.max_wait;
        let mut positions = first.batch.len();
        jobs.push(first);
        let mut stop = false;
        while positions < max_batch && (config.requesters == 0 || jobs.len() < config.requesters) {
            let message = match receiver.try_recv() {
                Ok(message) => message,
                Err(mpsc::TryRecvError::Disconnected) => {
                    stop = true;
                    break;
                }
                Err(mpsc::TryRecvError::Empty) => {
                    let now = Instant::now();
                    if now >= deadline {
                        break;
                    }
                    match receiver.recv_timeout(deadline - now) {
                        Ok(message) => message,
                        Err(mpsc::RecvTimeoutError::Timeout) => break,
                        Err(mpsc::RecvTimeoutError::Disconnected) => {
                            stop = true;
                            break;
                        }
                    }
                }
            };
            match message {
                Message::Evaluate(job) => {
                    positions += job.batch.len();
                    jobs.push(job);
                }
                Message::Stop => {
                    stop = true;
                    break;
                }
            }
        }
        drop(receiver);
        // Counted before the answers go out, so a requester that reads the counters after
        // its answer sees its own pass.
        counters.count(positions);
        replica.run_jobs(config.pad_rows, buckets.as_mut(), &mut jobs);
        if stop {
            return;
        }
    }
}

/// One copy of the network with the buffers its passes reuse.
struct Replica {
    model: Network,
    scratch: Scratch,
}

/// Buffers a replica reuses from one forward pass to the next.
#[derive(Default)]
struct Scratch {
    observations: Vec<f32>,
    logits: Vec<f32>,
    values: Vec<f32>,
}

impl Replica {
    /// One forward pass over the positions in `observations`, its linear layers' rows
    /// padded to a multiple of `pad_rows`, through `buckets` when given (a pass larger than
    /// the largest bucket runs as it is); the outputs land in the scratch's logits and
    /// values. A libtorch panic is an error, not the thread's end.
    fn forward(&mut self, pad_rows: usize, buckets: Option<&mut Buckets>, observations: &[f32]) -> Result<(), String> {
        let (model, scratch) = (&self.model, &mut self.scratch);
        let observation_len = model.spec().observation_len();
        let positions = observations.len() / observation_len;
        let action_count = model.spec().action_count;
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            let observations =
                Tensor::from_slice(observations).reshape([positions as i64, observation_len as i64]);
            let bucketed = match buckets {
                Some(buckets) => buckets.forward(model, &observations).map_err(|e| e.to_string())?,
                None => None,
            };
            let (logits, values) = match bucketed {
                Some(output) => (output.policy_logits, output.value),
                None => {
                    let xs = observations.to_device(model.device()).to_kind(model.parameter_kind());
                    let output = tch::no_grad(|| model.forward_rows(&xs, pad_rows));
                    (output.policy_logits.to_kind(Kind::Float).to_device(Device::Cpu), output.value.to_kind(Kind::Float).to_device(Device::Cpu))
                }
            };
            scratch.logits.resize(positions * action_count, 0.0);
            scratch.values.resize(positions, 0.0);
            logits.f_copy_data(&mut scratch.logits, positions * action_count).map_err(|e| e.to_string())?;
            values.f_copy_data(&mut scratch.values, positions).map_err(|e| e.to_string())
        }));
        match outcome {
            Ok(result) => result,
            Err(payload) => Err(panic_message(payload.as_ref())),
        }
    }

    /// The answer to `batch`, whose positions were rows `row..` of the last pass: values, and
    /// policies softmaxed over each position's legal actions.
    fn answer(&self, batch: Batch, row: usize) -> BatchEvaluation {
        let action_count = self.model.spec().action_count;
        let n = batch.len();
        let values = self.scratch.values[row..row + n].to_vec();
        let mut priors = Vec::with_capacity(batch.legal_actions.len());
        for i in 0..n {
            let logits = &self.scratch.logits[(row + i) * action_count..(row + i + 1) * action_count];
            softmax_over_legal(logits, batch.legal(i), &mut priors);
        }
        BatchEvaluation { values, priors, batch }
    }

    /// One forward pass over every job's positions; answers each job on its reply channel.
    fn run_jobs(&mut self, pad_rows: usize, buckets: Option<&mut Buckets>, jobs: &mut Vec<Job>) {
        let mut observations = std::mem::take(&mut self.scratch.observations);
        observations.clear();
        for job in jobs.iter() {
            observations.extend_from_slice(&job.batch.observations);
        }
        let failure = self.forward(pad_rows, buckets, &observations).err();
        self.scratch.observations = observations;
        let mut row = 0;
        for job in jobs.drain(..) {
            let answer = match &failure {
                Some(message) => Err(InferenceError::Forward(message.clone())),
                None => {
                    let n = job.batch.len();
                    let answer = self.answer(job.batch, row);
                    row += n;
                    Ok(answer)
                }
            };
            // A requester that gave up waiting is no error of the server's.
            let _ = job.reply.send(answer);
        }
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic without a message".to_string())
}
