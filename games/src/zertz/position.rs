//! The ZÈRTZ position and its rules, over bitboards.
//!
//! Two layers act on the same state. The *action* layer (what the search sees) splits a turn
//! into decisions from a fixed space: place a marble, remove a ring, one jump, pass. Between
//! them the position records what the turn still owes ([`Phase`]): a ring to remove, or the
//! marble that must keep jumping. The *turn* layer (records, the command line) lists whole
//! turns; it is written separately from the action layer on purpose — captures are found by a
//! depth-first search over the neighbour table rather than by the shifted jump masks — so that
//! the tests comparing the two layers compare two implementations.
//!
//! Repetition: a position recurs only if nothing irreversible happened in between. Rings never
//! come back and the pool never refills, so a turn that removes a ring (also by isolation) or
//! starts with marbles in the pool ends every chance of meeting an earlier position: with
//! marbles in the pool every turn either takes one from it or captures, and captured marbles
//! can only leave a player's hand once the pool is empty. Only placements from one's own
//! captures without a free ring, captures and passes with an empty pool are reversible. The
//! history therefore keeps the positions at the turn starts since the last irreversible turn,
//! the current one excluded: it is empty, so cloning allocates nothing, for almost the whole
//! game, and it is exact (positions, not hashes, are compared).
use std::fmt;

use super::geometry::{cells, Cell, Geometry, DIRECTIONS, NONE};
use super::turn::{Step, Turn};
use super::variant::{Colour, Rules, Variant};
use crate::game::{Action, Outcome, Player, Status};

/// Where the position stands inside a turn.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Phase {
    TurnStart,
    /// A marble was placed and a free ring must now be removed.
    Remove,
    /// The marble on this cell has jumped and can jump again, so it must.
    Jumping(Cell),
}

/// What repetition compares: board, pool, captures, player to move.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    pub(crate) rings: u64,
    pub(crate) marbles: [u64; 3],
    /// Pool and both players' captures, 4 bits each, and the player to move.
    counts: u64,
}

/// A ZÈRTZ position.
#[derive(Clone)]
pub struct Zertz {
    pub(crate) rules: &'static Rules,
    pub(crate) rings: u64,
    /// Marbles on the board, by colour.
    pub(crate) marbles: [u64; 3],
    pub(crate) pool: [u8; 3],
    pub(crate) captures: [[u8; 3]; 2],
    pub(crate) to_move: Player,
    pub(crate) phase: Phase,
    pub(crate) status: Status,
    /// Positions at the turn starts since the last irreversible turn, the current one excluded.
    pub(crate) history: Vec<Key>,
    /// Inside a turn begun with an empty pool (the only turns that may be reversible): the
    /// position at its start, which joins the history if the turn proves reversible. All
    /// zero otherwise (a real position has rings).
    pub(crate) turn_start: Key,
}

impl PartialEq for Zertz {
    fn eq(&self, other: &Zertz) -> bool {
        self.rules.variant == other.rules.variant
            && self.rings == other.rings
            && self.marbles == other.marbles
            && self.pool == other.pool
            && self.captures == other.captures
            && self.to_move == other.to_move
            && self.phase == other.phase
            && self.status == other.status
            && self.history == other.history
            && self.turn_start == other.turn_start
    }
}

impl Eq for Zertz {}

impl fmt::Debug for Zertz {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Zertz")
            .field("variant", &self.rules.variant)
            .field("rings", &format_args!("{:#x}", self.rings))
            .field("marbles", &format_args!("{:x?}", self.marbles))
            .field("pool", &self.pool)
            .field("captures", &self.captures)
            .field("to_move", &self.to_move)
            .field("phase", &self.phase)
            .field("status", &self.status)
            .field("history", &self.history.len())
            .finish()
    }
}

impl Zertz {
    /// The starting position of a variant.
    pub fn new(variant: Variant) -> Zertz {
        let rules = variant.rules();
        Zertz::from_parts(
            rules,
            rules.geometry.all,
            [0; 3],
            rules.total,
            [[0; 3]; 2],
            Player::One,
        )
    }

