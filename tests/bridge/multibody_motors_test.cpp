// Bullet's joint motors on a btMultiBody (bridge/multibody_motors.hpp) and the btMultiBody's
// colliders from the model's collision geometry (MultiBodyOptions::collision_shapes).

#include "gcbridge/bridge/multibody_motors.hpp"

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofSpring2Constraint.h>
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <memory>

#include "gcbridge/bridge/multibody_builder.hpp"
#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

constexpr bool kDouble = sizeof(btScalar) == 8;
// One solver row reaching its velocity: round-off of Bullet's precision.
constexpr double kVelocityTolerance = kDouble ? 1e-9 : 1e-4;
constexpr double kStep = 1.0 / 240.0;
const double kUnbounded = std::numeric_limits<double>::infinity();

// One link on a joint of `type` hanging from the world, its inertia not diagonal in its frame (so
// Bullet's principal frame B is turned from the link frame L).
Model oneJointModel(JointType type) {
  ModelBuilder b("one_joint");
  Matrix3 I;
  I << 0.05, 0.01, -0.004, 0.01, 0.03, 0.006, -0.004, 0.006, 0.04;
  b.addLink("link", 1.7, Vector3(0.1, -0.05, -0.3), I);
  const Transform X_WJ(rotationFromRpy(Vector3(0.2, -0.4, 0.7)), Vector3(0.1, 0.2, 1.0));
  if (type == JointType::Ball) {
    b.addBall("joint", "world", "link", X_WJ);
  } else if (type == JointType::Prismatic) {
    b.addPrismatic("joint", "world", "link", X_WJ, Vector3(0.3, 1.0, -0.2).normalized());
  } else {
    b.addRevolute("joint", "world", "link", X_WJ, Vector3(0.3, 1.0, -0.2).normalized());
  }
  return b.build();
}

// The DeepMimic humanoid on a free root.
Model floatingHumanoid() {
  ModelOptions options;
  options.floating_base = true;
  return loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), options);
}

MultiBodyOptions withColliders() {
  MultiBodyOptions options;
  options.collision_shapes = true;
  return options;
}

Eigen::VectorXd stateVelocity(const Model& model, const MultiBodyWorld& w) {
  Eigen::VectorXd q, v;
  getMultiBodyState(model, w.layout, *w.body, q, v);
  return v;
}

// Without gravity, one unbounded substep brings a revolute or prismatic joint to its target
// exactly (one solver row). A ball's motor aims at the XYZ Euler angles of the turn h omega over h
// (its position error), in its link's principal axes B: its three rows are coupled (the COM is off
// the pivot), so the solver gets 200 iterations to converge to round-off.
TEST(MultiBodyMotors, ReachTheirTargetsInOneSubstep) {
  for (JointType type : {JointType::Revolute, JointType::Prismatic, JointType::Ball}) {
    const Model model = oneJointModel(type);
    const Eigen::VectorXd v0 = Eigen::VectorXd::LinSpaced(model.nv, 0.3, -0.2);
    const auto w = buildMultiBody(model, {}, randomConfiguration(model, 3), v0);
    w->world->setGravity(btVector3(0, 0, 0));
    w->world->getSolverInfo().m_numIterations = 200;
    MultiBodyMotors motors(model, w->layout, *w->body, *w->world);
    Eigen::VectorXd target(model.nv);
    target << (type == JointType::Ball ? Eigen::Vector3d(0.7, -0.4, 0.2)
                                       : Eigen::Vector3d(1.2, 0, 0))
                  .head(model.nv);
    Eigen::VectorXd expected = target;
    if (type == JointType::Ball) {
      const Quaternion& Q_LB = w->layout.Q_LB[0];
      const Vector3 turn_B = Q_LB.conjugate() * (kStep * target);
      const Quaternion turn(Eigen::AngleAxisd(turn_B.norm(), turn_B.normalized()));
      btVector3 euler_B;
      btGeneric6DofSpring2Constraint::matrixToEulerXYZ(
          btMatrix3x3(btQuaternion(turn.x(), turn.y(), turn.z(), turn.w())), euler_B);
      // The motor takes the angles as a penetration: its row targets are minus them over h.
      expected = -(Q_LB * Vector3(euler_B.x(), euler_B.y(), euler_B.z())) / kStep;
      // The Euler angles differ from the rotation vector at second order in the turn.
      EXPECT_GT((expected - target).norm(), 1e-4);
    }
    motors.drive(target, Eigen::VectorXd::Constant(model.nv, kUnbounded), kStep);
    w->world->stepSimulation(kStep, 1, kStep);
    EXPECT_LT((stateVelocity(model, *w) - expected).norm(), kVelocityTolerance) << toString(type);
  }
}

