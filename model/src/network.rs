//! The policy/value network: one residual convolutional network for every game and variant.
//!
//! Nothing here is specific to a game. The network takes a variant's [`Spec`] as data:
//! `planes × height × width` input planes (hexagonal boards are already laid out on the
//! rectangular grid by each game's `encode`, with a plane marking the board cells) and
//! `action_count` policy outputs. The policy head ends in a fully connected layer because the
//! action spaces are not one action per cell (ZÈRTZ has placements with a ring removal, LYNGK
//! moves, passes), so any fixed action numbering works.
//!
//! Architecture, with the parameter names (tch joins path components with `.`; every name is
//! stable, Python tools read them from the safetensors checkpoints):
//!
//! | layer | parameters | shape |
//! |---|---|---|
//! | stem: 3×3 conv + group norm + ReLU | `trunk.stem.conv.weight` | `[C, planes, 3, 3]` |
//! | | `trunk.stem.norm.weight`, `trunk.stem.norm.bias` | `[C]` |
//! | residual block `i` (`0..blocks`) | `trunk.block{i}.conv1.weight`, `…conv2.weight` | `[C, C, 3, 3]` |
//! | | `trunk.block{i}.norm1.{weight,bias}`, `…norm2.{weight,bias}` | `[C]` |
//! | global pooling bias | `trunk.block{i}.pool.weight` | `[C, 2·G]` |
//! | | `trunk.block{i}.pool.bias` | `[C]` |
//! | policy: 1×1 conv + norm + ReLU | `policy.conv.weight` | `[P, C, 1, 1]` |
//! | | `policy.norm.{weight,bias}` | `[P]` |
//! | policy logits | `policy.fc.weight` | `[action_count, P·H·W]` |
//! | | `policy.fc.bias` | `[action_count]` |
//! | value: 1×1 conv + norm + ReLU | `value.conv.weight` | `[V, C, 1, 1]` |
//! | | `value.norm.{weight,bias}` | `[V]` |
//! | value hidden layer + ReLU | `value.fc1.weight`, `value.fc1.bias` | `[hidden, V·H·W]`, `[hidden]` |
//! | value output + tanh | `value.fc2.weight`, `value.fc2.bias` | `[1, hidden]`, `[1]` |
//!
//! with `C = channels`, `G = global_pool_channels`, `P = policy_channels`,
//! `V = value_channels`, `hidden = value_hidden` of [`NetConfig`]. Residual block `i` is
//! `x + norm2(conv2(pool(relu(norm1(conv1(x))))))` followed by ReLU (see [`crate::layers`]).
use gipfzero_games::{Action, Spec};
use tch::nn::{self, Module};
use tch::{Device, Kind, Tensor};
use thiserror::Error;

use crate::layers::{linear_rows, ConvNorm, ResidualBlock};

/// The size of the network, also the `network:` block of a training config (a key left out
/// takes [`NetConfig::default`]'s value; an unknown one is an error). The file format of
/// checkpoints has its own record (see [`crate::checkpoint`]), so renaming a field here never
/// silently changes old checkpoint files; it does rename the config key.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetConfig {
    /// Residual blocks in the trunk.
    pub blocks: usize,
    /// Channels of the trunk.
    pub channels: usize,
    /// Channels of each block whose mean and maximum feed the global pooling bias.
    pub global_pool_channels: usize,
    /// Channels of the policy head's 1×1 convolution.
    pub policy_channels: usize,
    /// Channels of the value head's 1×1 convolution.
    pub value_channels: usize,
    /// Width of the value head's hidden layer.
    pub value_hidden: usize,
    /// Groups of the group normalisations; divides `channels`, `policy_channels` and
    /// `value_channels`.
    pub norm_groups: usize,
}

impl Default for NetConfig {
    /// 3 blocks × 32 channels, the network every CPU training config trains: about 5 times
    /// faster per position than [`NetConfig::medium`], which one CPU core of a small machine
    /// evaluates at only a few hundred positions per second (docs/PERFORMANCE.md).
    fn default() -> Self {
        NetConfig {
            blocks: 3,
            channels: 32,
            global_pool_channels: 8,
            policy_channels: 8,
            value_channels: 8,
            value_hidden: 64,
            norm_groups: 4,
        }
    }
}

