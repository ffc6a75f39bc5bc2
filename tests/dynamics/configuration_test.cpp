// Configuration helpers: validation, neutral/random configurations, integrate and difference.

#include "gcbridge/dynamics/configuration.hpp"

#include <gtest/gtest.h>

#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

const BallParametrization kBalls[] = {BallParametrization::Quaternion, BallParametrization::ExpMap,
                                      BallParametrization::EulerXYZ};

// Rotations of the quaternion joints agree (q and -q are the same rotation); all else equal.
::testing::AssertionResult sameConfiguration(const Model& model, const Eigen::VectorXd& a,
                                             const Eigen::VectorXd& b, double tol) {
  Data da(model), db(model);
  forwardKinematics(model, da, a);
  forwardKinematics(model, db, b);
  for (int k = 0; k < model.numLinks(); ++k) {
    if (!da.X_PB[k].isApprox(db.X_PB[k], tol)) {
      return ::testing::AssertionFailure() << "joint '" << model.joints[k].name << "' differs";
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(Configuration, NeutralHasIdentityQuaternions) {
  const Model model = test::randomTreeModel(1, 6, BallParametrization::Quaternion, true);
  const Eigen::VectorXd q = neutralConfiguration(model);
  ASSERT_EQ(q.size(), model.nq);
  Data data(model);
  forwardKinematics(model, data, q);
  for (int k = 0; k < model.numLinks(); ++k) {
    EXPECT_TRUE(data.X_PB[k].isApprox(model.joints[k].X_PJ, 0.0));
  }
}

TEST(Configuration, RandomIsSeededValidAndWithinLimits) {
  ModelBuilder b("limited");
  b.addLink("a", 1.0, Vector3::Zero(), Matrix3::Identity());
  b.addLink("b", 1.0, Vector3::Zero(), Matrix3::Identity());
  JointLimits l;
  l.lower = 0.2;
  l.upper = 0.3;
  b.addRevolute("ab", "a", "b", {}, Vector3::UnitZ(), l);
  const Model limited = b.build();
  for (std::uint64_t s = 0; s < 50; ++s) {
    const double q = randomConfiguration(limited, s)[0];
    EXPECT_GE(q, 0.2);
    EXPECT_LE(q, 0.3);
  }
  for (BallParametrization ball : kBalls) {
    const Model model = test::randomTreeModel(2, 9, ball, true);
    const Eigen::VectorXd q1 = randomConfiguration(model, 5), q2 = randomConfiguration(model, 5);
    EXPECT_EQ(q1, q2);
    EXPECT_NE(q1, randomConfiguration(model, 6));
    EXPECT_NO_THROW(validateConfiguration(model, q1));
  }
}

TEST(Configuration, DifferenceInvertsIntegrate) {
  for (BallParametrization ball : kBalls) {
    const Model model = test::randomTreeModel(4, 12, ball, true);
    for (std::uint64_t s = 1; s <= 10; ++s) {
      const Eigen::VectorXd q0 = randomConfiguration(model, s);
      // Angles below pi so that the shortest-rotation log gives v back.
      const Eigen::VectorXd v = randomVector(model.nv, 100 + s, 1.0);
      const Eigen::VectorXd q1 = integrate(model, q0, v, 0.7);
      EXPECT_TRUE(matricesNear(difference(model, q0, q1), 0.7 * v, 1e-12));
      // And integrate(q0, difference(q0, q1)) reaches q1 for any pair.
      const Eigen::VectorXd q2 = randomConfiguration(model, 1000 + s);
      EXPECT_TRUE(sameConfiguration(model, integrate(model, q0, difference(model, q0, q2), 1.0), q2,
                                    1e-12));
    }
  }
}

TEST(Configuration, IntegrateKeepsQuaternionsUnit) {
  const Model model = test::randomTreeModel(5, 10, BallParametrization::Quaternion, true);
  Eigen::VectorXd q = randomConfiguration(model, 1);
  const Eigen::VectorXd v = randomVector(model.nv, 2, 5.0);
  for (int i = 0; i < 10000; ++i) integrate(model, q, v, 1e-3, q);
  for (const Joint& j : model.joints) {
    if (j.type == JointType::Ball || j.type == JointType::Free) {
      const int offset = j.type == JointType::Free ? 3 : 0;
      EXPECT_NEAR(q.segment<4>(j.idx_q + offset).norm(), 1.0, 1e-15) << j.name;
    }
  }
}

TEST(Configuration, IntegrateOfAFreeJointFollowsItsBodyVelocity) {
  // Constant body-frame velocity (omega = 0): the position moves along R v.
  ModelBuilder b("box");
  b.addLink("box", 1.0, Vector3::Zero(), Matrix3::Identity());
  ModelOptions o;
  o.floating_base = true;
  const Model model = b.build(o);
  Eigen::VectorXd q(7);
  const Quaternion Q(Eigen::AngleAxisd(M_PI / 2, Vector3::UnitZ()));
  q << 1, 2, 3, Q.x(), Q.y(), Q.z(), Q.w();
  Eigen::VectorXd v(6);
  v << 0, 0, 0, 1, 0, 0;
  const Eigen::VectorXd q1 = integrate(model, q, v, 2.0);
  EXPECT_TRUE(matricesNear(q1.head<3>(), Vector3(1, 4, 3), 1e-15));
}

TEST(Configuration, BadInputRaisesAndUnnormalizedQuaternionsAreNormalizedInternally) {
  const Model model = test::randomTreeModel(6, 6, BallParametrization::Quaternion, true);
  Data data(model);
  const Eigen::VectorXd q = randomConfiguration(model, 3);
  auto expectMessage = [&](const Eigen::VectorXd& bad, const std::string& needle) {
    try {
      forwardKinematics(model, data, bad);
      ADD_FAILURE() << "no exception for " << needle;
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expectMessage(Eigen::VectorXd::Zero(model.nq + 1), "size");
  Eigen::VectorXd nan = q;
  nan[model.joints[1].idx_q] = NAN;
  expectMessage(nan, "'" + model.joints[1].name + "'");
  Eigen::VectorXd zero_quat = q;
  zero_quat.segment<4>(3).setZero();
  expectMessage(zero_quat, "root_joint");
  Eigen::VectorXd far = q;
  far.segment<4>(3) *= 2.0;
  expectMessage(far, "not a unit quaternion");
  EXPECT_THROW(forwardKinematics(model, data, q, Eigen::VectorXd::Zero(model.nv - 1)),
               InvalidArgumentError);

  // Slightly off-unit quaternions: normalized internally, the caller's vector untouched.
  forwardKinematics(model, data, q);
  const Transform X_exact = data.X_WB.back();
  Eigen::VectorXd off = q;
  off.segment<4>(3) *= 1.0 + 5e-5;
  const Eigen::VectorXd off_copy = off;
  forwardKinematics(model, data, off);
  EXPECT_TRUE(data.X_WB.back().isApprox(X_exact, 1e-14));
  EXPECT_EQ(off, off_copy);
}

// Every quaternion is checked, the root's and each quaternion ball joint's, and only those: a
// far-from-unit quaternion anywhere is refused naming its joint and slice.
TEST(Configuration, EveryQuaternionIsChecked) {
  const Model model = test::randomTreeModel(7, 9, BallParametrization::Quaternion, true);
  const Eigen::VectorXd q = randomConfiguration(model, 4);
  EXPECT_NO_THROW(validateConfiguration(model, q));
  int quaternions = 0;
  for (const Joint& joint : model.joints) {
    const bool free = joint.type == JointType::Free;
    if (!free && joint.type != JointType::Ball) continue;
    ++quaternions;
    const int first = joint.idx_q + (free ? 3 : 0);
    Eigen::VectorXd far = q;
    far.segment<4>(first) *= 1.01;
    try {
      validateConfiguration(model, far);
      ADD_FAILURE() << "joint '" << joint.name << "': a quaternion of norm 1.01 passed";
    } catch (const InvalidArgumentError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("joint '" + joint.name + "'"), std::string::npos) << message;
      EXPECT_NE(message.find("q[" + std::to_string(first) + ".."), std::string::npos) << message;
    }
  }
  EXPECT_EQ(static_cast<int>(model.unit_quaternions.size()), quaternions);
  EXPECT_GE(quaternions, 3);
}

TEST(Configuration, QuaternionExpAndLogAreInverse) {
  for (double angle : {0.0, 1e-9, 1e-4, 0.5, 3.0, M_PI - 1e-9}) {
    const Vector3 r = angle * Vector3(0.2, -0.3, 0.9).normalized();
    const Quaternion Q = quaternionExp(r);
    EXPECT_NEAR(Q.norm(), 1.0, 1e-15);
    EXPECT_TRUE(matricesNear(quaternionLog(Q), r, 1e-12)) << angle;
    EXPECT_TRUE(matricesNear(Q.toRotationMatrix(), expMapRotation(r), 1e-15));
    // A scaled quaternion has the same angle and axis, its sign flipped the same rotation (the
    // small-angle series is chosen by |v| / w, not by |v|: 1e-9 Q is not a small angle).
    for (double scale : {0.5, 1.0 + 1e-4, 3.0, -2.0, 1e-9}) {
      const Quaternion scaled(scale * Q.coeffs());
      EXPECT_TRUE(matricesNear(quaternionLog(scaled), r, 1e-12)) << angle << " " << scale;
    }
  }
}

}  // namespace
}  // namespace gcbridge
