// Inverse dynamics: Lin's pendulum, the acrobot's textbook M, C, g, Liu & Jain eq. 59
// reference, the Euler-Lagrange equations by finite differences of the Lagrangian, external
// forces against Jacobian transposes, and the Coriolis matrix's skew-symmetry property.

#include "gcbridge/dynamics/rnea.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/reference_dynamics.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::fdDerivative;
using test::matricesNear;

const BallParametrization kBalls[] = {BallParametrization::Quaternion, BallParametrization::ExpMap,
                                      BallParametrization::EulerXYZ};

// Every model the dynamics tests run on: shipped ones and random trees, each parametrization.
std::vector<std::pair<std::string, Model>> allModels() {
  std::vector<std::pair<std::string, Model>> models;
  for (BallParametrization ball : kBalls) {
    for (const test::ShippedModel& s : test::shippedModels()) {
      ModelOptions o;
      o.floating_base = s.floating;
      o.ball = ball;
      models.emplace_back(std::string(s.file) + " " + toString(ball),
                          loadUrdf(test::modelPath(s.file), o));
    }
    for (bool floating : {false, true}) {
      models.emplace_back(std::string("random ") + toString(ball),
                          test::randomTreeModel(41, 12, ball, floating));
    }
  }
  for (bool floating : {false, true}) {
    models.emplace_back("planar", test::planarModel(42, floating));
  }
  return models;
}

TEST(Rnea, PendulumMatchesSeed001) {
  // Point mass m at distance l below a y hinge: tau = m l^2 qdd + m g l sin q.
  const double m = 2.5, l = 0.8, g = 9.81;
  ModelBuilder b("pendulum");
  b.addLink("pivot", 0.0, Vector3::Zero(), Matrix3::Zero());
  b.addLink("bob", m, Vector3(0, 0, -l), Matrix3::Zero());
  b.addRevolute("hinge", "pivot", "bob", Transform::Identity(), Vector3::UnitY());
  const Model model = b.build();
  Data data(model);
  for (double q : {0.0, 0.3, -1.2, 2.9}) {
    for (double qd : {0.0, 1.7}) {
      const double qdd = -0.6;
      const Eigen::VectorXd tau =
          rnea(model, data, Eigen::VectorXd::Constant(1, q), Eigen::VectorXd::Constant(1, qd),
               Eigen::VectorXd::Constant(1, qdd));
      EXPECT_NEAR(tau[0], m * l * l * qdd + m * g * l * std::sin(q), 1e-13);
    }
  }
}

TEST(Rnea, AcrobotMatchesTextbookMassCoriolisGravity) {
  // Spong's acrobot as in Tedrake's Underactuated Robotics: I1, I2 about the joints.
  const Model model = loadUrdf(test::modelPath("acrobot_drake/Acrobot.urdf"));
  Data data(model);
  const double m1 = 1, m2 = 1, l1 = 1, lc1 = 0.5, lc2 = 1, g = 9.81;
  const double I1 = 0.083 + m1 * lc1 * lc1, I2 = 0.33 + m2 * lc2 * lc2;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Eigen::VectorXd q = randomConfiguration(model, seed);
    const Eigen::VectorXd v = randomVector(2, seed + 10, 2.0);
    const double c2 = std::cos(q[1]), s1 = std::sin(q[0]), s2 = std::sin(q[1]);
    const double s12 = std::sin(q[0] + q[1]);
    Eigen::Matrix2d M;
    M << I1 + I2 + m2 * l1 * l1 + 2 * m2 * l1 * lc2 * c2, I2 + m2 * l1 * lc2 * c2,
        I2 + m2 * l1 * lc2 * c2, I2;
    Eigen::Matrix2d C;
    C << -2 * m2 * l1 * lc2 * s2 * v[1], -m2 * l1 * lc2 * s2 * v[1], m2 * l1 * lc2 * s2 * v[0], 0;
    const Eigen::Vector2d gq(m1 * g * lc1 * s1 + m2 * g * (l1 * s1 + lc2 * s12),
                             m2 * g * lc2 * s12);
    EXPECT_TRUE(matricesNear(crba(model, data, q), M, 1e-12));
    EXPECT_TRUE(matricesNear(computeGeneralizedGravity(model, data, q), gq, 1e-12));
    EXPECT_TRUE(matricesNear(computeCoriolisTimesV(model, data, q, v), C * v, 1e-12));
    EXPECT_TRUE(matricesNear(nonLinearEffects(model, data, q, v), C * v + gq, 1e-12));
  }
}

