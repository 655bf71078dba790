//! Tests of the network, the inference server and the checkpoints, with the helpers they
//! share. Specs are built directly in the shapes of the real variants, so these tests do not
//! depend on the rules engines.
use gipfzero_games::{Action, Spec, SplitMix64};
use tch::{Device, Kind, Tensor};

use crate::network::{NetConfig, Network};

/// 37-ring ZÈRTZ-like: 18 planes on a 7×7 grid, 10 actions per cell plus a pass.
const ZERTZ: Spec = Spec {
    game: "zertz",
    variant: "37",
    action_count: 371,
    planes: 18,
    height: 7,
    width: 7,
    symmetry_count: 12,
};
/// 61-ring ZÈRTZ-like, 9×9.
const ZERTZ_61: Spec = Spec {
    game: "zertz",
    variant: "61",
    action_count: 611,
    planes: 18,
    height: 9,
    width: 9,
    symmetry_count: 12,
};
/// DVONN-like: a 5×11 grid.
const DVONN: Spec = Spec {
    game: "dvonn",
    variant: "dvonn",
    action_count: 49 * 49 + 1,
    planes: 12,
    height: 5,
    width: 11,
    symmetry_count: 4,
};
/// LYNGK-like: 34 planes on 9×9.
const LYNGK: Spec = Spec {
    game: "lyngk",
    variant: "lyngk",
    action_count: 43 * 43 + 8,
    planes: 34,
    height: 9,
    width: 9,
    symmetry_count: 12,
};

fn single_thread() {
    tch::set_num_threads(1);
}

/// A tiny network whose parameters are all random (the initial zero norm scales would make
/// residual branches vanish and hide mistakes).
fn random_network(spec: &Spec, seed: i64) -> Network {
    single_thread();
    tch::manual_seed(seed);
    let network = Network::new(spec, &NetConfig::tiny(), Device::Cpu).unwrap();
    tch::no_grad(|| {
        for (name, mut tensor) in network.var_store().variables() {
            let noise = Tensor::randn(tensor.size(), (Kind::Float, Device::Cpu)) * 0.3;
            if name.contains("norm") && name.ends_with("weight") {
                tensor.copy_(&(noise + 1.0));
            } else {
                tensor.copy_(&noise);
            }
        }
    });
    network
}

/// Observations of `positions` positions: random 0/1 planes, each position different.
fn observations(spec: &Spec, positions: usize, rng: &mut SplitMix64) -> Vec<f32> {
    (0..positions * spec.observation_len()).map(|_| (rng.below(3) == 0) as u8 as f32).collect()
}

/// A random non-empty subset of the action space, in random order.
fn legal_actions(spec: &Spec, rng: &mut SplitMix64) -> Vec<Action> {
    let mut actions: Vec<Action> =
        (0..spec.action_count as u16).filter(|_| rng.below(10) == 0).map(Action).collect();
    if actions.is_empty() {
        actions.push(Action(rng.below(spec.action_count as u64) as u16));
    }
    rng.shuffle(&mut actions);
    actions
}

fn to_vec(tensor: &Tensor) -> Vec<f32> {
    Vec::<f32>::try_from(tensor.to_kind(Kind::Float).flatten(0, -1)).unwrap()
}

fn assert_close(a: &[f32], b: &[f32], tolerance: f32, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= tolerance, "{what}[{i}]: {x} vs {y}");
    }
}

/// The expected answer for one position, computed directly from the network.
fn direct_evaluation(network: &Network, observation: &[f32], legal: &[Action]) -> (f32, Vec<f32>) {
    let output = network.forward_slice(observation);
    let logits = to_vec(&output.policy_logits);
    let mut policy = Vec::new();
    crate::network::softmax_over_legal(&logits, legal, &mut policy);
    (to_vec(&output.value)[0], policy)
}

mod network {
    use super::*;
    use crate::network::{legal_mask, masked_softmax, softmax_over_legal, NetConfigError};

    #[test]
    fn forward_has_the_variant_shapes() {
        for spec in [&ZERTZ, &ZERTZ_61, &DVONN, &LYNGK] {
            let network = random_network(spec, 1);
            for batch in [1usize, 3] {
                let mut rng = SplitMix64::new(batch as u64);
                let xs = Tensor::from_slice(&observations(spec, batch, &mut rng)).reshape([
                    batch as i64,
                    spec.planes as i64,
                    spec.height as i64,
                    spec.width as i64,
                ]);
                let output = tch::no_grad(|| network.forward(&xs));
                assert_eq!(
                    output.policy_logits.size(),
                    [batch as i64, spec.action_count as i64],
                    "{}",
                    spec.game
                );
                assert_eq!(output.value.size(), [batch as i64], "{}", spec.game);
                let values = to_vec(&output.value);
                assert!(values.iter().all(|v| v.abs() <= 1.0 && v.is_finite()), "{values:?}");
                assert!(to_vec(&output.policy_logits).iter().all(|l| l.is_finite()));
            }
        }
    }

    #[test]
    fn flat_and_planar_observations_give_the_same_output() {
        let network = random_network(&DVONN, 2);
        let data = observations(&DVONN, 2, &mut SplitMix64::new(5));
        let flat = Tensor::from_slice(&data).reshape([2, DVONN.observation_len() as i64]);
        let planar = Tensor::from_slice(&data).reshape([2, 12, 5, 11]);
        let (a, b) = tch::no_grad(|| (network.forward(&flat), network.forward(&planar)));
        assert_eq!(to_vec(&a.policy_logits), to_vec(&b.policy_logits));
        assert_eq!(to_vec(&a.value), to_vec(&b.value));
    }

