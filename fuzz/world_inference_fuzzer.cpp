// libFuzzer target: world inference on Bullet worlds built from the bytes.
//
// The bytes choose the bodies (dynamic, static or kinematic; masses, inertias, poses, velocities
// and factors including zero, huge, negative, NaN and infinite values), the constraints (every
// Bullet constraint class the bridge knows, with random frames, pivots, axes, limits, motors and
// springs, between any two bodies or the fixed body, loops, duplicates and disabled ones) and the
// inference options. inferModelFromWorld must return a model or throw a typed gcbridge::Error,
// and must leave the world as it was either way. A model it returns is then read through its map
// (readState, computeJointErrors), which may only throw typed errors too.

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/ConstraintSolver/btConeTwistConstraint.h>
#include <BulletDynamics/ConstraintSolver/btFixedConstraint.h>
#include <BulletDynamics/ConstraintSolver/btGearConstraint.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofSpring2Constraint.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofSpringConstraint.h>
#include <BulletDynamics/ConstraintSolver/btHinge2Constraint.h>
#include <BulletDynamics/ConstraintSolver/btHingeConstraint.h>
#include <BulletDynamics/ConstraintSolver/btPoint2PointConstraint.h>
#include <BulletDynamics/ConstraintSolver/btSequentialImpulseConstraintSolver.h>
#include <BulletDynamics/ConstraintSolver/btSliderConstraint.h>
#include <BulletDynamics/ConstraintSolver/btUniversalConstraint.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/bridge/world_inference.hpp"
#include "gcbridge/dynamics/errors.hpp"

namespace {

using namespace gcbridge;

constexpr int kMaxBodies = 6;
constexpr int kMaxConstraints = 8;

/// What every world points at, made once: the collision configuration's pools are large, and
/// allocating them per input would take most of the run. No world is stepped, so nothing they
/// hold carries from one input to the next.
struct Infrastructure {
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher{&configuration};
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btSphereShape shape{0.1};
};

Infrastructure& infrastructure() {
  static Infrastructure shared;
  return shared;
}

/// A world and what it holds, released in the right order.
struct FuzzWorld {
  Infrastructure& base = infrastructure();
  btDiscreteDynamicsWorld world{&base.dispatcher, &base.broadphase, &base.solver,
                                &base.configuration};
  btSphereShape& shape = base.shape;
  std::vector<std::unique_ptr<btRigidBody>> bodies;
  std::vector<std::unique_ptr<btTypedConstraint>> constraints;

