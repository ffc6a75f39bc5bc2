// Every shipped model (models/) loads, with sizes, link counts and masses computed independently
// from the files, and the peculiarities each one is shipped for.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/model.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;
using test::modelPath;

/// What a model file holds, counted from the file, not by gcbridge:
/// - links, joints: `<link name=...>` and `<joint name=... type=...>` elements at the top level
///   (grep -c; a declared `world` link and the `<joint>` inside a `<transmission>` not counted);
/// - mass: the sum of every `<mass value>`, by
///   `grep -ao '<mass value *= *"[^"]*"' F | sed 's/.*"\(.*\)"/\1/' | awk '{s+=$1} END {print s}'`;
/// - model_links: links minus the children of fixed joints (merged into their parents); the root
///   stays link 0, welded to the world by a Fixed joint, or by the file's own joint to the world;
/// - nq, nv: sum over joints (revolute/continuous/prismatic 1/1, spherical 4/3 as a quaternion);
///   a floating base adds a Free root joint (7/6).
struct ModelFacts {
  std::string file;
  int links;
  int joints;
  int model_links;
  int nq;
  int nv;
  double mass;     ///< [kg]
  JointType root;  ///< joint of model link 0: Fixed, or the file's joint to the world
  /// The file does not attach the root to the world, and a floating base keeps M regular.
  bool can_float;
};

const std::vector<ModelFacts> kModels = {
    // file, links, joints, model links, nq, nv, mass, root joint, can float
    {"kuka_iiwa/model.urdf", 8, 7, 8, 7, 7, 17.5, JointType::Fixed, true},
    {"franka_panda/panda.urdf", 13, 12, 10, 9, 9, 17.96, JointType::Fixed, true},
    {"humanoid_deepmimic/humanoid.urdf", 16, 15, 13, 8 * 4 + 4, 8 * 3 + 4, 45.0001,
     JointType::Fixed, true},
    {"quadruped_minitaur_prims/quadruped.urdf", 25, 24, 17, 16, 16, 6.0, JointType::Fixed, true},
    {"pendulum5/pendulum5.urdf", 5, 5, 5, 5, 5, 9.64, JointType::Revolute, false},
    {"acrobot_drake/Acrobot.urdf", 3, 3, 3, 2, 2, 2.0, JointType::Fixed, false},
    {"cartpole/cartpole.urdf", 3, 2, 3, 2, 2, 11.0, JointType::Fixed, false},
    {"two_joint_robot/TwoJointRobot_w_fixedJoints.urdf", 7, 6, 3, 2, 2, 2.0, JointType::Fixed,
     true},
    {"two_joint_robot/TwoJointRobot_wo_fixedJoints.urdf", 4, 3, 3, 2, 2, 1.4, JointType::Fixed,
     true},
    {"spherical_joint_limit/spherical_joint_limit.urdf", 2, 1, 2, 4, 3, 5.0, JointType::Fixed,
     true},
    {"unitree_a1/a1.urdf", 22, 21, 13, 12, 12, 12.458, JointType::Fixed, true},
    {"anymal_c/anymal.urdf", 78, 77, 13, 12, 12, 52.13485, JointType::Fixed, true},
};

/// The spatial inertia of the whole robot at q = 0, in the root link's frame. Every joint
/// transform is the identity at q = 0, so a link's pose in the root frame is the product of the
/// X_PJ along its path.
Matrix6 inertiaAtZero(const Model& m) {
  std::vector<Transform> X_RB(m.numLinks());
  Inertia total;
  for (int k = 0; k < m.numLinks(); ++k) {
    X_RB[k] = m.parents[k] < 0 ? Transform() : X_RB[m.parents[k]] * m.joints[k].X_PJ;
    total = total + m.inertias[k].transformedBy(X_RB[k]);
  }
  return total.toMatrix();
}

