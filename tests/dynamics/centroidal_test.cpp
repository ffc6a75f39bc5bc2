// Centroidal dynamics: the momentum A_G v against the links' momenta summed and moved to the
// centre of mass, the linear rows against the links' centre-of-mass Jacobians, (dA_G/dt) v
// against a finite difference along the motion, and the momentum's rate against the external
// wrench (zero without gravity for a floating body under internal torques, the weight on a
// falling one).

#include "gcbridge/dynamics/centroidal.hpp"

#include <gtest/gtest.h>

#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/energy.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/rnea.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

// Random trees of every joint type and parametrization, fixed and floating, and the shipped
// humanoid.
std::vector<Model> models() {
  std::vector<Model> result;
  std::uint64_t seed = 80;
  for (BallParametrization ball : {BallParametrization::Quaternion, BallParametrization::ExpMap,
                                   BallParametrization::EulerXYZ}) {
    for (bool floating : {false, true}) {
      result.push_back(test::randomTreeModel(++seed, 12, ball, floating));
    }
  }
  result.push_back(test::planarMechanismModel(true));
  ModelOptions options;
  options.floating_base = true;
  result.push_back(loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), options));
  return result;
}

// The momentum about the world origin moved to the point p: (n - p x f, f).
Vector6 aboutPoint(const Force& h_O, const Vector3& p) {
  Vector6 h;
  h << h_O.angular() - p.cross(h_O.linear()), h_O.linear();
  return h;
}

// A_G v is the links' momentum summed (computeSpatialMomentum) and moved to the COM; its linear
// rows are the total mass times the COM Jacobian, sum_k m_k J_k / m from the links' Jacobians.
TEST(Centroidal, MomentumMatrixGivesTheMomentumAboutTheCentreOfMass) {
  for (const Model& model : models()) {
    Data data(model);
    const Eigen::VectorXd q = randomConfiguration(model, 1), v = randomVector(model.nv, 2, 2.0);
    Eigen::MatrixXd A_G(6, model.nv);
    centroidalMomentumMatrix(model, data, q, A_G);
    const Force h_O = computeSpatialMomentum(model, data, q, v);
    const Vector3 p_WG = centerOfMass(model, data);
    const Vector6 h_G = aboutPoint(h_O, p_WG);
    EXPECT_TRUE(matricesNear(A_G * v, h_G, 1e-12 * std::max(1.0, h_G.norm()))) << model.name;
    computeJointJacobians(model, data, q);
    Eigen::MatrixXd J_sum = Eigen::MatrixXd::Zero(3, model.nv), Jv(3, model.nv), Jw(3, model.nv);
    for (int k = 0; k < model.numLinks(); ++k) {
      linkComJacobian(model, data, k, Jv, Jw);
      J_sum += model.inertias[k].mass() * Jv;
    }
    const double mass = model.totalMass();
    EXPECT_TRUE(matricesNear(A_G.bottomRows<3>(), J_sum, 1e-12 * mass)) << model.name;
    Eigen::MatrixXd J_G(3, model.nv);
    centerOfMassJacobian(model, data, q, J_G);
    EXPECT_TRUE(matricesNear(J_G * mass, J_sum, 1e-12 * mass)) << model.name;
    EXPECT_TRUE(matricesNear(J_G * v, centerOfMassVelocity(model, data, q, v), 1e-12))
        << model.name;
  }
}

// (dA_G/dt) v = d/dt (A_G(q(t))) v along q(t) = q (+) t v, by a fourth-order central difference
// (h = 1e-4: its error h^4 |d^5 A/dt^5| stays below 1e-9 relative on these models).
TEST(Centroidal, TimeVariationIsTheDerivativeAlongTheMotion) {
  for (const Model& model : models()) {
    Data data(model);
    const Eigen::VectorXd q = randomConfiguration(model, 3), v = randomVector(model.nv, 4, 1.0);
    Eigen::MatrixXd A(6, model.nv);
    const Eigen::VectorXd fd = test::fdDerivative(
        [&](double t) -> Eigen::VectorXd {
          centroidalMomentumMatrix(model, data, integrate(model, q, v, t), A);
          return A * v;
        },
        1e-4);
    const Vector6 dA_v = centroidalMomentumTimeVariation(model, data, q, v).vector();
    EXPECT_TRUE(matricesNear(dA_v, fd, 1e-8 * std::max(1.0, fd.norm()))) << model.name << "\n"
                                                                         << dA_v.transpose() << "\n"
                                                                         << fd.transpose();
  }
}

