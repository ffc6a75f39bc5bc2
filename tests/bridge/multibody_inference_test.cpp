// A model read out of a btMultiBody: of every body gcbridge's builder makes (the same dynamics as
// the model it was made from, in the coordinates the read-back layout gives), of a body built by
// hand the way Bullet's examples build one (its forward dynamics against Bullet's own step), with
// fixed links merged, driven by the plugin, and the bodies it refuses.

#include <gtest/gtest.h>

#include <BulletDynamics/Featherstone/btMultiBodyJointLimitConstraint.h>
#include <BulletDynamics/Featherstone/btMultiBodyJointMotor.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <BulletDynamics/Featherstone/btMultiBodyPoint2Point.h>

#include <Eigen/Dense>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gcbridge/bridge/multibody_builder.hpp"
#include "gcbridge/bridge/multibody_inference.hpp"
#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/rnea.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "gcbridge/plugin/plugin.hpp"
#include "bullet_apps.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

// Tolerances in Bullet's precision. Dynamics: two models of one body in different link frames,
// relative to the largest entry (floor 1); against Bullet's own step, two ABA implementations.
constexpr bool kDouble = sizeof(btScalar) == 8;
constexpr double kModelTolerance = kDouble ? 1e-12 : 1e-4;
constexpr double kStepTolerance = kDouble ? 1e-10 : 1e-3;
constexpr double kStep = 1e-3;

struct Case {
  std::string label;
  Model model;
};

// Every shipped model as it is meant to be loaded, the planar mechanism, and random trees
// (revolute, prismatic, ball and fixed joints, non-diagonal inertias), fixed and floating.
std::vector<Case> cases() {
  std::vector<Case> result;
  for (const test::ShippedModel& s : test::shippedModels()) {
    ModelOptions options;
    options.floating_base = s.floating;
    result.push_back({s.file, loadUrdf(test::modelPath(s.file), options)});
  }
  result.push_back({"planar mechanism", test::planarMechanismModel(false)});
  result.push_back({"planar mechanism floating", test::planarMechanismModel(true)});
  for (bool floating : {false, true}) {
    result.push_back({std::string("random tree ") + (floating ? "floating" : "fixed"),
                      test::randomTreeModel(floating ? 41 : 40, 12,
                                            BallParametrization::Quaternion, floating)});
  }
  return result;
}

