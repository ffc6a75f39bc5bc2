// Trajectories and manifold helpers of gcbridge::controllers: derivatives against finite
// differences of q(t) on the manifold (dynamics' difference), boundary conditions, interpolation,
// convergence of numerically differentiated references, bad input.

#include "gcbridge/controllers/trajectory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "held_trajectory.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

Model iiwa() { return loadUrdf(test::modelPath("kuka_iiwa/model.urdf")); }
Model humanoid(bool floating, BallParametrization ball = BallParametrization::Quaternion) {
  ModelOptions o;
  o.floating_base = floating;
  o.ball = ball;
  return loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), o);
}

// The models the derivative checks run on: revolute only; ball (quaternion), revolute and a free
// root; ball as exponential map; a random floating tree with prismatic joints too.
std::vector<Model> testModels() {
  std::vector<Model> models;
  models.push_back(iiwa());
  models.push_back(humanoid(true));
  models.push_back(humanoid(false, BallParametrization::ExpMap));
  models.push_back(test::randomTreeModel(7, 8, BallParametrization::Quaternion, true));
  return models;
}

// Checks a trajectory's v and a against 5-point finite differences at t (test_helpers: with
// h = 1e-3 truncation and rounding are near 1e-12 for these smooth curves of rates below 10, so
// 1e-8 has margin): v = d/ds (q(t) (-) ... ) i.e. d/ds difference(q(t), q(t + s)) at s = 0 (the
// tangent curve at q(t), whose derivative is the velocity in gcbridge's convention for every
// joint type), and a = d/ds v(t + s).
::testing::AssertionResult derivativesMatch(const Trajectory& traj, double t) {
  const Model& model = traj.model();
  JointReference ref(model), other(model);
  traj.evaluate(t, ref);
  const Eigen::VectorXd q_t = ref.q;
  const Eigen::VectorXd v_fd = test::fdDerivative([&](double s) {
    traj.evaluate(t + s, other);
    return difference(model, q_t, other.q);
  });
  const Eigen::VectorXd a_fd = test::fdDerivative([&](double s) {
    traj.evaluate(t + s, other);
    return Eigen::VectorXd(other.v);
  });
  ::testing::AssertionResult rv = matricesNear(ref.v, v_fd, 1e-8);
  if (!rv) return rv << " (velocity of " << model.name << " at t = " << t << ")";
  ::testing::AssertionResult ra = matricesNear(ref.a, a_fd, 1e-8);
  if (!ra) return ra << " (acceleration of " << model.name << " at t = " << t << ")";
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------------
// Manifold helpers

TEST(Manifold, ConfigurationDifferenceEqualsDynamicsDifference) {
  // The non-allocating copy must agree with dynamics' difference (same formulas: to rounding).
  for (const Model& model : testModels()) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      const Eigen::VectorXd q0 = randomConfiguration(model, seed);
      const Eigen::VectorXd q1 = randomConfiguration(model, seed + 100);
      Eigen::VectorXd e(model.nv);
      difference(model, q0, q1, e);
      EXPECT_TRUE(matricesNear(e, difference(model, q0, q1), 1e-15)) << model.name;
    }
  }
}

TEST(Manifold, RightJacobianMatchesFiniteDifferencesOnBothSidesOfTheSeriesSwitch) {
  // omega = J_r(r) rdot is the body angular velocity of exp([r(t)]): compare with
  // d/ds log(exp(r)^T exp(r + s rdot)) at 0, and dJ_r/dt with finite differences of J_r, at
  // angles below, at and above the switch from series to closed form (|r| = 1), and near 0 and pi.
  const Vector3 axis = Vector3(0.3, -0.5, 0.8).normalized();
  const Vector3 rdot(0.7, 0.2, -0.4);
  for (double angle : {1e-9, 1e-3, 0.3, 1.0 - 1e-12, 1.0, 1.0 + 1e-12, 2.0, 3.0}) {
    const Vector3 r = angle * axis + 0.01 * Vector3(0.1, 0.2, 0.3) * (angle > 1e-6);
    const Matrix3 R = expMapRotation(r);
    const Eigen::VectorXd omega_fd = test::fdDerivative([&](double s) {
      return Eigen::VectorXd(rotationToExpMap(R.transpose() * expMapRotation(r + s * rdot)));
    });
    EXPECT_TRUE(matricesNear(so3RightJacobian(r) * rdot, omega_fd, 1e-9)) << "angle " << angle;
    const Eigen::VectorXd dJ_fd = test::fdDerivative([&](double s) {
      const Matrix3 J = so3RightJacobian(r + s * rdot);
      return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(J.data(), 9));
    });
    const Matrix3 dJ = so3RightJacobianDerivative(r, rdot);
    EXPECT_TRUE(matricesNear(Eigen::Map<const Eigen::VectorXd>(dJ.data(), 9), dJ_fd, 1e-9))
        << "angle " << angle;
  }
  // Continuity across the switch: the two formulas agree to rounding at |r| = 1.
  const Matrix3 below = so3RightJacobianDerivative((1.0 - 1e-13) * axis, rdot);
  const Matrix3 above = so3RightJacobianDerivative((1.0 + 1e-13) * axis, rdot);
  EXPECT_TRUE(matricesNear(below, above, 1e-13));
}

