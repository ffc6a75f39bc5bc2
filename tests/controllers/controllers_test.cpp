// Controllers of gcbridge::controllers, checked against independent things: the analytic solution
// of the closed-loop error ODE e'' + D e' + K e = 0, ABA (forward dynamics) with the returned
// torques, and gcbridge's own integrators (RK4, semi-implicit Euler). No Bullet.

#include "gcbridge/controllers.hpp"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <cmath>
#include <memory>
#include <vector>

#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/integrators.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/rnea.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

Model iiwa() { return loadUrdf(test::modelPath("kuka_iiwa/model.urdf")); }
Model floatingHumanoid() {
  ModelOptions o;
  o.floating_base = true;
  return loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), o);
}

/// The solution of e'' + D e' + K e = 0 (K > 0, D >= 0) with e(0) = e0, e'(0) = de0: the
/// closed-loop error of a computed-torque controller with a perfect model.
double closedLoopError(double K, double D, double e0, double de0, double t) {
  const double disc = D * D - 4.0 * K;
  if (std::abs(disc) <= 1e-12 * D * D) {
    // Critically damped: (e0 + (de0 + w e0) t) exp(-w t), w = D/2 = sqrt(K).
    const double w = 0.5 * D;
    return (e0 + (de0 + w * e0) * t) * std::exp(-w * t);
  }
  if (disc < 0.0) {
    // Underdamped: exp(-alpha t) (e0 cos(beta t) + (de0 + alpha e0)/beta sin(beta t)).
    const double alpha = 0.5 * D, beta = 0.5 * std::sqrt(-disc);
    return std::exp(-alpha * t) *
           (e0 * std::cos(beta * t) + (de0 + alpha * e0) / beta * std::sin(beta * t));
  }
  // Overdamped: c1 exp(r1 t) + c2 exp(r2 t).
  const double r1 = 0.5 * (-D + std::sqrt(disc)), r2 = 0.5 * (-D - std::sqrt(disc));
  const double c1 = (de0 - r2 * e0) / (r1 - r2);
  return c1 * std::exp(r1 * t) + (e0 - c1) * std::exp(r2 * t);
}

/// Integrates the closed loop with `controller` from t = 0 by `steps` steps of RK4 (or
/// semi-implicit Euler), calling observe(t, q, v) after each step; stops early if it returns false.
template <typename Observe>
void simulate(const Model& model, Controller& controller, Eigen::VectorXd& q, Eigen::VectorXd& v,
              double h, int steps, Observe&& observe, bool rk4 = true) {
  IntegratorWorkspace ws(model);
  const TorqueFunction tau = asTorqueFunction(controller);
  for (int k = 0; k < steps; ++k) {
    if (rk4) {
      rungeKutta4Step(model, ws, k * h, q, v, h, tau);
    } else {
      semiImplicitEulerStep(model, ws, k * h, q, v, h, tau);
    }
    if (!observe((k + 1) * h, q, v)) return;
  }
}

template <typename F>
void expectThrowNaming(F&& f, const std::string& name) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one naming " << name;
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// Computed torque

TEST(ComputedTorque, ErrorFollowsTheClosedLoopOdeOnTheIiwa) {
  // The iiwa tracks a sinusoid from an initial error; with a perfect model each joint's error
  // e = q_ref - q solves e'' + D e' + K e = 0 exactly. RK4 at h = 1e-3 s over 2 s: the measured
  // worst difference to the analytic solution is 1.3e-11 rad (critical), 1.4e-11 (zeta = 0.3),
  // 6.8e-11 (zeta = 2): RK4's error. 1e-9 leaves margin and is 1e-8 of the initial error of
  // about 0.1 rad (the brief asked ~1e-6).
  const Model model = iiwa();
  const Eigen::VectorXd K = (Eigen::VectorXd(7) << 100, 64, 144, 81, 49, 121, 100).finished();
  const auto traj = std::make_shared<Sinusoid>(
      model, randomConfiguration(model, 1) * 0.5, Eigen::VectorXd::Constant(7, 0.4),
      Eigen::VectorXd::LinSpaced(7, 1.0, 2.5), Eigen::VectorXd::LinSpaced(7, 0.0, 2.0));
  const Eigen::VectorXd e0 = randomVector(7, 2, 0.1), de0 = randomVector(7, 3, 0.2);
  // Critical (default D = 2 sqrt(K)), underdamped (zeta = 0.3) and overdamped (zeta = 2).
  for (double zeta : {1.0, 0.3, 2.0}) {
    ComputedTorque controller(
        model, K, zeta == 1.0 ? Eigen::VectorXd() : Eigen::VectorXd(2.0 * zeta * K.array().sqrt()));
    controller.setTrajectory(traj);
    if (zeta == 1.0) {
      EXPECT_TRUE(matricesNear(controller.D(), 2.0 * K.array().sqrt().matrix(), 0));
    }
    JointReference ref(model);
    traj->evaluate(0.0, ref);
    Eigen::VectorXd q = ref.q - e0, v = ref.v - de0;
    double worst = 0.0;
    simulate(model, controller, q, v, 1e-3, 2000,
             [&](double t, const Eigen::VectorXd& qt, const Eigen::VectorXd&) {
               traj->evaluate(t, ref);
               const Eigen::VectorXd e = difference(model, qt, ref.q);
               for (int i = 0; i < 7; ++i) {
                 const double expected = closedLoopError(K[i], controller.D()[i], e0[i], de0[i], t);
                 worst = std::max(worst, std::abs(e[i] - expected));
               }
               return true;
             });
    EXPECT_LT(worst, 1e-9) << "zeta " << zeta;
  }
}

