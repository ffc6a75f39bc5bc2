// `gcbridge compare` (tools/compare/): the reference against the pendulum's exact solution, the
// order of convergence of every engine, momentum in zero gravity, tracking, the report files and
// bad input.

#include <gtest/gtest.h>
#include <tinyxml2.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "compare/comparison.hpp"
#include "compare/engines.hpp"
#include "compare/output.hpp"
#include "compare/scenarios.hpp"
#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/energy.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "pendulum.hpp"
#include "test_helpers.hpp"

namespace gcbridge::compare {
namespace {

using test::matricesNear;

/// Jacobi's sn(u | m) by the arithmetic-geometric mean (Abramowitz and Stegun 16.4).
double jacobiSn(double u, double m) {
  double a[16], c[16];
  a[0] = 1.0;
  double b = std::sqrt(1.0 - m);
  c[0] = std::sqrt(m);
  int n = 0;
  while (std::abs(c[n]) > 1e-16 && n < 15) {
    a[n + 1] = 0.5 * (a[n] + b);
    c[n + 1] = 0.5 * (a[n] - b);
    b = std::sqrt(a[n] * b);
    ++n;
  }
  double phi = std::ldexp(1.0, n) * a[n] * u;
  for (int k = n; k > 0; --k) phi = 0.5 * (phi + std::asin(c[k] / a[k] * std::sin(phi)));
  return std::sin(phi);
}

/// The pendulum released at rest from theta0, exactly: theta(t) = 2 asin(k sn(K - w t | k^2)),
/// k = sin(theta0 / 2), w^2 = m g l / (m l^2 + I_c) (the demo's pendulum has a solid bob).
double exactPendulumAngle(const demo::PendulumParameters& p, double theta0, double t) {
  const double k = std::sin(0.5 * theta0);
  const double w = std::sqrt(p.mass * p.gravity * p.length /
                             (p.mass * p.length * p.length + p.inertiaAboutCom()));
  return 2.0 * std::asin(k * jacobiSn(std::comp_ellint_1(k) - w * t, k * k));
}

/// The pendulum's passive scenario released at 1 rad.
Scenario pendulumScenario(double duration) {
  ScenarioOptions options;
  options.kind = ScenarioKind::Passive;
  options.duration = duration;
  options.q0 = Eigen::VectorXd::Constant(1, 1.0);
  options.v0 = Eigen::VectorXd::Zero(1);  // released at rest: the exact solution's start
  return makeScenario(demo::makePendulum(demo::PendulumParameters{}), options);
}

/// Slope of log(error) against log(step) by least squares.
double convergenceOrder(const std::vector<double>& steps, const std::vector<double>& errors) {
  double mx = 0, my = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    mx += std::log(steps[i]) / steps.size();
    my += std::log(errors[i]) / steps.size();
  }
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    sxy += (std::log(steps[i]) - mx) * (std::log(errors[i]) - my);
    sxx += (std::log(steps[i]) - mx) * (std::log(steps[i]) - mx);
  }
  return sxy / sxx;
}

TEST(CompareReference, PendulumMatchesTheExactSolution) {
  // The exact solution itself: at t = 0 it is the release angle, after half a period the mirror.
  const demo::PendulumParameters p;
  EXPECT_NEAR(exactPendulumAngle(p, 1.0, 0.0), 1.0, 1e-15);
  const double w = std::sqrt(p.mass * p.gravity * p.length /
                             (p.mass * p.length * p.length + p.inertiaAboutCom()));
  const double half_period = 2.0 * std::comp_ellint_1(std::sin(0.5)) / w;
  EXPECT_NEAR(exactPendulumAngle(p, 1.0, half_period), -1.0, 1e-12);

  // The reference RK4 follows it to the reference's tolerance: 1e-9 rad is what halving its step
  // may still change, and the exact error is about 1/15 of that.
  const Scenario scenario = pendulumScenario(2.0);
  ComparisonOptions options;
  options.engines = {EngineKind::RungeKutta4};
  const Comparison comparison = runComparison(scenario, options);
  ASSERT_TRUE(comparison.reference.converged);
  EXPECT_LE(comparison.reference.halving_change, 1e-9);
  double worst = 0.0;
  for (const Sample& s : comparison.reference.samples) {
    worst = std::max(worst, std::abs(s.q(0) - exactPendulumAngle(p, 1.0, s.t)));
  }
  EXPECT_LT(worst, 1e-9);
  EXPECT_GT(comparison.reference.samples.size(), 400u);
}

/// The error of each engine at each rate on the pendulum (final error after 1 s).
struct OrderCase {
  EngineKind engine;
  double order;      ///< what the method should have
  double tolerance;  ///< on the measured slope
};

class CompareOrder : public ::testing::TestWithParam<OrderCase> {};

TEST_P(CompareOrder, PendulumConvergesAtTheMethodsOrder) {
  const OrderCase c = GetParam();
  const Scenario scenario = pendulumScenario(1.0);
  ComparisonOptions options;
  options.engines = {c.engine};
  // Rates high enough for the asymptotic regime, yet far from round-off for RK4.
  options.rates_hz =
      c.order > 2 ? std::vector<int>{50, 100, 200, 400} : std::vector<int>{500, 1000, 2000, 4000};
  // Bullet's rigid bodies: enough solver iterations that the hinge's solve is not the error.
  options.rigid.solver_iterations = 100;
  options.reference_tolerance = 1e-11;
  const Comparison comparison = runComparison(scenario, options);
  std::vector<double> steps, errors;
  for (const EngineRun& run : comparison.runs) {
    ASSERT_TRUE(run.failure.empty()) << run.failure;
    steps.push_back(1.0 / run.rate_hz);
    errors.push_back(run.summary.max_error);
  }
  const double order = convergenceOrder(steps, errors);
  EXPECT_NEAR(order, c.order, c.tolerance)
      << toString(c.engine) << ": errors " << errors[0] << " .. " << errors.back();
}

INSTANTIATE_TEST_SUITE_P(Engines, CompareOrder,
                         ::testing::Values(OrderCase{EngineKind::RigidBody, 1.0, 0.1},
                                           OrderCase{EngineKind::MultiBody, 1.0, 0.05},
                                           OrderCase{EngineKind::SemiImplicitEuler, 1.0, 0.05},
                                           OrderCase{EngineKind::ImplicitEuler, 1.0, 0.05},
                                           OrderCase{EngineKind::RungeKutta4, 4.0, 0.1}),
                         [](const ::testing::TestParamInfo<OrderCase>& info) {
                           return std::string(toString(info.param.engine));
                         });