impl NetConfig {
    /// 6 blocks × 64 channels, the GPU configs' network: deep enough to see across a 9×9 grid
    /// (the receptive field of 13 3×3 convolutions plus global pooling).
    pub fn medium() -> Self {
        NetConfig {
            blocks: 6,
            channels: 64,
            global_pool_channels: 16,
            policy_channels: 32,
            value_channels: 32,
            value_hidden: 128,
            norm_groups: 8,
        }
    }

    /// A network small enough for tests and smoke runs (about 30 thousand parameters on a
    /// 9×9 board, a fraction of a millisecond per position).
    pub fn tiny() -> Self {
        NetConfig {
            blocks: 2,
            channels: 16,
            global_pool_channels: 4,
            policy_channels: 8,
            value_channels: 4,
            value_hidden: 16,
            norm_groups: 4,
        }
    }

    /// Checks that the numbers fit together.
    pub fn validate(&self) -> Result<(), NetConfigError> {
        let positive = [
            ("channels", self.channels),
            ("global_pool_channels", self.global_pool_channels),
            ("policy_channels", self.policy_channels),
            ("value_channels", self.value_channels),
            ("value_hidden", self.value_hidden),
            ("norm_groups", self.norm_groups),
        ];
        for (name, value) in positive {
            if value == 0 {
                return Err(NetConfigError::Zero(name));
            }
        }
        // Sizes far beyond any network of this field (KataGo's largest have 40-60 blocks and
        // at most 512 channels), which would otherwise only fail as an allocation inside
        // libtorch, a panic.
        for (name, value, most) in [
            ("blocks", self.blocks, 64),
            ("channels", self.channels, 1024),
            ("policy_channels", self.policy_channels, 1024),
            ("value_channels", self.value_channels, 1024),
            ("value_hidden", self.value_hidden, 4096),
        ] {
            if value > most {
                return Err(NetConfigError::TooLarge { name, value, most });
            }
        }
        if self.global_pool_channels > self.channels {
            return Err(NetConfigError::TooManyPooled {
                pooled: self.global_pool_channels,
                channels: self.channels,
            });
        }
        for (name, value) in [
            ("channels", self.channels),
            ("policy_channels", self.policy_channels),
            ("value_channels", self.value_channels),
        ] {
            if value % self.norm_groups != 0 {
                return Err(NetConfigError::Groups { name, value, groups: self.norm_groups });
            }
        }
        Ok(())
    }
}