TEST(ComputedTorque, PerfectModelAndZeroInitialErrorTrackExactly) {
  // Starting on the reference, the error stays at the integrator's error: measured 2.6e-12 on
  // the iiwa and 6.0e-12 on the floating humanoid (sinusoids on every ball and free dof, rotation
  // vectors up to about 1.5 rad) with RK4 at h = 1e-3 s over 2 s. A wrong a_ref (e.g. without
  // the dJ_r/dt term of quaternion joints) would leave an error of order |a error|/K ~ 1e-3.
  for (const Model& model : {iiwa(), floatingHumanoid()}) {
    const auto traj = std::make_shared<Sinusoid>(
        model, randomConfiguration(model, 4), randomVector(model.nv, 5, 0.8),
        randomVector(model.nv, 6, 1.0).array().abs() + 1.0, randomVector(model.nv, 7, 3.0));
    ComputedTorque controller(model, Eigen::VectorXd::Constant(model.nv, 100.0));
    controller.setTrajectory(traj);
    JointReference ref(model);
    traj->evaluate(0.0, ref);
    Eigen::VectorXd q = ref.q, v = ref.v;
    double worst = 0.0;
    simulate(model, controller, q, v, 1e-3, 2000,
             [&](double t, const Eigen::VectorXd& qt, const Eigen::VectorXd& vt) {
               traj->evaluate(t, ref);
               worst = std::max(worst, difference(model, qt, ref.q).norm());
               worst = std::max(worst, 1e-3 * (vt - ref.v).norm());
               return true;
             });
    EXPECT_LT(worst, 1e-9) << model.name;
  }
}

TEST(ComputedTorque, DrivesQuaternionErrorsToZeroOnTheManifold) {
  // Floating humanoid, fixed set-point q_ref. Each ball joint and the free root start rotated
  // about one axis u from the reference, R = R_ref exp(-theta u) (theta from 0.3 to 2.8 rad, so
  // large rotations), the root also displaced along u, revolute joints offset, everything at
  // rest. Then every component of e = difference(q, q_ref) (dynamics' quaternion log, not a
  // component-wise difference) solves e'' + D e' + K e = 0 exactly; measured worst difference to
  // the analytic solution 7.7e-11 with RK4 at h = 1e-3 s over 3 s (gains up to 115 1/s^2),
  // asserted 1e-9.
  const Model model = floatingHumanoid();
  const Eigen::VectorXd q_ref = randomConfiguration(model, 8);
  Eigen::VectorXd e0(model.nv);
  const Eigen::VectorXd axes = randomVector(model.nv, 9, 1.0);
  const Eigen::VectorXd angles = randomVector(model.nv, 10, 1.0);
  for (const Joint& j : model.joints) {
    if (j.nv == 0) continue;
    if (j.nv == 1) {
      e0[j.idx_v] = 0.5 * angles[j.idx_v];
      continue;
    }
    // Rotation vector theta u with theta in [0.3, 2.8]; the free root's position error sigma u.
    const Vector3 u = axes.segment<3>(j.idx_v).normalized();
    e0.segment<3>(j.idx_v) = (1.55 + 1.25 * angles[j.idx_v]) * u;
    if (j.type == JointType::Free) e0.segment<3>(j.idx_v + 3) = 0.3 * u;
  }
  // q = q_ref (+) (-e0): for these single-axis errors difference(q, q_ref) = e0 exactly.
  Eigen::VectorXd q = integrate(model, q_ref, -e0, 1.0), v = Eigen::VectorXd::Zero(model.nv);
  ASSERT_TRUE(matricesNear(difference(model, q, q_ref), e0, 1e-12));
  // Gains differ from joint to joint but not within a ball or free joint's rotation (or
  // translation) block, so that each block's error stays on its axis.
  Eigen::VectorXd K(model.nv);
  for (const Joint& j : model.joints) {
    for (int i = 0; i < j.nv; ++i) K[j.idx_v + i] = 25.0 + 2.0 * j.idx_v + (i >= 3 ? 10.0 : 0.0);
  }
  ComputedTorque controller(model, K);
  controller.setSetPoint(q_ref);
  double worst = 0.0;
  simulate(model, controller, q, v, 1e-3, 3000,
           [&](double t, const Eigen::VectorXd& qt, const Eigen::VectorXd&) {
             const Eigen::VectorXd e = difference(model, qt, q_ref);
             for (int i = 0; i < model.nv; ++i) {
               const double expected = closedLoopError(K[i], controller.D()[i], e0[i], 0.0, t);
               worst = std::max(worst, std::abs(e[i] - expected));
             }
             return true;
           });
  EXPECT_LT(worst, 1e-9);
  EXPECT_LT(difference(model, q, q_ref).norm(), 1e-4);  // converged (5 e^-15 ~ 1e-5 left)
}

