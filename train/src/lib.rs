//! Training and evaluation of gipfzero agents.
//!
//! So far: the statistics of evaluation matches ([`stats`]) — Elo differences with
//! confidence intervals and the sequential probability ratio test that stops a match once
//! its answer is clear. The AlphaZero loop (self-play → replay window → SGD → checkpoint →
//! evaluation) builds on it.
pub mod evaluate;
pub mod stats;