    /// A turn-start position from its parts, which the caller has validated.
    pub(crate) fn from_parts(
        rules: &'static Rules,
        rings: u64,
        marbles: [u64; 3],
        pool: [u8; 3],
        captures: [[u8; 3]; 2],
        to_move: Player,
    ) -> Zertz {
        let mut position = Zertz {
            rules,
            rings,
            marbles,
            pool,
            captures,
            to_move,
            phase: Phase::TurnStart,
            status: Status::Ongoing,
            history: Vec::new(),
            turn_start: Key::default(),
        };
        if !position.has_turn(to_move) && !position.has_turn(to_move.other()) {
            position.status = Status::Over(Outcome::Draw);
        }
        position
    }

    pub fn variant(&self) -> Variant {
        self.rules.variant
    }

    #[inline]
    pub(crate) fn geometry(&self) -> &'static Geometry {
        &self.rules.geometry
    }

    /// The cell named `name` on this board.
    pub fn cell(&self, name: &str) -> Option<Cell> {
        self.geometry().cell(name)
    }

    pub fn cell_name(&self, cell: Cell) -> String {
        self.geometry().name(cell)
    }

    /// Whether `cell` still has its ring.
    pub fn has_ring(&self, cell: Cell) -> bool {
        self.rings & cell.bit() != 0
    }

    /// The marble on `cell`, if any.
    pub fn marble(&self, cell: Cell) -> Option<Colour> {
        Colour::ALL
            .into_iter()
            .find(|c| self.marbles[c.index()] & cell.bit() != 0)
    }

    /// The rings still on the board, in cell order.
    pub fn rings(&self) -> Vec<Cell> {
        cells(self.rings).collect()
    }

    /// Marbles left in the pool, by colour.
    pub fn pool(&self) -> [u8; 3] {
        self.pool
    }

    /// Marbles `player` has captured, by colour.
    pub fn captures(&self, player: Player) -> [u8; 3] {
        self.captures[player.index()]
    }

    /// The vacant rings that are free (could be removed now).
    pub fn free_ring_cells(&self) -> Vec<Cell> {
        cells(self.free_rings()).collect()
    }

    /// Whether a free ring must be removed before the turn ends.
    pub fn must_remove(&self) -> bool {
        self.phase == Phase::Remove
    }

    /// The marble that must keep jumping, inside a capture.
    pub fn jumping_marble(&self) -> Option<Cell> {
        match self.phase {
            Phase::Jumping(cell) => Some(cell),
            _ => None,
        }
    }

    #[inline]
    fn occupied(&self) -> u64 {
        self.marbles[0] | self.marbles[1] | self.marbles[2]
    }

    #[inline]
    fn vacant(&self) -> u64 {
        self.rings & !self.occupied()
    }

    /// Vacant rings with two adjacent directions that both lack a ring.
    #[inline]
    pub(crate) fn free_rings(&self) -> u64 {
        let geometry = self.geometry();
        let mut missing = [0u64; DIRECTIONS];
        for (d, slot) in missing.iter_mut().enumerate() {
            *slot = !geometry.pull(d, self.rings);
        }
        let mut free = 0;
        for d in 0..DIRECTIONS {
            free |= missing[d] & missing[(d + 1) % DIRECTIONS];
        }
        free & self.vacant()
    }

    /// Rings in groups that hold a marble on every ring: the rings a vacant ring cannot reach.
    #[inline]
    pub(crate) fn isolated(&self) -> u64 {
        let geometry = self.geometry();
        let mut reached = self.vacant();
        loop {
            let next = reached | (geometry.adjacent(reached) & self.rings);
            if next == reached {
                return self.rings & !reached;
            }
            reached = next;
        }
    }

    /// Per direction, the marbles that can jump that way now.
    #[inline]
    fn jumpers(&self) -> [u64; DIRECTIONS] {
        let geometry = self.geometry();
        let occupied = self.occupied();
        let vacant = self.rings & !occupied;
        let mut out = [0u64; DIRECTIONS];
        for (d, slot) in out.iter_mut().enumerate() {
            let jumped = occupied & geometry.pull(d, vacant);
            *slot = occupied & geometry.pull(d, jumped);
        }
        out
    }

    fn any_jump(&self) -> bool {
        self.jumpers().iter().any(|&j| j != 0)
    }

    /// The cell jumped over and the landing cell of a jump from `cell` in direction `d`, if
    /// the jump is possible now.
    #[inline]
    fn jump_target(&self, cell: Cell, d: usize) -> Option<(Cell, Cell)> {
        let geometry = self.geometry();
        let over = geometry.step(cell, d)?;
        let landing = geometry.step(over, d)?;
        (self.occupied() & over.bit() != 0 && self.vacant() & landing.bit() != 0)
            .then_some((over, landing))
    }

    /// The colours `player` may place now: from the pool while it has any marble, else from
    /// the player's own captures.
    fn placeable(&self, player: Player) -> [bool; 3] {
        let source = if self.pool.iter().any(|&n| n > 0) {
            self.pool
        } else {
            self.captures[player.index()]
        };
        source.map(|n| n > 0)
    }

    /// Whether `player`, to move here at a turn start, would have a turn other than a pass.
    /// Rings remaining always include a vacant one (full groups are isolated at once).
    fn has_turn(&self, player: Player) -> bool {
        self.placeable(player).iter().any(|&p| p) || self.any_jump()
    }

    pub(crate) fn key(&self) -> Key {
        let mut counts = 0u64;
        let all = [self.pool, self.captures[0], self.captures[1]];
        for (i, &n) in all.iter().flatten().enumerate() {
            counts |= (n as u64) << (4 * i);
        }
        counts |= (self.to_move.index() as u64) << 40;
        Key {
            rings: self.rings,
            marbles: self.marbles,
            counts,
        }
    }

    pub(crate) fn action(&self, step: Step) -> Action {
        step.action(self.geometry().cells)
    }

    pub(crate) fn step_of(&self, action: Action) -> Step {
        Step::of(action, self.geometry().cells)
    }

    /// Closes the turn of the player to move: isolation after a placement, then the checks in
    /// the spec's order (goal, no rings left, third occurrence, next player without a turn).
    fn end_turn(&mut self, placing: bool) {
        let mover = self.to_move;
        self.phase = Phase::TurnStart;
        let start = std::mem::take(&mut self.turn_start);
        if placing {
            let isolated = self.isolated();
            if isolated != 0 {
                for c in 0..3 {
                    self.captures[mover.index()][c] +=
                        (self.marbles[c] & isolated).count_ones() as u8;
                    self.marbles[c] &= !isolated;
                }
                self.rings &= !isolated;
            }
        }
        self.to_move = mover.other();
        if self.rules.goal_reached(self.captures[mover.index()]) || self.rings == 0 {
            self.status = Status::Over(Outcome::Win(mover));
            return;
        }
        let reversible = start.rings != 0 && start.rings == self.rings;
        if reversible {
            self.history.push(start);
            let key = self.key();
            if self.history.iter().filter(|&&k| k == key).count() >= 2 {
                self.status = Status::Over(Outcome::Draw);
                return;
            }
        } else {
            self.history.clear();
        }
        if !self.has_turn(self.to_move) && !self.has_turn(mover) {
            self.status = Status::Over(Outcome::Draw);
        }
    }

    /// Whether `step` is legal now: the membership test of `legal_actions`, without a buffer.
    pub(crate) fn is_legal(&self, step: Step) -> bool {
        if self.status.is_over() {
            return false;
        }
        match (self.phase, step) {
            (Phase::Remove, Step::Remove(cell)) => self.free_rings() & cell.bit() != 0,
            (Phase::Jumping(at), Step::Jump(cell, d)) => {
                at == cell && self.jump_target(cell, d).is_some()
            }
            (Phase::TurnStart, step) => {
                let jumpers = self.jumpers();
                let capture = jumpers.iter().any(|&j| j != 0);
                let placeable = self.placeable(self.to_move);
                match step {
                    Step::Jump(cell, d) => jumpers[d] & cell.bit() != 0,
                    Step::Place(colour, cell) => {
                        !capture && placeable[colour.index()] && self.vacant() & cell.bit() != 0
                    }
                    Step::Pass => !capture && !placeable.iter().any(|&p| p),
                    Step::Remove(_) => false,
                }
            }
            _ => false,
        }
    }

    /// Applies one step, which must be legal.
    pub(crate) fn apply_step(&mut self, step: Step) {
        let mover = self.to_move.index();
        if self.phase == Phase::TurnStart && self.pool == [0; 3] {
            self.turn_start = self.key();
        }
        match step {
            Step::Place(colour, cell) => {
                let c = colour.index();
                if self.pool.iter().any(|&n| n > 0) {
                    self.pool[c] -= 1;
                } else {
                    self.captures[mover][c] -= 1;
                }
                self.marbles[c] |= cell.bit();
                if self.free_rings() != 0 {
                    self.phase = Phase::Remove;
                } else {
                    self.end_turn(true);
                }
            }
            Step::Remove(cell) => {
                self.rings &= !cell.bit();
                self.end_turn(true);
            }
            Step::Jump(cell, d) => {
                let (over, landing) = self.jump_target(cell, d).expect("a legal jump");
                let jumping = self.marble(cell).expect("a marble jumps").index();
                let captured = self.marble(over).expect("a marble is jumped").index();
                self.marbles[jumping] ^= cell.bit() | landing.bit();
                self.marbles[captured] &= !over.bit();
                self.captures[mover][captured] += 1;
                if (0..DIRECTIONS).any(|d| self.jump_target(landing, d).is_some()) {
                    self.phase = Phase::Jumping(landing);
                } else {
                    self.end_turn(false);
                }
            }
            Step::Pass => self.end_turn(false),
        }
    }

    /// Every capture sequence that can start on `start`, by depth-first search over the
    /// neighbour table (independent of the shifted jump masks of the action layer).
    fn capture_sequences(
        &self,
        start: Cell,
        at: Cell,
        occupied: u64,
        path: &mut Vec<Cell>,
        out: &mut Vec<Turn>,
    ) {
        let geometry = self.geometry();
        let mut jumped = false;
        for d in 0..DIRECTIONS {
            let n = geometry.neighbour[at.index()][d];
            if n == NONE || occupied & (1 << n) == 0 {
                continue;
            }
            let l = geometry.neighbour[n as usize][d];
            if l == NONE || (self.rings & !occupied) & (1 << l) == 0 {
                continue;
            }
            jumped = true;
            let after = (occupied & !(at.bit() | 1 << n)) | 1 << l;
            path.push(Cell(l));
            self.capture_sequences(start, Cell(l), after, path, out);
            path.pop();
        }
        if !jumped && !path.is_empty() {
            out.push(Turn::Capture {
                start,
                landings: path.clone(),
            });
        }
    }

    pub(crate) fn render_text(&self) -> String {
        let geometry = self.geometry();
        let top = cells(geometry.all)
            .map(|c| geometry.column_and_height(c).1)
            .max()
            .unwrap_or(0);
        let mut lines = vec![vec![b' '; geometry.width * 4 + 1]; top as usize + 1];
        for cell in cells(geometry.all) {
            let (q, y) = geometry.column_and_height(cell);
            let symbol = match self.marble(cell) {
                Some(colour) => colour.letter() as u8,
                None if self.has_ring(cell) => b'o',
                None => b'.',
            };
            lines[(top - y) as usize][q * 4 + 2] = symbol;
        }
        let mut text = String::new();
        for line in lines {
            text.push_str(String::from_utf8_lossy(&line).trim_end());
            text.push('\n');
        }
        let letters: String = (0..geometry.width)
            .map(|q| format!("  {} ", (b'a' + q as u8) as char))
            .collect();
        text.push_str(letters.trim_end());
        text.push('\n');
        let counts = |n: [u8; 3]| format!("W {} G {} B {}", n[0], n[1], n[2]);
        text.push_str("(W G B marbles, o vacant ring, . no ring)\n");
        text.push_str(&format!("variant: {}\n", self.rules.variant));
        text.push_str(&format!("pool: {}\n", counts(self.pool)));
        for player in Player::BOTH {
            text.push_str(&format!(
                "{player} captures: {}\n",
                counts(self.captures[player.index()])
            ));
        }
        match self.status {
            Status::Over(_) => text.push_str(&format!("result: {}\n", self.result_text())),
            Status::Ongoing => {
                text.push_str(&format!("to move: {}\n", self.to_move));
                match self.phase {
                    Phase::TurnStart => {}
                    Phase::Remove => {
                        text.push_str("inside the turn: a free ring must be removed\n")
                    }
                    Phase::Jumping(cell) => text.push_str(&format!(
                        "inside the turn: the marble on {} must keep jumping\n",
                        geometry.name(cell)
                    )),
                }
            }
        }
        text
    }
}

