//! Training samples: the arrays of the dataset shard format, in memory. One type serves the
//! generator (which fills it game by game), the shards (which store it with their
//! [`crate::ShardInfo`]) and training (which keeps a window of them and draws minibatches).
use gipfzero_games::Spec;
use thiserror::Error;

/// Positions with their targets, flat and row-major: `observations` `[N, P·H·W]`,
/// `legal_mask` and `policy` `[N, A]`, every other array `[N]` (docs/DATASETS.md says what
/// each holds).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Samples {
    /// `P·H·W`: values per observation.
    pub observation_len: usize,
    /// `A`: the action space.
    pub action_count: usize,
    /// [N, P·H·W], the position as the network sees it.
    pub observations: Vec<f32>,
    /// [N, A], 1 for a legal action.
    pub legal_mask: Vec<u8>,
    /// [N, A], the search's policy target; sums to 1 over the legal actions.
    pub policy: Vec<f32>,
    /// [N], the final result for the player to move: 1, 0 or −1.
    pub outcome: Vec<f32>,
    /// [N], the search's root value for the player to move.
    pub root_value: Vec<f32>,
    /// [N]
    pub game_id: Vec<i64>,
    /// [N], index of the decision in its game, from 0.
    pub move_number: Vec<i32>,
    /// [N], 1 when the policy target comes from a full-budget search.
    pub full_search: Vec<u8>,
}

/// Samples whose arrays do not fit together.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("inconsistent samples: {0}")]
pub struct InconsistentSamples(pub String);

impl Samples {
    /// No samples yet, for the variant `spec`.
    pub fn new(spec: &Spec) -> Samples {
        Samples::with_shape(spec.observation_len(), spec.action_count)
    }

    /// No samples yet, with observations of `observation_len` values and `action_count`
    /// actions.
    pub fn with_shape(observation_len: usize, action_count: usize) -> Samples {
        Samples { observation_len, action_count, ..Samples::default() }
    }

    /// No samples, the shapes of `self`.
    pub fn empty_like(&self) -> Samples {
        Samples::with_shape(self.observation_len, self.action_count)
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.outcome.len()
    }

    pub fn is_empty(&self) -> bool {
        self.outcome.is_empty()
    }

    /// Removes all positions, keeping the shapes and the allocations.
    pub fn clear(&mut self) {
        self.observations.clear();
        self.legal_mask.clear();
        self.policy.clear();
        self.outcome.clear();
        self.root_value.clear();
        self.game_id.clear();
        self.move_number.clear();
        self.full_search.clear();
    }

    /// Checks that every array has the length of `len()` positions.
    pub fn check(&self) -> Result<(), InconsistentSamples> {
        let n = self.len();
        let (o, a) = (self.observation_len, self.action_count);
        let lengths = [
            ("observations", self.observations.len(), n * o),
            ("legal_mask", self.legal_mask.len(), n * a),
            ("policy", self.policy.len(), n * a),
            ("root_value", self.root_value.len(), n),
            ("game_id", self.game_id.len(), n),
            ("move_number", self.move_number.len(), n),
            ("full_search", self.full_search.len(), n),
        ];
        for (array, found, expected) in lengths {
            if found != expected {
                return Err(InconsistentSamples(format!(
                    "{array} has {found} values, {n} positions need {expected}"
                )));
            }
        }
        Ok(())
    }

    /// Appends every position of `other` (same shapes).
    pub fn extend_from(&mut self, other: &Samples) {
        self.extend_from_range(other, 0..other.len());
    }

    /// Appends position `index` of `other` (same shapes).
    pub fn push_from(&mut self, other: &Samples, index: usize) {
        self.extend_from_range(other, index..index + 1);
    }

    /// The same positions ordered by game id, each game's in its order: the order of a set of
    /// games, whichever order they finished in (several workers finish them in an order that
    /// varies from run to run).
    pub fn sorted_by_game(&self) -> Samples {
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.sort_by_key(|&i| (self.game_id[i], self.move_number[i]));
        let mut sorted = self.empty_like();
        for i in order {
            sorted.push_from(self, i);
        }
        sorted
    }

    fn extend_from_range(&mut self, other: &Samples, range: std::ops::Range<usize>) {
        debug_assert_eq!(
            (self.observation_len, self.action_count),
            (other.observation_len, other.action_count)
        );
        let (o, a) = (other.observation_len, other.action_count);
        let (start, end) = (range.start, range.end);
        self.observations.extend_from_slice(&other.observations[start * o..end * o]);
        self.legal_mask.extend_from_slice(&other.legal_mask[start * a..end * a]);
        self.policy.extend_from_slice(&other.policy[start * a..end * a]);
        self.outcome.extend_from_slice(&other.outcome[range.clone()]);
        self.root_value.extend_from_slice(&other.root_value[range.clone()]);
        self.game_id.extend_from_slice(&other.game_id[range.clone()]);
        self.move_number.extend_from_slice(&other.move_number[range.clone()]);
        self.full_search.extend_from_slice(&other.full_search[range]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three positions with observations of 2 values and 3 actions, every value distinct.
    fn three() -> Samples {
        Samples {
            observations: (0..6).map(|i| i as f32).collect(),
            legal_mask: vec![1, 0, 1, 1, 1, 0, 0, 1, 1],
            policy: (0..9).map(|i| i as f32 / 10.0).collect(),
            outcome: vec![1.0, -1.0, 0.0],
            root_value: vec![0.5, -0.25, 0.0],
            game_id: vec![4, 4, 9],
            move_number: vec![0, 1, 0],
            full_search: vec![1, 0, 1],
            ..Samples::with_shape(2, 3)
        }
    }

    #[test]
    fn sorting_by_game_keeps_each_position_whole() {
        // Game 9 first, then game 4's second and first decisions: sorted, game 4 comes first
        // in move order, every row intact.
        let all = three();
        let mut shuffled = all.empty_like();
        for i in [2, 1, 0] {
            shuffled.push_from(&all, i);
        }
        assert_eq!(shuffled.sorted_by_game(), all);
    }

    #[test]
    fn push_from_copies_one_position_whole() {
        let all = three();
        let mut one = all.empty_like();
        one.push_from(&all, 1);
        assert_eq!(one.observations, [2.0, 3.0]);
        assert_eq!(one.legal_mask, [1, 1, 0]);
        assert_eq!(one.policy, [0.3, 0.4, 0.5]);
        assert_eq!(
            (one.outcome[0], one.root_value[0], one.game_id[0], one.move_number[0], one.full_search[0]),
            (-1.0, -0.25, 4, 1, 0)
        );
        one.check().unwrap();
    }

    #[test]
    fn extend_from_appends_everything_and_clear_empties() {
        let all = three();
        let mut twice = all.clone();
        twice.extend_from(&all);
        assert_eq!(twice.len(), 6);
        twice.check().unwrap();
        let mut rebuilt = all.empty_like();
        for i in [3, 4, 5] {
            rebuilt.push_from(&twice, i);
        }
        assert_eq!(rebuilt, all);
        twice.clear();
        assert!(twice.is_empty());
        assert_eq!(twice, all.empty_like());
    }

    #[test]
    fn check_names_the_array_that_does_not_fit() {
        let mut samples = three();
        samples.policy.pop();
        let error = samples.check().unwrap_err();
        assert_eq!(error.0, "policy has 8 values, 3 positions need 9");
        let mut samples = three();
        samples.game_id.push(1);
        assert!(samples.check().unwrap_err().0.starts_with("game_id has 4 values"));
    }
}