/// The largest relative momentum drift of a run: max_t ||p(t) - p(0)||_inf / ||p(0)||_inf.
double relativeMomentumDrift(const std::vector<Sample>& samples) {
  const Vector6& p0 = samples.front().momentum;
  double worst = 0.0;
  for (const Sample& s : samples) worst = std::max(worst, (s.momentum - p0).cwiseAbs().maxCoeff());
  return worst / p0.cwiseAbs().maxCoeff();
}

/// A scenario of a shipped model (`relative` to models/) as `gcbridge compare` loads it.
Scenario shippedScenario(const std::string& relative, const ScenarioOptions& options) {
  return makeScenario(loadScenarioModel(std::string(GCBRIDGE_MODELS_DIR) + "/" + relative, options),
                      options);
}

/// A scenario of the shipped humanoid (DeepMimic, quaternion ball joints).
Scenario humanoidScenario(ScenarioKind kind, double duration) {
  ScenarioOptions options;
  options.kind = kind;
  options.duration = duration;
  return shippedScenario("humanoid_deepmimic/humanoid.urdf", options);
}

TEST(CompareZeroGravity, GeneralizedEnginesConserveMomentumAtTheirOrder) {
  const Scenario scenario = humanoidScenario(ScenarioKind::ZeroGravity, 0.5);
  ASSERT_TRUE(scenario.model->floating_base);
  ASSERT_TRUE(scenario.model->gravity_W.isZero());
  ComparisonOptions options;
  options.engines = {EngineKind::RigidBody, EngineKind::SemiImplicitEuler, EngineKind::RungeKutta4};
  options.rates_hz = {500, 1000};
  const Comparison comparison = runComparison(scenario, options);
  for (const EngineRun& run : comparison.runs) {
    ASSERT_TRUE(run.failure.empty()) << run.failure;
    SCOPED_TRACE(toString(run.engine) + std::string(" ") + std::to_string(run.rate_hz));
    EXPECT_GT(run.samples.front().momentum.cwiseAbs().maxCoeff(), 1.0);
  }
  // The reference conserves momentum (internal torques cannot change it): measured 1e-12.
  EXPECT_LT(relativeMomentumDrift(comparison.reference.samples), 1e-10);
  // The engines' drift is their integration error: halving the step divides it by 2^order.
  const auto drift = [&](EngineKind kind, int rate) {
    for (const EngineRun& run : comparison.runs) {
      if (run.engine == kind && run.rate_hz == rate) return relativeMomentumDrift(run.samples);
    }
    return std::numeric_limits<double>::quiet_NaN();
  };
  EXPECT_NEAR(std::log2(drift(EngineKind::RungeKutta4, 500) / drift(EngineKind::RungeKutta4, 1000)),
              4.0, 0.5);
  // RK4 at 1 kHz keeps it to 1e-9 (measured 2.6e-10); Euler's drift is first order.
  EXPECT_LT(drift(EngineKind::RungeKutta4, 1000), 1e-9);
  EXPECT_NEAR(std::log2(drift(EngineKind::SemiImplicitEuler, 500) /
                        drift(EngineKind::SemiImplicitEuler, 1000)),
              1.0, 0.3);
  // Bullet's rigid bodies: the joints' impulses are equal and opposite, so the linear momentum
  // stays to round-off (measured 1e-15); the angular momentum drifts (1e-5 of it at 1 kHz), and
  // the table states by how much.
  for (const EngineRun& run : comparison.runs) {
    if (run.engine != EngineKind::RigidBody) continue;
    const Vector3 p0 = run.samples.front().momentum.tail<3>();
    for (const Sample& s : run.samples) {
      EXPECT_LT((s.momentum.tail<3>() - p0).norm(), 1e-12 * p0.norm());
    }
    EXPECT_LT(run.summary.linear_momentum_drift, 1e-12 * run.summary.linear_momentum);
    EXPECT_GT(run.summary.angular_momentum_drift, 1e-9 * run.summary.angular_momentum);
  }
  const std::string table = summaryTable(scenario, comparison);
  EXPECT_NE(table.find("ang mom drift"), std::string::npos) << table;
  EXPECT_NE(table.find("lin mom drift"), std::string::npos) << table;
}

TEST(CompareEngines, BulletMultiBodyStepsLikeSemiImplicitEuler) {
  // btMultiBody without damping or clamps integrates velocities first, then positions: the same
  // scheme as gcbridge's semi-implicit Euler on the same dynamics, so the two agree to round-off
  // where the motion is not chaotic (the humanoid hanging from its fixed root, 1 s at 240 Hz).
  const Scenario scenario = humanoidScenario(ScenarioKind::Passive, 1.0);
  ComparisonOptions options;
  options.engines = {EngineKind::MultiBody, EngineKind::SemiImplicitEuler};
  // A reference to 1e-6 rad is enough to show both 1e-3 rad away from it (and cheap).
  options.reference_tolerance = 1e-6;
  const Comparison comparison = runComparison(scenario, options);
  ASSERT_EQ(comparison.runs.size(), 2u);
  const EngineRun& multibody = comparison.runs[0];
  const EngineRun& euler = comparison.runs[1];
  ASSERT_TRUE(multibody.failure.empty() && euler.failure.empty());
  double worst = 0.0;
  for (size_t i = 0; i < euler.samples.size(); ++i) {
    worst = std::max(
        worst, jointSpaceDistance(*scenario.model, euler.samples[i].q, multibody.samples[i].q));
  }
  EXPECT_LT(worst, 1e-11);  // measured 2e-14 rad
  // ... while both are far from the reference (first order at 240 Hz).
  EXPECT_GT(euler.summary.max_error, 1e-3);
}