// Aimed at the end of a step: one semi-implicit Euler step of the model's own dynamics with the
// controller's torques (ABA, independent of the RNEA the controller uses; v+ = v + h qdd,
// q+ = q (+) h v+) lands on the reference at t + h, on the floating humanoid's balls and free
// root too, from a state far off it; to 1e-9 (round-off of M^-1 at 1/h^2 = 1e6).
TEST(ComputedTorque, AimAtStepEndLandsOnTheReferenceAfterOneStep) {
  const Model model = floatingHumanoid();
  const Eigen::VectorXd q0 = randomConfiguration(model, 21);
  auto reference = std::make_shared<Sinusoid>(model, q0, randomVector(model.nv, 22, 0.4),
                                              Eigen::VectorXd::Constant(model.nv, 2.0),
                                              randomVector(model.nv, 23, 1.0));
  ComputedTorque controller(model, Eigen::VectorXd::Constant(model.nv, 100.0));
  controller.setTrajectory(reference);
  EXPECT_THROW(controller.aimAtStepEnd(-1e-3), InvalidArgumentError);
  EXPECT_THROW(controller.aimAtStepEnd(NAN), InvalidArgumentError);
  EXPECT_EQ(controller.stepAim(), 0.0);
  const double h = 1e-3, t = 0.37;
  controller.aimAtStepEnd(h);
  const Eigen::VectorXd q = integrate(model, q0, randomVector(model.nv, 24, 0.2), 1.0);
  const Eigen::VectorXd v = randomVector(model.nv, 25, 1.0);
  const Eigen::VectorXd tau = controller.compute(t, q, v);
  Data data(model);
  const Eigen::VectorXd v_next = v + h * aba(model, data, q, v, tau);
  const Eigen::VectorXd q_next = integrate(model, q, v_next, h);
  JointReference at_end(model);
  reference->evaluate(t + h, at_end);
  EXPECT_LT(difference(model, q_next, at_end.q).norm(), 1e-9);
  // h = 0: the gains again.
  controller.aimAtStepEnd(0.0);
  controller.compute(t, q, v);
  reference->evaluate(t, at_end);
  EXPECT_TRUE(matricesNear(controller.desiredAcceleration(),
                           at_end.a + controller.D().cwiseProduct(at_end.v - v) +
                               controller.K().cwiseProduct(difference(model, q, at_end.q)),
                           1e-12));
}

TEST(ComputedTorque, QuaternionSignDoesNotMatter) {
  // -Q is the same rotation as Q: a reference with every quaternion negated gives zero feedback,
  // tau = M qdd_ref + h = rnea(q, v, 0). A component-wise error q_ref - q would be about 2 per
  // quaternion component and give large torques.
  const Model model = floatingHumanoid();
  const Eigen::VectorXd q = randomConfiguration(model, 11), v = randomVector(model.nv, 12);
  Eigen::VectorXd q_ref = q;
  for (const Joint& j : model.joints) {
    if (j.type == JointType::Free) q_ref.segment<4>(j.idx_q + 3) *= -1.0;
    if (j.type == JointType::Ball) q_ref.segment<4>(j.idx_q) *= -1.0;
  }
  ComputedTorque controller(model, Eigen::VectorXd::Constant(model.nv, 400.0),
                            Eigen::VectorXd::Zero(model.nv));
  controller.setSetPoint(q_ref);
  Data data(model);
  const Eigen::VectorXd& tau = controller.compute(0.0, q, v);
  EXPECT_LT(controller.positionError().norm(), 1e-14);
  EXPECT_TRUE(matricesNear(tau, rnea(model, data, q, v, Eigen::VectorXd::Zero(model.nv)), 1e-12));
}

// The link damping adds sum_k Jv_k^T rho_lin m_k v_k + Jw_k^T rho_ang I_k,W omega_k to tau, with
// each link's COM Jacobians (an independent path: Liu & Jain's COM Jacobians, not RNEA).
TEST(ComputedTorque, LinkDampingAddsTheDampingWrenchesGeneralizedForce) {
  const Model model = floatingHumanoid();
  const int n = model.numLinks();
  const Eigen::VectorXd linear = Eigen::VectorXd::LinSpaced(n, 0.05, 0.4);
  const Eigen::VectorXd angular = Eigen::VectorXd::LinSpaced(n, 1.9, 0.3);
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const Eigen::VectorXd q = randomConfiguration(model, seed), v = randomVector(model.nv, seed);
    ComputedTorque plain(model, Eigen::VectorXd::Constant(model.nv, 400.0));
    ComputedTorque damped(model, Eigen::VectorXd::Constant(model.nv, 400.0));
    damped.setLinkDamping(linear, angular);
    plain.setSetPoint(randomConfiguration(model, seed + 5));
    damped.setSetPoint(randomConfiguration(model, seed + 5));
    const Eigen::VectorXd difference_tau = damped.compute(0.0, q, v) - plain.compute(0.0, q, v);
    Data data(model);
    computeJointJacobians(model, data, q);
    Eigen::VectorXd expected = Eigen::VectorXd::Zero(model.nv);
    Eigen::MatrixXd Jv(3, model.nv), Jw(3, model.nv);
    for (int k = 0; k < n; ++k) {
      linkComJacobian(model, data, k, Jv, Jw);
      const Matrix3& R_WB = data.X_WB[k].rotation();
      const Matrix3 I_W = R_WB * model.inertias[k].inertiaAboutCom() * R_WB.transpose();
      expected += Jv.transpose() * (linear(k) * model.inertias[k].mass() * (Jv * v)) +
                  Jw.transpose() * (angular(k) * (I_W * (Jw * v)));
    }
    EXPECT_TRUE(matricesNear(difference_tau, expected, 1e-11));
    EXPECT_GT(expected.norm(), 1.0);
  }
  // Wrong sizes and negative rates are refused; empty vectors turn the damping off.
  ComputedTorque controller(model, Eigen::VectorXd::Constant(model.nv, 400.0));
  EXPECT_THROW(controller.setLinkDamping(linear.head(n - 1), angular), InvalidArgumentError);
  EXPECT_THROW(controller.setLinkDamping(-linear, angular), InvalidArgumentError);
  controller.setLinkDamping(Eigen::VectorXd(), Eigen::VectorXd());
}

// ---------------------------------------------------------------------------------------------
// Joint PD and gravity compensation