// ---------------------------------------------------------------------------------------------
// Sinusoid

std::shared_ptr<Sinusoid> randomSinusoid(const Model& model, std::uint64_t seed) {
  // Amplitudes up to 1.2 per component, so ball-joint rotation vectors reach about 2 rad (both
  // branches of the right Jacobian); frequencies 0.5 to 3 rad/s.
  const Eigen::VectorXd amplitude = randomVector(model.nv, seed, 1.2);
  const Eigen::VectorXd frequency = randomVector(model.nv, seed + 1, 1.25).array().abs() + 0.5;
  const Eigen::VectorXd phase = randomVector(model.nv, seed + 2, 3.0);
  return std::make_shared<Sinusoid>(model, randomConfiguration(model, seed + 3), amplitude,
                                    frequency, phase);
}

TEST(Sinusoid, DerivativesMatchFiniteDifferencesOnTheManifold) {
  for (const Model& model : testModels()) {
    const auto traj = randomSinusoid(model, 11);
    for (double t : {0.0, 0.37, 1.9, 4.2}) EXPECT_TRUE(derivativesMatch(*traj, t));
  }
}

TEST(Sinusoid, RevoluteDofsAreTheClosedForm) {
  // For revolute joints q_i = q0_i + A sin(w t + phi) exactly.
  const Model model = iiwa();
  const Eigen::VectorXd q0 = randomConfiguration(model, 3);
  const Eigen::VectorXd A = Eigen::VectorXd::Constant(model.nv, 0.4);
  const Eigen::VectorXd w = Eigen::VectorXd::LinSpaced(model.nv, 1.0, 2.0);
  const Eigen::VectorXd phi = Eigen::VectorXd::LinSpaced(model.nv, 0.0, 1.0);
  const Sinusoid traj(model, q0, A, w, phi);
  JointReference ref(model);
  const double t = 0.8;
  traj.evaluate(t, ref);
  const Eigen::ArrayXd arg = w.array() * t + phi.array();
  EXPECT_TRUE(matricesNear(ref.q, (q0.array() + A.array() * arg.sin()).matrix(), 1e-15));
  EXPECT_TRUE(matricesNear(ref.v, (A.array() * w.array() * arg.cos()).matrix(), 1e-15));
  EXPECT_TRUE(matricesNear(ref.a, (-A.array() * w.array().square() * arg.sin()).matrix(), 1e-15));
}

// ---------------------------------------------------------------------------------------------
// Quintic point to point

