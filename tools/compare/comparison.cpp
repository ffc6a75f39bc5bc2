#include "compare/comparison.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <sstream>

#include "gcbridge/controllers/trajectory.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/energy.hpp"
#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge::compare {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/// The default sample rate stays at or below this [Hz] ...
constexpr int kMaxDefaultSampleRate = 250;
/// ... and must reach this, or the user chooses one [Hz].
constexpr int kMinDefaultSampleRate = 10;
/// The reference's rate R is found by doubling; its runs cost about R * duration RK4 steps.

/// Calls the progress callback if there is one.
void report(const ComparisonOptions& options, double fraction, const std::string& what) {
  if (options.progress) options.progress(std::min(1.0, fraction), what);
}

/// Runs `engine` over the samples; `on_sample(i, sample)` sees each one and may stop the run by
/// returning a reason. Fills run.samples, wall_seconds, simulated_seconds and failure.
template <typename OnSample>
void sampleEngine(Engine& engine, int steps_per_sample, int samples, int sample_rate_hz,
                  EngineRun& run, OnSample on_sample, const std::function<void(int)>& tick) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i <= samples; ++i) {
    try {
      if (i > 0) {
        const auto start = Clock::now();
        engine.advance(steps_per_sample);
        run.wall_seconds += std::chrono::duration<double>(Clock::now() - start).count();
      }
      Sample sample;
      sample.t = static_cast<double>(i) / sample_rate_hz;
      engine.measure(sample);
      run.samples.push_back(std::move(sample));
    } catch (const std::exception& e) {
      run.failure = e.what();
      return;
    }
    run.simulated_seconds = static_cast<double>(i) / sample_rate_hz;
    const std::string stop = on_sample(i, run.samples.back());
    if (!stop.empty()) {
      run.failure = stop;
      return;
    }
    if (tick) tick(i);
  }
}

/// The reference integrator (RK4) at `rate_hz` over the samples; its controller is made for the
/// step `control_h` (the same for every reference run: a controller such as stable PD depends on
/// the step it is made for, and the halving check must compare one closed loop).
EngineRun runReferenceAt(const Scenario& scenario, int rate_hz, double control_h,
                         int sample_rate_hz, int samples, const std::function<void(int)>& tick) {
  EngineSetup setup;
  setup.q0 = scenario.q0;
  setup.v0 = scenario.v0;
  setup.rate_hz = rate_hz;
  setup.torque_limits = scenario.torque_limits;
  if (scenario.control) setup.control = scenario.control(control_h).torques;
  auto engine = makeEngine(EngineKind::RungeKutta4, *scenario.model, setup);
  EngineRun run;
  run.engine = EngineKind::RungeKutta4;
  run.rate_hz = rate_hz;
  sampleEngine(
      *engine, rate_hz / sample_rate_hz, samples, sample_rate_hz, run,
      [](int, const Sample&) { return std::string(); }, tick);
  if (!run.failure.empty()) {
    throw Error("the reference (RK4 at " + std::to_string(rate_hz) + " Hz) failed: " + run.failure);
  }
  return run;
}

/// max over the samples of ||q_b (-) q_a||_inf.
double largestDifference(const Model& model, const std::vector<Sample>& a,
                         const std::vector<Sample>& b) {
  double largest = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    largest = std::max(largest, jointSpaceDistance(model, a[i].q, b[i].q));
  }
  return largest;
}

