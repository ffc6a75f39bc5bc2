// Jacobians against central finite differences of forward kinematics (differenced on the manifold
// for ball and free joints) on every shipped model and on random trees; dJ/dt v against finite
// differences of J; exp-map joints at and near the angles where their formulas switch or
// degenerate.

#include "gcbridge/dynamics/jacobians.hpp"

#include <gtest/gtest.h>

#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::fdDerivative;
using test::logRotation;
using test::matricesNear;

// Column i of the LocalWorldAligned Jacobian of frame F by finite differences:
// (d/dt log(R(t) R0^T), d/dt p_WF(t)) along q(t) = integrate(q, e_i t).
Eigen::MatrixXd fdFrameJacobian(const Model& model, const Eigen::VectorXd& q, int link,
                                const Transform& X_BF) {
  Data data(model);
  forwardKinematics(model, data, q);
  const Transform X0 = framePose(model, data, link, X_BF);
  Eigen::MatrixXd J(6, model.nv);
  for (int i = 0; i < model.nv; ++i) {
    const Eigen::VectorXd e = Eigen::VectorXd::Unit(model.nv, i);
    J.col(i) = fdDerivative([&](double t) {
      forwardKinematics(model, data, integrate(model, q, e, t));
      const Transform Xt = framePose(model, data, link, X_BF);
      Eigen::VectorXd out(6);
      out << logRotation(Xt.rotation() * X0.rotation().transpose()), Xt.translation();
      return out;
    });
  }
  return J;
}

// Checks every link's frame Jacobians (three reference frames), COM Jacobians, the stacked
// Jacobian and J v against FK velocities, at a few random configurations.
void checkJacobians(const Model& model, const std::string& label) {
  Data data(model), vel(model);
  Eigen::MatrixXd J(6, model.nv), Jw(3, model.nv), Jv(3, model.nv);
  Eigen::MatrixXd stacked(6 * model.numLinks(), model.nv);
  const Transform X_BF(rotationFromRpy(Vector3(0.3, -0.4, 0.5)), Vector3(0.05, 0.1, -0.15));
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const Eigen::VectorXd q = randomConfiguration(model, seed);
    const Eigen::VectorXd v = randomVector(model.nv, 10 + seed);
    computeJointJacobians(model, data, q);
    forwardKinematics(model, vel, q, v);
    stackedComJacobian(model, data, stacked);
    const int m = model.numLinks();
    for (int k = 0; k < m; ++k) {
      const Eigen::MatrixXd fd = fdFrameJacobian(model, q, k, X_BF);
      frameJacobian(model, data, k, X_BF, ReferenceFrame::LocalWorldAligned, J);
      EXPECT_TRUE(matricesNear(J, fd, 1e-9)) << label << " link " << k << " seed " << seed;
      // J v is the frame velocity that forward kinematics computes.
      EXPECT_TRUE(matricesNear(
          Vector6(J * v),
          frameVelocity(model, vel, k, X_BF, ReferenceFrame::LocalWorldAligned).vector(), 1e-12));
      // Local: the LocalWorldAligned rows rotated into F; World: shifted to the world origin.
      const Matrix3 R_WF = framePose(model, data, k, X_BF).rotation();
      const Vector3 p_WF = framePose(model, data, k, X_BF).translation();
      Eigen::MatrixXd J_local(6, model.nv), J_world(6, model.nv);
      frameJacobian(model, data, k, X_BF, ReferenceFrame::Local, J_local);
      frameJacobian(model, data, k, X_BF, ReferenceFrame::World, J_world);
      EXPECT_TRUE(matricesNear(J_local.topRows<3>(), R_WF.transpose() * J.topRows<3>(), 1e-12));
      EXPECT_TRUE(
          matricesNear(J_local.bottomRows<3>(), R_WF.transpose() * J.bottomRows<3>(), 1e-12));
      EXPECT_TRUE(matricesNear(J_world.bottomRows<3>(),
                               J.bottomRows<3>() + test::skewMatrix(p_WF) * J.topRows<3>(), 1e-12));
      // COM Jacobians (Liu & Jain eq. 50-58) and their place in the stacked Jacobian (Liu & Jain eq.
      // 60).
      linkComJacobian(model, data, k, Jv, Jw);
      const Eigen::MatrixXd fd_com =
          fdFrameJacobian(model, q, k, Transform(Matrix3::Identity(), model.inertias[k].com()));
      EXPECT_TRUE(matricesNear(Jw, fd_com.topRows<3>(), 1e-9)) << label << " link " << k;
      EXPECT_TRUE(matricesNear(Jv, fd_com.bottomRows<3>(), 1e-9)) << label << " link " << k;
      EXPECT_TRUE(matricesNear(stacked.middleRows(3 * k, 3), Jv, 0.0));
      EXPECT_TRUE(matricesNear(stacked.middleRows(3 * m + 3 * k, 3), Jw, 0.0));
    }
  }
}

