//! `bufsim._core`: the PyO3 bindings of bufsim-core. This crate only converts
//! (JSON text in; dicts of numpy arrays out) and maps errors to the Python
//! exception hierarchy; all logic lives in the core crate.

use std::panic::{AssertUnwindSafe, catch_unwind};

use bufsim_core::engine::Progress;
use bufsim_core::output::Table;
use bufsim_core::{RunOutput, Scenario, fluid, packet};
use numpy::PyArray1;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

/// The extension's allocator: mimalloc, which backs its heap with 2 MiB
/// transparent huge pages where the kernel grants them on request
/// (`madvise` mode, Debian's default). With thousands of flows the per-flow
/// state spans tens of megabytes read at random, and with 4 KiB pages the
/// address translations take a large share of the packet engine's time.
/// Results do not depend on the allocator. Local-dynamic TLS: the library
/// is loaded by `dlopen` into Python. The core crate's benchmarks declare
/// the same allocator, to measure the engine as users run it.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(
    bufsim,
    BufsimError,
    PyException,
    "The root of bufsim's exceptions: `except bufsim.BufsimError` catches every error bufsim raises on purpose."
);

/// `ScenarioError(BufsimError, ValueError)` and `EngineError(BufsimError,
/// RuntimeError)`, made at import (two bases: `create_exception!` takes one).
static SCENARIO_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static ENGINE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn make_error(
    py: Python<'_>,
    name: &str,
    base: Bound<'_, PyType>,
    doc: &str,
) -> PyResult<Py<PyType>> {
    let dict = PyDict::new(py);
    dict.set_item("__doc__", doc)?;
    dict.set_item("__module__", "bufsim")?;
    let bases = PyTuple::new(py, [py.get_type::<BufsimError>(), base])?;
    let t = py.get_type::<PyType>().call1((name, bases, dict))?;
    Ok(t.cast_into::<PyType>()?.unbind())
}

/// A `ScenarioError` with the message and the field path as `.path`.
fn scenario_error(py: Python<'_>, path: &str, message: String) -> PyErr {
    let ty = SCENARIO_ERROR.get(py).expect("created at import").bind(py);
    match ty.call1((message,)) {
        Ok(inst) => match inst.setattr("path", path) {
            Ok(()) => PyErr::from_value(inst),
            Err(e) => e,
        },
        Err(e) => e,
    }
}

fn scenario_err(py: Python<'_>) -> impl Fn(bufsim_core::ScenarioError) -> PyErr + '_ {
    move |e| scenario_error(py, &e.path, e.to_string())
}

fn engine_error(py: Python<'_>, message: String) -> PyErr {
    PyErr::from_type(
        ENGINE_ERROR
            .get(py)
            .expect("created at import")
            .bind(py)
            .clone(),
        message,
    )
}

/// Engine names and their pre-run checks.
fn engine_check(py: Python<'_>, engine: &str, s: &Scenario) -> PyResult<()> {
    match engine {
        "packet" => packet::check(s).map_err(scenario_err(py)),
        "fluid" => fluid::check(s).map_err(scenario_err(py)),
        other => Err(scenario_error(
            py,
            "engine",
            format!("engine must be 'packet' or 'fluid', got {other:?}"),
        )),
    }
}

/// A scenario resolved once (`bufsim_core::Scenario::from_json`): its
/// normalized form, its cost estimate and its runs all read the same
/// resolved value, so the Python front crosses the boundary with JSON once.
#[pyclass(name = "Scenario", module = "bufsim._core", frozen)]
struct PyScenario {
    inner: Scenario,
}

#[pymethods]
impl PyScenario {
    /// Validate and resolve a raw scenario (JSON text); a bad field raises
    /// `ScenarioError` naming it.
    #[new]
    fn new(py: Python<'_>, text: &str) -> PyResult<Self> {
        let inner = Scenario::from_json(text).map_err(scenario_err(py))?;
        Ok(PyScenario { inner })
    }

    /// The normalized scenario as JSON text (SI units, per-flow values expanded).
    fn normalized(&self) -> String {
        self.inner.to_json()
    }

    /// What running `engine` costs before it starts (`bufsim_core::cost`):
    /// a dict with `work` (bottleneck packets or fluid flow-steps),
    /// `work_unit`, `work_field` (the scenario field that drives it),
    /// `memory_bytes` and `memory_field`.
    fn estimate<'py>(&self, py: Python<'py>, engine: &str) -> PyResult<Bound<'py, PyDict>> {
        engine_check(py, engine, &self.inner)?;
        let c = bufsim_core::cost::estimate(&self.inner, engine);
        let d = PyDict::new(py);
        d.set_item("work", c.work)?;
        d.set_item("work_unit", c.work_unit)?;
        d.set_item("work_field", c.work_field)?;
        d.set_item("memory_bytes", c.memory_bytes)?;
        d.set_item("memory_field", c.memory_field)?;
        Ok(d)
    }

    /// Run `engine` (`packet` or `fluid`).
    ///
    /// `progress`, if given, is called with the simulated seconds reached
    /// every so often; Ctrl-C (SIGINT) stops the run and raises
    /// KeyboardInterrupt. Returns a dict with `summary` (dict),
    /// `timeseries`, `flows`, `congestion_events` and `trace` (dicts of
    /// numpy arrays; `trace` is empty unless `output.trace`, its `event`
    /// column holds codes into `trace_events`, the run's names of them),
    /// `trace_events` (list)
    /// and `completed` (bool).
    #[pyo3(signature = (engine = "packet", progress = None))]
    fn simulate<'py>(
        &self,
        py: Python<'py>,
        engine: &str,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        run(py, &self.inner, engine, progress)
    }
}

