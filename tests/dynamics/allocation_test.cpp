// The per-call path of the dynamics allocates nothing (counting_malloc.hpp).

#include <gtest/gtest.h>

#include "counting_malloc.hpp"
#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/centroidal.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/derivatives.hpp"
#include "gcbridge/dynamics/energy.hpp"
#include "gcbridge/dynamics/integrators.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/rnea.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::allocationsOf;

TEST(Allocation, KinematicsAndJacobiansAllocateNothing) {
  ModelOptions o;
  o.floating_base = true;
  for (BallParametrization ball : {BallParametrization::Quaternion, BallParametrization::ExpMap,
                                   BallParametrization::EulerXYZ}) {
    o.ball = ball;
    const Model model = loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), o);
    Data data(model);
    const Eigen::VectorXd q = randomConfiguration(model, 1);
    const Eigen::VectorXd v = randomVector(model.nv, 2), a = randomVector(model.nv, 3);
    Eigen::VectorXd q_out(model.nq);
    Eigen::MatrixXd J(6, model.nv), Jv(3, model.nv), Jw(3, model.nv);
    Eigen::MatrixXd stacked(6 * model.numLinks(), model.nv);
    const int tip = model.numLinks() - 1;
    const Transform X_BF(Matrix3::Identity(), Vector3(0.1, 0, 0));
    // Sanity: the counter sees allocations at all.
    EXPECT_GT(allocationsOf([&] {
                Eigen::VectorXd tmp(100);
                tmp.setZero();
              }),
              0);
    EXPECT_EQ(allocationsOf([&] { forwardKinematics(model, data, q); }), 0);
    EXPECT_EQ(allocationsOf([&] { forwardKinematics(model, data, q, v); }), 0);
    EXPECT_EQ(allocationsOf([&] { forwardKinematics(model, data, q, v, a); }), 0);
    EXPECT_EQ(allocationsOf([&] { computeJointJacobians(model, data, q); }), 0);
    EXPECT_EQ(allocationsOf([&] {
                frameJacobian(model, data, tip, X_BF, ReferenceFrame::LocalWorldAligned, J);
              }),
              0);
    EXPECT_EQ(allocationsOf([&] { linkComJacobian(model, data, tip, Jv, Jw); }), 0);
    EXPECT_EQ(allocationsOf([&] { stackedComJacobian(model, data, stacked); }), 0);
    EXPECT_EQ(allocationsOf([&] {
                frameJacobianDotTimesV(model, data, q, v, tip, X_BF, ReferenceFrame::Local);
              }),
              0);
    EXPECT_EQ(allocationsOf([&] { integrate(model, q, v, 0.01, q_out); }), 0);
  }
}

// A chain of 160 revolute links takes abaDerivatives' dense products, whose matrices (200 KB
// each) are larger than Eigen keeps on the stack.
TEST(Allocation, DerivativesOfALongChainAllocateNothing) {
  ModelBuilder builder("chain160");
  for (int k = 0; k < 160; ++k) {
    const std::string link = "link" + std::to_string(k);
    builder.addLink(link, 1.0, Vector3(0.0, 0.0, 0.1), Matrix3::Identity() * 1e-3);
    builder.addRevolute("joint" + std::to_string(k),
                        k == 0 ? "world" : "link" + std::to_string(k - 1), link,
                        Transform(Matrix3::Identity(), Vector3(0.0, 0.0, k == 0 ? 0.0 : 0.2)),
                        k % 2 == 0 ? Vector3::UnitX() : Vector3::UnitY());
  }
  const Model model = builder.build();
  ASSERT_TRUE(abaDerivativesUseDenseProducts(model));
  Data data(model);
  const Eigen::VectorXd q = randomConfiguration(model, 1);
  const Eigen::VectorXd v = randomVector(model.nv, 2), tau = randomVector(model.nv, 3);
  EXPECT_EQ(allocationsOf([&] { abaDerivatives(model, data, q, v, tau); }), 0);
}

