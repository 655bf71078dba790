//! Matches between two agents: the raw material of the Elo ladder and of SPRT tests.
//!
//! Why colours alternate: in every one of these games the first player has an edge, so a
//! match plays each agent as player one in half of the games (game 0: the first agent starts).
use gipfzero_games::{Game, Outcome, Player, Status};
use thiserror::Error;

use crate::agent::{Agent, AgentError};

/// Why a match stopped.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum MatchError {
    #[error("{agent} failed in game {game}: {error}")]
    Agent {
        agent: String,
        game: u32,
        error: AgentError,
    },
    #[error("{agent} played an illegal turn in game {game}: {turn}")]
    IllegalTurn {
        agent: String,
        game: u32,
        turn: String,
    },
    #[error("game {game} does not start at a turn start with player 1 to move")]
    BadStart { game: u32 },
}

/// The score of a match from the first agent's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchScore {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Games stopped at the turn limit, counted among the draws.
    pub unfinished: u32,
}

impl MatchScore {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points per game for the first agent (win 1, draw ½).
    pub fn score(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games().max(1) as f64
    }
}

/// One finished (or stopped) game.
#[derive(Clone, Debug)]
pub struct PlayedGame<G: Game> {
    pub position: G,
    pub turns: Vec<G::Turn>,
    /// `None` when the turn limit stopped the game.
    pub outcome: Option<Outcome>,
}

/// Plays one game from `start`: `agents[0]` plays player one, `agents[1]` player two. Every
/// turn is checked against the legal turns before it is played.
pub fn play_game<G: Game>(
    start: &G,
    agents: [&mut dyn Agent<G>; 2],
    max_turns: usize,
    game: u32,
) -> Result<PlayedGame<G>, MatchError> {
    let [one, two] = agents;
    one.new_game();
    two.new_game();
    let mut position = start.clone();
    let mut turns = Vec::new();
    let mut legal = Vec::new();
    while position.status() == Status::Ongoing && turns.len() < max_turns {
        let agent: &mut dyn Agent<G> = match position.to_move() {
            Player::One => &mut *one,
            Player::Two => &mut *two,
        };
        let turn = agent
            .choose_turn(&position)
            .map_err(|error| MatchError::Agent {
                agent: agent.name(),
                game,
                error,
            })?;
        position.legal_turns(&mut legal);
        if !legal.contains(&turn) {
            return Err(MatchError::IllegalTurn {
                agent: agent.name(),
                game,
                turn: format!("{turn:?}"),
            });
        }
        position.play(&turn);
        turns.push(turn);
    }
    let outcome = match position.status() {
        Status::Over(outcome) => Some(outcome),
        Status::Ongoing => None,
    };
    Ok(PlayedGame {
        position,
        turns,
        outcome,
    })
}

/// Plays `games` games between `first` and `second`, alternating who starts; `start(i)` gives
/// the initial position of game `i` (a fixed one, or a seeded set-up). Games still running
/// after `max_turns` turns count as draws (and as `unfinished`).
pub fn play_match<G: Game>(
    mut start: impl FnMut(u32) -> G,
    first: &mut dyn Agent<G>,
    second: &mut dyn Agent<G>,
    games: u32,
    max_turns: usize,
) -> Result<MatchScore, MatchError> {
    let mut score = MatchScore::default();
    for game in 0..games {
        let position = start(game);
        if position.to_move() != Player::One || !position.is_turn_start() {
            return Err(MatchError::BadStart { game });
        }
        let first_colour = if game % 2 == 0 {
            Player::One
        } else {
            Player::Two
        };
        let agents: [&mut dyn Agent<G>; 2] = if first_colour == Player::One {
            [&mut *first, &mut *second]
        } else {
            [&mut *second, &mut *first]
        };
        let played = play_game(&position, agents, max_turns, game)?;
        match played.outcome {
            Some(Outcome::Win(winner)) if winner == first_colour => score.wins += 1,
            Some(Outcome::Win(_)) => score.losses += 1,
            Some(Outcome::Draw) => score.draws += 1,
            None => {
                score.draws += 1;
                score.unfinished += 1;
            }
        }
    }
    Ok(score)
}
