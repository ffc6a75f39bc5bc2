#pragma once
/// @file
/// Reading a model out of a Bullet world that the application built by hand (the "drop gcbridge
/// into an existing Bullet app" case): its bodies and constraints become a Model and a
/// RigidBodyMap, usable by every conversion, controller and plugin.
///
/// The tree: the bodies connected through the world's enabled constraints, a static body (mass 0;
/// the world's fixed body btTypedConstraint::getFixedBody() counts as one) joining every chain it
/// holds. A group held by one static body is a fixed-base model whose base is that body (its pose
/// is read once, a static body is assumed not to move): each dynamic body attached to it starts a
/// chain whose first joint is that constraint, so a torso on a pedestal, a hand's fingers on a
/// fixed palm or six legs hanging from a test stand are one model, whichever of its bodies the
/// walk starts at (InferenceOptions::start), or with the static body given as the root. The
/// world's fixed body is the exception: every one-body constraint of every application attaches
/// to it (Bullet's ConstraintDemo hangs a box and a door on it), so each chain on it is a group of
/// its own; give it as the root to read them all as one model.
/// InferenceOptions::subtree takes one chain alone. A group without a static body is floating: its
/// root must be given, and gets a Free joint. A breadth-first walk from the chains' first bodies
/// (or the floating root) visits each dynamic body once. findWorldTrees lists a world's groups.
///
/// | Bullet constraint                                   | model joint(s)                      |
/// |-----------------------------------------------------|-------------------------------------|
/// | btHingeConstraint                                   | Revolute (limits from the hinge)    |
/// | btSliderConstraint (angular limits locked)          | Prismatic (limits from the slider)  |
/// | btPoint2PointConstraint                             | Ball                                |
/// | btConeTwistConstraint                               | Ball (swing/twist spans recorded)   |
/// | btFixedConstraint                                   | Fixed                               |
/// | btGeneric6DofConstraint, btGeneric6DofSpring2Constraint | by locked axes (lower == upper): |
/// |   all 6 locked / 3 linear locked + 1 angular free / 3 angular locked + 1 linear free /   |
/// |   3 linear locked + 3 angular free / 1 linear locked + 2 angular locked, the free one  |
/// |   about the locked translation's axis               | ... / Ball / Planar (no limits)     |
/// | btUniversalConstraint                               | two Revolute through a massless link |
/// An axis with lower > upper is free, lower < upper is free within limits (recorded for revolute
/// and prismatic joints). btFixedConstraint is read like any btGeneric6DofSpring2Constraint.
/// Not recorded: hinge limits whose normalized bounds are out of order (a window through +-pi and
/// a span of 2 pi or more read the same), a universal's limits.
/// Rejected with a WorldError naming the constraint (its index in the world and its class) and its
/// bodies: a loop (a constraint closing a cycle, also through a second static body), two
/// constraints between one pair of bodies, gears (btGearConstraint), hinge2, a disabled constraint
/// on a tree body, a 6-DOF constraint whose locked axes are none of the above, an enabled motor
/// (hinge, slider, cone-twist, 6-DOF; unless InferenceOptions::switch_motors_off) or spring, an
/// angular-only hinge or cone-twist, a slider whose rotation is not locked, a universal whose
/// limits were changed to lock other axes, a group held by two static bodies (a loop through the
/// world), a kinematic body on the tree, a group without a static body and no root given, several
/// groups and no start, root or subtree given.
///
/// Names. Links are named after their bodies (InferenceOptions::body_names); a joint after its
/// child link, "<link>_joint"; a universal joint is "<link>_joint1" (the axis fixed in the parent)
/// to a massless link "<link>_cross", then "<link>_joint2" (the axis fixed in the child); a
/// floating root's joint is "root_joint".
///
/// Frames. The model describes the constraints Bullet enforces, not where the bodies happen to be
/// when inferred: Bullet's own examples spawn bodies with their constraints violated by several
/// centimetres and let the solver pull them together, and a model read from such a pose would
/// stay that far off for good. Each constraint has a frame Fp on the parent body and a frame Fc
/// on the child (getFrameOffsetA/B, the hinge's and cone-twist's frames, the point-to-point
/// pivots); Bullet pulls Fc onto Fp, and the joint is at q = 0 (the identity rotation) where the
/// two coincide, which is where Bullet's own angle and position getters read 0. A point-to-point
/// constraint has no frame axes: its q = identity is the relative orientation the bodies have
/// when inferred. Each link frame L has the axes of its body's COM principal frame B and its
/// origin at Fc's origin (the pivot; a floating root's L is B), so X_LB is a translation from
/// the pivot to the COM, and the link's inertia is the body's mass and principal inertia about
/// its COM at X_LB's translation. The joint frame J, in the parent link frame, is Fp
/// carried to where L is when Fc lies on Fp; a joint's axis is the constraint's axis, in J.
/// q is then read from the bodies like at any later time (readPositions): the joint part of the
/// child's pose relative to its parent; the rest, how far the world violates the joint now, is
/// InferredModel::spawn_errors. A floating root's Free joint's q is its body's pose in the world.
///
/// Measured (Bullet 3.24): a btUniversalConstraint keeps its frame's z axis (axis1) fixed in body
/// A and its y axis (axis2) in body B; the 6-DOF constraints' angle about a single free axis is
/// minus the rotation of frame B relative to frame A, their linear position B's frame origin minus
/// A's along A's axis.

#include <memory>
#include <string>
#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/bridge/rigid_body_map.hpp"
#include "gcbridge/dynamics/model.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