TEST(JointPD, GravityCompensationHoldsAnyConfiguration) {
  // Zero gains + gravity compensation: tau = g(q), so ABA gives zero acceleration at rest
  // (measured 9.5e-14 rad/s^2 at worst; asserted 1e-10) while the torques are large (15 to 585
  // N m).
  for (const Model& model : {iiwa(), floatingHumanoid()}) {
    JointPD controller(model, Eigen::VectorXd::Zero(model.nv), Eigen::VectorXd::Zero(model.nv),
                       true);
    Data data(model);
    const Eigen::VectorXd v = Eigen::VectorXd::Zero(model.nv);
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      const Eigen::VectorXd q = randomConfiguration(model, seed);
      const Eigen::VectorXd& tau = controller.compute(0.0, q, v);
      EXPECT_GT(tau.norm(), 1.0);
      EXPECT_LT(aba(model, data, q, v, tau).cwiseAbs().maxCoeff(), 1e-10) << model.name;
    }
  }
}

TEST(JointPD, LawWithManifoldErrors) {
  // tau = Kp (q_ref (-) q) + Kd (v_ref - v), the error from dynamics' difference.
  const Model model = floatingHumanoid();
  const Eigen::VectorXd Kp = randomVector(model.nv, 13, 50.0).cwiseAbs();
  const Eigen::VectorXd Kd = randomVector(model.nv, 14, 5.0).cwiseAbs();
  JointPD controller(model, Kp, Kd);
  JointReference ref(model);
  ref.q = randomConfiguration(model, 15);
  ref.v = randomVector(model.nv, 16);
  controller.setReference(ref);
  const Eigen::VectorXd q = randomConfiguration(model, 17), v = randomVector(model.nv, 18);
  const Eigen::VectorXd expected =
      Kp.cwiseProduct(difference(model, q, ref.q)) + Kd.cwiseProduct(ref.v - v);
  EXPECT_TRUE(matricesNear(controller.compute(0.0, q, v), expected, 1e-14));
  // criticallyDampedKd: Kd = 2 sqrt(Kp M_ii).
  Data data(model);
  const Eigen::MatrixXd M = crba(model, data, q);
  EXPECT_TRUE(matricesNear(criticallyDampedKd(model, q, Kp),
                           (2.0 * (Kp.array() * M.diagonal().array()).sqrt()).matrix(), 1e-15));
}

// ---------------------------------------------------------------------------------------------
// Stable PD

TEST(StablePD, SatisfiesItsImplicitEquation) {
  // tau = Kp (q_ref (-) (q (+) h v)) + Kd (v_ref - (v + h qdd)) with qdd = ABA(q, v, tau): the
  // defining equation of stable PD, checked with an independent forward dynamics (1e-9 relative;
  // measured 2.6e-15). And as h -> 0 it becomes explicit PD: |tau_spd - tau_pd| shrinks like h
  // (once h Kd / M_ii << 1: h = 1e-7 s).
  const Model model = floatingHumanoid();
  const Eigen::VectorXd Kp = Eigen::VectorXd::Constant(model.nv, 2000.0);
  const Eigen::VectorXd Kd = Eigen::VectorXd::Constant(model.nv, 100.0);
  const double h = 1.0 / 240.0;
  StablePD spd(model, Kp, Kd, h);
  JointReference ref(model);
  ref.q = randomConfiguration(model, 19);
  ref.v = randomVector(model.nv, 20);
  spd.setReference(ref);
  const Eigen::VectorXd q = randomConfiguration(model, 21), v = randomVector(model.nv, 22);
  const Eigen::VectorXd tau = spd.compute(0.0, q, v);
  Data data(model);
  const Eigen::VectorXd qdd = aba(model, data, q, v, tau);
  EXPECT_TRUE(matricesNear(spd.predictedAcceleration(), qdd, 1e-9));
  const Eigen::VectorXd q_pred = integrate(model, q, v, h);
  const Eigen::VectorXd expected =
      Kp.cwiseProduct(difference(model, q_pred, ref.q)) + Kd.cwiseProduct(ref.v - v - h * qdd);
  EXPECT_TRUE(matricesNear(tau, expected, 1e-9));
  // h -> 0: the difference to explicit PD halves with h.
  JointPD pd(model, Kp, Kd);
  pd.setReference(ref);
  const Eigen::VectorXd tau_pd = pd.compute(0.0, q, v);
  spd.setTimeStep(1e-7);
  const double d1 = (spd.compute(0.0, q, v) - tau_pd).norm();
  spd.setTimeStep(0.5e-7);
  const double d2 = (spd.compute(0.0, q, v) - tau_pd).norm();
  EXPECT_NEAR(d1 / d2, 2.0, 0.02);
}

