//! The search tree: an arena of nodes and an arena of edges, linked by `u32` indices.
//!
//! Why this layout: millions of nodes per second are created and dropped, so they live in two
//! `Vec`s (no per-node allocation, no `Box`, cache-friendly, cheap to throw away); a node's
//! edges are one contiguous range of the edge arena, written once when the node is expanded, so
//! selection scans a dense slice. Child nodes are created lazily, the first time their edge is
//! chosen, so an expanded node with 30 legal actions costs 30 small edges, not 30 nodes.
//! Positions are not stored: a descent replays the actions from the root position, which costs
//! a few `apply`s and keeps a node at [`NODE_BYTES`] bytes whatever the game.
//!
//! Values: a node's `value_sum` is from the point of view of the player to move *at that node*;
//! an edge's `value_sum` is from the point of view of the player who chooses it (the player to
//! move at its parent). The backup converts between them by comparing players, never by
//! assuming that players alternate.
use gipfzero_games::{Action, Player};

/// "No node": the child of an edge not yet visited, the parent of the root.
pub(crate) const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NodeKind {
    /// Created, not evaluated.
    Unexpanded,
    /// Waiting in a batch for its evaluation.
    Pending,
    /// Evaluated; its edges exist.
    Expanded,
    /// The game is over here.
    Terminal,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    pub parent: u32,
    /// The edge of `parent` that leads here.
    pub parent_edge: u32,
    pub first_edge: u32,
    pub edge_count: u32,
    /// Completed (backed-up) visits.
    pub visits: u32,
    /// Sum of backed-up values, for `to_move`.
    pub value_sum: f32,
    /// The evaluator's value (or the outcome) for `to_move`: Gumbel's mixed value needs it.
    pub raw_value: f32,
    pub to_move: Player,
    pub kind: NodeKind,
    /// The game-theoretic result for `to_move`, once proven (MCTS-solver): 1 won, -1 lost,
    /// 0 not proven. A game's end is proven; a node is won when one of its children is won
    /// for the player choosing there, lost when every one of its children is.
    pub proof: i8,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    pub child: u32,
    /// Visits, counted when a descent passes (so in-flight descents count, as virtual visits).
    pub visits: u32,
    /// Sum of values for the player choosing this edge, including virtual losses in flight.
    pub value_sum: f32,
    pub prior: f32,
    pub action: Action,
}

impl Edge {
    /// Mean value for the chooser, or `None` when unvisited.
    #[inline]
    pub fn q(&self) -> Option<f32> {
        (self.visits > 0).then(|| self.value_sum / self.visits as f32)
    }
}

/// Bytes of one node in the arena.
pub const NODE_BYTES: usize = std::mem::size_of::<Node>();
/// Bytes of one edge (one per legal action of an expanded node).
pub const EDGE_BYTES: usize = std::mem::size_of::<Edge>();

#[derive(Clone, Debug)]
pub(crate) struct Tree {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// The arenas of the previous tree, kept to copy the next re-rooted tree into.
    spare_nodes: Vec<Node>,
    spare_edges: Vec<Edge>,
}

fn fresh_node(parent: u32, parent_edge: u32, to_move: Player) -> Node {
    Node {
        parent,
        parent_edge,
        first_edge: 0,
        edge_count: 0,
        visits: 0,
        value_sum: 0.0,
        raw_value: 0.0,
        to_move,
        kind: NodeKind::Unexpanded,
        proof: 0,
    }
}

/// The proven result of `child` for `chooser`, the player choosing at its parent.
#[inline]
fn proof_for(child: &Node, chooser: Player) -> i8 {
    if child.to_move == chooser {
        child.proof
    } else {
        -child.proof
    }
}

/// `value` (for `from`) as seen by `to`, in a two-player zero-sum game.
#[inline]
pub(crate) fn relative(value: f32, from: Player, to: Player) -> f32 {
    if from == to {
        value
    } else {
        -value
    }
}

impl Tree {
    pub const ROOT: u32 = 0;

    pub fn new(to_move: Player) -> Self {
        Tree {
            nodes: vec![fresh_node(NONE, NONE, to_move)],
            edges: Vec::new(),
            spare_nodes: Vec::new(),
            spare_edges: Vec::new(),
        }
    }

    /// Drops everything and starts again from a bare root.
    pub fn reset(&mut self, to_move: Player) {
        self.nodes.clear();
        self.edges.clear();
        self.nodes.push(fresh_node(NONE, NONE, to_move));
    }

    #[inline]
    pub fn node(&self, node: u32) -> &Node {
        &self.nodes[node as usize]
    }

    #[inline]
    pub fn node_mut(&mut self, node: u32) -> &mut Node {
        &mut self.nodes[node as usize]
    }

    /// The edge indices of `node`.
    #[inline]
    pub fn edge_range(&self, node: u32) -> std::ops::Range<usize> {
        let n = self.node(node);
        n.first_edge as usize..(n.first_edge + n.edge_count) as usize
    }