// |a - b|_inf / max(1, |b|_inf).
double relativeError(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

// A body's state read through two layouts: T maps the first model's v to the second's
// (v_2 = T v_1, constant: both are velocities of frames fixed on the links).
struct TwoReadings {
  Eigen::VectorXd q2, v2;
  Eigen::MatrixXd T;
};

TwoReadings readThrough(const Model& m1, const MultiBodyLayout& l1, const Model& m2,
                        const MultiBodyLayout& l2, btMultiBody& body, const Eigen::VectorXd& q1,
                        const Eigen::VectorXd& v1) {
  TwoReadings r;
  r.T.resize(m2.nv, m1.nv);
  Eigen::VectorXd q2;
  for (int j = 0; j < m1.nv; ++j) {
    setMultiBodyState(m1, l1, body, q1, Eigen::VectorXd::Unit(m1.nv, j));
    getMultiBodyState(m2, l2, body, q2, r.v2);
    r.T.col(j) = r.v2;
  }
  setMultiBodyState(m1, l1, body, q1, v1);
  getMultiBodyState(m2, l2, body, r.q2, r.v2);
  return r;
}

// Whether T is constant over time: no planar joint (a planar joint's v is its link origin's
// velocity in the parent's axes, and the two models' link origins differ, by a vector that turns).
bool constantMap(const Model& model) {
  for (const Joint& joint : model.joints) {
    if (joint.type == JointType::Planar) return false;
  }
  return true;
}

// The two models give one body the same dynamics at (q1, v1, tau1): M and g mapped by T, and
// where T is constant h and ABA too (tau1 = T^T tau2, a2 = T a1). The state is set through m1 and
// l1, and the dynamics of the first side are those of `dynamics1` (m1 if not given), a model with
// m1's coordinates.
void expectSameDynamics(const Model& m1, const MultiBodyLayout& l1, const Model& m2,
                        const MultiBodyLayout& l2, btMultiBody& body, std::uint64_t seed,
                        const std::string& label, const Model* dynamics1 = nullptr) {
  const Eigen::VectorXd q1 = randomConfiguration(m1, seed);
  const Eigen::VectorXd v1 = randomVector(m1.nv, seed + 10, 2.0);
  const Eigen::VectorXd tau1 = randomVector(m1.nv, seed + 20, 10.0);
  const TwoReadings r = readThrough(m1, l1, m2, l2, body, q1, v1);
  ASSERT_EQ(r.T.rows(), r.T.cols()) << label;
  const Model& d1_model = dynamics1 != nullptr ? *dynamics1 : m1;
  ASSERT_EQ(d1_model.nq, m1.nq) << label;
  const Eigen::VectorXd tau2 = r.T.transpose().fullPivLu().solve(tau1);
  Data d1(d1_model), d2(m2);
  const Eigen::MatrixXd M1 = crba(d1_model, d1, q1);
  const Eigen::MatrixXd M2 = crba(m2, d2, r.q2);
  EXPECT_LT(relativeError(r.T.transpose() * M2 * r.T, M1), kModelTolerance) << label << " M";
  const Eigen::VectorXd g1 = computeGeneralizedGravity(d1_model, d1, q1);
  const Eigen::VectorXd g2 = computeGeneralizedGravity(m2, d2, r.q2);
  EXPECT_LT(relativeError(r.T.transpose() * g2, g1), kModelTolerance) << label << " g";
  if (!constantMap(m1)) return;
  const Eigen::VectorXd h1 = nonLinearEffects(d1_model, d1, q1, v1);
  const Eigen::VectorXd h2 = nonLinearEffects(m2, d2, r.q2, r.v2);
  EXPECT_LT(relativeError(r.T.transpose() * h2, h1), kModelTolerance) << label << " h";
  const Eigen::VectorXd a1 = aba(d1_model, d1, q1, v1, tau1);
  const Eigen::VectorXd a2 = aba(m2, d2, r.q2, r.v2, tau2);
  EXPECT_LT(relativeError(a2, r.T * a1), kModelTolerance) << label << " ABA";
}

// Bullet's velocity vector (base omega and COM velocity in W, joint rates), in double.
Eigen::VectorXd bulletVelocities(const btMultiBody& body) {
  const int n = 6 + body.getNumDofs();
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v(i) = body.getVelocityVector()[i];
  return v;
}

// The model's ABA at a random state against one step of Bullet's own world with the body there.
void expectBulletsStep(const Model& model, const MultiBodyLayout& layout, btMultiBody& body,
                       btMultiBodyDynamicsWorld& world, std::uint64_t seed,
                       const std::string& label) {
  const Eigen::VectorXd q = randomConfiguration(model, seed);
  const Eigen::VectorXd v = randomVector(model.nv, seed + 30, 2.0);
  const Eigen::VectorXd tau = randomVector(model.nv, seed + 40, 5.0);
  setMultiBodyState(model, layout, body, q, v);
  setMultiBodyJointTorques(model, layout, body, tau);
  const Eigen::VectorXd before = bulletVelocities(body);
  ASSERT_EQ(world.stepSimulation(kStep, 1, kStep), 1) << label;
  const Eigen::VectorXd change = (bulletVelocities(body) - before) / kStep;
  setMultiBodyState(model, layout, body, q, v);
  const std::vector<btScalar> accelerations(change.data(), change.data() + change.size());
  Eigen::VectorXd a_bullet;
  getMultiBodyAcceleration(model, layout, body, accelerations.data(), a_bullet);
  Data data(model);
  EXPECT_LT(relativeError(a_bullet, aba(model, data, q, v, tau)), kStepTolerance) << label;
}

// Every body the builder makes reads back as a model with the same dynamics; where the model's
// link frames are Bullet's (revolute, prismatic and fixed joints below a fixed base, inertias
// diagonal in the link frames: the iiwa, the pendulum), the same q and v too.
TEST(MultiBodyInference, ReadsBackEveryBuiltModel) {
  for (const Case& c : cases()) {
    const auto w = buildMultiBody(c.model);
    MultiBodyInferenceOptions options;
    options.world = w->world.get();
    options.merge_fixed_joints = false;
    const InferredMultiBody inferred = inferModelFromMultiBody(*w->body, options);
    EXPECT_EQ(inferred.model.nv, c.model.nv) << c.label;
    EXPECT_EQ(inferred.model.floating_base, c.model.floating_base) << c.label;
    EXPECT_TRUE(matricesNear(inferred.model.gravity_W, c.model.gravity_W, kDouble ? 0.0 : 1e-6))
        << c.label;  // the world holds it in Bullet's precision
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const std::string label = c.label + ", seed " + std::to_string(seed);
      expectSameDynamics(c.model, w->layout, inferred.model, inferred.layout, *w->body, seed,
                         label);
      expectBulletsStep(inferred.model, inferred.layout, *w->body, *w->world, seed, label);
    }
  }
  for (const char* file : {"kuka_iiwa/model.urdf", "pendulum5/pendulum5.urdf"}) {
    const Model model = loadUrdf(test::modelPath(file));
    const Eigen::VectorXd q = randomConfiguration(model, 3);
    const Eigen::VectorXd v = randomVector(model.nv, 4, 2.0);
    const auto w = buildMultiBody(model, {}, q, v);
    const InferredMultiBody inferred = inferModelFromMultiBody(*w->body);
    EXPECT_TRUE(matricesNear(inferred.q, q, kDouble ? 1e-15 : 1e-6)) << file;
    EXPECT_TRUE(matricesNear(inferred.v, v, kDouble ? 1e-15 : 1e-6)) << file;
  }
}

