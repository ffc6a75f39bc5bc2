#pragma once
/// @file
/// Runs a scenario through the engines and a reference, and measures how they differ.
///
/// Time grid. Every step is 1/N s for an integer rate N [Hz], and every engine is sampled at the
/// same instants, every 1/S s, where the sample rate S divides every engine's rate (default: the
/// greatest common divisor of the rates, divided by its smallest prime factor while above 250 Hz;
/// below 10 Hz the user must choose one). So no engine is ever interpolated.
///
/// The reference is RK4 at a rate R, a multiple of S, with R/2 at least `reference_min_rate` and
/// twice the finest engine rate (so the reference is at least 4 times finer than any engine). It
/// is checked by halving its step: RK4 runs at R/2 and R, and the largest difference of q at the
/// sample instants, max_t ||q_R (-) q_R/2||_inf, must be below `reference_tolerance`; otherwise
/// R doubles and the check repeats (up to `reference_max_rate`). The run at R is the reference;
/// for a fourth-order method its own error is about 1/15 of the difference measured
/// (Richardson), which the report states. A controller in the reference is made for the smallest
/// engine step (stable PD depends on the step it is made for).
///
/// On the ground (Scenario::ground) no integrator knows the contacts, and several controllers
/// would each need their own closed loop: there the tracking reference q_d(t), v_d(t) itself is
/// the reference (rate 0), and every error is over Scenario::measured_dofs.
///
/// An engine that fails (a NaN, a Newton solve that does not converge, a Bullet world the bridge
/// cannot read) or whose error against the reference exceeds `divergence_threshold` stops there:
/// its run keeps the samples up to that point and says why in `failure`.

#include <Eigen/Core>
#include <functional>
#include <string>
#include <vector>

#include "compare/engines.hpp"
#include "compare/scenarios.hpp"

