//! The SVG of `rehydrate cost --plot`: the cumulative cost per model call of each strategy,
//! with a mark where each cache-aware batch was shown (plotters, SVG backend only).

use plotters::prelude::*;
use rehydrate::cost::{Replay, Strategy};

/// The colour each strategy's line is drawn in.
fn colour(strategy: Strategy) -> RGBColor {
    match strategy {
        Strategy::None => RGBColor(200, 60, 50),
        Strategy::PerTurn => RGBColor(230, 160, 30),
        Strategy::CacheAware => RGBColor(40, 110, 200),
    }
}

/// The SVG text of the plot of `replays`: x is the model call (1-based), y the cost in USD of
/// every call up to it.
///
/// # Errors
///
/// What plotters reports when it cannot draw (a message).
pub(crate) fn cumulative_cost_svg(replays: &[Replay]) -> Result<String, String> {
    let calls = replays.iter().map(|r| r.calls.len()).max().unwrap_or(0);
    let max_cost = replays
        .iter()
        .map(|r| r.totals.cost_usd)
        .fold(0.0_f64, f64::max);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, 540)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption("cumulative cost per model call", ("sans-serif", 22))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(72)
            .build_cartesian_2d(0.0..calls.max(1) as f64, 0.0..(max_cost * 1.05).max(1e-6))
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("model call")
            .y_desc("cost so far (USD)")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.2}"))
            .draw()
            .map_err(|e| e.to_string())?;
        for r in replays {
            let c = colour(r.strategy);
            let mut cost = 0.0;
            let points: Vec<(f64, f64)> = std::iter::once((0.0, 0.0))
                .chain(r.calls.iter().map(|call| {
                    cost += call.cost_usd;
                    ((call.call + 1) as f64, cost)
                }))
                .collect();
            chart
                .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(r.strategy.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                });
            if r.strategy == Strategy::CacheAware {
                let marks = r
                    .calls
                    .iter()
                    .zip(&points[1..])
                    .filter(|(call, _)| call.batch.is_some())
                    .map(|(_, &p)| Circle::new(p, 5, c.filled()));
                chart.draw_series(marks).map_err(|e| e.to_string())?;
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}
