// The rigid-body (maximal-coordinate) Bullet world built from a model: bodies, COM frames and
// inertias, constraint types and frames (Bullet's own joint readings agree with q), collision
// shapes (primitives and meshes through assimp), the map, and what the builder rejects.

#include "gcbridge/bridge/rigid_body_world.hpp"

#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletDynamics/ConstraintSolver/btConeTwistConstraint.h>
#include <BulletDynamics/ConstraintSolver/btFixedConstraint.h>
#include <BulletDynamics/ConstraintSolver/btHingeConstraint.h>
#include <BulletDynamics/ConstraintSolver/btPoint2PointConstraint.h>
#include <BulletDynamics/ConstraintSolver/btSliderConstraint.h>
#include <BulletDynamics/ConstraintSolver/btUniversalConstraint.h>
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

// Poses and joint readings go through a few products per link, in Bullet's precision.
constexpr bool kDouble = sizeof(btScalar) == 8;
constexpr double kTolerance = kDouble ? 1e-12 : 2e-5;

Transform fromBt(const btTransform& X) {
  Matrix3 R;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) R(i, j) = X.getBasis()[i][j];
  }
  return Transform(R, Vector3(X.getOrigin().x(), X.getOrigin().y(), X.getOrigin().z()));
}

// Every body sits where the model's kinematics puts its link, with the link's mass and inertia.
void expectBodiesMatchModel(const Model& model, RigidBodyWorld& w, const Eigen::VectorXd& q) {
  Data data(model);
  forwardKinematics(model, data, q);
  const RigidBodyMap& map = *w.map;
  for (int k = 0; k < model.numLinks(); ++k) {
    const btRigidBody* body = map.body(k);
    if (body == nullptr) {
      EXPECT_EQ(model.inertias[k].mass(), 0.0) << model.link_names[k];
      continue;
    }
    const Transform X_WB = fromBt(body->getCenterOfMassTransform());
    const Transform expected = data.X_WB[k] * map.X_LB(k);
    EXPECT_TRUE(matricesNear(X_WB.rotation(), expected.rotation(), kTolerance))
        << model.link_names[k];
    EXPECT_TRUE(matricesNear(X_WB.translation(), expected.translation(), kTolerance))
        << model.link_names[k];
    if (body->isStaticObject()) continue;
    EXPECT_NEAR(1.0 / body->getInvMass(), model.inertias[k].mass(),
                kTolerance * model.inertias[k].mass());
    // B's inertia in L axes equals the model's inertia about the COM.
    const btVector3 I_B = body->getLocalInertia();
    const Matrix3& R_LB = map.X_LB(k).rotation();
    const Matrix3 I_L = R_LB * Vector3(I_B.x(), I_B.y(), I_B.z()).asDiagonal() * R_LB.transpose();
    EXPECT_TRUE(matricesNear(I_L, model.inertias[k].inertiaAboutCom(), 1e3 * kTolerance))
        << model.link_names[k];
    EXPECT_TRUE(matricesNear(map.X_LB(k).translation(), model.inertias[k].com(), kTolerance));
    EXPECT_EQ(body->getActivationState(), DISABLE_DEACTIVATION);
  }
}

TEST(RigidBodyWorld, EveryShippedModelAtRandomConfigurations) {
  for (const test::ShippedModel& shipped_model : test::shippedModels()) {
    SCOPED_TRACE(shipped_model.file);
    const Model model = test::loadShipped(shipped_model);
    const Eigen::VectorXd q = randomConfiguration(model, 7);
    auto w = buildRigidBodyWorld(model, {}, q);
    expectBodiesMatchModel(model, *w, q);
    // One constraint per moving or unmerged fixed joint below the root, plus a moving root's.
    int expected_constraints = 0;
    for (int k = 0; k < model.numLinks(); ++k) {
      const JointType type = model.joints[k].type;
      if (!(k == 0 && (type == JointType::Fixed || type == JointType::Free)))
        ++expected_constraints;
    }
    EXPECT_EQ(w->world->getNumConstraints(), expected_constraints);
    EXPECT_EQ(w->world->getNumCollisionObjects(), model.numLinks());
  }
}

TEST(RigidBodyWorld, RandomTreesWithEveryJointType) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    for (bool floating : {false, true}) {
      const Model model = test::randomTreeModel(seed, 9, BallParametrization::Quaternion, floating);
      const Eigen::VectorXd q = randomConfiguration(model, seed);
      auto w = buildRigidBodyWorld(model, {}, q);
      expectBodiesMatchModel(model, *w, q);
    }
  }
}

