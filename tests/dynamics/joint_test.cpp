// Joint kernels: transforms, motion subspaces, local Jacobians (Liu & Jain eq. 52-56) and the bias
// S_dot v, each against finite differences of the joint transform along the manifold.

#include "gcbridge/dynamics/joint.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::fdDerivative;
using test::logRotation;
using test::matricesNear;

struct JointCase {
  const char* label;
  JointType type;
  BallParametrization ball;
};

// A model with one moving link on the given joint, so that integrate() defines the manifold.
Model singleJointModel(const JointCase& c) {
  ModelBuilder b("single");
  b.addLink("base", 1.0, Vector3::Zero(), Matrix3::Identity());
  b.addLink("body", 1.0, Vector3(0.1, 0.2, 0.3), Matrix3::Identity());
  JointDescription j;
  j.name = "j";
  j.type = c.type;
  j.parent = "base";
  j.child = "body";
  j.X_PJ = Transform(rotationFromRpy(Vector3(0.1, 0.2, 0.3)), Vector3(0.4, 0.5, 0.6));
  j.axis = Vector3(1.0, -2.0, 0.5).normalized();
  b.addJoint(j);
  ModelOptions o;
  o.ball = c.ball;
  return b.build(o);
}

const JointCase kCases[] = {
    {"revolute", JointType::Revolute, BallParametrization::Quaternion},
    {"prismatic", JointType::Prismatic, BallParametrization::Quaternion},
    {"ball_quaternion", JointType::Ball, BallParametrization::Quaternion},
    {"ball_expmap", JointType::Ball, BallParametrization::ExpMap},
    {"ball_euler", JointType::Ball, BallParametrization::EulerXYZ},
    {"free", JointType::Free, BallParametrization::Quaternion},
    {"planar", JointType::Planar, BallParametrization::Quaternion},
};

class JointKernelTest : public ::testing::TestWithParam<JointCase> {};

// The relative twist of C in P, expressed in C: (R^T R_dot vee, R^T p_dot), by finite differences
// of X_JC along q(t) = integrate(q, v t).
Vector6 fdRelativeTwist(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  const Joint& joint = model.joints[1];
  const Transform X0 = jointTransform(joint, q.data() + joint.idx_q);
  const Eigen::VectorXd d = fdDerivative([&](double t) {
    const Eigen::VectorXd qt = integrate(model, q, v, t);
    const Transform Xt = jointTransform(joint, qt.data() + joint.idx_q);
    Eigen::VectorXd out(6);
    out << logRotation(X0.rotation().transpose() * Xt.rotation()),
        X0.rotation().transpose() * (Xt.translation() - X0.translation());
    return out;
  });
  return d;
}

TEST_P(JointKernelTest, NeutralIsIdentityAndSizesMatch) {
  const Model model = singleJointModel(GetParam());
  const Joint& joint = model.joints[1];
  EXPECT_EQ(joint.nq, jointNq(GetParam().type, GetParam().ball));
  EXPECT_EQ(joint.nv, jointNv(GetParam().type));
  const Eigen::VectorXd q = neutralConfiguration(model);
  EXPECT_TRUE(jointTransform(joint, q.data() + joint.idx_q).isApprox(Transform::Identity(), 0.0));
}

TEST_P(JointKernelTest, MotionSubspaceMatchesFiniteDifferences) {
  const Model model = singleJointModel(GetParam());
  const Joint& joint = model.joints[1];
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const Eigen::VectorXd q = randomConfiguration(model, seed);
    const Eigen::VectorXd v = randomVector(model.nv, seed + 100);
    const JointMatrix S = jointMotionSubspace(joint, q.data() + joint.idx_q);
    EXPECT_TRUE(matricesNear(Vector6(S * v.segment(joint.idx_v, joint.nv)),
                             fdRelativeTwist(model, q, v), 1e-9))
        << GetParam().label << " seed " << seed;
  }
}

TEST_P(JointKernelTest, LocalJacobianIsSRotatedIntoTheJointFrame) {
  const Model model = singleJointModel(GetParam());
  const Joint& joint = model.joints[1];
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Eigen::VectorXd q = randomConfiguration(model, seed);
    const double* qj = q.data() + joint.idx_q;
    const Matrix3 R = jointTransform(joint, qj).rotation();
    const JointMatrix S = jointMotionSubspace(joint, qj);
    JointMatrix expected(6, joint.nv);
    expected.topRows<3>() = R * S.topRows<3>();
    expected.bottomRows<3>() = R * S.bottomRows<3>();
    EXPECT_TRUE(matricesNear(jointLocalJacobian(joint, qj), expected, 1e-14));
  }
}

