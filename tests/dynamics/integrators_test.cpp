// Integrators: convergence order on the pendulum, energy conservation of RK4 on the iiwa, the
// manifold (quaternions stay unit), implicit Euler's Newton solve.

#include "gcbridge/dynamics/integrators.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/derivatives.hpp"
#include "gcbridge/dynamics/energy.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

enum class Scheme { SemiImplicitEuler, RungeKutta4, ImplicitEuler };

void simulate(const Model& model, Scheme scheme, Eigen::VectorXd& q, Eigen::VectorXd& v,
              double duration, int steps, const TorqueFunction& tau = nullptr) {
  IntegratorWorkspace ws(model);
  const double h = duration / steps;
  for (int i = 0; i < steps; ++i) {
    switch (scheme) {
      case Scheme::SemiImplicitEuler:
        semiImplicitEulerStep(model, ws, i * h, q, v, h, tau);
        break;
      case Scheme::RungeKutta4:
        rungeKutta4Step(model, ws, i * h, q, v, h, tau);
        break;
      case Scheme::ImplicitEuler:
        implicitEulerStep(model, ws, i * h, q, v, h, tau);
        break;
    }
  }
}

Model pendulum() {
  ModelBuilder b("pendulum");
  b.addLink("pivot", 0.0, Vector3::Zero(), Matrix3::Zero());
  b.addLink("bob", 1.0, Vector3(0, 0, -1), Matrix3::Zero());
  b.addRevolute("hinge", "pivot", "bob", Transform::Identity(), Vector3::UnitY());
  return b.build();
}

// A body on a vertical prismatic joint: its acceleration is the applied force over its mass,
// less gravity, whatever q and v.
Model slider() {
  ModelBuilder builder("slider");
  builder.addLink("base", 1.0, Vector3::Zero(), Matrix3::Identity());
  builder.addLink("body", 2.0, Vector3::Zero(), Matrix3::Identity());
  JointDescription joint;
  joint.name = "slide";
  joint.type = JointType::Prismatic;
  joint.parent = "base";
  joint.child = "body";
  joint.axis = Vector3::UnitZ();
  builder.addJoint(joint);
  return builder.build();
}

// Measured order p from the errors at steps h, h/2, h/4: p = log2(|x_h - x_h/2| / |x_h/2 - x_h/4|).
double measuredOrder(Scheme scheme, const Model& model, const Eigen::VectorXd& q0,
                     const Eigen::VectorXd& v0, int steps, const TorqueFunction& tau = nullptr) {
  // State at t = 1 s as (q (-) q0, v) for each step size.
  Eigen::MatrixXd x(2 * model.nv, 3);
  for (int i = 0; i < 3; ++i) {
    Eigen::VectorXd q = q0, v = v0;
    simulate(model, scheme, q, v, 1.0, steps << i, tau);
    x.col(i).head(model.nv) = difference(model, q0, q);
    x.col(i).tail(model.nv) = v;
  }
  return std::log2((x.col(0) - x.col(1)).norm() / (x.col(1) - x.col(2)).norm());
}

TEST(Integrators, ConvergenceOrderOnThePendulum) {
  const Model model = pendulum();
  const Eigen::VectorXd q0 = Eigen::VectorXd::Constant(1, 1.0),
                        v0 = Eigen::VectorXd::Constant(1, 0.5);
  EXPECT_NEAR(measuredOrder(Scheme::SemiImplicitEuler, model, q0, v0, 400), 1.0, 0.05);
  EXPECT_NEAR(measuredOrder(Scheme::ImplicitEuler, model, q0, v0, 400), 1.0, 0.05);
  EXPECT_NEAR(measuredOrder(Scheme::RungeKutta4, model, q0, v0, 25), 4.0, 0.1);
}

TEST(Integrators, Rk4KeepsFourthOrderOnQuaternionsAndFreeJoints) {
  const Model model = test::randomTreeModel(81, 6, BallParametrization::Quaternion, true);
  const Eigen::VectorXd q0 = randomConfiguration(model, 1), v0 = randomVector(model.nv, 2);
  EXPECT_NEAR(measuredOrder(Scheme::RungeKutta4, model, q0, v0, 100), 4.0, 0.15);
  EXPECT_NEAR(measuredOrder(Scheme::SemiImplicitEuler, model, q0, v0, 1000), 1.0, 0.1);
}