/// The summary of a finished run (comparison.hpp).
RunSummary summarize(const EngineRun& run, const std::vector<Sample>& reference,
                     double parting_threshold) {
  RunSummary s;
  s.parting_time = kNaN;
  const bool rigid = isRigidBody(run.engine);
  s.max_pivot_separation = rigid ? 0.0 : kNaN;
  s.max_axis_error = rigid ? 0.0 : kNaN;
  s.max_velocity_residual = rigid ? 0.0 : kNaN;
  s.tracking_rms = run.tracking_error.empty() ? kNaN : 0.0;
  // A run that failed before its first sample measured nothing.
  if (run.samples.empty()) {
    s.final_error = s.rms_error = s.max_error = s.energy_drift = s.final_energy_change = kNaN;
    s.angular_momentum_drift = s.linear_momentum_drift = kNaN;
    s.angular_momentum = s.linear_momentum = kNaN;
    s.max_pivot_separation = s.max_axis_error = s.max_velocity_residual = s.cost = kNaN;
    return s;
  }
  const Sample& first = run.samples.front();
  double sum_squares = 0.0, tracking_squares = 0.0;
  for (size_t i = 0; i < run.samples.size(); ++i) {
    const Sample& sample = run.samples[i];
    if (i < run.error.size()) {
      sum_squares += run.error[i] * run.error[i];
      s.max_error = std::max(s.max_error, run.error[i]);
      if (std::isnan(s.parting_time) && run.error[i] > parting_threshold) s.parting_time = sample.t;
    }
    if (i < run.tracking_error.size()) {
      tracking_squares += run.tracking_error[i] * run.tracking_error[i];
    }
    // The energy change beyond the reference's, which holds the work the torques did.
    const double reference_change =
        i < reference.size() ? reference[i].energy - reference.front().energy : 0.0;
    s.energy_drift =
        std::max(s.energy_drift, std::abs(sample.energy - first.energy - reference_change));
    const Vector6 change = sample.momentum - first.momentum;
    s.angular_momentum_drift = std::max(s.angular_momentum_drift, change.head<3>().norm());
    s.linear_momentum_drift = std::max(s.linear_momentum_drift, change.tail<3>().norm());
    if (rigid) {
      s.max_pivot_separation = std::max(s.max_pivot_separation, sample.pivot_separation);
      s.max_axis_error = std::max(s.max_axis_error, sample.axis_error);
      s.max_velocity_residual = std::max(s.max_velocity_residual, sample.velocity_residual);
    }
  }
  // A reference without an energy (on the ground) leaves the energy error unmeasured.
  if (!reference.empty() && std::isnan(reference.front().energy)) s.energy_drift = kNaN;
  s.angular_momentum = first.momentum.head<3>().norm();
  s.linear_momentum = first.momentum.tail<3>().norm();
  s.final_energy_change = run.samples.back().energy - first.energy;
  // Figures over the whole run only when the run went to its end.
  if (run.failure.empty()) {
    const double n = static_cast<double>(run.samples.size());
    s.final_error = run.error.empty() ? kNaN : run.error.back();
    s.rms_error = run.error.empty() ? kNaN : std::sqrt(sum_squares / run.error.size());
    if (!run.tracking_error.empty()) s.tracking_rms = std::sqrt(tracking_squares / n);
    s.cost = run.simulated_seconds > 0.0 ? run.wall_seconds / run.simulated_seconds : kNaN;
  } else {
    s.final_error = s.rms_error = s.tracking_rms = s.cost = kNaN;
  }
  return s;
}

/// The rate R of the reference's first check (file comment of comparison.hpp).
/// @throws InvalidArgumentError if it is above options.reference_max_rate.
std::int64_t firstReferenceRate(const ComparisonOptions& options, int S) {
  const int finest = *std::max_element(options.rates_hz.begin(), options.rates_hz.end());
  const std::int64_t min_rate = std::max<std::int64_t>(options.reference_min_rate, 2LL * finest);
  const std::int64_t R = 2 * S * ((min_rate + S - 1) / S);
  if (R > options.reference_max_rate) {
    throw InvalidArgumentError("compare: the reference would need RK4 at " + std::to_string(R) +
                               " Hz, above its limit of " +
                               std::to_string(options.reference_max_rate) + " Hz");
  }
  return R;
}

}  // namespace

