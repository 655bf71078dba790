//! The SVG drawings and the game page: well-formed XML for every game and variant, at the
//! start, along random games and with a probability overlay; and they show what is there.
use gipfzero_games::dvonn::{Cell, Dvonn, Turn};
use gipfzero_games::lyngk::Lyngk;
use gipfzero_games::record::random_game;
use gipfzero_games::render::{escape, render_html, render_svg, Drawable};
use gipfzero_games::zertz::{Variant, Zertz};
use gipfzero_games::Game;

/// A small XML well-formedness checker: one root element, matching tags, quoted and unique
/// attributes, only the predefined or numeric entities, no stray `<` or `&`. A leading
/// `<!DOCTYPE …>` is skipped.
fn check_xml(text: &str) -> Result<(), String> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut stack: Vec<&str> = Vec::new();
    let mut roots = 0;
    let name_end = |from: usize| {
        let mut j = from;
        while j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || b":-_.".contains(&bytes[j])) {
            j += 1;
        }
        j
    };
    let check_entity = |at: usize| -> Result<usize, String> {
        let end = text[at..]
            .find(';')
            .map(|k| at + k)
            .ok_or(format!("unterminated entity at {at}"))?;
        let name = &text[at + 1..end];
        let numeric = name.strip_prefix('#').is_some_and(|n| {
            n.strip_prefix('x').map_or_else(
                || n.parse::<u32>().is_ok(),
                |h| u32::from_str_radix(h, 16).is_ok(),
            )
        });
        if numeric || ["amp", "lt", "gt", "quot", "apos"].contains(&name) {
            Ok(end + 1)
        } else {
            Err(format!("unknown entity &{name}; at {at}"))
        }
    };
    if text.starts_with("<!DOCTYPE") {
        i = text.find('>').ok_or("unterminated doctype")? + 1;
    }
    while i < bytes.len() {
        match bytes[i] {
            b'<' if text[i..].starts_with("<!--") => {
                i += text[i..].find("-->").ok_or("unterminated comment")? + 3;
            }
            b'<' if bytes.get(i + 1) == Some(&b'/') => {
                let end = name_end(i + 2);
                let name = &text[i + 2..end];
                if stack.pop() != Some(name) {
                    return Err(format!("closing tag </{name}> at {i} does not match"));
                }
                let close = text[end..].find('>').ok_or("unterminated closing tag")? + end;
                if !text[end..close].trim().is_empty() {
                    return Err(format!("junk in closing tag at {i}"));
                }
                i = close + 1;
            }
            b'<' => {
                let end = name_end(i + 1);
                let name = &text[i + 1..end];
                if name.is_empty() {
                    return Err(format!("stray < at {i}"));
                }
                if stack.is_empty() {
                    roots += 1;
                }
                let mut j = end;
                let mut attributes = Vec::new();
                loop {
                    while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    match bytes.get(j) {
                        None => return Err(format!("unterminated tag <{name}>")),
                        Some(b'>') => {
                            stack.push(name);
                            j += 1;
                            break;
                        }
                        Some(b'/') if bytes.get(j + 1) == Some(&b'>') => {
                            j += 2;
                            break;
                        }
                        _ => {
                            let attribute_end = name_end(j);
                            let attribute = &text[j..attribute_end];
                            if attribute.is_empty() || bytes.get(attribute_end) != Some(&b'=') {
                                return Err(format!("bad attribute in <{name}> at {j}"));
                            }
                            if attributes.contains(&attribute) {
                                return Err(format!("attribute {attribute} twice in <{name}>"));
                            }
                            attributes.push(attribute);
                            let quote = *bytes
                                .get(attribute_end + 1)
                                .ok_or("unterminated attribute")?;
                            if quote != b'"' && quote != b'\'' {
                                return Err(format!("unquoted attribute {attribute} in <{name}>"));
                            }
                            let mut k = attribute_end + 2;
                            loop {
                                match bytes.get(k) {
                                    None => return Err("unterminated attribute value".into()),
                                    Some(&b) if b == quote => break,
                                    Some(b'<') => {
                                        return Err(format!("< in attribute {attribute}"))
                                    }
                                    Some(b'&') => k = check_entity(k)?,
                                    Some(_) => k += 1,
                                }
                            }
                            j = k + 1;
                        }
                    }
                }
                i = j;
            }
            b'&' => i = check_entity(i)?,
            b'>' if stack.is_empty() => return Err(format!("stray > at {i}")),
            b if !b.is_ascii_whitespace() && stack.is_empty() => {
                return Err(format!("text outside the root element at {i}"));
            }
            _ => i += 1,
        }
    }
    match (stack.last(), roots) {
        (Some(open), _) => Err(format!("<{open}> is never closed")),
        (None, 1) => Ok(()),
        (None, n) => Err(format!("{n} root elements")),
    }
}