TEST(QuinticPointToPoint, BoundaryConditionsAndDerivatives) {
  for (const Model& model : testModels()) {
    const Eigen::VectorXd q0 = randomConfiguration(model, 21), q1 = randomConfiguration(model, 22);
    const double t0 = 0.5, T = 2.0;
    const QuinticPointToPoint traj(model, q0, q1, T, t0);
    JointReference ref(model), ref2(model);
    // Positions at the ends (just inside: the polynomial itself, not the hold branch); the
    // remaining error is s(tau) - 1 ~ 10 (1e-9/T)^3, far below rounding.
    traj.evaluate(t0 + 1e-9, ref);
    EXPECT_LT(difference(model, q0, ref.q).norm(), 1e-12) << model.name;
    traj.evaluate(t0 + T - 1e-9, ref);
    EXPECT_LT(difference(model, q1, ref.q).norm(), 1e-12) << model.name;
    // Zero v and a at the ends: near an end |v| grows like eps^2 and |a| like eps (s' and s''
    // vanish there to first and zeroth order less); a non-zero boundary value breaks the ratios.
    // Measured ratios at eps = 1e-4 T, 2e-4 T: 0.2501 and 0.5001.
    const double eps = 1e-4 * T;
    for (double end : {t0, t0 + T}) {
      const double sign = end == t0 ? 1.0 : -1.0;
      traj.evaluate(end + sign * eps, ref);
      traj.evaluate(end + sign * 2 * eps, ref2);
      EXPECT_NEAR(ref.v.norm() / ref2.v.norm(), 0.25, 1e-3) << model.name;
      EXPECT_NEAR(ref.a.norm() / ref2.a.norm(), 0.5, 1e-3) << model.name;
    }
    // Outside the move: at rest at the ends.
    traj.evaluate(t0 - 1.0, ref);
    EXPECT_EQ(ref.q, q0);
    EXPECT_EQ(ref.v.norm() + ref.a.norm(), 0.0);
    traj.evaluate(t0 + T + 1.0, ref);
    EXPECT_EQ(ref.q, q1);
    // Midway: q0 (+) d/2 (s(1/2) = 1/2), and the derivatives of the manifold curve.
    traj.evaluate(t0 + 0.5 * T, ref);
    EXPECT_TRUE(matricesNear(difference(model, q0, ref.q), 0.5 * difference(model, q0, q1), 1e-12))
        << model.name;
    for (double t : {t0 + 0.1, t0 + 0.77, t0 + 1.6}) EXPECT_TRUE(derivativesMatch(traj, t));
  }
}

// ---------------------------------------------------------------------------------------------
// Cubic spline

TEST(CubicSpline, PassesThroughWaypointsWithContinuousVelocityAndAcceleration) {
  for (const Model& model : testModels()) {
    // Waypoints within 1 rad of the first one on every ball joint (log single-valued).
    const Eigen::VectorXd q_first = randomConfiguration(model, 31);
    const std::vector<double> times = {0.0, 0.4, 1.1, 1.5, 2.3};
    std::vector<Eigen::VectorXd> waypoints = {q_first};
    for (std::size_t k = 1; k < times.size(); ++k) {
      waypoints.push_back(integrate(model, q_first, randomVector(model.nv, 40 + k, 0.55), 1.0));
    }
    for (SplineBoundary boundary : {SplineBoundary::Natural, SplineBoundary::Clamped}) {
      const CubicSpline spline(model, times, waypoints, boundary);
      JointReference ref(model), minus(model), plus(model);
      // Through every waypoint, the ends included, at the spline's own velocity there (the
      // ends' from just inside, within |a| 1e-9); outside, at rest.
      for (std::size_t k = 0; k < times.size(); ++k) {
        spline.evaluate(times[k], ref);
        EXPECT_LT(difference(model, waypoints[k], ref.q).norm(), 1e-12) << model.name << " " << k;
        if (k == 0 || k + 1 == times.size()) {
          spline.evaluate(times[k] + (k == 0 ? 1e-9 : -1e-9), plus);
          EXPECT_TRUE(matricesNear(ref.v, plus.v, 1e-6)) << model.name << " end " << k;
        }
      }
      spline.evaluate(times.back() + 1e-9, ref);
      EXPECT_TRUE(ref.v.isZero(0.0) && ref.a.isZero(0.0));
      // C2 at interior knots: v and a from both sides 1e-9 s apart differ by at most
      // |a| 2e-9 and |jerk| 2e-9 (jerk is below 1e3 here); a slope or curvature jump would be O(1).
      for (std::size_t k = 1; k + 1 < times.size(); ++k) {
        spline.evaluate(times[k] - 1e-9, minus);
        spline.evaluate(times[k] + 1e-9, plus);
        EXPECT_TRUE(matricesNear(minus.v, plus.v, 1e-6)) << model.name << " knot " << k;
        EXPECT_TRUE(matricesNear(minus.a, plus.a, 1e-6)) << model.name << " knot " << k;
      }
      // End conditions: natural, zero second derivative of delta, which is the acceleration when
      // v is a coordinate rate (nq == nv; for quaternion joints a adds dJ_r/dt delta_dot);
      // clamped, zero velocity.
      for (double t : {1e-12, times.back() - 1e-12}) {
        spline.evaluate(t, ref);
        if (boundary == SplineBoundary::Natural) {
          if (model.nq == model.nv) {
            EXPECT_LT(ref.a.norm(), 1e-8) << model.name;
          }
          EXPECT_GT(ref.v.norm(), 1e-2) << model.name;  // the end velocity is free
        } else {
          EXPECT_LT(ref.v.norm(), 1e-8) << model.name;
        }
      }
      for (double t : {0.2, 0.9, 1.3, 2.0}) EXPECT_TRUE(derivativesMatch(spline, t));
    }
  }
}

