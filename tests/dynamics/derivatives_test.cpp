// Derivatives of the RNEA and ABA against central finite differences on the configuration
// manifold, d tau / da against CRBA, the ABA's against -M^-1 times the RNEA's, with external
// forces in each frame; integrateVelocityJacobian against finite differences; bad input.

#include "gcbridge/dynamics/derivatives.hpp"

#include <gtest/gtest.h>

#include <Eigen/LU>

#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

// Every shipped model, random trees with each ball parametrization (fixed and floating), deep
// random trees (long chains with short branches), planar joints (floating and fixed), the forest
// (several roots under the world).
std::vector<std::pair<std::string, Model>> derivativeModels() {
  std::vector<std::pair<std::string, Model>> models;
  for (const test::ShippedModel& s : test::shippedModels()) {
    models.emplace_back(s.file, test::loadShipped(s));
  }
  for (BallParametrization ball : {BallParametrization::Quaternion, BallParametrization::ExpMap,
                                   BallParametrization::EulerXYZ}) {
    for (bool floating : {false, true}) {
      models.emplace_back(std::string("random ") + toString(ball) + (floating ? " floating" : ""),
                          test::randomTreeModel(floating ? 72 : 71, 12, ball, floating));
    }
  }
  for (bool floating : {false, true}) {
    models.emplace_back(
        std::string("deep random") + (floating ? " floating" : ""),
        test::randomTreeModel(floating ? 75 : 74, 24, BallParametrization::Quaternion, floating,
                              false, true));
  }
  models.emplace_back("planar", test::planarModel(73, true));
  models.emplace_back("planar fixed", test::planarModel(73, false));
  models.emplace_back("forest", test::forestModel());
  return models;
}

// The Jacobian of f at q on the manifold, column j the 5-point central difference of
// f(q (+) e e_j) (test_helpers.hpp).
Eigen::MatrixXd manifoldJacobian(const Model& model, const Eigen::VectorXd& q,
                                 const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& f) {
  Eigen::MatrixXd J(f(q).size(), model.nv);
  for (int j = 0; j < model.nv; ++j) {
    J.col(j) = test::fdDerivative(
        [&](double e) { return f(integrate(model, q, Eigen::VectorXd::Unit(model.nv, j), e)); });
  }
  return J;
}

// The Jacobian of f at x in a vector space, by the same stencil.
Eigen::MatrixXd vectorJacobian(const Eigen::VectorXd& x,
                               const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& f) {
  Eigen::MatrixXd J(f(x).size(), x.size());
  for (int j = 0; j < x.size(); ++j) {
    J.col(j) =
        test::fdDerivative([&](double e) { return f(x + e * Eigen::VectorXd::Unit(x.size(), j)); });
  }
  return J;
}

// The state the derivative tests run at: Euler angles kept off gimbal lock, velocities of order
// 1 rad/s, accelerations and torques of order 10.
struct State {
  Eigen::VectorXd q, v, a;
};
State stateFor(const Model& model, std::uint64_t seed) {
  return {test::safeConfiguration(model, seed), randomVector(model.nv, seed + 1),
          randomVector(model.nv, seed + 2, 10.0)};
}

// The stencil's error, about 1e-10 relative here (the worst, 2e-10, on the planar model), with
// room to spare; the chart joints' second derivative of S, itself a central difference, is within
// it.
constexpr double kFdTolerance = 1e-8;

TEST(RneaDerivatives, MatchFiniteDifferencesOnTheManifold) {
  for (const auto& [label, built] : derivativeModels()) {
    const Model& model = built;  // a reference the lambdas can capture (clang 14)
    Data data(model), fd_data(model);
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      const State s = stateFor(model, seed);
      rneaDerivatives(model, data, s.q, s.v, s.a);
      const Eigen::MatrixXd dq = manifoldJacobian(
          model, s.q, [&](const Eigen::VectorXd& q) { return rnea(model, fd_data, q, s.v, s.a); });
      const Eigen::MatrixXd dv = vectorJacobian(
          s.v, [&](const Eigen::VectorXd& v) { return rnea(model, fd_data, s.q, v, s.a); });
      EXPECT_TRUE(matricesNear(data.dtau_dq, dq, kFdTolerance)) << label << " seed " << seed;
      EXPECT_TRUE(matricesNear(data.dtau_dv, dv, kFdTolerance)) << label << " seed " << seed;
      EXPECT_TRUE(matricesNear(data.tau, rnea(model, fd_data, s.q, s.v, s.a), 1e-12)) << label;
      EXPECT_TRUE(matricesNear(data.M, crba(model, fd_data, s.q), 1e-12)) << label;
    }
  }
}