/// Parse a quantity with a unit, as scenario fields are parsed
/// (`bufsim_core::units`): `kind` is `"duration"` (to seconds), `"rate"`
/// (bits/s) or `"size"` (bytes). Raises ValueError with the parser's message.
#[pyfunction]
fn parse_quantity(text: &str, kind: &str) -> PyResult<f64> {
    use bufsim_core::units;
    let parsed = match kind {
        "duration" => units::parse_duration(text).map(|t| t.as_secs_f64()),
        "rate" => units::parse_rate(text).map(|r| r.0),
        "size" => units::parse_bytes(text).map(|b| b as f64),
        other => {
            return Err(PyValueError::new_err(format!(
                "kind must be 'duration', 'rate' or 'size', got {other:?}"
            )));
        }
    };
    parsed.map_err(|e| PyValueError::new_err(e.0))
}

/// The short git commit this extension was built from (build.rs), or `""`
/// when it was built outside a checkout.
#[pyfunction]
fn build_commit() -> &'static str {
    env!("BUFSIM_COMMIT")
}

/// The variant registry (`bufsim_core::tcp::cc::describe_variants`) as JSON
/// text: per variant its `name`, `aliases`, `fluid` (`"law"` with
/// `rate_form`, or `"none"` with `why`), `ecn_per_packet`, `needs_sack` and
/// `defaults` (its `tcp_params` with their defaults).
#[pyfunction]
fn variants() -> String {
    serde_json::to_string(&bufsim_core::tcp::cc::describe_variants()).expect("serializes")
}

/// The controllers' rules each stack profile fills
/// (`bufsim_core::tcp::stack::Stack::cc_params`) as JSON text: per profile
/// name, per variant (canonical name) the `tcp_params` the profile gives it;
/// a variant the profile gives none is left out.
#[pyfunction]
fn stack_cc_params() -> String {
    use bufsim_core::tcp::stack::Stack;
    let mut out = serde_json::Map::new();
    for stack in Stack::ALL {
        let mut per = serde_json::Map::new();
        for v in bufsim_core::tcp::cc::describe_variants() {
            let params = stack.cc_params(v.name);
            if !params.is_empty() {
                per.insert(v.name.into(), params.into());
            }
        }
        out.insert(stack.name().into(), per.into());
    }
    serde_json::to_string(&out).expect("serializes")
}

/// The discipline registry (`bufsim_core::queue::describe_disciplines`) as
/// JSON text: per discipline its `name`, `fluid` and `drop_reasons`.
#[pyfunction]
fn disciplines() -> String {
    serde_json::to_string(&bufsim_core::queue::describe_disciplines()).expect("serializes")
}

/// A long-lived flow's congestion epoch (`Variant::epoch`): `cc` is a flow
/// group's normalized `cc` (JSON text), `window_pkts` its window (packets)
/// and `rtt_s` its round trip (seconds). Returns a dict with `seconds`,
/// `rtts` (NaN for a law not counted in round trips) and `law` (in words,
/// with its citation).
#[pyfunction]
fn congestion_epoch<'py>(
    py: Python<'py>,
    cc: &str,
    window_pkts: f64,
    rtt_s: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let cfg: bufsim_core::tcp::cc::CcConfig = serde_json::from_str(cc)
        .map_err(|e| PyValueError::new_err(format!("cc: not a normalized cc ({e})")))?;
    let e = cfg.epoch(window_pkts, rtt_s);
    let d = PyDict::new(py);
    d.set_item("seconds", e.seconds)?;
    d.set_item("rtts", e.rtts)?;
    d.set_item("law", e.law)?;
    Ok(d)
}

/// Whether the verdict `mean(values) >= bound` (`at_least`) or `<= bound`
/// is known at Student t quantile `quantile` in (0, 1): the law
/// `output.stop` applies to a run's batch means
/// (`bufsim_core::stats::verdict_known`), for advise's seeds.
#[pyfunction]
fn verdict_known(values: Vec<f64>, at_least: bool, bound: f64, quantile: f64) -> PyResult<bool> {
    if !(quantile > 0.0 && quantile < 1.0) {
        return Err(PyValueError::new_err(format!(
            "quantile: must be between 0 and 1 (exclusive), got {quantile}"
        )));
    }
    Ok(bufsim_core::stats::verdict_known(
        &values, at_least, bound, quantile,
    ))
}

