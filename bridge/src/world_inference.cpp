#include "gcbridge/bridge/world_inference.hpp"

#include <BulletCollision/CollisionShapes/btCollisionShape.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "body_shapes.hpp"
#include "bullet_conversions.hpp"
#include "constraint_graph.hpp"
#include "constraint_motors.hpp"
#include "constraint_readers.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/model_builder.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

namespace {

using detail::fromBullet;
using detail::quoted;
using inference::BodyKind;
using inference::Component;
using inference::ConstraintGraph;
using inference::fail;
using inference::JointReading;
using inference::kindOf;

/// A body's damping, gravity and sleeping.
BodySettings settingsOf(const btRigidBody& body) {
  BodySettings s;
  s.linear_damping = body.getLinearDamping();
  s.angular_damping = body.getAngularDamping();
  s.linear_damping_rate = -std::log1p(-s.linear_damping);
  s.angular_damping_rate = -std::log1p(-s.angular_damping);
  s.gravity_W = fromBullet(body.getGravity());
  s.can_sleep = body.getActivationState() != DISABLE_DEACTIVATION;
  s.linear_sleeping_threshold = body.getLinearSleepingThreshold();
  s.angular_sleeping_threshold = body.getAngularSleepingThreshold();
  return s;
}

/// A body of the tree and the constraint that attaches it to its parent.
struct Node {
  btRigidBody* body = nullptr;
  /// Index in the tree's node list of the parent (-1: the root).
  int parent = -1;
  /// World index of the constraint to the parent (for the root: to a static body; -1: floating).
  int constraint = -1;
  /// The parent's body: a tree body, or the static body the root hangs from (nullptr: floating).
  const btRigidBody* parent_body = nullptr;
  /// Whether the parent body is the constraint's body A.
  bool parent_is_a = false;
};

/// One model link as the map needs it, by link name.
struct LinkRecord {
  btRigidBody* body = nullptr;
  Transform X_LB;
  btTypedConstraint* constraint = nullptr;
  bool parent_is_a = false;
};

class Inference {
 public:
  Inference(btDynamicsWorld& world, const InferenceOptions& options)
      : world_(world), options_(options), graph_(world) {
    for (const auto& [body, name] : options_.body_names) names_.emplace(body, name);
  }

  InferredModel run() {
    buildTree(findBase());
    checkDisabled();
    InferredModel inferred = buildModel();
    if (options_.switch_motors_off) switchMotorsOff(inferred);
    return inferred;
  }

 private:
  std::string name(const btRigidBody* body) const {
    if (body == &btTypedConstraint::getFixedBody()) return "the fixed body (getFixedBody())";
    const auto it = names_.find(body);
    if (it != names_.end()) return quoted(it->second);
    return quoted("body" + std::to_string(body->getWorldArrayIndex()));
  }

  /// A tree body moves in all six directions with a finite inertia, or the model would not be
  /// the system Bullet simulates: Bullet's per-body linear and angular factors scale (or lock)
  /// directions of motion, and a zero inverse moment (an infinite one) locks a rotation.
  void checkSixDof(const btRigidBody* body) const {
    const btVector3 ones(1, 1, 1);
    const auto text = [](const btVector3& x) {
      return "(" + std::to_string(x.x()) + ", " + std::to_string(x.y()) + ", " +
             std::to_string(x.z()) + ")";
    };
    if (body->getLinearFactor() != ones || body->getAngularFactor() != ones) {
      fail("body " + name(body) + " has linear factor " + text(body->getLinearFactor()) +
           " and angular factor " + text(body->getAngularFactor()) +
           "; a link moves freely in all six directions (factors (1, 1, 1)), its joints constrain "
           "it");
    }
    const btVector3& inverse_inertia = body->getInvInertiaDiagLocal();
    for (int i = 0; i < 3; ++i) {
      if (inverse_inertia[i] == 0.0) {
        fail("body " + name(body) + " has an infinite moment of inertia about its principal axis " +
             std::to_string(i) +
             " (inverse inertia 0: a locked rotation); give it a finite inertia and let a joint "
             "do the locking");
      }
    }
  }

