//! `--time-passes`: the time of each stage of a build (the driver's
//! stages, the optimizer's passes, the backend's stages), in the order
//! they first ran, and a report that sums to the wall time.

use std::time::{Duration, Instant};

/// Time per stage, summed over repeated runs (one per file, the pipeline
/// run twice around the AD), in the order each stage first ran.
#[derive(Default, Debug, Clone)]
pub struct StageTimes {
    entries: Vec<(String, Duration)>,
}

impl StageTimes {
    /// Adds `time` to the stage `name` (a new stage goes last).
    pub fn add(&mut self, name: &str, time: Duration) {
        match self.entries.iter_mut().find(|(n, _)| n == name) {
            Some((_, t)) => *t += time,
            None => self.entries.push((name.to_string(), time)),
        }
    }

    /// Runs `f`, its time added to the stage `name`.
    pub fn time<T>(&mut self, name: &str, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let result = f();
        self.add(name, start.elapsed());
        result
    }

    /// Every stage of `other`, added in its order.
    pub fn extend<'a>(&mut self, other: impl IntoIterator<Item = (&'a str, Duration)>) {
        for (name, time) in other {
            self.add(name, time);
        }
    }

    pub fn entries(&self) -> impl Iterator<Item = (&str, Duration)> {
        self.entries.iter().map(|(n, t)| (n.as_str(), *t))
    }

    /// One line `TIME ms  STAGE` per stage, then `other` (the part of
    /// `wall` that no stage measured: reading files, writing text
    /// outputs, the command line) and `total` (`wall`), so that the
    /// stages and `other` sum to `total`.
    pub fn report(&self, wall: Duration) -> String {
        let measured: Duration = self.entries.iter().map(|(_, t)| *t).sum();
        let mut text = String::new();
        let mut line = |time: Duration, name: &str| {
            text += &format!("{:>12}  {name}\n", format_duration(time));
        };
        for (name, time) in &self.entries {
            line(*time, name);
        }
        line(wall.saturating_sub(measured), "other");
        line(wall.max(measured), "total");
        text
    }
}

fn format_duration(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_stages_are_summed_in_first_order() {
        let mut times = StageTimes::default();
        times.add("parse", Duration::from_millis(2));
        times.add("gvn", Duration::from_millis(3));
        times.add("parse", Duration::from_millis(5));
        let names: Vec<_> = times.entries().collect();
        assert_eq!(
            names,
            [
                ("parse", Duration::from_millis(7)),
                ("gvn", Duration::from_millis(3))
            ]
        );
    }

    #[test]
    fn the_report_sums_to_the_wall_time() {
        let mut times = StageTimes::default();
        times.add("parse", Duration::from_millis(2));
        times.add("linking", Duration::from_millis(5));
        let report = times.report(Duration::from_millis(10));
        assert_eq!(
            report,
            "    2.000 ms  parse\n    5.000 ms  linking\n    3.000 ms  other\n   10.000 ms  total\n"
        );
    }
}