  ~FuzzWorld() {
    for (auto& c : constraints) world.removeConstraint(c.get());
    for (auto& b : bodies) world.removeRigidBody(b.get());
  }
};

/// A number: mostly ordinary, often one of the values that break naive code.
btScalar scalar(FuzzedDataProvider& in) {
  static const double special[] = {0.0,
                                   1.0,
                                   -1.0,
                                   0.5,
                                   1e-12,
                                   -1e-12,
                                   1e12,
                                   -1e12,
                                   1e30,
                                   1e300,
                                   3.14159,
                                   std::numeric_limits<double>::infinity(),
                                   -std::numeric_limits<double>::infinity(),
                                   std::numeric_limits<double>::quiet_NaN()};
  if (in.ConsumeBool()) return btScalar(in.ConsumeFloatingPointInRange(-2.0, 2.0));
  return btScalar(in.PickValueInArray(special));
}

btVector3 vector3(FuzzedDataProvider& in) {
  const btScalar x = scalar(in), y = scalar(in), z = scalar(in);
  return btVector3(x, y, z);
}

/// A frame: usually a proper rotation (from a quaternion of ordinary numbers), sometimes from any
/// four numbers (zero or non-finite included), with any origin.
btTransform frame(FuzzedDataProvider& in) {
  btQuaternion rotation;
  if (in.ConsumeBool()) {
    const double x = in.ConsumeFloatingPointInRange(-1.0, 1.0);
    const double y = in.ConsumeFloatingPointInRange(-1.0, 1.0);
    const double z = in.ConsumeFloatingPointInRange(-1.0, 1.0);
    rotation = btQuaternion(btScalar(x), btScalar(y), btScalar(z), btScalar(1.0));
    rotation.normalize();
  } else {
    const btScalar x = scalar(in), y = scalar(in), z = scalar(in), w = scalar(in);
    rotation = btQuaternion(x, y, z, w);
  }
  return btTransform(rotation, in.ConsumeBool() ? vector3(in) : btVector3(0, 0, 0));
}

/// One body: dynamic, static (mass 0) or kinematic, with the bytes' mass, inertia, pose, velocity
/// and sometimes factors other than 1.
void addBody(FuzzedDataProvider& in, FuzzWorld& w) {
  const btScalar mass = in.ConsumeBool() ? btScalar(1.0) : scalar(in);
  const btVector3 inertia = in.ConsumeBool() ? btVector3(0.1, 0.2, 0.3) : vector3(in);
  btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, &w.shape, inertia);
  info.m_startWorldTransform = frame(in);
  w.bodies.push_back(std::make_unique<btRigidBody>(info));
  btRigidBody& body = *w.bodies.back();
  if (in.ConsumeBool()) body.setLinearVelocity(vector3(in));
  if (in.ConsumeBool()) body.setAngularVelocity(vector3(in));
  if (in.ConsumeIntegralInRange(0, 7) == 0) body.setLinearFactor(vector3(in));
  if (in.ConsumeIntegralInRange(0, 7) == 0) body.setAngularFactor(vector3(in));
  if (in.ConsumeIntegralInRange(0, 7) == 0) {
    body.setCollisionFlags(body.getCollisionFlags() | btCollisionObject::CF_KINEMATIC_OBJECT);
  }
  w.world.addRigidBody(&body);
}

/// A body of the world, or Bullet's fixed body.
btRigidBody& pickBody(FuzzedDataProvider& in, FuzzWorld& w) {
  const int i = in.ConsumeIntegralInRange<int>(0, static_cast<int>(w.bodies.size()));
  return i == static_cast<int>(w.bodies.size()) ? btTypedConstraint::getFixedBody() : *w.bodies[i];
}

std::unique_ptr<btTypedConstraint> hinge(FuzzedDataProvider& in, btRigidBody& a, btRigidBody& b) {
  std::unique_ptr<btHingeConstraint> c;
  const bool accumulated = in.ConsumeBool();
  const btTransform fa = frame(in), fb = frame(in);
  if (accumulated) {
    c = std::make_unique<btHingeAccumulatedAngleConstraint>(a, b, fa, fb, in.ConsumeBool());
  } else if (in.ConsumeBool()) {
    c = std::make_unique<btHingeConstraint>(a, b, fa, fb, in.ConsumeBool());
  } else {
    btVector3 pivot = vector3(in), axis = vector3(in);
    c = std::make_unique<btHingeConstraint>(a, pivot, axis, in.ConsumeBool());
  }
  if (in.ConsumeBool()) c->setLimit(scalar(in), scalar(in));
  if (in.ConsumeIntegralInRange(0, 5) == 0) c->setAngularOnly(true);
  if (in.ConsumeIntegralInRange(0, 5) == 0) c->enableAngularMotor(true, scalar(in), scalar(in));
  return c;
}

std::unique_ptr<btTypedConstraint> slider(FuzzedDataProvider& in, btRigidBody& a, btRigidBody& b) {
  auto c = std::make_unique<btSliderConstraint>(a, b, frame(in), frame(in), in.ConsumeBool());
  if (in.ConsumeBool()) {
    c->setLowerLinLimit(scalar(in));
    c->setUpperLinLimit(scalar(in));
  }
  if (in.ConsumeBool()) {
    c->setLowerAngLimit(scalar(in));
    c->setUpperAngLimit(scalar(in));
  }
  if (in.ConsumeIntegralInRange(0, 5) == 0) c->setPoweredLinMotor(true);
  return c;
}