TEST(CompareTracking, ControllersRunOnEveryEngine) {
  // The iiwa tracking sinusoids by computed torque: every engine tracks; RK4 evaluates the
  // controller inside its stages (continuous-time control), the others hold it over a step.
  ScenarioOptions options;
  options.kind = ScenarioKind::Tracking;
  options.duration = 1.0;
  const Scenario scenario = shippedScenario("kuka_iiwa/model.urdf", options);
  ASSERT_TRUE(static_cast<bool>(scenario.desired));
  ComparisonOptions comparison_options;
  comparison_options.rates_hz = {1000};
  const Comparison comparison = runComparison(scenario, comparison_options);
  ASSERT_EQ(comparison.runs.size(), allEngines().size());
  for (const EngineRun& run : comparison.runs) {
    SCOPED_TRACE(toString(run.engine));
    ASSERT_TRUE(run.failure.empty()) << run.failure;
    ASSERT_EQ(run.tracking_error.size(), run.samples.size());
    EXPECT_LT(run.tracking_error.front(), 1e-12);  // starts on the reference
    // Computed torque with a one-step hold: 0.5 mrad at 1 kHz (iiwa demo: 0.28 mrad RMS); the
    // rigid bodies projected onto the joints every step track worse (measured 2.3 mrad).
    const double bound = run.engine == EngineKind::RungeKutta4          ? 1e-8
                         : run.engine == EngineKind::RigidBodyProjected ? 3e-3
                                                                        : 1e-3;
    EXPECT_LT(run.summary.tracking_rms, bound);
    EXPECT_GT(run.summary.tracking_rms, run.engine == EngineKind::RungeKutta4 ? 0.0 : 1e-5);
  }
  // The reference is the continuous closed loop: it tracks to round-off of the controller. The
  // controller does work: every engine's energy changes by about the reference's change, and
  // the energy error leaves that work out (RK4, the reference's scheme, to 1e-6 of it).
  const double work =
      comparison.reference.samples.back().energy - comparison.reference.samples.front().energy;
  EXPECT_GT(std::abs(work), 1.0);
  for (const EngineRun& run : comparison.runs) {
    SCOPED_TRACE(toString(run.engine));
    EXPECT_LT(run.summary.energy_drift, 0.05 * std::abs(work));
    if (run.engine == EngineKind::RungeKutta4) {
      EXPECT_LT(run.summary.tracking_rms, 1e-8);
      EXPECT_LT(run.summary.energy_drift, 1e-6 * std::abs(work));
      EXPECT_NEAR(run.summary.final_energy_change, work, 1e-6 * std::abs(work));
    }
  }
  EXPECT_LE(comparison.reference.halving_change, 1e-9);
}

// Several controllers on one tracking task, the pendulum at 240 Hz: every engine runs under each,
// labelled, against the tracking reference q_d(t) (whose error is the tracking error). On
// gcbridge's semi-implicit Euler, computed torque aimed at the step's end lands on the reference
// at every step (to round-off), while Bullet's motor law, aimed at q_d(t), lags one step behind:
// an error of h |qd_d| (the sinusoid's 0.3 pi rad/s at most, RMS over its first quarter period
// h 0.3 pi / sqrt(2) = 2.8e-3 rad).
TEST(CompareTracking, SeveralControllersShareTheTrackingReference) {
  ScenarioOptions options;
  options.kind = ScenarioKind::Tracking;
  options.duration = 0.5;
  const Model model = demo::makePendulum(demo::PendulumParameters{});
  std::vector<Scenario> scenarios;
  for (bool motors : {true, false}) {
    options.bullet_motors = motors;
    options.controller = JointControlMode::ComputedTorqueStepEnd;
    scenarios.push_back(makeScenario(model, options));
  }
  EXPECT_EQ(scenarios[0].controller, "bullet_motors");
  EXPECT_EQ(scenarios[1].controller, "computed_torque_step");
  ComparisonOptions comparison_options;
  comparison_options.engines = {EngineKind::RigidBody, EngineKind::SemiImplicitEuler};
  const Comparison comparison = runComparison(scenarios, comparison_options);
  EXPECT_EQ(comparison.reference.rate_hz, 0);
  ASSERT_EQ(comparison.runs.size(), 4u);
  for (size_t i = 0; i < comparison.runs.size(); ++i) {
    const EngineRun& run = comparison.runs[i];
    SCOPED_TRACE(toString(run.engine) + std::string(" ") + run.controller);
    ASSERT_TRUE(run.failure.empty()) << run.failure;
    EXPECT_EQ(run.controller, scenarios[i / 2].controller);
    EXPECT_EQ(run.error, run.tracking_error);
  }
  EXPECT_LT(comparison.runs[3].summary.tracking_rms, 1e-12);
  EXPECT_NEAR(comparison.runs[1].summary.tracking_rms, 0.3 * M_PI / 240.0 / std::sqrt(2.0), 3e-4);
  // One task only: another duration is refused.
  scenarios[1].duration = 1.0;
  EXPECT_THROW(runComparison(scenarios, comparison_options), InvalidArgumentError);
}

// Bullet's motors drive every revolute and prismatic dof but a universal joint's two (through a
// massless middle link): the iiwa's first joint on its massless static base is driven.
TEST(CompareTracking, BulletMotorDofsLeaveOnlyUniversalJointsPassive) {
  const Model iiwa = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  ASSERT_LE(iiwa.inertias[0].mass(), 0.0);
  EXPECT_EQ(bulletMotorDofs(iiwa), std::vector<bool>(7, true));
  const Model universal = test::universalModel();
  std::vector<bool> expected(universal.nv, false);  // the free root and u1, u2: passive
  EXPECT_EQ(bulletMotorDofs(universal), expected);
  const Model chain = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  EXPECT_EQ(bulletMotorDofs(chain), std::vector<bool>(5, true));
}

// Bullet's motors in gcbridge's integrators: the torque a velocity motor on every revolute joint
// applies with the example apps' target, on the floating humanoid (its free root and ball joints
// passive, and said so): ABA (independent of the CRBA and RNEA the law solves with) gives back
// the target acceleration ((q_d(t) (-) q) / h - v) / h on every driven dof, with zero torque on
// the passive ones; to 1e-9 relative.
TEST(CompareTracking, BulletMotorsTorqueReachesTheMotorsTargetInOneStep) {
  ScenarioOptions options;
  options.kind = ScenarioKind::Tracking;
  options.duration = 0.5;
  options.bullet_motors = true;
  options.model_options.floating_base = true;
  const Scenario scenario = shippedScenario("humanoid_deepmimic/humanoid.urdf", options);
  const Model& model = *scenario.model;
  ASSERT_TRUE(scenario.bullet_motors);
  const bool noted = std::any_of(scenario.notes.begin(), scenario.notes.end(), [](auto& note) {
    return note.find("left passive: 'root_joint' (free)") != std::string::npos;
  });
  EXPECT_TRUE(noted) << scenario.notes.front();
  const double h = 1.0 / 240.0, t = 0.3;
  const ControlFunction law = scenario.control(h).torques;
  const Eigen::VectorXd q =
      integrate(model, scenario.q0, Eigen::VectorXd::Constant(model.nv, 0.05), 1.0);
  const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(model.nv, -0.5, 0.7);
  Eigen::VectorXd tau, q_d;
  law(t, q, v, tau);
  scenario.desired(t, q_d);
  Data data(model);
  const Eigen::VectorXd a = aba(model, data, q, v, tau);
  const Eigen::VectorXd target = (difference(model, q, q_d) / h - v) / h;
  int driven = 0;
  for (const Joint& joint : model.joints) {
    for (int i = joint.idx_v; i < joint.idx_v + joint.nv; ++i) {
      if (joint.type == JointType::Revolute) {
        ++driven;
        EXPECT_NEAR(a(i), target(i), 1e-9 * target.cwiseAbs().maxCoeff()) << joint.name;
      } else {
        EXPECT_EQ(tau(i), 0.0) << joint.name;
      }
    }
  }
  EXPECT_GT(driven, 0);
}

