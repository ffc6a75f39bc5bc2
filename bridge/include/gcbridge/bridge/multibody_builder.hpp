#pragma once
/// @file
/// A gcbridge Model as a Bullet btMultiBody (Featherstone's articulated body in Bullet), in a
/// btMultiBodyDynamicsWorld of its own, and the conversions of state, joint forces and
/// accelerations between gcbridge's generalized coordinates and Bullet's.
///
/// Frames. L is a gcbridge link frame (model.inertias[k] is given in it; its origin is in general
/// not the centre of mass). B is the frame Bullet uses for the same link: its origin is the link's
/// centre of mass and its axes are principal axes of the link's rotational inertia, because
/// btMultiBody takes a diagonal inertia about the COM. X_LB (MultiBodyLayout::X_LB) is fixed per
/// link: the translation is the COM, the rotation R_LB is the identity when the inertia is
/// diagonal in L, else the eigenvectors of the inertia (a proper rotation). Joint frames, axes and
/// pivot offsets are mapped into the B frames when the btMultiBody is set up, so that Bullet's
/// joint positions relate to gcbridge's q as follows (J is the joint frame, C = L the child frame):
/// | joint     | Bullet joint position                  | Bullet joint velocity            |
/// |-----------|----------------------------------------|----------------------------------|
/// | Revolute  | q (angle about R_LB^T axis)            | v                                |
/// | Prismatic | q (displacement along R_LB^T axis)     | v                                |
/// | Ball      | Q_LB^-1 Q_JC Q_LB, (x, y, z, w)        | R_LB^T omega_C (child B axes)    |
/// | Free root | base pose X_WB = X_WJ X_JC(q) X_LB     | base omega and COM velocity in W |
/// | Planar    | (theta, COM translation on Bullet's    | (theta_dot, COM velocity in the  |
/// |           | b1, b2): docs/bullet-notes.md          | turning child frame on b1, b2)   |
/// A planar joint is built only when its axis, in the child's B axes, is perpendicular to B's x
/// axis or is x: for any other axis btMultiBody would scale its translation (bullet-notes.md).
/// Bullet's spherical joint stores the quaternion of the child's rotation in the joint frame as
/// (x, y, z, w), and its velocity is the angular velocity of the child relative to the parent in
/// the child's frame (read from btMultiBodyLink::updateCacheMultiDof and stepPositionsMultiDof, and
/// checked by tests/multibody_test.cpp).
///
/// Bodies. The model's root becomes Bullet's base when it is attached to the world by a Fixed
/// joint (fixed base) or a Free joint (floating base): model link k is then Bullet link k - 1. A
/// root on a Revolute, Prismatic or Ball joint hangs from a massless fixed base at the world
/// origin: model link k is then Bullet link k. The world has no collision shapes unless
/// MultiBodyOptions::collision_shapes makes the links' colliders from the model's geometry; else
/// add colliders to the links (btMultiBodyLinkCollider) for contacts.
///
/// What Bullet does differently from a textbook simulator, and what buildMultiBody changes:
/// - Damping: btMultiBody applies the forces -m (k + k |v|) v and -I (k + k |omega|) omega to
///   every body, k = 0.04 by default (linear and angular). Set to 0.
/// - Clamps: every generalized velocity (base angular and linear velocity, joint rates) is clamped
///   to +-100 after each velocity update (max coordinate velocity). The max applied impulse
///   (1000) is not read by btMultiBody's own step in 3.24 (its clamp in applyDeltaVeeMultiDof is
///   commented out) but by code built on it. Both set to BT_LARGE_FLOAT (1e30 in double
///   precision, 1e18 in single).
/// - Gyroscopic term omega x I omega: on (setUseGyroTerm(true), Bullet's default).
/// - Sleeping: off (canSleep = false), so forces on a resting body still act.
/// - Gravity: the world's gravity is model.gravity_W; Bullet applies it as forces m g at the COMs.
/// With MultiBodyOptions::clamp_defaults, the damping and the two clamps keep Bullet's defaults.
/// Not changeable (compiled into Bullet):
/// - A revolute or prismatic joint whose articulated inertia about its axis is below
///   SIMD_EPSILON (DBL_EPSILON or FLT_EPSILON) gets zero acceleration instead of a division.
/// - When |omega| dt exceeds pi/4 for the base or a spherical joint, stepPositionsMultiDof caps
///   the rotation of that step (ANGULAR_MOTION_THRESHOLD); the velocities are not changed.
/// - Forces and torques on the body (joint torques, base and link forces) act during every substep
///   of the next stepSimulation call and are cleared after its last substep; gravity is added to
///   the base and link forces once per call, before the substeps (3.24's
///   btMultiBodyDynamicsWorld.h defines BT_USE_VIRTUAL_CLEARFORCES_AND_GRAVITY; a Bullet built
///   without it adds gravity and clears the forces in every substep instead).
/// - Bullet's time step is semi-implicit Euler: velocities first, from the accelerations at the
///   start of the step, then positions from the new velocities.