double jointSpaceDistance(const Model& model, const Eigen::VectorXd& q0,
                          const Eigen::VectorXd& q1) {
  if (model.nv == 0) return 0.0;
  return difference(model, q0, q1).cwiseAbs().maxCoeff();
}

double measuredDistance(const Scenario& scenario, const Eigen::VectorXd& q0,
                        const Eigen::VectorXd& q1) {
  const Model& model = *scenario.model;
  if (scenario.measured_dofs.empty()) return jointSpaceDistance(model, q0, q1);
  return difference(model, q0, q1)(scenario.measured_dofs).cwiseAbs().maxCoeff();
}

int sampleRate(const ComparisonOptions& options) {
  if (options.rates_hz.empty()) throw InvalidArgumentError("compare: no step rate given");
  int divisor = 0;
  for (int rate : options.rates_hz) {
    if (rate <= 0) {
      throw InvalidArgumentError("compare: step rates must be positive, got " +
                                 std::to_string(rate) + " Hz");
    }
    divisor = std::gcd(divisor, rate);
  }
  if (options.sample_rate_hz > 0) {
    for (int rate : options.rates_hz) {
      if (rate % options.sample_rate_hz != 0) {
        throw InvalidArgumentError("compare: the sample rate " +
                                   std::to_string(options.sample_rate_hz) +
                                   " Hz does not divide the step rate " + std::to_string(rate) +
                                   " Hz (samples must fall on every engine's steps)");
      }
    }
    return options.sample_rate_hz;
  }
  // The greatest common divisor, divided by its smallest prime factor while above the cap.
  while (divisor > kMaxDefaultSampleRate) {
    int factor = 2;
    while (divisor % factor != 0) ++factor;
    divisor /= factor;
  }
  if (divisor < kMinDefaultSampleRate) {
    throw InvalidArgumentError("compare: the step rates have no common sample rate of at least " +
                               std::to_string(kMinDefaultSampleRate) + " Hz at or below " +
                               std::to_string(kMaxDefaultSampleRate) +
                               " Hz (their greatest common divisor gives " +
                               std::to_string(divisor) +
                               " Hz): choose a sample rate that divides "
                               "every step rate");
  }
  return divisor;
}

int checkTimeGrid(const Scenario& scenario, const ComparisonOptions& options) {
  const int S = sampleRate(options);
  firstReferenceRate(options, S);
  const double intervals = scenario.duration * S;
  const long samples = std::lround(intervals);
  if (samples < 1 || std::abs(intervals - samples) > 1e-9 * std::max(1.0, intervals)) {
    std::ostringstream message;
    message << "compare: the duration " << scenario.duration
            << " s is not a whole number of sample intervals (1/" << S
            << " s, from the steps and the sample rate)";
    throw InvalidArgumentError(message.str());
  }
  return static_cast<int>(samples);
}

namespace {

/// The progress bar's bookkeeping. Each engine run is one unit; the reference runs share the
/// first two (each halving of the step gets half of what is left of them), so the bar never goes
/// back.
struct Progress {
  const ComparisonOptions& options;
  int samples;
  double units;
  double units_done = 0.0;
  double unit_width = 1.0;

