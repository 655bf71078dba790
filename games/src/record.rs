//! Game-independent tools over the [`Game`] trait: replaying records, counting turn
//! sequences (perft), listing turns and playing random games. The `gipfzero rules` commands
//! are thin wrappers around these, so every engine is checked through the same code.
use crate::error::{RecordError, TurnError};
use crate::game::{Game, Status};
use crate::rng::SplitMix64;

/// One turn token of a record with the line it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token<'a> {
    pub text: &'a str,
    pub line: usize,
}

/// Splits record text into turn tokens: lines whose first non-blank character is `#` are
/// comments, and each remaining line is split by the game's [`Game::split_turns`].
pub fn tokens<'a, G: Game>(game: &G, text: &'a str) -> Vec<Token<'a>> {
    let mut out = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        for token in game.split_turns(line) {
            out.push(Token { text: token, line: number + 1 });
        }
    }
    out
}

/// The result of replaying a record: the final position and the turns as played (with any
/// turn the record left out filled in).
#[derive(Debug, Clone)]
pub struct Replay<G: Game> {
    pub position: G,
    pub turns: Vec<G::Turn>,
}

/// Plays the turns of `text` from `start`, checking each one. Stops at the first malformed or
/// illegal turn with its 1-based index, line and text.
pub fn replay<G: Game>(start: &G, text: &str) -> Result<Replay<G>, RecordError> {
    let mut position = start.clone();
    let mut turns = Vec::new();
    for (index, token) in tokens(start, text).into_iter().enumerate() {
        let refuse = |error: TurnError| RecordError {
            index: index + 1,
            line: token.line,
            text: token.text.to_string(),
            error,
        };
        if position.status().is_over() {
            return Err(refuse(TurnError::Illegal("the game is already over".into())));
        }
        if let Some(implied) = position.implied_turn_before(token.text) {
            position.play(&implied);
            turns.push(implied);
        }
        let turn = position.parse_turn(token.text).map_err(refuse)?;
        position.play(&turn);
        turns.push(turn);
    }
    Ok(Replay { position, turns })
}

/// `turns`, played from `start`, in record notation: what [`replay`] reads back.
pub fn turn_texts<G: Game>(start: &G, turns: &[G::Turn]) -> Vec<String> {
    let mut position = start.clone();
    turns
        .iter()
        .map(|turn| {
            let text = position.format_turn(turn);
            position.play(turn);
            text
        })
        .collect()
}

/// The legal turns of `position` in record notation, sorted by byte order (the format of
/// `gipfzero rules moves`).
pub fn sorted_turn_texts<G: Game>(position: &G) -> Vec<String> {
    let mut turns = Vec::new();
    position.legal_turns(&mut turns);
    let mut texts: Vec<String> = turns.iter().map(|t| position.format_turn(t)).collect();
    texts.sort();
    texts
}

/// Number of legal turn sequences of length `depth` from `position` (a pass is a turn; a
/// finished game has none; depth 0 gives 1).
pub fn perft<G: Game>(position: &G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut turns = Vec::new();
    position.legal_turns(&mut turns);
    if depth == 1 {
        return turns.len() as u64;
    }
    turns
        .iter()
        .map(|turn| {
            let mut next = position.clone();
            next.play(turn);
            perft(&next, depth - 1)
        })
        .sum()
}

/// Number of legal *action* sequences of length `depth`: the search's view of the game tree,
/// which the tests compare with the turn view.
pub fn perft_actions<G: Game>(position: &G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut actions = Vec::new();
    position.legal_actions(&mut actions);
    actions
        .iter()
        .map(|&action| {
            let mut next = position.clone();
            next.apply(action);
            perft_actions(&next, depth - 1)
        })
        .sum()
}

/// Plays uniformly random legal turns from `start` to the end (or until `max_turns`), seeded:
/// the same seed always gives the same game.
pub fn random_game<G: Game>(start: &G, seed: u64, max_turns: usize) -> Replay<G> {
    let mut rng = SplitMix64::new(seed);
    let mut position = start.clone();
    let mut turns = Vec::new();
    let mut legal = Vec::new();
    while position.status() == Status::Ongoing && turns.len() < max_turns {
        position.legal_turns(&mut legal);
        let turn = legal[rng.below(legal.len() as u64) as usize].clone();
        position.play(&turn);
        turns.push(turn);
    }
    Replay { position, turns }
}

/// How much a random playout played.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayoutLength {
    pub actions: u64,
    pub turns: u64,
}

/// Plays uniformly random legal *actions* to the end: the cheap playout of the search and of
/// the speed benchmarks. `buffer` is reused between calls so the loop never allocates.
pub fn random_playout<G: Game>(
    position: &mut G,
    rng: &mut SplitMix64,
    buffer: &mut Vec<crate::Action>,
) -> PlayoutLength {
    let mut length = PlayoutLength::default();
    loop {
        position.legal_actions(buffer);
        if buffer.is_empty() {
            return length;
        }
        let action = buffer[rng.below(buffer.len() as u64) as usize];
        position.apply(action);
        length.actions += 1;
        length.turns += position.is_turn_start() as u64;
    }
}