  /// The link name of a tree body.
  std::string linkName(const btRigidBody* body) const {
    const auto it = names_.find(body);
    if (it != names_.end()) return it->second;
    return "body" + std::to_string(body->getWorldArrayIndex());
  }

  /// "constraint 3 (btHingeConstraint) between 'a' and 'b'".
  std::string describe(int i) const {
    const btTypedConstraint* c = world_.getConstraint(i);
    return "constraint " + std::to_string(i) + " (" + inference::constraintClassName(c) +
           ") between " + name(&c->getRigidBodyA()) + " and " + name(&c->getRigidBodyB());
  }

  const std::vector<int>& incident(const btRigidBody* body) const { return graph_.incident(body); }

  btRigidBody* other(int i, const btRigidBody* body) const { return graph_.other(i, body); }

  /// "'b1' and 3 more bodies" for a group.
  std::string groupName(const Component& group) const {
    const std::size_t more = group.dynamic_bodies.size() - 1;
    return name(group.dynamic_bodies.front()) +
           (more > 0 ? " and " + std::to_string(more) + " more bodies" : "");
  }

  /// Where the tree starts: the chains a static body holds, or a floating root.
  struct Base {
    /// The static body the chains hang from; nullptr: a floating root.
    const btRigidBody* hub = nullptr;
    /// The chains' first bodies and their constraints to the hub (a floating root: -1).
    std::vector<std::pair<btRigidBody*, int>> roots;
  };

  /// Every dynamic body `hub` holds (of `group` only, when given), each the start of a chain.
  Base chainsOf(const btRigidBody* hub, const Component* group = nullptr) const {
    Base base{hub, {}};
    for (int i : incident(hub)) {
      btRigidBody* body = other(i, hub);
      if (group != nullptr && std::find(group->dynamic_bodies.begin(), group->dynamic_bodies.end(),
                                        body) == group->dynamic_bodies.end()) {
        continue;
      }
      if (kindOf(body) == BodyKind::Kinematic) {
        fail(describe(i) + " attaches kinematic body " + name(body) +
             "; a kinematic body cannot be part of the tree");
      }
      if (kindOf(body) == BodyKind::Static) continue;
      for (const auto& [held, first] : base.roots) {
        if (held == body) {
          fail(describe(i) + " is a second constraint between this pair of bodies (" +
               describe(first) + ")");
        }
      }
      base.roots.emplace_back(body, i);
    }
    if (base.roots.empty()) {
      fail("the root " + name(hub) +
           " is static and holds no dynamic body by an enabled constraint");
    }
    return base;
  }

  /// The one static body of `group`. @throws WorldError for none or several (a loop through the
  ///   world), listing the constraints to them.
  const btRigidBody* hubOf(const Component& group) const {
    if (group.static_bodies.empty()) {
      fail("no body of the group of " + groupName(group) +
           " is attached to a static body, so the root is unknown; give options.root for a "
           "floating base");
    }
    if (group.static_bodies.size() > 1) {
      std::string list;
      for (const btRigidBody* hub : group.static_bodies) {
        for (int i : incident(hub)) list += "; " + describe(i);
      }
      fail("the group of " + groupName(group) +
           " is held by several static bodies, so the root is ambiguous (a loop through the "
           "world)" +
           list);
    }
    return group.static_bodies.front();
  }

  /// options.subtree's chain alone.
  Base subtreeBase() const {
    btRigidBody* body = options_.subtree;
    if (options_.root != nullptr) fail("give options.root or options.subtree, not both");
    if (kindOf(body) != BodyKind::Dynamic) {
      fail("the subtree body " + name(body) + " is static or kinematic; give a dynamic body");
    }
    std::vector<int> holds;
    for (int i : incident(body)) {
      if (kindOf(other(i, body)) == BodyKind::Static) holds.push_back(i);
    }
    if (holds.size() != 1) {
      fail("the subtree body " + name(body) + " has " + std::to_string(holds.size()) +
           " constraints to static bodies; a subtree is a chain a static body holds by one "
           "constraint: give the chain's first body");
    }
    return Base{other(holds.front(), body), {{body, holds.front()}}};
  }