    #[test]
    fn parameter_names_follow_the_documented_scheme() {
        let network = Network::new(&ZERTZ, &NetConfig::tiny(), Device::Cpu).unwrap();
        let shapes = network.parameter_shapes();
        let mut expected: Vec<(String, Vec<i64>)> = vec![
            ("trunk.stem.conv.weight".into(), vec![16, 18, 3, 3]),
            ("trunk.stem.norm.weight".into(), vec![16]),
            ("trunk.stem.norm.bias".into(), vec![16]),
            ("policy.conv.weight".into(), vec![8, 16, 1, 1]),
            ("policy.norm.weight".into(), vec![8]),
            ("policy.norm.bias".into(), vec![8]),
            ("policy.fc.weight".into(), vec![371, 8 * 49]),
            ("policy.fc.bias".into(), vec![371]),
            ("value.conv.weight".into(), vec![4, 16, 1, 1]),
            ("value.norm.weight".into(), vec![4]),
            ("value.norm.bias".into(), vec![4]),
            ("value.fc1.weight".into(), vec![16, 4 * 49]),
            ("value.fc1.bias".into(), vec![16]),
            ("value.fc2.weight".into(), vec![1, 16]),
            ("value.fc2.bias".into(), vec![1]),
        ];
        for block in 0..2 {
            let name = |rest: &str| format!("trunk.block{block}.{rest}");
            expected.extend([
                (name("conv1.weight"), vec![16, 16, 3, 3]),
                (name("norm1.weight"), vec![16]),
                (name("norm1.bias"), vec![16]),
                (name("pool.weight"), vec![16, 8]),
                (name("pool.bias"), vec![16]),
                (name("conv2.weight"), vec![16, 16, 3, 3]),
                (name("norm2.weight"), vec![16]),
                (name("norm2.bias"), vec![16]),
            ]);
        }
        expected.sort();
        assert_eq!(shapes, expected);
        let count: i64 = expected.iter().map(|(_, shape)| shape.iter().product::<i64>()).sum();
        assert_eq!(network.parameter_count(), count as usize);
    }

    #[test]
    fn residual_branches_start_as_identity() {
        // The second norm of each block starts with zero scale (see layers::ConvNorm::new).
        let network = Network::new(&ZERTZ, &NetConfig::medium(), Device::Cpu).unwrap();
        let variables = network.var_store().variables();
        for block in 0..6 {
            let scale = &variables[&format!("trunk.block{block}.norm2.weight")];
            assert_eq!(f32::try_from(scale.abs().sum(Kind::Float)).unwrap(), 0.0);
            let first = &variables[&format!("trunk.block{block}.norm1.weight")];
            assert_eq!(f32::try_from(first.sum(Kind::Float)).unwrap(), 64.0);
        }
    }

    #[test]
    fn masked_softmax_puts_all_mass_on_legal_actions() {
        single_thread();
        let mut rng = SplitMix64::new(9);
        let action_count = 40;
        let logits = Tensor::randn([4, action_count as i64], (Kind::Float, Device::Cpu)) * 3.0;
        let legal: Vec<Vec<Action>> = vec![
            vec![Action(3)],
            vec![Action(0), Action(39), Action(17)],
            (0..40).filter(|_| rng.below(2) == 0).map(Action).collect(),
            vec![],
        ];
        let rows: Vec<&[Action]> = legal.iter().map(|l| l.as_slice()).collect();
        let mask = legal_mask(&rows, action_count, Device::Cpu);
        let policy = to_vec(&masked_softmax(&logits, &mask));
        let logits = to_vec(&logits);
        for (row, actions) in legal.iter().enumerate() {
            let probabilities = &policy[row * action_count..(row + 1) * action_count];
            let row_logits = &logits[row * action_count..(row + 1) * action_count];
            for (action, &p) in probabilities.iter().enumerate() {
                if !actions.contains(&Action(action as u16)) {
                    assert_eq!(p, 0.0, "row {row} action {action}");
                }
            }
            if actions.is_empty() {
                continue;
            }
            let sum: f32 = probabilities.iter().sum();
            assert!((sum - 1.0).abs() < 1e-5, "row {row} sums to {sum}");
            // Ratios of legal probabilities follow the logits.
            let (a, b) = (actions[0].index(), actions[actions.len() - 1].index());
            let ratio = probabilities[a] / probabilities[b];
            assert!((ratio.ln() - (row_logits[a] - row_logits[b])).abs() < 1e-3);
            // The CPU softmax of the server agrees, in the order the actions were given.
            let mut cpu = vec![0.5];
            softmax_over_legal(row_logits, actions, &mut cpu);
            assert_eq!(cpu[0], 0.5, "softmax_over_legal appends");
            let gathered: Vec<f32> = actions.iter().map(|a| probabilities[a.index()]).collect();
            assert_close(&cpu[1..], &gathered, 1e-6, "cpu softmax");
        }
        assert_eq!(legal[1][0], Action(0));
    }

    #[test]
    fn a_position_gets_the_same_answer_alone_or_in_a_batch() {
        // Group norm uses no batch statistics, so batch composition cannot leak into answers.
        let network = random_network(&LYNGK, 3);
        let data = observations(&LYNGK, 5, &mut SplitMix64::new(3));
        let together = network.forward_slice(&data);
        let len = LYNGK.observation_len();
        for i in 0..5 {
            let alone = network.forward_slice(&data[i * len..(i + 1) * len]);
            assert_close(
                &to_vec(&alone.value),
                &to_vec(&together.value.narrow(0, i as i64, 1)),
                1e-5,
                "value",
            );
            assert_close(
                &to_vec(&alone.policy_logits),
                &to_vec(&together.policy_logits.narrow(0, i as i64, 1)),
                1e-4,
                "logits",
            );
        }
    }