// A body built from a URDF with its fixed links kept reads back, fixed links merged, as the model
// of the URDF loaded with them merged: the same links, names and dynamics.
TEST(MultiBodyInference, MergesFixedLinksAsUrdfLoadingDoes) {
  for (const test::ShippedModel& s : test::shippedModels()) {
    ModelOptions options;
    options.floating_base = s.floating;
    options.merge_fixed_joints = false;
    const Model kept = loadUrdf(test::modelPath(s.file), options);
    options.merge_fixed_joints = true;
    const Model merged = loadUrdf(test::modelPath(s.file), options);
    const auto w = buildMultiBody(kept);
    const InferredMultiBody inferred = inferModelFromMultiBody(*w->body);
    EXPECT_EQ(inferred.model.link_names, merged.link_names) << s.file;
    ASSERT_EQ(inferred.model.nv, merged.nv) << s.file;
    // Bullet names no joint on the base: a welded or free root's joint is "root_joint".
    const JointType root = merged.joints[0].type;
    const int first = root == JointType::Fixed || root == JointType::Free ? 1 : 0;
    for (int k = first; k < merged.numLinks(); ++k) {
      EXPECT_EQ(inferred.model.joints[k].name, merged.joints[k].name) << s.file;
    }
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      expectSameDynamics(kept, w->layout, inferred.model, inferred.layout, *w->body, seed,
                         std::string(s.file) + ", seed " + std::to_string(seed), &merged);
    }
  }
}

// Inference options reading the example's world.
MultiBodyInferenceOptions optionsFor(const test::MultiDofExample& example) {
  MultiBodyInferenceOptions options;
  options.world = example.w->world.get();
  return options;
}