TEST(StablePD, StableWhereExplicitPDDiverges) {
  // The 5-link pendulum under semi-implicit Euler at h = 1/240 s (pybullet's default step) with
  // Kp = 2e4 N m/rad, Kd = 2e3 N m s/rad: h Kd / M_ii is far above 2 for the outer links, so
  // explicit PD diverges (|v| passes 1e6 rad/s at step 4), while stable PD settles at rest near
  // the set-point (peak speed 3.0 rad/s, |v| = 6e-15 after 5 s; the remaining position error,
  // 7e-3 rad, is gravity's g/Kp: stable PD does not compensate gravity).
  const Model model = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  const double h = 1.0 / 240.0;
  const Eigen::VectorXd Kp = Eigen::VectorXd::Constant(model.nv, 2e4);
  const Eigen::VectorXd Kd = Eigen::VectorXd::Constant(model.nv, 2e3);
  const Eigen::VectorXd q_ref = Eigen::VectorXd::LinSpaced(model.nv, 0.3, -0.3);
  {
    Data data(model);
    const Eigen::MatrixXd M = crba(model, data, q_ref);
    EXPECT_GT(h * Kd.cwiseQuotient(M.diagonal()).maxCoeff(), 2.0);  // explicit PD's bound
  }
  JointPD pd(model, Kp, Kd);
  StablePD spd(model, Kp, Kd, h);
  pd.setSetPoint(q_ref);
  spd.setSetPoint(q_ref);
  const int steps = 5 * 240;
  // Explicit PD: stop once |v| passes 1e6 (before NaN).
  Eigen::VectorXd q = Eigen::VectorXd::Zero(model.nv), v = Eigen::VectorXd::Zero(model.nv);
  int diverged_at = -1;
  simulate(
      model, pd, q, v, h, steps,
      [&](double t, const Eigen::VectorXd&, const Eigen::VectorXd& vt) {
        if (vt.cwiseAbs().maxCoeff() > 1e6) {
          diverged_at = static_cast<int>(std::lround(t / h));
          return false;
        }
        return true;
      },
      false);
  EXPECT_GT(diverged_at, 0);
  EXPECT_LT(diverged_at, 50);
  // Stable PD with the same gains and step.
  q.setZero();
  v.setZero();
  double max_speed = 0.0;
  simulate(
      model, spd, q, v, h, steps,
      [&](double, const Eigen::VectorXd&, const Eigen::VectorXd& vt) {
        max_speed = std::max(max_speed, vt.cwiseAbs().maxCoeff());
        return true;
      },
      false);
  EXPECT_LT(max_speed, 5.0);
  EXPECT_LT(v.cwiseAbs().maxCoeff(), 1e-9);
  Data data(model);
  const Eigen::VectorXd& g = computeGeneralizedGravity(model, data, q);
  EXPECT_LT((q_ref - q).cwiseAbs().maxCoeff(), 2.0 * g.cwiseAbs().maxCoeff() / 2e4);
}

// ---------------------------------------------------------------------------------------------
// Task space

TEST(TaskSpaceController, TracksACircleWithTheClosedLoopErrorOde) {
  // The iiwa's flange frame (link 7, 0.1 m out) follows a circle of radius 0.1 m at 1.5 rad/s with
  // a fixed orientation, starting at rest 5 cm and 0.3 rad (about one axis) off. With the correct
  // Lambda and no damping xdd = xdd*, so the position error obeys e'' + Kd e' + Kp e = 0 exactly
  // and so does the orientation error (single axis, started at rest, constant R_ref). RK4 at
  // h = 1e-3 s over 3 s: the measured worst difference to the analytic solution is 9.3e-11;
  // asserted 1e-9. A posture PD acts in the null space meanwhile (|N tau_0| up to 15 N m).
  const Model model = iiwa();
  const int link = model.numLinks() - 1;
  const Transform X_BF(Matrix3::Identity(), Vector3(0.0, 0.0, 0.1));
  const Eigen::VectorXd q0 = (Eigen::VectorXd(7) << 0.3, 0.6, -0.2, -1.2, 0.3, 0.8, 0.1).finished();
  Data data(model);
  forwardKinematics(model, data, q0);
  const Transform X_WF0 = framePose(model, data, link, X_BF);
  // Reference: R_ref = exp(theta0 u) R0; circle through p0 + e_p0 at t = 0.
  const Vector3 u = Vector3(0.2, -0.5, 0.7).normalized();
  const double theta0 = 0.3;
  const Matrix3 R_ref = expMapRotation(theta0 * u) * X_WF0.rotation();
  const Vector3 e_p0(0.03, -0.02, 0.035);
  const double radius = 0.1, w = 1.5;
  const Vector3 center = X_WF0.translation() + e_p0 - radius * Vector3::UnitX();
  const auto circle = std::make_shared<CircleTrajectory>(center, radius, Vector3::UnitX(),
                                                         Vector3::UnitY(), w, R_ref);
  TaskSpaceGains gains;
  gains.Kp << 64, 64, 64, 100, 100, 100;
  gains.Kd = 2.0 * gains.Kp.array().sqrt();
  // Overdamped along one position axis (the angular gains stay equal on the three axes, so the
  // orientation error stays on its axis).
  gains.Kd[3] = 1.2 * gains.Kd[3];
  gains.Kp_posture = Eigen::VectorXd::Constant(7, 20.0);
  gains.Kd_posture = Eigen::VectorXd::Constant(7, 5.0);
  TaskSpaceController controller(model, link, X_BF, gains);
  controller.setTrajectory(circle);
  controller.setPosture(q0 + randomVector(7, 23, 0.5));
  Eigen::VectorXd q = q0, v = Eigen::VectorXd::Zero(7);
  // Initial errors and rates: e(0) = (theta0 u, e_p0), e'(0) = xdot_ref(0) - 0.
  TaskReference ref0;
  circle->evaluate(0.0, ref0);
  Vector6 e0, de0 = ref0.V_WF;
  e0 << theta0 * u, e_p0;
  double worst = 0.0, posture_torque = 0.0;
  simulate(model, controller, q, v, 1e-3, 3000,
           [&](double t, const Eigen::VectorXd& qt, const Eigen::VectorXd&) {
             TaskReference ref;
             circle->evaluate(t, ref);
             forwardKinematics(model, data, qt);
             const Transform X_WF = framePose(model, data, link, X_BF);
             Vector6 e;
             e << rotationToExpMap(ref.X_WF.rotation() * X_WF.rotation().transpose()),
                 ref.X_WF.translation() - X_WF.translation();
             for (int i = 0; i < 6; ++i) {
               const double expected = closedLoopError(gains.Kp[i], gains.Kd[i], e0[i], de0[i], t);
               worst = std::max(worst, std::abs(e[i] - expected));
             }
             posture_torque = std::max(posture_torque, controller.nullSpaceTorque().norm());
             return true;
           });
  EXPECT_LT(worst, 1e-9);
  EXPECT_GT(posture_torque, 1.0);                  // the null space did carry torque
  EXPECT_LT(controller.taskError().norm(), 1e-3);  // converged: |e| ~ e^-(8 t) at t = 3
}