TEST(Integrators, TorqueCallbackIsUsed) {
  // A constant torque m g l holds the pendulum horizontal (q = pi/2) at rest.
  const Model model = pendulum();
  const TorqueFunction hold = [](double, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                 Eigen::Ref<Eigen::VectorXd> tau) { tau[0] = 9.81; };
  for (Scheme s : {Scheme::SemiImplicitEuler, Scheme::RungeKutta4, Scheme::ImplicitEuler}) {
    Eigen::VectorXd q = Eigen::VectorXd::Constant(1, M_PI / 2), v = Eigen::VectorXd::Zero(1);
    simulate(model, s, q, v, 0.5, 50, hold);
    EXPECT_NEAR(q[0], M_PI / 2, 1e-12);
    EXPECT_NEAR(v[0], 0.0, 1e-12);
  }
}

TEST(Integrators, Rk4ConservesEnergyOnThePassiveIiwa) {
  // Stated bound: relative energy drift below 1e-8 over 1 s at h = 1e-4.
  const Model model = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  Data data(model);
  Eigen::VectorXd q = randomConfiguration(model, 5), v = randomVector(model.nv, 6, 1.0);
  const double E0 = computeMechanicalEnergy(model, data, q, v);
  const double T0 = computeKineticEnergy(model, data, q, v);
  simulate(model, Scheme::RungeKutta4, q, v, 1.0, 10000);
  const double E1 = computeMechanicalEnergy(model, data, q, v);
  // Relative to the kinetic energy scale (the potential's zero is arbitrary).
  EXPECT_LT(std::abs(E1 - E0) / T0, 1e-8);
  // The symplectic Euler drifts more but stays bounded; implicit Euler dissipates.
  Eigen::VectorXd qi = randomConfiguration(model, 5), vi = randomVector(model.nv, 6, 1.0);
  simulate(model, Scheme::ImplicitEuler, qi, vi, 0.2, 200);
  EXPECT_LT(computeMechanicalEnergy(model, data, qi, vi), E0);
}

TEST(Integrators, QuaternionsStayUnit) {
  const Model model = test::randomTreeModel(82, 8, BallParametrization::Quaternion, true);
  for (Scheme s : {Scheme::SemiImplicitEuler, Scheme::RungeKutta4, Scheme::ImplicitEuler}) {
    Eigen::VectorXd q = randomConfiguration(model, 1), v = randomVector(model.nv, 2, 3.0);
    simulate(model, s, q, v, 0.2, 200);
    for (const Joint& j : model.joints) {
      if (j.type == JointType::Ball || j.type == JointType::Free) {
        const int offset = j.type == JointType::Free ? 3 : 0;
        EXPECT_NEAR(q.segment<4>(j.idx_q + offset).norm(), 1.0, 1e-14) << j.name;
      }
    }
  }
}

TEST(Integrators, ImplicitEulerSolvesItsEquationAndReportsNewton) {
  const Model model = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  IntegratorWorkspace ws(model);
  Eigen::VectorXd q = randomConfiguration(model, 7), v = randomVector(model.nv, 8);
  const Eigen::VectorXd q0 = q, v0 = v;
  const double h = 1e-2;
  const ImplicitStepReport r = implicitEulerStep(model, ws, 0.0, q, v, h);
  EXPECT_GE(r.iterations, 1);
  EXPECT_LE(r.residual, 1e-12);
  EXPECT_EQ(q, integrate(model, q0, v, h));
  // The new velocity satisfies v1 = v0 + h ABA(q1, v1, 0).
  Data data(model);
  EXPECT_TRUE(
      matricesNear(v, Eigen::VectorXd(v0 + h * aba(model, data, q, v, data.zero_v)), 1e-11));
  // A Newton budget too small to converge throws and leaves the state alone (a new workspace:
  // this one's guess, from the step above, is already the solution).
  IntegratorWorkspace fresh(model);
  Eigen::VectorXd q2 = q0, v2 = v0;
  EXPECT_THROW(implicitEulerStep(model, fresh, 0.0, q2, v2, h, nullptr, 1e-12, 0), Error);
  EXPECT_EQ(q2, q0);
  EXPECT_EQ(v2, v0);
}