// A small max effort bounds the motor's impulse: from rest without gravity the joint gains
// exactly effort h / M.
TEST(MultiBodyMotors, KeepToTheirMaxEffort) {
  const Model model = oneJointModel(JointType::Revolute);
  const Eigen::VectorXd q0 = randomConfiguration(model, 4);
  const auto w = buildMultiBody(model, {}, q0);
  w->world->setGravity(btVector3(0, 0, 0));
  MultiBodyMotors motors(model, w->layout, *w->body, *w->world);
  const double effort = 0.5;
  motors.drive(Eigen::VectorXd::Constant(1, 100.0), Eigen::VectorXd::Constant(1, effort), kStep);
  w->world->stepSimulation(kStep, 1, kStep);
  Data data(model);
  const double inertia = crba(model, data, q0)(0, 0);
  EXPECT_NEAR(stateVelocity(model, *w)(0), effort * kStep / inertia, kVelocityTolerance);
}

// Two identical worlds with gravity, one of them with motors: after stop() (and after a refused
// drive) the motored one steps exactly as before.
TEST(MultiBodyMotors, StopAndRefusedTargetsLeaveTheWorldAsItWas) {
  const Model model = test::randomTreeModel(11, 6, BallParametrization::Quaternion, false);
  const Eigen::VectorXd q0 = randomConfiguration(model, 5);
  const auto plain = buildMultiBody(model, {}, q0);
  const auto motored = buildMultiBody(model, {}, q0);
  MultiBodyMotors motors(model, motored->layout, *motored->body, *motored->world);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.nv);
  const Eigen::VectorXd effort = Eigen::VectorXd::Constant(model.nv, 5.0);
  motors.drive(zero, effort, kStep);
  motors.stop();
  Eigen::VectorXd bad = zero;
  bad(model.nv - 1) = std::nan("");
  EXPECT_THROW(motors.drive(bad, effort, kStep), InvalidArgumentError);
  EXPECT_THROW(motors.drive(zero, -effort, kStep), InvalidArgumentError);
  EXPECT_THROW(motors.drive(zero.head(2), effort, kStep), InvalidArgumentError);
  EXPECT_THROW(motors.drive(zero, effort, 0.0), InvalidArgumentError);
  EXPECT_THROW(motors.drive(zero, effort, kUnbounded), InvalidArgumentError);
  for (int i = 0; i < 10; ++i) {
    plain->world->stepSimulation(kStep, 1, kStep);
    motored->world->stepSimulation(kStep, 1, kStep);
  }
  Eigen::VectorXd q1, v1, q2, v2;
  getMultiBodyState(model, plain->layout, *plain->body, q1, v1);
  getMultiBodyState(model, motored->layout, *motored->body, q2, v2);
  EXPECT_EQ(q1, q2);
  EXPECT_EQ(v1, v2);
}

// Bullet's example law (velocity (q_d (-) q) / h; a ball's as the position q_d) holds a random
// tree of revolute, prismatic and ball joints at a pose against gravity; the motors' colliders
// go when the motors go.
TEST(MultiBodyMotors, HoldAPoseWithTheExampleAppsLaw) {
  const Model model = test::randomTreeModel(12, 7, BallParametrization::Quaternion, false);
  const auto w = buildMultiBody(model, {}, randomConfiguration(model, 6));
  const int objects = w->world->getNumCollisionObjects();
  const Eigen::VectorXd q_d = randomConfiguration(model, 7);
  {
    MultiBodyMotors motors(model, w->layout, *w->body, *w->world);
    Eigen::VectorXd q, v, v_target(model.nv);
    for (int i = 0; i < 240; ++i) {
      getMultiBodyState(model, w->layout, *w->body, q, v);
      difference(model, q, q_d, v_target);
      motors.drive(v_target / kStep, Eigen::VectorXd::Constant(model.nv, kUnbounded), kStep);
      w->world->stepSimulation(kStep, 1, kStep);
    }
    getMultiBodyState(model, w->layout, *w->body, q, v);
    difference(model, q, q_d, v_target);
    for (int i = 0; i < model.nv; ++i) {
      if (motors.driven()[i]) {
        EXPECT_LT(std::abs(v_target(i)), 1e-3) << "dof " << i;
      }
    }
    EXPECT_GT(w->world->getNumCollisionObjects(), objects);
  }
  EXPECT_EQ(w->world->getNumCollisionObjects(), objects);
  for (int b = 0; b < w->body->getNumLinks(); ++b)
    EXPECT_EQ(w->body->getLink(b).m_collider, nullptr);
}