TEST(CubicSpline, NaturalSplineReproducesAStraightLine) {
  // Waypoints on a line q = q0 + c t: the natural spline is that line, v = c, a = 0.
  const Model model = iiwa();
  const Eigen::VectorXd q0 = randomConfiguration(model, 51), c = randomVector(model.nv, 52, 0.3);
  const std::vector<double> times = {0.0, 0.3, 1.0, 1.2};
  std::vector<Eigen::VectorXd> waypoints;
  for (double t : times) waypoints.push_back(q0 + c * t);
  const CubicSpline spline(model, times, waypoints);
  JointReference ref(model);
  for (double t : {0.1, 0.5, 1.1}) {
    spline.evaluate(t, ref);
    EXPECT_TRUE(matricesNear(ref.q, q0 + c * t, 1e-14));
    EXPECT_TRUE(matricesNear(ref.v, c, 1e-13));
    EXPECT_LT(ref.a.norm(), 1e-12);
  }
}

TEST(CubicSpline, ThousandsOfWaypointsInterpolateASineToItsFourthOrder) {
  // 5001 waypoints 1 ms apart of q0 + 0.5 sin(2 pi t) on every joint of the iiwa, t in [0, 5].
  // sin'' is 0 at both ends, so the natural spline has the sine's own end conditions, and its
  // errors in q, v and a shrink as h^4, h^3 and h^2: about 1e-12, 1e-9 and 1e-6 here. The
  // tolerances are ten times that (relative to max(1, |value|)).
  const Model model = iiwa();
  const Eigen::VectorXd q0 = randomConfiguration(model, 53);
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(model.nv);
  const double w = 2.0 * M_PI, h = 1e-3;
  std::vector<double> times;
  std::vector<Eigen::VectorXd> waypoints;
  for (int k = 0; k <= 5000; ++k) {
    times.push_back(k * h);
    waypoints.push_back(q0 + 0.5 * std::sin(w * k * h) * ones);
  }
  const CubicSpline spline(model, times, waypoints);
  JointReference ref(model);
  for (double t : {0.0123, 1.7777, 3.14159, 4.9991}) {
    spline.evaluate(t, ref);
    EXPECT_TRUE(matricesNear(ref.q, q0 + 0.5 * std::sin(w * t) * ones, 1e-11)) << t;
    EXPECT_TRUE(matricesNear(ref.v, 0.5 * w * std::cos(w * t) * ones, 1e-8)) << t;
    EXPECT_TRUE(matricesNear(ref.a, -0.5 * w * w * std::sin(w * t) * ones, 1e-5)) << t;
  }
}

// ---------------------------------------------------------------------------------------------
// Sampled trajectory

TEST(SampledTrajectory, FiniteDifferencesConvergeAtTheirOrder) {
  // Sample a sinusoid at spacing dt and compare the numerically differentiated v and a at
  // t* = 1 s with the exact ones. Backward (Lin) errors scale like dt (ratio 2 when dt
  // halves), central like dt^2 (ratio 4). On the iiwa and on the floating humanoid (ball + free).
  for (const Model& model : {iiwa(), humanoid(true)}) {
    const auto exact = randomSinusoid(model, 61);
    JointReference ref_exact(model), ref(model);
    exact->evaluate(1.0, ref_exact);
    for (FiniteDifference scheme : {FiniteDifference::Backward, FiniteDifference::Central}) {
      double previous_v = 0.0, previous_a = 0.0;
      for (double dt : {0.01, 0.005, 0.0025}) {
        std::vector<Eigen::VectorXd> samples;
        const int n = static_cast<int>(std::lround(2.0 / dt)) + 1;
        for (int k = 0; k < n; ++k) {
          exact->evaluate(k * dt, ref);
          samples.push_back(ref.q);
        }
        const SampledTrajectory sampled(model, samples, dt, 0.0, scheme);
        sampled.evaluate(1.0, ref);
        EXPECT_LT(difference(model, ref_exact.q, ref.q).norm(), 1e-12);  // a sample time
        const double err_v = (ref.v - ref_exact.v).norm(), err_a = (ref.a - ref_exact.a).norm();
        if (previous_v > 0.0) {
          const double order = scheme == FiniteDifference::Backward ? 2.0 : 4.0;
          EXPECT_NEAR(previous_v / err_v, order, 0.1 * order) << model.name << " dt " << dt;
          EXPECT_NEAR(previous_a / err_a, order, 0.1 * order) << model.name << " dt " << dt;
        }
        previous_v = err_v;
        previous_a = err_a;
      }
    }
  }
}