TEST(TaskSpaceController, PostureTorqueCausesNoTaskAcceleration) {
  // J M^-1 (N tau_0) = 0 with the undamped Lambda: the posture cannot disturb the task. Checked
  // at random states with a large posture torque (|N tau_0| from 36 to 900 N m): measured 5.8e-12
  // relative to |M^-1 N tau_0|; asserted 1e-9. The same product with the unprojected tau_0 is
  // 0.95 to 1.0 of it.
  const Model model = iiwa();
  TaskSpaceGains gains;
  gains.Kp_posture = Eigen::VectorXd::Constant(7, 300.0);
  gains.Kd_posture = Eigen::VectorXd::Constant(7, 30.0);
  TaskSpaceController controller(model, "lbr_iiwa_link_7", gains);
  Data data(model);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Eigen::VectorXd q = randomConfiguration(model, seed), v = randomVector(7, seed + 10);
    controller.compute(0.0, q, v);
    crba(model, data, q);
    const Eigen::MatrixXd Minv = data.M.inverse();
    const Eigen::VectorXd accel_null = Minv * controller.nullSpaceTorque();
    const Eigen::VectorXd accel_raw = Minv * controller.postureTorque();
    const Eigen::MatrixXd J = controller.jacobian();
    EXPECT_LT((J * accel_null).norm(), 1e-9 * accel_null.norm()) << seed;
    EXPECT_GT((J * accel_raw).norm(), 1e-2 * accel_raw.norm()) << seed;
    // And the whole torque gives xdd = J qdd + Jdot v = xdd* (ABA as the forward dynamics).
    const Eigen::VectorXd qdd = aba(model, data, q, v, controller.torque());
    EXPECT_TRUE(
        matricesNear(J * qdd + controller.JdotV(), controller.desiredTaskAcceleration(), 1e-9));
  }
}

TEST(TaskSpaceController, SingularityNeedsDamping) {
  // At q = 0 the iiwa is stretched straight up: J loses rank. Undamped, the controller refuses
  // (SingularityError, output unchanged); with damping mu = 0.05 the torque is finite and the
  // eigenvalues of Lambda are below 1/mu^2.
  const Model model = iiwa();
  TaskSpaceGains gains;
  TaskSpaceController undamped(model, "lbr_iiwa_link_7", gains);
  const Eigen::VectorXd q = Eigen::VectorXd::Zero(7), v = Eigen::VectorXd::Zero(7);
  const Eigen::VectorXd before = undamped.torque();
  EXPECT_THROW(undamped.compute(0.0, q, v), SingularityError);
  EXPECT_EQ(undamped.torque(), before);
  gains.damping = 0.05;
  TaskSpaceController damped(model, "lbr_iiwa_link_7", gains);
  TaskReference ref;
  ref.X_WF = Transform(Matrix3::Identity(), Vector3(0.1, 0.0, 1.0));
  damped.setReference(ref);
  const Eigen::VectorXd& tau = damped.compute(0.0, q, v);
  EXPECT_TRUE(tau.allFinite());
  EXPECT_GT(damped.conditionNumber(), 1e12);
  const Eigen::SelfAdjointEigenSolver<Matrix6> eig(damped.Lambda());
  EXPECT_LE(eig.eigenvalues().maxCoeff(), 1.0 / (0.05 * 0.05) * (1 + 1e-12));
}

// ---------------------------------------------------------------------------------------------
// Torque limits

TEST(TorqueLimits, SaturateAndReport) {
  // A computed-torque controller with a 1 rad error and stiff gains asks for more than the
  // iiwa's 300 N m efforts; the limits clamp to +-300 exactly and report which dofs.
  const Model model = iiwa();
  ComputedTorque controller(model, Eigen::VectorXd::Constant(7, 400.0));
  const Eigen::VectorXd q = Eigen::VectorXd::Constant(7, 0.2), v = Eigen::VectorXd::Zero(7);
  Eigen::VectorXd q_ref = q;
  q_ref[1] += 1.0;   // shoulder: large torque
  q_ref[6] += 1e-3;  // wrist: small torque
  controller.setSetPoint(q_ref);
  controller.setTorqueLimits(TorqueLimits(model));
  const Eigen::VectorXd& tau = controller.compute(0.0, q, v);
  const Eigen::VectorXd& raw = controller.unsaturatedTorque();
  int expected_count = 0;
  for (int i = 0; i < 7; ++i) {
    const bool over = std::abs(raw[i]) > 300.0;
    expected_count += over;
    EXPECT_EQ(controller.torqueLimits().saturated()[i], over) << i;
    EXPECT_EQ(tau[i], over ? std::copysign(300.0, raw[i]) : raw[i]) << i;
  }
  EXPECT_GE(expected_count, 1);
  EXPECT_LT(expected_count, 7);
  EXPECT_EQ(controller.numSaturated(), expected_count);
  // Given limits, per dof.
  TorqueLimits limits(model, Eigen::VectorXd::Constant(7, 1.0));
  Eigen::VectorXd x = (Eigen::VectorXd(7) << 0.5, -2.0, 1.0, 3.0, -1.0, 0.0, -0.99).finished();
  EXPECT_EQ(limits.apply(x), 2);
  EXPECT_EQ(x, (Eigen::VectorXd(7) << 0.5, -1.0, 1.0, 1.0, -1.0, 0.0, -0.99).finished());
  EXPECT_EQ(limits.saturated(), std::vector<bool>({false, true, false, true, false, false, false}));
  // Without limits nothing is reported.
  controller.clearTorqueLimits();
  EXPECT_EQ(controller.compute(0.0, q, v), controller.unsaturatedTorque());
  EXPECT_EQ(controller.numSaturated(), 0);
}

