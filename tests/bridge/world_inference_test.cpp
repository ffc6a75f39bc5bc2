// inferModelFromWorld on Bullet worlds built by hand, the way applications build them: the model's
// structure, masses and frames for every supported constraint, its kinematics against the bodies
// at inference and after the world has moved, its limits against Bullet's own angle getters,
// every rejection (with the world left untouched), and the body claims.

#include "gcbridge/bridge/world_inference.hpp"

#include <BulletDynamics/ConstraintSolver/btFixedConstraint.h>
#include <BulletDynamics/ConstraintSolver/btGearConstraint.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofSpring2Constraint.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofSpringConstraint.h>
#include <BulletDynamics/ConstraintSolver/btHinge2Constraint.h>
#include <BulletDynamics/ConstraintSolver/btUniversalConstraint.h>
#include <BulletDynamics/Dynamics/btSimpleDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <btBulletDynamicsCommon.h>
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bullet_apps.hpp"
#include "bullet_test_world.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

// Poses composed from a few Bullet transforms: round-off of the Bullet precision.
constexpr bool kDouble = sizeof(btScalar) == 8;
constexpr double kPoseTolerance = kDouble ? 1e-12 : 1e-5;
// Angles, limits and positions read back through Bullet's getters, and the round-off floor of the
// joint-error bounds: a few operations in the Bullet precision.
constexpr double kReadTolerance = kDouble ? 1e-12 : 2e-5;
constexpr double kRoundOff = kDouble ? 1e-9 : 1e-5;

using test::axisInBody;
using test::BasicTestWorld;
using test::frameWithAxis;
using test::fromBt;
using test::inBody;
using test::pointInBody;
using test::pose;
using test::TestWorld;
using test::toBt;

/// Everything inference could write: body states, the constraint list and enabled flags.
struct Snapshot {
  explicit Snapshot(btDynamicsWorld& world) {
    for (int i = 0; i < world.getNumCollisionObjects(); ++i) {
      const btRigidBody* body = btRigidBody::upcast(world.getCollisionObjectArray()[i]);
      poses.push_back(fromBt(body->getCenterOfMassTransform()).toHomogeneous());
      velocities.push_back(fromBt(body->getLinearVelocity()));
      velocities.push_back(fromBt(body->getAngularVelocity()));
      inverse_masses.push_back(body->getInvMass());
    }
    for (int i = 0; i < world.getNumConstraints(); ++i) {
      constraints.push_back(world.getConstraint(i));
      enabled.push_back(world.getConstraint(i)->isEnabled());
    }
  }
  bool operator==(const Snapshot& o) const {
    return poses == o.poses && velocities == o.velocities && inverse_masses == o.inverse_masses &&
           constraints == o.constraints && enabled == o.enabled;
  }
  std::vector<Eigen::Matrix4d> poses;
  std::vector<Vector3> velocities;
  std::vector<double> inverse_masses;
  std::vector<btTypedConstraint*> constraints;
  std::vector<bool> enabled;
};

/// Infers, checking the world is unchanged.
InferredModel infer(TestWorld& w, const InferenceOptions& options) {
  const Snapshot before(w.world());
  InferredModel inferred = inferModelFromWorld(w.world(), options);
  EXPECT_TRUE(Snapshot(w.world()) == before) << "inference changed the world";
  return inferred;
}

/// Expects inference to throw a WorldError whose message holds every piece, and to leave the
/// world unchanged.
void expectRejected(TestWorld& w, const InferenceOptions& options,
                    const std::vector<std::string>& pieces) {
  const Snapshot before(w.world());
  try {
    inferModelFromWorld(w.world(), options);
    ADD_FAILURE() << "no WorldError";
  } catch (const WorldError& e) {
    const std::string message = e.what();
    for (const std::string& piece : pieces) {
      EXPECT_NE(message.find(piece), std::string::npos) << "'" << piece << "' not in: " << message;
    }
  }
  EXPECT_TRUE(Snapshot(w.world()) == before) << "a rejected inference changed the world";
}

/// The configuration that puts the model where the bodies are now, read with the model's own
/// joint frames: revolute angles about the axis, prismatic offsets along it, ball quaternions,
/// the free root's pose. Bodiless links (universal cross links) are not handled.
Eigen::VectorXd configurationFromBodies(const InferredModel& inferred) {
  const Model& model = inferred.model;
  const RigidBodyMap& map = *inferred.map;
  Eigen::VectorXd q = neutralConfiguration(model);
  std::vector<Transform> X_WL(model.numLinks());
  for (int k = 0; k < model.numLinks(); ++k) {
    X_WL[k] = fromBt(map.body(k)->getCenterOfMassTransform()) * map.X_LB(k).inverse();
    const Joint& joint = model.joints[k];
    const Transform X_WP = model.parents[k] < 0 ? Transform() : X_WL[model.parents[k]];
    const Transform X_JC = (X_WP * joint.X_PJ).inverse() * X_WL[k];
    double* q_joint = q.data() + joint.idx_q;
    switch (joint.type) {
      case JointType::Revolute: {
        // The rotation of a vector orthogonal to the axis, about the axis.
        const Vector3 u = joint.axis.unitOrthogonal();
        const Vector3 v = X_JC.rotation() * u;
        q_joint[0] = std::atan2(joint.axis.dot(u.cross(v)), u.dot(v));
        break;
      }
      case JointType::Prismatic:
        q_joint[0] = joint.axis.dot(X_JC.translation());
        break;
      case JointType::Ball: {
        const Quaternion Q(X_JC.rotation());
        q_joint[0] = Q.x(), q_joint[1] = Q.y(), q_joint[2] = Q.z(), q_joint[3] = Q.w();
        break;
      }
      case JointType::Free: {
        const Quaternion Q(X_JC.rotation());
        for (int i = 0; i < 3; ++i) q_joint[i] = X_JC.translation()(i);
        q_joint[3] = Q.x(), q_joint[4] = Q.y(), q_joint[5] = Q.z(), q_joint[6] = Q.w();
        break;
      }
      case JointType::Planar: {
        const Matrix3 E = planarJointFrame(joint.axis);
        const Vector3 u = E.col(0);
        const Vector3 v = X_JC.rotation() * u;
        q_joint[0] = E.col(0).dot(X_JC.translation());
        q_joint[1] = E.col(1).dot(X_JC.translation());
        q_joint[2] = std::atan2(joint.axis.dot(u.cross(v)), u.dot(v));
        break;
      }
      case JointType::Fixed:
        break;
    }
  }
  return q;
}

/// The body poses the model puts each body at for q: X_WL(k) X_LB(k) (nullptr-body links skipped).
std::vector<Transform> bodyPoses(const InferredModel& inferred, const Eigen::VectorXd& q) {
  Data data(inferred.model);
  forwardKinematics(inferred.model, data, q);
  std::vector<Transform> X_WB(inferred.model.numLinks());
  for (int k = 0; k < inferred.model.numLinks(); ++k) {
    X_WB[k] = data.X_WB[k] * inferred.map->X_LB(k);
  }
  return X_WB;
}

/// The model's configuration at inference, read from the bodies as at any later time.
Eigen::VectorXd configurationAtInference(const InferredModel& inferred) {
  BridgeData bdata(inferred.model);
  Eigen::VectorXd q(inferred.model.nq);
  readPositions(inferred.model, *inferred.map, bdata, q);
  return q;
}

/// At inference the model reproduces every body's COM frame.
void expectBodiesReproduced(const InferredModel& inferred) {
  const std::vector<Transform> X_WB = bodyPoses(inferred, configurationAtInference(inferred));
  for (int k = 0; k < inferred.model.numLinks(); ++k) {
    const btRigidBody* body = inferred.map->body(k);
    if (body == nullptr) continue;
    EXPECT_TRUE(matricesNear(X_WB[k].toHomogeneous(),
                             fromBt(body->getCenterOfMassTransform()).toHomogeneous(),
                             kPoseTolerance))
        << "link " << inferred.model.link_names[k];
  }
}

/// Mass and inertia of each link are its body's: mass 1/invMass, COM at X_LB's translation,
/// principal inertia about the COM in L (= B's axes).
void expectInertiasFromBodies(const InferredModel& inferred) {
  for (int k = 0; k < inferred.model.numLinks(); ++k) {
    const btRigidBody* body = inferred.map->body(k);
    const Inertia& inertia = inferred.model.inertias[k];
    if (body == nullptr) {
      EXPECT_EQ(inertia.mass(), 0.0);
      continue;
    }
    EXPECT_DOUBLE_EQ(inertia.mass(), 1.0 / body->getInvMass());
    EXPECT_TRUE(matricesNear(inertia.com(), inferred.map->X_LB(k).translation(), 0.0));
    EXPECT_TRUE(matricesNear(inertia.inertiaAboutCom(),
                             Matrix3(fromBt(body->getLocalInertia()).asDiagonal()), 0.0));
    EXPECT_TRUE(matricesNear(inferred.map->X_LB(k).rotation(), Matrix3::Identity(), 0.0));
  }
}

/// Joint k's origin and axis in the world at inference (the child frame C = J at q = 0).
Transform jointFrameAtInference(const InferredModel& inferred, int k) {
  Data data(inferred.model);
  forwardKinematics(inferred.model, data, configurationAtInference(inferred));
  return data.X_WB[k];
}
Vector3 jointAxisAtInference(const InferredModel& inferred, int k) {
  return jointFrameAtInference(inferred, k).rotation() * inferred.model.joints[k].axis;
}

/// The bodies' poses for configuration q: each body's transform as the model places it, static
/// bodies where they are.
btTransform bodyPoseAt(const InferredModel& inferred, const std::vector<Transform>& X_WB,
                       const btRigidBody& body) {
  const int k = inferred.map->linkOf(&body);
  return k < 0 ? body.getCenterOfMassTransform() : toBt(X_WB[k]);
}

/// q with joint `name` at `value`, every other joint at its inference value.
Eigen::VectorXd withJoint(const InferredModel& inferred, const std::string& name, double value) {
  Eigen::VectorXd q = configurationAtInference(inferred);
  q(inferred.model.joints[inferred.model.jointIndex(name)].idx_q) = value;
  return q;
}

/// Largest distance between the model's and Bullet's bodies, and largest rotation between them.
void bodyErrors(const InferredModel& inferred, const Eigen::VectorXd& q, std::vector<double>& dp,
                std::vector<double>& dr) {
  const std::vector<Transform> X_WB = bodyPoses(inferred, q);
  dp.assign(inferred.model.numLinks(), 0.0);
  dr.assign(inferred.model.numLinks(), 0.0);
  for (int k = 0; k < inferred.model.numLinks(); ++k) {
    const Transform X = fromBt(inferred.map->body(k)->getCenterOfMassTransform());
    dp[k] = (X_WB[k].translation() - X.translation()).norm();
    dr[k] = Eigen::AngleAxisd(X_WB[k].rotation().transpose() * X.rotation()).angle();
  }
}