TEST(Rnea, MatchesSeed002Eq59Reference) {
  for (const auto& [label, model] : allModels()) {
    Data data(model);
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      const Eigen::VectorXd q = randomConfiguration(model, seed);
      const Eigen::VectorXd v = randomVector(model.nv, seed + 20);
      EXPECT_TRUE(matricesNear(crba(model, data, q), reference::massMatrix(model, q), 1e-11))
          << label;
      EXPECT_TRUE(matricesNear(computeCoriolisTimesV(model, data, q, v),
                               reference::coriolisTimesV(model, q, v), 1e-11))
          << label;
      EXPECT_TRUE(matricesNear(computeGeneralizedGravity(model, data, q),
                               reference::gravity(model, q), 1e-11))
          << label;
    }
  }
}

TEST(Rnea, PiecesAddUp) {
  for (const auto& [label, model] : allModels()) {
    Data data(model);
    const Eigen::VectorXd q = randomConfiguration(model, 3);
    const Eigen::VectorXd v = randomVector(model.nv, 4), a = randomVector(model.nv, 5);
    const Eigen::VectorXd g = computeGeneralizedGravity(model, data, q);
    const Eigen::VectorXd Cv = computeCoriolisTimesV(model, data, q, v);
    const Eigen::VectorXd h = nonLinearEffects(model, data, q, v);
    const Eigen::MatrixXd M = crba(model, data, q);
    EXPECT_TRUE(matricesNear(h, Cv + g, 1e-12)) << label;
    EXPECT_TRUE(matricesNear(rnea(model, data, q, v, a), M * a + h, 1e-11)) << label;
    EXPECT_TRUE(matricesNear(computeCoriolisMatrix(model, data, q, v) * v, Cv, 1e-11)) << label;
  }
}

TEST(Rnea, EulerLagrangeByFiniteDifferencesOfTheLagrangian) {
  // tau = d/dt dL/dqd - dL/dq with L = T - V, T = sum_k 1/2 V_k . I_k V_k from the link velocities
  // and V = -sum_k m_k g . p_k. Needs v = dq/dt: fixed base, exp-map or Euler balls.
  for (BallParametrization ball : {BallParametrization::ExpMap, BallParametrization::EulerXYZ}) {
    const Model model = test::randomTreeModel(43, 9, ball, false);
    Data data(model);
    auto lagrangian = [&](const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
      forwardKinematics(model, data, q, qd);
      double L = 0.0;
      for (int k = 0; k < model.numLinks(); ++k) {
        const Inertia& I = model.inertias[k];
        L += 0.5 * (I * data.V_WB_B[k]).dot(data.V_WB_B[k]);
        L += I.mass() * model.gravity_W.dot(data.p_WBcm[k]);
      }
      return L;
    };
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const Eigen::VectorXd q = randomConfiguration(model, seed);
      const Eigen::VectorXd v = randomVector(model.nv, seed + 30),
                            a = randomVector(model.nv, seed + 40);
      Eigen::VectorXd tau(model.nv);
      for (int i = 0; i < model.nv; ++i) {
        const Eigen::VectorXd e = Eigen::VectorXd::Unit(model.nv, i);
        // dL/dqd_i is linear in qd_i... T is quadratic in qd, so the stencil is exact at h = 1.
        auto dLdqd = [&](const Eigen::VectorXd& qt, const Eigen::VectorXd& qdt) {
          return fdDerivative(
              [&](double s) { return Eigen::VectorXd::Constant(1, lagrangian(qt, qdt + s * e)); },
              1.0)[0];
        };
        const double ddt = fdDerivative([&](double t) {
          return Eigen::VectorXd::Constant(1, dLdqd(q + v * t + 0.5 * a * t * t, v + a * t));
        })[0];
        const double dLdq = fdDerivative(
            [&](double s) { return Eigen::VectorXd::Constant(1, lagrangian(q + s * e, v)); })[0];
        tau[i] = ddt - dLdq;
      }
      EXPECT_TRUE(matricesNear(rnea(model, data, q, v, a), tau, 1e-9)) << toString(ball);
    }
  }
}