  /// The group to read: around options.start, or the only one in the world.
  Component startGroup() const {
    if (options_.start != nullptr) {
      if (kindOf(options_.start) != BodyKind::Dynamic) {
        fail("the start body " + name(options_.start) + " is static or kinematic");
      }
      return graph_.component(options_.start);
    }
    const std::vector<Component> groups = graph_.components();
    if (groups.empty()) fail("the world holds no constraint on a dynamic body");
    if (groups.size() > 1) {
      std::string list;
      for (const Component& group : groups) {
        list += (list.empty() ? "" : "; ") + groupName(group) +
                (group.static_bodies.empty() ? ", floating"
                                             : ", held by " + name(group.static_bodies.front()));
      }
      fail("the world holds several groups of constrained bodies (" + list +
           "); give options.start, options.root or options.subtree");
    }
    return groups.front();
  }

  /// options.subtree, the chains of a static options.root, the group of a dynamic one (floating
  /// when no static body holds it), or the chains of the static body holding the start group.
  Base findBase() const {
    if (options_.subtree != nullptr) return subtreeBase();
    btRigidBody* root = options_.root;
    if (root != nullptr && kindOf(root) == BodyKind::Kinematic) {
      fail("the root body " + name(root) + " is kinematic; give a dynamic or static body");
    }
    if (root != nullptr && kindOf(root) == BodyKind::Static) return chainsOf(root);
    const Component group = root != nullptr ? graph_.component(root) : startGroup();
    if (root != nullptr && group.static_bodies.empty()) return Base{nullptr, {{root, -1}}};
    const btRigidBody* hub = hubOf(group);
    Base base = chainsOf(hub, &group);
    const auto held = [&](const auto& chain) { return chain.first == root; };
    if (root != nullptr && std::none_of(base.roots.begin(), base.roots.end(), held)) {
      fail("static body " + name(hub) + " holds the group of " + name(root) +
           " but not the root itself: a static body can only hold the root (give the body it "
           "holds, or no root)");
    }
    return base;
  }

  /// Breadth-first walk from the base's chains over enabled constraints; every constraint touching
  /// a tree body must be a tree edge.
  void buildTree(const Base& base) {
    std::vector<bool> used(world_.getNumConstraints(), false);
    for (const auto& [body, i] : base.roots) {
      node_of_[body] = static_cast<int>(nodes_.size());
      const bool hub_is_a = i >= 0 && &world_.getConstraint(i)->getRigidBodyA() == base.hub;
      nodes_.push_back(Node{body, -1, i, base.hub, hub_is_a});
      if (i >= 0) used[i] = true;
    }
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
      for (int i : incident(nodes_[n].body)) {
        if (used[i]) continue;
        used[i] = true;
        addEdge(n, i);
      }
    }
  }

  /// Constraint i, found from tree node n: a new child node, or an error for an edge no tree has.
  void addEdge(std::size_t n, int i) {
    const btTypedConstraint* c = world_.getConstraint(i);
    btRigidBody* body = nodes_[n].body;
    // Gears and hinge2 usually come with other constraints on the same bodies: say what they
    // are before calling them a loop.
    if (inference::hasNoTreeJoint(c)) {
      fail(describe(i) +
           " is not supported: gears and hinge2 (wheel) constraints have no tree joint");
    }
    btRigidBody* next = other(i, body);
    if (next == body) fail(describe(i) + " attaches a body to itself");
    const BodyKind kind = kindOf(next);
    if (kind == BodyKind::Kinematic) {
      fail(describe(i) + " attaches the tree to kinematic body " + name(next) +
           "; a kinematic body cannot be part of the tree");
    }
    if (kind == BodyKind::Static) {
      const Node& self = nodes_[n];
      if (self.parent < 0 && self.parent_body == next) {
        fail(describe(i) + " is a second constraint between this pair of bodies (" +
             describe(self.constraint) + ")");
      }
      fail(describe(i) + " attaches static body " + name(next) + " to the tree of " +
           name(nodes_.front().body) +
           ": a static body can only hold a chain's first body (this closes a loop through the "
           "world)");
    }
    const auto seen = node_of_.find(next);
    if (seen != node_of_.end()) {
      const int m = seen->second;
      if (nodes_[m].parent == static_cast<int>(n) || nodes_[n].parent == m) {
        const int first =
            nodes_[m].parent == static_cast<int>(n) ? nodes_[m].constraint : nodes_[n].constraint;
        fail(describe(i) + " is a second constraint between this pair of bodies (" +
             describe(first) + ")");
      }
      fail(describe(i) + " closes a loop: both bodies are already in the tree");
    }
    node_of_[next] = static_cast<int>(nodes_.size());
    nodes_.push_back(Node{next, static_cast<int>(n), i, body, &c->getRigidBodyA() == body});
  }

