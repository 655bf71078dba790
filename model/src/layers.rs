//! The building blocks of the network: convolution + normalisation, global pooling bias, and
//! the residual block that combines them.
//!
//! Normalisation is group normalisation, not batch normalisation. Batch norm normalises with
//! the statistics of the current batch while training and with running averages in
//! evaluation, so the same weights behave differently in the two modes, and the inference
//! server's batches range from 1 position to hundreds: a position's evaluation would depend
//! on what else happened to be in its batch, and small training batches would make the running
//! averages noisy. Group norm uses only the statistics of one position, so train and eval are
//! the same computation, answers do not depend on batch composition (the inference tests rely
//! on this), and there is no running state to checkpoint. Its cost on CPU is one extra pass
//! over the activations per layer, small next to a 3×3 convolution.
//!
//! Every layer takes a [`nn::Path`] and names its parameters below it, so parameter names are
//! the path of the layer plus `weight`/`bias` (see the network module for the full list).
use tch::nn::{self, Module};
use tch::Tensor;

/// A bias-free convolution followed by group normalisation (the bias would be cancelled by
/// the normalisation's mean subtraction; the norm's own bias takes its place).
///
/// Parameters: `conv.weight` `[out, in, k, k]`, `norm.weight` `[out]`, `norm.bias` `[out]`
/// (names relative to the layer's path, with the prefixes given at construction).
#[derive(Debug)]
pub struct ConvNorm {
    conv: nn::Conv2D,
    norm: nn::GroupNorm,
}

impl ConvNorm {
    /// `conv_name` and `norm_name` name the two sub-layers under `path`. A zero-initialised
    /// norm scale (`zero_scale`) makes the layer output zero at initialisation: used as the
    /// last layer of a residual branch, the block then starts as the identity, which keeps deep
    /// trunks trainable from the first step (Goyal et al., "Accurate, Large Minibatch SGD").
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        path: &nn::Path,
        conv_name: &str,
        norm_name: &str,
        in_channels: i64,
        out_channels: i64,
        kernel: i64,
        groups: i64,
        zero_scale: bool,
    ) -> ConvNorm {
        let conv = nn::conv2d(
            path / conv_name,
            in_channels,
            out_channels,
            kernel,
            nn::ConvConfig { padding: kernel / 2, bias: false, ..Default::default() },
        );
        let mut norm_config = nn::GroupNormConfig::default();
        if zero_scale {
            norm_config.ws_init = nn::Init::Const(0.0);
        }
        let norm = nn::group_norm(path / norm_name, groups, out_channels, norm_config);
        ConvNorm { conv, norm }
    }
}

impl Module for ConvNorm {
    fn forward(&self, xs: &Tensor) -> Tensor {
        self.norm.forward(&self.conv.forward(xs))
    }
}

/// KataGo-style global pooling bias: the mean and the maximum over the board of the first
/// `pooled` channels, passed through a linear layer, become a bias for every channel. A 3×3
/// convolution only sees its neighbourhood; this lets each cell's features depend on the whole
/// board (material balance, a distant isolated group) at the cost of one small linear layer.
///
/// Parameters: `weight` `[channels, 2·pooled]`, `bias` `[channels]`.
#[derive(Debug)]
pub struct GlobalPoolBias {
    linear: nn::Linear,
    pooled: i64,
}

impl GlobalPoolBias {
    pub fn new(path: nn::Path, pooled: i64, channels: i64) -> GlobalPoolBias {
        GlobalPoolBias {
            linear: nn::linear(path, 2 * pooled, channels, Default::default()),
            pooled,
        }
    }
}

impl GlobalPoolBias {
    /// `xs` is `[B, C, H, W]`; the result has the same shape. The linear layer sees its rows
    /// padded to a multiple of `pad_rows` (see [`linear_rows`]).
    pub fn forward_rows(&self, xs: &Tensor, pad_rows: usize) -> Tensor {
        let pooled = xs.narrow(1, 0, self.pooled).flatten(2, 3);
        let mean = pooled.mean_dim(-1, false, pooled.kind());
        let (max, _) = pooled.max_dim(-1, false);
        let bias = linear_rows(&self.linear, &Tensor::cat(&[mean, max], 1), pad_rows);
        xs + bias.unsqueeze(-1).unsqueeze(-1)
    }
}

impl Module for GlobalPoolBias {
    fn forward(&self, xs: &Tensor) -> Tensor {
        self.forward_rows(xs, 1)
    }
}

/// `linear` over the rows of `xs` (`[B, in]`), computed on the rows padded with zero rows to
/// a multiple of `pad_rows` and cut back to `B`.
///
/// Why: libtorch's CPU matrix products give a row different last bits depending on how many
/// rows the product has (the kernels block the rows, and a remainder block sums in another
/// order), while its convolutions and group norms compute each position on its own. Padding
/// the linear layers' rows, and only theirs, makes a position's answer the same whatever
/// shares its pass (`gipfzero_model::inference`), for the price of a few rows of the cheapest
/// layers instead of a few whole positions. `pad_rows` 1 is the plain layer.
pub fn linear_rows(linear: &nn::Linear, xs: &Tensor, pad_rows: usize) -> Tensor {
    let rows = xs.size()[0];
    let padded = (rows as usize).next_multiple_of(pad_rows.max(1)) as i64;
    if padded == rows {
        return linear.forward(xs);
    }
    let zeros = Tensor::zeros([padded - rows, xs.size()[1]], (xs.kind(), xs.device()));
    linear.forward(&Tensor::cat(&[xs, &zeros], 0)).narrow(0, 0, rows)
}

/// A residual block: `x + norm2(conv2(pool(relu(norm1(conv1(x))))))`, then ReLU.
///
/// Parameters under the block's path: `conv1.weight`, `norm1.{weight,bias}`,
/// `pool.{weight,bias}`, `conv2.weight`, `norm2.{weight,bias}`.
#[derive(Debug)]
pub struct ResidualBlock {
    first: ConvNorm,
    pool: GlobalPoolBias,
    second: ConvNorm,
}

impl ResidualBlock {
    pub fn new(path: &nn::Path, channels: i64, pooled: i64, groups: i64) -> ResidualBlock {
        ResidualBlock {
            first: ConvNorm::new(path, "conv1", "norm1", channels, channels, 3, groups, false),
            pool: GlobalPoolBias::new(path / "pool", pooled, channels),
            second: ConvNorm::new(path, "conv2", "norm2", channels, channels, 3, groups, true),
        }
    }
}

impl ResidualBlock {
    /// The block, its pooling's linear layer on rows padded to a multiple of `pad_rows` (see
    /// [`linear_rows`]).
    pub fn forward_rows(&self, xs: &Tensor, pad_rows: usize) -> Tensor {
        let branch = self.pool.forward_rows(&self.first.forward(xs).relu(), pad_rows);
        (xs + self.second.forward(&branch)).relu()
    }
}

impl Module for ResidualBlock {
    fn forward(&self, xs: &Tensor) -> Tensor {
        self.forward_rows(xs, 1)
    }
}