    #[test]
    fn inconsistent_configurations_are_rejected() {
        let base = NetConfig::tiny();
        let cases = [
            (
                NetConfig { channels: 18, ..base.clone() },
                NetConfigError::Groups { name: "channels", value: 18, groups: 4 },
            ),
            (
                NetConfig { value_channels: 6, ..base.clone() },
                NetConfigError::Groups { name: "value_channels", value: 6, groups: 4 },
            ),
            (
                NetConfig { global_pool_channels: 17, ..base.clone() },
                NetConfigError::TooManyPooled { pooled: 17, channels: 16 },
            ),
            (NetConfig { norm_groups: 0, ..base.clone() }, NetConfigError::Zero("norm_groups")),
            (NetConfig { channels: 0, ..base.clone() }, NetConfigError::Zero("channels")),
            // Refused before libtorch is asked for the memory (a million channels panicked in
            // its allocator).
            (
                NetConfig { channels: 1_000_000, ..base.clone() },
                NetConfigError::TooLarge { name: "channels", value: 1_000_000, most: 1024 },
            ),
            (NetConfig { blocks: 65, ..base.clone() }, NetConfigError::TooLarge { name: "blocks", value: 65, most: 64 }),
            (
                NetConfig { value_hidden: 4097, ..base.clone() },
                NetConfigError::TooLarge { name: "value_hidden", value: 4097, most: 4096 },
            ),
        ];
        for (config, error) in cases {
            assert_eq!(Network::new(&ZERTZ, &config, Device::Cpu).unwrap_err(), error);
        }
        let empty = Spec { action_count: 0, ..ZERTZ };
        assert_eq!(
            Network::new(&empty, &base, Device::Cpu).unwrap_err(),
            NetConfigError::EmptySpec
        );
        assert!(NetConfig::default().validate().is_ok());
        assert!(NetConfig::medium().validate().is_ok());
        assert!(base.validate().is_ok());
    }
}

mod inference {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::inference::{
        Batch, InferenceError, InferenceHandle, InferenceServer, Precision, ServerConfig,
    };

    fn cpu_config(max_batch: usize, max_wait: Duration) -> ServerConfig {
        ServerConfig {
            max_batch,
            max_wait,
            device: crate::DeviceChoice::Cpu,
            intra_op_threads: Some(1),
            ..Default::default()
        }
    }

    #[test]
    fn handles_are_send_sync_and_clone() {
        fn shareable<T: Send + Sync + Clone>() {}
        shareable::<InferenceHandle>();
    }

    #[test]
    fn each_concurrent_request_gets_its_own_answer() {
        let network = random_network(&ZERTZ, 4);
        let server =
            InferenceServer::spawn(&network, cpu_config(16, Duration::from_millis(2))).unwrap();
        let threads = 4;
        let rounds = 12;
        std::thread::scope(|scope| {
            for t in 0..threads {
                let handle = server.handle();
                // Tensors are not Sync: each checker gets its own copy of the weights.
                let network = network.copy_to(Device::Cpu);
                scope.spawn(move || {
                    let mut rng = SplitMix64::new(100 + t);
                    let mut batch = handle.new_batch();
                    for round in 0..rounds {
                        let positions = 1 + rng.below(6) as usize;
                        let data = observations(&ZERTZ, positions, &mut rng);
                        let legal: Vec<Vec<Action>> =
                            (0..positions).map(|_| legal_actions(&ZERTZ, &mut rng)).collect();
                        let len = ZERTZ.observation_len();
                        if round % 3 == 0 {
                            // The single-position path.
                            let answer = handle.evaluate(&data[..len], &legal[0]).unwrap();
                            let (value, policy) =
                                direct_evaluation(&network, &data[..len], &legal[0]);
                            assert_close(&[answer.value], &[value], 1e-5, "value");
                            assert_close(&answer.policy, &policy, 1e-5, "policy");
                            continue;
                        }
                        batch.clear();
                        for i in 0..positions {
                            batch.push(&data[i * len..(i + 1) * len], &legal[i]).unwrap();
                        }
                        let answer = handle.evaluate_batch(batch).unwrap();
                        assert_eq!(answer.len(), positions);
                        for i in 0..positions {
                            let (value, policy) = direct_evaluation(
                                &network,
                                &data[i * len..(i + 1) * len],
                                &legal[i],
                            );
                            assert_close(&[answer.value(i)], &[value], 1e-5, "value");
                            assert_close(answer.policy(i), &policy, 1e-5, "policy");
                            let sum: f32 = answer.policy(i).iter().sum();
                            assert!((sum - 1.0).abs() < 1e-4);
                        }
                        batch = answer.into_batch();
                    }
                });
            }
        });
        let stats = server.handle().stats();
        assert!(stats.forward_passes >= 1 && stats.forward_passes <= stats.positions);
    }