// Chains hanging from the world (a test stand's legs): each first joint to Bullet's fixed body.
TEST(RigidBodyWorld, ChainsOnTheWorld) {
  const Model model = test::forestModel();
  const Eigen::VectorXd q = randomConfiguration(model, 4);
  auto w = buildRigidBodyWorld(model, {}, q);
  expectBodiesMatchModel(model, *w, q);
  EXPECT_EQ(w->world->getNumConstraints(), 6);
}

// Bullet's own joint readings (its constraint frames) agree with q: hinge angle +q, slider
// position +q, and the constraint classes follow the table in rigid_body_world.hpp.
TEST(RigidBodyWorld, ConstraintFramesAgreeWithBulletsJointReadings) {
  const Model model = test::randomTreeModel(11, 12, BallParametrization::Quaternion, false);
  Eigen::VectorXd q = randomConfiguration(model, 3);
  // Revolute angles inside (-pi, pi): Bullet's hinge angle is wrapped.
  for (int k = 0; k < model.numLinks(); ++k) {
    if (model.joints[k].type == JointType::Revolute) q(model.joints[k].idx_q) = 0.1 * k - 0.5;
  }
  auto w = buildRigidBodyWorld(model, {}, q);
  int hinges = 0, sliders = 0, balls = 0, fixed = 0;
  for (int k = 1; k < model.numLinks(); ++k) {
    btTypedConstraint* c = w->map->constraint(k);
    ASSERT_NE(c, nullptr);
    const double qk = q(model.joints[k].idx_q);
    switch (model.joints[k].type) {
      case JointType::Revolute: {
        auto* hinge = dynamic_cast<btHingeConstraint*>(c);
        ASSERT_NE(hinge, nullptr);
        EXPECT_NEAR(hinge->getHingeAngle(), qk, kTolerance);
        ++hinges;
        break;
      }
      case JointType::Prismatic: {
        auto* slider = dynamic_cast<btSliderConstraint*>(c);
        ASSERT_NE(slider, nullptr);
        // The displacement of B's slider frame along A's slider axis (x).
        slider->calculateTransforms(slider->getRigidBodyA().getCenterOfMassTransform(),
                                    slider->getRigidBodyB().getCenterOfMassTransform());
        const btTransform& A = slider->getCalculatedTransformA();
        const btTransform& B = slider->getCalculatedTransformB();
        EXPECT_NEAR((B.getOrigin() - A.getOrigin()).dot(A.getBasis().getColumn(0)), qk, kTolerance);
        ++sliders;
        break;
      }
      case JointType::Ball:
        EXPECT_NE(dynamic_cast<btPoint2PointConstraint*>(c), nullptr);
        ++balls;
        break;
      case JointType::Fixed:
        EXPECT_NE(dynamic_cast<btFixedConstraint*>(c), nullptr);
        ++fixed;
        break;
      case JointType::Free:
      case JointType::Planar:
        FAIL();
    }
  }
  EXPECT_GT(hinges * sliders * balls * fixed, 0);
}

TEST(RigidBodyWorld, HingeLimitsComeFromTheModel) {
  const Model model = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  auto w = buildRigidBodyWorld(model);
  for (int k = 1; k < model.numLinks(); ++k) {
    auto* hinge = dynamic_cast<btHingeConstraint*>(w->map->constraint(k));
    ASSERT_NE(hinge, nullptr);
    EXPECT_NEAR(hinge->getLowerLimit(), model.joints[k].limits.lower, kTolerance);
    EXPECT_NEAR(hinge->getUpperLimit(), model.joints[k].limits.upper, kTolerance);
  }
}