  /// The callback of one run over the samples, reporting `what`.
  std::function<void(int)> tick(const std::string& what) {
    return [this, what](int i) {
      report(options, (units_done + unit_width * i / samples) / units, what);
    };
  }
};

/// The reference: RK4 at R/2 and R, multiples of the sample rate S and at least twice the
/// finest engine rate, until halving the step changes q by less than the tolerance. Its
/// controller is made for the smallest engine step.
ReferenceRun runReference(const Scenario& scenario, const ComparisonOptions& options, int S,
                          int samples, Progress& progress) {
  const Model& model = *scenario.model;
  const int finest = *std::max_element(options.rates_hz.begin(), options.rates_hz.end());
  std::int64_t R = firstReferenceRate(options, S);
  const double control_h = 1.0 / finest;
  const auto start = std::chrono::steady_clock::now();
  ReferenceRun reference;
  EngineRun coarse = runReferenceAt(scenario, static_cast<int>(R / 2), control_h, S, samples,
                                    progress.tick("reference (RK4)"));
  for (;;) {
    progress.units_done += progress.unit_width;
    progress.unit_width *= 0.5;
    EngineRun fine = runReferenceAt(scenario, static_cast<int>(R), control_h, S, samples,
                                    progress.tick("reference (RK4)"));
    reference.halving_change = largestDifference(model, coarse.samples, fine.samples);
    reference.rate_hz = static_cast<int>(R);
    reference.samples = std::move(fine.samples);
    reference.converged = reference.halving_change <= options.reference_tolerance;
    if (reference.converged || 2 * R > options.reference_max_rate) break;
    coarse.samples = reference.samples;
    R *= 2;
  }
  reference.estimated_error = reference.halving_change / 15.0;
  reference.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return reference;
}

/// The tracking reference q_d(t), v_d(t) at the samples, in the RK4 reference's place on the
/// ground (comparison.hpp).
ReferenceRun sampleTrackingReference(const Scenario& scenario, int S, int samples) {
  const Model& model = *scenario.model;
  Data data(model);
  JointReference desired(model);
  ReferenceRun reference;
  reference.converged = true;
  for (int i = 0; i <= samples; ++i) {
    Sample sample;
    sample.t = static_cast<double>(i) / S;
    scenario.trajectory->evaluate(sample.t, desired);
    sample.q = desired.q;
    sample.v = desired.v;
    // On the ground the reference's base hangs in the air: its energy says nothing.
    sample.energy =
        scenario.ground ? kNaN : computeMechanicalEnergy(model, data, sample.q, sample.v);
    sample.momentum = computeSpatialMomentum(model, data, sample.q, sample.v).vector();
    reference.samples.push_back(std::move(sample));
  }
  return reference;
}

/// @throws Error when the reference did not converge: what it reached, and what to change.
void checkConverged(const ReferenceRun& reference, const ComparisonOptions& options) {
  if (reference.converged) return;
  std::ostringstream message;
  message << "the reference did not converge: halving RK4's step to 1/" << reference.rate_hz
          << " s (the finest allowed, " << options.reference_max_rate << " Hz) still changed q by "
          << reference.halving_change << " rad or m, above --reference-tolerance "
          << options.reference_tolerance
          << ": give a tolerance above that (what RK4 reaches on this run) or a shorter "
             "--duration";
  throw Error(message.str());
}

/// One engine at one rate, measured against the reference at the same instants; a failure
/// (an engine that cannot take the model, a divergence) is recorded in the run.
EngineRun runEngine(const Scenario& scenario, const ComparisonOptions& options, EngineKind kind,
                    int rate, int S, const std::vector<Sample>& reference, Progress& progress) {
  const Model& model = *scenario.model;
  EngineRun run;
  run.engine = kind;
  run.rate_hz = rate;
  const std::string what = std::string(toString(kind)) + " at " + std::to_string(rate) + " Hz";
  Eigen::VectorXd q_d;
  try {
    EngineSetup setup;
    setup.q0 = scenario.q0;
    setup.v0 = scenario.v0;
    setup.rate_hz = rate;
    setup.rigid = options.rigid;
    if (scenario.control) {
      EngineControl control = scenario.control(1.0 / rate);
      setup.control = std::move(control.torques);
      setup.motor_accelerations = std::move(control.accelerations);
    }
    setup.actuation = scenario.actuation;
    setup.torque_limits = scenario.torque_limits;
    setup.ground = scenario.ground;
    const bool bullet = isRigidBody(kind) || kind == EngineKind::MultiBody;
    if (scenario.bullet_motors && bullet) setup.bullet_motors = scenario.desired;
    auto engine = makeEngine(kind, model, setup);
    sampleEngine(
        *engine, rate / S, progress.samples, S, run,
        [&](int i, const Sample& sample) {
          const double e = measuredDistance(scenario, reference[i].q, sample.q);
          run.error.push_back(e);
          if (scenario.desired) {
            scenario.desired(sample.t, q_d);
            run.tracking_error.push_back(measuredDistance(scenario, q_d, sample.q));
          }
          if (!(e <= options.divergence_threshold)) {
            return "diverged: error against the reference " + std::to_string(e) +
                   " at t = " + std::to_string(sample.t) + " s";
          }
          return std::string();
        },
        progress.tick(what));
  } catch (const std::exception& e) {
    run.failure = e.what();
  }
  progress.units_done += 1.0;
  report(options, progress.units_done / progress.units, what);
  run.summary = summarize(run, reference, options.parting_threshold);
  return run;
}

/// @throws InvalidArgumentError for no engine, or an engine without contacts on the ground.
void checkEngines(const Scenario& scenario, const ComparisonOptions& options) {
  if (options.engines.empty()) throw InvalidArgumentError("compare: no engine given");
  for (EngineKind kind : options.engines) {
    if (scenario.ground && !hasContacts(kind)) {
      throw InvalidArgumentError(std::string("compare: --ground runs Bullet's engines only (the "
                                             "others know no contacts here), not '") +
                                 toString(kind) + "'");
    }
  }
}

/// @throws InvalidArgumentError unless every scenario tracks with the first one's model,
///   trajectory start and duration.
void checkOneTrackingTask(const std::vector<Scenario>& scenarios) {
  const Scenario& first = scenarios.front();
  for (const Scenario& s : scenarios) {
    const bool same = s.kind == ScenarioKind::Tracking && s.trajectory != nullptr &&
                      s.model->name == first.model->name && s.model->nq == first.model->nq &&
                      s.model->nv == first.model->nv && s.duration == first.duration &&
                      s.q0 == first.q0 && s.ground == first.ground;
    if (!same) {
      throw InvalidArgumentError(
          "compare: several controllers run one tracking task: the same model, pose, duration "
          "and ground for each");
    }
  }
}

}  // namespace