TEST(ShippedModels, LoadWithTheCountsAndMassOfTheirFiles) {
  for (const ModelFacts& f : kModels) {
    SCOPED_TRACE(f.file);
    const RobotDescription d = parseUrdfFile(modelPath(f.file));
    EXPECT_EQ(static_cast<int>(d.links.size()), f.links);
    EXPECT_EQ(static_cast<int>(d.joints.size()), f.joints);

    // Fixed base, fixed joints merged (the defaults).
    const Model model = buildModel(d);
    EXPECT_EQ(model.numLinks(), f.model_links);
    EXPECT_EQ(model.nq, f.nq);
    EXPECT_EQ(model.nv, f.nv);
    EXPECT_NEAR(model.totalMass(), f.mass, 1e-12 * f.mass);
    EXPECT_EQ(model.parents[0], -1);
    EXPECT_EQ(model.joints[0].type, f.root);
    EXPECT_EQ(static_cast<int>(model.frames.size()), f.links);

    // Without merging every description link is a model link, and the mass is the same.
    ModelOptions unmerged;
    unmerged.merge_fixed_joints = false;
    const Model all = buildModel(d, unmerged);
    EXPECT_EQ(all.numLinks(), f.links);
    EXPECT_EQ(all.nq, f.nq);
    EXPECT_EQ(all.nv, f.nv);
    EXPECT_NEAR(all.totalMass(), model.totalMass(), 1e-12 * f.mass);

    if (f.can_float) {
      ModelOptions floating;
      floating.floating_base = true;
      const Model free = buildModel(d, floating);
      EXPECT_EQ(free.numLinks(), f.model_links);
      EXPECT_EQ(free.nq, f.nq + 7);
      EXPECT_EQ(free.nv, f.nv + 6);
      EXPECT_EQ(free.joints[0].type, JointType::Free);
      EXPECT_NEAR(free.totalMass(), f.mass, 1e-12 * f.mass);
    }
  }
}

TEST(ShippedModels, MergingConservesTheWholeInertia) {
  for (const ModelFacts& f : kModels) {
    SCOPED_TRACE(f.file);
    const RobotDescription d = parseUrdfFile(modelPath(f.file));
    ModelOptions unmerged;
    unmerged.merge_fixed_joints = false;
    EXPECT_TRUE(
        matricesNear(inertiaAtZero(buildModel(d)), inertiaAtZero(buildModel(d, unmerged)), 1e-12));
  }
}

TEST(ShippedModels, HumanoidSizesWithTheFloatingBase) {
  const RobotDescription d = parseUrdfFile(modelPath("humanoid_deepmimic/humanoid.urdf"));
  ModelOptions options;
  options.floating_base = true;
  // 8 spherical joints (3 dof each), 4 revolute, the free base (6).
  const Model quaternion = buildModel(d, options);
  EXPECT_EQ(quaternion.nv, 34);
  EXPECT_EQ(quaternion.nq, 8 * 4 + 4 + 7);
  options.ball = BallParametrization::ExpMap;
  const Model expmap = buildModel(d, options);
  EXPECT_EQ(expmap.nv, 34);
  EXPECT_EQ(expmap.nq, 8 * 3 + 4 + 7);
  // The file's root link "base" floats; "root" is welded to it and merged.
  EXPECT_EQ(quaternion.link_names[0], "base");
  EXPECT_EQ(quaternion.frames[d.findLink("root")].link, 0);
}

TEST(ShippedModels, MergedLinksKeepTheirFrames) {
  const RobotDescription d = parseUrdfFile(modelPath("humanoid_deepmimic/humanoid.urdf"));
  const Model model = buildModel(d);
  // right_wrist hangs from right_elbow by a fixed joint at xyz (0, -1.035788, 0).
  const Frame& wrist = model.frames[model.frameIndex("right_wrist")];
  EXPECT_EQ(wrist.link, model.linkIndex("right_elbow"));
  EXPECT_TRUE(wrist.X_BF.isApprox(Transform(Matrix3::Identity(), Vector3(0, -1.035788, 0))));
  EXPECT_THROW(model.linkIndex("right_wrist"), InvalidArgumentError);
  // The elbow's model link carries the wrist's 0.5 kg: 1 kg + 0.5 kg.
  EXPECT_NEAR(model.inertias[model.linkIndex("right_elbow")].mass(), 1.5, 1e-15);
  // An unmerged link is its own frame.
  const Frame& elbow = model.frames[model.frameIndex("right_elbow")];
  EXPECT_EQ(elbow.link, model.linkIndex("right_elbow"));
  EXPECT_TRUE(elbow.X_BF.isApprox(Transform::Identity(), 0.0));

  // The panda's link8, hand and grasp target are all welded to link7.
  const Model panda = loadUrdf(modelPath("franka_panda/panda.urdf"));
  const int link7 = panda.linkIndex("panda_link7");
  const Transform X_7_8(Matrix3::Identity(), Vector3(0, 0, 0.107));
  const Transform X_8_hand(rotationFromRpy(Vector3(0, 0, -0.785398163397)), Vector3::Zero());
  const Transform X_hand_target(Matrix3::Identity(), Vector3(0, 0, 0.105));
  const Frame& link8 = panda.frames[panda.frameIndex("panda_link8")];
  const Frame& hand = panda.frames[panda.frameIndex("panda_hand")];
  const Frame& target = panda.frames[panda.frameIndex("panda_grasptarget")];
  EXPECT_EQ(link8.link, link7);
  EXPECT_EQ(hand.link, link7);
  EXPECT_EQ(target.link, link7);
  EXPECT_TRUE(link8.X_BF.isApprox(X_7_8));
  EXPECT_TRUE(hand.X_BF.isApprox(X_7_8 * X_8_hand));
  EXPECT_TRUE(target.X_BF.isApprox(X_7_8 * X_8_hand * X_hand_target));
  // The fingers stay links, children of link7 (which now carries the hand).
  EXPECT_EQ(panda.parents[panda.linkIndex("panda_leftfinger")], link7);
  EXPECT_EQ(panda.parents[panda.linkIndex("panda_rightfinger")], link7);
}