  /// A disabled constraint on a tree body means the user broke the joint: refuse.
  void checkDisabled() const {
    for (int i = 0; i < world_.getNumConstraints(); ++i) {
      const btTypedConstraint* c = world_.getConstraint(i);
      if (c->isEnabled()) continue;
      if (node_of_.count(&c->getRigidBodyA()) || node_of_.count(&c->getRigidBodyB())) {
        fail(describe(i) + " is disabled (broken, or setEnabled(false)) but touches the tree");
      }
    }
  }

  /// The joint(s) constraint `node.constraint` stands for, by the reader of its class.
  JointReading readJoint(const Node& node) const {
    const int i = node.constraint;
    return inference::readConstraint(inference::ReadSite{world_.getConstraint(i), node.body,
                                                         node.parent_body, node.parent_is_a,
                                                         describe(i), options_.switch_motors_off});
  }

  /// The pose of the parent's body frame Bp in the parent link frame P: the parent link's X_LB,
  /// or, for the root's static parent, its pose in the world.
  Transform X_PBp(const Node& node, const std::vector<Transform>& X_LB) const {
    if (node.parent >= 0) return X_LB[node.parent];
    return fromBullet(node.parent_body->getCenterOfMassTransform());
  }

  /// Adds the link of `nodes_[n]` and its joint (two for a universal) to the builder: the joint
  /// frame J is the constraint's parent-side frame Fp carried to where the child link frame L is
  /// when Fc is on Fp, so that the model describes the constraint Bullet enforces, not where the
  /// bodies happen to be. Sets X_LB[n]; records what the map needs.
  /// The link of a body: its mass, its inertia about its COM (at B's origin, in L's axes, which
  /// are B's), and its collision shape as the link's collision geometry.
  LinkDescription linkDescription(const Node& node, const std::string& name,
                                  const Transform& X_LB) const {
    LinkDescription link;
    link.name = name;
    link.mass = 1.0 / node.body->getInvMass();
    link.p_LoLcm_L = X_LB.translation();
    link.I_Lcm_L = fromBullet(node.body->getLocalInertia()).asDiagonal();
    link.collisions = detail::shapesOfBody(node.body->getCollisionShape(), X_LB);
    return link;
  }