// A slider's limits hold on the bounded side only: Bullet limits a slider when lower <= upper,
// so a one-sided limit must not become a two-sided one (or be dropped). The cart slides at 1 m/s
// toward each side for 1.5 s: free, it travels 1.5 m; bounded, it never passes the bound by more
// than what one substep's travel and ERP's correction leave (Bullet's slider limit then bounces
// it back with restitution 0.7).
TEST(RigidBodyWorld, SliderLimitsComeFromTheModelOneSidedToo) {
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    double lower, upper;
  };
  for (const Case& c :
       {Case{-inf, 0.5}, Case{-0.5, inf}, Case{-0.2, inf}, Case{-inf, inf}, Case{-0.5, 0.5}}) {
    ModelBuilder b("slider");
    b.addLink("rail", 0.0, Vector3::Zero(), Matrix3::Zero());
    b.addLink("cart", 1.0, Vector3::Zero(), Matrix3::Identity());
    JointLimits limits;
    limits.lower = c.lower;
    limits.upper = c.upper;
    b.addPrismatic("slide", "rail", "cart", Transform::Identity(), Vector3::UnitX(), limits);
    const Model model = b.build();
    for (const double speed : {1.0, -1.0}) {
      auto w = buildRigidBodyWorld(model, {}, Eigen::VectorXd::Zero(1),
                                   Eigen::VectorXd::Constant(1, speed));
      BridgeData bdata(model);
      Eigen::VectorXd q;
      double farthest = 0.0;  // along the direction of travel
      for (int i = 0; i < 360; ++i) {
        w->step();
        readPositions(model, *w->map, bdata, q);
        farthest = std::max(farthest, speed * q(0));
      }
      const double bound = speed > 0 ? c.upper : -c.lower;
      SCOPED_TRACE("limits [" + std::to_string(c.lower) + ", " + std::to_string(c.upper) +
                   "], speed " + std::to_string(speed));
      if (std::isfinite(bound)) {
        EXPECT_GT(farthest, bound - 1e-2);
        EXPECT_LT(farthest, bound + 1e-2);
      } else {
        EXPECT_NEAR(farthest, 1.5, kDouble ? 1e-9 : 1e-4);
      }
    }
  }
}

TEST(RigidBodyWorld, SwingTwistLimitsMakeAConeTwist) {
  const Model model = loadUrdf(test::modelPath("spherical_joint_limit/spherical_joint_limit.urdf"));
  auto w = buildRigidBodyWorld(model);
  int cones = 0;
  for (int k = 1; k < model.numLinks(); ++k) {
    if (model.joints[k].type != JointType::Ball) continue;
    auto* cone = dynamic_cast<btConeTwistConstraint*>(w->map->constraint(k));
    ASSERT_NE(cone, nullptr) << model.joints[k].name;
    const JointDescription& d =
        model.description->joints[model.description->findJoint(model.joints[k].name)];
    EXPECT_NEAR(cone->getSwingSpan1(), d.swing1, 1e-6);
    EXPECT_NEAR(cone->getSwingSpan2(), d.swing2, 1e-6);
    EXPECT_NEAR(cone->getTwistSpan(), d.twist, 1e-6);
    ++cones;
  }
  EXPECT_EQ(cones, 1);
}

TEST(RigidBodyWorld, UniversalJointThroughAMasslessLink) {
  const Model model = test::universalModel();
  Eigen::VectorXd q = neutralConfiguration(model);
  q(model.joints[model.jointIndex("u1")].idx_q) = 0.4;
  q(model.joints[model.jointIndex("u2")].idx_q) = -0.7;
  auto w = buildRigidBodyWorld(model, {}, q);
  EXPECT_EQ(w->world->getNumCollisionObjects(), 2);
  ASSERT_EQ(w->world->getNumConstraints(), 1);
  EXPECT_NE(dynamic_cast<btUniversalConstraint*>(w->world->getConstraint(0)), nullptr);
  const int cross = model.linkIndex("cross");
  EXPECT_EQ(w->map->body(cross), nullptr);
  EXPECT_EQ(w->map->constraint(cross), w->map->constraint(model.linkIndex("arm")));
  expectBodiesMatchModel(model, *w, q);
}

// Meshes become convex hulls of their vertices (assimp): the iiwa's STL hulls enclose the
// link origins' neighbourhood and have a sensible size.
TEST(RigidBodyWorld, MeshCollisionShapesAreConvexHulls) {
  const Model model = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  auto w = buildRigidBodyWorld(model);
  for (int k = 0; k < model.numLinks(); ++k) {
    const auto* compound =
        dynamic_cast<const btCompoundShape*>(w->map->body(k)->getCollisionShape());
    ASSERT_NE(compound, nullptr);
    ASSERT_EQ(compound->getNumChildShapes(), 1) << model.link_names[k];
    const auto* hull = dynamic_cast<const btConvexHullShape*>(compound->getChildShape(0));
    ASSERT_NE(hull, nullptr);
    EXPECT_GE(hull->getNumPoints(), 4);
    btVector3 lo, hi;
    hull->getAabb(btTransform::getIdentity(), lo, hi);
    // iiwa links are 0.1 - 0.4 m across.
    const double size = (hi - lo).length();
    EXPECT_GT(size, 0.1) << model.link_names[k];
    EXPECT_LT(size, 0.6) << model.link_names[k];
  }
  // Without shapes: empty compounds.
  RigidBodyOptions options;
  options.collision_shapes = false;
  auto bare = buildRigidBodyWorld(model, options);
  const auto* compound =
      dynamic_cast<const btCompoundShape*>(bare->map->body(1)->getCollisionShape());
  ASSERT_NE(compound, nullptr);
  EXPECT_EQ(compound->getNumChildShapes(), 0);
}