// The analytic Newton matrix, kept across steps, against a forward-difference Newton made
// afresh at every iteration: the same v1 to round-off, step after step on a floating humanoid.
TEST(Integrators, ImplicitEulerEqualsAFiniteDifferenceNewton) {
  ModelOptions options;
  options.floating_base = true;
  const Model model = loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), options);
  IntegratorWorkspace ws(model);
  Data data(model);
  const double h = 1.0 / 240;
  Eigen::VectorXd q = randomConfiguration(model, 31), v = randomVector(model.nv, 32);
  for (int step = 0; step < 5; ++step) {
    // r(v1) = v1 - v0 - h ABA(q0 (+) h v1, v1) solved with a forward-difference Jacobian.
    const auto r = [&](const Eigen::VectorXd& v1) -> Eigen::VectorXd {
      return v1 - v - h * aba(model, data, integrate(model, q, v1, h), v1, data.zero_v);
    };
    Eigen::VectorXd v1 = v;
    for (int it = 0; it < 10 && r(v1).lpNorm<Eigen::Infinity>() > 1e-13; ++it) {
      Eigen::MatrixXd J(model.nv, model.nv);
      const Eigen::VectorXd r0 = r(v1);
      for (int j = 0; j < model.nv; ++j) {
        Eigen::VectorXd v_step = v1;
        v_step[j] += 1e-7;
        J.col(j) = (r(v_step) - r0) / 1e-7;
      }
      v1 -= J.partialPivLu().solve(r0);
    }
    implicitEulerStep(model, ws, step * h, q, v, h);
    EXPECT_TRUE(matricesNear(v, v1, 1e-10)) << "step " << step;
  }
}

// A stiff PD servo (h^2 Kp / M of order 10 on the iiwa's wrist): Newton converges in a few
// iterations only because its matrix holds the torque's derivatives, given or differenced. Its
// accelerations reach 1e4 rad/s^2, whose round-off in the residual is about 2e-12: tolerance
// 1e-10.
TEST(Integrators, ImplicitEulerTakesTheTorquesDerivatives) {
  const Model model = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  const Eigen::VectorXd q0 = randomConfiguration(model, 22), v0 = randomVector(model.nv, 23);
  // A reference near q0: torques of order 100 N m, so that round-off stays below the tolerance.
  const Eigen::VectorXd q_ref = q0 + randomVector(model.nv, 21, 0.01);
  const double kp = 1e4, kd = 200.0, h = 1e-2;
  const TorqueFunction pd = [&](double, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                Eigen::Ref<Eigen::VectorXd> tau) {
    tau = kp * (q_ref - q) - kd * v;
  };
  const TorqueJacobianFunction pd_jacobian =
      [&](double, const Eigen::VectorXd&, const Eigen::VectorXd&,
          Eigen::Ref<Eigen::MatrixXd> dtau_dq, Eigen::Ref<Eigen::MatrixXd> dtau_dv) {
        dtau_dq = -kp * Eigen::MatrixXd::Identity(model.nv, model.nv);
        dtau_dv = -kd * Eigen::MatrixXd::Identity(model.nv, model.nv);
      };
  IntegratorWorkspace ws_given(model), ws_fd(model);
  Eigen::VectorXd q_given = q0, v_given = v0, q_fd = q0, v_fd = v0;
  const ImplicitStepReport given =
      implicitEulerStep(model, ws_given, 0.0, q_given, v_given, h, pd, 1e-10, 20, pd_jacobian);
  const ImplicitStepReport differenced =
      implicitEulerStep(model, ws_fd, 0.0, q_fd, v_fd, h, pd, 1e-10);
  EXPECT_GE(given.newton_matrices, 1);
  EXPECT_GE(differenced.newton_matrices, 1);
  EXPECT_LE(given.iterations, 6);
  EXPECT_LE(differenced.iterations, 6);
  EXPECT_TRUE(matricesNear(v_fd, v_given, 1e-9));
  // v1 = v0 + h ABA(q1, v1, tau(q1, v1)).
  Data data(model);
  Eigen::VectorXd tau(model.nv);
  pd(h, q_given, v_given, tau);
  EXPECT_TRUE(matricesNear(
      v_given, Eigen::VectorXd(v0 + h * aba(model, data, q_given, v_given, tau)), 1e-10));
}

