//! Pictures of positions as people know the boards: SVG drawings of ZÈRTZ rings and marbles,
//! DVONN stacks with their heights, LYNGK stacks with their colours and the claimed colours,
//! and an HTML page that steps through a whole game.
//!
//! Why this shape: every game only says where its spaces are and what stands on them
//! ([`Drawable`]); the frame, the labels, the overlay of move probabilities and the game page
//! are drawn once here for all of them, so a new game plugs in with one `impl`. Centres come
//! from each engine's own geometry (lattice coordinates), never from typed-in tables. The
//! output is plain SVG 1.1 / XHTML text with everything escaped, so it opens without network
//! access and parses as XML (the tests check that).
use std::fmt::Write;

use crate::dvonn::{self, Dvonn};
use crate::game::{Game, Player, Status};
use crate::lyngk::{self, Colour as LyngkColour, Lyngk, Piece as LyngkPiece, Point};
use crate::zertz::{Cell as ZertzCell, Colour as ZertzColour, Turn as ZertzTurn, Zertz};

/// Distance between neighbouring spaces, in SVG user units.
const UNIT: f64 = 48.0;
/// Margin around the board, and the height of the status lines under it.
const MARGIN: f64 = 40.0;
const STATUS_LINE: f64 = 20.0;

/// A point of the drawing in board units (neighbours one unit apart), y growing upwards.
pub type Centre = (f64, f64);

/// What a turn marks in the probability overlay.
#[derive(Clone, Debug, PartialEq)]
pub enum Mark {
    /// A turn that puts something on one space (a placement).
    Spot(Centre),
    /// A turn that moves along these spaces (a stack move, a jump, a LYNGK chain).
    Path(Vec<Centre>),
    /// A turn with nothing to point at (a pass).
    Nothing,
}

/// One piece of a drawing: a disc with an outline, optionally with a centred label.
#[derive(Clone, Debug, PartialEq)]
pub struct Disc {
    pub centre: Centre,
    /// Radius in board units.
    pub radius: f64,
    pub fill: &'static str,
    pub stroke: &'static str,
    /// Outline width in board units (0 for none).
    pub stroke_width: f64,
    pub dashed: bool,
    pub label: Option<(String, &'static str)>,
}

impl Disc {
    fn new(centre: Centre, radius: f64, fill: &'static str, stroke: &'static str) -> Disc {
        Disc {
            centre,
            radius,
            fill,
            stroke,
            stroke_width: 0.04,
            dashed: false,
            label: None,
        }
    }

    fn label(mut self, text: impl Into<String>, colour: &'static str) -> Disc {
        self.label = Some((text.into(), colour));
        self
    }
}

/// A game that can be drawn: where its spaces are, what stands on them, and what a turn
/// points at. Implemented by every engine; [`render_svg`] and [`render_html`] do the rest.
pub trait Drawable: Game {
    /// The spaces of the board: name and centre (board units, y up), in any order.
    fn spaces(&self) -> Vec<(String, Centre)>;

    /// The discs to draw over the spaces, bottom first (rings, stacks, marbles).
    fn pieces(&self) -> Vec<Disc>;

    /// Lines of text under the board: reserves, claims, scores (the player to move or the
    /// result is added by the caller).
    fn legend(&self) -> Vec<String>;