namespace gcbridge::compare {

/// How the comparison runs.
struct ComparisonOptions {
  std::vector<EngineKind> engines = allEngines();  ///< engines to run
  std::vector<int> rates_hz = {240};               ///< step rates, each engine runs at each
  int sample_rate_hz = 0;                          ///< 0: the default (file comment)
  RigidBodySettings rigid;                         ///< the rigid-body engine's world
  double reference_tolerance = 1e-9;               ///< [rad or m] (file comment)
  int reference_min_rate = 2000;                   ///< [Hz]
  int reference_max_rate = 256000;                 ///< [Hz]
  double divergence_threshold = 1e3;               ///< error against the reference [rad or m]
  /// An engine's trajectory has parted from the reference once its error exceeds this [rad or m].
  double parting_threshold = 0.1;
  /// Called as work progresses: the fraction done (0..1) and what runs now.
  std::function<void(double fraction, const std::string& what)> progress;
};

/// What a run measured, summed up. A run that failed part-way keeps what it measured up to the
/// failure (largest errors, drifts, parting time); its final error, RMS errors and cost are NaN.
struct RunSummary {
  double final_error = 0.0;  ///< ||q_ref (-) q||_inf at the last sample [rad or m]
  double rms_error = 0.0;    ///< RMS over the samples of ||q_ref (-) q||_inf
  double max_error = 0.0;    ///< largest ||q_ref (-) q||_inf
  /// First sample time at which ||q_ref (-) q||_inf > parting_threshold [s]; NaN if never.
  double parting_time = 0.0;
  /// Largest |(E(t) - E(0)) - (E_ref(t) - E_ref(0))| [J]: the energy the engine gained or lost
  /// beyond the reference's change, which is the work the torques did (0 when passive).
  double energy_drift = 0.0;
  double final_energy_change = 0.0;  ///< E(end) - E(0) [J], the torques' work included
  /// Largest change of the angular momentum about the world origin ||L(t) - L(0)|| [kg m^2/s]
  /// and of the linear momentum ||P(t) - P(0)|| [kg m/s], and their initial sizes ||L(0)||,
  /// ||P(0)|| (relative drift: one over the other).
  double angular_momentum_drift = 0.0;
  double linear_momentum_drift = 0.0;
  double angular_momentum = 0.0;
  double linear_momentum = 0.0;
  double max_pivot_separation = 0.0;   ///< rigid-body engine only, else NaN [m]
  double max_axis_error = 0.0;         ///< rigid-body engine only, else NaN [rad]
  double max_velocity_residual = 0.0;  ///< rigid-body engine only, else NaN
  double tracking_rms = 0.0;           ///< tracking: RMS of ||q_d (-) q||_inf, else NaN [rad or m]
  double cost = 0.0;                   ///< wall time per simulated second [s/s]
};

/// One engine at one rate.
struct EngineRun {
  EngineKind engine = EngineKind::RungeKutta4;
  int rate_hz = 0;
  std::string controller;              ///< its Scenario::controller when several ran, else empty
  std::vector<Sample> samples;         ///< at the sample instants, from t = 0
  std::vector<double> error;           ///< ||q_ref (-) q||_inf per sample [rad or m]
  std::vector<double> tracking_error;  ///< ||q_d (-) q||_inf per sample (tracking only)
  double wall_seconds = 0.0;           ///< time spent stepping (not measuring) [s]
  double simulated_seconds = 0.0;      ///< time simulated before the end or the failure [s]
  std::string failure;                 ///< empty, or why the run stopped early
  RunSummary summary;
};

/// The reference solution and how it was checked.
struct ReferenceRun {
  int rate_hz = 0;               ///< R of the run used (the finer of the last pair) [Hz]; 0: q_d(t)
  std::vector<Sample> samples;   ///< at the sample instants
  double halving_change = 0.0;   ///< max_t ||q_R (-) q_R/2||_inf of the last check [rad or m]
  double estimated_error = 0.0;  ///< halving_change / 15
  bool converged = false;        ///< halving_change <= reference_tolerance
  double wall_seconds = 0.0;     ///< time spent on all reference runs [s]
  std::string why_tracking;      ///< rate 0: why q_d(t) is the reference, in words
};

/// Everything a comparison produced.
struct Comparison {
  int sample_rate_hz = 0;
  ReferenceRun reference;
  std::vector<EngineRun> runs;  ///< engine-major: for each engine, each rate
};

/// The sample rate the options give for their rates (file comment).
/// @throws InvalidArgumentError if a rate is not positive or the requested sample rate does not
///   divide every rate.
int sampleRate(const ComparisonOptions& options);

/// Checks that the scenario's duration is a whole number of sample intervals of the options'
/// sample rate and that the reference's rate stays below its limit; returns the number of
/// intervals.
/// @throws InvalidArgumentError as sampleRate, naming the duration and the sample interval, or
///   the rate the reference would need.
int checkTimeGrid(const Scenario& scenario, const ComparisonOptions& options);

/// Runs the scenario through the reference and every engine at every rate.
/// @throws InvalidArgumentError for bad options (no engine; checkTimeGrid; an engine without
///   contacts on the ground). An engine that fails does not throw (its run says why); the
///   reference failing does.
Comparison runComparison(const Scenario& scenario, const ComparisonOptions& options);

/// Several controllers on one tracking task: one scenario each (makeScenario with the same
/// model, pose, duration and options but the controller), every engine at every rate under each,
/// their runs labelled with Scenario::controller, against the tracking reference they share.
/// @throws InvalidArgumentError as runComparison, or for scenarios that are not tracking ones of
///   one model and duration.
Comparison runComparison(const std::vector<Scenario>& scenarios, const ComparisonOptions& options);

/// ||q1 (-) q0||_inf on the model's manifold.
double jointSpaceDistance(const Model& model, const Eigen::VectorXd& q0, const Eigen::VectorXd& q1);
/// The same over the scenario's measured dofs (all when it names none).
double measuredDistance(const Scenario& scenario, const Eigen::VectorXd& q0,
                        const Eigen::VectorXd& q1);

}  // namespace gcbridge::compare
