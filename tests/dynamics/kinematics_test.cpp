// Forward kinematics against hand-computed chains, velocities/accelerations against finite
// differences on random trees that mix every joint type and ball parametrization, and the
// placements of joints whose frame has its parent's axes against the full product.

#include "gcbridge/dynamics/kinematics.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/rnea.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::fdDerivative;
using test::logRotation;
using test::matricesNear;

// Planar two-link arm in the xy plane: links of length l1, l2 along their x axes.
Model planarArm(double l1) {
  ModelBuilder b("planar");
  b.addLink("base", 0.0, Vector3::Zero(), Matrix3::Zero());
  b.addLink("upper", 1.0, Vector3(l1 / 2, 0, 0), Matrix3::Identity() * 0.1);
  b.addLink("lower", 1.0, Vector3(0.5, 0, 0), Matrix3::Identity() * 0.1);
  b.addRevolute("shoulder", "base", "upper", Transform::Identity(), Vector3::UnitZ());
  b.addRevolute("elbow", "upper", "lower", Transform(Matrix3::Identity(), Vector3(l1, 0, 0)),
                Vector3::UnitZ());
  return b.build();
}

TEST(Kinematics, PlanarArmMatchesHandComputation) {
  const double l1 = 0.7, l2 = 0.4;
  const Model model = planarArm(l1);
  Data data(model);
  const double a = 0.3, b = -1.1, ad = 0.8, bd = -0.5, add = 1.7, bdd = 0.4;
  Eigen::VectorXd q(2), v(2), acc(2);
  q << a, b;
  v << ad, bd;
  acc << add, bdd;
  forwardKinematics(model, data, q, v, acc);
  const Transform X_BF(Matrix3::Identity(), Vector3(l2, 0, 0));  // the tip on the lower link
  const int lower = model.linkIndex("lower");
  // Position.
  const Vector3 tip(l1 * std::cos(a) + l2 * std::cos(a + b),
                    l1 * std::sin(a) + l2 * std::sin(a + b), 0);
  EXPECT_TRUE(matricesNear(framePose(model, data, lower, X_BF).translation(), tip, 1e-15));
  EXPECT_TRUE(
      matricesNear(data.X_WB[lower].rotation(), rotationAboutAxis(Vector3::UnitZ(), a + b), 1e-15));
  // COM of the upper link.
  EXPECT_TRUE(
      matricesNear(data.p_WBcm[1], Vector3(l1 / 2 * std::cos(a), l1 / 2 * std::sin(a), 0), 1e-15));
  // Velocity of the tip.
  const Vector3 tip_v(-l1 * std::sin(a) * ad - l2 * std::sin(a + b) * (ad + bd),
                      l1 * std::cos(a) * ad + l2 * std::cos(a + b) * (ad + bd), 0);
  const Motion V = frameVelocity(model, data, lower, X_BF, ReferenceFrame::LocalWorldAligned);
  EXPECT_TRUE(matricesNear(V.angular(), Vector3(0, 0, ad + bd), 1e-15));
  EXPECT_TRUE(matricesNear(V.linear(), tip_v, 1e-15));
  // Classical acceleration of the tip: second derivative of the position.
  const double s = a + b, sd = ad + bd, sdd = add + bdd;
  const Vector3 tip_a(-l1 * (std::cos(a) * ad * ad + std::sin(a) * add) -
                          l2 * (std::cos(s) * sd * sd + std::sin(s) * sdd),
                      l1 * (-std::sin(a) * ad * ad + std::cos(a) * add) +
                          l2 * (-std::sin(s) * sd * sd + std::cos(s) * sdd),
                      0);
  const Motion A =
      frameClassicalAcceleration(model, data, lower, X_BF, ReferenceFrame::LocalWorldAligned);
  EXPECT_TRUE(matricesNear(A.angular(), Vector3(0, 0, sdd), 1e-15));
  EXPECT_TRUE(matricesNear(A.linear(), tip_a, 1e-14));
}