TEST(Integrators, ImplicitEulerRefusesBadSettingsAndABrokenMatrix) {
  const Model model = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  IntegratorWorkspace ws(model);
  const Eigen::VectorXd q0 = randomConfiguration(model, 41), v0 = randomVector(model.nv, 42);
  Eigen::VectorXd q = q0, v = v0;
  const double nan = std::nan("");
  EXPECT_THROW(implicitEulerStep(model, ws, 0.0, q, v, 0.0), InvalidArgumentError);
  EXPECT_THROW(implicitEulerStep(model, ws, 0.0, q, v, -1e-3), InvalidArgumentError);
  EXPECT_THROW(implicitEulerStep(model, ws, 0.0, q, v, nan), InvalidArgumentError);
  EXPECT_THROW(implicitEulerStep(model, ws, 0.0, q, v, 1e-3, nullptr, nan), InvalidArgumentError);
  EXPECT_THROW(implicitEulerStep(model, ws, 0.0, q, v, 1e-3, nullptr, 1e-12, -1),
               InvalidArgumentError);
  // A workspace made for another model (the iterations' ABA does not check it again).
  IntegratorWorkspace other(loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf")));
  EXPECT_THROW(implicitEulerStep(model, other, 0.0, q, v, 1e-3), InvalidArgumentError);
  EXPECT_EQ(q, q0);
  // A torque Jacobian with a NaN: the matrix is refused, the state kept, and the workspace still
  // steps afterwards.
  const TorqueFunction hold = [](double, const Eigen::VectorXd&, const Eigen::VectorXd& v_now,
                                 Eigen::Ref<Eigen::VectorXd> tau) { tau = -v_now; };
  const TorqueJacobianFunction broken = [&](double, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                            Eigen::Ref<Eigen::MatrixXd> dtau_dq,
                                            Eigen::Ref<Eigen::MatrixXd> dtau_dv) {
    dtau_dq.setZero();
    dtau_dv = -Eigen::MatrixXd::Identity(model.nv, model.nv);
    dtau_dv(2, 2) = nan;
  };
  EXPECT_THROW(implicitEulerStep(model, ws, 0.0, q, v, 1e-3, hold, 1e-12, 20, broken), Error);
  EXPECT_EQ(q, q0);
  EXPECT_EQ(v, v0);
  const ImplicitStepReport report = implicitEulerStep(model, ws, 0.0, q, v, 1e-3, hold);
  EXPECT_EQ(report.newton_matrices, 1);
  EXPECT_LE(report.residual, 1e-12);
}

// The kept matrix and the extrapolated guess follow a run; a jump of the state and a new step
// make them afresh, and every step still solves its equation.
TEST(Integrators, ImplicitEulerKeepsItsMatrixWhileItContracts) {
  ModelOptions options;
  options.floating_base = true;
  const Model model = loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), options);
  IntegratorWorkspace ws(model);
  Data data(model);
  Eigen::VectorXd q = randomConfiguration(model, 51), v = randomVector(model.nv, 52);
  int matrices = 0;
  const auto step = [&](double h) {
    const Eigen::VectorXd v0 = v;
    const ImplicitStepReport report = implicitEulerStep(model, ws, 0.0, q, v, h);
    EXPECT_TRUE(
        matricesNear(v, Eigen::VectorXd(v0 + h * aba(model, data, q, v, data.zero_v)), 1e-11));
    matrices += report.newton_matrices;
    return report;
  };
  for (int i = 0; i < 20; ++i) step(1.0 / 240);
  EXPECT_LT(matrices, 10);  // kept for most steps
  EXPECT_GE(matrices, 1);
  v = randomVector(model.nv, 53, 3.0);  // a jump
  step(1.0 / 240);
  EXPECT_EQ(step(1.0 / 120).newton_matrices, 1);  // a new h: a new matrix
}