TEST(ShippedModels, IiwaJointsAndMeshes) {
  const RobotDescription d = parseUrdfFile(modelPath("kuka_iiwa/model.urdf"));
  EXPECT_TRUE(d.warnings.empty());
  for (const JointDescription& j : d.joints) {
    EXPECT_EQ(j.type, JointType::Revolute) << j.name;
    EXPECT_EQ(j.limits.effort, 300.0) << j.name;
    EXPECT_EQ(j.limits.damping, 0.5) << j.name;
    EXPECT_LT(j.limits.lower, 0.0) << j.name;
    EXPECT_EQ(j.limits.lower, -j.limits.upper) << j.name;
  }
  // Relative mesh paths: an OBJ visual and an STL collision per link, all on disk.
  for (const LinkDescription& link : d.links) {
    ASSERT_EQ(link.visuals.size(), 1u) << link.name;
    ASSERT_EQ(link.collisions.size(), 1u) << link.name;
    EXPECT_NE(link.visuals[0].geometry.mesh_path, "") << link.name;
    EXPECT_NE(link.collisions[0].geometry.mesh_path, "") << link.name;
    EXPECT_TRUE(link.visuals[0].rgba.has_value()) << link.name;
  }
  // link_0 has mass 0 (with a non-zero inertia): welded to the world it does not matter, and
  // with a floating base the other links carry the mass.
  EXPECT_EQ(d.links[0].mass, 0.0);
  ModelOptions floating;
  floating.floating_base = true;
  EXPECT_EQ(buildModel(d, floating).nv, 13);
}

TEST(ShippedModels, PandaMeshesResolveThroughPackageUris) {
  // panda.urdf writes package://meshes/collision/link0.obj for meshes/ next to the file.
  const RobotDescription d = parseUrdfFile(modelPath("franka_panda/panda.urdf"));
  int meshes = 0;
  for (const LinkDescription& link : d.links) {
    for (const auto* shapes : {&link.visuals, &link.collisions}) {
      for (const GeometryInstance& g : *shapes) {
        ASSERT_EQ(g.geometry.type, Geometry::Type::Mesh);
        EXPECT_EQ(g.geometry.mesh_uri.rfind("package://meshes/", 0), 0u) << g.geometry.mesh_uri;
        EXPECT_NE(g.geometry.mesh_path, "") << g.geometry.mesh_uri;
        ++meshes;
      }
    }
  }
  // A visual and a collision mesh on link0..link7, the hand and both fingers.
  EXPECT_EQ(meshes, 2 * 11);
  // The only warning: the right finger mimics the left one.
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("'panda_finger_joint2'"), std::string::npos);
  EXPECT_NE(d.warnings[0].find("<mimic>"), std::string::npos);
}