// Two sets of motors on one body share each link's collider: the second still drives its links
// when the first is gone, and the last one takes the collider out of the world. Links that have
// colliders of their own (collision_shapes) get none.
TEST(MultiBodyMotors, ShareTheirLinksColliders) {
  const Model model = oneJointModel(JointType::Revolute);
  const auto w = buildMultiBody(model);
  w->world->setGravity(btVector3(0, 0, 0));
  const int objects = w->world->getNumCollisionObjects();
  const Eigen::VectorXd target = Eigen::VectorXd::Constant(1, 0.9);
  const Eigen::VectorXd unbounded = Eigen::VectorXd::Constant(1, kUnbounded);
  auto first = std::make_unique<MultiBodyMotors>(model, w->layout, *w->body, *w->world);
  // The application clears the link's collider: the next motors point it back at theirs.
  w->body->getLink(0).m_collider = nullptr;
  auto second = std::make_unique<MultiBodyMotors>(model, w->layout, *w->body, *w->world);
  EXPECT_NE(w->body->getLink(0).m_collider, nullptr);
  EXPECT_EQ(w->world->getNumCollisionObjects(), objects + 1);
  first.reset();
  EXPECT_EQ(w->world->getNumCollisionObjects(), objects + 1);
  second->drive(target, unbounded, kStep);
  w->world->stepSimulation(kStep, 1, kStep);
  EXPECT_NEAR(stateVelocity(model, *w)(0), 0.9, kVelocityTolerance);
  second.reset();
  EXPECT_EQ(w->world->getNumCollisionObjects(), objects);
  EXPECT_EQ(w->body->getLink(0).m_collider, nullptr);
  const Model humanoid = floatingHumanoid();
  const auto standing = buildMultiBody(humanoid, withColliders());
  const int with_shapes = standing->world->getNumCollisionObjects();
  MultiBodyMotors motors(humanoid, standing->layout, *standing->body, *standing->world);
  EXPECT_EQ(standing->world->getNumCollisionObjects(), with_shapes);
}

// A ball's three rows are each bounded by the smallest of its three max efforts; a body or layout
// of another model, and a body not in the world, are refused with nothing added.
TEST(MultiBodyMotors, BoundABallByItsSmallestEffortAndRefuseOtherBodies) {
  const Model model = oneJointModel(JointType::Ball);
  const Eigen::VectorXd target = (Eigen::VectorXd(3) << 3.0, -2.0, 1.0).finished();
  Eigen::VectorXd v[2];
  for (int i = 0; i < 2; ++i) {
    const auto w = buildMultiBody(model);
    w->world->setGravity(btVector3(0, 0, 0));
    MultiBodyMotors motors(model, w->layout, *w->body, *w->world);
    const Eigen::Vector3d effort =
        i == 0 ? Eigen::Vector3d(0.2, 50.0, 9.0) : Eigen::Vector3d::Constant(0.2);
    motors.drive(target, effort, kStep);
    w->world->stepSimulation(kStep, 1, kStep);
    v[i] = stateVelocity(model, *w);
  }
  EXPECT_EQ(v[0], v[1]);
  EXPECT_GT((v[0] - target).norm(), 1.0);  // the bound held it back
  // The ball's gain is 1 / erp: a world without erp is refused for it, not for a hinge.
  for (JointType type : {JointType::Ball, JointType::Revolute}) {
    const Model one = oneJointModel(type);
    const auto w = buildMultiBody(one);
    w->world->getSolverInfo().m_erp = 0;
    MultiBodyMotors motors(one, w->layout, *w->body, *w->world);
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(one.nv);
    if (type == JointType::Ball) {
      EXPECT_THROW(motors.drive(zero, zero, kStep), InvalidArgumentError);
    } else {
      EXPECT_NO_THROW(motors.drive(zero, zero, kStep));
    }
  }
  const Model other = oneJointModel(JointType::Revolute);
  const auto w = buildMultiBody(model);
  const auto elsewhere = buildMultiBody(model);
  const auto other_world = buildMultiBody(other);
  const int objects = w->world->getNumCollisionObjects();
  EXPECT_THROW(MultiBodyMotors(other, other_world->layout, *w->body, *w->world),
               InvalidArgumentError);
  EXPECT_THROW(MultiBodyMotors(model, elsewhere->layout, *elsewhere->body, *w->world), WorldError);
  EXPECT_EQ(w->world->getNumCollisionObjects(), objects);
  EXPECT_EQ(w->world->getNumMultiBodyConstraints(), 0);
}