std::unique_ptr<btTypedConstraint> point2point(FuzzedDataProvider& in, btRigidBody& a,
                                               btRigidBody& b) {
  if (in.ConsumeBool()) return std::make_unique<btPoint2PointConstraint>(a, vector3(in));
  const btVector3 pa = vector3(in), pb = vector3(in);
  return std::make_unique<btPoint2PointConstraint>(a, b, pa, pb);
}

std::unique_ptr<btTypedConstraint> coneTwist(FuzzedDataProvider& in, btRigidBody& a,
                                             btRigidBody& b) {
  auto c = std::make_unique<btConeTwistConstraint>(a, b, frame(in), frame(in));
  if (in.ConsumeBool()) c->setLimit(scalar(in), scalar(in), scalar(in));
  if (in.ConsumeIntegralInRange(0, 5) == 0) c->setAngularOnly(true);
  if (in.ConsumeIntegralInRange(0, 5) == 0) c->enableMotor(true);
  return c;
}

/// Limits of a 6-DOF constraint: each axis locked, free or limited by the bytes.
template <typename Dof>
void sixDofLimits(FuzzedDataProvider& in, Dof& c) {
  btVector3 lower(0, 0, 0), upper(0, 0, 0);
  for (int group = 0; group < 2; ++group) {
    for (int axis = 0; axis < 3; ++axis) {
      switch (in.ConsumeIntegralInRange(0, 2)) {
        case 0:  // locked
          lower[axis] = upper[axis] = 0;
          break;
        case 1:  // free
          lower[axis] = 1;
          upper[axis] = -1;
          break;
        default:
          lower[axis] = scalar(in);
          upper[axis] = scalar(in);
      }
    }
    if (group == 0) {
      c.setLinearLowerLimit(lower);
      c.setLinearUpperLimit(upper);
    } else {
      c.setAngularLowerLimit(lower);
      c.setAngularUpperLimit(upper);
    }
  }
}

std::unique_ptr<btTypedConstraint> sixDof(FuzzedDataProvider& in, btRigidBody& a, btRigidBody& b) {
  const btTransform fa = frame(in), fb = frame(in);
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0: {
      auto c = std::make_unique<btGeneric6DofConstraint>(a, b, fa, fb, in.ConsumeBool());
      sixDofLimits(in, *c);
      if (in.ConsumeIntegralInRange(0, 5) == 0) c->getRotationalLimitMotor(0)->m_enableMotor = true;
      return c;
    }
    case 1: {
      auto c = std::make_unique<btGeneric6DofSpringConstraint>(a, b, fa, fb, in.ConsumeBool());
      sixDofLimits(in, *c);
      if (in.ConsumeIntegralInRange(0, 5) == 0)
        c->enableSpring(in.ConsumeIntegralInRange(0, 5), true);
      return c;
    }
    case 2: {
      auto c = std::make_unique<btGeneric6DofSpring2Constraint>(a, b, fa, fb);
      sixDofLimits(in, *c);
      if (in.ConsumeIntegralInRange(0, 5) == 0)
        c->enableMotor(in.ConsumeIntegralInRange(0, 5), true);
      if (in.ConsumeIntegralInRange(0, 5) == 0)
        c->enableSpring(in.ConsumeIntegralInRange(0, 5), true);
      return c;
    }
    default:
      return std::make_unique<btFixedConstraint>(a, b, fa, fb);
  }
}