/// Mixes one word into a running hash (multiply-rotate), finished by SplitMix64's mixer.
fn mix(hash: u64, word: u64) -> u64 {
    (hash ^ word)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(31)
}

impl Zertz {
    /// The legal actions (the search's view), in a fixed order.
    pub(crate) fn write_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.status.is_over() {
            return;
        }
        match self.phase {
            Phase::Remove => {
                for cell in cells(self.free_rings()) {
                    out.push(self.action(Step::Remove(cell)));
                }
            }
            Phase::Jumping(cell) => {
                for d in 0..DIRECTIONS {
                    if self.jump_target(cell, d).is_some() {
                        out.push(self.action(Step::Jump(cell, d)));
                    }
                }
            }
            Phase::TurnStart => {
                let jumpers = self.jumpers();
                let any = jumpers.iter().fold(0, |acc, &j| acc | j);
                if any != 0 {
                    for cell in cells(any) {
                        for (d, &j) in jumpers.iter().enumerate() {
                            if j & cell.bit() != 0 {
                                out.push(self.action(Step::Jump(cell, d)));
                            }
                        }
                    }
                    return;
                }
                let placeable = self.placeable(self.to_move);
                let vacant = self.vacant();
                for colour in Colour::ALL {
                    if placeable[colour.index()] {
                        for cell in cells(vacant) {
                            out.push(self.action(Step::Place(colour, cell)));
                        }
                    }
                }
                if out.is_empty() {
                    out.push(self.action(Step::Pass));
                }
            }
        }
    }

    /// Applies one action, which must be legal.
    pub(crate) fn apply_action(&mut self, action: Action) {
        let step = self.step_of(action);
        debug_assert!(self.is_legal(step), "illegal action {action:?} in {self:?}");
        self.apply_step(step);
    }

    /// A hash of everything the rules look at but the repetition history.
    pub(crate) fn hash64(&self) -> u64 {
        let key = self.key();
        let phase = match self.phase {
            Phase::TurnStart => 0,
            Phase::Remove => 1,
            Phase::Jumping(cell) => 2 + cell.index() as u64,
        };
        let words = [
            key.rings,
            key.marbles[0],
            key.marbles[1],
            key.marbles[2],
            key.counts,
            phase,
        ];
        let mut hash = words
            .iter()
            .fold(self.rules.variant as u64, |h, &w| mix(h, w));
        hash = (hash ^ (hash >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        hash = (hash ^ (hash >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        hash ^ (hash >> 31)
    }

    /// The legal whole turns (the turn layer), at a turn start.
    pub(crate) fn write_turns(&self, out: &mut Vec<Turn>) {
        out.clear();
        if self.status.is_over() || self.phase != Phase::TurnStart {
            return;
        }
        let occupied = self.occupied();
        let mut path = Vec::new();
        for start in cells(occupied) {
            self.capture_sequences(start, start, occupied, &mut path, out);
        }
        if !out.is_empty() {
            return;
        }
        let free = self.free_rings();
        let placeable = self.placeable(self.to_move);
        for colour in Colour::ALL.into_iter().filter(|c| placeable[c.index()]) {
            for cell in cells(self.vacant()) {
                let free_after = free & !cell.bit();
                if free_after == 0 {
                    out.push(Turn::Place {
                        colour,
                        cell,
                        removed: None,
                    });
                }
                for removed in cells(free_after) {
                    out.push(Turn::Place {
                        colour,
                        cell,
                        removed: Some(removed),
                    });
                }
            }
        }
        if out.is_empty() {
            out.push(Turn::Pass);
        }
    }

    /// The actions that play `turn`, one of the legal turns.
    pub(crate) fn turn_actions(&self, turn: &Turn) -> Vec<Action> {
        match turn {
            Turn::Place {
                colour,
                cell,
                removed,
            } => {
                let mut actions = vec![self.action(Step::Place(*colour, *cell))];
                actions.extend(removed.map(|r| self.action(Step::Remove(r))));
                actions
            }
            Turn::Capture { start, landings } => {
                let geometry = self.geometry();
                let mut at = *start;
                landings
                    .iter()
                    .map(|&landing| {
                        let d = geometry
                            .jump_direction(at, landing)
                            .expect("a legal capture lands two steps away");
                        let action = self.action(Step::Jump(at, d));
                        at = landing;
                        action
                    })
                    .collect()
            }
            Turn::Pass => vec![self.action(Step::Pass)],
        }
    }

    pub(crate) fn result_text(&self) -> String {
        match self.status {
            Status::Ongoing => "ongoing".to_string(),
            Status::Over(Outcome::Draw) => "draw".to_string(),
            Status::Over(Outcome::Win(player)) => format!("{player} wins"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::rng::SplitMix64;

    /// The history holds nothing while the pool has marbles (so cloning allocates nothing),
    /// and only positions with the current rings and an empty pool.
    #[test]
    fn history_is_empty_until_reversible_turns() {
        let mut rng = SplitMix64::new(8);
        let mut legal = Vec::new();
        let mut longest = 0;
        for variant in Variant::ALL {
            for _ in 0..300 {
                let mut position = Zertz::new(variant);
                loop {
                    if position.pool != [0; 3] {
                        assert!(position.history.is_empty());
                    }
                    let ongoing = position.status == Status::Ongoing;
                    for key in position.history.iter().filter(|_| ongoing) {
                        assert_eq!(key.rings, position.rings);
                        assert_eq!(key.counts & 0xfff, 0, "empty pool");
                    }
                    longest = longest.max(position.history.len());
                    position.legal_actions(&mut legal);
                    if legal.is_empty() {
                        break;
                    }
                    position.apply(legal[rng.below(legal.len() as u64) as usize]);
                }
            }
        }
        assert!(longest > 0, "some random game had reversible turns");
    }

    /// `is_legal` (the debug check of `apply`) agrees with `legal_actions` on every action of
    /// the space, in positions of random games of every variant.
    #[test]
    fn is_legal_agrees_with_legal_actions() {
        let mut rng = SplitMix64::new(5);
        let mut legal = Vec::new();
        for variant in Variant::ALL {
            for _ in 0..10 {
                let mut position = Zertz::new(variant);
                loop {
                    position.legal_actions(&mut legal);
                    for a in 0..position.spec().action_count {
                        let action = Action(a as u16);
                        assert_eq!(
                            position.is_legal(position.step_of(action)),
                            legal.contains(&action),
                            "{action:?} in {position:?}"
                        );
                    }
                    if legal.is_empty() {
                        break;
                    }
                    position.apply(legal[rng.below(legal.len() as u64) as usize]);
                }
            }
        }
    }
}