#include "gcbridge/bridge/bullet_precision.hpp"

// Bullet.
#include <BulletCollision/BroadphaseCollision/btBroadphaseInterface.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "gcbridge/dynamics/model.hpp"
#include "gcbridge/dynamics/spatial.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

/// How buildMultiBody sets Bullet's per-body parameters.
struct MultiBodyOptions {
  /// false (default): linear and angular damping 0, max coordinate velocity and max applied
  /// impulse BT_LARGE_FLOAT (1e30 in double, 1e18 in single precision), so Bullet integrates the
  /// same equations of motion as gcbridge. true: keep Bullet's defaults (damping 0.04, max
  /// coordinate velocity 100, max applied impulse 1000), as Bullet's own examples run.
  bool clamp_defaults = false;
  /// true: every link with collision geometry (the model's description, as buildRigidBodyWorld
  /// makes its shapes) gets a btMultiBodyLinkCollider (MultiBodyWorld::colliders), and links of
  /// the body do not collide with each other (btMultiBody::setHasSelfCollision(false), as
  /// pybullet loads a URDF without URDF_USE_SELF_COLLISION); they collide with what else is in
  /// the world (a fixed base's collider, in the static group, not with static objects). false
  /// (default): no collider, nothing touches.
  bool collision_shapes = false;
};

/// Where each model link sits in the btMultiBody and how its frame maps to Bullet's. Computed once
/// by makeMultiBodyLayout (buildMultiBody keeps it in MultiBodyWorld::layout) or read from a
/// btMultiBody with its model (inferModelFromMultiBody); every conversion below takes it so that
/// it is exact and does no eigen-decomposition per call.
struct MultiBodyLayout {
  /// true: model link 0 is Bullet's base (root joint Fixed or Free). false: Bullet's base is a
  /// massless fixed body (at the world origin, as makeMultiBodyLayout has it), not in the model.
  bool root_is_base = true;
  /// Bullet link index of each model link, -1 for the base (nlinks). makeMultiBodyLayout numbers
  /// them k - 1 (root_is_base) or k; a model read from a btMultiBody whose fixed links were merged
  /// skips those.
  std::vector<int> bullet_link;
  /// The btMultiBody's link count (more than the model's links when fixed links were merged).
  int num_bullet_links = 0;
  /// Bullet's frame B of each model link (COM, principal axes) in the gcbridge link frame L
  /// (nlinks).
  std::vector<Transform> X_LB;
  /// R_LB of X_LB as a unit quaternion, for exact conversion of ball-joint quaternions (nlinks).
  std::vector<Quaternion> Q_LB;
  /// Principal moments of inertia of each link about its COM, in B axes [kg m^2] (nlinks).
  std::vector<Vector3> I_Bcm_B;

