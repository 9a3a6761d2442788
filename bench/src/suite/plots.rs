//! The SVG bar charts of a suite run (plotters).

use super::results::Figures;
use std::path::{Path, PathBuf};

/// A grouped bar chart: one group per program, one bar per series, and
/// horizontal reference lines (value, label).
fn bar_chart(
    path: &Path,
    title: &str,
    y_label: &str,
    series: &[&str],
    groups: &[(String, Vec<Option<f64>>)],
    references: &[(f64, &str)],
) -> Result<(), String> {
    use plotters::prelude::*;
    let k = series.len();
    let slots = groups.len() * (k + 1);
    let top = groups
        .iter()
        .flat_map(|(_, v)| v.iter().flatten().copied())
        .chain(references.iter().map(|r| r.0))
        .fold(0.0f64, f64::max)
        * 1.15;
    let top = if top > 0.0 { top } else { 1.0 };
    let width = (160 + 36 * slots).max(640) as u32;
    let root = SVGBackend::new(path, (width, 420)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| format!("plotting {}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let names: Vec<String> = groups.iter().map(|(n, _)| n.clone()).collect();
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..slots as f64, 0.0..top)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(slots.max(1))
        .x_label_formatter(&|x| {
            // the name under its group's middle
            let slot = x.floor() as usize;
            if (x - x.floor()).abs() < 1e-9 && slot % (k + 1) == k / 2 {
                names.get(slot / (k + 1)).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_desc(y_label)
        .draw()
        .map_err(|e| err(&e))?;
    let palette = [BLUE, RED, GREEN, MAGENTA];
    for (s, label) in series.iter().enumerate() {
        let color = palette[s % palette.len()];
        let bars = groups.iter().enumerate().filter_map(|(g, (_, vals))| {
            let v = vals.get(s).copied().flatten()?;
            let x0 = (g * (k + 1) + s) as f64;
            Some(Rectangle::new(
                [(x0 + 0.1, 0.0), (x0 + 0.9, v)],
                color.filled(),
            ))
        });
        chart
            .draw_series(bars)
            .map_err(|e| err(&e))?
            .label(*label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
    }
    for (value, label) in references {
        chart
            .draw_series(LineSeries::new(
                [(0.0, *value), (slots as f64, *value)],
                BLACK.stroke_width(1),
            ))
            .map_err(|e| err(&e))?
            .label(*label)
            .legend(|(x, y)| PathElement::new([(x, y), (x + 10, y)], BLACK));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

pub(super) fn plots(dir: &Path, figures: &Figures, workers: usize) -> Result<Vec<PathBuf>, String> {
    let mut written = Vec::new();
    if !figures.overhead.is_empty() {
        let path = dir.join("gradient_overhead.svg");
        let groups: Vec<_> = figures
            .overhead
            .iter()
            .map(|(n, a, b)| (n.clone(), vec![*a, *b]))
            .collect();
        bar_chart(
            &path,
            "Gradient overhead T_grad / T_primal",
            "T_grad / T_primal",
            &["1 worker", &format!("{workers} workers")],
            &groups,
            &[(3.0, "target 3")],
        )?;
        written.push(path);
    }
    let path = dir.join("speedup.svg");
    let groups: Vec<_> = figures
        .speedup
        .iter()
        .map(|(n, p, g, c)| (n.clone(), vec![*p, *g, *c]))
        .collect();
    bar_chart(
        &path,
        &format!("Speedup from 1 to {workers} workers"),
        "T_1 / T_N",
        &["parc primal", "parc gradient", "gcc -fopenmp vs gcc"],
        &groups,
        &[(workers as f64, "ideal")],
    )?;
    written.push(path);
    if !figures.vs_gcc.is_empty() {
        let path = dir.join("parc_vs_gcc.svg");
        let groups: Vec<_> = figures
            .vs_gcc
            .iter()
            .map(|(n, a, b)| (n.clone(), vec![*a, *b]))
            .collect();
        bar_chart(
            &path,
            "parc against gcc -O2 (time ratio; below 1: parc faster)",
            "T_parc / T_gcc",
            &[
                "1 worker / gcc",
                &format!("{workers} workers / gcc -fopenmp"),
            ],
            &groups,
            &[(1.0, "equal"), (1.2, "target 1.2")],
        )?;
        written.push(path);
    }
    Ok(written)
}