// dJ/dt v by finite differences of J(q(t)) v along q(t) = integrate(q, v t).
void checkJdotV(const Model& model, const std::string& label) {
  Data data(model), moved(model);
  Eigen::MatrixXd J(6, model.nv);
  const Transform X_BF(rotationFromRpy(Vector3(-0.2, 0.1, 0.7)), Vector3(0.2, 0.0, 0.1));
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const Eigen::VectorXd q = randomConfiguration(model, seed);
    const Eigen::VectorXd v = randomVector(model.nv, 30 + seed);
    for (int k = 0; k < model.numLinks(); ++k) {
      for (ReferenceFrame rf :
           {ReferenceFrame::World, ReferenceFrame::LocalWorldAligned, ReferenceFrame::Local}) {
        const Eigen::VectorXd fd = fdDerivative([&](double t) {
          computeJointJacobians(model, moved, integrate(model, q, v, t));
          frameJacobian(model, moved, k, X_BF, rf, J);
          return Eigen::VectorXd(J * v);
        });
        const Motion Jdv = frameJacobianDotTimesV(model, data, q, v, k, X_BF, rf);
        EXPECT_TRUE(matricesNear(Jdv.vector(), fd, 1e-9))
            << label << " link " << k << " rf " << static_cast<int>(rf) << " seed " << seed;
      }
    }
  }
}

TEST(Jacobians, ShippedModelsMatchFiniteDifferences) {
  for (const test::ShippedModel& s : test::shippedModels()) {
    for (BallParametrization ball : {BallParametrization::Quaternion, BallParametrization::ExpMap,
                                     BallParametrization::EulerXYZ}) {
      ModelOptions o;
      o.floating_base = s.floating;
      o.ball = ball;
      const Model model = loadUrdf(test::modelPath(s.file), o);
      checkJacobians(model, std::string(s.file) + " " + toString(ball));
    }
  }
}

TEST(Jacobians, ShippedModelsJdotVMatchesFiniteDifferences) {
  for (const test::ShippedModel& s : test::shippedModels()) {
    ModelOptions o;
    o.floating_base = s.floating;
    checkJdotV(loadUrdf(test::modelPath(s.file), o), s.file);
  }
}

TEST(Jacobians, RandomTreesWithEveryJointType) {
  for (BallParametrization ball : {BallParametrization::Quaternion, BallParametrization::ExpMap,
                                   BallParametrization::EulerXYZ}) {
    for (bool floating : {false, true}) {
      const Model model = test::randomTreeModel(31, 12, ball, floating);
      checkJacobians(model, std::string("random ") + toString(ball));
      checkJdotV(model, std::string("random ") + toString(ball));
    }
  }
  for (bool floating : {false, true}) {
    const Model model = test::planarModel(32, floating);
    checkJacobians(model, "planar");
    checkJdotV(model, "planar");
  }
}