/// Bullet's own error of a hinge, point-to-point or cone-twist constraint, from its frames and the
/// bodies: pivot separation [m] and, for a hinge, the angle between the two bodies' axes [rad].
void bulletJointError(btTypedConstraint* c, double& separation, double& misalignment) {
  const Transform X_WA = fromBt(c->getRigidBodyA().getCenterOfMassTransform());
  const Transform X_WB = fromBt(c->getRigidBodyB().getCenterOfMassTransform());
  separation = 0.0;
  misalignment = 0.0;
  if (auto* hinge = dynamic_cast<btHingeConstraint*>(c)) {
    const Transform A = X_WA * fromBt(hinge->getAFrame()), B = X_WB * fromBt(hinge->getBFrame());
    separation = (A.translation() - B.translation()).norm();
    misalignment = std::acos(std::min(1.0, A.rotation().col(2).dot(B.rotation().col(2))));
  } else if (auto* p2p = dynamic_cast<btPoint2PointConstraint*>(c)) {
    separation =
        (X_WA.actPoint(fromBt(p2p->getPivotInA())) - X_WB.actPoint(fromBt(p2p->getPivotInB())))
            .norm();
  } else if (auto* cone = dynamic_cast<btConeTwistConstraint*>(c)) {
    separation = ((X_WA * fromBt(cone->getAFrame())).translation() -
                  (X_WB * fromBt(cone->getBFrame())).translation())
                     .norm();
  } else {
    ADD_FAILURE() << "no error measure for this constraint";
  }
}

/// After the world moved: the model at the configuration read from the bodies reproduces every
/// body to within the error the constraints themselves allow. To first order, joint j displaces
/// body k by its pivot separation plus its axis misalignment times the lever arm from its pivot
/// to k's COM, and rotates it by the misalignment; the bound sums these along k's path (factor 2
/// for second-order terms, kRoundOff for round-off).
void expectBodiesReproducedWithinJointErrors(const InferredModel& inferred) {
  const Model& model = inferred.model;
  const Eigen::VectorXd q = configurationFromBodies(inferred);
  std::vector<double> dp, dr;
  bodyErrors(inferred, q, dp, dr);
  for (int k = 0; k < model.numLinks(); ++k) {
    const Vector3 p_WBk = fromBt(inferred.map->body(k)->getCenterOfMassTransform().getOrigin());
    double position_bound = 0.0, rotation_bound = 0.0;
    for (int j = k; j >= 0; j = model.parents[j]) {
      btTypedConstraint* c = inferred.map->constraint(j);
      if (c == nullptr) continue;
      double separation, misalignment;
      bulletJointError(c, separation, misalignment);
      const Transform X_WLj = fromBt(inferred.map->body(j)->getCenterOfMassTransform()) *
                              inferred.map->X_LB(j).inverse();
      position_bound += separation + misalignment * (p_WBk - X_WLj.translation()).norm();
      rotation_bound += misalignment;
    }
    EXPECT_LE(dp[k], 2.0 * position_bound + kRoundOff) << "link " << model.link_names[k];
    EXPECT_LE(dr[k], 2.0 * rotation_bound + kRoundOff) << "link " << model.link_names[k];
  }
}

// ---------------------------------------------------------------------------------------------
// Hinges: every constructor, the child on A and on B, limits with both reference-frame signs.

struct HingeChain {
  TestWorld w;
  btRigidBody* b[4];
  btHingeConstraint* h[4];
  Vector3 pivot_W[4];
  Vector3 axis_W[4];

  HingeChain() {
    b[0] = w.addBox("upper", 1.3, Vector3(0.1, 0.12, 0.5),
                    pose(Vector3(0.2, -0.1, 0.3), Vector3(0, 0, 1)));
    b[1] = w.addBox("middle", 0.7, Vector3(0.4, 0.08, 0.1),
                    pose(Vector3(-0.4, 0.25, 0.1), Vector3(0.3, 0.1, 0.8)));
    b[2] = w.addCapsule("lower", 0.9, 0.04, 0.3,
                        pose(Vector3(0.5, 0.3, -0.2), Vector3(0.55, 0.2, 0.9)));
    b[3] = w.addBox("tip", 0.5, Vector3(0.15, 0.1, 0.05),
                    pose(Vector3(0.0, 0.7, 0.4), Vector3(0.8, 0.45, 0.95)));
    pivot_W[0] = Vector3(0, 0, 1.3);
    pivot_W[1] = Vector3(0.15, 0.05, 0.9);
    pivot_W[2] = Vector3(0.45, 0.15, 0.85);
    pivot_W[3] = Vector3(0.7, 0.3, 0.92);
    axis_W[0] = Vector3(1, 0.2, 0).normalized();
    axis_W[1] = Vector3(0.1, 1, 0.2).normalized();
    axis_W[2] = Vector3(-0.3, 0.9, 0.1).normalized();
    axis_W[3] = Vector3(1, -0.5, 0.3).normalized();
    // To the world: the single-body pivot/axis constructor puts the body on A.
    h[0] =
        w.add<btHingeConstraint>(*b[0], pointInBody(b[0], pivot_W[0]), axisInBody(b[0], axis_W[0]));
    // The frame constructor, the parent on A; B's frame turned 0.4 rad about the axis so that
    // Bullet's angle is not 0 now.
    const Transform F1 = frameWithAxis(pivot_W[1], axis_W[1], 2);
    const Transform F1_turned =
        F1 * Transform(rotationAboutAxis(Vector3::UnitZ(), 0.4), Vector3::Zero());
    h[1] = w.add<btHingeConstraint>(*b[0], *b[1], inBody(b[0], F1), inBody(b[1], F1_turned));
    h[1]->setLimit(-1.0, 0.8);
    // The pivot/axis constructor, the child on A.
    h[2] = w.add<btHingeConstraint>(*b[2], *b[1], pointInBody(b[2], pivot_W[2]),
                                    pointInBody(b[1], pivot_W[2]), axisInBody(b[2], axis_W[2]),
                                    axisInBody(b[1], axis_W[2]));
    // The frame constructor, the child on A, Bullet's angle measured with frame A's sign.
    const Transform F3 = frameWithAxis(pivot_W[3], axis_W[3], 2);
    const Transform F3_turned =
        F3 * Transform(rotationAboutAxis(Vector3::UnitZ(), -0.3), Vector3::Zero());
    h[3] = w.add<btHingeConstraint>(*b[3], *b[2], inBody(b[3], F3), inBody(b[2], F3_turned), true);
    h[3]->setLimit(-0.5, 1.2);
  }
};

TEST(WorldInference, HingeChainStructureMassesAndFrames) {
  HingeChain chain;
  const InferredModel inferred = infer(chain.w, chain.w.options());
  const Model& model = inferred.model;
  ASSERT_EQ(model.numLinks(), 4);
  EXPECT_EQ(model.nq, 4);
  EXPECT_EQ(model.nv, 4);
  EXPECT_FALSE(model.floating_base);
  EXPECT_TRUE(matricesNear(model.gravity_W, Vector3(0, 0, -9.81), kDouble ? 0.0 : 1e-7));
  const char* names[4] = {"upper", "middle", "lower", "tip"};
  const bool parent_is_a[4] = {false, true, false, false};
  for (int i = 0; i < 4; ++i) {
    const int k = model.linkIndex(names[i]);
    EXPECT_EQ(model.joints[k].type, JointType::Revolute) << names[i];
    EXPECT_EQ(model.parents[k], i == 0 ? -1 : model.linkIndex(names[i - 1])) << names[i];
    EXPECT_EQ(inferred.map->body(k), chain.b[i]);
    EXPECT_EQ(inferred.map->constraint(k), chain.h[i]);
    EXPECT_EQ(inferred.map->parentIsA(k), parent_is_a[i]) << names[i];
    // The child link frame's origin is the pivot, on the axis; the axis is the hinge's.
    const Transform X_WJ = jointFrameAtInference(inferred, k);
    EXPECT_TRUE(matricesNear(X_WJ.translation(), chain.pivot_W[i], kPoseTolerance)) << names[i];
    EXPECT_TRUE(matricesNear(jointAxisAtInference(inferred, k), chain.axis_W[i], kPoseTolerance))
        << names[i];
  }
  expectInertiasFromBodies(inferred);
  expectBodiesReproduced(inferred);
}

TEST(WorldInference, HingeLimitsMatchBulletsAngleAtTheModelsLimits) {
  HingeChain chain;
  const InferredModel inferred = infer(chain.w, chain.w.options());
  EXPECT_EQ(inferred.model.joints[inferred.model.jointIndex("upper_joint")].limits.lower,
            -std::numeric_limits<double>::infinity());
  // Place the bodies where the model puts them with the joint at each model limit: Bullet's own
  // angle getter must read Bullet's limit there.
  for (int i : {1, 3}) {
    const std::string joint =
        inferred.model.link_names[inferred.map->linkOf(chain.b[i])] + "_joint";
    const JointLimits& limits = inferred.model.joints[inferred.model.jointIndex(joint)].limits;
    EXPECT_LT(limits.lower, 0.0);
    EXPECT_GT(limits.upper, 0.0);
    for (double q_limit : {limits.lower, limits.upper}) {
      const std::vector<Transform> X_WB = bodyPoses(inferred, withJoint(inferred, joint, q_limit));
      const double angle =
          chain.h[i]->getHingeAngle(bodyPoseAt(inferred, X_WB, chain.h[i]->getRigidBodyA()),
                                    bodyPoseAt(inferred, X_WB, chain.h[i]->getRigidBodyB()));
      const bool at_lower = std::abs(angle - chain.h[i]->getLowerLimit()) < kReadTolerance;
      const bool at_upper = std::abs(angle - chain.h[i]->getUpperLimit()) < kReadTolerance;
      EXPECT_TRUE(at_lower || at_upper) << joint << " q " << q_limit << ": Bullet angle " << angle;
    }
  }
}

TEST(WorldInference, HingeChainAfterSwingingMatchesWithinTheJointError) {
  HingeChain chain;
  const InferredModel inferred = infer(chain.w, chain.w.options());
  const Eigen::VectorXd q_inferred = configurationAtInference(inferred);
  chain.w.step(300);
  // The chain really moved (a test of a still world would prove nothing).
  const Eigen::VectorXd q = configurationFromBodies(inferred);
  EXPECT_GT((q - q_inferred).cwiseAbs().maxCoeff(), 0.3);
  expectBodiesReproducedWithinJointErrors(inferred);
}

// ---------------------------------------------------------------------------------------------
// Sliders: a static ground body away from the origin, the child on B and on A.