TEST_P(JointKernelTest, BiasIsTheDerivativeOfSAlongTheMotion) {
  const Model model = singleJointModel(GetParam());
  const Joint& joint = model.joints[1];
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const Eigen::VectorXd q = randomConfiguration(model, seed);
    const Eigen::VectorXd v = randomVector(model.nv, seed + 100);
    const Eigen::VectorXd vj = v.segment(joint.idx_v, joint.nv);
    // d/dt (S(q(t)) v) with v held fixed; for joints with S constant in C this is zero.
    const Eigen::VectorXd expected = fdDerivative([&](double t) {
      const Eigen::VectorXd qt = integrate(model, q, v, t);
      return Eigen::VectorXd(jointMotionSubspace(joint, qt.data() + joint.idx_q) * vj);
    });
    const Motion bias =
        jointBiasAcceleration(joint, q.data() + joint.idx_q, v.data() + joint.idx_v);
    EXPECT_TRUE(matricesNear(bias.vector(), expected, 1e-9))
        << GetParam().label << " seed " << seed;
  }
}

// q with the joint's quaternion (if it has one) scaled by `scale`: off unit, as a configuration
// within kQuaternionNormTolerance may be.
Eigen::VectorXd withScaledQuaternion(const Joint& joint, Eigen::VectorXd q, double scale) {
  if (joint.nq == 4) q.segment<4>(joint.idx_q) *= scale;
  if (joint.nq == 7) q.segment<4>(joint.idx_q + 3) *= scale;
  return q;
}

// The placement the algorithms use is X_PJ X_JC(q) (the kernel's transform), and a quaternion off
// unit within the tolerance is read as the normalized one, by the placement and by difference.
TEST_P(JointKernelTest, PlacementAndDifferenceReadTheNormalizedQuaternion) {
  const Model model = singleJointModel(GetParam());
  const Joint& joint = model.joints[1];
  Data data(model);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Eigen::VectorXd q0 = randomConfiguration(model, seed);
    const Eigen::VectorXd q1 = randomConfiguration(model, seed + 50);
    const Transform X_PB = joint.X_PJ * jointTransform(joint, q0.data() + joint.idx_q);
    const Eigen::VectorXd v = difference(model, q0, q1);
    for (double scale : {1.0, 1.0 + 5e-5, 1.0 - 5e-5}) {
      forwardKinematics(model, data, withScaledQuaternion(joint, q0, scale));
      EXPECT_TRUE(matricesNear(data.X_PB[1].toMatrix(), X_PB.toMatrix(), 1e-14))
          << GetParam().label << " seed " << seed << " scale " << scale;
      const Eigen::VectorXd v_scaled = difference(model, withScaledQuaternion(joint, q0, scale),
                                                  withScaledQuaternion(joint, q1, 1.0 / scale));
      EXPECT_TRUE(matricesNear(v_scaled, v, 1e-13))
          << GetParam().label << " seed " << seed << " scale " << scale;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllJoints, JointKernelTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.label); });

// Exp map near the series switch (0.5) and at the special angles of the issue: 0, 1e-9, 1e-5,
// 1e-3, near pi: no NaN, R orthonormal and equal to Eigen's angle-axis, J-hat equal to the finite
// difference of R (eq. 54: [omega] = R_dot R^T).
TEST(ExpMap, RotationAndJacobianAtSpecialAngles) {
  const Vector3 axis = Vector3(0.3, -0.5, 0.8).normalized();
  for (double theta : {0.0, 1e-9, 1e-5, 1e-3, 0.1, 0.5 - 1e-12, 0.5, 0.5 + 1e-12, 2.0, M_PI - 1e-6,
                       M_PI, M_PI + 1e-6}) {
    const Vector3 r = theta * axis;
    const Matrix3 R = expMapRotation(r);
    ASSERT_TRUE(R.allFinite()) << theta;
    EXPECT_TRUE(matricesNear(R, Eigen::AngleAxisd(theta, axis).toRotationMatrix(), 1e-15)) << theta;
    const Matrix3 J = so3LeftJacobian(r);
    ASSERT_TRUE(J.allFinite()) << theta;
    const Vector3 rdot(0.7, 0.1, -0.4);
    const Eigen::VectorXd omega = fdDerivative([&](double t) {
      return Eigen::VectorXd(logRotation(expMapRotation(r + t * rdot) * R.transpose()));
    });
    EXPECT_TRUE(matricesNear(J * rdot, omega, 1e-10)) << theta;
  }
}