TEST(CompareEngines, RigidBodyAnglesUnwrapFromTheInitialState) {
  // Released beyond pi (4 rad, 0.86 rad past the top) the pendulum's angle stays continuous: the
  // rigid-body engine reads it as the others do, not wrapped by 2 pi.
  ScenarioOptions options;
  options.duration = 0.5;
  options.q0 = Eigen::VectorXd::Constant(1, 4.0);
  const Scenario scenario = makeScenario(demo::makePendulum(demo::PendulumParameters{}), options);
  ComparisonOptions comparison_options;
  comparison_options.engines = {EngineKind::RigidBody};
  comparison_options.rates_hz = {1000};
  const Comparison comparison = runComparison(scenario, comparison_options);
  const EngineRun& run = comparison.runs.at(0);
  ASSERT_TRUE(run.failure.empty()) << run.failure;
  EXPECT_NEAR(run.samples.front().q(0), 4.0, 1e-12);
  EXPECT_LT(run.summary.max_error, 0.05);
}

TEST(CompareEngines, AFailedRunKeepsWhatItMeasuredAndNoWholeRunFigures) {
  // The floating iiwa's base link has no mass: Bullet's rigid bodies cannot take it.
  ScenarioOptions options;
  options.kind = ScenarioKind::ZeroGravity;
  options.duration = 0.1;
  const Scenario scenario = shippedScenario("kuka_iiwa/model.urdf", options);
  ComparisonOptions comparison_options;
  comparison_options.engines = {EngineKind::RigidBody, EngineKind::RungeKutta4};
  std::vector<double> fractions;
  comparison_options.progress = [&](double fraction, const std::string&) {
    fractions.push_back(fraction);
  };
  const Comparison comparison = runComparison(scenario, comparison_options);
  const EngineRun& rigid = comparison.runs.at(0);
  EXPECT_NE(rigid.failure.find("lbr_iiwa_link_0"), std::string::npos) << rigid.failure;
  EXPECT_TRUE(std::isnan(rigid.summary.final_error) && std::isnan(rigid.summary.rms_error));
  EXPECT_TRUE(std::isnan(rigid.summary.cost));
  EXPECT_TRUE(comparison.runs.at(1).failure.empty());
  const std::string table = summaryTable(scenario, comparison);
  EXPECT_NE(table.find("FAILED (1)"), std::string::npos) << table;
  EXPECT_NE(table.find("(1) rigid_body 240 Hz: "), std::string::npos) << table;
  // The progress bar never goes back and ends full.
  ASSERT_FALSE(fractions.empty());
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  EXPECT_DOUBLE_EQ(fractions.back(), 1.0);
}

TEST(CompareReference, StablePDReferenceIsOneClosedLoop) {
  // Stable PD depends on the step it is made for: every reference run uses the smallest engine
  // step's controller, so halving the reference's step still converges at fourth order.
  ScenarioOptions options;
  options.kind = ScenarioKind::Tracking;
  options.controller = JointControlMode::StablePD;
  options.duration = 0.5;
  const Scenario scenario = shippedScenario("kuka_iiwa/model.urdf", options);
  ComparisonOptions comparison_options;
  comparison_options.engines = {EngineKind::SemiImplicitEuler};
  comparison_options.rates_hz = {240, 1000};
  const Comparison comparison = runComparison(scenario, comparison_options);
  EXPECT_TRUE(comparison.reference.converged) << comparison.reference.halving_change;
  EXPECT_LE(comparison.reference.rate_hz, 8000);
}

/// Reads a CSV file as rows of cells.
std::vector<std::vector<std::string>> readCsv(const std::string& path) {
  std::ifstream file(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(file, line)) {
    // Split at every comma, keeping empty cells (also a trailing one).
    std::vector<std::string> cells(1);
    for (char c : line) {
      if (c == ',') {
        cells.emplace_back();
      } else {
        cells.back() += c;
      }
    }
    rows.push_back(cells);
  }
  return rows;
}

/// Elements of an XML tree whose `attribute` is `value`.
int countElements(const tinyxml2::XMLElement* element, const char* attribute, const char* value) {
  int n = 0;
  for (; element != nullptr; element = element->NextSiblingElement()) {
    const char* a = element->Attribute(attribute);
    if (a != nullptr && std::string(a) == value) ++n;
    n += countElements(element->FirstChildElement(), attribute, value);
  }
  return n;
}

