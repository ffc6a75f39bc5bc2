// Energy and momentum: against 1/2 v^T M v, power balance dE/dt = v^T tau along the motion, and
// momentum conservation without gravity.

#include "gcbridge/dynamics/energy.hpp"

#include <gtest/gtest.h>

#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/integrators.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::fdDerivative;
using test::matricesNear;

TEST(Energy, KineticIsHalfVTMV) {
  for (BallParametrization ball :
       {BallParametrization::Quaternion, BallParametrization::EulerXYZ}) {
    const Model model = test::randomTreeModel(71, 12, ball, true);
    Data data(model);
    const Eigen::VectorXd q = randomConfiguration(model, 1), v = randomVector(model.nv, 2);
    const double T = computeKineticEnergy(model, data, q, v);
    EXPECT_NEAR(T, 0.5 * v.dot(crba(model, data, q) * v), 1e-12 * T);
  }
}

TEST(Energy, PowerBalanceAlongTheMotion) {
  // dE/dt = v^T tau when the system moves with qdd = ABA(q, v, tau): differentiate E along
  // (q (+) v t + a t^2 / 2 in the tangent, v + a t).
  for (BallParametrization ball : {BallParametrization::ExpMap, BallParametrization::EulerXYZ}) {
    const Model model = test::randomTreeModel(72, 10, ball, false);
    Data data(model);
    const Eigen::VectorXd q = randomConfiguration(model, 3), v = randomVector(model.nv, 4);
    const Eigen::VectorXd tau = randomVector(model.nv, 5, 10.0);
    const Eigen::VectorXd a = aba(model, data, q, v, tau);
    // Light random links accelerate fast (|a| ~ 1e3), so the stencil's h^4 term needs h = 1e-4.
    const double dEdt = fdDerivative(
        [&](double t) {
          return Eigen::VectorXd::Constant(
              1, computeMechanicalEnergy(model, data, q + v * t + 0.5 * a * t * t, v + a * t));
        },
        1e-4)[0];
    EXPECT_NEAR(dEdt, v.dot(tau), 1e-9 * std::abs(v.dot(tau)))
        << "max |a| " << a.cwiseAbs().maxCoeff();
  }
}

TEST(Energy, MomentumIsConstantWithoutGravityUnderInternalTorques) {
  // A floating tree in zero gravity with torques on its internal joints only.
  Model model = test::randomTreeModel(73, 8, BallParametrization::Quaternion, true);
  model.gravity_W.setZero();
  const Eigen::VectorXd torque = randomVector(model.nv, 3, 2.0);
  const TorqueFunction internal = [&](double t, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                      Eigen::Ref<Eigen::VectorXd> tau) {
    tau = torque * std::sin(3.0 * t);
    tau.head<6>().setZero();  // nothing acts on the free root
  };
  Data data(model);
  const Eigen::VectorXd q0 = randomConfiguration(model, 1), v0 = randomVector(model.nv, 2);
  // Instantaneously: d/dt of the momentum, sum_k X_WB (I A + V x* I V), vanishes.
  Eigen::VectorXd tau(model.nv);
  internal(0.3, q0, v0, tau);
  forwardKinematics(model, data, q0, v0, aba(model, data, q0, v0, tau));
  Force rate = Force::Zero();
  for (int k = 0; k < model.numLinks(); ++k) {
    const Inertia& I = model.inertias[k];
    rate += data.X_WB[k].act(I * data.A_spatial_WB_B[k] + data.V_WB_B[k].cross(I * data.V_WB_B[k]));
  }
  EXPECT_TRUE(matricesNear(rate.vector(), Vector6::Zero(), 1e-12));
  // Over 1 s of RK4 the momentum drifts only by RK4's own error, which shrinks as h^4.
  const Vector6 h0 = computeSpatialMomentum(model, data, q0, v0).vector();
  double drift[2];
  for (int r = 0; r < 2; ++r) {
    const int steps = 1000 << r;
    IntegratorWorkspace ws(model);
    Eigen::VectorXd q = q0, v = v0;
    for (int i = 0; i < steps; ++i)
      rungeKutta4Step(model, ws, i * 1.0 / steps, q, v, 1.0 / steps, internal);
    drift[r] = (computeSpatialMomentum(model, data, q, v).vector() - h0).norm();
    // The centre of mass moves uniformly: its velocity is the momentum over the mass.
    EXPECT_TRUE(matricesNear(
        centerOfMassVelocity(model, data, q, v),
        Vector3(computeSpatialMomentum(model, data, q, v).linear() / model.totalMass()), 1e-14));
  }
  EXPECT_NEAR(std::log2(drift[0] / drift[1]), 4.0, 0.2);
}

}  // namespace
}  // namespace gcbridge