TEST(ExpMap, SeriesAndClosedFormsAgreeAtTheSwitch) {
  // The coefficients switch from series to closed forms at |r| = 1 (lie_group.cpp): no jump.
  const Vector3 axis = Vector3(1, 2, 3).normalized();
  const Vector3 rd(0.3, -0.2, 0.9);
  const Vector3 below = (1.0 - 1e-14) * axis, above = 1.0 * axis;
  EXPECT_TRUE(matricesNear(so3LeftJacobian(below), so3LeftJacobian(above), 1e-13));
  Joint joint;
  joint.type = JointType::Ball;
  joint.ball = BallParametrization::ExpMap;
  joint.nq = joint.nv = 3;
  EXPECT_TRUE(matricesNear(jointBiasAcceleration(joint, below.data(), rd.data()).vector(),
                           jointBiasAcceleration(joint, above.data(), rd.data()).vector(), 1e-13));
  // At r = 0 the bias is b r_dot x (r x r_dot) + ... = 0 and S = I.
  const Vector3 zero = Vector3::Zero();
  EXPECT_TRUE(jointBiasAcceleration(joint, zero.data(), rd.data()).vector().isZero(0.0));
  EXPECT_TRUE(
      matricesNear(jointMotionSubspace(joint, zero.data()).topRows<3>(), Matrix3::Identity(), 0.0));
}

TEST(ExpMap, LogRoundTripKeepsTheAngleAtMostPi) {
  const Vector3 axis = Vector3(-0.2, 0.9, 0.4).normalized();
  for (double theta : {0.0, 1e-9, 1e-5, 1e-3, 1.0, M_PI - 1e-6, M_PI - 1e-12}) {
    const Vector3 r = rotationToExpMap(expMapRotation(theta * axis));
    EXPECT_TRUE(matricesNear(r, theta * axis, 1e-9)) << theta;
  }
  // Beyond pi the log returns the equivalent rotation with angle 2 pi - theta about -axis.
  const Vector3 r = rotationToExpMap(expMapRotation((M_PI + 0.3) * axis));
  EXPECT_NEAR(r.norm(), M_PI - 0.3, 1e-12);
  EXPECT_TRUE(matricesNear(expMapRotation(r), expMapRotation((M_PI + 0.3) * axis), 1e-14));
  // Exactly pi: angle pi, either sign of the axis.
  const Vector3 rpi = rotationToExpMap(expMapRotation(M_PI * axis));
  EXPECT_NEAR(rpi.norm(), M_PI, 1e-9);
  EXPECT_NEAR(std::abs(rpi.normalized().dot(axis)), 1.0, 1e-12);
}

TEST(ExpMap, RatesFromAngularVelocityInvertTheJacobianAndFailAtTwoPi) {
  Joint joint;
  joint.name = "shoulder";
  joint.type = JointType::Ball;
  joint.ball = BallParametrization::ExpMap;
  joint.nq = joint.nv = 3;
  const Vector3 omega(0.3, -1.0, 0.2);
  for (double theta : {0.0, 1e-9, 1e-3, 1.0, 3.0, M_PI}) {
    const Vector3 r = theta * Vector3(0, 0.6, 0.8);
    const Vector3 rd = ballVelocityFromAngularVelocity(joint, r.data(), omega);
    EXPECT_TRUE(matricesNear(so3LeftJacobian(r) * rd, omega, 1e-12)) << theta;
  }
  const Vector3 r2pi = 2 * M_PI * Vector3(0, 0.6, 0.8);
  try {
    ballVelocityFromAngularVelocity(joint, r2pi.data(), omega);
    FAIL() << "no SingularityError at 2 pi";
  } catch (const SingularityError& e) {
    EXPECT_NE(std::string(e.what()).find("shoulder"), std::string::npos) << e.what();
  }
}

TEST(EulerXYZ, RotationJacobianAndRoundTrip) {
  const Vector3 abc(0.4, -0.7, 2.1);
  const Matrix3 R = eulerXYZRotation(abc);
  EXPECT_TRUE(matricesNear(R,
                           rotationAboutAxis(Vector3::UnitX(), 0.4) *
                               rotationAboutAxis(Vector3::UnitY(), -0.7) *
                               rotationAboutAxis(Vector3::UnitZ(), 2.1),
                           1e-15));
  EXPECT_TRUE(matricesNear(rotationToEulerXYZ(R), abc, 1e-14));
  // Eq. 52 against the finite difference [omega] = R_dot R^T.
  const Vector3 rates(0.5, 1.5, -0.3);
  const Eigen::VectorXd omega = fdDerivative([&](double t) {
    return Eigen::VectorXd(logRotation(eulerXYZRotation(abc + t * rates) * R.transpose()));
  });
  EXPECT_TRUE(matricesNear(eulerXYZJacobian(abc) * rates, omega, 1e-10));
}