// The Newton step matrix K^-1 M a step keeps, against K assembled here from the public
// derivatives at the step's first iterate (the guess v1 = v0 of a fresh workspace) and a dense
// LU: without a torque function K has M's tree pattern and the step factorizes it along the
// tree; with damping that couples the two ankles it has not, and a tree factor would drop the
// coupling.
TEST(Integrators, ImplicitEulerStepMatrixIsKInverseM) {
  ModelOptions options;
  options.floating_base = true;
  const Model model = loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), options);
  const double h = 1.0 / 60;
  const Eigen::VectorXd q0 = randomConfiguration(model, 71), v0 = randomVector(model.nv, 72);
  Eigen::MatrixXd C = Eigen::MatrixXd::Identity(model.nv, model.nv);
  C(model.nv - 1, model.nv - 8) = C(model.nv - 8, model.nv - 1) = 0.5;
  const TorqueFunction coupled = [&](double, const Eigen::VectorXd&, const Eigen::VectorXd& v,
                                     Eigen::Ref<Eigen::VectorXd> tau) { tau = -C * v; };
  const TorqueJacobianFunction coupled_jacobian =
      [&](double, const Eigen::VectorXd&, const Eigen::VectorXd&,
          Eigen::Ref<Eigen::MatrixXd> dtau_dq, Eigen::Ref<Eigen::MatrixXd> dtau_dv) {
        dtau_dq.setZero();
        dtau_dv = -C;
      };
  for (const bool damped : {false, true}) {
    IntegratorWorkspace ws(model);
    Eigen::VectorXd q = q0, v = v0;
    const ImplicitStepReport report =
        damped ? implicitEulerStep(model, ws, 0.0, q, v, h, coupled, 1e-12, 20, coupled_jacobian)
               : implicitEulerStep(model, ws, 0.0, q, v, h);
    ASSERT_EQ(report.newton_matrices, 1);
    Data data(model);
    const Eigen::VectorXd q1 = integrate(model, q0, v0, h);
    const Eigen::VectorXd tau = damped ? Eigen::VectorXd(-C * v0) : data.zero_v;
    const Eigen::VectorXd qdd = aba(model, data, q1, v0, tau);
    rneaDerivatives(model, data, q1, v0, qdd);
    Eigen::MatrixXd J(model.nv, model.nv);
    integrateVelocityJacobian(model, v0, h, J);
    const Eigen::MatrixXd dtau_dv = damped ? Eigen::MatrixXd(data.dtau_dv + C) : data.dtau_dv;
    const Eigen::MatrixXd K = data.M + h * dtau_dv + h * data.dtau_dq * J;
    const Eigen::MatrixXd G = K.partialPivLu().solve(data.M);
    EXPECT_TRUE(matricesNear(ws.newton_step, G, 1e-10)) << (damped ? "damped" : "passive");
  }
}

// An iterate accepted on the contraction's prediction solves the step's equation within the
// tolerance (its residual, evaluated here, is not above it), passive and with stiff damping
// (h kd over the smallest diagonal entry of M is about 40: M^-1 K is far from the identity);
// with the extrapolated guess and the prediction, a run needs few iterations (after the first
// three steps, passive, about one a step: 37 in 37 steps; damped, about three: 104). A step of one
// iteration is never accepted on the prediction (no contraction measured yet in the step), so the
// passive run, which mostly needs one, exercises it a few times only (4); the damped run does it
// 13 times. Every step's q1 is q0 (+) h v1.
TEST(Integrators, ImplicitEulerAcceptsAnIterateOnItsPredictedResidual) {
  ModelOptions options;
  options.floating_base = true;
  const Model model = loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), options);
  const double h = 1.0 / 240, kd = 1000.0;
  const TorqueFunction damping = [&](double, const Eigen::VectorXd&, const Eigen::VectorXd& v,
                                     Eigen::Ref<Eigen::VectorXd> tau) {
    tau = -kd * v;
    tau.head(6).setZero();
  };
  for (const bool damped : {false, true}) {
    IntegratorWorkspace ws(model);
    Data data(model);
    Eigen::VectorXd q = randomConfiguration(model, 61), v = randomVector(model.nv, 62);
    Eigen::VectorXd tau = data.zero_v;
    int estimated = 0, iterations = 0;
    for (int i = 0; i < 40; ++i) {
      const Eigen::VectorXd q0 = q, v0 = v;
      const ImplicitStepReport report =
          implicitEulerStep(model, ws, 0.0, q, v, h, damped ? damping : nullptr);
      EXPECT_EQ(q, integrate(model, q0, v, h)) << "step " << i << " " << damped;
      if (damped) damping(0.0, q, v, tau);
      const Eigen::VectorXd residual = v - v0 - h * aba(model, data, q, v, tau);
      EXPECT_LE(residual.lpNorm<Eigen::Infinity>(), 1e-12) << "step " << i << " " << damped;
      if (report.residual_estimated) ++estimated;
      if (i >= 3) iterations += report.iterations;
    }
    EXPECT_GE(estimated, damped ? 10 : 3) << damped;
    EXPECT_LE(iterations, (damped ? 3.5 : 1.25) * 37) << damped;
  }
}