// The colliders sit where the rigid-body world puts the same links' shapes: equal bounding boxes.
TEST(MultiBodyColliders, MatchTheRigidBodyWorldsShapes) {
  const Model model = floatingHumanoid();
  const Eigen::VectorXd q = test::safeConfiguration(model, 8);
  const auto mb = buildMultiBody(model, withColliders(), q);
  const auto rb = buildRigidBodyWorld(model, RigidBodyOptions{}, q);
  EXPECT_FALSE(mb->body->hasSelfCollision());
  int with_collider = 0;
  for (int k = 0; k < model.numLinks(); ++k) {
    const int b = mb->layout.bulletLink(k);
    const btCollisionObject* collider =
        b < 0 ? mb->body->getBaseCollider() : mb->body->getLink(b).m_collider;
    const btRigidBody* body = rb->map->body(k);
    ASSERT_NE(collider, nullptr) << model.link_names[k];
    ++with_collider;
    btVector3 lo1, hi1, lo2, hi2;
    collider->getCollisionShape()->getAabb(collider->getWorldTransform(), lo1, hi1);
    body->getCollisionShape()->getAabb(body->getWorldTransform(), lo2, hi2);
    EXPECT_LT((lo1 - lo2).length() + (hi1 - hi2).length(), kDouble ? 1e-9 : 1e-4)
        << model.link_names[k];
  }
  EXPECT_EQ(static_cast<int>(mb->colliders.size()), with_collider);
}

// The colliders touch what else is in the world: the passive humanoid dropped onto a plane
// collapses onto it, touching it with several links, none of them sinking in by more than 2 cm.
TEST(MultiBodyColliders, CollideWithAPlane) {
  const Model model = floatingHumanoid();
  const auto w = buildMultiBody(model, withColliders());
  // A plane 1 cm below the lowest bounding box of the colliders, against gravity.
  const Vector3 up = -model.gravity_W.normalized();
  double lowest = std::numeric_limits<double>::infinity();
  for (const auto& collider : w->colliders) {
    btVector3 lo, hi;
    collider->getCollisionShape()->getAabb(collider->getWorldTransform(), lo, hi);
    double height = 0.0;
    for (int i = 0; i < 3; ++i) height += up(i) * (up(i) > 0 ? lo[i] : hi[i]);
    lowest = std::min(lowest, height);
  }
  btStaticPlaneShape plane(btVector3(btScalar(up.x()), btScalar(up.y()), btScalar(up.z())),
                           btScalar(lowest - 0.01));
  btCollisionObject ground;
  ground.setCollisionShape(&plane);
  w->world->addCollisionObject(&ground);
  double deepest = 0.0;
  int touching = 0;
  for (int i = 0; i < 480; ++i) {
    w->world->stepSimulation(kStep, 1, kStep);
    touching = 0;
    for (int m = 0; m < w->dispatcher->getNumManifolds(); ++m) {
      const btPersistentManifold* manifold = w->dispatcher->getManifoldByIndexInternal(m);
      if (manifold->getBody0() != &ground && manifold->getBody1() != &ground) continue;
      touching += manifold->getNumContacts() > 0 ? 1 : 0;
      for (int c = 0; c < manifold->getNumContacts(); ++c) {
        deepest =
            std::min(deepest, static_cast<double>(manifold->getContactPoint(c).getDistance()));
      }
    }
  }
  w->world->removeCollisionObject(&ground);
  EXPECT_GE(touching, 3);
  EXPECT_GT(deepest, -0.02);
  // The base (pelvis) stays above the plane.
  EXPECT_GT(up.dot(Vector3(w->body->getBasePos().x(), w->body->getBasePos().y(),
                           w->body->getBasePos().z())),
            lowest);
}

}  // namespace
}  // namespace gcbridge