TEST(RneaDerivatives, WithExternalForcesInEachFrame) {
  for (const auto& [label, built] : derivativeModels()) {
    const Model& model = built;  // a reference the lambdas can capture (clang 14)
    Data data(model), fd_data(model);
    const State s = stateFor(model, 5);
    const std::vector<Force> forces = test::randomForces(model, 100, 5.0);
    for (ReferenceFrame frame :
         {ReferenceFrame::Local, ReferenceFrame::LocalWorldAligned, ReferenceFrame::World}) {
      const ExternalForces f_ext{forces, frame};
      rneaDerivatives(model, data, s.q, s.v, s.a, f_ext);
      const Eigen::MatrixXd dq = manifoldJacobian(model, s.q, [&](const Eigen::VectorXd& q) {
        return rnea(model, fd_data, q, s.v, s.a, f_ext);
      });
      const Eigen::MatrixXd dv = vectorJacobian(
          s.v, [&](const Eigen::VectorXd& v) { return rnea(model, fd_data, s.q, v, s.a, f_ext); });
      const std::string what = label + " frame " + std::to_string(static_cast<int>(frame));
      EXPECT_TRUE(matricesNear(data.dtau_dq, dq, kFdTolerance)) << what;
      EXPECT_TRUE(matricesNear(data.dtau_dv, dv, kFdTolerance)) << what;
      EXPECT_TRUE(matricesNear(data.tau, rnea(model, fd_data, s.q, s.v, s.a, f_ext), 1e-12))
          << what;
    }
  }
}

TEST(AbaDerivatives, MatchFiniteDifferencesAndMinusMinvTimesTheRneas) {
  int dense = 0, solved = 0;
  for (const auto& [label, built] : derivativeModels()) {
    const Model& model = built;  // a reference the lambdas can capture (clang 14)
    ++(abaDerivativesUseDenseProducts(model) ? dense : solved);
    Data data(model), fd_data(model), rnea_data(model);
    // The solve's scratch (3 nv^2 doubles) is made only for the route that solves.
    EXPECT_EQ(data.tmp_rhs_T.size() == 0, abaDerivativesUseDenseProducts(model)) << label;
    const State s = stateFor(model, 7);
    const Eigen::VectorXd& tau = s.a;
    abaDerivatives(model, data, s.q, s.v, tau);
    // qdd (from M's factor on the trees that are not chain-like) against the ABA's, and tau the
    // RNEA's at qdd: both within 1e-14 relative on these models, whose M have condition numbers
    // up to 2e4; 1e-11 bounds the error that conditioning allows.
    const Eigen::VectorXd qdd = aba(model, fd_data, s.q, s.v, tau);
    EXPECT_TRUE(matricesNear(data.qdd, qdd, 1e-11)) << label;
    EXPECT_TRUE(matricesNear(data.tau, tau, 1e-11)) << label;
    const Eigen::MatrixXd dq = manifoldJacobian(
        model, s.q, [&](const Eigen::VectorXd& q) { return aba(model, fd_data, q, s.v, tau); });
    const Eigen::MatrixXd dv = vectorJacobian(
        s.v, [&](const Eigen::VectorXd& v) { return aba(model, fd_data, s.q, v, tau); });
    // FD of qdd carries M^-1's conditioning (the worst, 5e-8, on a random exp-map tree).
    EXPECT_TRUE(matricesNear(data.dqdd_dq, dq, 1e-6)) << label;
    EXPECT_TRUE(matricesNear(data.dqdd_dv, dv, 1e-6)) << label;
    // Against a dense inverse of CRBA's M and the RNEA's derivatives at qdd; what abaDerivatives
    // leaves of the RNEA's (made at a = 0 and corrected, on the factor's route) equals them, d tau
    // / dq to the 1e-10 that the two qdd's difference (above) allows through d(M a)/dq.
    const Eigen::MatrixXd Minv = crba(model, rnea_data, s.q).inverse();
    rneaDerivatives(model, rnea_data, s.q, s.v, qdd);
    EXPECT_TRUE(matricesNear(data.Minv, Minv, 1e-10)) << label;
    EXPECT_TRUE(matricesNear(data.dqdd_dq, -Minv * rnea_data.dtau_dq, 1e-10)) << label;
    EXPECT_TRUE(matricesNear(data.dqdd_dv, -Minv * rnea_data.dtau_dv, 1e-10)) << label;
    EXPECT_TRUE(matricesNear(data.dtau_dq, rnea_data.dtau_dq, 1e-10)) << label;
    EXPECT_TRUE(matricesNear(data.dtau_dv, rnea_data.dtau_dv, 1e-11)) << label;
    EXPECT_TRUE(matricesNear(data.M, rnea_data.M, 1e-12)) << label;
  }
  // Both ways of applying M^-1 are exercised.
  EXPECT_GT(dense, 2);
  EXPECT_GT(solved, 2);
}

