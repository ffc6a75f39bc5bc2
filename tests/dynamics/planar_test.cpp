// The planar joint: its in-plane axes, and a body on it equal to the same body on a prismatic,
// prismatic, revolute chain through massless links (an independent construction of the same
// X_JC = Trans(x e1) Trans(y e2) Rot(axis, theta)), for M, h, g, RNEA, ABA and the poses.

#include <gtest/gtest.h>

#include <string>

#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/rnea.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

TEST(PlanarJointFrame, IsTheLeastRotationTakingZToTheAxis) {
  EXPECT_TRUE(matricesNear(planarJointFrame(Vector3::UnitZ()), Matrix3::Identity(), 0.0));
  // About x: the quarter turn about y, so e1 = -z and e2 = y.
  Matrix3 expected;
  expected << 0, 0, 1, 0, 1, 0, -1, 0, 0;
  EXPECT_TRUE(matricesNear(planarJointFrame(Vector3::UnitX()), expected, 1e-16));
  // -z: the half turn about x.
  expected << 1, 0, 0, 0, -1, 0, 0, 0, -1;
  EXPECT_TRUE(matricesNear(planarJointFrame(-Vector3::UnitZ()), expected, 0.0));
  for (const Vector3& axis : {Vector3(0.3, -0.8, 0.5).normalized(), Vector3(1e-9, 0, -1).normalized(),
                              Vector3(-0.6, 0.0, -0.8)}) {
    const Matrix3 R = planarJointFrame(axis);
    EXPECT_TRUE(matricesNear(Matrix3(R.transpose() * R), Matrix3::Identity(), 1e-15));
    EXPECT_NEAR(R.determinant(), 1.0, 1e-15);
    EXPECT_TRUE(matricesNear(R.col(2), axis, 0.0));
    // Least rotation: its axis is z x axis, so the vector z x axis is left where it is.
    const Vector3 k = Vector3::UnitZ().cross(axis);
    if (k.norm() > 1e-6) {
      EXPECT_TRUE(matricesNear(Vector3(R * k), k, 1e-12)) << axis.transpose();
    }
  }
}

// One body on a planar joint (and a second on a revolute joint below it), and the same bodies on
// prismatic e1, prismatic e2, revolute `axis` through two massless links.
struct PlanarPair {
  Model planar;
  Model chain;
};

PlanarPair planarPair(const Vector3& axis, bool floating, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  double m1, m2;
  Vector3 c1, c2;
  Matrix3 I1, I2;
  test::randomInertia(gen, m1, c1, I1);
  test::randomInertia(gen, m2, c2, I2);
  const Transform X_PJ(test::randomRotation(gen), Vector3(0.1, -0.3, 0.2));
  const Transform X_hinge(test::randomRotation(gen), Vector3(0.3, 0.1, -0.2));
  const Vector3 hinge_axis = Vector3(1, -1, 2).normalized();
  const Matrix3 E = planarJointFrame(axis);
  ModelOptions options;
  options.floating_base = floating;

  ModelBuilder a("planar");
  a.addLink("base", 1.0, Vector3(0.1, 0, 0), 0.1 * Matrix3::Identity());
  a.addLink("body", m1, c1, I1);
  a.addLink("tip", m2, c2, I2);
  a.addPlanar("plane", "base", "body", X_PJ, axis);
  a.addRevolute("hinge", "body", "tip", X_hinge, hinge_axis);

  ModelBuilder b("chain");
  b.addLink("base", 1.0, Vector3(0.1, 0, 0), 0.1 * Matrix3::Identity());
  b.addLink("slide_x", 0.0, Vector3::Zero(), Matrix3::Zero());
  b.addLink("slide_y", 0.0, Vector3::Zero(), Matrix3::Zero());
  b.addLink("body", m1, c1, I1);
  b.addLink("tip", m2, c2, I2);
  b.addPrismatic("px", "base", "slide_x", X_PJ, E.col(0));
  b.addPrismatic("py", "slide_x", "slide_y", Transform::Identity(), E.col(1));
  b.addRevolute("rz", "slide_y", "body", Transform::Identity(), axis);
  b.addRevolute("hinge", "body", "tip", X_hinge, hinge_axis);
  return {a.build(options), b.build(options)};
}