    /// What `turn` (legal here) marks in the overlay.
    fn mark(&self, turn: &Self::Turn) -> Mark;
}

/// Escapes text for XML character data and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0 at all.
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The SVG drawing of `position`, with `overlay` (turns legal here and their probabilities,
/// e.g. the search's visit shares) drawn as translucent arrows and spots labelled in percent.
pub fn render_svg<G: Drawable>(position: &G, overlay: &[(G::Turn, f32)]) -> String {
    let spaces = position.spaces();
    let (mut min_x, mut max_x, mut min_y, mut max_y) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for (_, (x, y)) in &spaces {
        min_x = min_x.min(*x);
        max_x = max_x.max(*x);
        min_y = min_y.min(*y);
        max_y = max_y.max(*y);
    }
    if spaces.is_empty() {
        (min_x, max_x, min_y, max_y) = (0.0, 0.0, 0.0, 0.0);
    }
    let mut legend = position.legend();
    legend.push(match position.status() {
        Status::Over(_) => format!("game over: {}", position.result_text()),
        Status::Ongoing if position.is_turn_start() => format!("{} to move", position.to_move()),
        Status::Ongoing => format!("{} to move (inside a turn)", position.to_move()),
    });
    // Wide enough for the legend too (about 8 units per character at font size 14).
    let longest = legend
        .iter()
        .map(|line| line.chars().count())
        .max()
        .unwrap_or(0);
    let width = ((max_x - min_x) * UNIT + 2.0 * MARGIN).max(longest as f64 * 8.0 + 2.0 * MARGIN);
    let board_height = (max_y - min_y) * UNIT + 2.0 * MARGIN;
    let height = board_height + legend.len() as f64 * STATUS_LINE + 10.0;
    // Board units to SVG pixels: y flips so that the first row is at the bottom.
    let left = (width - (max_x - min_x) * UNIT) / 2.0;
    let px = |(x, y): Centre| ((x - min_x) * UNIT + left, (max_y - y) * UNIT + MARGIN);

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif">"#
    );
    let _ = writeln!(svg, r#"<title>{}</title>"#, escape(position.spec().game));
    let _ = writeln!(
        svg,
        r##"<rect x="0" y="0" width="{width:.0}" height="{height:.0}" fill="#e8dcc0"/>"##
    );
    for (name, centre) in &spaces {
        let (x, y) = px(*centre);
        let _ = writeln!(
            svg,
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="#d6c7a1" stroke="#a89770" stroke-width="1"/>"##,
            UNIT * 0.1
        );
        let _ = writeln!(
            svg,
            r##"<text x="{x:.1}" y="{:.1}" font-size="9" text-anchor="middle" fill="#7a6a48">{}</text>"##,
            y + UNIT * 0.47,
            escape(name)
        );
    }
    for disc in position.pieces() {
        let (x, y) = px(disc.centre);
        let _ = writeln!(
            svg,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="{}" stroke="{}" stroke-width="{:.1}"{}/>"#,
            disc.radius * UNIT,
            disc.fill,
            disc.stroke,
            disc.stroke_width * UNIT,
            if disc.dashed {
                r#" stroke-dasharray="4 3""#
            } else {
                ""
            }
        );
        if let Some((text, colour)) = &disc.label {
            let _ = writeln!(
                svg,
                r#"<text x="{x:.1}" y="{:.1}" font-size="{:.0}" font-weight="bold" text-anchor="middle" fill="{colour}">{}</text>"#,
                y + UNIT * 0.12,
                UNIT * 0.32,
                escape(text)
            );
        }
    }
    if !overlay.is_empty() {
        draw_overlay(position, overlay, &px, &mut svg);
    }
    for (i, line) in legend.iter().enumerate() {
        let _ = writeln!(
            svg,
            r##"<text x="{MARGIN:.0}" y="{:.0}" font-size="14" fill="#222">{}</text>"##,
            board_height + STATUS_LINE * i as f64,
            escape(line)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// Arrows and spots for the overlay; opacity and width grow with the probability.
fn draw_overlay<G: Drawable>(
    position: &G,
    overlay: &[(G::Turn, f32)],
    px: &dyn Fn(Centre) -> Centre,
    svg: &mut String,
) {
    let _ = writeln!(
        svg,
        r##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="4" markerHeight="4" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#1f5fbf"/></marker></defs>"##
    );
    let mut passes = 0.0f32;
    for (turn, probability) in overlay {
        let p = probability.clamp(0.0, 1.0);
        let opacity = 0.25 + 0.75 * p;
        let label = format!("{:.0}%", 100.0 * p);
        match position.mark(turn) {
            Mark::Spot(centre) => {
                let (x, y) = px(centre);
                let _ = writeln!(
                    svg,
                    r##"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}" fill="#1f5fbf" fill-opacity="{opacity:.2}"/>"##,
                    UNIT * (0.12 + 0.25 * p as f64)
                );
                let _ = writeln!(
                    svg,
                    r##"<text x="{x:.1}" y="{:.1}" font-size="10" text-anchor="middle" fill="#0b2f6b">{label}</text>"##,
                    y - UNIT * 0.3
                );
            }
            Mark::Path(centres) if centres.len() >= 2 => {
                let points: Vec<String> = centres
                    .iter()
                    .map(|&c| {
                        let (x, y) = px(c);
                        format!("{x:.1},{y:.1}")
                    })
                    .collect();
                let _ = writeln!(
                    svg,
                    r##"<polyline points="{}" fill="none" stroke="#1f5fbf" stroke-opacity="{opacity:.2}" stroke-width="{:.1}" marker-end="url(#arrow)"/>"##,
                    points.join(" "),
                    1.5 + 6.0 * p
                );
                let (x, y) = px(*centres.last().expect("two centres"));
                let (x0, y0) = px(centres[centres.len() - 2]);
                let _ = writeln!(
                    svg,
                    r##"<text x="{:.1}" y="{:.1}" font-size="10" text-anchor="middle" fill="#0b2f6b">{label}</text>"##,
                    (x + x0) / 2.0,
                    (y + y0) / 2.0 - 4.0
                );
            }
            Mark::Path(_) | Mark::Nothing => passes += p,
        }
    }
    if passes > 0.0 {
        let _ = writeln!(
            svg,
            r##"<text x="8" y="16" font-size="12" fill="#0b2f6b">pass: {:.0}%</text>"##,
            100.0 * passes
        );
    }
}

/// An HTML page that steps through a game: the drawing after every turn, buttons and the
/// arrow keys to move, the record as a list of links. Self-contained (inline SVG and script),
/// and well-formed XML so that it can be checked like the drawings.
pub fn render_html<G: Drawable>(title: &str, start: &G, turns: &[G::Turn]) -> String {
    let mut frames = vec![(String::from("start"), render_svg(start, &[]))];
    let mut position = start.clone();
    for (i, turn) in turns.iter().enumerate() {
        let text = position.format_turn(turn);
        position.play(turn);
        frames.push((format!("{}. {text}", i + 1), render_svg(&position, &[])));
    }
    let mut html = String::new();
    html.push_str("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">\n<head>\n<meta charset=\"utf-8\"/>\n");
    let _ = writeln!(html, "<title>{}</title>", escape(title));
    html.push_str(
        "<style>body{font-family:sans-serif;margin:1em} .frame{display:none} .frame.on{display:block} \
         #moves a{margin-right:0.6em;cursor:pointer} #moves a.on{font-weight:bold;text-decoration:underline}</style>\n</head>\n<body>\n",
    );
    let _ = writeln!(html, "<h1>{}</h1>", escape(title));
    html.push_str(
        "<p><button id=\"first\">|&lt;</button> <button id=\"prev\">&lt;</button> \
         <button id=\"next\">&gt;</button> <button id=\"last\">&gt;|</button> <span id=\"where\"></span></p>\n",
    );
    for (i, (label, svg)) in frames.iter().enumerate() {
        let _ = writeln!(
            html,
            "<div class=\"frame\" id=\"f{i}\" title=\"{}\">\n{svg}</div>",
            escape(label)
        );
    }
    html.push_str("<p id=\"moves\">");
    for (i, (label, _)) in frames.iter().enumerate() {
        let _ = write!(html, "<a data-i=\"{i}\">{}</a> ", escape(label));
    }
    html.push_str("</p>\n<p>Keys: left and right arrows, Home, End.</p>\n");
    // The script avoids the characters < and & so that the page stays well-formed XML.
    let _ = writeln!(html, "<script>\nvar count = {};", frames.len());
    html.push_str(
        "var at = 0;\n\
         function show(i) {\n\
           at = Math.max(0, Math.min(count - 1, i));\n\
           document.querySelectorAll('.frame, #moves a').forEach(function (e) { e.classList.remove('on'); });\n\
           document.getElementById('f' + at).classList.add('on');\n\
           document.querySelector('#moves a[data-i=\"' + at + '\"]').classList.add('on');\n\
           document.getElementById('where').textContent = document.getElementById('f' + at).title;\n\
         }\n\
         document.getElementById('first').onclick = function () { show(0); };\n\
         document.getElementById('prev').onclick = function () { show(at - 1); };\n\
         document.getElementById('next').onclick = function () { show(at + 1); };\n\
         document.getElementById('last').onclick = function () { show(count - 1); };\n\
         document.querySelectorAll('#moves a').forEach(function (e) { e.onclick = function () { show(Number(e.dataset.i)); }; });\n\
         document.onkeydown = function (e) {\n\
           var step = { ArrowLeft: -1, ArrowRight: 1, Home: -count, End: count }[e.key];\n\
           if (step) { show(at + step); }\n\
         };\n\
         show(0);\n</script>\n</body>\n</html>\n",
    );
    html
}

// --- DVONN -----------------------------------------------------------------------------------

/// A DVONN space's centre: rows are horizontal, each row half a space left of the one below,
/// as in the spec's drawing.
fn dvonn_centre(cell: dvonn::Cell) -> Centre {
    let row = (cell.row() - 1) as f64;
    (cell.letter() as f64 - row / 2.0, row * 3f64.sqrt() / 2.0)
}

impl Drawable for Dvonn {
    fn spaces(&self) -> Vec<(String, Centre)> {
        dvonn::Cell::ALL
            .iter()
            .map(|&c| (c.to_string(), dvonn_centre(c)))
            .collect()
    }

    fn pieces(&self) -> Vec<Disc> {
        let mut discs = Vec::new();
        for cell in dvonn::Cell::ALL {
            let Some(stack) = self.stack(cell) else {
                continue;
            };
            let (fill, text) = match stack.top {
                dvonn::Piece::White => ("#fbfbf6", "#222"),
                dvonn::Piece::Black => ("#262626", "#f0f0f0"),
                dvonn::Piece::Dvonn => ("#c62828", "#fff"),
            };
            let centre = dvonn_centre(cell);
            // A stack that holds a DVONN piece below its top gets a red ring.
            if stack.has_dvonn && stack.top != dvonn::Piece::Dvonn {
                discs.push(Disc {
                    stroke_width: 0.07,
                    ..Disc::new(centre, 0.42, "#c62828", "#c62828")
                });
            }
            discs.push(Disc::new(centre, 0.34, fill, "#555").label(stack.height.to_string(), text));
        }
        discs
    }

    fn legend(&self) -> Vec<String> {
        let [white, black] = self.score();
        let mut lines = vec![format!(
            "white {white} - black {black} (pieces in controlled stacks)"
        )];
        if self.is_placing() {
            lines.push(format!("phase 1: {} of 49 pieces placed", self.placed()));
        }
        lines
    }

    fn mark(&self, turn: &dvonn::Turn) -> Mark {
        match *turn {
            dvonn::Turn::Place(cell) => Mark::Spot(dvonn_centre(cell)),
            dvonn::Turn::Move { from, to } => {
                Mark::Path(vec![dvonn_centre(from), dvonn_centre(to)])
            }
            dvonn::Turn::Pass => Mark::Nothing,
        }
    }
}

// --- LYNGK -----------------------------------------------------------------------------------

/// A LYNGK point's centre from its axial coordinates: columns √3/2 apart, half-steps ½ high.
fn lyngk_centre(point: Point) -> Centre {
    let (q, r) = point.axial();
    let half_steps = 2 * r as i32 + q as i32;
    (q as f64 * 3f64.sqrt() / 2.0, half_steps as f64 / 2.0)
}

fn lyngk_fill(piece: LyngkPiece) -> &'static str {
    match piece {
        LyngkPiece::Joker => "#ffffff",
        LyngkPiece::Coloured(c) => lyngk_colour(c),
    }
}

fn lyngk_colour(colour: LyngkColour) -> &'static str {
    ["#efe6c8", "#2a5db0", "#c0392b", "#2e8b57", "#1c1c1c"][colour.index()]
}

fn lyngk_colour_name(colour: LyngkColour) -> &'static str {
    ["ivory", "blue", "red", "green", "black"][colour.index()]
}

impl Drawable for Lyngk {
    fn spaces(&self) -> Vec<(String, Centre)> {
        Point::all()
            .map(|p| (p.to_string(), lyngk_centre(p)))
            .collect()
    }

    /// A stack is drawn as nested discs, the bottom piece outermost and the top piece in the
    /// middle, labelled with its height; a stack in the middle of a move is drawn dashed on
    /// the LYNGK point it has reached.
    fn pieces(&self) -> Vec<Disc> {
        let mut discs = Vec::new();
        let mut draw = |centre: Centre, stack: lyngk::Stack, dashed: bool| {
            let height = stack.height() as f64;
            for (level, piece) in stack.pieces().enumerate() {
                let radius = 0.42 - 0.26 * level as f64 / height.max(1.0);
                discs.push(Disc {
                    dashed,
                    ..Disc::new(centre, radius, lyngk_fill(piece), "#444")
                });
            }
            if let Some(last) = discs.last_mut() {
                let text = if matches!(stack.top(), LyngkPiece::Coloured(c) if c == LyngkColour::BLACK || c == LyngkColour::BLUE)
                {
                    "#fff"
                } else {
                    "#222"
                };
                last.label = Some((stack.height().to_string(), text));
            }
        };
        for point in Point::all() {
            let stack = self.stack(point);
            if !stack.is_empty() {
                draw(lyngk_centre(point), stack, false);
            }
        }
        if let Some(moving) = self.moving {
            draw(lyngk_centre(moving.at), moving.stack, true);
        }
        discs
    }

    fn legend(&self) -> Vec<String> {
        let removed = self.removed();
        let mut lines: Vec<String> = Player::BOTH
            .iter()
            .map(|&player| {
                let claims: Vec<&str> = LyngkColour::members(self.claims(player))
                    .map(lyngk_colour_name)
                    .collect();
                format!(
                    "{player}: claims {}, 5-stacks {}",
                    if claims.is_empty() {
                        "none".to_string()
                    } else {
                        claims.join(" and ")
                    },
                    removed[player.index()]
                )
            })
            .collect();
        if let Some(colour) = self.claimed_now {
            lines.push(format!("claimed this turn: {}", lyngk_colour_name(colour)));
        }
        lines
    }

    fn mark(&self, turn: &lyngk::Turn) -> Mark {
        match turn {
            lyngk::Turn::Move(m) => {
                Mark::Path(m.path.points().iter().map(|&p| lyngk_centre(p)).collect())
            }
            lyngk::Turn::Pass => Mark::Nothing,
        }
    }
}

// --- ZÈRTZ -----------------------------------------------------------------------------------

fn zertz_centre(position: &Zertz, cell: ZertzCell) -> Centre {
    let (column, half_steps) = position.rules.geometry.column_and_height(cell);
    (column as f64 * 3f64.sqrt() / 2.0, half_steps as f64 / 2.0)
}

fn zertz_fill(colour: ZertzColour) -> &'static str {
    match colour {
        ZertzColour::White => "#fbfbf6",
        ZertzColour::Grey => "#8c8c8c",
        ZertzColour::Black => "#1c1c1c",
    }
}

impl Drawable for Zertz {
    fn spaces(&self) -> Vec<(String, Centre)> {
        let variant = self.variant();
        variant
            .all_cells()
            .into_iter()
            .map(|c| (variant.cell_name(c), zertz_centre(self, c)))
            .collect()
    }