  /// Bullet link index of model link k (-1: Bullet's base).
  int bulletLink(int k) const { return bullet_link[k]; }
};

/// A btMultiBodyDynamicsWorld holding one btMultiBody made from a model, and everything the world
/// needs (collision configuration, dispatcher, broadphase, constraint solver). Owns all of it;
/// not copyable or movable (Bullet's objects point at each other): hold it by unique_ptr.
struct MultiBodyWorld {
  MultiBodyWorld() = default;
  MultiBodyWorld(const MultiBodyWorld&) = delete;
  MultiBodyWorld& operator=(const MultiBodyWorld&) = delete;
  /// Removes the colliders and the body from the world, then destroys the world before what it
  /// points at.
  ~MultiBodyWorld();

  std::unique_ptr<btDefaultCollisionConfiguration> collision_configuration;
  std::unique_ptr<btCollisionDispatcher> dispatcher;
  std::unique_ptr<btBroadphaseInterface> broadphase;
  std::unique_ptr<btMultiBodyConstraintSolver> solver;
  std::unique_ptr<btMultiBodyDynamicsWorld> world;
  /// The model's btMultiBody, added to `world`, named after the model: its base after the root
  /// link (for a fixed or floating root), its links and their joints after the model's.
  std::unique_ptr<btMultiBody> body;
  /// The names the body points at (btMultiBody keeps the application's pointers).
  std::vector<std::string> names;
  /// How the model's links and coordinates map onto `body`.
  MultiBodyLayout layout;
  /// MultiBodyOptions::collision_shapes: the shapes, and the colliders in `world` that use them
  /// (each set as its link's m_collider, or the base's).
  std::vector<std::unique_ptr<btCollisionShape>> shapes;
  std::vector<std::unique_ptr<btMultiBodyLinkCollider>> colliders;
};

/// The COM principal frames of every link and the link numbering (see MultiBodyLayout).
/// @throws InvalidArgumentError naming the link or joint if buildMultiBody would reject the model.
MultiBodyLayout makeMultiBodyLayout(const Model& model);

/// Builds the btMultiBody of `model` in a world of its own, at (q, v), with gravity model.gravity_W
/// and the per-body settings of `options` (file comment). Supported: one root (link 0) on a Fixed,
/// Free, Revolute, Prismatic or Ball joint; below it Revolute, Prismatic, Ball and Fixed joints.
/// Ball joints must use the Quaternion parametrization: ExpMap and EulerXYZ ball joints are
/// rejected (their v is a coordinate rate, not Bullet's angular velocity, so forces and
/// accelerations would need q-dependent maps); load the model with ModelOptions::ball =
/// BallParametrization::Quaternion instead.
/// @throws InvalidArgumentError naming the link or joint for: no link, several links attached to
///   the world, a link numbered before its parent, a Free joint below the root, an ExpMap or
///   EulerXYZ ball joint, a negative or non-finite mass or inertia; for bad q or v; and with
///   MultiBodyOptions::collision_shapes, naming the link and file, for a collision mesh that
///   cannot be read or has fewer than 4 vertices. Nothing is left allocated.
/// @param[in] q positions to place the body at (size model.nq; empty: the neutral configuration)
/// @param[in] v velocities (size model.nv; empty: at rest)
std::unique_ptr<MultiBodyWorld> buildMultiBody(const Model& model,
                                               const MultiBodyOptions& options = {},
                                               const Eigen::VectorXd& q = {},
                                               const Eigen::VectorXd& v = {});

