//! The replay window: the recent self-play positions SGD draws its minibatches from.
//!
//! AlphaZero trains on a sliding window of recent games; how stale the window may get and
//! how often one position is reused decide whether the network fits the current player or
//! overfits old ones. So the window is bounded three ways:
//! - by **generations** (one generation = the samples of one self-play iteration): only the
//!   `max_generations` most recent are kept;
//! - by **positions**: at most `max_positions`, dropping the oldest generations first and, if
//!   one generation alone is too large, its oldest positions;
//! - by **reuse**: a position is drawn at most `max_reuse` times, then leaves the window, so
//!   a slow self-play phase cannot make SGD memorise the same games.
//!
//! Minibatches are drawn uniformly among the live positions, without repetition inside a
//! batch, from the window's own seeded [`SplitMix64`].
//!
//! Crash recovery: the window's contents are the generations' samples, which live on disk as
//! shards, plus small counters. [`ReplayWindow::state`] returns exactly those counters — for
//! each generation its id, how many of its oldest positions were trimmed, and the use count
//! of every position — and the RNG state; [`ReplayWindow::restore`] rebuilds an identical
//! window (same future minibatches) from them and a loader that reads a generation's samples
//! back (from its shards). The state is plain serde data (JSON in the run's resume file),
//! about two bytes per position in the window.
use gipfzero_games::SplitMix64;
pub use gipfzero_selfplay::samples::{InconsistentSamples, Samples};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::config::ReplayConfig;

/// One generation in the window.
#[derive(Clone, Debug)]
struct Generation {
    id: u64,
    samples: Samples,
    /// Positions before this index were trimmed by the position bound.
    start: usize,
    uses: Vec<u16>,
}

/// The counters that, with the generations' samples, rebuild a window exactly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayState {
    pub rng_state: u64,
    pub generations: Vec<GenerationState>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerationState {
    pub id: u64,
    /// Oldest positions trimmed by the position bound.
    pub start: usize,
    /// Times each position (of the kept samples, trimmed ones included) was drawn.
    pub uses: Vec<u16>,
}

/// Why a window could not be rebuilt.
#[derive(Debug, Error)]
pub enum ReplayError {
    #[error("generation {id}")]
    Load {
        id: u64,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("generation {id}")]
    Inconsistent {
        id: u64,
        #[source]
        source: InconsistentSamples,
    },
    #[error("generation {id}: {on_disk} positions on disk, the saved state counts {saved}")]
    Count { id: u64, on_disk: usize, saved: usize },
}

/// The window (see the module docs).
#[derive(Debug)]
pub struct ReplayWindow {
    config: ReplayConfig,
    generations: Vec<Generation>,
    /// Live positions as (index into `generations`, position): the draw pool.
    live: Vec<(u32, u32)>,
    rng: SplitMix64,
}

impl ReplayWindow {
    pub fn new(config: &ReplayConfig, seed: u64) -> ReplayWindow {
        ReplayWindow {
            config: config.clone(),
            generations: Vec::new(),
            live: Vec::new(),
            rng: SplitMix64::new(seed),
        }
    }

    /// Adds the samples of generation `id` (ids increase) and applies the bounds. With
    /// `full_search_only`, positions without a full search are left out here.
    pub fn add_generation(&mut self, id: u64, samples: Samples) -> Result<(), InconsistentSamples> {
        samples.check()?;
        let samples = if self.config.full_search_only {
            let mut kept = samples.empty_like();
            for i in (0..samples.len()).filter(|&i| samples.full_search[i] != 0) {
                kept.push_from(&samples, i);
            }
            kept
        } else {
            samples
        };
        let uses = vec![0; samples.len()];
        self.generations.push(Generation {
            id,
            samples,
            start: 0,
            uses,
        });
        self.apply_bounds();
        self.rebuild_live();
        Ok(())
    }

    fn apply_bounds(&mut self) {
        let max_generations = self.config.max_generations as usize;
        if max_generations > 0 && self.generations.len() > max_generations {
            let excess = self.generations.len() - max_generations;
            self.generations.drain(..excess);
        }
        if self.config.max_positions > 0 {
            let mut excess = self
                .stored_positions()
                .saturating_sub(self.config.max_positions);
            while excess > 0 {
                let oldest = &mut self.generations[0];
                let kept = oldest.samples.len() - oldest.start;
                if kept <= excess {
                    excess -= kept;
                    self.generations.remove(0);
                } else {
                    oldest.start += excess;
                    excess = 0;
                }
            }
        }
    }