TEST(PlanarJoint, EqualsPrismaticPrismaticRevoluteThroughMasslessLinks) {
  for (const Vector3& axis : {Vector3(Vector3::UnitZ()), Vector3(Vector3::UnitX()),
                              Vector3(-Vector3::UnitZ()), Vector3(0.3, -0.8, 0.5).normalized()}) {
    for (bool floating : {false, true}) {
      const PlanarPair pair = planarPair(axis, floating, 7);
      const Model& a = pair.planar;
      const Model& b = pair.chain;
      ASSERT_EQ(a.nv, b.nv);
      ASSERT_EQ(a.nq, b.nq);
      Data da(a), db(b);
      for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        // Both models order their coordinates the same way: (root,) x, y, theta, hinge.
        const Eigen::VectorXd q = randomConfiguration(a, seed);
        const Eigen::VectorXd v = randomVector(a.nv, seed + 10);
        const Eigen::VectorXd acc = randomVector(a.nv, seed + 20);
        const Eigen::VectorXd tau = randomVector(a.nv, seed + 30, 5.0);
        const std::string label = "axis " + std::to_string(axis.x()) + " " +
                                  std::to_string(axis.y()) + " " + std::to_string(axis.z()) +
                                  (floating ? " floating" : " fixed") + " seed " +
                                  std::to_string(seed);
        EXPECT_TRUE(matricesNear(crba(a, da, q), crba(b, db, q), 1e-12)) << label;
        EXPECT_TRUE(matricesNear(nonLinearEffects(a, da, q, v), nonLinearEffects(b, db, q, v),
                                 1e-12))
            << label;
        EXPECT_TRUE(matricesNear(computeGeneralizedGravity(a, da, q),
                                 computeGeneralizedGravity(b, db, q), 1e-12))
            << label;
        EXPECT_TRUE(matricesNear(rnea(a, da, q, v, acc), rnea(b, db, q, v, acc), 1e-12)) << label;
        EXPECT_TRUE(matricesNear(aba(a, da, q, v, tau), aba(b, db, q, v, tau), 1e-12)) << label;
        forwardKinematics(a, da, q, v);
        forwardKinematics(b, db, q, v);
        for (const char* link : {"body", "tip"}) {
          const int ka = a.linkIndex(link), kb = b.linkIndex(link);
          EXPECT_TRUE(matricesNear(da.X_WB[ka].toMatrix(), db.X_WB[kb].toMatrix(), 1e-14))
              << label << " " << link;
          EXPECT_TRUE(matricesNear(da.V_WB_B[ka].vector(), db.V_WB_B[kb].vector(), 1e-13))
              << label << " " << link;
        }
      }
    }
  }
}

TEST(PlanarJoint, ReadFromUrdf) {
  const std::string xml = R"(<robot name="r">
  <link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="b"><inertial><mass value="2"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <joint name="j" type="planar"><parent link="a"/><child link="b"/><axis xyz="0 0 2"/>
    <limit effort="5" velocity="3"/></joint>
</robot>)";
  const Model model = buildModel(parseUrdfString(xml));
  ASSERT_EQ(model.numLinks(), 2);
  const Joint& joint = model.joints[1];
  EXPECT_EQ(joint.type, JointType::Planar);
  EXPECT_EQ(joint.nq, 3);
  EXPECT_EQ(joint.nv, 3);
  EXPECT_TRUE(matricesNear(joint.axis, Vector3::UnitZ(), 0.0));
  EXPECT_EQ(joint.limits.effort, 5.0);
  EXPECT_EQ(joint.limits.velocity, 3.0);
  EXPECT_EQ(model.nq, 3);
}

}  // namespace
}  // namespace gcbridge