  void addLinkAndJoint(std::size_t n, ModelBuilder& builder, std::vector<Transform>& X_LB,
                       std::unordered_map<std::string, LinkRecord>& records) const {
    const Node& node = nodes_[n];
    const std::string link = linkName(node.body);
    // The floating root: L = B, its Free joint's q is B's pose in the world.
    if (node.constraint < 0) {
      X_LB[n] = Transform::Identity();
      builder.addLink(linkDescription(node, link, X_LB[n]));
      builder.addFree("root_joint", "world", link);
      records[link] = LinkRecord{node.body, Transform::Identity(), nullptr, false};
      return;
    }
    const JointReading r = readJoint(node);
    // L: B's axes, origin at Fc's (the pivot).
    X_LB[n] = Transform(Matrix3::Identity(), -r.X_BcFc.translation());
    const Transform X_FcL = r.X_BcFc.inverse() * X_LB[n].inverse();
    const Transform X_PJ = X_PBp(node, X_LB) * r.X_BpFp * X_FcL;
    // L has B's axes, so an axis in F is R_BcFc times it in J.
    const Matrix3& R_BcFc = r.X_BcFc.rotation();
    const std::string parent = node.parent < 0 ? "world" : linkName(node.parent_body);
    btTypedConstraint* constraint = world_.getConstraint(node.constraint);
    builder.addLink(linkDescription(node, link, X_LB[n]));
    records[link] = LinkRecord{node.body, X_LB[n], constraint, node.parent_is_a};
    const std::string joint = link + "_joint";
    if (r.universal) {
      // Parent-fixed axis first, to a massless cross link at the pivot, then the child-fixed.
      const std::string cross = link + "_cross";
      builder.addLink(cross, 0.0, Vector3::Zero(), Matrix3::Zero());
      records[cross] = LinkRecord{nullptr, Transform::Identity(), constraint, node.parent_is_a};
      builder.addRevolute(joint + "1", parent, cross, X_PJ, R_BcFc * r.axis_parent_F);
      builder.addRevolute(joint + "2", cross, link, Transform::Identity(), R_BcFc * r.axis_F);
      return;
    }
    JointDescription jd;
    jd.name = joint;
    jd.type = r.type;
    jd.parent = parent;
    jd.child = link;
    jd.X_PJ = X_PJ;
    jd.axis = R_BcFc * r.axis_F;
    jd.limits = r.limits;
    jd.swing1 = r.swing1;
    jd.swing2 = r.swing2;
    jd.twist = r.twist;
    builder.addJoint(jd);
  }

  /// The model of the description. @throws WorldError with buildModel's message.
  Model build(const ModelBuilder& builder) const {
    ModelOptions model_options;
    model_options.floating_base = nodes_.front().constraint < 0;
    model_options.merge_fixed_joints = false;
    model_options.ball = options_.ball;
    model_options.gravity_W = fromBullet(world_.getGravity());
    try {
      return builder.build(model_options);
    } catch (const ModelError& e) {
      fail(std::string("the bodies and constraints make no valid model: ") + e.what());
    }
  }

  /// The map, per model link (buildModel numbers links parents first).
  std::unique_ptr<RigidBodyMap> makeMap(
      const Model& model, const std::unordered_map<std::string, LinkRecord>& records) const {
    const int nlinks = model.numLinks();
    std::vector<btRigidBody*> bodies(nlinks);
    std::vector<Transform> X_LB(nlinks);
    std::vector<btTypedConstraint*> constraints(nlinks);
    std::vector<bool> parent_is_a(nlinks);
    for (int k = 0; k < nlinks; ++k) {
      const LinkRecord& record = records.at(model.link_names[k]);
      bodies[k] = record.body;
      X_LB[k] = record.X_LB;
      constraints[k] = record.constraint;
      parent_is_a[k] = record.parent_is_a;
    }
    return std::make_unique<RigidBodyMap>(model, &world_, std::move(bodies), std::move(X_LB),
                                          std::move(constraints), std::move(parent_is_a));
  }

  /// A warning when link k's body falls under a gravity other than the world's, which the model
  /// has (Bullet gives a body the world's gravity when it is added, not when the world's changes).
  static void warnIfOwnGravity(InferredModel& inferred, int k) {
    const Vector3& g_body = inferred.body_settings[k].gravity_W;
    if ((g_body - inferred.model.gravity_W).norm() <= 1e-6 * inferred.model.gravity_W.norm()) {
      return;
    }
    const auto text = [](const Vector3& g) {
      return "(" + std::to_string(g.x()) + ", " + std::to_string(g.y()) + ", " +
             std::to_string(g.z()) + ")";
    };
    inferred.warnings.push_back(
        "body '" + inferred.model.link_names[k] + "' falls under its own gravity " + text(g_body) +
        " m/s^2, not the world's " + text(inferred.model.gravity_W) +
        " (the model's): set the world's gravity before adding the body, or the body's with "
        "setGravity");
  }

