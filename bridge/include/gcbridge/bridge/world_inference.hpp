#pragma once
/// @file
/// Reading a model out of a Bullet world that the application built by hand (the "drop gcbridge
/// into an existing Bullet app" case): its bodies and constraints become a Model and a
/// RigidBodyMap, usable by every conversion, controller and plugin.
///
/// The tree: starting at a root body, a breadth-first walk over the world's enabled constraints
/// visits each dynamic body once. The root is either given (a floating base: the model's root has
/// a Free joint) or found as the one dynamic body of the connected group attached to a static body
/// (mass 0; the world's fixed body btTypedConstraint::getFixedBody() counts as one); its joint is
/// the constraint to that static body, whose pose is read once (a static body is assumed not to
/// move). A dynamic root with no constraint to a static body is floating.
///
/// | Bullet constraint                                   | model joint(s)                      |
/// |-----------------------------------------------------|-------------------------------------|
/// | btHingeConstraint                                   | Revolute (limits from the hinge)    |
/// | btSliderConstraint (angular limits locked)          | Prismatic                           |
/// | btPoint2PointConstraint                             | Ball                                |
/// | btConeTwistConstraint                               | Ball (swing/twist limits recorded)  |
/// | btFixedConstraint                                   | Fixed                               |
/// | btGeneric6DofConstraint, btGeneric6DofSpring2Constraint | by locked axes (lower == upper): |
/// |   all 6 locked / 3 linear locked + 1 angular free / 3 angular locked + 1 linear free /   |
/// |   3 linear locked + 3 angular free                  | Fixed / Revolute / Prismatic / Ball |
/// | btUniversalConstraint                               | two Revolute through a massless link |
/// Rejected with a WorldError naming the constraint and its bodies: a loop (a constraint closing
/// a cycle), two constraints between one pair of bodies, gears (btGearConstraint), hinge2, a
/// disabled constraint, a 6-DOF constraint whose locked axes are none of the above or whose
/// springs or motors are enabled, a slider whose rotation is free, a static or kinematic body in
/// the middle of the tree.
///
/// Masses, inertias and frames come from the bodies: each link frame L is the body's COM frame at
/// the time of inference (so X_LB is the identity), with the body's mass and principal inertia;
/// joint frames come from the constraint's frames (getFrameOffsetA/B, pivots, axes) on the parent
/// side, and the model's q = 0 is the configuration the bodies are in when inferred (the
/// constraints' own zero angles are arbitrary, bullet-facts.md).

#include "gcbridge/bridge/bullet_precision.hpp"

#include <memory>
#include <string>
#include <vector>

#include "gcbridge/bridge/rigid_body_map.hpp"
#include "gcbridge/dynamics/model.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

/// How inferModelFromWorld picks the tree and names things.
struct InferenceOptions {
  /// The root body. nullptr: the dynamic body attached to a static body by a constraint; there
  /// must be exactly one such body among the bodies connected to `start`.
  btRigidBody* root = nullptr;
  /// Any body of the group to read when `root` is nullptr (nullptr: the world must hold one
  /// group of constrained dynamic bodies).
  btRigidBody* start = nullptr;
  /// Names of the bodies (model link names), by body; missing: "body<i>" with i the body's index
  /// in the world's collision-object array.
  std::vector<std::pair<const btRigidBody*, std::string>> body_names;
  /// Model name.
  std::string name = "bullet_world";
  /// Ball joints' parametrization.
  BallParametrization ball = BallParametrization::Quaternion;
};

/// A model and its map, read from the world.
struct InferredModel {
  Model model;
  std::unique_ptr<RigidBodyMap> map;
};

/// Reads the tree of bodies and constraints around the root out of `world` (file comment).
/// Gravity is the world's. Nothing in the world is changed.
/// @throws WorldError naming the constraint and bodies that cannot be part of a tree or are not
///   supported, or a body already claimed by another map.
InferredModel inferModelFromWorld(btDynamicsWorld& world, const InferenceOptions& options = {});

GCBRIDGE_BULLET_NAMESPACE_END