/// How inferModelFromWorld picks the tree and names things.
struct InferenceOptions {
  /// The root body. nullptr: found from the group of `start`, which must be held by one static
  /// body. A static root is the base of every chain it holds. A dynamic root in a group held by a
  /// static body must be attached to it (the group is then read whole, as without a root); in a
  /// group held by none, it is a floating base.
  btRigidBody* root = nullptr;
  /// Any body of the group to read when `root` and `subtree` are nullptr (nullptr: the world must
  /// hold one group of constrained dynamic bodies).
  btRigidBody* start = nullptr;
  /// One chain alone: a dynamic body attached to a static body, and every body below it; the
  /// other chains that body holds are left out. nullptr: the whole group. Not with `root`.
  btRigidBody* subtree = nullptr;
  /// Switch the enabled motors of the tree's constraints off (reported in
  /// InferredModel::motors_switched_off) instead of refusing them. Done only once the model is
  /// read: a refused world is left unchanged. Springs are refused either way.
  bool switch_motors_off = false;
  /// Names of the bodies (model link names), by body; missing: "body<i>" with i the body's index
  /// in the world's collision-object array.
  std::vector<std::pair<const btRigidBody*, std::string>> body_names;
  /// Model name.
  std::string name = "bullet_world";
  /// Where the world came from, the description's source (a .bullet file's path, say).
  std::string source = "<bullet world>";
  /// Ball joints' parametrization.
  BallParametrization ball = BallParametrization::Quaternion;
};

/// What an application set on a body that the model leaves out: Bullet applies it every substep
/// on top of the rigid-body dynamics.
struct BodySettings {
  /// btRigidBody::setDamping: every substep h multiplies the COM velocity by
  /// (1 - linear_damping)^h and the angular velocity by (1 - angular_damping)^h.
  double linear_damping = 0.0;
  double angular_damping = 0.0;
  /// The same as rates: dv/dt = -rate v, rate = -ln(1 - damping) [1/s] (what
  /// ComputedTorque::setLinkDamping compensates).
  double linear_damping_rate = 0.0;
  double angular_damping_rate = 0.0;
  /// The body's own gravity [m/s^2]: Bullet gives a body the world's gravity when it is added,
  /// so a body added before the world's gravity was set keeps the old one; the model has the
  /// world's.
  Vector3 gravity_W = Vector3::Zero();
  /// Whether Bullet may put the body to sleep (the plugin keeps controlled bodies awake): after
  /// Bullet's global gDeactivationTime (2 s) below both thresholds [m/s, rad/s].
  bool can_sleep = false;
  double linear_sleeping_threshold = 0.0;
  double angular_sleeping_threshold = 0.0;
};

/// A model and its map, read from the world.
struct InferredModel {
  Model model;
  std::unique_ptr<RigidBodyMap> map;
  /// The configuration the bodies were in when the world was read (nq), as readPositions reads
  /// it: where each joint's constraint frames stand relative to each other (0 where they
  /// coincide), a floating root's pose in the world.
  Eigen::VectorXd q;
  /// Per model link: how far the bodies violated the link's joint when the world was read
  /// (computeJointErrors: the pivot separation [m], the rotation the joint does not allow
  /// [rad]); zero (to round-off) for a world built consistently, large for one spawned with its
  /// constraints violated, which Bullet's solver then pulls onto the joints. A universal's
  /// pivot separation is on its cross link, its axis error on its second link.
  std::vector<JointError> spawn_errors;
  /// Per model link: its body's settings (a universal's cross link, which has no body: zeros).
  std::vector<BodySettings> body_settings;
  /// What the model leaves out that changes the motion: a body under a gravity other than the
  /// world's (Bullet gives a body the world's gravity when the body is added).
  std::vector<std::string> warnings;
  /// The static body the model hangs from, by name ("the fixed body (getFixedBody())" for
  /// Bullet's); empty for a floating base.
  std::string base_body;
  /// With InferenceOptions::switch_motors_off: each constraint whose motors were switched off and
  /// which ("constraint 3 (btHingeConstraint) between 'a' and 'b': its angular motor").
  std::vector<std::string> motors_switched_off;
};

/// One group of bodies connected through a world's enabled constraints, a static body joining the
/// chains it holds (what inferModelFromWorld reads one of).
struct WorldTree {
  /// Its dynamic bodies.
  std::vector<const btRigidBody*> bodies;
  /// The static bodies holding them: none for a floating group, one for a fixed base, more for a
  /// loop through the world (which inference refuses).
  std::vector<const btRigidBody*> static_bodies;
  /// Its dynamic bodies attached to a static body: the first bodies of its chains.
  std::vector<const btRigidBody*> chain_roots;
};

/// Every group of constrained dynamic bodies in `world`, in the order of the world's constraints.
/// Nothing in the world is changed.
std::vector<WorldTree> findWorldTrees(btDynamicsWorld& world);

/// Reads the tree of bodies and constraints around the root out of `world` (file comment).
/// Gravity is the world's; fixed joints are kept (not merged). Nothing in the world is changed
/// but the motors options.switch_motors_off switches off, and nothing at all when it throws.
/// @throws WorldError naming the constraint and bodies that cannot be part of a tree or are not
///   supported, a body that cannot move freely (a linear or angular factor other than 1, an
///   infinite moment of inertia), a body already claimed by another map, or (with buildModel's
///   message) bodies that make no valid model, e.g. two bodies given one name.
InferredModel inferModelFromWorld(btDynamicsWorld& world, const InferenceOptions& options = {});

GCBRIDGE_BULLET_NAMESPACE_END
