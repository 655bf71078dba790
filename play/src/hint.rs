//! Which turns a search likes, as shares of its visits: the `hint` of the terminal game and
//! the engine protocol, and the overlay of the drawings.
//!
//! Why a small tree of searches: the search decides actions, people choose turns. A DVONN
//! or ZÈRTZ placement is one action, but a LYNGK or ZÈRTZ capture turn is several, and the
//! share of a turn is the product of its actions' shares along the way. So the root search's
//! popular actions are followed, each with a search of its own where the turn goes on, most
//! promising first, until a bounded number of searches has been spent.
use gipfzero_games::{Action, Game};
use gipfzero_mcts::{Evaluator, Search, SearchConfig, SearchError};

/// The most searches one hint may run.
pub const MAX_SEARCHES: usize = 12;
/// A partial turn whose share falls below this is not followed further.
const MIN_SHARE: f32 = 0.02;

/// The legal turns of `position` (a turn start) with the share of the search's visits that
/// went to each, best first; turns that the search (nearly) ignored are left out. An ended
/// game gives an empty list, a single legal turn gets the whole share without a search.
pub fn turn_shares<G: Game, E: Evaluator<G>>(
    position: &G,
    evaluator: &E,
    config: &SearchConfig,
    seed: u64,
) -> Result<Vec<(G::Turn, f32)>, SearchError> {
    let mut turns = Vec::new();
    if position.is_turn_start() {
        position.legal_turns(&mut turns);
    }
    if turns.len() <= 1 {
        return Ok(turns.into_iter().map(|turn| (turn, 1.0)).collect());
    }
    let sequences: Vec<Vec<Action>> = turns
        .iter()
        .map(|turn| position.turn_actions(turn))
        .collect();
    // The turn a path of actions settles on: the one turn it can still become, or the turn
    // it completes; `None` while several turns remain open.
    let settled = |actions: &[Action], after: &G| -> Option<usize> {
        let mut matching = (0..turns.len()).filter(|&i| sequences[i].starts_with(actions));
        match (matching.next(), matching.next()) {
            (Some(only), None) => Some(only),
            _ if after.is_turn_start() => (0..turns.len()).find(|&i| sequences[i] == actions),
            _ => None,
        }
    };
    let mut shares = vec![0.0f32; turns.len()];
    // Partial turns still open: position, actions so far, share.
    let mut frontier: Vec<(G, Vec<Action>, f32)> = vec![(position.clone(), Vec::new(), 1.0)];
    let mut searches = 0;
    while searches < MAX_SEARCHES && !frontier.is_empty() {
        let best = (0..frontier.len())
            .max_by(|&a, &b| frontier[a].2.total_cmp(&frontier[b].2))
            .expect("not empty");
        let (here, prefix, share) = frontier.swap_remove(best);
        let mut search = Search::new(
            here.clone(),
            config.clone(),
            seed.wrapping_add(searches as u64),
        )?;
        searches += 1;
        let result = search.run(evaluator)?;
        let total: u32 = result.visits.iter().sum();
        for (&action, &visits) in result.actions.iter().zip(&result.visits) {
            if visits == 0 {
                continue;
            }
            let child = share * visits as f32 / total as f32;
            let mut next = here.clone();
            next.apply(action);
            let mut actions = prefix.clone();
            actions.push(action);
            match settled(&actions, &next) {
                Some(turn) => shares[turn] += child,
                None if child >= MIN_SHARE => frontier.push((next, actions, child)),
                None => {}
            }
        }
    }
    let mut ranked: Vec<(G::Turn, f32)> = turns
        .into_iter()
        .zip(shares)
        .filter(|&(_, share)| share > 0.0)
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    Ok(ranked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gipfzero_games::dvonn::Dvonn;
    use gipfzero_games::lyngk::Lyngk;
    use gipfzero_mcts::{RolloutEvaluator, RootPolicy};

    fn config(simulations: u32) -> SearchConfig {
        SearchConfig {
            reuse_tree: false,
            ..SearchConfig::evaluation(
                simulations,
                RootPolicy::Ucb1,
            )
        }
    }

    fn check_shares<G: Game>(position: &G, shares: &[(G::Turn, f32)]) {
        let mut legal = Vec::new();
        position.legal_turns(&mut legal);
        let total: f32 = shares.iter().map(|s| s.1).sum();
        assert!(total > 0.0 && total <= 1.0 + 1e-4, "total {total}");
        for pair in shares.windows(2) {
            assert!(pair[0].1 >= pair[1].1, "best first");
        }
        for (turn, _) in shares {
            assert!(legal.contains(turn));
        }
    }

    #[test]
    fn one_action_turns_share_the_root_visits() {
        let position = Dvonn::new();
        let shares = turn_shares(&position, &RolloutEvaluator::new(1, 1), &config(98), 5).unwrap();
        check_shares(&position, &shares);
        // Every placement is one action: the shares are the root's visit shares, which add up.
        let total: f32 = shares.iter().map(|s| s.1).sum();
        assert!((total - 1.0).abs() < 1e-4);
        assert_eq!(
            shares.len(),
            49,
            "UCB1 visits every placement of 98 simulations"
        );
    }

    #[test]
    fn multi_action_turns_get_the_product_of_their_shares() {
        let position = Lyngk::from_seed(4);
        let shares = turn_shares(&position, &RolloutEvaluator::new(1, 1), &config(60), 5).unwrap();
        check_shares(&position, &shares);
        assert!(!shares.is_empty());
    }

    #[test]
    fn a_single_turn_or_an_ended_game_needs_no_search() {
        // White's only move is c1 onto b1; after it nobody can move.
        let mut position =
            Dvonn::from_setup("a1:d b1:d a2:d c1:w", gipfzero_games::Player::One).unwrap();
        let mut legal = Vec::new();
        position.legal_turns(&mut legal);
        assert_eq!(legal.len(), 1);
        let evaluator = RolloutEvaluator::new(1, 1);
        assert_eq!(
            turn_shares(&position, &evaluator, &config(10), 5).unwrap(),
            vec![(legal[0], 1.0)]
        );
        position.play(&legal[0]);
        assert!(position.status().is_over());
        assert_eq!(
            turn_shares(&position, &evaluator, &config(10), 5).unwrap(),
            vec![]
        );
    }
}