fn table<'py>(py: Python<'py>, t: Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in t.columns {
        d.set_item(name, PyArray1::from_vec(py, col))?;
    }
    Ok(d)
}

/// Run `engine` on a resolved scenario (see [`PyScenario::simulate`]).
fn run<'py>(
    py: Python<'py>,
    s: &Scenario,
    engine: &str,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    engine_check(py, engine, s)?;
    let mut interrupted: Option<PyErr> = None;
    let result: Result<RunOutput, String> = py.detach(|| {
        let mut hook = |t: bufsim_core::units::SimTime| -> bool {
            Python::attach(|py| {
                if let Err(e) = py.check_signals() {
                    interrupted = Some(e);
                    return false;
                }
                if let Some(cb) = progress.as_ref()
                    && let Err(e) = cb.call1(py, (t.as_secs_f64(),))
                {
                    interrupted = Some(e);
                    return false;
                }
                true
            })
        };
        let hook: Progress = &mut hook;
        catch_unwind(AssertUnwindSafe(|| match engine {
            "packet" => packet::run(s, hook),
            "fluid" => fluid::run(s, hook),
            _ => unreachable!("engine_check accepted it"),
        }))
        .map_err(|p| {
            let m = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|m| m.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            match PANIC_AT.with(|at| at.borrow_mut().take()) {
                Some(at) => format!("{m} (at {at}; please report it)"),
                None => m,
            }
        })
    });
    if let Some(e) = interrupted {
        return Err(e);
    }
    let out = result
        .map_err(|m| engine_error(py, format!("internal error in the {engine} engine: {m}")))?;
    let d = PyDict::new(py);
    let summary = PyDict::new(py);
    for (k, v) in &out.summary {
        summary.set_item(k, v)?;
    }
    d.set_item("summary", summary)?;
    d.set_item("timeseries", table(py, out.timeseries)?)?;
    d.set_item("flows", table(py, out.flows)?)?;
    d.set_item("congestion_events", table(py, out.congestion_events)?)?;
    d.set_item("trace", table(py, out.trace)?)?;
    d.set_item("trace_events", out.trace_events)?;
    d.set_item("completed", out.completed)?;
    Ok(d)
}

thread_local! {
    /// Where the last panic on this thread happened (file:line).
    static PANIC_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// The compiled core of bufsim.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // A panic becomes an EngineError naming where it happened; the default
    // hook would also print a Rust backtrace on the user's terminal.
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()));
        PANIC_AT.with(|p| *p.borrow_mut() = at);
    }));
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // A hash of the engine's sources (build.rs): stored results are keyed on it.
    m.add("__build__", env!("BUFSIM_BUILD"))?;
    // The registries: every name a scenario's flows[].tcp and link.qdisc may
    // give, and the disciplines the fluid engine models.
    m.add("TCP_VARIANTS", bufsim_core::tcp::cc::variant_names())?;
    m.add("QDISCS", bufsim_core::queue::QDISCS.to_vec())?;
    m.add("FLUID_QDISCS", bufsim_core::queue::fluid_qdiscs())?;
    m.add("FLUID_VARIANTS", bufsim_core::tcp::cc::fluid_variants())?;
    // How far a delay quantile may read above the true one (log bins).
    m.add(
        "DELAY_QUANTILE_ERROR",
        bufsim_core::stats::histogram::QUANTILE_ERROR,
    )?;
    m.add(
        "STOP_METRICS",
        bufsim_core::scenario::Stop::METRICS.to_vec(),
    )?;
    m.add_class::<PyScenario>()?;
    m.add_function(wrap_pyfunction!(build_commit, m)?)?;
    m.add_function(wrap_pyfunction!(variants, m)?)?;
    m.add_function(wrap_pyfunction!(disciplines, m)?)?;
    m.add_function(wrap_pyfunction!(stack_cc_params, m)?)?;
    m.add_function(wrap_pyfunction!(parse_quantity, m)?)?;
    m.add_function(wrap_pyfunction!(congestion_epoch, m)?)?;
    m.add_function(wrap_pyfunction!(verdict_known, m)?)?;
    let py = m.py();
    let scenario = SCENARIO_ERROR.get_or_try_init(py, || {
        make_error(
            py,
            "ScenarioError",
            py.get_type::<PyValueError>(),
            "A scenario failed validation; the message names the field, the value and what is allowed; `.path` is the field.",
        )
    })?;
    let engine = ENGINE_ERROR.get_or_try_init(py, || {
        make_error(
            py,
            "EngineError",
            py.get_type::<PyRuntimeError>(),
            "An engine failed internally (a bug: please report it).",
        )
    })?;
    m.add("BufsimError", py.get_type::<BufsimError>())?;
    m.add("ScenarioError", scenario.bind(py))?;
    m.add("EngineError", engine.bind(py))?;
    Ok(())
}