TEST(ShippedModels, PendulumWithDeclaredWorldAndUndefinedMaterial) {
  const RobotDescription d = parseUrdfFile(modelPath("pendulum5/pendulum5.urdf"));
  EXPECT_EQ(d.findLink("world"), -1);
  EXPECT_EQ(d.joints[0].parent, "world");
  EXPECT_EQ(d.joints[0].limits.damping, 1.0);
  EXPECT_EQ(d.joints[0].limits.friction, 1.0);
  // link0 is "Blue" (defined); link1..link4 name "Red", which is not defined.
  ASSERT_TRUE(d.links[0].visuals[0].rgba.has_value());
  EXPECT_TRUE(matricesNear(*d.links[0].visuals[0].rgba, Eigen::Vector4d(0.28, 0.52, 0.92, 1.0), 0));
  EXPECT_EQ(d.warnings.size(), 4u);
  for (int i = 1; i <= 4; ++i) {
    EXPECT_FALSE(d.links[i].visuals[0].rgba.has_value());
    const std::string link = "'link" + std::to_string(i) + "'";
    bool found = false;
    for (const std::string& w : d.warnings) {
      found = found || (w.find(link) != std::string::npos && w.find("'Red'") != std::string::npos);
    }
    EXPECT_TRUE(found) << link;
  }
  // The first link hangs from the world by its continuous joint.
  const Model model = buildModel(d);
  EXPECT_EQ(model.link_names[0], "link0");
  EXPECT_EQ(model.joints[0].name, "joint0");
  EXPECT_EQ(model.joints[0].type, JointType::Revolute);
}

TEST(ShippedModels, AcrobotWeldedToAnUndeclaredWorld) {
  const RobotDescription d = parseUrdfFile(modelPath("acrobot_drake/Acrobot.urdf"));
  EXPECT_TRUE(d.warnings.empty());
  EXPECT_EQ(d.name, "Acrobot");
  EXPECT_EQ(d.joints[d.findJoint("base_weld")].parent, "world");
  EXPECT_EQ(d.joints[d.findJoint("shoulder")].limits.damping, 0.1);
  EXPECT_EQ(d.joints[d.findJoint("elbow")].limits.damping, 0.1);
  // base_link has no <inertial>: mass 0, welded to the world.
  EXPECT_EQ(d.links[d.findLink("base_link")].mass, 0.0);
  const Model model = buildModel(d);
  EXPECT_EQ(model.link_names[0], "base_link");
  EXPECT_EQ(model.joints[0].name, "base_weld");
  EXPECT_EQ(model.joints[0].type, JointType::Fixed);
}

TEST(ShippedModels, SphericalJointLimit) {
  const RobotDescription d =
      parseUrdfFile(modelPath("spherical_joint_limit/spherical_joint_limit.urdf"));
  const JointDescription& neck = d.joints[0];
  EXPECT_EQ(neck.type, JointType::Ball);
  EXPECT_EQ(neck.swing1, 0.8);
  EXPECT_EQ(neck.swing2, 0.8);
  EXPECT_EQ(neck.twist, 0.3);
  EXPECT_EQ(neck.limits.effort, 1000.0);
  EXPECT_TRUE(matricesNear(neck.axis, Vector3::UnitZ(), 0.0));
  // The parser warns that lower="0.2" is ignored; buildModel that the neck's principal moments
  // (0.01, 0.001, 0.001) kg m^2 break the triangle inequality.
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("lower=\"0.2\""), std::string::npos);
  const Model model = buildModel(d);
  ASSERT_EQ(model.description->warnings.size(), 2u);
  EXPECT_NE(model.description->warnings[1].find("'neck'"), std::string::npos);
  EXPECT_NE(model.description->warnings[1].find("triangle"), std::string::npos);
}

TEST(ShippedModels, TheCartpoleCannotFloat) {
  // Its rail has no mass: a floating base could slide along the rail while the cart stands
  // still, a motion without inertia, so M would be singular.
  ModelOptions floating;
  floating.floating_base = true;
  try {
    loadUrdf(modelPath("cartpole/cartpole.urdf"), floating);
    ADD_FAILURE() << "the floating cartpole loaded";
  } catch (const ModelError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("free joint 'root_joint'"), std::string::npos) << message;
    EXPECT_NE(message.find("'slideBar'"), std::string::npos) << message;
    EXPECT_NE(message.find("the mass matrix would be singular"), std::string::npos) << message;
  }
}

TEST(ShippedModels, OnlyTheExpectedWarnings) {
  // Files that load without any finding.
  for (const std::string file : {"kuka_iiwa/model.urdf", "humanoid_deepmimic/humanoid.urdf",
                                 "quadruped_minitaur_prims/quadruped.urdf",
                                 "acrobot_drake/Acrobot.urdf", "cartpole/cartpole.urdf"}) {
    EXPECT_TRUE(loadUrdf(modelPath(file)).description->warnings.empty()) << file;
  }
}

}  // namespace
}  // namespace gcbridge