// A model loaded s times as large (ModelOptions::scale) gives the world of the large robot: bodies
// where its kinematics puts them with its masses, and every collision shape s times as large
// (hull points and primitives' bounds; a hull's bounds carry Bullet's margin, which is not scaled).
TEST(RigidBodyWorld, ScaledModelsGiveScaledWorlds) {
  ModelOptions floating;
  floating.floating_base = true;
  const std::pair<const char*, ModelOptions> cases[] = {
      {"kuka_iiwa/model.urdf", {}}, {"humanoid_deepmimic/humanoid.urdf", floating}};
  for (const auto& [file, options] : cases) {
    SCOPED_TRACE(file);
    const double s = 0.25;
    ModelOptions scaled_options = options;
    scaled_options.scale = s;
    const Model model = loadUrdf(test::modelPath(file), options);
    const Model scaled = loadUrdf(test::modelPath(file), scaled_options);
    auto w = buildRigidBodyWorld(model);
    auto w_s = buildRigidBodyWorld(scaled);
    expectBodiesMatchModel(scaled, *w_s, neutralConfiguration(scaled));
    for (int k = 0; k < model.numLinks(); ++k) {
      const auto* compound =
          static_cast<const btCompoundShape*>(w->map->body(k)->getCollisionShape());
      const auto* compound_s =
          static_cast<const btCompoundShape*>(w_s->map->body(k)->getCollisionShape());
      ASSERT_EQ(compound_s->getNumChildShapes(), compound->getNumChildShapes());
      for (int i = 0; i < compound->getNumChildShapes(); ++i) {
        const btVector3 p = compound->getChildTransform(i).getOrigin();
        const btVector3 p_s = compound_s->getChildTransform(i).getOrigin();
        EXPECT_LT((p_s - s * p).length(), kTolerance) << model.link_names[k];
        const btCollisionShape* child = compound->getChildShape(i);
        const btCollisionShape* child_s = compound_s->getChildShape(i);
        if (const auto* hull = dynamic_cast<const btConvexHullShape*>(child)) {
          const auto* hull_s = static_cast<const btConvexHullShape*>(child_s);
          ASSERT_EQ(hull_s->getNumPoints(), hull->getNumPoints());
          for (int j = 0; j < hull->getNumPoints(); ++j) {
            const btVector3 d = hull_s->getUnscaledPoints()[j] - s * hull->getUnscaledPoints()[j];
            EXPECT_LT(d.length(), kTolerance) << model.link_names[k];
          }
        } else {
          btVector3 lo, hi, lo_s, hi_s;
          child->getAabb(btTransform::getIdentity(), lo, hi);
          child_s->getAabb(btTransform::getIdentity(), lo_s, hi_s);
          EXPECT_LT((lo_s - s * lo).length() + (hi_s - s * hi).length(), kTolerance)
              << model.link_names[k];
        }
      }
    }
  }
}

TEST(RigidBodyWorld, OptionsReachBullet) {
  const Model model = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  RigidBodyOptions options;
  options.solver_iterations = 37;
  options.erp = 0.45;
  options.cfm = 1e-7;
  options.linear_damping = 0.1;
  options.angular_damping = 0.2;
  options.ground_plane = true;
  auto w = buildRigidBodyWorld(model, options);
  EXPECT_EQ(w->world->getSolverInfo().m_numIterations, 37);
  EXPECT_NEAR(w->world->getSolverInfo().m_erp, 0.45, 1e-7);
  EXPECT_NEAR(w->world->getSolverInfo().m_globalCfm, 1e-7, 1e-12);
  EXPECT_NEAR(w->map->body(1)->getLinearDamping(), 0.1, 1e-7);
  EXPECT_NEAR(w->map->body(1)->getAngularDamping(), 0.2, 1e-7);
  EXPECT_EQ(w->world->getNumCollisionObjects(), model.numLinks() + 1);
  const btVector3 g = w->world->getGravity();
  EXPECT_NEAR(g.z(), model.gravity_W.z(), 1e-6);
}