/// One constraint of any class between two bodies the bytes pick (the same one included).
void addConstraint(FuzzedDataProvider& in, FuzzWorld& w) {
  btRigidBody& a = pickBody(in, w);
  btRigidBody& b = pickBody(in, w);
  std::unique_ptr<btTypedConstraint> c;
  switch (in.ConsumeIntegralInRange(0, 8)) {
    case 0:
      c = hinge(in, a, b);
      break;
    case 1:
      c = slider(in, a, b);
      break;
    case 2:
      c = point2point(in, a, b);
      break;
    case 3:
      c = coneTwist(in, a, b);
      break;
    case 4:
    case 5:
      c = sixDof(in, a, b);
      break;
    case 6: {
      btVector3 anchor = vector3(in), axis1 = vector3(in), axis2 = vector3(in);
      c = std::make_unique<btUniversalConstraint>(a, b, anchor, axis1, axis2);
      break;
    }
    case 7: {
      btVector3 anchor = vector3(in), axis1 = vector3(in), axis2 = vector3(in);
      c = std::make_unique<btHinge2Constraint>(a, b, anchor, axis1, axis2);
      break;
    }
    default:
      c = std::make_unique<btGearConstraint>(a, b, vector3(in), vector3(in), scalar(in));
  }
  if (in.ConsumeIntegralInRange(0, 7) == 0) c->setEnabled(false);
  w.world.addConstraint(c.get(), in.ConsumeBool());
  w.constraints.push_back(std::move(c));
}

/// What inference may not change: every body's state and every constraint's place and flag.
std::vector<unsigned char> snapshot(const FuzzWorld& w) {
  std::vector<unsigned char> bytes;
  const auto append = [&bytes](const void* p, std::size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    bytes.insert(bytes.end(), c, c + n);
  };
  for (const auto& body : w.bodies) {
    append(&body->getCenterOfMassTransform(), sizeof(btTransform));
    append(&body->getLinearVelocity(), sizeof(btVector3));
    append(&body->getAngularVelocity(), sizeof(btVector3));
    const int state[2] = {body->getActivationState(), body->getCollisionFlags()};
    append(state, sizeof(state));
  }
  for (int i = 0; i < w.world.getNumConstraints(); ++i) {
    const btTypedConstraint* c = w.world.getConstraint(i);
    append(&c, sizeof(c));
    const bool enabled = c->isEnabled();
    append(&enabled, sizeof(enabled));
  }
  return bytes;
}

/// The inference options the bytes choose.
InferenceOptions options(FuzzedDataProvider& in, FuzzWorld& w) {
  InferenceOptions o;
  const auto anyBody = [&]() -> btRigidBody* {
    if (w.bodies.empty() || in.ConsumeBool()) return nullptr;
    return w.bodies[in.ConsumeIntegralInRange<std::size_t>(0, w.bodies.size() - 1)].get();
  };
  o.root = anyBody();
  o.start = anyBody();
  o.ball = in.PickValueInArray({BallParametrization::Quaternion, BallParametrization::ExpMap,
                                BallParametrization::EulerXYZ});
  if (in.ConsumeBool()) {
    for (const auto& body : w.bodies)
      o.body_names.emplace_back(body.get(), in.ConsumeRandomLengthString(4));
  }
  return o;
}

/// A model that was inferred, read through its map.
void readThroughMap(const InferredModel& inferred) {
  BridgeData bdata(inferred.model);
  Eigen::VectorXd q, v;
  try {
    readState(inferred.model, *inferred.map, bdata, q, v);
    computeJointErrors(inferred.model, *inferred.map, bdata);
  } catch (const Error&) {
    // Typed: a NaN state or a singular joint is reported, never read.
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  FuzzedDataProvider in(bytes, size);
  FuzzWorld w;
  const int num_bodies = in.ConsumeIntegralInRange(1, kMaxBodies);
  for (int i = 0; i < num_bodies; ++i) addBody(in, w);
  const int num_constraints = in.ConsumeIntegralInRange(0, kMaxConstraints);
  for (int i = 0; i < num_constraints; ++i) addConstraint(in, w);
  const InferenceOptions o = options(in, w);
  const std::vector<unsigned char> before = snapshot(w);
  try {
    const InferredModel inferred = inferModelFromWorld(w.world, o);
    if (snapshot(w) != before) std::abort();
    readThroughMap(inferred);
  } catch (const Error&) {
    if (snapshot(w) != before) std::abort();
  }
  return 0;
}