TEST(SampledTrajectory, InterpolatesOnTheManifoldBetweenSamples) {
  // Halfway between two samples of a ball joint, q is the geodesic midpoint, not the normalized
  // component average (they differ at second order in the step, visible for large steps).
  const Model model = humanoid(true);
  const Eigen::VectorXd q0 = randomConfiguration(model, 71);
  const Eigen::VectorXd d = randomVector(model.nv, 72, 1.0);
  const std::vector<Eigen::VectorXd> samples = {q0, integrate(model, q0, d, 1.0),
                                                integrate(model, q0, 2.0 * d, 1.0)};
  const SampledTrajectory sampled(model, samples, 0.1);
  JointReference ref(model);
  sampled.evaluate(0.05, ref);
  EXPECT_TRUE(matricesNear(ref.q, integrate(model, q0, 0.5 * d, 1.0), 1e-12));
  // The sample velocity: (q_1 (-) q_0)/dt = d/dt.
  EXPECT_TRUE(matricesNear(sampled.sampleVelocity(1), d / 0.1, 1e-12));
}

// ---------------------------------------------------------------------------------------------
// First-order hold

// Fixed-base models, whose joints' (+) is a one-parameter group (revolute; ball as quaternion and
// as exponential map): q0 (+) s d is then a line for the hold to follow exactly.
std::vector<Model> fixedBaseModels() {
  std::vector<Model> models;
  models.push_back(iiwa());
  models.push_back(humanoid(false));
  models.push_back(humanoid(false, BallParametrization::ExpMap));
  return models;
}

TEST(FirstOrderHold, FollowsAHeldLineExactly) {
  const double period = 0.01;
  for (const Model& model : fixedBaseModels()) {
    const Eigen::VectorXd q0 = randomConfiguration(model, 81);
    const Eigen::VectorXd d = randomVector(model.nv, 82, 0.02);
    // The line q0 (+) (t / period) d, sampled at the ticks and interpolated on the manifold.
    std::vector<Eigen::VectorXd> samples;
    for (int k = 0; k <= 100; ++k) samples.push_back(integrate(model, q0, d, k));
    auto line = std::make_shared<SampledTrajectory>(model, samples, period);
    const FirstOrderHold hold(std::make_shared<test::HeldTrajectory>(line, period), period);
    JointReference ref(model), expected(model);
    for (double t : {0.0137, 0.2, 0.4561, 0.7999}) {
      hold.evaluate(t, ref);
      line->evaluate(t, expected);
      EXPECT_TRUE(matricesNear(ref.q, expected.q, 1e-12)) << model.name << " t = " << t;
      EXPECT_TRUE(matricesNear(ref.v, d / period, 1e-10)) << model.name << " t = " << t;
      EXPECT_TRUE(ref.a.isZero(0.0)) << model.name;
    }
  }
}

TEST(FirstOrderHold, FollowsAHeldMotionToItsSecondOrder) {
  // A sinusoid of amplitude A and frequency w has |q''| <= c = A w^2: the hold follows it to
  // c period^2, where the held reference itself lags by up to A w period.
  const double A = 0.5, w = M_PI;
  for (double period : {1e-3, 1e-2}) {
    for (const Model& model : fixedBaseModels()) {
      const Eigen::VectorXd q0 = randomConfiguration(model, 83);
      auto smooth = std::make_shared<Sinusoid>(model, q0, Eigen::VectorXd::Constant(model.nv, A),
                                               Eigen::VectorXd::Constant(model.nv, w),
                                               randomVector(model.nv, 84, 1.0));
      auto held = std::make_shared<test::HeldTrajectory>(smooth, period);
      const FirstOrderHold hold(held, period);
      JointReference ref(model), expected(model), step(model);
      double worst_hold = 0.0, worst_held = 0.0;
      for (int k = 0; k < 500; ++k) {
        const double t = 0.1 + 0.00371 * k;
        hold.evaluate(t, ref);
        held->evaluate(t, step);
        smooth->evaluate(t, expected);
        worst_hold = std::max(worst_hold, difference(model, expected.q, ref.q).lpNorm<Eigen::Infinity>());
        worst_held = std::max(worst_held, difference(model, expected.q, step.q).lpNorm<Eigen::Infinity>());
      }
      EXPECT_LE(worst_hold, A * w * w * period * period) << model.name << " period " << period;
      EXPECT_GT(worst_held, 0.5 * A * w * period) << model.name << " period " << period;
    }
  }
}

