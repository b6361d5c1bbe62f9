//! The engine-neutral output of a run: summary metrics, a time-series table,
//! a per-flow table, a congestion-event table and the packet trace of the
//! bottleneck (packet engine with `output.trace`; empty otherwise). The Python side turns it
//! into a `bufsim.Result`; every engine fills the same shape.

/// Named columns of equal length (a minimal data frame).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// `(name, values)` in display order.
    pub columns: Vec<(String, Vec<f64>)>,
}

impl Table {
    /// Add a column.
    pub fn push(&mut self, name: impl Into<String>, values: Vec<f64>) {
        self.columns.push((name.into(), values));
    }
    /// The column called `name`, if any.
    pub fn get(&self, name: &str) -> Option<&[f64]> {
        self.columns
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }
    /// Number of rows (0 for a table without columns).
    pub fn rows(&self) -> usize {
        self.columns.first().map(|(_, v)| v.len()).unwrap_or(0)
    }
}

/// What a run produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunOutput {
    /// Scalar metrics in SI units, in display order (see `bufsim.Result`).
    pub summary: Vec<(String, f64)>,
    /// Sampled quantities; the first column is `time_s`.
    pub timeseries: Table,
    /// One row per TCP flow.
    pub flows: Table,
    /// One row per congestion event: `time_s`, `fraction` of flows that lost a packet.
    pub congestion_events: Table,
    /// One row per bottleneck queue event (`packet::trace`), recorded when
    /// `output.trace` is on; no columns otherwise.
    pub trace: Table,
    /// Names of the trace's `event` codes, indexed by code (`enqueue`,
    /// `dequeue`, `drop_<reason>` for the discipline's reasons); empty
    /// without a trace.
    pub trace_events: Vec<String>,
    /// False when the progress hook stopped the run early.
    pub completed: bool,
}

impl RunOutput {
    /// The summary metric called `name`.
    pub fn metric(&self, name: &str) -> Option<f64> {
        self.summary
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }
}