#[test]
fn the_checker_refuses_what_is_not_xml() {
    assert_eq!(
        check_xml(r#"<svg a="1"><g/><text>a &amp; b</text></svg>"#),
        Ok(())
    );
    for bad in [
        "<svg>",
        "<svg></g>",
        "<svg a=1></svg>",
        r#"<svg a="1" a="2"></svg>"#,
        "<svg>a & b</svg>",
        "<svg>a < b</svg>",
        "<svg>&nbsp;</svg>",
        "<svg></svg><svg></svg>",
        "text<svg></svg>",
        r#"<svg a="<"></svg>"#,
    ] {
        assert!(check_xml(bad).is_err(), "{bad}");
    }
}

#[test]
fn escape_makes_text_safe() {
    assert_eq!(
        escape(r#"a<b & "c" 'd'>"#),
        "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
    );
    assert_eq!(
        check_xml(&format!("<t>{}</t>", escape("<&>\"'\u{1}"))),
        Ok(())
    );
}

/// Checks the drawing along random games, plain and with every legal turn in the overlay.
fn check_along_games<G: Drawable>(start: &G, games: u64) {
    let mut turns = Vec::new();
    for seed in 0..games {
        let game = random_game(start, seed, 400);
        let mut position = start.clone();
        for (n, turn) in game.turns.iter().enumerate() {
            if n % 7 == 0 {
                let svg = render_svg(&position, &[]);
                check_xml(&svg).unwrap_or_else(|e| panic!("{}: {e}\n{svg}", start.spec().variant));
                position.legal_turns(&mut turns);
                let share = 1.0 / turns.len() as f32;
                let overlay: Vec<(G::Turn, f32)> =
                    turns.iter().map(|t| (t.clone(), share)).collect();
                let svg = render_svg(&position, &overlay);
                check_xml(&svg).unwrap_or_else(|e| panic!("{}: {e}\n{svg}", start.spec().variant));
            }
            position.play(turn);
        }
        let svg = render_svg(&position, &[]);
        check_xml(&svg).unwrap();
        assert!(svg.contains("game over") || !position.status().is_over());
    }
}

#[test]
fn every_game_and_variant_draws_well_formed_svg() {
    for variant in Variant::ALL {
        check_along_games(&Zertz::new(variant), 2);
    }
    check_along_games(&Dvonn::new(), 3);
    check_along_games(&Lyngk::from_seed(0), 3);
    check_along_games(&Lyngk::from_seed(77), 2);
}

#[test]
fn the_game_page_is_well_formed_and_holds_every_position() {
    let start = Lyngk::from_seed(5);
    let game = random_game(&start, 3, 400);
    let html = render_html("LYNGK <seed 5> & more", &start, &game.turns);
    check_xml(&html).unwrap();
    assert_eq!(html.matches("<svg ").count(), game.turns.len() + 1);
    assert!(html.contains("LYNGK &lt;seed 5&gt; &amp; more"));
    let mut position = start.clone();
    for (i, turn) in game.turns.iter().enumerate() {
        let label = format!("{}. {}", i + 1, position.format_turn(turn));
        assert!(
            html.contains(&format!(">{}</a>", escape(&label))),
            "{label}"
        );
        position.play(turn);
    }
    assert!(
        !html.contains("http://") || !html.contains("src="),
        "the page loads nothing"
    );
}

fn count(svg: &str, needle: &str) -> usize {
    svg.matches(needle).count()
}

#[test]
fn every_space_of_each_board_is_drawn_and_labelled() {
    let dvonn = render_svg(&Dvonn::new(), &[]);
    assert_eq!(count(&dvonn, r##"fill="#d6c7a1""##), 49);
    for cell in Cell::ALL {
        assert!(dvonn.contains(&format!(">{cell}</text>")), "{cell}");
    }
    assert_eq!(
        count(
            &render_svg(&Lyngk::from_seed(1), &[]),
            r##"fill="#d6c7a1""##
        ),
        43
    );
    for variant in Variant::ALL {
        let svg = render_svg(&Zertz::new(variant), &[]);
        assert_eq!(
            count(&svg, r##"fill="#d6c7a1""##),
            variant.cells(),
            "{variant}"
        );
        assert_eq!(
            count(&svg, r##"stroke="#9a9aa2""##),
            variant.cells(),
            "rings of {variant}"
        );
    }
}

#[test]
fn dvonn_stacks_show_height_top_and_hidden_dvonn_pieces() {
    let position =
        Dvonn::from_setup("e3:dbw f3:d g3:d c3:b d3:wwbw", gipfzero_games::Player::Two).unwrap();
    let svg = render_svg(&position, &[]);
    // Four stacks, heights 3, 1, 1, 4; the white stack on e3 hides a DVONN piece.
    assert!(svg.contains(">3</text>") && svg.contains(">4</text>"));
    assert_eq!(
        count(&svg, r##"fill="#c62828" stroke="#c62828""##),
        1,
        "one hidden DVONN piece"
    );
    assert_eq!(
        count(&svg, r##"fill="#c62828" stroke="#555""##),
        2,
        "two lone DVONN pieces"
    );
    assert_eq!(count(&svg, r##"fill="#fbfbf6""##), 2, "two white tops");
    assert_eq!(count(&svg, r##"fill="#262626""##), 1, "one black top");
    assert!(svg.contains("white 7 - black 1"));
    assert!(svg.contains("player 2 to move"));
}

#[test]
fn lyngk_draws_each_piece_of_a_stack_and_the_claims() {
    let position = Lyngk::from_position(
        "b1=RB e4=IGW c3=K",
        ["B", "RG"],
        [1, 0],
        gipfzero_games::Player::One,
    )
    .unwrap();
    let svg = render_svg(&position, &[]);
    // Six pieces, each its own disc, in the colours of the pieces.
    assert_eq!(count(&svg, r##"stroke="#444""##), 6);
    assert_eq!(count(&svg, r##"fill="#c0392b" stroke="#444""##), 1);
    assert_eq!(
        count(&svg, r##"fill="#ffffff" stroke="#444""##),
        1,
        "the joker"
    );
    assert!(svg.contains("player 1: claims blue, 5-stacks 1"));
    assert!(svg.contains("player 2: claims red and green, 5-stacks 0"));
}

#[test]
fn zertz_draws_marbles_on_rings_and_the_reserves() {
    let mut position = Zertz::new(Variant::Standard);
    let turn = position.parse_turn("Wd4,a1").unwrap();
    position.play(&turn);
    let svg = render_svg(&position, &[]);
    assert_eq!(count(&svg, r##"stroke="#9a9aa2""##), 36, "one ring removed");
    assert_eq!(
        count(&svg, r##"fill="#fbfbf6" stroke="#333""##),
        1,
        "one white marble"
    );
    let [white, grey, black] = Variant::Standard.marbles();
    assert!(svg.contains(&format!(
        "pool: {} white, {grey} grey, {black} black",
        white - 1
    )));
}

#[test]
fn the_overlay_marks_each_turn_with_its_share() {
    let position =
        Dvonn::from_setup("e3:dbw f3:d g3:d c3:b d3:wwbw", gipfzero_games::Player::Two).unwrap();
    let mut turns = Vec::new();
    position.legal_turns(&mut turns);
    let c = |name| Cell::from_name(name).unwrap();
    assert_eq!(
        turns,
        [Turn::Move {
            from: c("c3"),
            to: c("d3")
        }]
    );
    let overlay = vec![(turns[0], 0.75f32)];
    let svg = render_svg(&position, &overlay);
    assert_eq!(count(&svg, "<polyline"), 1);
    assert!(svg.contains(">75%</text>"));
    let placement = render_svg(
        &Dvonn::new(),
        &[(Turn::Place(Cell::from_name("e3").unwrap()), 0.5)],
    );
    assert!(placement.contains(">50%</text>") && !placement.contains("<polyline"));
}