  /// The radius of a sphere around the body's shape [m] (0 without a shape).
  static double boundingRadius(const btRigidBody& body) {
    const btCollisionShape* shape = body.getCollisionShape();
    if (shape == nullptr) return 0.0;
    btVector3 centre;
    btScalar radius = 0;
    shape->getBoundingSphere(centre, radius);
    return radius;
  }

  /// @throws WorldError for a constraint whose frames are further apart than its two bodies are
  ///   large (their bounding spheres' diameters together): no solver snaps that together, the
  ///   frames are wrong.
  void checkSpawnGaps(const InferredModel& inferred) const {
    const Model& model = inferred.model;
    for (int k = 0; k < model.numLinks(); ++k) {
      btTypedConstraint* c = inferred.map->constraint(k);
      if (c == nullptr) continue;
      const double gap = inferred.spawn_errors[k].position_error;
      const double size =
          2.0 * (boundingRadius(c->getRigidBodyA()) + boundingRadius(c->getRigidBodyB()));
      if (!(gap > size)) continue;
      int index = 0;
      while (world_.getConstraint(index) != c) ++index;
      fail(describe(index) + ": its frames on the two bodies are " + std::to_string(gap) +
           " m apart, more than the bodies are large (bounding-sphere diameters " +
           std::to_string(size) +
           " m together); no solver pulls that together: check the constraint's frames or pivots");
    }
  }

  /// The description of every tree body and joint, its model, the map, and how far the bodies
  /// are from the joints now.
  InferredModel buildModel() const {
    for (const Node& node : nodes_) checkSixDof(node.body);
    ModelBuilder builder(options_.name);
    builder.setSource(options_.source);
    std::unordered_map<std::string, LinkRecord> records;
    std::vector<Transform> X_LB(nodes_.size());
    for (std::size_t n = 0; n < nodes_.size(); ++n) addLinkAndJoint(n, builder, X_LB, records);
    InferredModel result;
    result.model = build(builder);
    const btRigidBody* hub = nodes_.front().parent_body;
    if (hub != nullptr)
      result.base_body = hub == &btTypedConstraint::getFixedBody() ? name(hub) : linkName(hub);
    result.map = makeMap(result.model, records);
    BridgeData bdata(result.model);
    result.q.resize(result.model.nq);
    readPositions(result.model, *result.map, bdata, result.q);
    computeJointErrors(result.model, *result.map, bdata);
    result.spawn_errors = bdata.joint_errors;
    checkSpawnGaps(result);
    result.body_settings.resize(result.model.numLinks());
    for (int k = 0; k < result.model.numLinks(); ++k) {
      if (result.map->body(k) == nullptr) continue;
      result.body_settings[k] = settingsOf(*result.map->body(k));
      warnIfOwnGravity(result, k);
    }
    return result;
  }

  /// Switches the motors of the tree's constraints off, saying which.
  void switchMotorsOff(InferredModel& inferred) const {
    for (const Node& node : nodes_) {
      if (node.constraint < 0) continue;
      btTypedConstraint* c = world_.getConstraint(node.constraint);
      const std::string motors = inference::enabledMotors(c);
      if (motors.empty()) continue;
      inferred.motors_switched_off.push_back(describe(node.constraint) + ": " + motors);
      inference::switchMotorsOff(c);
    }
  }

  btDynamicsWorld& world_;
  const InferenceOptions& options_;
  const ConstraintGraph graph_;
  /// options.body_names, by body.
  std::unordered_map<const btCollisionObject*, std::string> names_;
  /// The tree, root first, parents before children.
  std::vector<Node> nodes_;
  std::unordered_map<const btRigidBody*, int> node_of_;
};

}  // namespace

InferredModel inferModelFromWorld(btDynamicsWorld& world, const InferenceOptions& options) {
  return Inference(world, options).run();
}

GCBRIDGE_BULLET_NAMESPACE_END