TEST(Jacobians, ExpMapJointsAtSpecialAngles) {
  // A chain of one ball joint (exp map) with an offset body; the joint's rotation vector is set to
  // angles where the formulas switch (series vs closed form) or degenerate.
  ModelBuilder b("expmap");
  b.addLink("base", 1.0, Vector3::Zero(), Matrix3::Identity());
  b.addLink("arm", 1.0, Vector3(0.3, 0.1, -0.4), Matrix3::Identity() * 0.02);
  b.addBall("ball", "base", "arm", Transform(Matrix3::Identity(), Vector3(0, 0, 0.5)));
  ModelOptions o;
  o.ball = BallParametrization::ExpMap;
  const Model model = b.build(o);
  Data data(model);
  Eigen::MatrixXd J(6, 3);
  const Vector3 axis = Vector3(0.5, -0.4, 0.77).normalized();
  const Transform X_BF(Matrix3::Identity(), Vector3(0.2, 0.3, 0.1));
  for (double theta : {0.0, 1e-9, 1e-5, 1e-3, 0.5, M_PI - 1e-3, M_PI - 1e-9}) {
    const Eigen::VectorXd q = theta * axis;
    computeJointJacobians(model, data, q);
    frameJacobian(model, data, 1, X_BF, ReferenceFrame::LocalWorldAligned, J);
    ASSERT_TRUE(J.allFinite()) << theta;
    // Finite differences in coordinates (nq == nv for the exp map: integrate adds).
    EXPECT_TRUE(matricesNear(J, fdFrameJacobian(model, q, 1, X_BF), 1e-9)) << theta;
  }
  // Continuity through zero: J at +-1e-9 along the axis agrees with J at 0.
  Eigen::MatrixXd J0(6, 3), Jp(6, 3);
  computeJointJacobians(model, data, Eigen::VectorXd(Vector3::Zero()));
  frameJacobian(model, data, 1, X_BF, ReferenceFrame::LocalWorldAligned, J0);
  computeJointJacobians(model, data, Eigen::VectorXd(1e-9 * axis));
  frameJacobian(model, data, 1, X_BF, ReferenceFrame::LocalWorldAligned, Jp);
  EXPECT_TRUE(matricesNear(J0, Jp, 1e-8));
}

TEST(Jacobians, EulerJointAtGimbalLockHasFinitePositionsAndJacobian) {
  ModelBuilder b("euler");
  b.addLink("base", 1.0, Vector3::Zero(), Matrix3::Identity());
  b.addLink("arm", 1.0, Vector3(0.3, 0.1, -0.4), Matrix3::Identity() * 0.02);
  b.addBall("wrist", "base", "arm", Transform::Identity());
  ModelOptions o;
  o.ball = BallParametrization::EulerXYZ;
  const Model model = b.build(o);
  Data data(model);
  Eigen::MatrixXd J(6, 3);
  for (double beta : {M_PI / 2, M_PI / 2 - 1e-7}) {
    const Eigen::VectorXd q = Vector3(0.2, beta, -0.3);
    computeJointJacobians(model, data, q);
    ASSERT_TRUE(data.X_WB[1].rotation().allFinite());
    frameJacobian(model, data, 1, Transform::Identity(), ReferenceFrame::LocalWorldAligned, J);
    ASSERT_TRUE(J.allFinite());
    EXPECT_TRUE(matricesNear(J, fdFrameJacobian(model, q, 1, Transform::Identity()), 1e-9));
  }
  // At gimbal lock the angular Jacobian loses rank (columns for a and c are parallel).
  computeJointJacobians(model, data, Eigen::VectorXd(Vector3(0.2, M_PI / 2, -0.3)));
  frameJacobian(model, data, 1, Transform::Identity(), ReferenceFrame::LocalWorldAligned, J);
  EXPECT_LT(Eigen::JacobiSVD<Eigen::MatrixXd>(J.topRows<3>()).singularValues()(2), 1e-12);
}

TEST(Jacobians, WrongOutputSizesRaise) {
  const Model model = test::randomTreeModel(2, 5, BallParametrization::Quaternion, false);
  Data data(model);
  computeJointJacobians(model, data, neutralConfiguration(model));
  Eigen::MatrixXd J(6, model.nv + 1);
  EXPECT_THROW(frameJacobian(model, data, 1, Transform(), ReferenceFrame::World, J),
               InvalidArgumentError);
  Eigen::MatrixXd J6(6, model.nv);
  EXPECT_THROW(frameJacobian(model, data, model.numLinks(), Transform(), ReferenceFrame::World, J6),
               InvalidArgumentError);
}

}  // namespace
}  // namespace gcbridge
