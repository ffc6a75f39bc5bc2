#pragma once
// Bullet worlds for tests, built the way applications build them: conversions between Eigen and
// Bullet, frames given in the world placed in a body, and a world that owns its shapes, bodies
// and constraints.

#include <btBulletDynamicsCommon.h>

#include <Eigen/Geometry>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gcbridge/bridge/world_inference.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/spatial.hpp"

namespace gcbridge::test {

/// A free 0.2 x 0.2 x 0.1 m box of 2 kg with its box collision shape and inertia (contacts).
inline Model freeBoxModel() {
  ModelBuilder b("box");
  LinkDescription link;
  link.name = "box";
  link.mass = 2.0;
  link.I_Lcm_L = Vector3(2.0 / 12 * 0.05, 2.0 / 12 * 0.05, 2.0 / 12 * 0.08).asDiagonal();
  GeometryInstance shape;
  shape.geometry.type = Geometry::Type::Box;
  shape.geometry.box_size = Vector3(0.2, 0.2, 0.1);
  link.collisions.push_back(shape);
  b.addLink(link);
  ModelOptions options;
  options.floating_base = true;
  return b.build(options);
}

/// Bullet's time step of the tests that step a world [s].
constexpr double kBulletStep = 1.0 / 240.0;

inline btVector3 toBt(const Vector3& v) { return btVector3(v.x(), v.y(), v.z()); }
inline Vector3 fromBt(const btVector3& v) { return Vector3(v.x(), v.y(), v.z()); }
inline btTransform toBt(const Transform& X) {
  const Matrix3& R = X.rotation();
  return btTransform(
      btMatrix3x3(R(0, 0), R(0, 1), R(0, 2), R(1, 0), R(1, 1), R(1, 2), R(2, 0), R(2, 1), R(2, 2)),
      toBt(X.translation()));
}
inline Transform fromBt(const btTransform& X) {
  Matrix3 R;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) R(i, j) = X.getBasis()[i][j];
  }
  return Transform(R, fromBt(X.getOrigin()));
}

inline Transform pose(const Vector3& rpy, const Vector3& p) {
  return Transform(rotationFromRpy(rpy), p);
}

/// A frame at `p_W` whose axis `i` (0 x, 1 y, 2 z) is the unit `axis_W`.
inline Transform frameWithAxis(const Vector3& p_W, const Vector3& axis_W, int i) {
  const Matrix3 R = Eigen::Quaterniond::FromTwoVectors(Vector3::Unit(i), axis_W).toRotationMatrix();
  return Transform(R, p_W);
}

/// The frame F given in W, in the COM frame of `body`: X_BF = X_WB^-1 X_WF.
inline btTransform inBody(const btRigidBody* body, const Transform& X_WF) {
  return toBt(fromBt(body->getCenterOfMassTransform()).inverse() * X_WF);
}
inline btVector3 pointInBody(const btRigidBody* body, const Vector3& p_W) {
  return toBt(fromBt(body->getCenterOfMassTransform()).actInvPoint(p_W));
}
inline btVector3 axisInBody(const btRigidBody* body, const Vector3& a_W) {
  return toBt(fromBt(body->getCenterOfMassTransform()).rotation().transpose() * a_W);
}

/// A Bullet world that owns its shapes, bodies and constraints (removed before destruction): a
/// btDiscreteDynamicsWorld, or a subclass of it with its solver.
template <typename World = btDiscreteDynamicsWorld,
          typename Solver = btSequentialImpulseConstraintSolver>
class BasicTestWorld {
 public:
  BasicTestWorld()
      : dispatcher_(&configuration_),
        world_(&dispatcher_, &broadphase_, &solver_, &configuration_) {
    world_.setGravity(btVector3(0, 0, -9.81));
  }
  ~BasicTestWorld() {
    for (auto& c : constraints_) world_.removeConstraint(c.get());
    for (auto& b : bodies_) world_.removeRigidBody(b.get());
  }

  World& world() { return world_; }

  /// A box of full edge lengths `size` whose COM frame is at X_WB (mass 0: a static body).
  btRigidBody* addBox(const std::string& name, double mass, const Vector3& size,
                      const Transform& X_WB) {
    return addBody(name, mass, std::make_unique<btBoxShape>(toBt(0.5 * size)), X_WB);
  }
  /// A sphere.
  btRigidBody* addSphere(const std::string& name, double mass, double radius,
                         const Transform& X_WB) {
    return addBody(name, mass, std::make_unique<btSphereShape>(radius), X_WB);
  }
  /// A capsule along its y axis.
  btRigidBody* addCapsule(const std::string& name, double mass, double radius, double height,
                          const Transform& X_WB) {
    return addBody(name, mass, std::make_unique<btCapsuleShape>(radius, height), X_WB);
  }

  /// Adds a constraint the way applications do (no collisions between the linked bodies).
  template <typename C, typename... Args>
  C* add(Args&&... args) {
    auto constraint = std::make_unique<C>(std::forward<Args>(args)...);
    C* raw = constraint.get();
    world_.addConstraint(raw, true);
    constraints_.push_back(std::move(constraint));
    return raw;
  }

  void step(int substeps) {
    for (int i = 0; i < substeps; ++i) world_.stepSimulation(kBulletStep, 1, kBulletStep);
  }

  /// The names inference should use.
  InferenceOptions options() const {
    InferenceOptions o;
    o.body_names = names_;
    return o;
  }

 private:
  btRigidBody* addBody(const std::string& name, double mass,
                       std::unique_ptr<btCollisionShape> shape, const Transform& X_WB) {
    btVector3 inertia(0, 0, 0);
    if (mass > 0.0) shape->calculateLocalInertia(mass, inertia);
    btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, shape.get(), inertia);
    info.m_startWorldTransform = toBt(X_WB);
    auto body = std::make_unique<btRigidBody>(info);
    body->setActivationState(DISABLE_DEACTIVATION);
    world_.addRigidBody(body.get());
    shapes_.push_back(std::move(shape));
    bodies_.push_back(std::move(body));
    names_.emplace_back(bodies_.back().get(), name);
    return bodies_.back().get();
  }

  btDefaultCollisionConfiguration configuration_;
  btCollisionDispatcher dispatcher_;
  btDbvtBroadphase broadphase_;
  Solver solver_;
  World world_;
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
  std::vector<std::unique_ptr<btTypedConstraint>> constraints_;
  std::vector<std::pair<const btRigidBody*, std::string>> names_;
};

using TestWorld = BasicTestWorld<>;

}  // namespace gcbridge::test