TEST(WorldInference, SlidersArePrismaticWithBulletsLimits) {
  TestWorld w;
  btRigidBody* ground = w.addBox("ground", 0.0, Vector3(0.2, 0.2, 0.2),
                                 pose(Vector3(0.1, 0.2, -0.3), Vector3(1, 2, 0.5)));
  btRigidBody* cart = w.addBox("cart", 2.1, Vector3(0.3, 0.2, 0.1),
                               pose(Vector3(0.3, 0.1, 0.2), Vector3(1.2, 2.1, 0.6)));
  btRigidBody* rod = w.addBox("rod", 0.4, Vector3(0.05, 0.05, 0.4),
                              pose(Vector3(-0.2, 0.0, 0.5), Vector3(1.4, 2.0, 0.4)));
  const Vector3 axis0 = Vector3(1, 0.3, -0.5).normalized(), axis1 = Vector3(0, 0.2, 1).normalized();
  // Frames whose origins are apart along the axis, so that Bullet's position is not 0 now.
  const Transform F0 = frameWithAxis(Vector3(1.1, 2.0, 0.55), axis0, 0);
  const Transform F0_b = Transform(F0.rotation(), F0.translation() + 0.07 * axis0);
  auto* s0 =
      w.add<btSliderConstraint>(*ground, *cart, inBody(ground, F0), inBody(cart, F0_b), true);
  s0->setLowerLinLimit(-0.2);
  s0->setUpperLinLimit(0.3);
  const Transform F1 = frameWithAxis(Vector3(1.3, 2.05, 0.5), axis1, 0);
  const Transform F1_b = Transform(F1.rotation(), F1.translation() - 0.04 * axis1);
  auto* s1 = w.add<btSliderConstraint>(*rod, *cart, inBody(rod, F1), inBody(cart, F1_b), true);
  s1->setLowerLinLimit(-0.1);
  s1->setUpperLinLimit(0.25);

  const InferredModel inferred = infer(w, w.options());
  const Model& model = inferred.model;
  ASSERT_EQ(model.numLinks(), 2);
  EXPECT_EQ(model.nv, 2);
  const int k_cart = model.linkIndex("cart"), k_rod = model.linkIndex("rod");
  EXPECT_EQ(model.parents[k_cart], -1);
  EXPECT_EQ(model.parents[k_rod], k_cart);
  EXPECT_EQ(model.joints[k_cart].type, JointType::Prismatic);
  EXPECT_EQ(model.joints[k_rod].type, JointType::Prismatic);
  EXPECT_TRUE(inferred.map->parentIsA(k_cart));
  EXPECT_FALSE(inferred.map->parentIsA(k_rod));
  EXPECT_TRUE(matricesNear(jointAxisAtInference(inferred, k_cart), axis0, kPoseTolerance));
  EXPECT_TRUE(matricesNear(jointAxisAtInference(inferred, k_rod), axis1, kPoseTolerance));
  // L has B's axes and its origin at the slider's frame on the child (the cart is body B of s0).
  EXPECT_TRUE(matricesNear(inferred.map->X_LB(k_cart).translation(),
                           -fromBt(s0->getFrameOffsetB().getOrigin()), 0.0));
  expectInertiasFromBodies(inferred);
  expectBodiesReproduced(inferred);
  // Bullet's slider position at the model's limits is Bullet's limit.
  for (btSliderConstraint* s : {s0, s1}) {
    btRigidBody* child = s == s0 ? cart : rod;
    const std::string joint = model.link_names[inferred.map->linkOf(child)] + "_joint";
    const JointLimits& limits = model.joints[model.jointIndex(joint)].limits;
    for (double q_limit : {limits.lower, limits.upper}) {
      const std::vector<Transform> X_WB = bodyPoses(inferred, withJoint(inferred, joint, q_limit));
      s->calculateTransforms(bodyPoseAt(inferred, X_WB, s->getRigidBodyA()),
                             bodyPoseAt(inferred, X_WB, s->getRigidBodyB()));
      s->testLinLimits();
      const double position = s->getLinearPos();
      EXPECT_TRUE(std::abs(position - s->getLowerLinLimit()) < kReadTolerance ||
                  std::abs(position - s->getUpperLinLimit()) < kReadTolerance)
          << joint << " q " << q_limit << ": Bullet position " << position;
    }
  }
}