    /// Rings as grey rings, marbles as discs on them; the marble that must jump on is dashed.
    fn pieces(&self) -> Vec<Disc> {
        let mut discs = Vec::new();
        for cell in self.rings() {
            let centre = zertz_centre(self, cell);
            discs.push(Disc {
                stroke_width: 0.12,
                ..Disc::new(centre, 0.4, "none", "#9a9aa2")
            });
            if let Some(colour) = self.marble(cell) {
                let dashed = self.jumping_marble() == Some(cell);
                discs.push(Disc {
                    dashed,
                    ..Disc::new(centre, 0.27, zertz_fill(colour), "#333")
                });
            }
        }
        discs
    }

    fn legend(&self) -> Vec<String> {
        let counts = |c: [u8; 3]| format!("{} white, {} grey, {} black", c[0], c[1], c[2]);
        vec![
            format!("pool: {}", counts(self.pool())),
            format!(
                "{} captured: {}",
                Player::One,
                counts(self.captures(Player::One))
            ),
            format!(
                "{} captured: {}",
                Player::Two,
                counts(self.captures(Player::Two))
            ),
        ]
    }

    fn mark(&self, turn: &ZertzTurn) -> Mark {
        match turn {
            ZertzTurn::Place { cell, .. } => Mark::Spot(zertz_centre(self, *cell)),
            ZertzTurn::Capture { start, landings } => Mark::Path(
                std::iter::once(start)
                    .chain(landings)
                    .map(|&c| zertz_centre(self, c))
                    .collect(),
            ),
            ZertzTurn::Pass => Mark::Nothing,
        }
    }
}