TEST(Kinematics, CartPoleAndBallChainMatchHandComputation) {
  // A cart sliding along x carrying a pole on a y hinge, and a ball joint at the pole's tip.
  ModelBuilder b("cartpole");
  b.addLink("rail", 0.0, Vector3::Zero(), Matrix3::Zero());
  b.addLink("cart", 1.0, Vector3::Zero(), Matrix3::Identity());
  b.addLink("pole", 1.0, Vector3(0, 0, 0.5), Matrix3::Identity());
  b.addLink("tip", 1.0, Vector3(0, 0, 0.2), Matrix3::Identity());
  b.addPrismatic("slide", "rail", "cart", Transform::Identity(), Vector3::UnitX());
  b.addRevolute("hinge", "cart", "pole", Transform(Matrix3::Identity(), Vector3(0, 0, 0.1)),
                Vector3::UnitY());
  b.addBall("ball", "pole", "tip", Transform(Matrix3::Identity(), Vector3(0, 0, 1)));
  const Model model = b.build();
  Data data(model);
  const Quaternion Q(Eigen::AngleAxisd(0.5, Vector3::UnitX()));
  Eigen::VectorXd q(6);
  q << 0.4, 0.3, Q.x(), Q.y(), Q.z(), Q.w();
  forwardKinematics(model, data, q);
  const Matrix3 Ry = rotationAboutAxis(Vector3::UnitY(), 0.3);
  const Vector3 p_pole(0.4, 0, 0.1);
  EXPECT_TRUE(matricesNear(data.X_WB[2].translation(), p_pole, 1e-15));
  EXPECT_TRUE(matricesNear(data.X_WB[3].translation(), p_pole + Ry * Vector3(0, 0, 1), 1e-15));
  EXPECT_TRUE(matricesNear(data.X_WB[3].rotation(), Ry * Q.toRotationMatrix(), 1e-15));
  EXPECT_TRUE(matricesNear(
      data.p_WBcm[3],
      p_pole + Ry * Vector3(0, 0, 1) + Ry * Q.toRotationMatrix() * Vector3(0, 0, 0.2), 1e-15));
}

struct TreeCase {
  const char* label;
  BallParametrization ball;
  bool floating;
};
const TreeCase kTrees[] = {{"quaternion_floating", BallParametrization::Quaternion, true},
                           {"expmap_fixed", BallParametrization::ExpMap, false},
                           {"euler_floating", BallParametrization::EulerXYZ, true}};

class KinematicsTreeTest : public ::testing::TestWithParam<TreeCase> {};

TEST_P(KinematicsTreeTest, VelocitiesAreDerivativesOfPoses) {
  const Model model = test::randomTreeModel(21, 14, GetParam().ball, GetParam().floating);
  Data data(model), moved(model);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Eigen::VectorXd q = randomConfiguration(model, seed);
    const Eigen::VectorXd v = randomVector(model.nv, 50 + seed);
    forwardKinematics(model, data, q, v);
    for (int k = 0; k < model.numLinks(); ++k) {
      // V_WB_B = (R^T R_dot vee, R^T p_dot) along q(t) = integrate(q, v t).
      const Transform X0 = data.X_WB[k];
      const Eigen::VectorXd fd = fdDerivative([&](double t) {
        forwardKinematics(model, moved, integrate(model, q, v, t));
        Eigen::VectorXd out(6);
        out << logRotation(X0.rotation().transpose() * moved.X_WB[k].rotation()),
            X0.rotation().transpose() * (moved.X_WB[k].translation() - X0.translation());
        return out;
      });
      EXPECT_TRUE(matricesNear(data.V_WB_B[k].vector(), fd, 1e-9))
          << GetParam().label << " link " << k << " seed " << seed;
    }
  }
}