    #[test]
    fn a_batch_closes_once_every_requester_has_a_request_in() {
        // A GPU server's batches wait long for more requests, but no longer than the last of
        // its requesters: three threads' requests make one pass at once, not after a minute.
        let network = random_network(&ZERTZ, 5);
        let config = ServerConfig { requesters: 3, ..cpu_config(1000, Duration::from_secs(60)) };
        let server = InferenceServer::spawn(&network, config).unwrap();
        let mut rng = SplitMix64::new(5);
        let data = observations(&ZERTZ, 2, &mut rng);
        let legal = legal_actions(&ZERTZ, &mut rng);
        let len = ZERTZ.observation_len();
        let (sender, answers) = std::sync::mpsc::channel();
        let request = |handle: InferenceHandle, sender: std::sync::mpsc::Sender<usize>| {
            let (data, legal) = (data.clone(), legal.clone());
            std::thread::spawn(move || {
                let mut batch = handle.new_batch();
                batch.push(&data[..len], &legal).unwrap();
                batch.push(&data[len..], &legal).unwrap();
                sender.send(handle.evaluate_batch(batch).unwrap().len()).unwrap();
            })
        };
        let threads: Vec<_> = (0..3).map(|_| request(server.handle(), sender.clone())).collect();
        for _ in 0..3 {
            let answered = answers.recv_timeout(Duration::from_secs(30)).expect("the batch closed when the third request came in");
            assert_eq!(answered, 2);
        }
        threads.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(server.handle().pass_sizes(), vec![(6, 1)]);
        // Fewer requesters than expected (searchers that have stopped): the wait bounds it.
        let config = ServerConfig { requesters: 3, ..cpu_config(1000, Duration::from_millis(50)) };
        let server = InferenceServer::spawn(&network, config).unwrap();
        request(server.handle(), sender).join().unwrap();
        assert_eq!(answers.recv().unwrap(), 2);
        assert_eq!(server.handle().pass_sizes(), vec![(2, 1)]);
    }

    /// Every position of `data` alone, then all together, then in chunks with other
    /// neighbours: the answers' bits, per position.
    fn answers_in_groupings(handle: &InferenceHandle, spec: &Spec, data: &[f32], legal: &[Vec<Action>]) -> Vec<Vec<(u32, Vec<u32>)>> {
        let len = spec.observation_len();
        let positions = legal.len();
        let evaluate = |indices: &[usize]| {
            let mut batch = handle.new_batch();
            for &i in indices {
                batch.push(&data[i * len..(i + 1) * len], &legal[i]).unwrap();
            }
            let answer = handle.evaluate_batch(batch).unwrap();
            (0..indices.len())
                .map(|k| (answer.value(k).to_bits(), answer.policy(k).iter().map(|p| p.to_bits()).collect()))
                .collect::<Vec<_>>()
        };
        let mut groupings = Vec::new();
        for size in [1, 2, 3, 5, 7, 13, 17, 29, positions] {
            let mut answers = vec![(0, Vec::new()); positions];
            // Chunks of `size`, the positions in reverse order so that neighbours change.
            let order: Vec<usize> = (0..positions).rev().collect();
            for chunk in order.chunks(size) {
                for (k, answer) in evaluate(chunk).into_iter().enumerate() {
                    answers[chunk[k]] = answer;
                }
            }
            groupings.push(answers);
        }
        groupings
    }

    /// `positions` random observations of `spec` with random legal actions, drawn from `seed`.
    fn requests(spec: &Spec, positions: usize, seed: u64) -> (Vec<f32>, Vec<Vec<Action>>) {
        let mut rng = SplitMix64::new(seed);
        let data = observations(spec, positions, &mut rng);
        let legal = (0..positions).map(|_| legal_actions(spec, &mut rng)).collect();
        (data, legal)
    }

    #[test]
    fn batch_composition_leaves_no_trace() {
        // Padded passes: a position's answer has the same bits in every grouping.
        let spec = &LYNGK;
        let network = random_network(spec, 8);
        let (data, legal) = requests(spec, 37, 8);
        let padded = InferenceServer::spawn(&network, cpu_config(64, Duration::ZERO)).unwrap();
        let groupings = answers_in_groupings(&padded.handle(), spec, &data, &legal);
        for (g, answers) in groupings.iter().enumerate() {
            assert_eq!(answers, &groupings[0], "grouping {g} changed an answer's bits");
        }
        // The padding is what makes it so: unpadded, batches of 1, 2, 3, 5, 7 and 13 rows give
        // answers that differ in their last bits (if libtorch's kernels ever stop doing that,
        // the padding may go).
        let unpadded = InferenceServer::spawn(&network, ServerConfig { pad_rows: 1, ..cpu_config(64, Duration::ZERO) }).unwrap();
        let groupings = answers_in_groupings(&unpadded.handle(), spec, &data, &legal);
        assert!(groupings.iter().any(|answers| answers != &groupings[0]), "unpadded passes gave the same bits");
    }

    #[test]
    fn bucketed_passes_answer_as_plain_passes() {
        // `cuda_graphs` on the CPU: the passes run in buckets of 16 and 32 rows (the largest
        // holding max_batch 20), rows left over from earlier passes beside them, and a pass of
        // 37 runs plain. Every answer has the plain server's bits, in every grouping.
        let spec = &ZERTZ;
        let network = random_network(spec, 11);
        let (data, legal) = requests(spec, 37, 11);
        let plain = InferenceServer::spawn(&network, cpu_config(20, Duration::ZERO)).unwrap();
        let expected = &answers_in_groupings(&plain.handle(), spec, &data, &legal)[0];
        let bucketed = InferenceServer::spawn(&network, ServerConfig { cuda_graphs: true, ..cpu_config(20, Duration::ZERO) }).unwrap();
        let groupings = answers_in_groupings(&bucketed.handle(), spec, &data, &legal);
        for (g, answers) in groupings.iter().enumerate() {
            assert_eq!(answers, expected, "grouping {g} changed an answer's bits");
        }
        let buckets = crate::cuda_graph::Buckets::new(20, 16);
        assert_eq!((buckets.bucket_for(1), buckets.bucket_for(16), buckets.bucket_for(17)), (Some(16), Some(16), Some(32)));
        assert_eq!((buckets.bucket_for(32), buckets.bucket_for(33)), (Some(32), None));
    }

