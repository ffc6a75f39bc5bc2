#include "constraint_graph.hpp"

#include <algorithm>
#include <unordered_set>

#include "gcbridge/bridge/world_inference.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace inference {

BodyKind kindOf(const btRigidBody* body) {
  if (body->isKinematicObject()) return BodyKind::Kinematic;
  return body->getInvMass() == 0.0 ? BodyKind::Static : BodyKind::Dynamic;
}

ConstraintGraph::ConstraintGraph(btDynamicsWorld& world) : world_(world) {
  for (int i = 0; i < world_.getNumConstraints(); ++i) {
    btTypedConstraint* c = world_.getConstraint(i);
    if (!c->isEnabled()) continue;
    incident_[&c->getRigidBodyA()].push_back(i);
    if (&c->getRigidBodyB() != &c->getRigidBodyA()) incident_[&c->getRigidBodyB()].push_back(i);
  }
}

const std::vector<int>& ConstraintGraph::incident(const btRigidBody* body) const {
  static const std::vector<int> none;
  const auto it = incident_.find(body);
  return it == incident_.end() ? none : it->second;
}

btRigidBody* ConstraintGraph::other(int i, const btRigidBody* body) const {
  btTypedConstraint* c = world_.getConstraint(i);
  return &c->getRigidBodyA() == body ? &c->getRigidBodyB() : &c->getRigidBodyA();
}

Component ConstraintGraph::component(btRigidBody* start) const {
  Component result;
  std::vector<btRigidBody*> queue = {start};
  std::unordered_set<const btRigidBody*> seen = {start};
  for (std::size_t n = 0; n < queue.size(); ++n) {
    btRigidBody* body = queue[n];
    const BodyKind kind = kindOf(body);
    if (kind == BodyKind::Dynamic) result.dynamic_bodies.push_back(body);
    if (kind == BodyKind::Static) result.static_bodies.push_back(body);
    // Bullet's fixed body stands for the world in every one-body constraint, so the chains on
    // it are separate mechanisms, not branches of one tree.
    if (kind == BodyKind::Kinematic || body == &btTypedConstraint::getFixedBody()) continue;
    for (int i : incident(body)) {
      btRigidBody* next = other(i, body);
      if (seen.insert(next).second) queue.push_back(next);
    }
  }
  return result;
}

std::vector<Component> ConstraintGraph::components() const {
  std::vector<Component> result;
  std::unordered_set<const btRigidBody*> seen;
  for (int i = 0; i < world_.getNumConstraints(); ++i) {
    btTypedConstraint* c = world_.getConstraint(i);
    if (!c->isEnabled()) continue;
    for (btRigidBody* body : {&c->getRigidBodyA(), &c->getRigidBodyB()}) {
      if (kindOf(body) != BodyKind::Dynamic || seen.count(body)) continue;
      result.push_back(component(body));
      seen.insert(result.back().dynamic_bodies.begin(), result.back().dynamic_bodies.end());
    }
  }
  return result;
}

}  // namespace inference

std::vector<WorldTree> findWorldTrees(btDynamicsWorld& world) {
  const inference::ConstraintGraph graph(world);
  std::vector<WorldTree> trees;
  for (const inference::Component& component : graph.components()) {
    WorldTree tree;
    tree.bodies.assign(component.dynamic_bodies.begin(), component.dynamic_bodies.end());
    tree.static_bodies.assign(component.static_bodies.begin(), component.static_bodies.end());
    for (const btRigidBody* body : tree.bodies) {
      const std::vector<int>& incident = graph.incident(body);
      const bool held = std::any_of(incident.begin(), incident.end(), [&](int i) {
        return inference::kindOf(graph.other(i, body)) == inference::BodyKind::Static;
      });
      if (held) tree.chain_roots.push_back(body);
    }
    trees.push_back(std::move(tree));
  }
  return trees;
}

GCBRIDGE_BULLET_NAMESPACE_END