TEST(CompareOutput, FilesParseAndHoldOneCurvePerEngine) {
  const Scenario scenario = pendulumScenario(0.5);
  ComparisonOptions options;
  options.rates_hz = {240, 480};
  const Comparison comparison = runComparison(scenario, options);
  const std::string directory =
      (std::filesystem::temp_directory_path() / "gcbridge_compare_test").string();
  std::filesystem::remove_all(directory);
  OutputFolder folder(directory);
  const std::vector<std::string> files =
      writeOutputs(folder, scenario, comparison, RunDescription{"test", "pendulum", {}});

  // Every file exists; the CSV files have as many cells per row as the header.
  const std::vector<std::string> header = timeSeriesHeader(*scenario.model);
  EXPECT_EQ(header.size(), 1u + 1u + 1u + 12u);  // t, q, v, the 12 measurement columns
  int csv_files = 0, svg_files = 0;
  for (const std::string& path : files) {
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    const std::string extension = std::filesystem::path(path).extension().string();
    if (extension == ".csv") {
      ++csv_files;
      const auto rows = readCsv(path);
      ASSERT_GE(rows.size(), 2u) << path;
      for (const auto& row : rows) EXPECT_EQ(row.size(), rows.front().size()) << path;
      if (path.find("summary") == std::string::npos) {
        EXPECT_EQ(rows.front(), header) << path;
        EXPECT_EQ(rows.size(), 1u + comparison.reference.samples.size()) << path;
      } else {
        EXPECT_EQ(rows.size(), 1u + comparison.runs.size());
      }
    }
    // The viewer is an HTML page with scripts, not XML: its tracks are checked below.
    const bool viewer = std::filesystem::path(path).filename() == "viewer.html";
    if (extension == ".svg" || (extension == ".html" && !viewer)) {
      svg_files += extension == ".svg";
      tinyxml2::XMLDocument document;
      ASSERT_EQ(document.LoadFile(path.c_str()), tinyxml2::XML_SUCCESS)
          << path << ": " << document.ErrorStr();
    }
    if (viewer) {
      std::ifstream file(path);
      const std::string page((std::istreambuf_iterator<char>(file)),
                             std::istreambuf_iterator<char>());
      // The reference and one track per plotted run.
      std::size_t tracks = 0;
      for (std::size_t at = page.find("\"style\":"); at != std::string::npos;
           at = page.find("\"style\":", at + 1)) {
        ++tracks;
      }
      EXPECT_EQ(tracks, 1u + allEngines().size()) << path;
    }
  }
  EXPECT_EQ(csv_files, 2 + static_cast<int>(comparison.runs.size()));  // summary, reference, runs

  // One curve per engine (10 runs: the time plots show one rate per engine), and the reference.
  const auto svg = [&](const std::string& name) {
    auto document = std::make_unique<tinyxml2::XMLDocument>();
    document->LoadFile((directory + "/" + name + ".svg").c_str());
    return document;
  };
  const int engines = static_cast<int>(allEngines().size());
  EXPECT_EQ(countElements(svg("energy")->RootElement(), "class", "legend-entry"), engines);
  EXPECT_EQ(countElements(svg("speed_accuracy")->RootElement(), "class", "legend-entry"), engines);
  EXPECT_EQ(countElements(svg("joint_pivot")->RootElement(), "class", "legend-entry"), engines + 1);
  // The joint separation: the two rigid-body engines.
  EXPECT_EQ(countElements(svg("pivot_separation")->RootElement(), "class", "legend-entry"), 2);
  // Every series with a point to draw (log axes drop zeros: the pendulum's hinge axis error is 0)
  // is a curve in its figure's file.
  for (const Figure& figure : makeFigures(scenario, comparison)) {
    for (const Series& series : figure.plot.series) {
      const bool drawable = std::any_of(series.y.begin(), series.y.end(), [&](double y) {
        return std::isfinite(y) && (figure.plot.y.scale == AxisScale::Linear || y > 0.0);
      });
      if (!drawable) continue;
      const auto figure_svg = svg(figure.name);
      EXPECT_EQ(countElements(figure_svg->RootElement(), "data-series", series.label.c_str()) > 0,
                true)
          << figure.name << " has no curve for " << series.label;
    }
  }
  // The HTML embeds every figure and nothing from the network.
  std::ifstream html_file(directory + "/report.html");
  const std::string html((std::istreambuf_iterator<char>(html_file)),
                         std::istreambuf_iterator<char>());
  size_t inline_svgs = 0;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) {
    ++inline_svgs;
  }
  EXPECT_EQ(static_cast<int>(inline_svgs), svg_files);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  std::filesystem::remove_all(directory);
}

TEST(CompareInput, BadInputIsRejectedWithItsName) {
  const Model pendulum = demo::makePendulum(demo::PendulumParameters{});
  ScenarioOptions options;
  // Sizes and values of the initial state, the duration.
  options.q0 = Eigen::VectorXd::Zero(2);
  EXPECT_THROW(makeScenario(pendulum, options), InvalidArgumentError);
  options.q0 = Eigen::VectorXd::Constant(1, std::nan(""));
  EXPECT_THROW(makeScenario(pendulum, options), InvalidArgumentError);
  options.q0.resize(0);
  options.duration = 0.0;
  EXPECT_THROW(makeScenario(pendulum, options), InvalidArgumentError);
  // zero_gravity needs a floating base without gravity.
  options.duration = 1.0;
  options.kind = ScenarioKind::ZeroGravity;
  EXPECT_THROW(makeScenario(pendulum, options), InvalidArgumentError);
  // Ball joints must be quaternions; a torque file replaces no tracking controller.
  ScenarioOptions expmap;
  expmap.model_options.ball = BallParametrization::ExpMap;
  EXPECT_THROW(shippedScenario("humanoid_deepmimic/humanoid.urdf", expmap), InvalidArgumentError);
  ScenarioOptions tracking;
  tracking.kind = ScenarioKind::Tracking;
  tracking.torques_path = "any.csv";
  EXPECT_THROW(makeScenario(pendulum, tracking), InvalidArgumentError);
  // Names.
  EXPECT_THROW(engineFromString("warp"), InvalidArgumentError);
  EXPECT_THROW(scenarioFromString("nope"), InvalidArgumentError);
  EXPECT_THROW(jointControlModeFromString("lqr"), InvalidArgumentError);
  // The sample rate must divide every step rate.
  ComparisonOptions comparison;
  comparison.rates_hz = {240, 1000};
  EXPECT_EQ(sampleRate(comparison), 40);
  comparison.sample_rate_hz = 100;
  EXPECT_THROW(sampleRate(comparison), InvalidArgumentError);
  comparison.rates_hz = {0};
  EXPECT_THROW(sampleRate(comparison), InvalidArgumentError);
  comparison.rates_hz = {1000};
  comparison.sample_rate_hz = 0;
  EXPECT_EQ(sampleRate(comparison), 250);
  // The duration must be a whole number of samples.
  options.kind = ScenarioKind::Passive;
  options.duration = 0.2;
  const Scenario scenario = makeScenario(pendulum, options);
  EXPECT_EQ(checkTimeGrid(scenario, comparison), 50);
  comparison.rates_hz = {7};
  EXPECT_THROW(checkTimeGrid(scenario, comparison), InvalidArgumentError);
  // The reference must stay below its rate limit (here 4 x 200 kHz > 256 kHz).
  comparison.rates_hz = {200000};
  EXPECT_THROW(checkTimeGrid(scenario, comparison), InvalidArgumentError);
  comparison.rates_hz = {7};
  EXPECT_THROW(runComparison(scenario, comparison), InvalidArgumentError);
}