    /// `threads` threads asking `server` (serving `network`) for every grouping of 24 random
    /// ZÈRTZ requests, `rounds` times each; every answer must have a one-thread server's bits.
    /// Thread `t` runs `before(t)` before it asks and `after()` once it has.
    fn ask_from_threads(network: &Network, server: &InferenceServer, threads: usize, rounds: usize, before: impl Fn(usize) + Sync, after: impl Fn() + Sync) {
        let spec = &ZERTZ;
        let (data, legal) = requests(spec, 24, 9);
        let single = InferenceServer::spawn(network, cpu_config(8, Duration::ZERO)).unwrap();
        let expected = &answers_in_groupings(&single.handle(), spec, &data, &legal)[0];
        std::thread::scope(|scope| {
            for t in 0..threads {
                let handle = server.handle();
                let (data, legal, before, after) = (&data, &legal, &before, &after);
                scope.spawn(move || {
                    before(t);
                    for _ in 0..rounds {
                        for answer in &answers_in_groupings(&handle, spec, data, legal) {
                            assert_eq!(answer, expected);
                        }
                    }
                    after();
                });
            }
        });
    }

    #[test]
    fn replicas_share_the_queue_and_answer_alike() {
        // Four requesters against two replicas: every answer is the one-replica server's, to
        // the bit.
        let network = random_network(&ZERTZ, 9);
        let replicated = InferenceServer::spawn(&network, ServerConfig { replicas: 2, ..cpu_config(4, Duration::ZERO) }).unwrap();
        assert_eq!(replicated.replicas(), 2);
        ask_from_threads(&network, &replicated, 4, 5, |_| {}, || {});
        let stats = replicated.handle().stats();
        assert!(stats.forward_passes > 0);
        // Dropping stops both replicas (the join would hang otherwise).
        drop(replicated);
    }

    #[test]
    fn passes_on_the_callers_answer_as_server_threads_do() {
        // Four threads asking two replicas that run on the callers (two threads at a time wait
        // for a replica): every answer is the one-thread server's, to the bit, and every
        // request is a pass of its own.
        let spec = &ZERTZ;
        let network = random_network(spec, 9);
        let callers = InferenceServer::spawn(&network, ServerConfig { replicas: 2, on_callers: true, ..cpu_config(4, Duration::ZERO) }).unwrap();
        assert_eq!(callers.replicas(), 2);
        let (threads, rounds) = (4, 3);
        // The server's intra-op count (1) is set on each asking thread.
        ask_from_threads(&network, &callers, threads, rounds, |t| tch::set_num_threads(2 + t as i32), || assert_eq!(tch::get_num_threads(), 1));
        // The groupings' requests: chunks of 1, 2, 3, 5, 7, 13, 17, 29 and 24 positions of 24.
        let per_round: usize = [1, 2, 3, 5, 7, 13, 17, 29, 24].iter().map(|&size| 24usize.div_ceil(size)).sum();
        let stats = callers.handle().stats();
        let asked = (threads * rounds) as u64;
        assert_eq!((stats.forward_passes, stats.positions), (asked * per_round as u64, asked * 9 * 24));
        // Stopped: the replicas are gone, a request is Closed and runs no pass.
        let handle = callers.handle();
        drop(callers);
        let len = spec.observation_len();
        let (data, legal) = requests(spec, 1, 9);
        assert_eq!(handle.evaluate(&data[..len], &legal[0]), Err(InferenceError::Closed));
        assert_eq!(handle.stats(), stats);
    }

    #[test]
    fn a_lone_request_is_answered_at_the_deadline() {
        let network = random_network(&DVONN, 5);
        let wait = Duration::from_millis(30);
        let server = InferenceServer::spawn(&network, cpu_config(64, wait)).unwrap();
        let handle = server.handle();
        let observation = observations(&DVONN, 1, &mut SplitMix64::new(1));
        let start = Instant::now();
        let answer = handle.evaluate(&observation, &[Action(7), Action(2)]).unwrap();
        let elapsed = start.elapsed();
        assert!(elapsed >= wait, "answered after {elapsed:?}, before the deadline");
        assert!(elapsed < Duration::from_secs(10), "answered after {elapsed:?}");
        assert_eq!(answer.policy.len(), 2);
        let stats = handle.stats();
        assert_eq!((stats.forward_passes, stats.positions), (1, 1));
    }

    #[test]
    fn a_full_batch_does_not_wait_for_the_deadline() {
        let network = random_network(&DVONN, 6);
        let server =
            InferenceServer::spawn(&network, cpu_config(4, Duration::from_secs(60))).unwrap();
        let handle = server.handle();
        let data = observations(&DVONN, 4, &mut SplitMix64::new(2));
        let mut batch = Batch::new(&DVONN);
        let len = DVONN.observation_len();
        for i in 0..4 {
            batch
                .push_with(&[Action(i as u16)], |out| {
                    out.copy_from_slice(&data[i * len..(i + 1) * len])
                })
                .unwrap();
        }
        let start = Instant::now();
        let answer = handle.evaluate_batch(batch).unwrap();
        assert!(start.elapsed() < Duration::from_secs(30));
        assert_eq!(answer.len(), 4);
        for i in 0..4 {
            assert_eq!(answer.policy(i), &[1.0], "a single legal action has probability 1");
            assert_eq!(answer.batch().observation(i), &data[i * len..(i + 1) * len]);
        }
    }