TEST(Allocation, DynamicsAndIntegratorsAllocateNothing) {
  ModelOptions o;
  o.floating_base = true;
  for (BallParametrization ball : {BallParametrization::Quaternion, BallParametrization::ExpMap}) {
    o.ball = ball;
    const Model model = loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), o);
    Data data(model);
    const Eigen::VectorXd q = randomConfiguration(model, 1);
    const Eigen::VectorXd v = randomVector(model.nv, 2), a = randomVector(model.nv, 3);
    std::vector<Force> f(model.numLinks(), Force(Vector6::Ones()));
    const ExternalForces f_ext{f, ReferenceFrame::World};
    Eigen::VectorXd x = a;
    EXPECT_EQ(allocationsOf([&] { rnea(model, data, q, v, a); }), 0);
    EXPECT_EQ(allocationsOf([&] { rnea(model, data, q, v, a, f_ext); }), 0);
    EXPECT_EQ(allocationsOf([&] { computeGeneralizedGravity(model, data, q); }), 0);
    EXPECT_EQ(allocationsOf([&] { nonLinearEffects(model, data, q, v); }), 0);
    EXPECT_EQ(allocationsOf([&] { computeCoriolisTimesV(model, data, q, v); }), 0);
    EXPECT_EQ(allocationsOf([&] { computeCoriolisMatrix(model, data, q, v); }), 0);
    EXPECT_EQ(allocationsOf([&] { crba(model, data, q); }), 0);
    EXPECT_EQ(allocationsOf([&] { factorizeMassMatrix(model, data); }), 0);
    EXPECT_EQ(allocationsOf([&] { solveMassMatrix(model, data, x); }), 0);
    EXPECT_EQ(allocationsOf([&] { computeMassMatrixInverse(model, data); }), 0);
    EXPECT_EQ(allocationsOf([&] { aba(model, data, q, v, a); }), 0);
    EXPECT_EQ(allocationsOf([&] { aba(model, data, q, v, a, f_ext); }), 0);
    EXPECT_EQ(allocationsOf([&] { rneaDerivatives(model, data, q, v, a); }), 0);
    EXPECT_EQ(allocationsOf([&] { rneaDerivatives(model, data, q, v, a, f_ext); }), 0);
    EXPECT_EQ(allocationsOf([&] { abaDerivatives(model, data, q, v, a); }), 0);
    EXPECT_EQ(allocationsOf([&] { abaDerivatives(model, data, q, v, a, f_ext); }), 0);
    EXPECT_EQ(allocationsOf([&] { computeMechanicalEnergy(model, data, q, v); }), 0);
    EXPECT_EQ(allocationsOf([&] { computeSpatialMomentum(model, data, q, v); }), 0);
    Eigen::MatrixXd A_G(6, model.nv), J_G(3, model.nv);
    EXPECT_EQ(allocationsOf([&] { centroidalMomentumMatrix(model, data, q, A_G); }), 0);
    EXPECT_EQ(allocationsOf([&] { centroidalMomentumTimeVariation(model, data, q, v); }), 0);
    EXPECT_EQ(allocationsOf([&] { centerOfMassJacobian(model, data, q, J_G); }), 0);
    // Integrators, without a torque callback (a std::function the caller owns).
    IntegratorWorkspace ws(model);
    Eigen::VectorXd qs = q, vs = v;
    EXPECT_EQ(allocationsOf([&] { semiImplicitEulerStep(model, ws, 0.0, qs, vs, 1e-3); }), 0);
    EXPECT_EQ(allocationsOf([&] { rungeKutta4Step(model, ws, 0.0, qs, vs, 1e-3); }), 0);
    implicitEulerStep(model, ws, 0.0, qs, vs, 1e-3);  // the first factorization sizes the LU
    EXPECT_EQ(allocationsOf([&] { implicitEulerStep(model, ws, 0.0, qs, vs, 1e-3); }), 0);
    // A new step length makes a new Newton matrix.
    EXPECT_EQ(allocationsOf([&] { implicitEulerStep(model, ws, 0.0, qs, vs, 2e-3); }), 0);
  }
}

}  // namespace
}  // namespace gcbridge