// The example body's model: its links named after the body's names or generated, the fixed link
// merged, the limit of its joint, its joints' types; the state it was in, as Bullet has it.
TEST(MultiBodyInference, ReadsABodyBuiltLikeBulletsExamples) {
  test::MultiDofExample example(/*fixed_base=*/false);
  btMultiBody& body = *example.body;
  example.add(new btMultiBodyJointLimitConstraint(&body, 1, -1.0, 1.2));
  example.addBoxCollider(-1, btVector3(0.05, 0.37, 0.1));
  example.addBoxCollider(2, btVector3(0.05, 0.37, 0.1));
  body.setJointPos(1, 0.4);
  body.setJointVel(1, -0.3);
  const btScalar ball[4] = {btScalar(0.1), btScalar(-0.2), btScalar(0.3), btSqrt(btScalar(0.86))};
  body.setJointPosMultiDof(0, ball);
  const InferredMultiBody inferred = inferModelFromMultiBody(body, optionsFor(example));
  const Model& model = inferred.model;
  EXPECT_EQ(model.name, "torso");
  EXPECT_TRUE(model.floating_base);
  EXPECT_EQ(model.link_names, (std::vector<std::string>{"torso", "link0", "upper_arm", "link2",
                                                        "link4", "link6", "link5"}));
  EXPECT_EQ(model.nv, 6 + 3 + 1 + 1 + 1 + 3 + 3);
  const Joint& shoulder = model.joints[model.linkIndex("upper_arm")];
  EXPECT_EQ(shoulder.name, "shoulder");
  EXPECT_EQ(shoulder.type, JointType::Revolute);
  EXPECT_EQ(shoulder.limits.lower, -1.0);
  EXPECT_EQ(shoulder.limits.upper, double(btScalar(1.2)));
  EXPECT_EQ(model.joints[model.linkIndex("link0")].type, JointType::Ball);
  EXPECT_EQ(model.joints[model.linkIndex("link2")].type, JointType::Prismatic);
  EXPECT_EQ(model.joints[model.linkIndex("link6")].type, JointType::Planar);
  EXPECT_EQ(model.joints[model.linkIndex("link4")].name, "link4_joint");
  EXPECT_EQ(model.frames.size(), 8u);  // link3 merged into link2, a frame there
  EXPECT_NEAR(model.totalMass(), 8.0, 1e-12);
  EXPECT_NEAR(inferred.q(shoulder.idx_q), 0.4, kDouble ? 1e-15 : 1e-6);
  EXPECT_NEAR(inferred.v(shoulder.idx_v), -0.3, kDouble ? 1e-15 : 1e-6);
  const int ball_q = model.joints[model.linkIndex("link0")].idx_q;
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(inferred.q(ball_q + i), ball[i], kDouble ? 1e-15 : 1e-6);
  // The colliders as the links' collision shapes, in the link frames (the COM frame for the base).
  const LinkDescription& base = model.description->links[0];
  ASSERT_EQ(base.collisions.size(), 1u);
  EXPECT_TRUE(matricesNear(base.collisions[0].geometry.box_size, Vector3(0.1, 0.74, 0.2),
                           kDouble ? 1e-15 : 1e-6));
  const LinkDescription& prismatic = model.description->links[3];
  ASSERT_EQ(prismatic.collisions.size(), 1u);
  EXPECT_TRUE(matricesNear(prismatic.collisions[0].X_LG.translation(), Vector3(0, -0.37, 0),
                           kDouble ? 1e-15 : 1e-6));
  EXPECT_TRUE(inferred.warnings.empty()) << inferred.warnings.front();
}

// The read model's forward dynamics are Bullet's own step of the body it was read from, floating
// and fixed, fixed links merged or kept.
TEST(MultiBodyInference, ForwardDynamicsEqualBulletsStep) {
  for (bool fixed_base : {false, true}) {
    for (bool merge : {true, false}) {
      test::MultiDofExample example(fixed_base);
      MultiBodyInferenceOptions options = optionsFor(example);
      options.merge_fixed_joints = merge;
      const InferredMultiBody inferred = inferModelFromMultiBody(*example.body, options);
      EXPECT_EQ(inferred.model.numLinks(), merge ? 7 : 8);
      EXPECT_TRUE(matricesNear(inferred.model.gravity_W, Vector3(0, -10, 0), 0.0));
      for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        expectBulletsStep(inferred.model, inferred.layout, *example.body, *example.w->world, seed,
                          std::string(fixed_base ? "fixed" : "floating") +
                              (merge ? ", merged" : ", kept") + ", seed " +
                              std::to_string(seed));
      }
    }
  }
}

// A fixed base without mass, inertia, collider or name is left out of the model: its links hang
// from the world at the base's pose (here moved and turned), with Bullet's own dynamics.
TEST(MultiBodyInference, LeavesOutABareFixedBase) {
  test::MultiDofExample example(/*fixed_base=*/true);
  btMultiBody& body = *example.body;
  body.setBaseMass(0.0);
  body.setBaseInertia(btVector3(0, 0, 0));
  body.setBaseName(nullptr);
  const InferredMultiBody inferred = inferModelFromMultiBody(body, optionsFor(example));
  EXPECT_FALSE(inferred.layout.root_is_base);
  EXPECT_EQ(inferred.model.link_names.front(), "link0");
  EXPECT_EQ(inferred.model.parents[inferred.model.linkIndex("link0")], -1);
  EXPECT_EQ(inferred.model.numLinks(), 6);  // link3 merged into link2
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    expectBulletsStep(inferred.model, inferred.layout, body, *example.w->world, seed,
                      "bare base, seed " + std::to_string(seed));
  }
}