TEST(Rnea, ExternalForcesEnterThroughJacobianTransposes) {
  for (const auto& [label, model] : allModels()) {
    Data data(model), jac(model);
    const Eigen::VectorXd q = randomConfiguration(model, 7);
    const Eigen::VectorXd v = randomVector(model.nv, 8), a = randomVector(model.nv, 9);
    const std::vector<Force> f = test::randomForces(model, 100);
    const Eigen::VectorXd tau0 = rnea(model, data, q, v, a);
    computeJointJacobians(model, jac, q);
    Eigen::MatrixXd J(6, model.nv);
    for (ReferenceFrame rf :
         {ReferenceFrame::World, ReferenceFrame::LocalWorldAligned, ReferenceFrame::Local}) {
      Eigen::VectorXd expected = tau0;
      for (int k = 0; k < model.numLinks(); ++k) {
        frameJacobian(model, jac, k, Transform(), rf, J);
        expected -= J.transpose() * f[k].vector();
      }
      EXPECT_TRUE(matricesNear(rnea(model, data, q, v, a, ExternalForces{f, rf}), expected, 1e-11))
          << label << " rf " << static_cast<int>(rf);
    }
  }
}

TEST(Rnea, CoriolisMatrixMakesMdotMinus2CSkewSymmetric) {
  for (const auto& [label, one_model] : allModels()) {
    // A reference, not the binding: lambdas capture no structured binding before C++20.
    const Model& model = one_model;
    Data data(model);
    const Eigen::VectorXd q = randomConfiguration(model, 11);
    const Eigen::VectorXd v = randomVector(model.nv, 12);
    const Eigen::VectorXd Mdot_flat = fdDerivative([&](double t) {
      const Eigen::MatrixXd M = crba(model, data, integrate(model, q, v, t));
      return Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(M.data(), M.size()));
    });
    const Eigen::MatrixXd Mdot =
        Eigen::Map<const Eigen::MatrixXd>(Mdot_flat.data(), model.nv, model.nv);
    const Eigen::MatrixXd N = Mdot - 2 * computeCoriolisMatrix(model, data, q, v);
    EXPECT_TRUE(matricesNear(N, Eigen::MatrixXd(-N.transpose()), 1e-9)) << label;
  }
}

TEST(Rnea, BadInputRaises) {
  const Model model = test::randomTreeModel(2, 6, BallParametrization::Quaternion, true);
  Data data(model);
  const Eigen::VectorXd q = randomConfiguration(model, 1), v = randomVector(model.nv, 2);
  Eigen::VectorXd a = randomVector(model.nv, 3);
  EXPECT_THROW(rnea(model, data, q, v, Eigen::VectorXd::Zero(model.nv + 1)), InvalidArgumentError);
  a[2] = INFINITY;
  try {
    rnea(model, data, q, v, a);
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("a[2]"), std::string::npos) << e.what();
  }
  std::vector<Force> too_few(model.numLinks() - 1);
  EXPECT_THROW(rnea(model, data, q, v, v, ExternalForces{too_few, ReferenceFrame::Local}),
               InvalidArgumentError);
  std::vector<Force> nan(model.numLinks());
  nan[1].linear().x() = NAN;
  try {
    rnea(model, data, q, v, v, ExternalForces{nan, ReferenceFrame::Local});
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find(model.link_names[1]), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gcbridge