TEST(CompareInput, TorqueFilesAreReadOrRejectedByLine) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "gcbridge_compare_torques.csv").string();
  const auto write = [&](const std::string& text) { std::ofstream(path) << text; };
  // A comment, a header, interpolation between rows, hold after the last.
  write("# comment\nt,tau\n0,1\n0.5,2\n1.0,0\n");
  const TorqueSequence sequence = readTorqueSequence(path, 1);
  Eigen::VectorXd tau;
  sequence.evaluate(0.25, tau);
  EXPECT_DOUBLE_EQ(tau(0), 1.5);
  sequence.evaluate(0.75, tau);
  EXPECT_DOUBLE_EQ(tau(0), 1.0);
  sequence.evaluate(3.0, tau);
  EXPECT_DOUBLE_EQ(tau(0), 0.0);
  // Errors name the file and line.
  for (const char* bad : {"0,1,2\n", "0,1\n0,2\n", "0,x\n1,2\n2,y\n", "0,nan\n", "", "0,1,\n",
                          "t,tau\n0,1\nt,tau\n"}) {
    write(bad);
    try {
      readTorqueSequence(path, 1);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  std::filesystem::remove(path);
}

// A waypoint file is the tracking reference: the run starts on its first waypoint (quaternions
// normalized), the reference passes through every waypoint and holds the last, and
// computed_torque_step on semi-implicit Euler tracks it to round-off (its step lands on the
// reference); one row holds a pose. Bad rows are refused naming the file and line, a far-from-unit
// quaternion its joint too, and a waypoint file outside the tracking scenario.
TEST(CompareInput, WaypointFilesAreTheTrackingReference) {
  const auto expectThrowNaming = [](const std::function<void()>& f, const std::string& words) {
    try {
      f();
      ADD_FAILURE() << "no exception, expected one naming " << words;
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  const std::string path =
      (std::filesystem::temp_directory_path() / "gcbridge_compare_waypoints.csv").string();
  const auto write = [&](const std::vector<double>& times, const std::vector<Eigen::VectorXd>& q) {
    std::ofstream file(path);
    file.precision(17);
    file << "# waypoints\nt,q...\n";
    for (size_t k = 0; k < times.size(); ++k) {
      file << times[k];
      for (Eigen::Index i = 0; i < q[k].size(); ++i) file << "," << q[k](i);
      file << "\n";
    }
  };
  ScenarioOptions options;
  options.kind = ScenarioKind::Tracking;
  options.trajectory_path = path;
  options.duration = 0.5;
  // The floating humanoid: a quaternion scaled by 1 + 1e-5 is normalized.
  ScenarioOptions humanoid_options = options;
  humanoid_options.model_options.floating_base = true;
  const Model humanoid = loadScenarioModel(
      std::string(GCBRIDGE_MODELS_DIR) + "/humanoid_deepmimic/humanoid.urdf", humanoid_options);
  const Eigen::VectorXd q_a = randomConfiguration(humanoid, 7);
  const std::vector<double> times = {0.1, 0.3, 0.45};
  const std::vector<Eigen::VectorXd> waypoints = {
      q_a, integrate(humanoid, q_a, randomVector(humanoid.nv, 8, 0.3), 1.0),
      integrate(humanoid, q_a, randomVector(humanoid.nv, 9, 0.3), 1.0)};
  Eigen::VectorXd q_scaled = q_a;
  q_scaled.segment<4>(humanoid.joints[1].idx_q) *= 1.0 + 1e-5;
  write(times, {q_scaled, waypoints[1], waypoints[2]});
  const Scenario scenario = makeScenario(humanoid, humanoid_options);
  EXPECT_TRUE(matricesNear(scenario.q0, q_a, 1e-12));
  EXPECT_LT(scenario.v0.norm(), 1e-12);  // at rest at the first waypoint before its time
  Eigen::VectorXd q_d;
  for (size_t k = 0; k < times.size(); ++k) {
    scenario.desired(times[k] - (k + 1 == times.size() ? 1e-12 : 0.0), q_d);
    EXPECT_LT(difference(humanoid, waypoints[k], q_d).norm(), 1e-9) << k;
  }
  scenario.desired(10.0, q_d);
  EXPECT_TRUE(matricesNear(q_d, waypoints[2], 1e-15));
  // Tracked to round-off on the pendulum; one row holds its pose.
  const Model pendulum = demo::makePendulum(demo::PendulumParameters{});
  options.controller = JointControlMode::ComputedTorqueStepEnd;
  ComparisonOptions comparison_options;
  comparison_options.engines = {EngineKind::SemiImplicitEuler};
  write({0.0, 0.2, 0.5}, {Eigen::VectorXd::Constant(1, 0.3), Eigen::VectorXd::Constant(1, -0.4),
                          Eigen::VectorXd::Constant(1, 0.1)});
  const Comparison comparison = runComparison(makeScenario(pendulum, options), comparison_options);
  ASSERT_TRUE(comparison.runs[0].failure.empty()) << comparison.runs[0].failure;
  EXPECT_LT(comparison.runs[0].summary.tracking_rms, 1e-12);
  write({0.2}, {Eigen::VectorXd::Constant(1, 0.7)});
  const Scenario hold = makeScenario(pendulum, options);
  for (double t : {0.0, 0.2, 3.0}) {
    hold.desired(t, q_d);
    EXPECT_EQ(q_d(0), 0.7) << t;
  }
  // Refusals name the file and line (and the joint of a bad quaternion).
  std::ofstream(path) << "t,q\n0,0.1\n0.1,0.2,0.3\n";
  expectThrowNaming([&] { makeScenario(pendulum, options); }, path + ":3: 3 values");
  Eigen::VectorXd bad = q_a;
  bad.segment<4>(humanoid.joints[3].idx_q) *= 1.5;
  write({0.0, 0.1}, {q_a, bad});
  expectThrowNaming([&] { makeScenario(humanoid, humanoid_options); },
                    path + ":4: " + "joint '" + humanoid.joints[3].name + "'");
  // A ball turned 0.95 pi from the first waypoint (the spline interpolates about it), and
  // waypoints 0.5 us apart.
  Eigen::VectorXd turned = q_a;
  const Eigen::Vector3d axis = Eigen::Vector3d(1.0, 2.0, -2.0) / 3.0;
  turned.segment<4>(humanoid.joints[3].idx_q) =
      (quaternionFromCoeffs(q_a.data() + humanoid.joints[3].idx_q) *
       Eigen::Quaterniond(Eigen::AngleAxisd(0.95 * M_PI, axis)))
          .coeffs();
  write({0.0, 0.1}, {q_a, turned});
  expectThrowNaming([&] { makeScenario(humanoid, humanoid_options); },
                    path + ":4: joint '" + humanoid.joints[3].name + "' is turned 2.98");
  write({0.0, 5e-7}, {q_a, q_a});
  expectThrowNaming([&] { makeScenario(humanoid, humanoid_options); }, path + ":4: waypoints");
  options.kind = ScenarioKind::Passive;
  expectThrowNaming([&] { makeScenario(pendulum, options); }, "tracking scenario");
  std::filesystem::remove(path);
}

/// A fresh folder under the temporary directory (removed first).
std::filesystem::path freshFolder(const std::string& name) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(folder);
  return folder;
}

void touch(const std::filesystem::path& path) { std::ofstream(path) << "x\n"; }

// A second run into the same folder leaves only its own files and the user's: the files the
// first run listed and the second did not write are gone.
// A free body turning at 1 rad/s about z for 8 s goes through pi twice: the plotted rotation
// keeps growing (8 rad at the end, steps of 0.1 rad) instead of jumping back by 2 pi, and the
// translation coordinates are the plain difference.
TEST(CompareOutput, JointPlotsCarryRotationsThroughPi) {
  ModelBuilder builder("spinner");
  builder.addLink("body", 1.0, Vector3::Zero(), Matrix3::Identity());
  ModelOptions options;
  options.floating_base = true;
  const Model model = builder.build(options);
  const Eigen::VectorXd q0 = neutralConfiguration(model);
  std::vector<Sample> samples;
  for (int i = 0; i <= 80; ++i) {
    Eigen::VectorXd v = Eigen::VectorXd::Zero(6);
    v << 0.0, 0.0, 1.0, 0.2, 0.0, 0.0;
    Sample s;
    s.t = 0.1 * i;
    s.q = integrate(model, q0, v, s.t);
    samples.push_back(s);
  }
  const std::vector<double> angle = jointCoordinateSeries(model, q0, samples, 2);
  ASSERT_EQ(angle.size(), samples.size());
  for (std::size_t i = 1; i < angle.size(); ++i) EXPECT_NEAR(angle[i] - angle[i - 1], 0.1, 1e-9);
  EXPECT_NEAR(angle.back(), 8.0, 1e-9);
  const std::vector<double> wrapped_x = jointCoordinateSeries(model, q0, samples, 0);
  for (double x : wrapped_x) EXPECT_NEAR(x, 0.0, 1e-12);
  // unwrapRotations alone: pi - 0.1 then the same axis past pi (read as -(pi - 0.1) about it).
  const std::vector<Vector3> unwrapped = unwrapRotations(
      {Vector3(0, 0, M_PI - 0.1), Vector3(0, 0, -(M_PI - 0.1)), Vector3(0, 0, -(M_PI - 0.3))});
  EXPECT_NEAR(unwrapped[1].z(), M_PI + 0.1, 1e-12);
  EXPECT_NEAR(unwrapped[2].z(), M_PI + 0.3, 1e-12);
}

TEST(CompareOutputFolder, KeepsOnlyThisRunsFilesAndTheUsers) {
  const std::filesystem::path dir = freshFolder("gcbridge_output_folder_test");
  {
    OutputFolder first(dir.string());
    touch(dir / "summary.csv");
    touch(dir / "euler_240hz.csv");
    first.commit({(dir / "summary.csv").string(), (dir / "euler_240hz.csv").string()});
  }
  touch(dir / "notes.txt");  // the user's
  {
    OutputFolder second(dir.string());
    touch(dir / "summary.csv");
    touch(dir / "rk4_240hz.csv");
    second.commit({(dir / "summary.csv").string(), (dir / "rk4_240hz.csv").string()});
  }
  EXPECT_TRUE(std::filesystem::exists(dir / "summary.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir / "rk4_240hz.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir / "notes.txt"));
  EXPECT_FALSE(std::filesystem::exists(dir / "euler_240hz.csv"));
  std::filesystem::remove_all(dir);
}

// A folder that is a file or cannot be made is refused before anything runs; a folder made for
// a run that then wrote nothing is removed again.
TEST(CompareOutputFolder, BadFoldersAreRefusedAndAnUnusedOneRemoved) {
  const std::filesystem::path dir = freshFolder("gcbridge_output_folder_bad");
  std::filesystem::create_directories(dir);
  touch(dir / "file");
  EXPECT_THROW(OutputFolder((dir / "file").string()), std::runtime_error);
  EXPECT_THROW(OutputFolder((dir / "file" / "below").string()), std::runtime_error);
  { OutputFolder unused((dir / "made").string()); }
  EXPECT_FALSE(std::filesystem::exists(dir / "made"));
  std::filesystem::remove_all(dir);
}

/// A 10 kg box (with a box collision shape, or none) with a light arm on a hinge (none).
Model boxWithArm(const ScenarioOptions& options, bool collision = true) {
  std::string urdf = R"(<robot name="box_arm">
  <link name="box">
    <inertial><mass value="10"/>
      <inertia ixx="0.17" iyy="0.17" izz="0.27" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><box size="0.4 0.4 0.2"/></geometry></collision>
  </link>
  <link name="arm">
    <inertial><origin xyz="0 0 0.15"/><mass value="0.2"/>
      <inertia ixx="0.002" iyy="0.002" izz="0.0002" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="box"/><child link="arm"/><origin xyz="0 0 0.1"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="100" velocity="10"/>
  </joint>
</robot>)";
  if (!collision) {
    const size_t begin = urdf.find("<collision>"), end = urdf.find("</collision>");
    urdf.erase(begin, end + std::string("</collision>").size() - begin);
  }
  return scenarioModel(parseUrdfString(urdf), options);
}

// On the ground the free root is unactuated and the plane lies 1 cm below the box: the model's
// centre of mass falls as Bullet's semi-implicit Euler drops a body, g h^2 n (n + 1) / 2 after n
// steps, until the box lands 1 cm down and rests there, while the arm tracks its sinusoid through
// the joint motors. The tracking reference is the reference, errors are the joint's alone, and
// the torque limits are --max-torque on the joint and 0 on the root.
TEST(CompareGround, TheBoxDropsOntoThePlaneUnactuated) {
  ScenarioOptions options;
  options.kind = ScenarioKind::Tracking;
  options.duration = 1.0;
  options.model_options.floating_base = true;
  options.controller = JointControlMode::ComputedTorqueStepEnd;
  options.actuation = Actuation::JointMotors;
  options.ground = true;
  options.max_torque = 50.0;
  const Scenario scenario = makeScenario(boxWithArm(options), options);
  const Model& model = *scenario.model;
  ASSERT_TRUE(scenario.ground);
  EXPECT_EQ(scenario.measured_dofs, std::vector<int>{6});
  EXPECT_TRUE(scenario.torque_limits == (Eigen::VectorXd(7) << 0, 0, 0, 0, 0, 0, 50).finished());
  ComparisonOptions comparison_options;
  comparison_options.engines = {EngineKind::RigidBody};
  comparison_options.rates_hz = {240};
  const Comparison comparison = runComparison(scenario, comparison_options);
  EXPECT_EQ(comparison.reference.rate_hz, 0);
  const EngineRun& run = comparison.runs.at(0);
  ASSERT_TRUE(run.failure.empty()) << run.failure;
  Data data(model);
  const auto comHeight = [&](const Eigen::VectorXd& q) {
    forwardKinematics(model, data, q);
    return centerOfMass(model, data).z();
  };
  const double h = 1.0 / 240.0, g = 9.81, z0 = comHeight(run.samples[0].q);
  // The arm starts moving (on its sinusoid), so the centre of mass does too.
  const double vz0 = centerOfMassVelocity(model, data, scenario.q0, scenario.v0).z();
  // Before touching (the box would land after about sqrt(2 * 0.01 / g) = 45 ms). Bullet's bodies
  // in double precision; 1e-6 m leaves room for the joint's drift (a free root pushed by its
  // torque would be off by g h^2 n (n + 1) / 2 itself, 1.6 to 6e-3 m).
  for (int n : {4, 8}) {
    EXPECT_NEAR(comHeight(run.samples[n].q), z0 + n * h * vz0 - g * h * h * n * (n + 1) / 2.0,
                1e-6);
  }
  // At rest on the plane at the end: the box 1 cm down, within Bullet's contact slop.
  const Sample& last = run.samples.back();
  EXPECT_NEAR(last.q(2) - run.samples[0].q(2), -0.01, 2e-3);
  EXPECT_LT(last.v.head<6>().cwiseAbs().maxCoeff(), 0.05);
  // The arm through its motor, aimed one step ahead, tracks through the landing.
  EXPECT_LT(run.summary.tracking_rms, 1e-3);
  // No energy error: the reference hangs in the air.
  EXPECT_TRUE(std::isnan(run.summary.energy_drift));
}

// --max-torque bites on every engine the same way: the pendulum held 0.6 rad out (2.8 N m of
// gravity) with at most 1 N m, by computed torque and by Bullet's motors. gcbridge's
// semi-implicit Euler (the controller's torque clamped) and btMultiBody (the plugin's torque
// limits; its motor's impulse bounded by 1 N m x h) take the same steps, and Bullet's rigid
// bodies under the plugin's limits the same to 1e-4 rad, far from where the unbounded controller
// holds it. (Not the rigid bodies' motor: the pendulum's hinge holds one body, and Bullet then
// exceeds its motor's max impulse, docs/bullet-notes.md.)
TEST(CompareTracking, TorqueLimitsActOnEveryEngine) {
  ScenarioOptions options;
  options.kind = ScenarioKind::Tracking;
  options.duration = 0.5;
  options.max_torque = 1.0;
  const Model model = demo::makePendulum(demo::PendulumParameters{});
  std::vector<Scenario> scenarios;
  for (bool motors : {false, true}) {
    options.bullet_motors = motors;
    scenarios.push_back(makeScenario(model, options));
  }
  ComparisonOptions comparison_options;
  comparison_options.engines = {EngineKind::SemiImplicitEuler, EngineKind::MultiBody,
                                EngineKind::RigidBody};
  const Comparison limited = runComparison(scenarios, comparison_options);
  ASSERT_EQ(limited.runs.size(), 6u);
  for (int c = 0; c < 2; ++c) {
    SCOPED_TRACE(scenarios[c].controller);
    const EngineRun& euler = limited.runs[3 * c];
    for (int e = 1; e < (scenarios[c].bullet_motors ? 2 : 3); ++e) {
      const EngineRun& other = limited.runs[3 * c + e];
      ASSERT_TRUE(other.failure.empty()) << other.failure;
      const double tolerance = other.engine == EngineKind::MultiBody ? 1e-9 : 1e-4;
      for (size_t i = 0; i < euler.samples.size(); ++i) {
        ASSERT_NEAR(other.samples[i].q(0), euler.samples[i].q(0), tolerance)
            << toString(other.engine) << " at t = " << euler.samples[i].t;
      }
    }
    EXPECT_GT(euler.summary.tracking_rms, 0.05);
  }
  options.bullet_motors = false;
  options.max_torque = std::numeric_limits<double>::infinity();
  const Comparison unbounded =
      runComparison(std::vector<Scenario>{makeScenario(model, options)}, comparison_options);
  EXPECT_LT(unbounded.runs[0].summary.tracking_rms, 0.01);
}

// --ground refuses a fixed base, another scenario, a model that nothing of would touch the plane,
// and an engine without contacts.
TEST(CompareGround, RefusesWhatCannotStand) {
  ScenarioOptions options;
  options.kind = ScenarioKind::Tracking;
  options.ground = true;
  const auto refusal = [](const std::function<void()>& make) {
    try {
      make();
    } catch (const InvalidArgumentError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(refusal([&] { makeScenario(boxWithArm(options), options); }).find("fixed base"),
            std::string::npos);
  options.model_options.floating_base = true;
  ScenarioOptions passive = options;
  passive.kind = ScenarioKind::Passive;
  EXPECT_NE(refusal([&] { makeScenario(boxWithArm(passive), passive); }).find("tracking"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              makeScenario(boxWithArm(options, false), options);
            }).find("no collision geometry"),
            std::string::npos);
  const Scenario scenario = makeScenario(boxWithArm(options), options);
  ComparisonOptions comparison_options;
  comparison_options.engines = {EngineKind::RigidBody, EngineKind::SemiImplicitEuler};
  EXPECT_NE(refusal([&] { runComparison(scenario, comparison_options); }).find("'euler'"),
            std::string::npos);
  ScenarioOptions no_limit = options;
  no_limit.max_torque = 0.0;
  EXPECT_NE(refusal([&] { makeScenario(boxWithArm(no_limit), no_limit); }).find("torque limit"),
            std::string::npos);
}

}  // namespace
}  // namespace gcbridge::compare
