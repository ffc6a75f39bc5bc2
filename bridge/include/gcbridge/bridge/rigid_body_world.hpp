#pragma once
/// @file
/// A gcbridge Model as Bullet rigid bodies and constraints (maximal coordinates) in a
/// btDiscreteDynamicsWorld: one btRigidBody per link and one btTypedConstraint per joint.
///
/// | model joint            | Bullet constraint                                                |
/// |------------------------|------------------------------------------------------------------|
/// | Revolute               | btHingeConstraint (limits from the model; none if one is missing)|
/// | Prismatic              | btSliderConstraint (rotation locked, limits from the model, also |
/// |                        | one-sided)                                                       |
/// | Ball                   | btPoint2PointConstraint; btConeTwistConstraint with swing/twist  |
/// | Fixed (not merged)     | btFixedConstraint                                                |
/// | Planar                 | btGeneric6DofSpring2Constraint, frames' z along the axis: x, y   |
/// |                        | translations and z rotation free (an exact planar joint while the |
/// |                        | parent does not turn about an in-plane axis, docs/bullet-notes.md)|
/// | Free root              | none: the root body moves freely                                 |
/// | Fixed root             | none: the root is a static body (mass 0) at its joint frame       |
/// | two Revolute joints through a massless link | one btUniversalConstraint (axes orthogonal, |
/// |                        | pivots coincident); the massless link gets no body              |
/// A btUniversalConstraint has limits of its own that the builder keeps (Bullet 3.24's
/// constructor: +-(pi/2 - 0.01) about the second axis, +-(pi - 0.01) about the first); the
/// model's limits of the two revolute joints are not applied to it.
/// A root on a Revolute, Prismatic or Ball joint is constrained to the world (Bullet's fixed
/// body). Each body's frame is its link's COM with principal axes (rigid_body_map.hpp), its
/// collision shape is a btCompoundShape holding the link's collision geometry placed relative to
/// B (box, sphere, cylinder, capsule; meshes as the convex hull of their vertices, read with
/// assimp), or an empty compound when the link has no collision geometry. Collisions between
/// bodies joined by a constraint are disabled; every body has DISABLE_DEACTIVATION (a sleeping
/// body ignores forces).

#include "gcbridge/bridge/bullet_precision.hpp"

// Bullet.
#include <BulletCollision/BroadphaseCollision/btBroadphaseInterface.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>
#include <BulletCollision/CollisionShapes/btCollisionShape.h>
#include <BulletDynamics/ConstraintSolver/btSequentialImpulseConstraintSolver.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "gcbridge/bridge/rigid_body_map.hpp"
#include "gcbridge/dynamics/model.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

/// Settings of the rigid-body world and its constraints.
struct RigidBodyOptions {
  /// Fixed substep for RigidBodyWorld::step [s].
  double substep = 1.0 / 240.0;
  /// Constraint solver iterations per substep (Bullet's default 10).
  int solver_iterations = 10;
  /// Error reduction parameter of the joints (Bullet's default 0.2): the fraction of a joint's
  /// position error corrected per substep.
  double erp = 0.2;
  /// Constraint force mixing of the joints (Bullet's default 0: hard constraints).
  double cfm = 0.0;
  /// Add collision shapes from the model's collision geometry.
  bool collision_shapes = true;
  /// Linear and angular damping of every body (Bullet's default 0).
  double linear_damping = 0.0;
  double angular_damping = 0.0;
  /// Add a static ground plane z = 0 (normal +z) for contacts.
  bool ground_plane = false;
  /// Let the model's links collide with each other: every pair but those a joint connects
  /// (Bullet's disableCollisionsBetweenLinkedBodies). false: a link collides only with bodies that
  /// are not the model's (the ground plane, the user's), for descriptions whose collision shapes
  /// overlap at their standing pose (btCollisionObject::setIgnoreCollisionCheck on every pair).
  bool self_collision = true;
};

/// A btDiscreteDynamicsWorld holding a model's bodies and constraints, and everything the world
/// needs; owns all of it. Not copyable or movable (Bullet's objects point at each other).
struct RigidBodyWorld {
  RigidBodyWorld() = default;
  RigidBodyWorld(const RigidBodyWorld&) = delete;
  RigidBodyWorld& operator=(const RigidBodyWorld&) = delete;
  /// Releases the map, removes the constraints and bodies, then destroys the world.
  ~RigidBodyWorld();

  /// Advances the world by one substep of options.substep (stepSimulation(h, 1, h)).
  void step();

  RigidBodyOptions options;
  std::unique_ptr<btDefaultCollisionConfiguration> collision_configuration;
  std::unique_ptr<btCollisionDispatcher> dispatcher;
  std::unique_ptr<btBroadphaseInterface> broadphase;
  std::unique_ptr<btSequentialImpulseConstraintSolver> solver;
  std::unique_ptr<btDiscreteDynamicsWorld> world;
  std::vector<std::unique_ptr<btCollisionShape>> shapes;
  std::vector<std::unique_ptr<btRigidBody>> bodies;
  std::vector<std::unique_ptr<btTypedConstraint>> constraints;
  /// How the model maps onto the bodies and constraints.
  std::unique_ptr<RigidBodyMap> map;
};

/// Builds the rigid-body world of `model` (file comment) with gravity model.gravity_W, at q, v.
/// @param[in] q positions (size model.nq; empty: the neutral configuration)
/// @param[in] v velocities (size model.nv; empty: at rest)
/// @throws InvalidArgumentError naming the link or joint for: a link numbered before its parent,
///   several roots, a Free joint below the root, a massless link that is not the middle of a
///   universal pair (a massless body cannot move in Bullet), a mesh that cannot be read; and for
///   bad q or v. Nothing is left allocated.
std::unique_ptr<RigidBodyWorld> buildRigidBodyWorld(const Model& model,
                                                    const RigidBodyOptions& options = {},
                                                    const Eigen::VectorXd& q = {},
                                                    const Eigen::VectorXd& v = {});

GCBRIDGE_BULLET_NAMESPACE_END