    #[inline]
    pub fn edges_of(&self, node: u32) -> &[Edge] {
        &self.edges[self.edge_range(node)]
    }

    /// The child behind edge `edge`, created (unexpanded, `to_move` to move) if new.
    pub fn child(&mut self, parent: u32, edge: usize, to_move: Player) -> u32 {
        let child = self.edges[edge].child;
        if child != NONE {
            return child;
        }
        let index = self.nodes.len() as u32;
        self.nodes.push(fresh_node(parent, edge as u32, to_move));
        self.edges[edge].child = index;
        index
    }

    /// Writes the edges of an evaluated node; `priors` must be a distribution over `legal`.
    pub fn expand(&mut self, node: u32, legal: &[Action], priors: &[f32], raw_value: f32) {
        let first = self.edges.len() as u32;
        self.edges
            .extend(legal.iter().zip(priors).map(|(&action, &prior)| Edge {
                child: NONE,
                visits: 0,
                value_sum: 0.0,
                prior,
                action,
            }));
        let n = self.node_mut(node);
        n.first_edge = first;
        n.edge_count = legal.len() as u32;
        n.raw_value = raw_value;
        n.kind = NodeKind::Expanded;
    }

    /// The proven result behind `edge` (of `node`) for the player choosing at `node`: 1 won,
    /// -1 lost, 0 unknown (no child yet, or not proven).
    #[inline]
    pub fn edge_proof(&self, node: u32, edge: &Edge) -> i8 {
        if edge.child == NONE {
            0
        } else {
            proof_for(self.node(edge.child), self.node(node).to_move)
        }
    }

    /// Creates the child behind `edge` as a game's end worth `value` for `to_move` (its
    /// player to move), proven when it is a win or a loss, and carries the proof up.
    pub fn terminal_child(&mut self, parent: u32, edge: usize, to_move: Player, value: f32) {
        let child = self.child(parent, edge, to_move);
        let n = self.node_mut(child);
        n.kind = NodeKind::Terminal;
        n.raw_value = value;
        n.proof = if value > 0.0 { 1 } else if value < 0.0 { -1 } else { 0 };
        self.propagate_proof(child);
    }

    /// Carries the proof of `node` up the tree as far as it decides its ancestors (MCTS-solver:
    /// a parent is won as soon as one child is won for its chooser, lost once all are lost).
    pub fn propagate_proof(&mut self, mut node: u32) {
        loop {
            let n = *self.node(node);
            if n.proof == 0 || n.parent == NONE {
                return;
            }
            let parent = n.parent;
            let chooser = self.node(parent).to_move;
            if self.node(parent).proof != 0 {
                return;
            }
            let proof = if proof_for(&n, chooser) > 0 {
                1
            } else if self
                .edges_of(parent)
                .iter()
                .all(|e| e.child != NONE && proof_for(self.node(e.child), chooser) < 0)
            {
                -1
            } else {
                return;
            };
            self.node_mut(parent).proof = proof;
            node = parent;
        }
    }

    /// Counts a descent through `edge` before its value is known: one more visit and a loss of
    /// `virtual_loss` for the chooser, undone by [`Tree::backup`] or [`Tree::undo_descent`].
    #[inline]
    pub fn enter(&mut self, edge: usize, virtual_loss: f32) {
        let e = &mut self.edges[edge];
        e.visits += 1;
        e.value_sum -= virtual_loss;
    }

    /// Backs up `value` (for the player to move at `leaf`) from `leaf` to the root.
    pub fn backup(&mut self, leaf: u32, value: f32, virtual_loss: f32) {
        let player = self.node(leaf).to_move;
        let mut current = leaf;
        loop {
            let node = self.node_mut(current);
            node.visits += 1;
            node.value_sum += relative(value, player, node.to_move);
            let (parent, parent_edge) = (node.parent, node.parent_edge);
            if parent == NONE {
                return;
            }
            let chooser = self.node(parent).to_move;
            let edge = &mut self.edges[parent_edge as usize];
            edge.value_sum += virtual_loss + relative(value, player, chooser);
            current = parent;
        }
    }

    /// Takes back the virtual visits of a descent to `leaf` that will not be evaluated.
    pub fn undo_descent(&mut self, leaf: u32, virtual_loss: f32) {
        let mut current = leaf;
        loop {
            let node = self.node(current);
            let (parent, parent_edge) = (node.parent, node.parent_edge);
            if parent == NONE {
                return;
            }
            let edge = &mut self.edges[parent_edge as usize];
            edge.visits -= 1;
            edge.value_sum += virtual_loss;
            current = parent;
        }
    }