/// Writes gcbridge's state into the btMultiBody: base pose and velocity (floating base), joint
/// positions (which refreshes Bullet's per-joint caches) and joint velocities. Bullet's cached link
/// world transforms (btMultibodyLink::m_cachedWorldTransform) and its colliders' transforms are
/// refreshed by the next world step, or by body.forwardKinematics(...) and
/// body.updateCollisionObjectWorldTransforms(...) when needed before.
/// @param[in] q positions (size model.nq) @param[in] v velocities (size model.nv)
/// @pre `layout` and `body` come from buildMultiBody(model) (or makeMultiBodyLayout(model)).
/// @throws InvalidArgumentError for bad q or v (validateConfiguration, validateVelocity) or a body
///   or layout that does not match the model; the body is then unchanged.
void setMultiBodyState(const Model& model, const MultiBodyLayout& layout, btMultiBody& body,
                       const Eigen::VectorXd& q, const Eigen::VectorXd& v);

/// Reads the btMultiBody's state as gcbridge's q and v (the inverse of setMultiBodyState; the
/// quaternions come out with whatever sign the products give, normalized to round-off).
/// @param[out] q positions (resized to model.nq) @param[out] v velocities (resized to model.nv)
/// @throws InvalidArgumentError for a body or layout that does not match the model.
void getMultiBodyState(const Model& model, const MultiBodyLayout& layout, const btMultiBody& body,
                       Eigen::VectorXd& q, Eigen::VectorXd& v);

/// The model links' world poses X_WL where Bullet has them: each Bullet link's world transform
/// (its B frame), times X_LB^-1. Runs body.forwardKinematics, which refreshes Bullet's cached
/// link transforms (btMultibodyLink::m_cachedWorldTransform); nothing else in the body changes.
/// @throws InvalidArgumentError for a body or layout that does not match the model.
std::vector<Transform> multiBodyLinkPoses(const Model& model, const MultiBodyLayout& layout,
                                          btMultiBody& body);

/// Writes gcbridge's tau (paired with v: tau . v is the power) into the btMultiBody: revolute and
/// prismatic torques and forces as they are, ball torques rotated into the child's B axes, and a
/// Free root's (moment about the link origin, force), both in the link frame, as a force at the
/// base's COM and a torque, in world axes, at the body's current orientation (set the state
/// first). Joint torques are overwritten. The Free root's wrench is added to Bullet's base force
/// and torque, which also hold gravity (Bullet adds m g there) and any force the application
/// applied: call this once before stepSimulation, or, in a pre-tick callback with several
/// substeps per call, only with a zero Free-root part (it would accumulate). Link forces are
/// left alone. Everything acts until the end of the next stepSimulation call (file comment).
/// @param[in] tau joint forces (size model.nv)
/// @param[out] base_force_W, base_torque_W if given: the Free root's force and torque added to the
///   base (world axes), so that a caller can take them out again (zero for a fixed base)
/// @throws InvalidArgumentError for bad tau or a mismatched body or layout.
void setMultiBodyJointTorques(const Model& model, const MultiBodyLayout& layout, btMultiBody& body,
                              const Eigen::VectorXd& tau, btVector3* base_force_W = nullptr,
                              btVector3* base_torque_W = nullptr);

/// Converts generalized accelerations in Bullet's layout into gcbridge's a (paired with v), at the
/// body's current state. Bullet's layout is that of its velocity vector: base angular
/// acceleration in W, base COM acceleration in W, then the joint accelerations in Bullet's joint
/// coordinates (6 + body.getNumDofs() values; the first 6 are ignored for a fixed base).
/// computeAccelerationsArticulatedBodyAlgorithmMultiDof(dt, scratch_r, ...) writes them at
/// &scratch_r[body.getNumDofs()]; after one world step from (q0, v0), (v1 - v0) / dt of
/// getVelocityVector() gives them (set the state back to (q0, v0) before converting).
/// @param[in] bullet_accelerations 6 + body.getNumDofs() values
/// @param[out] a accelerations (resized to model.nv)
/// @throws InvalidArgumentError for a body or layout that does not match the model.
void getMultiBodyAcceleration(const Model& model, const MultiBodyLayout& layout,
                              const btMultiBody& body, const btScalar* bullet_accelerations,
                              Eigen::VectorXd& a);

GCBRIDGE_BULLET_NAMESPACE_END