// The humanoid takes qdd from M's factor, the deep floating tree from the ABA
// (abaDerivativesUseDenseProducts).
TEST(AbaDerivatives, WithExternalForces) {
  const std::vector<std::pair<std::string, Model>> models = {
      {"humanoid", test::loadShipped({"humanoid_deepmimic/humanoid.urdf", true})},
      {"deep random floating",
       test::randomTreeModel(75, 24, BallParametrization::Quaternion, true, false, true)}};
  EXPECT_FALSE(abaDerivativesUseDenseProducts(models[0].second));
  EXPECT_TRUE(abaDerivativesUseDenseProducts(models[1].second));
  for (const auto& [label, built] : models) {
    const Model& model = built;  // a reference the lambdas can capture (clang 14)
    Data data(model), fd_data(model), rnea_data(model);
    const State s = stateFor(model, 9);
    const std::vector<Force> forces = test::randomForces(model, 200, 20.0);
    for (ReferenceFrame frame :
         {ReferenceFrame::Local, ReferenceFrame::World, ReferenceFrame::LocalWorldAligned}) {
      const std::string what = label + " frame " + std::to_string(static_cast<int>(frame));
      const ExternalForces f_ext{forces, frame};
      abaDerivatives(model, data, s.q, s.v, s.a, f_ext);
      // qdd as the ABA's with the forces; M d qdd = -d tau with the RNEA's at qdd, checked by
      // its residual (M's condition number, 2e4 on the deep tree, would scale a comparison with
      // a dense inverse).
      const Eigen::VectorXd qdd = aba(model, fd_data, s.q, s.v, s.a, f_ext);
      EXPECT_TRUE(matricesNear(data.qdd, qdd, 1e-11)) << what;
      rneaDerivatives(model, rnea_data, s.q, s.v, qdd, f_ext);
      const Eigen::MatrixXd& M = rnea_data.M;
      EXPECT_TRUE(matricesNear(M * data.dqdd_dq, -rnea_data.dtau_dq, 1e-10)) << what;
      EXPECT_TRUE(matricesNear(M * data.dqdd_dv, -rnea_data.dtau_dv, 1e-10)) << what;
      if (frame != ReferenceFrame::World) continue;
      const Eigen::MatrixXd dq = manifoldJacobian(model, s.q, [&](const Eigen::VectorXd& q) {
        return aba(model, fd_data, q, s.v, s.a, f_ext);
      });
      EXPECT_TRUE(matricesNear(data.dqdd_dq, dq, 1e-6)) << what;
    }
  }
}

TEST(IntegrateVelocityJacobian, MatchesFiniteDifferencesInTheResultsTangentSpace) {
  for (const auto& [label, built] : derivativeModels()) {
    const Model& model = built;  // a reference the lambdas can capture (clang 14)
    const Eigen::VectorXd q = test::safeConfiguration(model, 11);
    const Eigen::VectorXd v = randomVector(model.nv, 12, 3.0);
    const double dt = 0.1;
    Eigen::MatrixXd J(model.nv, model.nv);
    integrateVelocityJacobian(model, v, dt, J);
    const Eigen::VectorXd q1 = integrate(model, q, v, dt);
    const Eigen::MatrixXd fd = vectorJacobian(v, [&](const Eigen::VectorXd& w) {
      return difference(model, q1, integrate(model, q, w, dt));
    });
    EXPECT_TRUE(matricesNear(J, fd, 1e-9)) << label;
  }
}

// tau may be one of data's own vectors that abaDerivatives fills.
TEST(AbaDerivatives, TauMayBeDatasOwnVector) {
  const Model model = test::loadShipped({"humanoid_deepmimic/humanoid.urdf", true});
  Data data(model), aliased(model);
  const State s = stateFor(model, 11);
  abaDerivatives(model, data, s.q, s.v, s.a);
  for (Eigen::VectorXd Data::*member : {&Data::tau, &Data::qdd}) {
    aliased.*member = s.a;
    abaDerivatives(model, aliased, s.q, s.v, aliased.*member);
    EXPECT_EQ(aliased.qdd, data.qdd);
    EXPECT_EQ(aliased.dqdd_dq, data.dqdd_dq);
  }
}

TEST(Derivatives, BadInputIsRefusedAndChangesNothing) {
  const Model model = test::loadShipped({"kuka_iiwa/model.urdf", false});
  Data data(model);
  const State s = stateFor(model, 13);
  rneaDerivatives(model, data, s.q, s.v, s.a);
  const Eigen::MatrixXd dq = data.dtau_dq;
  Eigen::VectorXd bad_v = s.v;
  bad_v[3] = std::nan("");
  EXPECT_THROW(rneaDerivatives(model, data, s.q, bad_v, s.a), InvalidArgumentError);
  EXPECT_THROW(abaDerivatives(model, data, s.q, s.v, Eigen::VectorXd(3)), InvalidArgumentError);
  EXPECT_THROW(rneaDerivatives(model, data, Eigen::VectorXd(2), s.v, s.a), InvalidArgumentError);
  EXPECT_EQ(data.dtau_dq, dq);
  const Model other = test::loadShipped({"pendulum5/pendulum5.urdf", false});
  EXPECT_THROW(rneaDerivatives(other, data, neutralConfiguration(other), Eigen::VectorXd::Zero(5),
                               Eigen::VectorXd::Zero(5)),
               InvalidArgumentError);
  Eigen::MatrixXd J(model.nv, model.nv);
  EXPECT_THROW(integrateVelocityJacobian(model, bad_v, 0.1, J), InvalidArgumentError);
}

}  // namespace
}  // namespace gcbridge