// What Bullet applies that the model leaves out is named: damping, the velocity clamp, a motor, a
// spherical limit; nothing in the body changes.
TEST(MultiBodyInference, ReportsWhatTheModelLeavesOut) {
  test::MultiDofExample example(false);
  btMultiBody& body = *example.body;
  body.setLinearDamping(0.04);
  body.setAngularDamping(0.04);
  body.setMaxCoordinateVelocity(100);
  example.add(new btMultiBodyJointMotor(&body, 4, 0.0, 1.0));
  const InferredMultiBody inferred = inferModelFromMultiBody(body, optionsFor(example));
  ASSERT_EQ(inferred.warnings.size(), 3u);
  EXPECT_NE(inferred.warnings[0].find("damping (linear 0.04, angular 0.04)"), std::string::npos);
  EXPECT_NE(inferred.warnings[1].find("clamped to +-100"), std::string::npos);
  EXPECT_NE(inferred.warnings[2].find(
                "(btMultiBodyJointMotor) on link 'link4' (Bullet link 4) drives"),
            std::string::npos)
      << inferred.warnings[2];
  EXPECT_EQ(inferred.settings.linear_damping, double(btScalar(0.04)));
  EXPECT_EQ(inferred.settings.max_coordinate_velocity, 100.0);
  EXPECT_EQ(body.getLinearDamping(), btScalar(0.04));
  EXPECT_EQ(example.w->world->getNumMultiBodyConstraints(), 1);
}

// The body's state as Bullet holds it: base pose, and the velocity vector (base and joints).
std::vector<btScalar> stateOf(const btMultiBody& body) {
  std::vector<btScalar> state;
  for (int i = 0; i < 3; ++i) state.push_back(body.getBasePos()[i]);
  for (int i = 0; i < 4; ++i) state.push_back(body.getWorldToBaseRot()[i]);
  for (int b = 0; b < body.getNumLinks(); ++b) {
    for (int i = 0; i < body.getLink(b).m_posVarCount; ++i) {
      state.push_back(body.getJointPosMultiDof(b)[i]);
    }
  }
  for (int i = 0; i < 6 + body.getNumDofs(); ++i) state.push_back(body.getVelocityVector()[i]);
  return state;
}

// The WorldError inferModelFromMultiBody throws for `body`, its message ("" if none); the body's
// state, settings and the world's constraints are unchanged.
std::string refusal(btMultiBody& body, const MultiBodyInferenceOptions& options) {
  const std::vector<btScalar> before = stateOf(body);
  const btScalar damping = body.getLinearDamping();
  const int constraints = options.world->getNumMultiBodyConstraints();
  std::string message;
  try {
    inferModelFromMultiBody(body, options);
  } catch (const WorldError& e) {
    message = e.what();
  }
  EXPECT_EQ(stateOf(body), before);
  EXPECT_EQ(body.getLinearDamping(), damping);
  EXPECT_EQ(options.world->getNumMultiBodyConstraints(), constraints);
  return message;
}