// ---------------------------------------------------------------------------------------------
// Lin's warning: numerically differentiated references need feedback

TEST(SampledReference, NeedsFeedback) {
  // The iiwa follows a sinusoid given only as samples at 1/240 s with Lin's backward
  // differences, starting on it with a small velocity error (0.01 rad/s, e.g. from estimation).
  // Feed-forward alone (K = D = 0) replays the lagging, O(dt) wrong accelerations and never
  // corrects anything: the error accumulates (measured 0.022 rad at 1 s, 0.049 rad at 4 s). With
  // feedback (K = 100) it stays at the reference's own O(dt) error (measured 1.8e-3 rad at worst,
  // 1.4e-3 at 4 s).
  const Model model = iiwa();
  const double dt = 1.0 / 240.0;
  const Sinusoid exact(model, randomConfiguration(model, 24) * 0.5,
                       Eigen::VectorXd::Constant(7, 0.5), Eigen::VectorXd::LinSpaced(7, 1.0, 3.0),
                       Eigen::VectorXd::Zero(7));
  std::vector<Eigen::VectorXd> samples;
  JointReference ref(model);
  for (int k = 0; k <= 5 * 240; ++k) {
    exact.evaluate(k * dt, ref);
    samples.push_back(ref.q);
  }
  const auto sampled = std::make_shared<SampledTrajectory>(model, samples, dt);
  double error_at_4s[2], worst_after_1s[2];
  for (int feedback = 0; feedback < 2; ++feedback) {
    ComputedTorque controller(model, Eigen::VectorXd::Constant(7, feedback ? 100.0 : 0.0));
    controller.setTrajectory(sampled);
    exact.evaluate(0.0, ref);
    Eigen::VectorXd q = ref.q, v = ref.v + Eigen::VectorXd::Constant(7, 0.01);
    double worst = 0.0, error = 0.0;
    simulate(model, controller, q, v, 1e-3, 4000,
             [&](double t, const Eigen::VectorXd& qt, const Eigen::VectorXd&) {
               exact.evaluate(t, ref);
               error = (ref.q - qt).cwiseAbs().maxCoeff();
               if (t >= 1.0) worst = std::max(worst, error);
               return true;
             });
    error_at_4s[feedback] = error;
    worst_after_1s[feedback] = worst;
  }
  EXPECT_GT(error_at_4s[0], 0.035);
  EXPECT_LT(worst_after_1s[1], 3e-3);
  EXPECT_LT(error_at_4s[1], 0.1 * error_at_4s[0]);
}

// ---------------------------------------------------------------------------------------------
// Control modes by name

TEST(JointControlMode, NamesAndGainsShareOneBandwidth) {
  const Model model = iiwa();
  for (JointControlMode mode :
       {JointControlMode::ComputedTorque, JointControlMode::PDGravity, JointControlMode::StablePD,
        JointControlMode::ComputedTorqueStepEnd}) {
    EXPECT_EQ(jointControlModeFromString(toString(mode)), mode);
  }
  EXPECT_THROW(jointControlModeFromString("position"), InvalidArgumentError);
  // Computed torque: K = w^2, D = 2 w; the PD modes: those times diag M(q) at q_gains.
  const double w = 20.0;
  const Eigen::VectorXd q = test::safeConfiguration(model, 3);
  Data data(model);
  crba(model, data, q);
  const Eigen::VectorXd inertia = data.M.diagonal();
  const auto ct = makeJointController(model, JointControlMode::ComputedTorque, w, q, 1e-3);
  const auto& computed_torque = dynamic_cast<const ComputedTorque&>(*ct);
  EXPECT_TRUE(computed_torque.K().isApproxToConstant(w * w, 1e-15));
  EXPECT_TRUE(computed_torque.D().isApproxToConstant(2.0 * w, 1e-15));
  const auto pd = makeJointController(model, JointControlMode::PDGravity, w, q, 1e-3);
  const auto& joint_pd = dynamic_cast<const JointPD&>(*pd);
  EXPECT_TRUE(test::matricesNear(joint_pd.Kp(), (w * w * inertia).eval(), 1e-14));
  EXPECT_TRUE(test::matricesNear(joint_pd.Kd(), (2.0 * w * inertia).eval(), 1e-14));
  const auto spd = makeJointController(model, JointControlMode::StablePD, w, q, 1e-3);
  EXPECT_TRUE(test::matricesNear(dynamic_cast<const StablePD&>(*spd).Kp(), (w * w * inertia).eval(),
                                 1e-14));
  const auto step = makeJointController(model, JointControlMode::ComputedTorqueStepEnd, w, q, 1e-3);
  EXPECT_EQ(dynamic_cast<const ComputedTorque&>(*step).stepAim(), 1e-3);
  // Bad input names the argument.
  EXPECT_THROW(makeJointController(model, JointControlMode::PDGravity, 0.0, q, 1e-3),
               InvalidArgumentError);
  EXPECT_THROW(makeJointController(model, JointControlMode::StablePD, w, q, 0.0),
               InvalidArgumentError);
  EXPECT_THROW(makeJointController(model, JointControlMode::PDGravity, w, Eigen::VectorXd(2), 1e-3),
               InvalidArgumentError);
}