// A body on a vertical prismatic joint pushed by a force of degree seven in time: its
// acceleration is that polynomial, whatever q and v, so implicit Euler's (v1 - v0) / h are samples
// of it. The guess's degree climbs by one a step while the higher degree does better, so at the
// ninth step (eight accelerations: the degree-seven polynomial through them) the first guess is
// the step's solution and no iteration is needed; before, it is not. The degree then stays at
// seven: the higher differences are round-off, not a better fit (without the margin a higher
// degree needs, it climbs into them, to nine by the tenth step). (An iterate accepted within the
// tolerance feeds its own small error to the next guesses, so the exact guesses last a few steps,
// not for ever: the test stops at the tenth.)
TEST(Integrators, ImplicitEulerGuessClimbsToThePolynomialOfTheAccelerations) {
  const Model model = slider();
  const TorqueFunction force = [](double t, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                  Eigen::Ref<Eigen::VectorXd> tau) {
    const double coefficients[8] = {1.0, 2.0, -3.0, 1.0, 5.0, -2.0, 4.0, 3.0};
    tau[0] = 0.0;
    for (int k = 7; k >= 0; --k) tau[0] = tau[0] * t + coefficients[k];
  };
  IntegratorWorkspace ws(model);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(1), v = Eigen::VectorXd::Zero(1);
  const double h = 0.05;
  for (int i = 0; i < 10; ++i) {
    const ImplicitStepReport report = implicitEulerStep(model, ws, i * h, q, v, h, force);
    if (i < 8) {
      EXPECT_GE(report.iterations, 1) << "step " << i;
    } else {
      EXPECT_EQ(report.iterations, 0) << "step " << i << ", residual " << report.residual;
    }
  }
  EXPECT_EQ(ws.implicit_degree, 7);
}

// The slider pushed by a force linear in time that jumps at t = 0.32 s: before, from the third
// step, the line through two accelerations is the step's solution; the step across the jump needs
// iterations, and every difference of the new acceleration then holds the jump, so the next guess
// falls back to the constant. The line comes back once three accelerations past the jump show it
// (the line's guess checked against the third), and is exact again from the tenth step.
TEST(Integrators, ImplicitEulerGuessFallsBackAtAJumpAndClimbsAgain) {
  const Model model = slider();
  const TorqueFunction force = [](double t, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                  Eigen::Ref<Eigen::VectorXd> tau) {
    tau[0] = 1.0 + 3.0 * t + (t > 0.32 ? 10.0 : 0.0);
  };
  IntegratorWorkspace ws(model);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(1), v = Eigen::VectorXd::Zero(1);
  const double h = 0.05;
  for (int i = 0; i < 14; ++i) {
    const ImplicitStepReport report = implicitEulerStep(model, ws, i * h, q, v, h, force);
    if ((i >= 2 && i <= 5) || i >= 9) {
      EXPECT_EQ(report.iterations, 0) << "step " << i << ", residual " << report.residual;
    } else {
      EXPECT_GE(report.iterations, 1) << "step " << i;
    }
    if (i == 6) {
      EXPECT_EQ(ws.implicit_degree, 0);
    }
  }
}

// The history extrapolates only the workspace's own steps: a v changed between two steps (a
// reset) or a new h starts it afresh, an unchanged one keeps it, up to sixteen differences.
TEST(Integrators, ImplicitEulerStartsItsGuessAfreshWhenVOrHIsChanged) {
  const Model model = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  IntegratorWorkspace ws(model);
  Eigen::VectorXd q = randomConfiguration(model, 71), v = randomVector(model.nv, 72);
  const double h = 1.0 / 240;
  for (int i = 0; i < 6; ++i) implicitEulerStep(model, ws, i * h, q, v, h);
  EXPECT_EQ(ws.implicit_history, 6);
  v = randomVector(model.nv, 73);
  implicitEulerStep(model, ws, 6 * h, q, v, h);
  EXPECT_EQ(ws.implicit_history, 1);
  implicitEulerStep(model, ws, 7 * h, q, v, h);
  EXPECT_EQ(ws.implicit_history, 2);
  for (int i = 8; i < 30; ++i) implicitEulerStep(model, ws, i * h, q, v, h);
  EXPECT_EQ(ws.implicit_history, 16);
  EXPECT_LE(ws.implicit_degree, 15);
  implicitEulerStep(model, ws, 30 * h, q, v, h / 2);
  EXPECT_EQ(ws.implicit_history, 1);
}

}  // namespace
}  // namespace gcbridge