Comparison runComparison(const Scenario& scenario, const ComparisonOptions& options) {
  return runComparison(std::vector<Scenario>{scenario}, options);
}

Comparison runComparison(const std::vector<Scenario>& scenarios, const ComparisonOptions& options) {
  if (scenarios.empty()) throw InvalidArgumentError("compare: no scenario given");
  const Scenario& first = scenarios.front();
  const bool several = scenarios.size() > 1;
  if (several) checkOneTrackingTask(scenarios);
  checkEngines(first, options);
  const int samples = checkTimeGrid(first, options);
  Comparison result;
  result.sample_rate_hz = sampleRate(options);
  const int S = result.sample_rate_hz;
  const double engine_runs =
      static_cast<double>(options.engines.size() * options.rates_hz.size() * scenarios.size());
  Progress progress{options, samples, engine_runs + 2.0};
  if (first.ground || several) {
    result.reference = sampleTrackingReference(first, S, samples);
    result.reference.why_tracking =
        first.ground ? "on the ground gcbridge's integrators cannot run: they know no contacts"
                     : "each controller is its own closed loop";
  } else {
    result.reference = runReference(first, options, S, samples, progress);
    checkConverged(result.reference, options);
  }
  progress.units_done = 2.0;
  progress.unit_width = 1.0;
  for (const Scenario& scenario : scenarios) {
    for (EngineKind kind : options.engines) {
      for (int rate : options.rates_hz) {
        result.runs.push_back(
            runEngine(scenario, options, kind, rate, S, result.reference.samples, progress));
        if (several) result.runs.back().controller = scenario.controller;
      }
    }
  }
  return result;
}

}  // namespace gcbridge::compare
