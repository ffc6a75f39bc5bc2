// Forward dynamics: ABA against M^-1 (tau - h), with external forces, across ball
// parametrizations, and the free-fall of a floating tree's centre of mass.

#include "gcbridge/dynamics/aba.hpp"

#include <gtest/gtest.h>

#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;
using test::solvesMassMatrixSystem;

// A free rod 1 m long and 20 um thick whose COM is 2 m out along its axis from its frame's origin,
// the axis turned off the frame's axes, with a point-like child on a hinge: M's condition number
// is about 1e11, and the free joint's D = S^T Ia S (the whole 6 x 6 articulated inertia, inverted
// by its own LDL^T) mixes its stiff and soft directions over all six coordinates.
Model illConditionedFreeRod() {
  const double radius = 1e-5, length = 1.0, mass = 2.0;
  const double axial = 0.5 * mass * radius * radius;
  const double transverse = mass * (3.0 * radius * radius + length * length) / 12.0;
  const Matrix3 R_BA = Eigen::AngleAxisd(0.7, Vector3(1.0, -2.0, 0.5).normalized()).matrix();
  ModelBuilder builder("rod");
  builder.addLink("rod", mass, R_BA * Vector3(2.0, 0.0, 0.0),
                  R_BA * Vector3(axial, transverse, transverse).asDiagonal() * R_BA.transpose());
  builder.addLink("tip", 0.1, Vector3::Zero(), 1e-10 * Matrix3::Identity());
  builder.addFree("float", "world", "rod");
  builder.addRevolute("hinge", "rod", "tip",
                      Transform(Matrix3::Identity(), R_BA * Vector3(2.5, 0, 0)),
                      R_BA * Vector3::UnitY());
  return builder.build();
}

TEST(Aba, EqualsMassMatrixInverseTimesTauMinusBias) {
  for (BallParametrization ball : {BallParametrization::Quaternion, BallParametrization::ExpMap,
                                   BallParametrization::EulerXYZ}) {
    std::vector<std::pair<std::string, Model>> models;
    for (const test::ShippedModel& s : test::shippedModels()) {
      ModelOptions o;
      o.floating_base = s.floating;
      o.ball = ball;
      models.emplace_back(s.file, loadUrdf(test::modelPath(s.file), o));
    }
    models.emplace_back("random fixed", test::randomTreeModel(61, 15, ball, false));
    models.emplace_back("random floating", test::randomTreeModel(62, 15, ball, true));
    models.emplace_back("planar", test::planarModel(63, false));
    models.emplace_back("ill-conditioned free rod", illConditionedFreeRod());
    for (const auto& [label, model] : models) {
      Data data(model);
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const Eigen::VectorXd q = randomConfiguration(model, seed);
        const Eigen::VectorXd v = randomVector(model.nv, seed + 1),
                              tau = randomVector(model.nv, seed + 2, 10.0);
        const Eigen::MatrixXd M = crba(model, data, q);
        const Eigen::VectorXd h = nonLinearEffects(model, data, q, v);
        EXPECT_TRUE(solvesMassMatrixSystem(M, aba(model, data, q, v, tau), tau - h))
            << label << " " << toString(ball);
        // With external forces: qdd = M^-1 (tau - h + sum J^T f).
        const std::vector<Force> f = test::randomForces(model, 200);
        Eigen::VectorXd generalized = Eigen::VectorXd::Zero(model.nv);
        Data jac(model);
        computeJointJacobians(model, jac, q);
        Eigen::MatrixXd J(6, model.nv);
        for (int k = 0; k < model.numLinks(); ++k) {
          frameJacobian(model, jac, k, Transform(), ReferenceFrame::World, J);
          generalized += J.transpose() * f[k].vector();
        }
        EXPECT_TRUE(solvesMassMatrixSystem(
            M, aba(model, data, q, v, tau, ExternalForces{f, ReferenceFrame::World}),
            tau - h + generalized))
            << label << " " << toString(ball);
      }
    }
  }
}