TEST(FirstOrderHold, VelocityIsTheDerivativeOfItsLineBetweenTicks) {
  // Mid-way between ticks 0.1 s apart the 5-point stencil (+-2 ms) stays on one line.
  const double period = 0.1;
  for (const Model& model : fixedBaseModels()) {
    auto smooth = std::make_shared<Sinusoid>(
        model, randomConfiguration(model, 85), Eigen::VectorXd::Constant(model.nv, 0.5),
        Eigen::VectorXd::Constant(model.nv, 2.0), randomVector(model.nv, 86, 1.0));
    const FirstOrderHold hold(std::make_shared<test::HeldTrajectory>(smooth, period), period);
    for (double t : {0.35, 1.05, 2.75}) EXPECT_TRUE(derivativesMatch(hold, t));
  }
}

// ---------------------------------------------------------------------------------------------
// Bad input

template <typename F>
void expectThrowNaming(F&& f, const std::string& name) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one naming " << name;
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
}

TEST(TrajectoryBadInput, RejectsWrongSizesAndNaNNamingTheArgument) {
  const Model model = humanoid(true);
  const Eigen::VectorXd q0 = randomConfiguration(model, 1);
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(model.nv);
  Eigen::VectorXd nan_q = q0;
  nan_q[5] = std::nan("");
  expectThrowNaming([&] { Sinusoid(model, q0, Eigen::VectorXd::Ones(3), ones, ones); },
                    "amplitude");
  expectThrowNaming([&] { Sinusoid(model, nan_q, ones, ones, ones); }, "q0");
  Eigen::VectorXd bad_w = ones;
  bad_w[2] = INFINITY;
  expectThrowNaming([&] { Sinusoid(model, q0, ones, bad_w, ones); }, "angular_frequency");
  expectThrowNaming([&] { QuinticPointToPoint(model, q0, nan_q, 1.0); }, "q1");
  expectThrowNaming([&] { QuinticPointToPoint(model, q0, q0, 0.0); }, "duration");
  expectThrowNaming([&] { CubicSpline(model, {0.0, 1.0}, {q0, nan_q}); }, "waypoints[1]");
  expectThrowNaming([&] { CubicSpline(model, {0.0, 0.0}, {q0, q0}); }, "times");
  expectThrowNaming([&] { SampledTrajectory(model, {q0, q0, q0}, -0.1); }, "dt");
  expectThrowNaming(
      [&] {
        SampledTrajectory(model, {q0, q0, Eigen::VectorXd(q0.head(3))}, 0.1);
      },
      "samples[2]");
  auto held = std::make_shared<Sinusoid>(model, q0, ones, ones, ones);
  expectThrowNaming([&] { FirstOrderHold(nullptr, 1e-3); }, "held reference");
  for (double period : {0.0, -1e-3, double(NAN), double(INFINITY)}) {
    expectThrowNaming([&] { FirstOrderHold(held, period); }, "period");
  }
  expectThrowNaming([&] { FirstOrderHold(held, 1e-3, NAN); }, "t0");
  // evaluate: NaN time, wrongly sized reference; the reference is left unchanged.
  const Sinusoid traj(model, q0, ones, ones, ones);
  JointReference ref(model);
  traj.evaluate(0.3, ref);
  const JointReference before = ref;
  expectThrowNaming([&] { traj.evaluate(std::nan(""), ref); }, "time t");
  EXPECT_EQ(ref.q, before.q);
  EXPECT_EQ(ref.v, before.v);
  JointReference small;
  small.q = q0;
  small.v = Eigen::VectorXd::Zero(3);
  small.a = Eigen::VectorXd::Zero(model.nv);
  expectThrowNaming([&] { traj.evaluate(0.1, small); }, "reference");
}

}  // namespace
}  // namespace gcbridge