    #[test]
    fn bad_requests_are_errors_and_a_stopped_server_says_closed() {
        let network = random_network(&ZERTZ, 7);
        let server = InferenceServer::spawn(&network, cpu_config(8, Duration::ZERO)).unwrap();
        let handle = server.handle();
        let len = ZERTZ.observation_len();
        assert_eq!(
            handle.evaluate(&vec![0.0; len - 1], &[Action(0)]),
            Err(InferenceError::ObservationLength { expected: len, found: len - 1 })
        );
        assert_eq!(
            handle.evaluate(&vec![0.0; len], &[Action(371)]),
            Err(InferenceError::ActionOutOfRange { action: 371, action_count: 371 })
        );
        let mut other = Batch::new(&DVONN);
        other.push(&vec![0.0; DVONN.observation_len()], &[Action(0)]).unwrap();
        assert!(matches!(handle.evaluate_batch(other), Err(InferenceError::BatchShape { .. })));
        // No legal action: a value and an empty policy.
        let answer = handle.evaluate(&vec![1.0; len], &[]).unwrap();
        assert!(answer.policy.is_empty() && answer.value.abs() <= 1.0);
        let empty = handle.evaluate_batch(handle.new_batch()).unwrap();
        assert!(empty.is_empty());
        drop(server);
        assert_eq!(handle.evaluate(&vec![0.0; len], &[Action(0)]), Err(InferenceError::Closed));
    }

    #[test]
    fn bf16_answers_are_close_to_f32() {
        let network = random_network(&ZERTZ, 8);
        let config = ServerConfig { precision: Precision::Bf16, ..cpu_config(8, Duration::ZERO) };
        let server = InferenceServer::spawn(&network, config).unwrap();
        let mut rng = SplitMix64::new(8);
        let observation = observations(&ZERTZ, 1, &mut rng);
        let legal = legal_actions(&ZERTZ, &mut rng);
        let answer = server.handle().evaluate(&observation, &legal).unwrap();
        let (value, policy) = direct_evaluation(&network, &observation, &legal);
        assert_close(&[answer.value], &[value], 0.1, "bf16 value");
        assert_close(&answer.policy, &policy, 0.05, "bf16 policy");
        let sum: f32 = answer.policy.iter().sum();
        assert!((sum - 1.0).abs() < 1e-4, "outputs are f32 and normalised: {sum}");
    }
}

mod checkpoint {
    use std::fs;
    use std::path::PathBuf;

    use super::*;
    use crate::checkpoint::{self, fnv1a64, CheckpointError, CheckpointPaths, TrainingState};

    /// A fresh directory under the system temporary directory, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            let path =
                std::env::temp_dir().join(format!("gipfzero-model-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&path);
            fs::create_dir_all(&path).unwrap();
            TempDir(path)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn saved(dir: &TempDir, spec: &Spec) -> (Network, PathBuf) {
        let network = random_network(spec, 11);
        let name = dir.0.join("step-000042");
        checkpoint::save(
            &name,
            &network,
            &TrainingState { step: 42, config_hash: "abc123".into(), ..Default::default() },
        )
        .unwrap();
        (network, name)
    }

    /// Replaces the weights file and makes the sidecar agree with it, so that only the
    /// safetensors decoding can notice what is wrong.
    fn replace_weights_consistently(name: &PathBuf, bytes: &[u8]) {
        let paths = CheckpointPaths::new(name);
        fs::write(&paths.weights, bytes).unwrap();
        let mut info = checkpoint::read_info(name).unwrap();
        info.weights.bytes = bytes.len() as u64;
        info.weights.fnv1a64 = format!("{:016x}", fnv1a64(bytes));
        fs::write(&paths.sidecar, serde_json::to_vec(&info).unwrap()).unwrap();
    }

    fn damaged(result: Result<checkpoint::Checkpoint, CheckpointError>) -> String {
        match result {
            Err(CheckpointError::Damaged { message, .. }) => message,
            other => panic!("expected Damaged, got {other:?}"),
        }
    }

    #[test]
    fn save_then_load_gives_identical_outputs_and_training_state() {
        let dir = TempDir::new("roundtrip");
        let network = random_network(&LYNGK, 12);
        let moments = Tensor::from_slice(&[1.5f32, -2.0, 3.25]).reshape([3, 1]);
        let training = TrainingState {
            step: 1234,
            config_hash: "c0ffee".into(),
            tensors: vec![
                ("adam.step".into(), Tensor::from_slice(&[7i64])),
                ("adam.m".into(), moments),
            ],
            metadata: serde_json::json!({ "rng": 99, "lr": 0.01 }),
        };
        let name = dir.0.join("latest");
        let info = checkpoint::save(&name, &network, &training).unwrap();
        assert_eq!(info.step, 1234);
        assert_eq!((info.game.as_str(), info.variant.as_str()), ("lyngk", "lyngk"));
        assert_eq!(info.weights.file, "latest.safetensors");
        // Only the two final files remain: the temporary files were renamed.
        let mut files: Vec<String> = fs::read_dir(&dir.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        assert_eq!(files, ["latest.json", "latest.safetensors"]);

        // Either file's path names the checkpoint.
        let loaded = checkpoint::load(dir.0.join("latest.json"), &LYNGK, Device::Cpu).unwrap();
        assert_eq!(loaded.info, info);
        assert_eq!(loaded.network.config(), network.config());
        let data = observations(&LYNGK, 3, &mut SplitMix64::new(12));
        let (before, after) = (network.forward_slice(&data), loaded.network.forward_slice(&data));
        assert_eq!(to_vec(&before.policy_logits), to_vec(&after.policy_logits));
        assert_eq!(to_vec(&before.value), to_vec(&after.value));

        assert_eq!(loaded.training.step, 1234);
        assert_eq!(loaded.training.config_hash, "c0ffee");
        assert_eq!(loaded.training.metadata, serde_json::json!({ "rng": 99, "lr": 0.01 }));
        let names: Vec<&str> = loaded.training.tensors.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["adam.step", "adam.m"]);
        assert_eq!(Vec::<i64>::try_from(&loaded.training.tensors[0].1).unwrap(), [7]);
        assert_eq!(loaded.training.tensors[1].1.size(), [3, 1]);
        assert_eq!(to_vec(&loaded.training.tensors[1].1), [1.5, -2.0, 3.25]);
    }

    #[test]
    fn weights_are_a_safetensors_file_with_the_documented_names() {
        let dir = TempDir::new("format");
        let (network, name) = saved(&dir, &ZERTZ);
        let bytes = fs::read(CheckpointPaths::new(&name).weights).unwrap();
        // safetensors: a little-endian u64 header length, a JSON header, the raw data.
        let header_len = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
        let header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + header_len]).unwrap();
        let stem = &header["trunk.stem.conv.weight"];
        assert_eq!(stem["dtype"], "F32");
        assert_eq!(stem["shape"], serde_json::json!([16, 18, 3, 3]));
        let names = header.as_object().unwrap().keys().filter(|k| *k != "__metadata__").count();
        assert_eq!(names, network.parameter_shapes().len());
    }