// The overloads that read a pass already run give what the ones that run it give, bit for bit:
// A_G after computeJointJacobians(q), (dA_G/dt) v after forwardKinematics(q, v, 0).
TEST(Centroidal, TermsFromAPassAlreadyRun) {
  for (const Model& model : models()) {
    Data data(model), fresh(model);
    const Eigen::VectorXd q = randomConfiguration(model, 5), v = randomVector(model.nv, 6, 1.0);
    Eigen::MatrixXd A(6, model.nv), A_pass(6, model.nv);
    centroidalMomentumMatrix(model, fresh, q, A);
    const Force rate = centroidalMomentumTimeVariation(model, fresh, q, v);
    computeJointJacobians(model, data, q);
    centroidalMomentumMatrix(model, data, A_pass);
    EXPECT_EQ(A_pass, A) << model.name;
    forwardKinematics(model, data, q, v, data.zero_v);
    EXPECT_EQ(centroidalMomentumTimeVariation(model, data).vector(), rate.vector()) << model.name;
    EXPECT_THROW(centroidalMomentumMatrix(model, data, A_pass.topRows(3)), InvalidArgumentError);
  }
}

// From the root rows of M and h (a free root): the same A_G and (dA_G/dt) v as the composite
// inertias and the links' rates give, to round-off; refused without a free root.
TEST(Centroidal, TermsFromTheRootRowsOfMAndH) {
  int free_roots = 0;
  for (const Model& model : models()) {
    Data data(model);
    const Eigen::VectorXd q = randomConfiguration(model, 7), v = randomVector(model.nv, 8, 1.0);
    Eigen::MatrixXd A(6, model.nv), A_rows(6, model.nv);
    centroidalMomentumMatrix(model, data, q, A);
    const Force rate = centroidalMomentumTimeVariation(model, data, q, v);
    const Eigen::MatrixXd M = crba(model, data, q);
    const Eigen::VectorXd h = nonLinearEffects(model, data, q, v);
    forwardKinematics(model, data, q);
    if (model.joints[0].type != JointType::Free) {
      EXPECT_THROW(centroidalTermsFromRootRows(model, data, M, h, A_rows), InvalidArgumentError)
          << model.name;
      continue;
    }
    ++free_roots;
    const Force rate_rows = centroidalTermsFromRootRows(model, data, M, h, A_rows);
    // Two summation orders of the same sums: a few hundred eps relative (they differ by ~3e-16).
    EXPECT_TRUE(matricesNear(A_rows, A, 1e-14 * A.norm())) << model.name;
    const double scale = rate.vector().norm() + model.totalMass() * model.gravity_W.norm();
    EXPECT_TRUE(matricesNear(rate_rows.vector(), rate.vector(), 1e-14 * scale)) << model.name;
    EXPECT_THROW(centroidalTermsFromRootRows(model, data, M.topRows(6), h, A_rows),
                 InvalidArgumentError);
  }
  EXPECT_GE(free_roots, 4);
}

// The momentum's rate A_G a + (dA_G/dt) v is the external wrench about the COM: zero for a
// floating body in zero gravity under internal torques (a from ABA), m g (and no moment about
// the COM) for a floating body falling freely.
TEST(Centroidal, MomentumRateIsTheExternalWrench) {
  for (bool gravity : {false, true}) {
    Model model = test::randomTreeModel(90, 10, BallParametrization::Quaternion, true);
    if (!gravity) model.gravity_W.setZero();
    Data data(model);
    const Eigen::VectorXd q = randomConfiguration(model, 5), v = randomVector(model.nv, 6, 2.0);
    Eigen::VectorXd tau =
        gravity ? Eigen::VectorXd::Zero(model.nv) : randomVector(model.nv, 7, 5.0);
    tau.head<6>().setZero();
    const Eigen::VectorXd a = aba(model, data, q, v, tau);
    Eigen::MatrixXd A_G(6, model.nv);
    centroidalMomentumMatrix(model, data, q, A_G);
    const Vector6 rate = A_G * a + centroidalMomentumTimeVariation(model, data, q, v).vector();
    Vector6 expected;
    expected << Vector3::Zero(), model.totalMass() * model.gravity_W;
    EXPECT_TRUE(matricesNear(rate, expected, 1e-10 * std::max(1.0, (A_G * a).norm())))
        << (gravity ? "falling" : "zero gravity") << ": " << rate.transpose();
  }
}

TEST(Centroidal, RefusesWrongSizesAndMasslessModels) {
  const Model model = test::randomTreeModel(91, 4, BallParametrization::Quaternion, false);
  Data data(model);
  const Eigen::VectorXd q = randomConfiguration(model, 1);
  Eigen::MatrixXd wrong(6, model.nv + 1), J(2, model.nv);
  EXPECT_THROW(centroidalMomentumMatrix(model, data, q, wrong), InvalidArgumentError);
  EXPECT_THROW(centerOfMassJacobian(model, data, q, J), InvalidArgumentError);
  // A massless frame welded to the world: no dof, no mass (a moving massless link is refused by
  // the model builder already).
  ModelBuilder builder("massless");
  builder.addLink("a", 0.0, Vector3::Zero(), Matrix3::Zero());
  builder.addFixed("j", "world", "a", Transform());
  const Model massless = builder.build();
  Data massless_data(massless);
  Eigen::MatrixXd A(6, 0);
  try {
    centroidalMomentumMatrix(massless, massless_data, Eigen::VectorXd::Zero(0), A);
    ADD_FAILURE() << "no InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("'massless' has no mass"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gcbridge