TEST(Aba, BallParametrizationsGiveTheSamePhysicalAccelerations) {
  // The same physical state in the three parametrizations: q by converting each rotation, v by
  // mapping the child-frame angular velocity through each local Jacobian.
  ModelOptions o;
  o.floating_base = true;
  const Model mq = loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), o);
  o.ball = BallParametrization::ExpMap;
  const Model me = loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), o);
  o.ball = BallParametrization::EulerXYZ;
  const Model mu = loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), o);
  const Eigen::VectorXd q = randomConfiguration(mq, 3);
  const Eigen::VectorXd v = randomVector(mq.nv, 4), tau = randomVector(mq.nv, 5, 20.0);
  Data dq(mq);
  aba(mq, dq, q, v, tau);
  const Eigen::VectorXd qdd_q = dq.qdd;
  forwardKinematics(mq, dq, q, v, qdd_q);
  for (const Model* other : {&me, &mu}) {
    Eigen::VectorXd q2(other->nq), v2 = v, tau2 = tau;
    for (int k = 0; k < mq.numLinks(); ++k) {
      const Joint& jq = mq.joints[k];
      const Joint& j2 = other->joints[k];
      if (jq.type != JointType::Ball) {
        q2.segment(j2.idx_q, j2.nq) = q.segment(jq.idx_q, jq.nq);
        continue;
      }
      const Matrix3 R = quaternionFromCoeffs(q.data() + jq.idx_q).toRotationMatrix();
      const Vector3 abc = other->joints[k].ball == BallParametrization::ExpMap
                              ? rotationToExpMap(R)
                              : rotationToEulerXYZ(R);
      q2.segment<3>(j2.idx_q) = abc;
      const Vector3 omega_J = R * v.segment<3>(jq.idx_v);
      v2.segment<3>(j2.idx_v) = ballVelocityFromAngularVelocity(j2, abc.data(), omega_J);
      // The same physical torque: tau_C (child frame) pairs with omega_C; tau2 = S2^T tau_C.
      const JointMatrix S2 = jointMotionSubspace(j2, abc.data());
      tau2.segment<3>(j2.idx_v) = S2.topRows<3>().transpose() * tau.segment<3>(jq.idx_v);
    }
    Data d2(*other);
    const Eigen::VectorXd qdd2 = aba(*other, d2, q2, v2, tau2);
    forwardKinematics(*other, d2, q2, v2, qdd2);
    for (int k = 0; k < mq.numLinks(); ++k) {
      EXPECT_TRUE(d2.X_WB[k].isApprox(dq.X_WB[k], 1e-12));
      EXPECT_TRUE(matricesNear(d2.V_WB_B[k].vector(), dq.V_WB_B[k].vector(), 1e-12)) << k;
      EXPECT_TRUE(matricesNear(d2.A_spatial_WB_B[k].vector(), dq.A_spatial_WB_B[k].vector(), 1e-10))
          << mq.link_names[k];
    }
  }
}

TEST(Aba, FreeFloatingCentreOfMassFallsAtG) {
  for (BallParametrization ball :
       {BallParametrization::Quaternion, BallParametrization::EulerXYZ}) {
    const Model model = test::randomTreeModel(63, 14, ball, true);
    Data data(model);
    const Eigen::VectorXd q = randomConfiguration(model, 1), v = randomVector(model.nv, 2, 3.0);
    // Internal joint torques only (none on the free root).
    Eigen::VectorXd tau = randomVector(model.nv, 3, 5.0);
    tau.head<6>().setZero();
    const Eigen::VectorXd qdd = aba(model, data, q, v, tau);
    forwardKinematics(model, data, q, v, qdd);
    Vector3 acc = Vector3::Zero();
    double mass = 0.0;
    for (int k = 0; k < model.numLinks(); ++k) {
      const Motion a = frameClassicalAcceleration(
          model, data, k, Transform(Matrix3::Identity(), model.inertias[k].com()),
          ReferenceFrame::LocalWorldAligned);
      acc += model.inertias[k].mass() * a.linear();
      mass += model.inertias[k].mass();
    }
    EXPECT_TRUE(matricesNear(Vector3(acc / mass), model.gravity_W, 1e-11));
  }
}

}  // namespace
}  // namespace gcbridge