    #[test]
    fn another_game_variant_or_shape_is_refused() {
        let dir = TempDir::new("mismatch");
        let (_, name) = saved(&dir, &ZERTZ);
        match checkpoint::load(&name, &ZERTZ_61, Device::Cpu) {
            Err(CheckpointError::WrongGame { found_variant, expected_variant, .. }) => {
                assert_eq!((found_variant.as_str(), expected_variant.as_str()), ("37", "61"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            checkpoint::load(&name, &DVONN, Device::Cpu),
            Err(CheckpointError::WrongGame { .. })
        ));
        let wider = Spec { width: 8, ..ZERTZ };
        match checkpoint::load(&name, &wider, Device::Cpu) {
            Err(CheckpointError::WrongShape { found, expected, .. }) => {
                assert_eq!(found, [18, 7, 7, 371]);
                assert_eq!(expected, [18, 7, 8, 371]);
            }
            other => panic!("{other:?}"),
        }
        let more_actions = Spec { action_count: 372, ..ZERTZ };
        assert!(matches!(
            checkpoint::load(&name, &more_actions, Device::Cpu),
            Err(CheckpointError::WrongShape { .. })
        ));
        assert!(checkpoint::load(&name, &ZERTZ, Device::Cpu).is_ok());
    }

    #[test]
    fn missing_files_are_reported_by_name() {
        let dir = TempDir::new("missing");
        let absent = dir.0.join("nothing");
        match checkpoint::load(&absent, &ZERTZ, Device::Cpu) {
            Err(CheckpointError::Missing { path }) => assert_eq!(path, dir.0.join("nothing.json")),
            other => panic!("{other:?}"),
        }
        let (_, name) = saved(&dir, &ZERTZ);
        fs::remove_file(CheckpointPaths::new(&name).weights).unwrap();
        match checkpoint::load(&name, &ZERTZ, Device::Cpu) {
            Err(CheckpointError::Missing { path }) => {
                assert_eq!(path, dir.0.join("step-000042.safetensors"))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn truncated_or_altered_weights_are_damaged() {
        let dir = TempDir::new("damaged");
        let (_, name) = saved(&dir, &ZERTZ);
        let weights = CheckpointPaths::new(&name).weights;
        let original = fs::read(&weights).unwrap();
        fs::write(&weights, &original[..original.len() / 2]).unwrap();
        assert!(damaged(checkpoint::load(&name, &ZERTZ, Device::Cpu)).contains("bytes"));
        let mut flipped = original.clone();
        flipped[original.len() - 5] ^= 0x40;
        fs::write(&weights, &flipped).unwrap();
        assert!(damaged(checkpoint::load(&name, &ZERTZ, Device::Cpu)).contains("hash"));
        fs::write(&weights, &original).unwrap();
        assert!(checkpoint::load(&name, &ZERTZ, Device::Cpu).is_ok());
    }

    #[test]
    fn corrupt_safetensors_are_errors_not_panics() {
        let dir = TempDir::new("corrupt");
        let (_, name) = saved(&dir, &ZERTZ);
        let original = fs::read(CheckpointPaths::new(&name).weights).unwrap();
        let header_len = u64::from_le_bytes(original[..8].try_into().unwrap()) as usize;
        let mut huge_header = original.clone();
        huge_header[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        let mut garbage_header = original.clone();
        garbage_header[8..8 + header_len].fill(b'#');
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("empty", Vec::new()),
            ("shorter than its length field", original[..5].to_vec()),
            ("truncated data", original[..original.len() - 100].to_vec()),
            ("truncated header", original[..8 + header_len / 2].to_vec()),
            ("header length beyond the file", huge_header),
            ("header not JSON", garbage_header),
        ];
        for (what, bytes) in cases {
            replace_weights_consistently(&name, &bytes);
            let message = damaged(checkpoint::load(&name, &ZERTZ, Device::Cpu));
            assert!(!message.is_empty(), "{what}");
        }
    }

    #[test]
    fn wrongly_shaped_missing_or_unexpected_tensors_are_damaged() {
        let dir = TempDir::new("tensors");
        let (network, name) = saved(&dir, &ZERTZ);
        let weights = CheckpointPaths::new(&name).weights;
        type Edit<'a> = &'a dyn Fn(&mut Vec<(String, Tensor)>);
        let rewrite = |edit: Edit| {
            let mut tensors: Vec<(String, Tensor)> =
                network.var_store().variables().into_iter().collect();
            edit(&mut tensors);
            Tensor::write_safetensors(&tensors, &weights).unwrap();
            replace_weights_consistently(&name, &fs::read(&weights).unwrap());
            damaged(checkpoint::load(&name, &ZERTZ, Device::Cpu))
        };
        // A [1] tensor would broadcast silently in libtorch's copy_.
        let message = rewrite(&|tensors| {
            let entry = tensors.iter_mut().find(|(n, _)| n == "value.fc2.bias").unwrap();
            entry.1 = Tensor::from_slice(&[0.5f32, 0.5]);
        });
        assert!(message.contains("value.fc2.bias") && message.contains("shape"), "{message}");
        let message = rewrite(&|tensors| {
            let entry = tensors.iter_mut().find(|(n, _)| n == "value.fc2.bias").unwrap();
            entry.1 = Tensor::from_slice(&[1.0f64]);
        });
        assert!(message.contains("Float"), "{message}");
        let message = rewrite(&|tensors| tensors.retain(|(n, _)| n != "policy.fc.weight"));
        assert!(message.contains("policy.fc.weight is missing"), "{message}");
        let message = rewrite(&|tensors| {
            tensors.push(("trunk.block9.conv1.weight".into(), Tensor::from_slice(&[1.0f32])))
        });
        assert!(message.contains("unexpected tensor trunk.block9.conv1.weight"), "{message}");
    }

    #[test]
    fn a_bad_sidecar_is_an_error() {
        let dir = TempDir::new("sidecar");
        let (_, name) = saved(&dir, &ZERTZ);
        let sidecar = CheckpointPaths::new(&name).sidecar;
        let text = fs::read_to_string(&sidecar).unwrap();
        fs::write(&sidecar, &text[..text.len() / 2]).unwrap();
        assert!(matches!(
            checkpoint::load(&name, &ZERTZ, Device::Cpu),
            Err(CheckpointError::Sidecar { .. })
        ));
        fs::write(&sidecar, text.replace("\"format_version\": 1", "\"format_version\": 2"))
            .unwrap();
        assert!(matches!(
            checkpoint::load(&name, &ZERTZ, Device::Cpu),
            Err(CheckpointError::Version { found: 2, .. })
        ));
        fs::write(&sidecar, text.replace("\"norm_groups\": 4", "\"norm_groups\": 5")).unwrap();
        assert!(matches!(
            checkpoint::load(&name, &ZERTZ, Device::Cpu),
            Err(CheckpointError::Sidecar { .. })
        ));
        fs::write(&sidecar, &text).unwrap();
        assert!(checkpoint::load(&name, &ZERTZ, Device::Cpu).is_ok());
    }

    #[test]
    fn paths_accept_either_extension() {
        let expected =
            CheckpointPaths { weights: "d/c.safetensors".into(), sidecar: "d/c.json".into() };
        for name in ["d/c", "d/c.json", "d/c.safetensors"] {
            assert_eq!(CheckpointPaths::new(name), expected);
        }
        assert_eq!(CheckpointPaths::new("d/step.5").sidecar, PathBuf::from("d/step.5.json"));
    }
}

mod bench {
    use std::time::Duration;

    use super::*;
    use crate::bench::{forward_throughput, graph_difference, server_throughput, PassSetting};
    use crate::inference::Precision;
    use crate::{DeviceChoice, ServerConfig};

    #[test]
    fn throughput_is_measured_for_each_batch_size() {
        single_thread();
        let figures = forward_throughput(
            &DVONN,
            &NetConfig::tiny(),
            &[1, 4],
            PassSetting::plain(DeviceChoice::Cpu, Precision::F32),
            Duration::from_millis(20),
            1,
        )
        .unwrap();
        assert_eq!(figures.iter().map(|f| f.batch).collect::<Vec<_>>(), [1, 4]);
        assert!(figures.iter().all(|f| f.positions_per_s.is_finite() && f.positions_per_s > 0.0));
        for precision in [Precision::F32, Precision::Bf16] {
            for cuda_graphs in [false, true] {
                let setting = PassSetting { device: DeviceChoice::Cpu, precision, cuda_graphs };
                let replicated = forward_throughput(&DVONN, &NetConfig::tiny(), &[4], setting, Duration::from_millis(20), 2).unwrap();
                assert!(replicated[0].positions_per_s.is_finite() && replicated[0].positions_per_s > 0.0, "{setting:?}");
            }
        }
        // On the CPU the buckets run the plain pass's computation: no difference at all, also
        // for batches that fill a bucket only partly.
        let setting = PassSetting { device: DeviceChoice::Cpu, precision: Precision::F32, cuda_graphs: true };
        let differences = graph_difference(&DVONN, &NetConfig::tiny(), &[1, 5, 16, 17, 40], setting).unwrap();
        assert_eq!(differences, [(1, 0.0), (5, 0.0), (16, 0.0), (17, 0.0), (40, 0.0)]);
        assert_eq!("bf16".parse::<Precision>(), Ok(Precision::Bf16));
        assert_eq!("f32".parse::<Precision>(), Ok(Precision::F32));
        assert!("fp16".parse::<Precision>().is_err());
        let config = ServerConfig { device: DeviceChoice::Cpu, ..Default::default() };
        let rate =
            server_throughput(&DVONN, &NetConfig::tiny(), config, 2, 4, Duration::from_millis(20))
                .unwrap();
        assert!(rate.is_finite() && rate > 0.0);
    }
}