TEST(EulerXYZ, GimbalLockPositionsWorkRatesRaise) {
  Joint joint;
  joint.name = "wrist";
  joint.type = JointType::Ball;
  joint.ball = BallParametrization::EulerXYZ;
  joint.nq = joint.nv = 3;
  for (double b : {M_PI / 2, -M_PI / 2}) {
    const Vector3 abc(0.3, b, 0.5);
    const Matrix3 R = eulerXYZRotation(abc);
    // Positions: the angles read back reproduce the rotation (a and c are not unique there).
    const Vector3 back = rotationToEulerXYZ(R);
    ASSERT_TRUE(back.allFinite());
    EXPECT_TRUE(matricesNear(eulerXYZRotation(back), R, 1e-12));
    EXPECT_TRUE(jointTransform(joint, abc.data()).rotation().allFinite());
    // Rates from an angular velocity are undefined at gimbal lock.
    try {
      ballVelocityFromAngularVelocity(joint, abc.data(), Vector3(0.1, 0.2, 0.3));
      FAIL() << "no SingularityError at b = " << b;
    } catch (const SingularityError& e) {
      EXPECT_NE(std::string(e.what()).find("wrist"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find("gimbal lock"), std::string::npos);
    }
  }
  // Near gimbal lock the rates exist and invert J-hat.
  const Vector3 near(0.3, M_PI / 2 - 1e-6, 0.5);
  const Vector3 omega(0.1, 0.2, 0.3);
  const Vector3 rates = ballVelocityFromAngularVelocity(joint, near.data(), omega);
  EXPECT_TRUE(matricesNear(eulerXYZJacobian(near) * rates, omega, 1e-8));
}

TEST(BallQuaternion, RatesAreTheChildFrameAngularVelocity) {
  Joint joint;
  joint.type = JointType::Ball;
  joint.ball = BallParametrization::Quaternion;
  joint.nq = 4;
  joint.nv = 3;
  const Quaternion Q = Quaternion(Eigen::AngleAxisd(0.8, Vector3(1, 1, 0).normalized()));
  const double q[4] = {Q.x(), Q.y(), Q.z(), Q.w()};
  const Vector3 omega_J(0.3, -0.1, 0.7);
  EXPECT_TRUE(matricesNear(ballVelocityFromAngularVelocity(joint, q, omega_J),
                           Q.toRotationMatrix().transpose() * omega_J, 1e-15));
}

TEST(Joint, NonBallJointIsRejectedByBallVelocity) {
  Joint joint;
  joint.name = "elbow";
  joint.type = JointType::Revolute;
  joint.nq = joint.nv = 1;
  const double q = 0.0;
  EXPECT_THROW(ballVelocityFromAngularVelocity(joint, &q, Vector3::Zero()), InvalidArgumentError);
}

TEST(Joint, RotationChartsAreTheThreeCoordinateBallJointsOnly) {
  for (BallParametrization ball : {BallParametrization::Quaternion, BallParametrization::ExpMap,
                                   BallParametrization::EulerXYZ}) {
    for (JointType type : {JointType::Fixed, JointType::Revolute, JointType::Prismatic,
                           JointType::Planar, JointType::Ball, JointType::Free}) {
      Joint joint;
      joint.type = type;
      joint.ball = ball;
      EXPECT_EQ(hasRotationChart(joint),
                type == JointType::Ball && ball != BallParametrization::Quaternion)
          << toString(type) << " " << toString(ball);
    }
  }
}

TEST(Joint, NamesReadBackAndAliasesAreAccepted) {
  for (BallParametrization ball : {BallParametrization::Quaternion, BallParametrization::ExpMap,
                                   BallParametrization::EulerXYZ}) {
    EXPECT_EQ(ballParametrizationFromString(toString(ball)), ball);
  }
  EXPECT_STREQ(toString(BallParametrization::EulerXYZ), "euler_xyz");
  EXPECT_EQ(ballParametrizationFromString("euler"), BallParametrization::EulerXYZ);
  EXPECT_FALSE(ballParametrizationFromString("Euler").has_value());
  EXPECT_FALSE(ballParametrizationFromString("").has_value());
  EXPECT_EQ(jointTypeFromUrdf("continuous"), JointType::Revolute);
  EXPECT_EQ(jointTypeFromUrdf("floating"), JointType::Free);
  EXPECT_FALSE(jointTypeFromUrdf("ball").has_value());
  EXPECT_EQ(urdfJointTypeNames(),
            "revolute, continuous, prismatic, planar, fixed, floating or spherical");
  EXPECT_STREQ(toString(static_cast<JointType>(99)), "unknown");
}

}  // namespace
}  // namespace gcbridge