    /// Makes the child behind root edge `edge` the new root, keeping its subtree and dropping
    /// the rest. Returns false (and leaves a bare root) when that child was never visited.
    pub fn reroot(&mut self, edge: usize, to_move: Player) -> bool {
        let old_root = self.edges[edge].child;
        if old_root == NONE || self.node(old_root).kind == NodeKind::Pending {
            self.reset(to_move);
            return false;
        }
        let mut nodes = std::mem::take(&mut self.spare_nodes);
        let mut edges = std::mem::take(&mut self.spare_edges);
        nodes.clear();
        edges.clear();
        nodes.push(Node {
            parent: NONE,
            parent_edge: NONE,
            ..*self.node(old_root)
        });
        // (old index, new index) pairs whose edges still have to be copied.
        let mut stack = vec![(old_root, 0u32)];
        while let Some((old, new)) = stack.pop() {
            let first = edges.len() as u32;
            for e in self.edges_of(old) {
                let mut copy = *e;
                if e.child != NONE {
                    let child = nodes.len() as u32;
                    nodes.push(Node {
                        parent: new,
                        parent_edge: edges.len() as u32,
                        ..*self.node(e.child)
                    });
                    copy.child = child;
                    stack.push((e.child, child));
                }
                edges.push(copy);
            }
            nodes[new as usize].first_edge = first;
        }
        self.spare_nodes = std::mem::replace(&mut self.nodes, nodes);
        self.spare_edges = std::mem::replace(&mut self.edges, edges);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backup_follows_the_player_to_move_not_the_depth() {
        // Root (One) -> a (One again, same turn) -> b (Two). A value of +1 for Two at b is -1
        // for One at both a and the root, and each edge carries its chooser's view.
        let mut tree = Tree::new(Player::One);
        tree.expand(Tree::ROOT, &[Action(0)], &[1.0], 0.0);
        let a = tree.child(Tree::ROOT, 0, Player::One);
        tree.expand(a, &[Action(0)], &[1.0], 0.0);
        let edge_ab = tree.node(a).first_edge as usize;
        let b = tree.child(a, edge_ab, Player::Two);
        tree.enter(0, 1.0);
        tree.enter(edge_ab, 1.0);
        tree.backup(b, 1.0, 1.0);
        assert_eq!(tree.node(b).value_sum, 1.0);
        assert_eq!(tree.node(a).value_sum, -1.0);
        assert_eq!(tree.node(Tree::ROOT).value_sum, -1.0);
        assert_eq!(tree.edges[0].q(), Some(-1.0));
        assert_eq!(tree.edges[edge_ab].q(), Some(-1.0));
        assert_eq!(tree.node(Tree::ROOT).visits, 1);
    }

    #[test]
    fn undo_takes_back_virtual_visits() {
        let mut tree = Tree::new(Player::One);
        tree.expand(Tree::ROOT, &[Action(0), Action(1)], &[0.5, 0.5], 0.0);
        let c = tree.child(Tree::ROOT, 1, Player::Two);
        tree.enter(1, 1.0);
        assert_eq!(tree.edges[1].q(), Some(-1.0));
        tree.undo_descent(c, 1.0);
        assert_eq!(tree.edges[1].visits, 0);
        assert_eq!(tree.edges[1].value_sum, 0.0);
    }

    #[test]
    fn reroot_keeps_the_subtree_and_its_statistics() {
        let mut tree = Tree::new(Player::One);
        tree.expand(Tree::ROOT, &[Action(3), Action(5)], &[0.5, 0.5], 0.0);
        let kept = tree.child(Tree::ROOT, 1, Player::Two);
        tree.expand(kept, &[Action(1), Action(2)], &[0.25, 0.75], 0.5);
        let deep = tree.child(kept, tree.node(kept).first_edge as usize + 1, Player::One);
        for _ in 0..3 {
            tree.enter(1, 1.0);
            tree.enter(tree.node(kept).first_edge as usize + 1, 1.0);
            tree.backup(deep, 0.5, 1.0);
        }
        let dropped = tree.child(Tree::ROOT, 0, Player::Two);
        tree.enter(0, 1.0);
        tree.backup(dropped, 1.0, 1.0);

        assert!(tree.reroot(1, Player::Two));
        assert_eq!(tree.nodes.len(), 2);
        let root = tree.node(Tree::ROOT);
        assert_eq!((root.parent, root.visits, root.raw_value), (NONE, 3, 0.5));
        let edges = tree.edges_of(Tree::ROOT);
        assert_eq!(
            edges.iter().map(|e| e.action).collect::<Vec<_>>(),
            vec![Action(1), Action(2)]
        );
        assert_eq!(edges[1].visits, 3);
        let child = tree.node(edges[1].child);
        assert_eq!((child.parent, child.parent_edge, child.visits), (0, 1, 3));
    }

    #[test]
    fn reroot_on_an_unvisited_child_gives_a_bare_root() {
        let mut tree = Tree::new(Player::One);
        tree.expand(Tree::ROOT, &[Action(0)], &[1.0], 0.0);
        assert!(!tree.reroot(0, Player::Two));
        assert_eq!(tree.nodes.len(), 1);
        assert_eq!(tree.node(Tree::ROOT).kind, NodeKind::Unexpanded);
        assert_eq!(tree.node(Tree::ROOT).to_move, Player::Two);
    }
}