/// A [`NetConfig`] or [`Spec`] whose numbers do not fit together.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NetConfigError {
    #[error("network setting {0} must be positive")]
    Zero(&'static str),
    #[error("network setting {name} ({value}) must be at most {most}")]
    TooLarge { name: &'static str, value: usize, most: usize },
    #[error("global_pool_channels ({pooled}) exceeds channels ({channels})")]
    TooManyPooled { pooled: usize, channels: usize },
    #[error("{name} ({value}) is not a multiple of norm_groups ({groups})")]
    Groups { name: &'static str, value: usize, groups: usize },
    #[error("the variant's spec has an empty dimension (planes, height, width and action_count must be positive)")]
    EmptySpec,
}

/// What one forward pass returns.
#[derive(Debug)]
pub struct NetworkOutput {
    /// Unnormalised policy scores, `[B, action_count]`.
    pub policy_logits: Tensor,
    /// The expected outcome for the player to move, in `[-1, 1]`, `[B]`.
    pub value: Tensor,
}

/// The policy/value network of one variant, with its parameters in a [`nn::VarStore`].
#[derive(Debug)]
pub struct Network {
    vs: nn::VarStore,
    spec: Spec,
    config: NetConfig,
    stem: ConvNorm,
    blocks: Vec<ResidualBlock>,
    policy_conv: ConvNorm,
    policy_fc: nn::Linear,
    value_conv: ConvNorm,
    value_fc1: nn::Linear,
    value_fc2: nn::Linear,
}

impl Network {
    /// A freshly initialised network for `spec` on `device`.
    pub fn new(spec: &Spec, config: &NetConfig, device: Device) -> Result<Network, NetConfigError> {
        config.validate()?;
        if spec.planes == 0 || spec.height == 0 || spec.width == 0 || spec.action_count == 0 {
            return Err(NetConfigError::EmptySpec);
        }
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let trunk = &root / "trunk";
        let channels = config.channels as i64;
        let groups = config.norm_groups as i64;
        let cells = (spec.height * spec.width) as i64;
        let stem = ConvNorm::new(
            &(&trunk / "stem"),
            "conv",
            "norm",
            spec.planes as i64,
            channels,
            3,
            groups,
            false,
        );
        let blocks = (0..config.blocks)
            .map(|i| {
                ResidualBlock::new(
                    &(&trunk / format!("block{i}")),
                    channels,
                    config.global_pool_channels as i64,
                    groups,
                )
            })
            .collect();
        let policy = &root / "policy";
        let policy_channels = config.policy_channels as i64;
        let policy_conv =
            ConvNorm::new(&policy, "conv", "norm", channels, policy_channels, 1, groups, false);
        let policy_fc = nn::linear(
            &policy / "fc",
            policy_channels * cells,
            spec.action_count as i64,
            Default::default(),
        );
        let value = &root / "value";
        let value_channels = config.value_channels as i64;
        let value_conv =
            ConvNorm::new(&value, "conv", "norm", channels, value_channels, 1, groups, false);
        let value_fc1 = nn::linear(
            &value / "fc1",
            value_channels * cells,
            config.value_hidden as i64,
            Default::default(),
        );
        let value_fc2 =
            nn::linear(&value / "fc2", config.value_hidden as i64, 1, Default::default());
        Ok(Network {
            vs,
            spec: spec.clone(),
            config: config.clone(),
            stem,
            blocks,
            policy_conv,
            policy_fc,
            value_conv,
            value_fc1,
            value_fc2,
        })
    }

    /// A network with the same spec, configuration and weights on `device` (a snapshot: later
    /// training of `self` does not change it).
    pub fn copy_to(&self, device: Device) -> Network {
        let mut copy = Network::new(&self.spec, &self.config, device)
            .expect("the configuration was validated when self was built");
        copy.vs.copy(&self.vs).expect("same configuration, hence the same parameters");
        copy
    }

    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    pub fn device(&self) -> Device {
        self.vs.device()
    }

    /// The parameters (for the optimiser, for checkpoints, for casting to another precision).
    pub fn var_store(&self) -> &nn::VarStore {
        &self.vs
    }

    pub fn var_store_mut(&mut self) -> &mut nn::VarStore {
        &mut self.vs
    }

    /// The parameter names and shapes, sorted by name.
    pub fn parameter_shapes(&self) -> Vec<(String, Vec<i64>)> {
        let mut shapes: Vec<_> =
            self.vs.variables().into_iter().map(|(name, tensor)| (name, tensor.size())).collect();
        shapes.sort();
        shapes
    }

    /// The number of scalar parameters.
    pub fn parameter_count(&self) -> usize {
        self.vs.variables().values().map(|tensor| tensor.numel()).sum()
    }

    /// One forward pass. `observations` is `[B, planes, height, width]` or
    /// `[B, planes·height·width]` (as [`gipfzero_games::Game::encode`] writes them, one after
    /// the other), on the network's device, in the parameters' precision.
    pub fn forward(&self, observations: &Tensor) -> NetworkOutput {
        self.forward_rows(observations, 1)
    }

    /// [`Network::forward`] with the linear layers' rows padded to a multiple of `pad_rows`
    /// ([`crate::layers::linear_rows`]) and a single position padded to two: the same
    /// computation, whose answer for a position has the same bits whatever other positions
    /// share the pass (for `pad_rows` a multiple of the CPU kernels' row block, 16 by default:
    /// see `crate::inference`; 1 is the plain pass). What the inference
    /// server runs.
    pub fn forward_rows(&self, observations: &Tensor, pad_rows: usize) -> NetworkOutput {
        let batch = observations.size()[0];
        if pad_rows > 1 && batch == 1 {
            // libtorch convolves one position by another path than two or more (other last
            // bits; from two rows on, a row's bits do not depend on the others): a lone
            // position gets a zero row beside it.
            let zeros = observations.zeros_like();
            let output = self.forward_rows(&Tensor::cat(&[observations, &zeros], 0), pad_rows);
            return NetworkOutput {
                policy_logits: output.policy_logits.narrow(0, 0, 1),
                value: output.value.narrow(0, 0, 1),
            };
        }
        let (planes, height, width) =
            (self.spec.planes as i64, self.spec.height as i64, self.spec.width as i64);
        let xs = observations.reshape([batch, planes, height, width]);
        let mut trunk = self.stem.forward(&xs).relu();
        for block in &self.blocks {
            trunk = block.forward_rows(&trunk, pad_rows);
        }
        let policy_features = self.policy_conv.forward(&trunk).relu().flatten(1, 3);
        let policy_logits = linear_rows(&self.policy_fc, &policy_features, pad_rows);
        let value_features = self.value_conv.forward(&trunk).relu().flatten(1, 3);
        let value_hidden = linear_rows(&self.value_fc1, &value_features, pad_rows).relu();
        let value = linear_rows(&self.value_fc2, &value_hidden, pad_rows).tanh().squeeze_dim(1);
        NetworkOutput { policy_logits, value }
    }

    /// A forward pass over observations given as `f32` values (`B × observation_len`), without
    /// gradients; the outputs are `f32` on the CPU.
    ///
    /// # Panics
    /// When `observations` is not a whole number of observations (a caller's logic error; the
    /// inference server checks its requests before they get here).
    pub fn forward_slice(&self, observations: &[f32]) -> NetworkOutput {
        let len = self.spec.observation_len();
        assert_eq!(observations.len() % len, 0, "observations are not a whole number of positions");
        let kind = self.parameter_kind();
        let xs = Tensor::from_slice(observations)
            .reshape([(observations.len() / len) as i64, len as i64])
            .to_device(self.device())
            .to_kind(kind);
        let output = tch::no_grad(|| self.forward(&xs));
        NetworkOutput {
            policy_logits: output.policy_logits.to_kind(Kind::Float).to_device(Device::Cpu),
            value: output.value.to_kind(Kind::Float).to_device(Device::Cpu),
        }
    }

    /// The precision the parameters are stored in (`Float`, or `BFloat16` after casting).
    pub fn parameter_kind(&self) -> Kind {
        self.vs.variables().values().next().map_or(Kind::Float, |tensor| tensor.kind())
    }
}

/// A `[B, action_count]` boolean tensor, true at each position's legal actions.
pub fn legal_mask(legal: &[&[Action]], action_count: usize, device: Device) -> Tensor {
    let mut mask = vec![false; legal.len() * action_count];
    for (row, actions) in legal.iter().enumerate() {
        for action in actions.iter() {
            mask[row * action_count + action.index()] = true;
        }
    }
    Tensor::from_slice(&mask).reshape([legal.len() as i64, action_count as i64]).to_device(device)
}

/// The policy over the legal actions: softmax of the logits with illegal actions at -∞, so
/// legal actions sum to 1 and illegal ones are exactly 0. A row without legal actions is all
/// zeros (rather than the NaN of a softmax over nothing).
pub fn masked_softmax(policy_logits: &Tensor, legal_mask: &Tensor) -> Tensor {
    let illegal = legal_mask.logical_not();
    policy_logits
        .to_kind(Kind::Float)
        .masked_fill(&illegal, f64::NEG_INFINITY)
        .softmax(-1, Kind::Float)
        .masked_fill(&illegal, 0.0)
}

/// The same softmax on the CPU for one position: appends to `out` the probabilities of the
/// `legal` actions, in their order, from that position's row of logits.
pub fn softmax_over_legal(logits: &[f32], legal: &[Action], out: &mut Vec<f32>) {
    let start = out.len();
    let max = legal.iter().map(|a| logits[a.index()]).fold(f32::NEG_INFINITY, f32::max);
    out.extend(legal.iter().map(|a| (logits[a.index()] - max).exp()));
    let sum: f32 = out[start..].iter().sum();
    for p in &mut out[start..] {
        *p /= sum;
    }
}