TEST(MultiBodyInference, RefusesWhatItCannotModelNamingTheLink) {
  {
    test::MultiDofExample example(false);
    example.body->getLink(4).m_mass = 0.0;
    EXPECT_NE(refusal(*example.body, optionsFor(example))
                  .find("link 'link4' (Bullet link 4) has mass 0; a link that moves"),
              std::string::npos);
  }
  {
    test::MultiDofExample example(false);
    example.body->getLink(1).m_inertiaLocal = btVector3(0.1, -1.0, 0.1);
    EXPECT_NE(refusal(*example.body, optionsFor(example)).find("link 'upper_arm' (Bullet link 1)"),
              std::string::npos);
  }
  {
    test::MultiDofExample example(false);
    example.body->getLink(1).m_axes[0].m_topVec = btVector3(2, 0, 0);
    EXPECT_NE(refusal(*example.body, optionsFor(example)).find("axis has length 2"),
              std::string::npos);
  }
  {
    test::MultiDofExample example(true);
    example.body->setBaseMass(0.0);  // a fixed base may have no mass
    EXPECT_EQ(refusal(*example.body, optionsFor(example)), "");
    test::MultiDofExample floating(false);
    floating.body->setBaseMass(-1.0);
    EXPECT_NE(refusal(*floating.body, optionsFor(floating)).find("base 'torso' has mass -1"),
              std::string::npos);
  }
  {
    test::MultiDofExample example(false);
    example.body->getLink(5).m_jointType = btMultibodyLink::eInvalid;
    EXPECT_NE(refusal(*example.body, optionsFor(example))
                  .find("link 'link5' (Bullet link 5) has a joint of type 5 (eInvalid"),
              std::string::npos);
  }
  {
    test::MultiDofExample example(false);
    example.body->getLink(2).m_dofCount = 2;  // as if set up twice
    EXPECT_NE(refusal(*example.body, optionsFor(example)).find("the body counts 12 dofs, its "
                                                               "links 13"),
              std::string::npos);
  }
  {
    // A name the application gave that another link's generated name takes: buildModel's error.
    test::MultiDofExample example(false);
    example.body->getLink(4).m_linkName = "link2";
    EXPECT_THROW(inferModelFromMultiBody(*example.body, optionsFor(example)), ModelError);
  }
  {
    test::MultiDofExample example(false);
    example.body->getLink(2).m_parent = 4;
    EXPECT_NE(refusal(*example.body, optionsFor(example)).find("has parent 4"), std::string::npos);
  }
  {
    test::MultiDofExample example(false);
    example.addBoxCollider(4, btVector3(0.05, 0.37, 0.1));
    example.body->setLinkDynamicType(4, btCollisionObject::CF_KINEMATIC_OBJECT);
    EXPECT_NE(refusal(*example.body, optionsFor(example)).find("link 'link4' (Bullet link 4) is "
                                                             "static or kinematic"),
              std::string::npos);
  }
  {
    test::MultiDofExample example(false);
    example.add(new btMultiBodyPoint2Point(example.body, 4, example.body, -1, btVector3(0, 0, 0),
                                           btVector3(0, 1, 0)));
    const std::string message = refusal(*example.body, optionsFor(example));
    EXPECT_NE(message.find("multibody constraint 0 (btMultiBodyPoint2Point) on link 'link4' "
                           "(Bullet link 4) closes a loop"),
              std::string::npos)
        << message;
  }
}

// The plugin drives a body read back from Bullet as it drives the body gcbridge built from the
// model: the same torques, the same motion.
TEST(MultiBodyInference, ThePluginDrivesAReadBackBodyAsABuiltOne) {
  const Model iiwa = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  const Eigen::VectorXd q0 = randomConfiguration(iiwa, 5);
  const auto built = buildMultiBody(iiwa, {}, q0);
  const auto theirs = buildMultiBody(iiwa, {}, q0);
  MultiBodyInferenceOptions options;
  options.world = theirs->world.get();
  const InferredMultiBody inferred = inferModelFromMultiBody(*theirs->body, options);
  // PD with gravity compensation towards the zero configuration, each with its own model.
  const auto pd = [](const Model& model) {
    return [&model, data = std::make_shared<Data>(model)](
               double, const Eigen::VectorXd& q, const Eigen::VectorXd& v, Eigen::VectorXd& tau) {
      tau = computeGeneralizedGravity(model, *data, q) - 50.0 * q - 5.0 * v;
    };
  };
  auto a = attachMultiBody(*built->world, iiwa, built->layout, *built->body, pd(iiwa));
  auto b = attachMultiBody(*theirs->world, inferred.model, inferred.layout, *theirs->body,
                           pd(inferred.model));
  for (int step = 0; step < 500; ++step) {
    built->world->stepSimulation(kStep, 1, kStep);
    theirs->world->stepSimulation(kStep, 1, kStep);
  }
  Eigen::VectorXd qa, va, qb, vb;
  getMultiBodyState(iiwa, built->layout, *built->body, qa, va);
  getMultiBodyState(inferred.model, inferred.layout, *theirs->body, qb, vb);
  EXPECT_TRUE(matricesNear(qb, qa, kDouble ? 1e-12 : 1e-4));
  EXPECT_TRUE(matricesNear(vb, va, kDouble ? 1e-11 : 1e-3));
  EXPECT_GT((qa - q0).norm(), 0.1);  // it moved
}

}  // namespace
}  // namespace gcbridge
