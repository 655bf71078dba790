//! One game between two agents, every turn refereed: the building block of matches.
//!
//! Whole matches (colours alternated, openings, Elo, SPRT) are run by the training crate's
//! `gipfzero_train::evaluate::run_match`, the one match runner of the workspace.
use gipfzero_games::{Game, Outcome, Player, Status};
use thiserror::Error;

use crate::agent::{Agent, AgentError};

/// Why a match stopped.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum MatchError {
    #[error("{agent} failed in game {game}")]
    Agent {
        agent: String,
        game: u32,
        #[source]
        error: AgentError,
    },
    #[error("{agent} played an illegal turn in game {game}: {turn}")]
    IllegalTurn {
        agent: String,
        game: u32,
        turn: String,
    },
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