TEST_P(KinematicsTreeTest, AccelerationsAreJacobianTimesAPlusJdotV) {
  // A = J a + J_dot v, with J_dot v checked against finite differences of J in jacobians_test;
  // here the acceleration pass (S a, S_dot v, V x S v) is checked against it for all frames.
  const Model model = test::randomTreeModel(22, 14, GetParam().ball, GetParam().floating);
  Data data(model), jac(model);
  Eigen::MatrixXd J(6, model.nv);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Eigen::VectorXd q = randomConfiguration(model, seed);
    const Eigen::VectorXd v = randomVector(model.nv, 60 + seed);
    const Eigen::VectorXd a = randomVector(model.nv, 70 + seed);
    computeJointJacobians(model, jac, q);
    std::mt19937_64 gen(seed);
    for (int k = 0; k < model.numLinks(); ++k) {
      const Transform X_BF(test::randomRotation(gen), Vector3(0.1, -0.2, 0.3));
      for (ReferenceFrame rf :
           {ReferenceFrame::World, ReferenceFrame::LocalWorldAligned, ReferenceFrame::Local}) {
        frameJacobian(model, jac, k, X_BF, rf, J);
        const Motion Jdv = frameJacobianDotTimesV(model, data, q, v, k, X_BF, rf);
        forwardKinematics(model, data, q, v, a);
        Vector6 expected = J * a + Jdv.vector();
        Vector6 actual;
        if (rf == ReferenceFrame::World) {
          actual = data.X_WB[k].act(data.A_spatial_WB_B[k]).vector();
        } else if (rf == ReferenceFrame::LocalWorldAligned) {
          actual = frameClassicalAcceleration(model, data, k, X_BF, rf).vector();
        } else {
          const Motion Acl = frameClassicalAcceleration(model, data, k, X_BF, rf);
          const Motion V = frameVelocity(model, data, k, X_BF, rf);
          actual << Acl.angular(), Acl.linear() - V.angular().cross(V.linear());
        }
        EXPECT_TRUE(matricesNear(actual, expected, 1e-12)) << GetParam().label << " link " << k;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(RandomTrees, KinematicsTreeTest, ::testing::ValuesIn(kTrees),
                         [](const auto& info) { return std::string(info.param.label); });

TEST(Kinematics, ClassicalAndSpatialAccelerationsDifferByOmegaCrossV) {
  // A link spinning at constant rate about a fixed axis through an offset point: its origin moves
  // on a circle. Spatial acceleration is zero, classical is the centripetal one.
  ModelBuilder b("spinner");
  b.addLink("base", 0.0, Vector3::Zero(), Matrix3::Zero());
  b.addLink("disc", 1.0, Vector3::Zero(), Matrix3::Identity());
  b.addRevolute("spin", "base", "disc", Transform::Identity(), Vector3::UnitZ());
  const Model model = b.build();
  Data data(model);
  Eigen::VectorXd q(1), v(1), a(1);
  q << 0.0;
  v << 2.0;
  a << 0.0;
  forwardKinematics(model, data, q, v, a);
  const Transform X_BF(Matrix3::Identity(), Vector3(0.5, 0, 0));
  EXPECT_TRUE(data.A_spatial_WB_B[1].vector().isZero(0.0));
  const Motion A =
      frameClassicalAcceleration(model, data, 1, X_BF, ReferenceFrame::LocalWorldAligned);
  EXPECT_TRUE(matricesNear(A.linear(), Vector3(-0.5 * 4.0, 0, 0), 1e-15));
}

// buildModel marks the joints whose frame has its parent's axes (X_PJ's rotation exactly the
// identity), and there the placements skip the product with that rotation: poses, RNEA, CRBA and
// ABA equal the full product's exactly (signed zeros aside), on models whose every joint
// rotation is made the identity (every joint type; coordinate and oblique axes).
TEST(Kinematics, JointsWithTheirParentsAxesSkipOnlyAProductWithTheIdentity) {
  int marked = 0;
  for (const Model& built : test::bridgeTestModels(3, 4)) {
    for (const Joint& joint : built.joints) {
      EXPECT_EQ(joint.parent_axes, joint.X_PJ.rotation() == Matrix3::Identity())
          << built.name << ", joint " << joint.name;
      marked += joint.parent_axes ? 1 : 0;
    }
    Model skipping = built;
    for (Joint& joint : skipping.joints) {
      joint.X_PJ.rotation().setIdentity();
      joint.parent_axes = true;
    }
    Model multiplying = skipping;
    for (Joint& joint : multiplying.joints) joint.parent_axes = false;
    Data data_skipping(skipping), data_multiplying(multiplying);
    const Eigen::VectorXd q = test::safeConfiguration(skipping, 5);
    const Eigen::VectorXd v = randomVector(skipping.nv, 6);
    const Eigen::VectorXd a = randomVector(skipping.nv, 7);
    forwardKinematics(skipping, data_skipping, q, v, a);
    forwardKinematics(multiplying, data_multiplying, q, v, a);
    for (int k = 0; k < skipping.numLinks(); ++k) {
      EXPECT_EQ(data_skipping.X_WB[k].rotation(), data_multiplying.X_WB[k].rotation()) << k;
      EXPECT_EQ(data_skipping.X_WB[k].translation(), data_multiplying.X_WB[k].translation()) << k;
    }
    EXPECT_EQ(rnea(skipping, data_skipping, q, v, a), rnea(multiplying, data_multiplying, q, v, a))
        << built.name;
    EXPECT_EQ(crba(skipping, data_skipping, q), crba(multiplying, data_multiplying, q))
        << built.name;
    EXPECT_EQ(aba(skipping, data_skipping, q, v, a), aba(multiplying, data_multiplying, q, v, a))
        << built.name;
  }
  // The shipped models' joints are mostly written with rpy = 0.
  EXPECT_GT(marked, 20);
}

}  // namespace
}  // namespace gcbridge