// A one-sided slider limit (the missing bound at Bullet's unreached BT_LARGE_FLOAT, as
// buildRigidBodyWorld writes it) is a one-sided limit of the model.
TEST(WorldInference, OneSidedSliderLimitStaysOneSided) {
  TestWorld w;
  btRigidBody* ground =
      w.addBox("ground", 0.0, Vector3(0.2, 0.2, 0.2), pose(Vector3::Zero(), Vector3(0, 0, -1)));
  btRigidBody* cart =
      w.addBox("cart", 2.0, Vector3(0.3, 0.2, 0.1), pose(Vector3::Zero(), Vector3::Zero()));
  const Transform F = frameWithAxis(Vector3::Zero(), Vector3::UnitX(), 0);
  auto* slider =
      w.add<btSliderConstraint>(*ground, *cart, inBody(ground, F), inBody(cart, F), true);
  for (const bool lower_missing : {true, false}) {
    slider->setLowerLinLimit(lower_missing ? -BT_LARGE_FLOAT : -0.2);
    slider->setUpperLinLimit(lower_missing ? 0.3 : BT_LARGE_FLOAT);
    const InferredModel inferred = infer(w, w.options());
    const JointLimits& limits = inferred.model.joints[inferred.model.linkIndex("cart")].limits;
    const double inf = std::numeric_limits<double>::infinity();
    if (lower_missing) {
      EXPECT_EQ(limits.lower, -inf);
      EXPECT_NEAR(limits.upper, 0.3, kReadTolerance);
    } else {
      EXPECT_NEAR(limits.lower, -0.2, kReadTolerance);
      EXPECT_EQ(limits.upper, inf);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Point-to-point: ball joints at the pivots, both parametrizations.

struct BallChain {
  TestWorld w;
  btRigidBody* b[3];
  btPoint2PointConstraint* p[3];
  Vector3 pivot_W[3] = {Vector3(0, 0, 2), Vector3(0.1, 0.3, 1.6), Vector3(0.3, 0.5, 1.3)};

  BallChain() {
    b[0] = w.addCapsule("a", 1.1, 0.05, 0.3, pose(Vector3(0.4, 0, 0.1), Vector3(0.05, 0.1, 1.8)));
    b[1] = w.addBox("b", 0.6, Vector3(0.1, 0.2, 0.3),
                    pose(Vector3(0, -0.6, 0.3), Vector3(0.2, 0.45, 1.45)));
    b[2] = w.addBox("c", 0.3, Vector3(0.2, 0.05, 0.1),
                    pose(Vector3(1.0, 0.2, 0), Vector3(0.5, 0.6, 1.2)));
    p[0] = w.add<btPoint2PointConstraint>(*b[0], pointInBody(b[0], pivot_W[0]));
    p[1] = w.add<btPoint2PointConstraint>(*b[0], *b[1], pointInBody(b[0], pivot_W[1]),
                                          pointInBody(b[1], pivot_W[1]));
    p[2] = w.add<btPoint2PointConstraint>(*b[2], *b[1], pointInBody(b[2], pivot_W[2]),
                                          pointInBody(b[1], pivot_W[2]));
    b[2]->setAngularVelocity(btVector3(2, -1, 3));
  }
};

TEST(WorldInference, PointToPointChainIsBallJoints) {
  for (BallParametrization ball : {BallParametrization::Quaternion, BallParametrization::ExpMap}) {
    BallChain chain;
    InferenceOptions options = chain.w.options();
    options.ball = ball;
    const InferredModel inferred = infer(chain.w, options);
    const Model& model = inferred.model;
    ASSERT_EQ(model.numLinks(), 3);
    EXPECT_EQ(model.nv, 9);
    EXPECT_EQ(model.nq, ball == BallParametrization::Quaternion ? 12 : 9);
    for (int i = 0; i < 3; ++i) {
      const int k = inferred.map->linkOf(chain.b[i]);
      EXPECT_EQ(model.joints[k].type, JointType::Ball);
      EXPECT_EQ(model.joints[k].ball, ball);
      EXPECT_EQ(inferred.map->constraint(k), chain.p[i]);
      EXPECT_TRUE(matricesNear(jointFrameAtInference(inferred, k).translation(), chain.pivot_W[i],
                               kPoseTolerance));
    }
    expectInertiasFromBodies(inferred);
    expectBodiesReproduced(inferred);
  }
}

TEST(WorldInference, PointToPointChainAfterSwingingMatchesWithinTheJointError) {
  BallChain chain;
  const InferredModel inferred = infer(chain.w, chain.w.options());
  const Eigen::VectorXd q_inferred = configurationAtInference(inferred);
  chain.w.step(300);
  std::vector<double> dp, dr;
  bodyErrors(inferred, q_inferred, dp, dr);
  EXPECT_GT(*std::max_element(dr.begin(), dr.end()), 0.3) << "the chain did not move";
  expectBodiesReproducedWithinJointErrors(inferred);
}

// ---------------------------------------------------------------------------------------------
// Cone-twist: ball joints, the cone's spans recorded in the description.

TEST(WorldInference, ConeTwistIsABallWithItsSpans) {
  TestWorld w;
  btRigidBody* ground =
      w.addBox("ground", 0.0, Vector3(0.1, 0.1, 0.1), pose(Vector3(0, 0.3, 0), Vector3(0, 0, 3)));
  btRigidBody* arm =
      w.addCapsule("arm", 1.7, 0.05, 0.4, pose(Vector3(0.1, 0.2, 0.3), Vector3(0.1, 0, 2.7)));
  btRigidBody* hand = w.addBox("hand", 0.4, Vector3(0.1, 0.1, 0.2),
                               pose(Vector3(0.3, 0, 0), Vector3(0.2, 0.1, 2.4)));
  const Vector3 twist0 = Vector3(0, 0.2, -1).normalized(),
                twist1 = Vector3(0.3, 0.1, -1).normalized();
  const Transform F0 = frameWithAxis(Vector3(0, 0, 2.95), twist0, 0);
  const Transform F1 = frameWithAxis(Vector3(0.15, 0.05, 2.5), twist1, 0);
  auto* c0 = w.add<btConeTwistConstraint>(*ground, *arm, inBody(ground, F0), inBody(arm, F0));
  c0->setLimit(0.6, 0.4, 0.3);
  auto* c1 = w.add<btConeTwistConstraint>(*hand, *arm, inBody(hand, F1), inBody(arm, F1));

  const InferredModel inferred = infer(w, w.options());
  const Model& model = inferred.model;
  ASSERT_EQ(model.numLinks(), 2);
  EXPECT_EQ(model.nv, 6);
  const int k_arm = model.linkIndex("arm"), k_hand = model.linkIndex("hand");
  EXPECT_EQ(model.joints[k_arm].type, JointType::Ball);
  EXPECT_EQ(model.joints[k_hand].type, JointType::Ball);
  EXPECT_EQ(inferred.map->constraint(k_hand), c1);
  EXPECT_TRUE(matricesNear(jointFrameAtInference(inferred, k_arm).translation(), F0.translation(),
                           kPoseTolerance));
  EXPECT_TRUE(matricesNear(jointFrameAtInference(inferred, k_hand).translation(), F1.translation(),
                           kPoseTolerance));
  const JointDescription& d0 = model.description->joints[model.description->findJoint("arm_joint")];
  // The spans as Bullet stores them (btScalar).
  EXPECT_EQ(d0.swing1, btScalar(0.6));
  EXPECT_EQ(d0.swing2, btScalar(0.4));
  EXPECT_EQ(d0.twist, btScalar(0.3));
  EXPECT_TRUE(matricesNear(jointFrameAtInference(inferred, k_arm).rotation() * d0.axis, twist0,
                           kPoseTolerance));
  const JointDescription& d1 =
      model.description->joints[model.description->findJoint("hand_joint")];
  EXPECT_EQ(d1.swing1, std::numeric_limits<double>::infinity());
  EXPECT_TRUE(matricesNear(jointFrameAtInference(inferred, k_hand).rotation() * d1.axis, twist1,
                           kPoseTolerance));
  expectInertiasFromBodies(inferred);
  expectBodiesReproduced(inferred);
}

// ---------------------------------------------------------------------------------------------
// Fixed constraints: welded to a static body and between bodies, kept as Fixed joints.

TEST(WorldInference, FixedConstraintsAreFixedJoints) {
  TestWorld w;
  btRigidBody* ground =
      w.addBox("ground", 0.0, Vector3(1, 1, 0.1), pose(Vector3(0, 0, 0.2), Vector3(0, 0, -0.05)));
  btRigidBody* base =
      w.addBox("base", 3.0, Vector3(0.3, 0.3, 0.2), pose(Vector3(0.1, 0, 0.2), Vector3(0, 0, 0.2)));
  btRigidBody* link = w.addBox("link", 1.0, Vector3(0.05, 0.05, 0.4),
                               pose(Vector3(0, 0.3, 0), Vector3(0, 0.05, 0.55)));
  btRigidBody* tool = w.addBox("tool", 0.2, Vector3(0.05, 0.1, 0.05),
                               pose(Vector3(0.2, 0, 0.9), Vector3(0, 0.1, 0.8)));
  const Transform F0 = pose(Vector3(0.1, 0.2, 0.3), Vector3(0, 0, 0.05));
  auto* f0 = w.add<btFixedConstraint>(*ground, *base, inBody(ground, F0), inBody(base, F0));
  const Transform F1 = frameWithAxis(Vector3(0, 0, 0.35), Vector3::UnitX(), 2);
  w.add<btHingeConstraint>(*base, *link, inBody(base, F1), inBody(link, F1));
  const Transform F2 = pose(Vector3(0, 0, 0), Vector3(0, 0.08, 0.75));
  auto* f2 = w.add<btFixedConstraint>(*tool, *link, inBody(tool, F2), inBody(link, F2));

  const InferredModel inferred = infer(w, w.options());
  const Model& model = inferred.model;
  ASSERT_EQ(model.numLinks(), 3);
  EXPECT_EQ(model.nv, 1);
  EXPECT_EQ(model.joints[model.linkIndex("base")].type, JointType::Fixed);
  EXPECT_EQ(model.joints[model.linkIndex("link")].type, JointType::Revolute);
  EXPECT_EQ(model.joints[model.linkIndex("tool")].type, JointType::Fixed);
  EXPECT_EQ(inferred.map->constraint(model.linkIndex("base")), f0);
  EXPECT_EQ(inferred.map->constraint(model.linkIndex("tool")), f2);
  EXPECT_FALSE(inferred.map->parentIsA(model.linkIndex("tool")));
  // L has B's axes and its origin at the fixed constraint's frame on the tool (its body A).
  EXPECT_TRUE(matricesNear(inferred.map->X_LB(model.linkIndex("tool")).translation(),
                           -fromBt(f2->getFrameOffsetA().getOrigin()), 0.0));
  expectInertiasFromBodies(inferred);
  expectBodiesReproduced(inferred);
}

// ---------------------------------------------------------------------------------------------
// Generic 6-DOF constraints (both classes) read from their locked axes.

enum class Dof6Class { Generic6Dof, Spring2 };
enum class Dof6Config { Revolute, Prismatic, Ball, Fixed, Planar };

struct Dof6Case {
  Dof6Class cls;
  Dof6Config config;
};

std::string dof6Name(const ::testing::TestParamInfo<Dof6Case>& info) {
  const char* cls = info.param.cls == Dof6Class::Generic6Dof ? "Generic6Dof" : "Spring2";
  const char* config[] = {"Revolute", "Prismatic", "Ball", "Fixed", "Planar"};
  return std::string(cls) + config[static_cast<int>(info.param.config)];
}

class Generic6DofTest : public ::testing::TestWithParam<Dof6Case> {
 protected:
  btTypedConstraint* make(btRigidBody& a, btRigidBody& b, const Transform& F_a_W,
                          const Transform& F_b_W) {
    if (GetParam().cls == Dof6Class::Generic6Dof) {
      return w.add<btGeneric6DofConstraint>(a, b, inBody(&a, F_a_W), inBody(&b, F_b_W), true);
    }
    return w.add<btGeneric6DofSpring2Constraint>(a, b, inBody(&a, F_a_W), inBody(&b, F_b_W));
  }
  static void setLimits(btTypedConstraint* c, const btVector3& lin_lo, const btVector3& lin_hi,
                        const btVector3& ang_lo, const btVector3& ang_hi) {
    if (auto* d = dynamic_cast<btGeneric6DofConstraint*>(c)) {
      d->setLinearLowerLimit(lin_lo), d->setLinearUpperLimit(lin_hi);
      d->setAngularLowerLimit(ang_lo), d->setAngularUpperLimit(ang_hi);
    } else {
      auto* s = dynamic_cast<btGeneric6DofSpring2Constraint*>(c);
      s->setLinearLowerLimit(lin_lo), s->setLinearUpperLimit(lin_hi);
      s->setAngularLowerLimit(ang_lo), s->setAngularUpperLimit(ang_hi);
    }
  }
  /// Bullet's coordinate `axis` (0-2 linear, 3-5 angular) with the bodies at the given poses.
  static double bulletCoordinate(btTypedConstraint* c, const btTransform& X_WA,
                                 const btTransform& X_WB, int axis) {
    if (auto* d = dynamic_cast<btGeneric6DofConstraint*>(c)) {
      d->calculateTransforms(X_WA, X_WB);
      return axis < 3 ? d->getRelativePivotPosition(axis) : d->getAngle(axis - 3);
    }
    auto* s = dynamic_cast<btGeneric6DofSpring2Constraint*>(c);
    s->calculateTransforms(X_WA, X_WB);
    return axis < 3 ? s->getRelativePivotPosition(axis) : s->getAngle(axis - 3);
  }

  TestWorld w;
};

TEST_P(Generic6DofTest, LockedAxesGiveTheJoint) {
  const Dof6Config config = GetParam().config;
  btRigidBody* ground =
      w.addBox("ground", 0.0, Vector3(0.2, 0.2, 0.2), pose(Vector3(0.3, 0, 0.1), Vector3(0, 0, 1)));
  btRigidBody* b1 = w.addBox("first", 1.2, Vector3(0.1, 0.3, 0.2),
                             pose(Vector3(0.2, 0.4, 0), Vector3(0.1, 0.3, 0.8)));
  btRigidBody* b2 = w.addBox("second", 0.8, Vector3(0.3, 0.1, 0.1),
                             pose(Vector3(0, 0.1, 0.9), Vector3(0.3, 0.5, 0.6)));
  // The moving axis: y for rotations, z for translations; frame B offset along it now.
  const int axis = config == Dof6Config::Prismatic ? 2 : 1;
  const Vector3 pivot1(0.05, 0.15, 0.9), pivot2(0.2, 0.4, 0.7);
  const Transform F1 = pose(Vector3(0.2, -0.3, 0.5), pivot1);
  const Transform F2 = pose(Vector3(-0.1, 0.6, 0.2), pivot2);
  Transform offset;
  if (config == Dof6Config::Revolute)
    offset = Transform(rotationAboutAxis(Vector3::UnitY(), 0.25), Vector3::Zero());
  if (config == Dof6Config::Prismatic) offset = Transform(Matrix3::Identity(), Vector3(0, 0, 0.05));
  if (config == Dof6Config::Planar) {
    offset = Transform(rotationAboutAxis(Vector3::UnitY(), 0.3), Vector3(0.04, 0, -0.07));
  }
  btTypedConstraint* c1 = make(*ground, *b1, F1, F1 * offset);
  btTypedConstraint* c2 = make(*b2, *b1, F2, F2);
  // The first joint limited, the second free (lower > upper); the others locked.
  const btVector3 zero(0, 0, 0);
  btVector3 lo1 = zero, hi1 = zero, lo2 = zero, hi2 = zero;
  lo1[axis] = -0.6, hi1[axis] = 0.7, lo2[axis] = 1, hi2[axis] = -1;
  switch (config) {
    case Dof6Config::Revolute:
      setLimits(c1, zero, zero, lo1, hi1);
      setLimits(c2, zero, zero, lo2, hi2);
      break;
    case Dof6Config::Prismatic:
      setLimits(c1, lo1, hi1, zero, zero);
      setLimits(c2, lo2, hi2, zero, zero);
      break;
    case Dof6Config::Ball:
      setLimits(c1, zero, zero, btVector3(-0.5, -0.4, -0.3), btVector3(0.5, 0.4, 0.3));
      setLimits(c2, zero, zero, btVector3(1, 1, 1), btVector3(-1, -1, -1));
      break;
    case Dof6Config::Fixed:
      setLimits(c1, zero, zero, zero, zero);
      setLimits(c2, zero, zero, zero, zero);
      break;
    case Dof6Config::Planar:
      // Free in the x-z plane and about y (the normal); locked along y and about x and z.
      for (btTypedConstraint* c : {c1, c2}) {
        setLimits(c, btVector3(1, 0, 1), btVector3(-1, 0, -1), btVector3(0, 1, 0),
                  btVector3(0, -1, 0));
      }
      break;
  }

  const InferredModel inferred = infer(w, w.options());
  const Model& model = inferred.model;
  ASSERT_EQ(model.numLinks(), 2);
  const JointType expected[] = {JointType::Revolute, JointType::Prismatic, JointType::Ball,
                                JointType::Fixed, JointType::Planar};
  const int nv[] = {1, 1, 3, 0, 3};
  const int k1 = model.linkIndex("first"), k2 = model.linkIndex("second");
  EXPECT_EQ(model.joints[k1].type, expected[static_cast<int>(config)]);
  EXPECT_EQ(model.joints[k2].type, expected[static_cast<int>(config)]);
  EXPECT_EQ(model.nv, 2 * nv[static_cast<int>(config)]);
  EXPECT_EQ(model.parents[k2], k1);
  EXPECT_TRUE(inferred.map->parentIsA(k1));
  EXPECT_FALSE(inferred.map->parentIsA(k2));
  EXPECT_EQ(inferred.map->constraint(k2), c2);
  expectInertiasFromBodies(inferred);
  expectBodiesReproduced(inferred);
  if (config == Dof6Config::Revolute || config == Dof6Config::Ball) {
    EXPECT_TRUE(
        matricesNear(jointFrameAtInference(inferred, k1).translation(), pivot1, kPoseTolerance));
    EXPECT_TRUE(
        matricesNear(jointFrameAtInference(inferred, k2).translation(), pivot2, kPoseTolerance));
  }
  if (config == Dof6Config::Planar) {
    // The normal is the frames' y axis, and q = 0 where the bodies are now.
    EXPECT_TRUE(
        matricesNear(jointAxisAtInference(inferred, k1), F1.rotation().col(axis), kPoseTolerance));
    EXPECT_TRUE(
        matricesNear(jointAxisAtInference(inferred, k2), F2.rotation().col(axis), kPoseTolerance));
    return;
  }
  if (config != Dof6Config::Revolute && config != Dof6Config::Prismatic) return;
  EXPECT_TRUE(
      matricesNear(jointAxisAtInference(inferred, k1), F1.rotation().col(axis), kPoseTolerance));
  EXPECT_TRUE(
      matricesNear(jointAxisAtInference(inferred, k2), F2.rotation().col(axis), kPoseTolerance));
  EXPECT_EQ(model.joints[k2].limits.upper, std::numeric_limits<double>::infinity());
  // Bullet's coordinate at the model's limits is Bullet's limit.
  const JointLimits& limits = model.joints[k1].limits;
  const int coordinate = config == Dof6Config::Revolute ? 3 + axis : axis;
  for (double q_limit : {limits.lower, limits.upper}) {
    const std::vector<Transform> X_WB =
        bodyPoses(inferred, withJoint(inferred, "first_joint", q_limit));
    const double value =
        bulletCoordinate(c1, bodyPoseAt(inferred, X_WB, c1->getRigidBodyA()),
                         bodyPoseAt(inferred, X_WB, c1->getRigidBodyB()), coordinate);
    EXPECT_TRUE(std::abs(value - lo1[axis]) < kReadTolerance ||
                std::abs(value - hi1[axis]) < kReadTolerance)
        << "q " << q_limit << ": Bullet's coordinate " << value;
  }
}

INSTANTIATE_TEST_SUITE_P(WorldInference, Generic6DofTest,
                         ::testing::Values(Dof6Case{Dof6Class::Generic6Dof, Dof6Config::Revolute},
                                           Dof6Case{Dof6Class::Generic6Dof, Dof6Config::Prismatic},
                                           Dof6Case{Dof6Class::Generic6Dof, Dof6Config::Ball},
                                           Dof6Case{Dof6Class::Generic6Dof, Dof6Config::Fixed},
                                           Dof6Case{Dof6Class::Spring2, Dof6Config::Revolute},
                                           Dof6Case{Dof6Class::Spring2, Dof6Config::Prismatic},
                                           Dof6Case{Dof6Class::Spring2, Dof6Config::Ball},
                                           Dof6Case{Dof6Class::Spring2, Dof6Config::Fixed},
                                           Dof6Case{Dof6Class::Generic6Dof, Dof6Config::Planar},
                                           Dof6Case{Dof6Class::Spring2, Dof6Config::Planar}),
                         dof6Name);

// ---------------------------------------------------------------------------------------------
// Universal joints: two revolute joints through a massless cross link.

TEST(WorldInference, UniversalIsTwoRevolutesThroughACrossLink) {
  TestWorld w;
  btRigidBody* b1 = w.addBox("shaft", 1.5, Vector3(0.1, 0.1, 0.5),
                             pose(Vector3(0.2, 0.1, 0), Vector3(0.2, 0.15, 1.75)));
  btRigidBody* b2 = w.addBox("head", 0.6, Vector3(0.2, 0.2, 0.1),
                             pose(Vector3(0, 0.3, 0.5), Vector3(0.1, 0.1, 1.3)));
  const Vector3 anchor1(0, 0, 2), anchor2(0.05, 0.08, 1.45);
  const Vector3 axis1_1 = Vector3(1, 0, 0), axis2_1 = Vector3(0, 1, 0);
  const Vector3 axis1_2 = Vector3(0.8, 0.6, 0), axis2_2 = Vector3(-0.6, 0.8, 0);
  auto* u1 = w.add<btUniversalConstraint>(btTypedConstraint::getFixedBody(), *b1, toBt(anchor1),
                                          toBt(axis1_1), toBt(axis2_1));
  auto* u2 = w.add<btUniversalConstraint>(*b2, *b1, toBt(anchor2), toBt(axis1_2), toBt(axis2_2));
  // Start the head turning about both its axes (the shaft swings about both under gravity).
  b2->setAngularVelocity(btVector3(-1, 3, 0.5));

  const InferredModel inferred = infer(w, w.options());
  const Model& model = inferred.model;
  ASSERT_EQ(model.numLinks(), 4);
  EXPECT_EQ(model.nv, 4);
  for (const char* body : {"shaft", "head"}) {
    const int k = model.linkIndex(body), cross = model.linkIndex(std::string(body) + "_cross");
    EXPECT_EQ(model.parents[k], cross);
    EXPECT_EQ(model.joints[k].type, JointType::Revolute);
    EXPECT_EQ(model.joints[cross].type, JointType::Revolute);
    EXPECT_EQ(inferred.map->body(cross), nullptr);
    EXPECT_EQ(inferred.map->constraint(cross), inferred.map->constraint(k));
    EXPECT_EQ(model.inertias[cross].mass(), 0.0);
  }
  const int k1 = model.linkIndex("shaft"), c1 = model.linkIndex("shaft_cross");
  const int k2 = model.linkIndex("head"), c2 = model.linkIndex("head_cross");
  EXPECT_EQ(model.parents[c1], -1);
  EXPECT_EQ(model.parents[c2], k1);
  EXPECT_EQ(inferred.map->constraint(k1), u1);
  EXPECT_EQ(inferred.map->constraint(k2), u2);
  // Axis 1 is fixed in body A, axis 2 in body B: the parent's axis comes first.
  EXPECT_TRUE(matricesNear(jointAxisAtInference(inferred, c1), axis1_1, kPoseTolerance));
  EXPECT_TRUE(matricesNear(jointAxisAtInference(inferred, k1), axis2_1, kPoseTolerance));
  EXPECT_TRUE(matricesNear(jointAxisAtInference(inferred, c2), axis2_2, kPoseTolerance));
  EXPECT_TRUE(matricesNear(jointAxisAtInference(inferred, k2), axis1_2, kPoseTolerance));
  EXPECT_TRUE(
      matricesNear(jointFrameAtInference(inferred, k1).translation(), anchor1, kPoseTolerance));
  EXPECT_TRUE(
      matricesNear(jointFrameAtInference(inferred, k2).translation(), anchor2, kPoseTolerance));
  expectInertiasFromBodies(inferred);
  expectBodiesReproduced(inferred);

  // While the bodies swing, the axis the model fixes in the parent (the first joint's, in J1)
  // stays orthogonal to the one it fixes in the child (the second joint's, in C = J1 at q = 0), as
  // a universal joint keeps them; the swapped assignment does not once both joints have turned.
  double kept[2] = {0, 0}, swapped[2] = {0, 0};
  for (int step = 0; step < 300; ++step) {
    w.step(1);
    for (int j = 0; j < 2; ++j) {
      const int child = j == 0 ? k1 : k2, cross = j == 0 ? c1 : c2;
      const int parent = model.parents[cross];
      const Transform X_WP = parent < 0
                                 ? Transform()
                                 : fromBt(inferred.map->body(parent)->getCenterOfMassTransform()) *
                                       inferred.map->X_LB(parent).inverse();
      const Matrix3 R_WJ1 = X_WP.rotation() * model.joints[cross].X_PJ.rotation();
      const Matrix3 R_WC = (fromBt(inferred.map->body(child)->getCenterOfMassTransform()) *
                            inferred.map->X_LB(child).inverse())
                               .rotation();
      const Vector3& axis_first = model.joints[cross].axis;
      const Vector3& axis_second = model.joints[child].axis;
      kept[j] = std::max(kept[j], std::abs((R_WJ1 * axis_first).dot(R_WC * axis_second)));
      swapped[j] = std::max(swapped[j], std::abs((R_WJ1 * axis_second).dot(R_WC * axis_first)));
    }
  }
  for (int j = 0; j < 2; ++j) {
    EXPECT_LT(kept[j], 1e-3) << "universal " << j;
    EXPECT_GT(swapped[j], 0.05) << "universal " << j;
  }
}

// ---------------------------------------------------------------------------------------------
// Bullet's ragdoll (BenchmarkDemo's, tests/common/bullet_apps.hpp): hinges and cone-twists around
// a pelvis.

using Ragdoll = test::BenchmarkRagdoll;

TEST(WorldInference, RagdollIsAFloatingBaseTree) {
  Ragdoll ragdoll;
  InferenceOptions options = ragdoll.w.options();
  options.root = ragdoll.pelvis;
  const InferredModel inferred = infer(ragdoll.w, options);
  const Model& model = inferred.model;
  ASSERT_EQ(model.numLinks(), 11);
  EXPECT_TRUE(model.floating_base);
  EXPECT_EQ(model.joints[0].type, JointType::Free);
  EXPECT_EQ(model.link_names[0], "pelvis");
  EXPECT_EQ(inferred.map->constraint(0), nullptr);
  EXPECT_TRUE(inferred.map->X_LB(0).isApprox(Transform::Identity(), 0.0));
  // Free 6 + 5 hinges + 5 cone-twists.
  EXPECT_EQ(model.nv, 6 + 5 + 5 * 3);
  EXPECT_EQ(model.nq, 7 + 5 + 5 * 4);
  EXPECT_EQ(model.parents[model.linkIndex("head")], model.linkIndex("spine"));
  EXPECT_EQ(model.parents[model.linkIndex("left_lower_arm")], model.linkIndex("left_upper_arm"));
  EXPECT_EQ(model.joints[model.linkIndex("left_lower_leg")].type, JointType::Revolute);
  EXPECT_EQ(model.joints[model.linkIndex("right_upper_arm")].type, JointType::Ball);
  expectInertiasFromBodies(inferred);
}

/// Per model link with a constraint: Bullet's own pivot separation and hinge misalignment.
void bulletErrorsPerLink(const InferredModel& inferred, std::vector<double>& separation,
                         std::vector<double>& misalignment) {
  separation.assign(inferred.model.numLinks(), 0.0);
  misalignment.assign(inferred.model.numLinks(), 0.0);
  for (int k = 0; k < inferred.model.numLinks(); ++k) {
    if (btTypedConstraint* c = inferred.map->constraint(k)) {
      bulletJointError(c, separation[k], misalignment[k]);
    }
  }
}

// The demo spawns its ragdoll with the child-side frames up to 10 cm off the parent-side pivots
// and lets the solver pull them together. The model holds the constraints, not the spawn pose:
// its spawn errors are Bullet's own pivot separations, and the bodies written at the q read from
// them satisfy every constraint exactly.
TEST(WorldInference, RagdollSpawnedOffItsConstraintsGivesTheConstraintsModel) {
  Ragdoll ragdoll;
  InferenceOptions options = ragdoll.w.options();
  options.root = ragdoll.pelvis;
  const InferredModel inferred = infer(ragdoll.w, options);
  std::vector<double> separation, misalignment;
  bulletErrorsPerLink(inferred, separation, misalignment);
  EXPECT_GT(*std::max_element(separation.begin(), separation.end()), 0.09);
  for (int k = 0; k < inferred.model.numLinks(); ++k) {
    EXPECT_NEAR(inferred.spawn_errors[k].position_error, separation[k], kPoseTolerance)
        << inferred.model.link_names[k];
    EXPECT_NEAR(inferred.spawn_errors[k].rotation_error, misalignment[k], kPoseTolerance)
        << inferred.model.link_names[k];
  }
  // Written at the configuration read from the spawn pose, the bodies sit on every constraint.
  BridgeData bdata(inferred.model);
  const Eigen::VectorXd q = configurationAtInference(inferred);
  writeState(inferred.model, *inferred.map, bdata, q, Eigen::VectorXd::Zero(inferred.model.nv));
  bulletErrorsPerLink(inferred, separation, misalignment);
  EXPECT_LT(*std::max_element(separation.begin(), separation.end()), kPoseTolerance);
  EXPECT_LT(*std::max_element(misalignment.begin(), misalignment.end()), kPoseTolerance);
  expectBodiesReproduced(inferred);
}

TEST(WorldInference, RagdollWithoutARootIsRejected) {
  Ragdoll ragdoll;
  expectRejected(ragdoll.w, ragdoll.w.options(), {"'pelvis'", "no body", "options.root"});
}

// ---------------------------------------------------------------------------------------------
// Rejections: each names the constraint (index and class) and its bodies, and changes nothing.

/// ground (static) -hinge 0- b1 -hinge 1- b2; b3 and b4 are free for each case to attach.
struct SmallWorld {
  TestWorld w;
  btRigidBody* ground;
  btRigidBody* b[5];

  SmallWorld() {
    ground = w.addBox("ground", 0.0, Vector3(1, 1, 0.1), pose(Vector3::Zero(), Vector3(0, 0, -1)));
    for (int i = 1; i <= 4; ++i) {
      b[i] = w.addBox("b" + std::to_string(i), 0.5 + 0.1 * i, Vector3(0.1, 0.1, 0.3),
                      pose(Vector3(0.1 * i, 0, 0), Vector3(0.3 * i, 0, 1)));
    }
    hinge(ground, b[1]);
    hinge(b[1], b[2]);
  }
  /// A hinge about y halfway between the two bodies.
  btHingeConstraint* hinge(btRigidBody* a, btRigidBody* c) {
    const Vector3 p =
        0.5 * (fromBt(a->getCenterOfMassPosition()) + fromBt(c->getCenterOfMassPosition()));
    const Transform F = frameWithAxis(p, Vector3::UnitY(), 2);
    return w.add<btHingeConstraint>(*a, *c, inBody(a, F), inBody(c, F));
  }
  btTransform frameIn(btRigidBody* body) {
    return inBody(body, Transform(Matrix3::Identity(), Vector3(0.45, 0, 1)));
  }
};

TEST(WorldInferenceRejects, Loop) {
  SmallWorld s;
  s.hinge(s.b[2], s.b[3]);
  s.w.add<btPoint2PointConstraint>(*s.b[3], *s.b[1], btVector3(0, 0, 0.1), btVector3(0, 0, 0.1));
  // The walk reaches b3 from b1 first (constraint 3), so constraint 2 closes the loop.
  expectRejected(s.w, s.w.options(), {"constraint 2 (btHingeConstraint)", "'b2'", "'b3'", "loop"});
}

TEST(WorldInferenceRejects, TwoConstraintsBetweenOnePair) {
  SmallWorld s;
  s.w.add<btPoint2PointConstraint>(*s.b[1], *s.b[2], btVector3(0, 0, 0.1), btVector3(0, 0, 0.1));
  expectRejected(s.w, s.w.options(),
                 {"constraint 2 (btPoint2PointConstraint)", "'b1'", "'b2'", "second constraint",
                  "constraint 1 (btHingeConstraint)"});
}

TEST(WorldInferenceRejects, Gear) {
  SmallWorld s;
  s.hinge(s.b[1], s.b[3]);
  s.w.add<btGearConstraint>(*s.b[2], *s.b[3], btVector3(0, 1, 0), btVector3(0, 1, 0), 2.0);
  expectRejected(s.w, s.w.options(),
                 {"constraint 3 (btGearConstraint)", "'b2'", "'b3'", "not supported"});
}

TEST(WorldInferenceRejects, Hinge2) {
  SmallWorld s;
  btVector3 anchor(0.6, 0, 1), axis1(0, 0, 1), axis2(0, 1, 0);
  s.w.add<btHinge2Constraint>(*s.b[2], *s.b[3], anchor, axis1, axis2);
  expectRejected(s.w, s.w.options(),
                 {"constraint 2 (btHinge2Constraint)", "'b2'", "'b3'", "not supported"});
}

TEST(WorldInferenceRejects, DisabledConstraintOnTheTree) {
  SmallWorld s;
  s.hinge(s.b[2], s.b[3])->setEnabled(false);
  expectRejected(s.w, s.w.options(),
                 {"constraint 2 (btHingeConstraint)", "'b2'", "'b3'", "disabled"});
}

TEST(WorldInferenceRejects, StaticBodyInTheMiddle) {
  SmallWorld s;
  btRigidBody* post =
      s.w.addBox("post", 0.0, Vector3(0.1, 0.1, 0.1), pose(Vector3::Zero(), Vector3(0.9, 0, 1)));
  s.hinge(s.b[2], post);
  // With the root given: the second static body cannot be in the tree.
  InferenceOptions options = s.w.options();
  options.root = s.b[1];
  expectRejected(s.w, options, {"constraint 2 (btHingeConstraint)", "'b2'", "'post'", "static"});
  // Without: two candidate roots.
  expectRejected(s.w, s.w.options(),
                 {"constraint 0 (btHingeConstraint)", "'ground'", "'b1'",
                  "constraint 2 (btHingeConstraint)", "'post'", "ambiguous"});
}

TEST(WorldInferenceRejects, KinematicBody) {
  SmallWorld s;
  btRigidBody* mover =
      s.w.addBox("mover", 0.0, Vector3(0.1, 0.1, 0.1), pose(Vector3::Zero(), Vector3(0.9, 0, 1)));
  mover->setCollisionFlags(mover->getCollisionFlags() | btCollisionObject::CF_KINEMATIC_OBJECT);
  s.hinge(s.b[2], mover);
  expectRejected(s.w, s.w.options(),
                 {"constraint 2 (btHingeConstraint)", "'b2'", "'mover'", "kinematic"});
}

TEST(WorldInferenceRejects, NoRoot) {
  TestWorld w;
  btRigidBody* a =
      w.addBox("a", 1.0, Vector3(0.1, 0.1, 0.1), pose(Vector3::Zero(), Vector3(0, 0, 1)));
  btRigidBody* b =
      w.addBox("b", 1.0, Vector3(0.1, 0.1, 0.1), pose(Vector3::Zero(), Vector3(0, 0, 0.8)));
  w.add<btPoint2PointConstraint>(*a, *b, btVector3(0, 0, -0.1), btVector3(0, 0, 0.1));
  expectRejected(w, w.options(), {"'a'", "no body", "static"});
  // Given a root, the same world is a floating base.
  InferenceOptions options = w.options();
  options.root = b;
  const InferredModel inferred = infer(w, options);
  EXPECT_EQ(inferred.model.link_names[0], "b");
  EXPECT_EQ(inferred.model.nv, 9);
}

TEST(WorldInferenceRejects, SeveralGroupsUnlessStartIsGiven) {
  SmallWorld s;
  btRigidBody* post =
      s.w.addBox("post", 0.0, Vector3(0.1, 0.1, 0.1), pose(Vector3::Zero(), Vector3(0, 3, 1)));
  btRigidBody* flag =
      s.w.addBox("flag", 0.3, Vector3(0.1, 0.1, 0.1), pose(Vector3::Zero(), Vector3(0, 3.2, 1)));
  s.hinge(post, flag);
  expectRejected(s.w, s.w.options(), {"'b1'", "'flag'", "several groups"});
  InferenceOptions options = s.w.options();
  options.start = s.b[2];
  EXPECT_EQ(infer(s.w, options).model.numLinks(), 2);
  options.start = flag;
  EXPECT_EQ(infer(s.w, options).model.link_names[0], "flag");
}

// ---------------------------------------------------------------------------------------------
// Trees that hang from a static body: a test stand holding three legs of two links each (hinges,
// a point-to-point hip), a floating pair and a pendulum on Bullet's fixed body beside it.

struct TestStand {
  TestWorld w;
  btRigidBody* stand;
  btRigidBody* leg[3][2];
  btRigidBody* pair[2];
  btRigidBody* pendulum;

  TestStand() {
    stand =
        w.addBox("stand", 0.0, Vector3(0.3, 0.3, 0.1), pose(Vector3(0, 0, 0.4), Vector3(0, 0, 1)));
    for (int i = 0; i < 3; ++i) {
      const double angle = 2.0 * M_PI * i / 3.0;
      const Vector3 out(std::cos(angle), std::sin(angle), 0.0);
      const Vector3 hip = Vector3(0, 0, 0.9) + 0.3 * out;
      leg[i][0] = w.addBox("upper" + std::to_string(i), 1.0 + 0.2 * i, Vector3(0.04, 0.04, 0.2),
                           pose(Vector3(0.1 * i, 0, 0.2), hip + 0.2 * out));
      leg[i][1] = w.addBox("lower" + std::to_string(i), 0.6 + 0.1 * i, Vector3(0.03, 0.03, 0.2),
                           pose(Vector3(0, 0.2, 0.1 * i), hip + 0.45 * out - Vector3(0, 0, 0.2)));
      const Vector3 axis(-out.y(), out.x(), 0.0);
      if (i == 2) {
        w.add<btPoint2PointConstraint>(*stand, *leg[i][0], pointInBody(stand, hip),
                                       pointInBody(leg[i][0], hip));
      } else {
        hinge(stand, leg[i][0], hip, axis);
      }
      hinge(leg[i][0], leg[i][1], hip + 0.4 * out, axis);
    }
    pair[0] =
        w.addBox("pair0", 1.0, Vector3(0.1, 0.1, 0.1), pose(Vector3::Zero(), Vector3(3, 0, 1)));
    pair[1] =
        w.addBox("pair1", 1.0, Vector3(0.1, 0.1, 0.1), pose(Vector3::Zero(), Vector3(3, 0, 0.8)));
    w.add<btPoint2PointConstraint>(*pair[0], *pair[1], btVector3(0, 0, -0.1), btVector3(0, 0, 0.1));
    pendulum = w.addBox("pendulum", 1.0, Vector3(0.05, 0.05, 0.2),
                        pose(Vector3::Zero(), Vector3(-3, 0, 1)));
    w.add<btHingeConstraint>(*pendulum, btVector3(0, 0, 0.2), btVector3(0, 1, 0));
  }
  btHingeConstraint* hinge(btRigidBody* a, btRigidBody* c, const Vector3& p, const Vector3& axis) {
    const Transform F = frameWithAxis(p, axis, 2);
    return w.add<btHingeConstraint>(*a, *c, inBody(a, F), inBody(c, F));
  }
};

/// The columns of `model`'s velocity that link `name`'s joint moves.
std::vector<int> dofsOf(const Model& model, const std::string& name) {
  const auto it = std::find(model.link_names.begin(), model.link_names.end(), name);
  EXPECT_NE(it, model.link_names.end()) << name;
  const Joint& joint = model.joints[it - model.link_names.begin()];
  std::vector<int> dofs(joint.nv);
  for (int i = 0; i < joint.nv; ++i) dofs[i] = joint.idx_v + i;
  return dofs;
}

TEST(WorldInference, AStaticBodyHoldingSeveralChainsIsOneFixedBaseModel) {
  TestStand t;
  InferenceOptions options = t.w.options();
  // From any body of any leg: the three legs, based on the stand.
  for (btRigidBody* start : {t.leg[0][0], t.leg[1][1], t.leg[2][1]}) {
    options.start = start;
    const InferredModel inferred = infer(t.w, options);
    EXPECT_EQ(inferred.model.numLinks(), 6);
    EXPECT_EQ(inferred.model.nv, 1 + 1 + 3 + 5 - 2);
    EXPECT_EQ(inferred.base_body, "stand");
    expectBodiesReproduced(inferred);
  }
  // With the stand as the root: the same model.
  options.start = nullptr;
  options.root = t.stand;
  InferredModel whole = infer(t.w, options);
  EXPECT_EQ(whole.model.link_names,
            (std::vector<std::string>{"upper0", "lower0", "upper1", "lower1", "upper2", "lower2"}));
  Data data(whole.model);
  const Eigen::MatrixXd M = crba(whole.model, data, whole.q);
  whole.map.reset();
  // A dynamic root the stand holds reads the whole group too; one it does not hold is refused.
  options.root = t.leg[1][0];
  EXPECT_EQ(infer(t.w, options).model.numLinks(), 6);
  options.root = t.leg[1][1];
  expectRejected(t.w, options, {"'stand'", "'lower1'", "can only hold the root"});

  // One leg alone; the whole model's mass matrix is the legs' own, block by block, and zero
  // between legs (an independent check of the merged tree: inference of each leg by itself).
  options.root = nullptr;
  double coupled = 0.0;
  std::vector<std::vector<int>> leg_dofs(3);
  for (int i = 0; i < 3; ++i) {
    options.subtree = t.leg[i][0];
    const InferredModel leg = infer(t.w, options);
    ASSERT_EQ(leg.model.numLinks(), 2);
    EXPECT_EQ(leg.base_body, "stand");
    Data leg_data(leg.model);
    const Eigen::MatrixXd M_leg = crba(leg.model, leg_data, leg.q);
    std::vector<int> dofs = dofsOf(whole.model, leg.model.link_names[0]);
    for (int j : dofsOf(whole.model, leg.model.link_names[1])) dofs.push_back(j);
    for (int r = 0; r < M_leg.rows(); ++r) {
      for (int c = 0; c < M_leg.cols(); ++c) {
        EXPECT_NEAR(M(dofs[r], dofs[c]), M_leg(r, c), 1e-12 * M.norm()) << "leg " << i;
      }
    }
    leg_dofs[i] = dofs;
  }
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      if (i == j) continue;
      for (int r : leg_dofs[i]) {
        for (int c : leg_dofs[j]) coupled = std::max(coupled, std::abs(M(r, c)));
      }
    }
  }
  EXPECT_EQ(coupled, 0.0);
}

// MotorDemo as the example runs it, its motors on: the stand's six legs are one model of 12 dofs
// based on the stand's static body, from whichever leg the walk starts; the walker beside it is a
// floating group of its own.
TEST(WorldInference, MotorDemosStandIsOneModelOfItsSixLegs) {
  test::MotorDemoRigs rigs;
  rigs.drive(0.0, 1.0 / 60.0);
  InferenceOptions options = rigs.w.options();
  options.start = &rigs.hinges[1][6]->getRigidBodyB();  // the fourth thigh
  expectRejected(
      rigs.w, options,
      {"between 'stand_body' and 'stand_thigh0'", "its angular motor", "switch_motors_off"});
  options.switch_motors_off = true;
  const InferredModel stand = inferModelFromWorld(rigs.w.world(), options);
  EXPECT_EQ(stand.model.nv, 12);
  EXPECT_FALSE(stand.model.floating_base);
  EXPECT_EQ(stand.base_body, "stand_body");
  EXPECT_EQ(stand.motors_switched_off.size(), 12u);
  for (btHingeConstraint* hinge : rigs.hinges[1]) EXPECT_FALSE(hinge->getEnableAngularMotor());
  for (btHingeConstraint* hinge : rigs.hinges[0]) EXPECT_TRUE(hinge->getEnableAngularMotor());
  expectBodiesReproduced(stand);
  options.start = rigs.body[0];
  expectRejected(rigs.w, options, {"'walker_body' and 12 more bodies", "no body", "static"});
  options.root = rigs.body[0];
  const InferredModel walker = inferModelFromWorld(rigs.w.world(), options);
  EXPECT_EQ(walker.model.nv, 18);
  EXPECT_EQ(walker.motors_switched_off.size(), 12u);
}

TEST(WorldInference, EachChainOnBulletsFixedBodyIsAGroupOfItsOwn) {
  TestStand t;
  InferenceOptions options = t.w.options();
  options.start = t.pendulum;
  const InferredModel pendulum = infer(t.w, options);
  EXPECT_EQ(pendulum.model.link_names, std::vector<std::string>{"pendulum"});
  EXPECT_EQ(pendulum.base_body, "the fixed body (getFixedBody())");
  options.start = t.pair[1];
  expectRejected(t.w, options, {"'pair1'", "no body", "static"});
  options.start = nullptr;
  options.root = t.pair[0];
  EXPECT_EQ(infer(t.w, options).base_body, "");
}

TEST(WorldInference, FindWorldTreesListsEveryGroup) {
  TestStand t;
  const std::vector<WorldTree> trees = findWorldTrees(t.w.world());
  ASSERT_EQ(trees.size(), 3u);
  EXPECT_EQ(trees[0].bodies.size(), 6u);
  EXPECT_EQ(trees[0].static_bodies, std::vector<const btRigidBody*>{t.stand});
  EXPECT_EQ(trees[0].chain_roots.size(), 3u);
  EXPECT_EQ(trees[1].bodies.size(), 2u);
  EXPECT_TRUE(trees[1].static_bodies.empty());
  EXPECT_TRUE(trees[1].chain_roots.empty());
  EXPECT_EQ(trees[2].bodies, std::vector<const btRigidBody*>{t.pendulum});
  EXPECT_EQ(trees[2].static_bodies,
            std::vector<const btRigidBody*>{&btTypedConstraint::getFixedBody()});
  // Without a start, the message lists them.
  expectRejected(t.w, t.w.options(),
                 {"several groups", "'upper0' and 5 more bodies, held by 'stand'",
                  "'pair0' and 1 more bodies, floating", "'pendulum', held by the fixed body",
                  "options.subtree"});
}

TEST(WorldInferenceRejects, SubtreesThatAreNotAChainOfAStaticBody) {
  TestStand t;
  InferenceOptions options = t.w.options();
  options.subtree = t.leg[0][1];
  expectRejected(t.w, options, {"subtree body 'lower0'", "has 0 constraints to static bodies"});
  options.subtree = t.stand;
  expectRejected(t.w, options, {"subtree body 'stand'", "static"});
  options.subtree = t.leg[0][0];
  options.root = t.stand;
  expectRejected(t.w, options, {"options.root or options.subtree, not both"});
  // A static root that holds nothing.
  btRigidBody* post =
      t.w.addBox("post", 0.0, Vector3(0.1, 0.1, 0.1), pose(Vector3::Zero(), Vector3(0, 5, 1)));
  options = t.w.options();
  options.root = post;
  expectRejected(t.w, options, {"'post'", "holds no dynamic body"});
}

TEST(WorldInferenceRejects, Unsupported6DofConfiguration) {
  SmallWorld s;
  auto* d = s.w.add<btGeneric6DofConstraint>(*s.b[2], *s.b[3], s.frameIn(s.b[2]), s.frameIn(s.b[3]),
                                             true);
  // A cylindrical joint: translation and rotation about x.
  d->setLinearLowerLimit(btVector3(1, 0, 0));
  d->setLinearUpperLimit(btVector3(-1, 0, 0));
  d->setAngularLowerLimit(btVector3(1, 0, 0));
  d->setAngularUpperLimit(btVector3(-1, 0, 0));
  expectRejected(s.w, s.w.options(),
                 {"constraint 2 (btGeneric6DofConstraint)", "'b2'", "'b3'",
                  "locks 2 translations and 2 rotations"});
}

TEST(WorldInferenceRejects, MotorsAndSprings) {
  const std::vector<std::string> piece = {"constraint 2 (", "'b2'", "'b3'", "motor"};
  {
    SmallWorld s;
    s.hinge(s.b[2], s.b[3])->enableAngularMotor(true, 1.0, 10.0);
    expectRejected(s.w, s.w.options(), piece);
  }
  {
    SmallWorld s;
    auto* d = s.w.add<btGeneric6DofConstraint>(*s.b[2], *s.b[3], s.frameIn(s.b[2]),
                                               s.frameIn(s.b[3]), true);
    d->getRotationalLimitMotor(1)->m_enableMotor = true;
    expectRejected(s.w, s.w.options(), piece);
  }
  {
    SmallWorld s;
    auto* d = s.w.add<btGeneric6DofSpringConstraint>(*s.b[2], *s.b[3], s.frameIn(s.b[2]),
                                                     s.frameIn(s.b[3]), true);
    d->enableSpring(4, true);
    expectRejected(s.w, s.w.options(), {"constraint 2 (btGeneric6DofSpringConstraint)", "spring"});
  }
  for (int axis : {0, 5}) {
    SmallWorld s;
    auto* d = s.w.add<btGeneric6DofSpring2Constraint>(*s.b[2], *s.b[3], s.frameIn(s.b[2]),
                                                      s.frameIn(s.b[3]));
    d->enableSpring(axis, true);
    expectRejected(s.w, s.w.options(), {"constraint 2 (btGeneric6DofSpring2Constraint)", "spring"});
  }
  {
    SmallWorld s;
    auto* d = s.w.add<btGeneric6DofSpring2Constraint>(*s.b[2], *s.b[3], s.frameIn(s.b[2]),
                                                      s.frameIn(s.b[3]));
    d->enableMotor(3, true);
    expectRejected(s.w, s.w.options(), {"constraint 2 (btGeneric6DofSpring2Constraint)", "motor"});
  }
}

// Motors: refused by default, naming the option; switched off when asked, once the model is read,
// for every class that has them; a world refused for another reason keeps its motors on.
TEST(WorldInference, MotorsAreSwitchedOffWhenAsked) {
  {
    SmallWorld s;
    btHingeConstraint* hinge = s.hinge(s.b[2], s.b[3]);
    hinge->enableAngularMotor(true, 1.0, 10.0);
    auto* dof = s.w.add<btGeneric6DofSpring2Constraint>(*s.b[3], *s.b[4], s.frameIn(s.b[3]),
                                                        s.frameIn(s.b[4]));
    dof->enableMotor(3, true);
    dof->enableMotor(5, true);
    expectRejected(s.w, s.w.options(),
                   {"constraint 2 (btHingeConstraint)", "its angular motor", "switch_motors_off"});
    InferenceOptions options = s.w.options();
    options.switch_motors_off = true;
    const InferredModel inferred = inferModelFromWorld(s.w.world(), options);
    EXPECT_EQ(inferred.motors_switched_off,
              (std::vector<std::string>{
                  "constraint 2 (btHingeConstraint) between 'b2' and 'b3': its angular motor",
                  "constraint 3 (btGeneric6DofSpring2Constraint) between 'b3' and 'b4': the "
                  "motors of its axes 3 and 5"}));
    EXPECT_FALSE(hinge->getEnableAngularMotor());
    EXPECT_FALSE(dof->getRotationalLimitMotor(0)->m_enableMotor);
    EXPECT_FALSE(dof->getRotationalLimitMotor(2)->m_enableMotor);
  }
  // A spring is refused either way, and the motors stay on.
  {
    SmallWorld s;
    btHingeConstraint* hinge = s.hinge(s.b[2], s.b[3]);
    hinge->enableAngularMotor(true, 1.0, 10.0);
    auto* dof = s.w.add<btGeneric6DofSpring2Constraint>(*s.b[3], *s.b[4], s.frameIn(s.b[3]),
                                                        s.frameIn(s.b[4]));
    dof->enableSpring(1, true);
    InferenceOptions options = s.w.options();
    options.switch_motors_off = true;
    expectRejected(s.w, options, {"constraint 3 (btGeneric6DofSpring2Constraint)", "spring"});
    EXPECT_TRUE(hinge->getEnableAngularMotor());
  }
  // Each other class with motors: set up, then whether a motor is still on.
  using Case = std::function<std::function<bool()>(SmallWorld&)>;
  const std::vector<std::pair<std::string, Case>> cases = {
      {"its linear and angular motors",
       [](SmallWorld& s) {
         auto* slider = s.w.add<btSliderConstraint>(*s.b[2], *s.b[3], s.frameIn(s.b[2]),
                                                    s.frameIn(s.b[3]), true);
         slider->setPoweredLinMotor(true);
         slider->setPoweredAngMotor(true);
         return [slider] { return slider->getPoweredLinMotor() || slider->getPoweredAngMotor(); };
       }},
      {"its motor",
       [](SmallWorld& s) {
         auto* cone =
             s.w.add<btConeTwistConstraint>(*s.b[2], *s.b[3], s.frameIn(s.b[2]), s.frameIn(s.b[3]));
         cone->enableMotor(true);
         return [cone] { return cone->isMotorEnabled(); };
       }},
      {"the motors of its axes 0 and 4",
       [](SmallWorld& s) {
         auto* dof = s.w.add<btGeneric6DofConstraint>(*s.b[2], *s.b[3], s.frameIn(s.b[2]),
                                                      s.frameIn(s.b[3]), true);
         dof->getTranslationalLimitMotor()->m_enableMotor[0] = true;
         dof->getRotationalLimitMotor(1)->m_enableMotor = true;
         return [dof] {
           return dof->getTranslationalLimitMotor()->m_enableMotor[0] ||
                  dof->getRotationalLimitMotor(1)->m_enableMotor;
         };
       }},
  };
  for (const auto& [motors, setUp] : cases) {
    SCOPED_TRACE(motors);
    SmallWorld s;
    const std::function<bool()> motorOn = setUp(s);
    expectRejected(s.w, s.w.options(), {"constraint 2 (", motors});
    EXPECT_TRUE(motorOn());
    InferenceOptions options = s.w.options();
    options.switch_motors_off = true;
    const InferredModel inferred = inferModelFromWorld(s.w.world(), options);
    ASSERT_EQ(inferred.motors_switched_off.size(), 1u);
    EXPECT_NE(inferred.motors_switched_off[0].find(motors), std::string::npos);
    EXPECT_FALSE(motorOn());
  }
}

TEST(WorldInferenceRejects, SliderWithFreeRotation) {
  SmallWorld s;
  auto* slider =
      s.w.add<btSliderConstraint>(*s.b[2], *s.b[3], s.frameIn(s.b[2]), s.frameIn(s.b[3]), true);
  slider->setLowerAngLimit(1.0);
  slider->setUpperAngLimit(-1.0);
  expectRejected(s.w, s.w.options(),
                 {"constraint 2 (btSliderConstraint)", "'b2'", "'b3'", "rotate"});
}

TEST(WorldInferenceRejects, AngularOnlyHinge) {
  SmallWorld s;
  s.hinge(s.b[2], s.b[3])->setAngularOnly(true);
  expectRejected(s.w, s.w.options(),
                 {"constraint 2 (btHingeConstraint)", "'b2'", "'b3'", "angular-only"});
}

// A body Bullet keeps from moving in some direction is not a link: factors and an infinite
// moment of inertia are refused, naming the body.
TEST(WorldInferenceRejects, BodiesThatCannotMoveInEveryDirection) {
  {
    SmallWorld s;
    s.b[2]->setAngularFactor(btVector3(0, 0, 1));
    expectRejected(s.w, s.w.options(),
                   {"'b2'", "angular factor", "(0.000000, 0.000000, 1.000000)"});
  }
  {
    SmallWorld s;
    s.b[1]->setLinearFactor(btVector3(1, 0, 1));
    expectRejected(s.w, s.w.options(), {"'b1'", "linear factor"});
  }
  {
    SmallWorld s;
    s.b[2]->setMassProps(1.0, btVector3(0.1, 0, 0.1));
    s.b[2]->updateInertiaTensor();
    expectRejected(s.w, s.w.options(), {"'b2'", "infinite moment of inertia", "axis 1"});
  }
}

// ---------------------------------------------------------------------------------------------
// The world check: it reads the constraint list of a btDiscreteDynamicsWorld (or a subclass)
// directly, and asks any other world through getConstraint.

/// A discrete world that counts its getConstraint calls.
class CountingWorld : public btDiscreteDynamicsWorld {
 public:
  using btDiscreteDynamicsWorld::btDiscreteDynamicsWorld;
  btTypedConstraint* getConstraint(int index) override {
    ++calls;
    return btDiscreteDynamicsWorld::getConstraint(index);
  }
  const btTypedConstraint* getConstraint(int index) const override {
    ++calls;
    return btDiscreteDynamicsWorld::getConstraint(index);
  }
  mutable int calls = 0;
};

/// A static ground and two boxes hinged in a chain; the returned hinge is the first.
template <typename World, typename Solver>
btHingeConstraint* addHingedPair(BasicTestWorld<World, Solver>& w) {
  btRigidBody* ground =
      w.addBox("ground", 0.0, Vector3(1, 1, 0.1), pose(Vector3::Zero(), Vector3(0, 0, -1)));
  btRigidBody* b1 =
      w.addBox("b1", 0.6, Vector3(0.1, 0.1, 0.3), pose(Vector3::Zero(), Vector3(0, 0, 0)));
  btRigidBody* b2 =
      w.addBox("b2", 0.7, Vector3(0.1, 0.1, 0.3), pose(Vector3::Zero(), Vector3(0, 0, 0.4)));
  const auto hinge = [&](btRigidBody* a, btRigidBody* c, const Vector3& p_W) {
    const Transform F = frameWithAxis(p_W, Vector3::UnitY(), 2);
    return w.template add<btHingeConstraint>(*a, *c, inBody(a, F), inBody(c, F));
  };
  btHingeConstraint* first = hinge(ground, b1, Vector3(0, 0, -0.5));
  hinge(b1, b2, Vector3(0, 0, 0.2));
  return first;
}

/// readPositions reads the pair at q = 0; with `first` removed it refuses, naming the joint;
/// added back, at the end of the world's list (the other hinge moved to index 0), it is found.
template <typename World, typename Solver>
void expectRemovedHingeNoticed(BasicTestWorld<World, Solver>& w, const InferredModel& inferred,
                               btHingeConstraint* first) {
  BridgeData bdata(inferred.model);
  Eigen::VectorXd q;
  readPositions(inferred.model, *inferred.map, bdata, q);
  EXPECT_TRUE(q.isZero(kReadTolerance)) << q.transpose();
  w.world().removeConstraint(first);
  try {
    readPositions(inferred.model, *inferred.map, bdata, q);
    ADD_FAILURE() << "a removed hinge went unnoticed";
  } catch (const WorldError& e) {
    EXPECT_NE(std::string(e.what()).find("'" + inferred.model.joints[0].name +
                                         "' is no longer in the world"),
              std::string::npos)
        << e.what();
  }
  w.world().addConstraint(first, true);
  ASSERT_EQ(w.world().getConstraint(1), first);
  readPositions(inferred.model, *inferred.map, bdata, q);
  EXPECT_TRUE(q.isZero(kReadTolerance)) << q.transpose();
}

TEST(WorldCheck, ReadsADiscreteWorldsConstraintListWithoutGetConstraint) {
  BasicTestWorld<CountingWorld> w;
  btHingeConstraint* first = addHingedPair(w);
  const InferredModel inferred = inferModelFromWorld(w.world(), w.options());
  ASSERT_EQ(inferred.model.numLinks(), 2);
  w.world().calls = 0;
  expectRemovedHingeNoticed(w, inferred, first);
  // The one call is the test's own ASSERT_EQ above.
  EXPECT_EQ(w.world().calls, 1);
}

TEST(WorldCheck, ReadsTheListOfASubclassLikeTheMultiBodyWorld) {
  BasicTestWorld<btMultiBodyDynamicsWorld, btMultiBodyConstraintSolver> w;
  btHingeConstraint* first = addHingedPair(w);
  const InferredModel inferred = inferModelFromWorld(w.world(), w.options());
  ASSERT_EQ(inferred.model.numLinks(), 2);
  expectRemovedHingeNoticed(w, inferred, first);
}

// A world that is no btDiscreteDynamicsWorld is asked through getNumConstraints/getConstraint:
// btSimpleDynamicsWorld keeps no constraints, so a map with a hinge is refused.
TEST(WorldCheck, AsksOtherWorldsThroughGetConstraint) {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btSimpleDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
  btBoxShape shape(btVector3(0.05, 0.05, 0.15));
  btVector3 inertia;
  shape.calculateLocalInertia(1.0, inertia);
  btRigidBody body(btRigidBody::btRigidBodyConstructionInfo(1.0, nullptr, &shape, inertia));
  world.addRigidBody(&body);
  btHingeConstraint hinge(body, btVector3(0, 0, 0.15), btVector3(0, 1, 0));
  world.addConstraint(&hinge, true);
  ASSERT_EQ(world.getNumConstraints(), 0);
  ModelBuilder builder("hinged_box");
  builder.addLink("box", 1.0, Vector3(0, 0, -0.15), fromBt(inertia).asDiagonal());
  builder.addRevolute("hinge", "world", "box", Transform(Matrix3::Identity(), Vector3(0, 0, 0.15)),
                      Vector3::UnitY());
  const Model model = builder.build();
  try {
    RigidBodyMap map(model, &world, {&body}, {Transform(Matrix3::Identity(), Vector3(0, 0, -0.15))},
                     {&hinge}, {false});
    ADD_FAILURE() << "a map over a hinge the world does not hold was made";
  } catch (const WorldError& e) {
    EXPECT_NE(std::string(e.what()).find("'hinge' is no longer in the world"), std::string::npos)
        << e.what();
  }
  world.removeRigidBody(&body);
}

// Claims: one model per body at a time.

TEST(WorldInference, BodiesAreClaimedWhileTheMapLives) {
  SmallWorld s;
  InferredModel first = infer(s.w, s.w.options());
  expectRejected(s.w, s.w.options(), {"'b1'", "already belongs"});
  first.map.reset();
  const InferredModel second = infer(s.w, s.w.options());
  EXPECT_EQ(second.model.numLinks(), 2);
}

}  // namespace
}  // namespace gcbridge

