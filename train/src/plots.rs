//! The SVG charts of a run, drawn from its metrics ([`crate::metrics`]): the learning curves
//! (`plots/learning.svg`) and the Elo and score against the evaluation opponents
//! (`plots/elo.svg`), redrawn after every iteration by [`RunDir::plot`], and the chart of a
//! rating afterwards (`plots/ratings-NAME.svg`, [`RunDir::write_ratings`]).
//!
//! Plots are SVG drawn by `plotters` without any font library: plotters' built-in text
//! layout estimates glyph widths and the SVG carries the text as `<text>` elements, which
//! the viewer renders with its own fonts. Tests check the labels are present.
//!
//! [`RunDir::plot`]: crate::run::RunDir::plot
//! [`RunDir::write_ratings`]: crate::run::RunDir::write_ratings
use std::path::Path;

use plotters::prelude::*;

use crate::metrics::{EvaluationMetrics, IterationMetrics, TrainingMetrics};
use crate::run::RunError;

const SERIES_COLOURS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// One chart: named series of (x, y) points; `y_range` fixes the vertical axis (otherwise
/// it spans the points).
fn line_chart(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    title: &str,
    x_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
    y_range: Option<(f64, f64)>,
) -> Result<(), String> {
    let points = series.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in points {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if x1 - x0 < 1e-9 {
        x1 = x0 + 1.0;
    }
    // A flat series gets a margin of a tenth of its size (at least 0.01), not a sliver that
    // labels the axis in its fourth decimal.
    let pad = if y1 - y0 > 1e-9 { (y1 - y0) * 0.05 } else { (0.1 * y0.abs()).max(0.01) };
    let (y0, y1) = y_range.unwrap_or((y0 - pad, y1 + pad));
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(55)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, (name, points)) in series.iter().enumerate() {
        let colour = SERIES_COLOURS[i % SERIES_COLOURS.len()];
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                colour.stroke_width(2),
            ))
            .map_err(|e| e.to_string())?
            .label(name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
            });
    }
    if !series.is_empty() {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Losses, policy entropy and value accuracy by iteration.
pub fn plot_learning(metrics: &[IterationMetrics], path: &Path) -> Result<(), RunError> {
    let series = |f: fn(&TrainingMetrics) -> Option<f64>| -> Vec<(f64, f64)> {
        metrics
            .iter()
            .filter_map(|m| {
                m.training
                    .as_ref()
                    .and_then(f)
                    .map(|y| (m.iteration as f64, y))
            })
            .filter(|(_, y)| y.is_finite())
            .collect()
    };
    let losses = vec![
        ("loss".to_string(), series(|t| Some(t.loss))),
        ("policy".to_string(), series(|t| Some(t.policy_loss))),
        ("value".to_string(), series(|t| Some(t.value_loss))),
    ];
    let other = vec![
        (
            "policy entropy".to_string(),
            series(|t| Some(t.policy_entropy)),
        ),
        (
            "value sign accuracy".to_string(),
            series(|t| t.value_accuracy),
        ),
    ];
    let draw = || -> Result<(), String> {
        let root = SVGBackend::new(path, (900, 700)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (top, bottom) = root.split_vertically(380);
        line_chart(&top, "Training losses", "iteration", &losses, None)?;
        line_chart(
            &bottom,
            "Policy entropy and value accuracy",
            "iteration",
            &other,
            None,
        )?;
        root.present().map_err(|e| e.to_string())
    };
    draw().map_err(|message| RunError::Plot {
        path: path.to_path_buf(),
        message,
    })
}

/// Per opponent, in the order first met, the points `(iteration, value)`.
fn evaluation_series(
    results: &[(u32, &EvaluationMetrics)],
    value: impl Fn(&EvaluationMetrics) -> Option<f64>,
) -> Vec<(String, Vec<(f64, f64)>)> {
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for &(iteration, e) in results {
        let Some(y) = value(e) else { continue };
        let point = (iteration as f64, y);
        match series.iter_mut().find(|(name, _)| *name == e.opponent) {
            Some((_, points)) => points.push(point),
            None => series.push((e.opponent.clone(), vec![point])),
        }
    }
    series
}

/// Elo (above) and score (below) against each evaluation opponent by iteration.
pub fn plot_elo(metrics: &[IterationMetrics], path: &Path) -> Result<(), RunError> {
    let results: Vec<(u32, &EvaluationMetrics)> =
        metrics.iter().flat_map(|m| m.evaluations.iter().map(move |e| (m.iteration, e))).collect();
    plot_results(&results, "evaluation opponents", path)
}

/// Elo (above) and score (below) of match results by iteration, a line per opponent;
/// `against` names them in the titles.
pub fn plot_results(results: &[(u32, &EvaluationMetrics)], against: &str, path: &Path) -> Result<(), RunError> {
    let elo = evaluation_series(results, EvaluationMetrics::plotted_elo);
    let score = evaluation_series(results, |e| Some(100.0 * e.score));
    let draw = || -> Result<(), String> {
        let root = SVGBackend::new(path, (900, 700)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (top, bottom) = root.split_vertically(380);
        line_chart(
            &top,
            &format!("Elo against {against} (all won or lost: drawn half a game short)"),
            "iteration",
            &elo,
            None,
        )?;
        line_chart(&bottom, &format!("Score against {against} (%)"), "iteration", &score, Some((0.0, 100.0)))?;
        root.present().map_err(|e| e.to_string())
    };
    draw().map_err(|message| RunError::Plot {
        path: path.to_path_buf(),
        message,
    })
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::config::RunConfig;
    use crate::metrics::tests::metrics;
    use crate::run::RunDir;

    #[test]
    fn plots_are_svg_with_their_labels() {
        let dir = crate::fresh_test_dir("run-plots");
        let run = RunDir::new(&dir);
        run.open(&RunConfig::embedded_default()).unwrap();
        let records: Vec<_> = (0..5).map(metrics).collect();
        run.plot(&records).unwrap();
        let learning = fs::read_to_string(run.plots().join("learning.svg")).unwrap();
        assert!(
            learning.starts_with("<svg"),
            "{}",
            &learning[..60.min(learning.len())]
        );
        for label in [
            "Training losses",
            "policy entropy",
            "value sign accuracy",
            "iteration",
        ] {
            assert!(learning.contains(label), "{label} missing");
        }
        assert!(learning.contains("<polyline"), "no curves drawn");
        let elo = fs::read_to_string(run.plots().join("elo.svg")).unwrap();
        assert!(elo.contains("rollout:200"));
        assert!(elo.contains("Score against evaluation opponents"));
        // No data yet is still a (blank) chart, not an error.
        run.plot(&[]).unwrap();
        fs::remove_dir_all(&dir).ok();
    }

    /// A perfect score has no finite Elo; the chart draws it half a game short of perfect
    /// rather than leaving it out (the runs that win every game were missing from it).
    #[test]
    fn perfect_scores_stay_on_the_elo_chart() {
        let result = |wins, draws, losses, elo: Option<f64>| {
            let games = (wins + draws + losses) as f64;
            EvaluationMetrics {
                opponent: "rollout:200".into(),
                wins,
                draws,
                losses,
                score: (wins as f64 + 0.5 * draws as f64) / games.max(1.0),
                elo,
                ..Default::default()
            }
        };
        let all_won = result(20, 0, 0, None).plotted_elo().unwrap();
        assert!((all_won - crate::stats::elo_from_score(19.5 / 20.0)).abs() < 1e-9, "{all_won}");
        let all_lost = result(0, 0, 20, None).plotted_elo().unwrap();
        assert!((all_lost + all_won).abs() < 1e-9, "{all_lost}");
        assert_eq!(result(19, 0, 1, Some(511.5)).plotted_elo(), Some(511.5));
        assert_eq!(result(0, 0, 0, None).plotted_elo(), None);
        let records: Vec<IterationMetrics> = [(19, 1, Some(511.5)), (20, 0, None)]
            .into_iter()
            .enumerate()
            .map(|(i, (wins, losses, elo))| IterationMetrics {
                evaluations: vec![result(wins, 0, losses, elo)],
                ..metrics(i as u32)
            })
            .collect();
        let results: Vec<(u32, &EvaluationMetrics)> = records.iter().map(|m| (m.iteration, &m.evaluations[0])).collect();
        let series = evaluation_series(&results, EvaluationMetrics::plotted_elo);
        assert_eq!(series.len(), 1);
        assert_eq!(series[0].1, [(0.0, 511.5), (1.0, all_won)]);
    }
}
