#pragma once
// Private to the bridge: a world's enabled constraints as a graph over its bodies, and the trees
// of bodies that graph holds (what world inference reads one of, and gcbridge info lists).

#include <BulletDynamics/Dynamics/btDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>

#include <unordered_map>
#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace inference {

enum class BodyKind { Dynamic, Static, Kinematic };

BodyKind kindOf(const btRigidBody* body);

/// The bodies connected through enabled constraints. A static body joins the chains it holds
/// (they hang from one base), except Bullet's fixed body btTypedConstraint::getFixedBody(), which
/// stands for the world in every one-body constraint of every application: the chains on it are
/// separate mechanisms. Kinematic bodies are kept but not walked through.
struct Component {
  /// Dynamic bodies, in the order the walk reached them.
  std::vector<btRigidBody*> dynamic_bodies;
  /// Static bodies with a constraint to one of them: one is the base, more close a loop through
  /// the world.
  std::vector<btRigidBody*> static_bodies;
};

/// The world's enabled constraints, by body.
class ConstraintGraph {
 public:
  explicit ConstraintGraph(btDynamicsWorld& world);

  /// The world indices of the enabled constraints on `body`.
  const std::vector<int>& incident(const btRigidBody* body) const;
  /// The body at the other end of constraint i from `body`.
  btRigidBody* other(int i, const btRigidBody* body) const;
  /// The component `start` is in.
  Component component(btRigidBody* start) const;
  /// Every component with a dynamic body, in the order of the world's constraints.
  std::vector<Component> components() const;

 private:
  btDynamicsWorld& world_;
  std::unordered_map<const btRigidBody*, std::vector<int>> incident_;
};

}  // namespace inference
GCBRIDGE_BULLET_NAMESPACE_END