namespace gcbridge {
namespace {

// The bodies' shapes become the links' collision geometry: BenchmarkDemo's capsules (their axis
// along the body's y, Bullet's capsule default) and TestHingeTorque's box and sphere, placed so
// that in the world they sit where the bodies' shapes are.
TEST(WorldInference, BodyShapesBecomeCollisionGeometry) {
  test::BenchmarkRagdoll ragdoll;
  InferenceOptions options = ragdoll.w.options();
  options.root = ragdoll.pelvis;
  const InferredModel inferred = inferModelFromWorld(ragdoll.w.world(), options);
  const Model& model = inferred.model;
  const double exact = sizeof(btScalar) == 8 ? 1e-12 : 1e-5;
  for (int k = 0; k < model.numLinks(); ++k) {
    SCOPED_TRACE(model.link_names[k]);
    const auto& shapes = model.description->links[model.link_description[k]].collisions;
    ASSERT_EQ(shapes.size(), 1u);
    const Geometry& g = shapes[0].geometry;
    const auto* capsule =
        static_cast<const btCapsuleShape*>(inferred.map->body(k)->getCollisionShape());
    EXPECT_EQ(g.type, Geometry::Type::Capsule);
    EXPECT_NEAR(g.radius, capsule->getRadius(), exact);
    EXPECT_NEAR(g.length, 2 * capsule->getHalfHeight(), exact);
    // The capsule's centre and axis in the world: the body's origin and y axis.
    const Transform X_WB = test::fromBt(inferred.map->body(k)->getCenterOfMassTransform());
    const Transform X_WG = X_WB * inferred.map->X_BL(k) * shapes[0].X_LG;
    EXPECT_TRUE(test::matricesNear(X_WG.translation(), X_WB.translation(), exact));
    EXPECT_TRUE(test::matricesNear(X_WG.rotation().col(2), X_WB.rotation().col(1), exact));
  }

  test::HingeTorqueDoor door;
  const InferredModel door_model = inferModelFromWorld(door.w.world(), door.w.options());
  const auto& links = door_model.model.description->links;
  ASSERT_EQ(links.size(), 2u);
  ASSERT_EQ(links[0].collisions.size(), 1u);
  EXPECT_EQ(links[0].collisions[0].geometry.type, Geometry::Type::Box);
  EXPECT_TRUE(
      test::matricesNear(links[0].collisions[0].geometry.box_size, Vector3(0.1, 0.74, 0.2), exact));
  ASSERT_EQ(links[1].collisions.size(), 1u);
  EXPECT_EQ(links[1].collisions[0].geometry.type, Geometry::Type::Sphere);
  EXPECT_NEAR(links[1].collisions[0].geometry.radius, 0.2, exact);
}

}  // namespace
}  // namespace gcbridge