// ---------------------------------------------------------------------------------------------
// Bad input

TEST(ControllersBadInput, RejectNamingTheArgumentAndChangeNothing) {
  const Model model = floatingHumanoid();
  const int nv = model.nv;
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(nv);
  expectThrowNaming([&] { ComputedTorque(model, Eigen::VectorXd::Ones(3)); }, "K");
  expectThrowNaming([&] { ComputedTorque(model, ones, -ones); }, "D");
  expectThrowNaming([&] { JointPD(model, ones, Eigen::VectorXd::Ones(nv + 1)); }, "Kd");
  expectThrowNaming([&] { StablePD(model, ones, ones, 0.0); }, "time_step");
  expectThrowNaming([&] { TorqueLimits(model, Eigen::VectorXd::Zero(nv)); }, "max_abs_tau");
  TaskSpaceGains bad;
  bad.Kp_posture = Eigen::VectorXd::Ones(2);
  expectThrowNaming([&] { TaskSpaceController(model, 1, Transform(), bad); }, "Kp_posture");
  expectThrowNaming([&] { TaskSpaceController(model, 99, Transform(), TaskSpaceGains()); },
                    "link index");

  const Eigen::VectorXd q = randomConfiguration(model, 25), v = randomVector(nv, 26);
  Eigen::VectorXd nan_v = v, short_q = q.head(model.nq - 1), bad_quat = q;
  nan_v[3] = std::nan("");
  bad_quat.segment<4>(3) *= 2.0;  // the root quaternion, far from unit
  std::vector<std::unique_ptr<Controller>> controllers;
  controllers.push_back(std::make_unique<JointPD>(model, ones, ones, true));
  controllers.push_back(std::make_unique<ComputedTorque>(model, ones));
  controllers.push_back(std::make_unique<StablePD>(model, ones, ones, 0.01));
  controllers.push_back(
      std::make_unique<TaskSpaceController>(model, 5, Transform(), TaskSpaceGains()));
  for (auto& c : controllers) {
    c->setTorqueLimits(TorqueLimits(model, 0.5 * ones));
    const Eigen::VectorXd tau = c->compute(0.1, q, v);
    const Eigen::VectorXd raw = c->unsaturatedTorque();
    const int saturated = c->numSaturated();
    ASSERT_GT(saturated, 0);
    expectThrowNaming([&] { c->compute(0.2, short_q, v); }, "q");
    expectThrowNaming([&] { c->compute(0.2, q, nan_v); }, "v[3]");
    expectThrowNaming([&] { c->compute(0.2, q, Eigen::VectorXd(v.head(2))); }, "v has size");
    expectThrowNaming([&] { c->compute(std::nan(""), q, v); }, "time t");
    expectThrowNaming([&] { c->compute(0.2, bad_quat, v); }, "quaternion");
    EXPECT_EQ(c->torque(), tau);
    EXPECT_EQ(c->unsaturatedTorque(), raw);
    EXPECT_EQ(c->numSaturated(), saturated);
  }
  // A trajectory of the application's that gives a reference off the configuration space or a
  // NaN acceleration: computed torque (both aims) refuses it, naming it, instead of returning NaN.
  class BadTrajectory final : public Trajectory {
   public:
    // fault: 0 none, 1 a NaN acceleration, 2 a short acceleration.
    BadTrajectory(const Model& model, Eigen::VectorXd q, int fault)
        : Trajectory(model), q_(std::move(q)), fault_(fault) {}
    void evaluate(double, JointReference& ref) const override {
      ref.q = q_;
      ref.v.setZero();
      ref.a.setZero();
      if (fault_ == 1) ref.a[2] = std::nan("");
      if (fault_ == 2) ref.a.resize(2);
    }

   private:
    Eigen::VectorXd q_;
    int fault_;
  };
  for (double aim : {0.0, 0.01}) {
    ComputedTorque aiming(model, ones);
    aiming.aimAtStepEnd(aim);
    aiming.setSetPoint(q);
    const Eigen::VectorXd tau = aiming.compute(0.1, q, v);
    aiming.setTrajectory(std::make_shared<BadTrajectory>(model, bad_quat, 0));
    expectThrowNaming([&] { aiming.compute(0.2, q, v); }, "trajectory reference q");
    aiming.setTrajectory(std::make_shared<BadTrajectory>(model, q, 1));
    expectThrowNaming([&] { aiming.compute(0.2, q, v); }, "trajectory reference a[2]");
    aiming.setTrajectory(std::make_shared<BadTrajectory>(model, q, 2));
    expectThrowNaming([&] { aiming.compute(0.2, q, v); }, "trajectory reference a has size");
    EXPECT_EQ(aiming.reference().q, q);  // the set point's, unchanged by the refused ones
    EXPECT_EQ(aiming.torque(), tau);
  }
  // Reference setters: rejected, the old reference kept.
  ComputedTorque controller(model, ones);
  controller.setSetPoint(q);
  expectThrowNaming([&] { controller.setSetPoint(short_q); }, "q_ref");
  JointReference bad_ref(model);
  bad_ref.a[0] = INFINITY;
  expectThrowNaming([&] { controller.setReference(bad_ref); }, "reference a");
  EXPECT_EQ(controller.reference().q, q);
  expectThrowNaming([&] { controller.setTrajectory(nullptr); }, "null");
  const Model other = iiwa();
  expectThrowNaming(
      [&] {
        controller.setTrajectory(std::make_shared<QuinticPointToPoint>(
            other, Eigen::VectorXd::Zero(7), Eigen::VectorXd::Zero(7), 1.0));
      },
      "model");
}

}  // namespace
}  // namespace gcbridge