    fn rebuild_live(&mut self) {
        let cap = self.config.max_reuse as u16;
        self.live.clear();
        for (g, generation) in self.generations.iter().enumerate() {
            for i in generation.start..generation.samples.len() {
                if generation.uses[i] < cap {
                    self.live.push((g as u32, i as u32));
                }
            }
        }
    }

    /// Positions kept (live or used up), within the bounds.
    pub fn stored_positions(&self) -> usize {
        self.generations
            .iter()
            .map(|g| g.samples.len() - g.start)
            .sum()
    }

    /// Positions that can still be drawn.
    pub fn live_positions(&self) -> usize {
        self.live.len()
    }

    /// The ids of the generations in the window, oldest first.
    pub fn generation_ids(&self) -> Vec<u64> {
        self.generations.iter().map(|g| g.id).collect()
    }

    /// True once the window holds enough live positions to train (`min_positions`).
    pub fn ready(&self) -> bool {
        self.live.len() >= self.config.min_positions.max(1)
    }

    /// Draws `size` distinct live positions uniformly, counting one use for each; `None` when
    /// fewer than `size` are live.
    pub fn sample(&mut self, size: usize) -> Option<Samples> {
        if size == 0 || self.live.len() < size {
            return None;
        }
        // A partial Fisher–Yates shuffle: the first `size` entries become the draw.
        let n = self.live.len();
        for j in 0..size {
            let r = j + self.rng.below((n - j) as u64) as usize;
            self.live.swap(j, r);
        }
        let mut batch = self.generations[0].samples.empty_like();
        let cap = self.config.max_reuse as u16;
        for &(g, i) in &self.live[..size] {
            let generation = &mut self.generations[g as usize];
            batch.push_from(&generation.samples, i as usize);
            generation.uses[i as usize] += 1;
        }
        let generations = &self.generations;
        self.live
            .retain(|&(g, i)| generations[g as usize].uses[i as usize] < cap);
        Some(batch)
    }

    /// The counters to save (see the module docs). Puts the draw pool in its canonical order
    /// first (the order [`ReplayWindow::restore`] rebuilds), so that a restored window draws
    /// exactly the minibatches this one will.
    pub fn state(&mut self) -> ReplayState {
        self.rebuild_live();
        ReplayState {
            rng_state: self.rng.state(),
            generations: self
                .generations
                .iter()
                .map(|g| GenerationState {
                    id: g.id,
                    start: g.start,
                    uses: g.uses.clone(),
                })
                .collect(),
        }
    }