// A chain folded so that its first and last links' boxes overlap (they are not joined): Bullet
// finds their contact with self_collision on and not with it off; the ground plane still touches
// them both ways.
TEST(RigidBodyWorld, SelfCollisionCanBeSwitchedOff) {
  const std::string box = R"(<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01"
      ixy="0" ixz="0" iyz="0"/></inertial><collision><geometry><box size="0.4 0.1 0.1"/>
      </geometry></collision>)";
  const std::string urdf = R"(<robot name="folded">
    <link name="a">)" + box +
                           R"(</link><link name="b">)" + box + R"(</link><link name="c">)" + box +
                           R"(</link>
    <joint name="ab" type="revolute"><parent link="a"/><child link="b"/>
      <origin xyz="0.2 0 0" rpy="0 0 1.5707963"/><axis xyz="0 0 1"/>
      <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
    <joint name="bc" type="revolute"><parent link="b"/><child link="c"/>
      <origin xyz="0.05 0 0" rpy="0 0 1.5707963"/><axis xyz="0 0 1"/>
      <limit lower="-3" upper="3" effort="1" velocity="1"/></joint></robot>)";
  ModelOptions floating;
  floating.floating_base = true;
  const Model model = buildModel(parseUrdfString(urdf), floating);
  Eigen::VectorXd q = neutralConfiguration(model);
  q(2) = 0.049;  // the boxes 1 mm into the ground
  const auto contactsBetween = [](RigidBodyWorld& w, const btCollisionObject* x,
                                  const btCollisionObject* y) {
    int points = 0;
    btDispatcher* dispatcher = w.world->getDispatcher();
    for (int i = 0; i < dispatcher->getNumManifolds(); ++i) {
      const btPersistentManifold* m = dispatcher->getManifoldByIndexInternal(i);
      const bool pair =
          (m->getBody0() == x && m->getBody1() == y) || (m->getBody0() == y && m->getBody1() == x);
      if (pair) points += m->getNumContacts();
    }
    return points;
  };
  for (bool self_collision : {true, false}) {
    RigidBodyOptions options;
    options.ground_plane = true;
    options.self_collision = self_collision;
    auto w = buildRigidBodyWorld(model, options, q);
    w->world->performDiscreteCollisionDetection();
    const btCollisionObject* a = w->map->body(model.linkIndex("a"));
    const btCollisionObject* c = w->map->body(model.linkIndex("c"));
    const btCollisionObject* ground = w->bodies.back().get();
    EXPECT_EQ(contactsBetween(*w, a, c) > 0, self_collision);
    EXPECT_GT(contactsBetween(*w, a, ground), 0);
    EXPECT_GT(contactsBetween(*w, c, ground), 0);
  }
}

TEST(RigidBodyWorld, RejectsWhatBulletCannotRepresent) {
  // A massless link that is not a universal's middle (a marker kept by an unmerged fixed joint).
  {
    ModelBuilder b("massless_tip");
    b.addLink("base", 1.0, Vector3::Zero(), Matrix3::Identity() * 0.01);
    b.addLink("arm", 1.0, Vector3(0, 0, -0.2), Matrix3::Identity() * 0.01);
    b.addLink("marker", 0.0, Vector3::Zero(), Matrix3::Zero());
    b.addRevolute("j1", "base", "arm", Transform(), Vector3::UnitY());
    b.addFixed("j2", "arm", "marker", Transform());
    ModelOptions options;
    options.merge_fixed_joints = false;
    const Model model = b.build(options);
    try {
      buildRigidBodyWorld(model);
      FAIL() << "a massless tip link was accepted";
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("'marker'"), std::string::npos) << e.what();
    }
  }
  // A zero principal moment (Bullet would lock that rotation).
  {
    ModelBuilder b("rod");
    b.addLink("rod", 1.0, Vector3(0, 0, -0.5), Vector3(0.1, 0.1, 0.0).asDiagonal());
    b.addRevolute("hinge", "world", "rod", Transform(), Vector3::UnitX());
    const Model model = b.build();
    try {
      buildRigidBodyWorld(model);
      FAIL() << "a zero principal moment was accepted";
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("'rod'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("zero principal moment"), std::string::npos);
    }
  }
  // Bad options and a bad configuration.
  const Model model = loadUrdf(test::modelPath("pendulum5/pendulum5.urdf"));
  RigidBodyOptions options;
  options.substep = 0.0;
  EXPECT_THROW(buildRigidBodyWorld(model, options), InvalidArgumentError);
  Eigen::VectorXd q = neutralConfiguration(model);
  q(0) = std::nan("");
  EXPECT_THROW(buildRigidBodyWorld(model, {}, q), InvalidArgumentError);
  EXPECT_THROW(buildRigidBodyWorld(model, {}, Eigen::VectorXd::Zero(model.nq + 1)),
               InvalidArgumentError);
}

}  // namespace
}  // namespace gcbridge