    /// Rebuilds a window from its saved counters; `load(id)` gives generation `id`'s samples
    /// as they were added (before `full_search_only` filtering).
    pub fn restore<E: std::error::Error + Send + Sync + 'static>(
        config: &ReplayConfig,
        state: &ReplayState,
        mut load: impl FnMut(u64) -> Result<Samples, E>,
    ) -> Result<ReplayWindow, ReplayError> {
        let mut window = ReplayWindow::new(config, state.rng_state);
        for saved in &state.generations {
            let id = saved.id;
            let samples = load(id).map_err(|source| ReplayError::Load { id, source: Box::new(source) })?;
            window
                .add_generation(id, samples)
                .map_err(|source| ReplayError::Inconsistent { id, source })?;
            let generation = window.generations.last_mut().expect("just added");
            if generation.uses.len() != saved.uses.len() || saved.start > saved.uses.len() {
                return Err(ReplayError::Count { id, on_disk: generation.uses.len(), saved: saved.uses.len() });
            }
            generation.uses.clone_from(&saved.uses);
            generation.start = saved.start;
        }
        // The saved state was within the bounds already; no bound is applied again.
        window.rebuild_live();
        Ok(window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch of `n` positions of generation `id`, each identifiable by its outcome field
    /// (`id·1000 + i`), with observation length 2 and 3 actions.
    fn generation(id: u64, n: usize) -> Samples {
        let mut batch = Samples {
            observation_len: 2,
            action_count: 3,
            ..Samples::default()
        };
        for i in 0..n {
            let tag = (id * 1000 + i as u64) as f32;
            batch.observations.extend([tag, -tag]);
            batch.legal_mask.extend([1, 0, 1]);
            batch.policy.extend([0.25, 0.0, 0.75]);
            batch.outcome.push(tag);
            batch.root_value.push(0.0);
            batch.game_id.push(id as i64);
            batch.move_number.push(i as i32);
            batch.full_search.push(u8::from(i % 4 != 3));
        }
        batch
    }

    fn config(max_positions: usize, max_generations: u32, max_reuse: u32) -> ReplayConfig {
        ReplayConfig {
            max_positions,
            max_generations,
            max_reuse,
            min_positions: 1,
            full_search_only: false,
        }
    }

    #[test]
    fn generation_bound_keeps_the_newest() {
        let mut window = ReplayWindow::new(&config(0, 3, 100), 1);
        for id in 0..5 {
            window.add_generation(id, generation(id, 10)).unwrap();
        }
        assert_eq!(window.generation_ids(), vec![2, 3, 4]);
        assert_eq!(window.stored_positions(), 30);
    }

    #[test]
    fn position_bound_trims_the_oldest_positions() {
        let mut window = ReplayWindow::new(&config(25, 0, 100), 1);
        for id in 0..3 {
            window.add_generation(id, generation(id, 10)).unwrap();
        }
        // 30 positions, 25 allowed: generation 0 loses its 5 oldest.
        assert_eq!(window.generation_ids(), vec![0, 1, 2]);
        assert_eq!(window.stored_positions(), 25);
        let drawn = window.sample(25).unwrap();
        let mut tags: Vec<f32> = drawn.outcome.clone();
        tags.sort_by(f32::total_cmp);
        assert_eq!(tags[0], 5.0, "positions 0..5 of generation 0 were trimmed");
        window.add_generation(3, generation(3, 20)).unwrap();
        assert_eq!(window.generation_ids(), vec![2, 3]);
        assert_eq!(window.stored_positions(), 25);
    }

    #[test]
    fn reuse_cap_retires_positions() {
        let mut window = ReplayWindow::new(&config(0, 2, 3), 7);
        window.add_generation(0, generation(0, 10)).unwrap();
        let mut counts = vec![0; 10];
        while let Some(batch) = window.sample(4) {
            let mut seen = batch.outcome.clone();
            seen.sort_by(f32::total_cmp);
            seen.dedup();
            assert_eq!(seen.len(), 4, "a position twice in one batch");
            for tag in batch.outcome {
                counts[tag as usize] += 1;
            }
        }
        // 30 uses available, batches of 4: at least 27 drawn, none more than 3 times.
        assert!(counts.iter().all(|&c| c <= 3), "{counts:?}");
        assert!(counts.iter().sum::<i32>() >= 27, "{counts:?}");
        assert!(window.live_positions() < 4);
        // A new generation brings fresh positions.
        window.add_generation(1, generation(1, 10)).unwrap();
        assert!(window.sample(4).is_some());
    }

    #[test]
    fn full_search_only_filters() {
        let mut cfg = config(0, 2, 3);
        cfg.full_search_only = true;
        let mut window = ReplayWindow::new(&cfg, 7);
        window.add_generation(0, generation(0, 12)).unwrap();
        assert_eq!(window.stored_positions(), 9);
        let batch = window.sample(9).unwrap();
        assert!(batch.outcome.iter().all(|&t| t as usize % 4 != 3));
    }

    #[test]
    fn sampling_is_seeded() {
        let draw = |seed| {
            let mut window = ReplayWindow::new(&config(0, 2, 5), seed);
            window.add_generation(0, generation(0, 50)).unwrap();
            window.sample(8).unwrap().outcome
        };
        assert_eq!(draw(3), draw(3));
        assert_ne!(draw(3), draw(4));
    }

    #[test]
    fn restore_continues_identically() {
        let cfg = config(35, 3, 2);
        let mut window = ReplayWindow::new(&cfg, 11);
        for id in 0..3 {
            window.add_generation(id, generation(id, 15)).unwrap();
            window.sample(6).unwrap();
        }
        let state = window.state();
        let json = serde_json::to_string(&state).unwrap();
        let state: ReplayState = serde_json::from_str(&json).unwrap();
        let mut restored =
            ReplayWindow::restore(&cfg, &state, |id| Ok::<_, std::io::Error>(generation(id, 15))).unwrap();
        assert_eq!(restored.generation_ids(), window.generation_ids());
        assert_eq!(restored.live_positions(), window.live_positions());
        for _ in 0..5 {
            assert_eq!(restored.sample(5), window.sample(5));
        }
        // A generation whose samples changed on disk is refused.
        assert!(ReplayWindow::restore(&cfg, &state, |id| Ok::<_, std::io::Error>(generation(id, 14))).is_err());
    }

    #[test]
    fn inconsistent_batches_are_refused() {
        let mut batch = generation(0, 3);
        batch.policy.pop();
        let mut window = ReplayWindow::new(&config(0, 2, 2), 1);
        assert!(window.add_generation(0, batch).is_err());
    }
}
