#include "gcbridge/bridge/world_inference.hpp"

// Bullet.
#include <BulletDynamics/ConstraintSolver/btConeTwistConstraint.h>
#include <BulletDynamics/ConstraintSolver/btFixedConstraint.h>
#include <BulletDynamics/ConstraintSolver/btGearConstraint.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofConstraint.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofSpring2Constraint.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofSpringConstraint.h>
#include <BulletDynamics/ConstraintSolver/btHinge2Constraint.h>
#include <BulletDynamics/ConstraintSolver/btHingeConstraint.h>
#include <BulletDynamics/ConstraintSolver/btPoint2PointConstraint.h>
#include <BulletDynamics/ConstraintSolver/btSliderConstraint.h>
#include <BulletDynamics/ConstraintSolver/btUniversalConstraint.h>

#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bullet_conversions.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/model_builder.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

namespace {

using detail::fromBullet;
using detail::quoted;

constexpr double kInf = std::numeric_limits<double>::infinity();

[[noreturn]] void fail(const std::string& what) {
  throw WorldError("inferModelFromWorld: " + what);
}

/// The most derived constraint class Bullet ships that `c` is (getConstraintType() cannot tell
/// fixed, universal and hinge2 from their 6-DOF base classes).
const char* className(const btTypedConstraint* c) {
  if (dynamic_cast<const btGearConstraint*>(c)) return "btGearConstraint";
  if (dynamic_cast<const btHinge2Constraint*>(c)) return "btHinge2Constraint";
  if (dynamic_cast<const btFixedConstraint*>(c)) return "btFixedConstraint";
  if (dynamic_cast<const btGeneric6DofSpring2Constraint*>(c)) {
    return "btGeneric6DofSpring2Constraint";
  }
  if (dynamic_cast<const btUniversalConstraint*>(c)) return "btUniversalConstraint";
  if (dynamic_cast<const btGeneric6DofSpringConstraint*>(c)) {
    return "btGeneric6DofSpringConstraint";
  }
  if (dynamic_cast<const btGeneric6DofConstraint*>(c)) return "btGeneric6DofConstraint";
  if (dynamic_cast<const btHingeAccumulatedAngleConstraint*>(c)) {
    return "btHingeAccumulatedAngleConstraint";
  }
  if (dynamic_cast<const btHingeConstraint*>(c)) return "btHingeConstraint";
  if (dynamic_cast<const btSliderConstraint*>(c)) return "btSliderConstraint";
  if (dynamic_cast<const btPoint2PointConstraint*>(c)) return "btPoint2PointConstraint";
  if (dynamic_cast<const btConeTwistConstraint*>(c)) return "btConeTwistConstraint";
  return "btTypedConstraint";
}

enum class BodyKind { Dynamic, Static, Kinematic };

BodyKind kindOf(const btRigidBody* body) {
  if (body->isKinematicObject()) return BodyKind::Kinematic;
  return body->getInvMass() == 0.0 ? BodyKind::Static : BodyKind::Dynamic;
}

/// The angle of R = rotation about coordinate axis i (its other two axes' block) [rad].
double angleAboutAxis(const Matrix3& R, int i) {
  const int j = (i + 1) % 3, k = (i + 2) % 3;
  return std::atan2(R(k, j), R(j, j));
}

/// Limits of the model coordinate q from Bullet's limits [lower, upper] on its own coordinate
/// s = s0 + sign * q (s0 its value now, at q = 0). A bound at Bullet's "unreached" magnitude
/// (BT_LARGE_FLOAT, how a one-sided slider limit is written) is none.
JointLimits shiftedLimits(double lower, double upper, double s0, double sign) {
  const double unreached = 0.1 * BT_LARGE_FLOAT;
  if (lower <= -unreached) lower = -kInf;
  if (upper >= unreached) upper = kInf;
  JointLimits limits;
  if (sign > 0.0) {
    limits.lower = lower - s0;
    limits.upper = upper - s0;
  } else {
    limits.lower = s0 - upper;
    limits.upper = s0 - lower;
  }
  return limits;
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

/// What one constraint becomes, with the child body's COM frame B and the world W.
struct JointReading {
  /// Fixed, Revolute, Prismatic or Ball; Revolute with `universal` set is two revolute joints.
  JointType type = JointType::Fixed;
  bool universal = false;
  /// The child link frame's origin (the pivot of a revolute, ball or universal joint) in B [m].
  Vector3 p_BoLo_B = Vector3::Zero();
  /// Revolute and prismatic axis, the universal's child-fixed axis, the cone's axis, in B.
  Vector3 axis_B = Vector3::UnitZ();
  /// The universal's parent-fixed axis, in W.
  Vector3 axis_parent_W = Vector3::UnitZ();
  JointLimits limits;
  double swing1 = kInf;
  double swing2 = kInf;
  double twist = kInf;
};

/// One model link as the map needs it, by link name.
struct LinkRecord {
  btRigidBody* body = nullptr;
  Transform X_LB;
  btTypedConstraint* constraint = nullptr;
  bool parent_is_a = false;
};

/// A constraint's frames: in their bodies' COM frames (frame_a in A's, frame_b in B's) and in
/// the world now.
struct ConstraintFrames {
  Transform frame_a;
  Transform frame_b;
  Transform X_WFa;
  Transform X_WFb;
};

class Inference {
 public:
  Inference(btDynamicsWorld& world, const InferenceOptions& options)
      : world_(world), options_(options) {
    for (const auto& [body, name] : options_.body_names) names_.emplace(body, name);
    const int n = world_.getNumConstraints();
    for (int i = 0; i < n; ++i) {
      btTypedConstraint* c = world_.getConstraint(i);
      if (!c->isEnabled()) continue;
      incident_[&c->getRigidBodyA()].push_back(i);
      if (&c->getRigidBodyB() != &c->getRigidBodyA()) incident_[&c->getRigidBodyB()].push_back(i);
    }
  }

  InferredModel run() {
    btRigidBody* root = findRoot();
    buildTree(root);
    checkDisabled();
    return buildModel();
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
    return "constraint " + std::to_string(i) + " (" + className(c) + ") between " +
           name(&c->getRigidBodyA()) + " and " + name(&c->getRigidBodyB());
  }

  const std::vector<int>& incident(const btRigidBody* body) const {
    static const std::vector<int> none;
    const auto it = incident_.find(body);
    return it == incident_.end() ? none : it->second;
  }

  btRigidBody* other(int i, const btRigidBody* body) const {
    btTypedConstraint* c = world_.getConstraint(i);
    return &c->getRigidBodyA() == body ? &c->getRigidBodyB() : &c->getRigidBodyA();
  }

  /// The dynamic bodies connected to `start` through enabled constraints between dynamic bodies.
  std::vector<btRigidBody*> group(btRigidBody* start) const {
    std::vector<btRigidBody*> bodies = {start};
    std::unordered_map<const btRigidBody*, bool> seen = {{start, true}};
    for (std::size_t n = 0; n < bodies.size(); ++n) {
      for (int i : incident(bodies[n])) {
        btRigidBody* next = other(i, bodies[n]);
        if (kindOf(next) != BodyKind::Dynamic || seen[next]) continue;
        seen[next] = true;
        bodies.push_back(next);
      }
    }
    return bodies;
  }

  /// options.root, or the one dynamic body of the group attached to a static body.
  btRigidBody* findRoot() const {
    if (options_.root != nullptr) {
      if (kindOf(options_.root) != BodyKind::Dynamic) {
        fail("the root body " + name(options_.root) +
             " is static or kinematic; give a dynamic "
             "body as options.root");
      }
      return options_.root;
    }
    // The group: around options.start, or the only one in the world.
    btRigidBody* start = options_.start;
    std::vector<btRigidBody*> constrained;
    for (int i = 0; i < world_.getNumConstraints(); ++i) {
      const btTypedConstraint* c = world_.getConstraint(i);
      if (!c->isEnabled()) continue;
      for (btRigidBody* b :
           {&world_.getConstraint(i)->getRigidBodyA(), &world_.getConstraint(i)->getRigidBodyB()}) {
        if (kindOf(b) == BodyKind::Dynamic) constrained.push_back(b);
      }
    }
    if (start == nullptr) {
      if (constrained.empty()) fail("the world holds no constraint on a dynamic body");
      start = constrained.front();
    } else if (kindOf(start) != BodyKind::Dynamic) {
      fail("the start body " + name(start) + " is static or kinematic");
    }
    const std::vector<btRigidBody*> bodies = group(start);
    if (options_.start == nullptr) {
      std::unordered_map<const btRigidBody*, bool> in_group;
      for (const btRigidBody* b : bodies) in_group[b] = true;
      for (const btRigidBody* b : constrained) {
        if (!in_group[b]) {
          fail("the world holds several groups of constrained bodies (" + name(start) + " and " +
               name(b) + " are not connected); give options.start or options.root");
        }
      }
    }
    // Candidates: the group's dynamic bodies with a constraint to a static body.
    std::vector<std::pair<btRigidBody*, int>> candidates;
    for (btRigidBody* b : bodies) {
      for (int i : incident(b)) {
        if (kindOf(other(i, b)) == BodyKind::Static) {
          candidates.emplace_back(b, i);
          break;
        }
      }
    }
    if (candidates.empty()) {
      fail("no body of the group of " + name(start) +
           " is attached to a static body, so the root is unknown; give options.root for a "
           "floating base");
    }
    if (candidates.size() > 1) {
      std::string list;
      for (const auto& [body, i] : candidates) list += "; " + describe(i);
      fail("several bodies of the group of " + name(start) +
           " are attached to static bodies, so the root is ambiguous (a loop through the world)" +
           list);
    }
    return candidates.front().first;
  }

  /// Breadth-first walk from the root over enabled constraints; every constraint touching a tree
  /// body must be a tree edge.
  void buildTree(btRigidBody* root) {
    std::vector<bool> used(world_.getNumConstraints(), false);
    nodes_.push_back(Node{root});
    node_of_[root] = 0;
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
      btRigidBody* body = nodes_[n].body;
      for (int i : incident(body)) {
        if (used[i]) continue;
        used[i] = true;
        const btTypedConstraint* c = world_.getConstraint(i);
        // Gears and hinge2 usually come with other constraints on the same bodies: say what they
        // are before calling them a loop.
        if (dynamic_cast<const btGearConstraint*>(c) ||
            dynamic_cast<const btHinge2Constraint*>(c)) {
          fail(describe(i) +
               " is not supported: gears and hinge2 (wheel) constraints have no "
               "tree joint");
        }
        btRigidBody* next = other(i, body);
        if (next == body) fail(describe(i) + " attaches a body to itself");
        const BodyKind kind = kindOf(next);
        if (kind == BodyKind::Kinematic) {
          fail(describe(i) + " attaches the tree to kinematic body " + name(next) +
               "; a kinematic body cannot be part of the tree");
        }
        if (kind == BodyKind::Static) {
          Node& self = nodes_[n];
          if (n == 0 && self.constraint < 0) {
            self.constraint = i;
            self.parent_body = next;
            self.parent_is_a = &c->getRigidBodyA() == next;
          } else if (n == 0 && self.parent_body == next) {
            fail(describe(i) + " is a second constraint between this pair of bodies (" +
                 describe(self.constraint) + ")");
          } else {
            fail(describe(i) + " attaches static body " + name(next) + " to the tree rooted at " +
                 name(root) +
                 ": a static body can only hold the root (this closes a loop "
                 "through the world)");
          }
          continue;
        }
        const auto seen = node_of_.find(next);
        if (seen != node_of_.end()) {
          const int m = seen->second;
          if (nodes_[m].parent == static_cast<int>(n) || nodes_[n].parent == m) {
            const int first = nodes_[m].parent == static_cast<int>(n) ? nodes_[m].constraint
                                                                      : nodes_[n].constraint;
            fail(describe(i) + " is a second constraint between this pair of bodies (" +
                 describe(first) + ")");
          }
          fail(describe(i) + " closes a loop: both bodies are already in the tree");
        }
        node_of_[next] = static_cast<int>(nodes_.size());
        nodes_.push_back(Node{next, static_cast<int>(n), i, body, &c->getRigidBodyA() == body});
      }
    }
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

  /// Hinge: the z axis of its frames.
  JointReading readHinge(int i, btHingeConstraint* hinge, const Node& node) const {
    if (hinge->getAngularOnly()) fail(describe(i) + " is angular-only: not a revolute joint");
    if (hinge->getEnableAngularMotor()) {
      fail(describe(i) + " has its motor enabled; disable it (the controller drives the joint)");
    }
    JointReading r;
    r.type = JointType::Revolute;
    const Transform frame = fromBullet(node.parent_is_a ? hinge->getBFrame() : hinge->getAFrame());
    r.p_BoLo_B = frame.translation();
    r.axis_B = frame.rotation().col(2);
    const double lower = hinge->getLowerLimit(), upper = hinge->getUpperLimit();
    // A limit whose normalized bounds are out of order wraps through +-pi or is no limit at all;
    // the two cannot be told apart from the getters, so neither is recorded.
    if (hinge->hasLimit() && lower <= upper) {
      // Bullet's angle is minus the rotation of B relative to A about the axis, or plus it with
      // useReferenceFrameA (bullet-facts.md); q is the rotation of the child relative to the
      // parent.
      const double angle_now =
          hinge->getHingeAngle(hinge->getRigidBodyA().getCenterOfMassTransform(),
                               hinge->getRigidBodyB().getCenterOfMassTransform());
      const double sign_ab = hinge->getUseReferenceFrameA() ? 1.0 : -1.0;
      r.limits = shiftedLimits(lower, upper, angle_now, node.parent_is_a ? sign_ab : -sign_ab);
    }
    return r;
  }

  /// Slider: translation along the x axis of its frames, rotation locked.
  JointReading readSlider(int i, btSliderConstraint* slider, const Node& node,
                          const ConstraintFrames& frames) const {
    if (slider->getLowerAngLimit() != slider->getUpperAngLimit()) {
      fail(describe(i) + " lets the bodies rotate about its axis (angular limits " +
           std::to_string(slider->getLowerAngLimit()) + " .. " +
           std::to_string(slider->getUpperAngLimit()) + "): not a prismatic joint");
    }
    if (slider->getPoweredLinMotor() || slider->getPoweredAngMotor()) {
      fail(describe(i) + " has a motor enabled; disable it (the controller drives the joint)");
    }
    JointReading r;
    r.type = JointType::Prismatic;
    r.axis_B = (node.parent_is_a ? frames.frame_b : frames.frame_a).rotation().col(0);
    const double lower = slider->getLowerLinLimit(), upper = slider->getUpperLinLimit();
    if (lower <= upper) {
      r.limits =
          shiftedLimits(lower, upper, linearPosition(frames, 0), node.parent_is_a ? 1.0 : -1.0);
    }
    return r;
  }

  /// Point-to-point: a ball joint at the pivot.
  JointReading readPoint2Point(btPoint2PointConstraint* p2p, const Node& node) const {
    JointReading r;
    r.type = JointType::Ball;
    r.p_BoLo_B = fromBullet(node.parent_is_a ? p2p->getPivotInB() : p2p->getPivotInA());
    return r;
  }

  /// Cone-twist: a ball joint at the frames' origin, the cone about the parent frame's x axis.
  JointReading readConeTwist(int i, btConeTwistConstraint* cone, const Node& node,
                             const ConstraintFrames& frames) const {
    if (cone->getAngularOnly()) fail(describe(i) + " is angular-only: not a ball joint");
    if (cone->isMotorEnabled()) {
      fail(describe(i) + " has its motor enabled; disable it (the controller drives the joint)");
    }
    JointReading r;
    r.type = JointType::Ball;
    const Transform& parent_frame = node.parent_is_a ? frames.frame_a : frames.frame_b;
    const Transform& child_frame = node.parent_is_a ? frames.frame_b : frames.frame_a;
    r.p_BoLo_B = child_frame.translation();
    // The cone's axis in the child's frame B, now: R_BW R_WP x_F.
    r.axis_B = rotationOf(node.body).transpose() * rotationOf(node.parent_body) *
               parent_frame.rotation().col(0);
    // Bullet's "no limit" is BT_LARGE_FLOAT (1e30 in double, 1e18 in single precision).
    const auto span = [](double s) { return s < 0.1 * BT_LARGE_FLOAT ? s : kInf; };
    r.swing1 = span(cone->getSwingSpan1());
    r.swing2 = span(cone->getSwingSpan2());
    r.twist = span(cone->getTwistSpan());
    return r;
  }

  /// Universal: 6-DOF with x rotation and translation locked. Measured (Bullet 3.24): the frame's
  /// z axis (axis1) stays fixed in body A and its y axis (axis2) in body B.
  JointReading readUniversal(int i, btUniversalConstraint* universal, const Node& node,
                             const ConstraintFrames& frames) const {
    btVector3 lin_lo, lin_hi, ang_lo, ang_hi;
    universal->getLinearLowerLimit(lin_lo);
    universal->getLinearUpperLimit(lin_hi);
    universal->getAngularLowerLimit(ang_lo);
    universal->getAngularUpperLimit(ang_hi);
    if (lin_lo != lin_hi || ang_lo.x() != ang_hi.x() || ang_lo.y() == ang_hi.y() ||
        ang_lo.z() == ang_hi.z()) {
      fail(describe(i) + " has limits that lock other axes than a universal joint's");
    }
    check6DofMotors(i, universal);
    JointReading r;
    r.type = JointType::Revolute;
    r.universal = true;
    const Transform& parent_frame = node.parent_is_a ? frames.frame_a : frames.frame_b;
    const Transform& child_frame = node.parent_is_a ? frames.frame_b : frames.frame_a;
    const int parent_axis = node.parent_is_a ? 2 : 1, child_axis = node.parent_is_a ? 1 : 2;
    r.p_BoLo_B = child_frame.translation();
    r.axis_B = child_frame.rotation().col(child_axis);
    r.axis_parent_W = rotationOf(node.parent_body) * parent_frame.rotation().col(parent_axis);
    return r;
  }

  /// 6-DOF constraints: the joint is read from which axes are locked (lower == upper), free
  /// (lower > upper) or limited (lower < upper).
  JointReading readGeneric6Dof(int i, const Node& node, const ConstraintFrames& frames,
                               const btVector3& lin_lo, const btVector3& lin_hi,
                               const btVector3& ang_lo, const btVector3& ang_hi) const {
    int linear_locked = 0, angular_locked = 0, linear_moving = -1, angular_moving = -1;
    int linear_locked_axis = -1;
    for (int a = 0; a < 3; ++a) {
      if (lin_lo[a] == lin_hi[a]) {
        ++linear_locked;
        linear_locked_axis = a;
      } else {
        linear_moving = a;
      }
      if (ang_lo[a] == ang_hi[a]) {
        ++angular_locked;
      } else {
        angular_moving = a;
      }
    }
    const Transform& child_frame = node.parent_is_a ? frames.frame_b : frames.frame_a;
    const double sign = node.parent_is_a ? 1.0 : -1.0;
    JointReading r;
    if (linear_locked == 3 && angular_locked == 3) {
      r.type = JointType::Fixed;
    } else if (linear_locked == 3 && angular_locked == 2) {
      r.type = JointType::Revolute;
      r.p_BoLo_B = child_frame.translation();
      r.axis_B = child_frame.rotation().col(angular_moving);
      const int a = angular_moving;
      if (ang_lo[a] < ang_hi[a]) {
        // Measured (Bullet 3.24, both 6-DOF classes): getAngle(a) is minus the rotation of B's
        // frame relative to A's about axis a.
        const Matrix3 R_FaFb = frames.X_WFa.rotation().transpose() * frames.X_WFb.rotation();
        r.limits = shiftedLimits(ang_lo[a], ang_hi[a], -angleAboutAxis(R_FaFb, a), -sign);
      }
    } else if (angular_locked == 3 && linear_locked == 2) {
      r.type = JointType::Prismatic;
      r.axis_B = child_frame.rotation().col(linear_moving);
      const int a = linear_moving;
      if (lin_lo[a] < lin_hi[a]) {
        r.limits = shiftedLimits(lin_lo[a], lin_hi[a], linearPosition(frames, a), sign);
      }
    } else if (linear_locked == 3 && angular_locked == 0) {
      r.type = JointType::Ball;
      r.p_BoLo_B = child_frame.translation();
    } else if (linear_locked == 1 && angular_locked == 2 && angular_moving == linear_locked_axis) {
      // Planar: translation in the plane normal to the free rotation's axis.
      const int a = angular_moving;
      const int b = (a + 1) % 3, c = (a + 2) % 3;
      if (!(lin_lo[b] > lin_hi[b]) || !(lin_lo[c] > lin_hi[c]) || !(ang_lo[a] > ang_hi[a])) {
        fail(describe(i) + " is a planar joint with limits on its free axes; a planar joint has "
                           "no position limits here: make them free (lower > upper)");
      }
      r.type = JointType::Planar;
      r.p_BoLo_B = child_frame.translation();
      r.axis_B = child_frame.rotation().col(a);
    } else {
      fail(describe(i) + " locks " + std::to_string(linear_locked) + " translations and " +
           std::to_string(angular_locked) +
           " rotations: only fixed, revolute, prismatic, planar and ball configurations are "
           "supported");
    }
    return r;
  }

  void check6DofMotors(int i, btGeneric6DofConstraint* dof) const {
    bool enabled = false;
    for (int a = 0; a < 3; ++a) {
      enabled = enabled || dof->getRotationalLimitMotor(a)->m_enableMotor ||
                dof->getTranslationalLimitMotor()->m_enableMotor[a];
    }
    if (const auto* spring = dynamic_cast<const btGeneric6DofSpringConstraint*>(dof)) {
      for (int a = 0; a < 6; ++a) enabled = enabled || spring->isSpringEnabled(a);
    }
    if (enabled) {
      fail(describe(i) +
           " has a motor or spring enabled; disable it (the controller drives the "
           "joint)");
    }
  }

  void checkSpring2Motors(int i, btGeneric6DofSpring2Constraint* dof) const {
    bool enabled = false;
    for (int a = 0; a < 3; ++a) {
      const btRotationalLimitMotor2* rotational = dof->getRotationalLimitMotor(a);
      const btTranslationalLimitMotor2* translational = dof->getTranslationalLimitMotor();
      enabled = enabled || rotational->m_enableMotor || rotational->m_enableSpring ||
                translational->m_enableMotor[a] || translational->m_enableSpring[a];
    }
    if (enabled) {
      fail(describe(i) +
           " has a motor or spring enabled; disable it (the controller drives the "
           "joint)");
    }
  }

  /// R_WB of a body now.
  static Matrix3 rotationOf(const btRigidBody* body) {
    return fromBullet(body->getCenterOfMassTransform()).rotation();
  }

  /// Displacement of B's frame origin from A's along A's frame axis a, now [m] (the slider's and
  /// the 6-DOF constraints' linear position).
  static double linearPosition(const ConstraintFrames& frames, int a) {
    return (frames.X_WFb.translation() - frames.X_WFa.translation())
        .dot(frames.X_WFa.rotation().col(a));
  }

  /// The joint(s) constraint `node.constraint` stands for.
  JointReading readJoint(const Node& node) const {
    const int i = node.constraint;
    btTypedConstraint* c = world_.getConstraint(i);
    const auto frames = [&](const btTransform& frame_a, const btTransform& frame_b) {
      ConstraintFrames f;
      f.frame_a = fromBullet(frame_a);
      f.frame_b = fromBullet(frame_b);
      f.X_WFa = fromBullet(c->getRigidBodyA().getCenterOfMassTransform()) * f.frame_a;
      f.X_WFb = fromBullet(c->getRigidBodyB().getCenterOfMassTransform()) * f.frame_b;
      return f;
    };
    if (auto* universal = dynamic_cast<btUniversalConstraint*>(c)) {
      return readUniversal(i, universal, node,
                           frames(universal->getFrameOffsetA(), universal->getFrameOffsetB()));
    }
    if (auto* dof = dynamic_cast<btGeneric6DofConstraint*>(c)) {
      check6DofMotors(i, dof);
      btVector3 lin_lo, lin_hi, ang_lo, ang_hi;
      dof->getLinearLowerLimit(lin_lo);
      dof->getLinearUpperLimit(lin_hi);
      dof->getAngularLowerLimit(ang_lo);
      dof->getAngularUpperLimit(ang_hi);
      return readGeneric6Dof(i, node, frames(dof->getFrameOffsetA(), dof->getFrameOffsetB()),
                             lin_lo, lin_hi, ang_lo, ang_hi);
    }
    if (auto* dof = dynamic_cast<btGeneric6DofSpring2Constraint*>(c)) {
      checkSpring2Motors(i, dof);
      btVector3 lin_lo, lin_hi, ang_lo, ang_hi;
      dof->getLinearLowerLimit(lin_lo);
      dof->getLinearUpperLimit(lin_hi);
      dof->getAngularLowerLimit(ang_lo);
      dof->getAngularUpperLimit(ang_hi);
      return readGeneric6Dof(i, node, frames(dof->getFrameOffsetA(), dof->getFrameOffsetB()),
                             lin_lo, lin_hi, ang_lo, ang_hi);
    }
    if (auto* hinge = dynamic_cast<btHingeConstraint*>(c)) return readHinge(i, hinge, node);
    if (auto* slider = dynamic_cast<btSliderConstraint*>(c)) {
      return readSlider(i, slider, node,
                        frames(slider->getFrameOffsetA(), slider->getFrameOffsetB()));
    }
    if (auto* p2p = dynamic_cast<btPoint2PointConstraint*>(c)) return readPoint2Point(p2p, node);
    if (auto* cone = dynamic_cast<btConeTwistConstraint*>(c)) {
      return readConeTwist(i, cone, node, frames(cone->getAFrame(), cone->getBFrame()));
    }
    fail(describe(i) + " is of a constraint type the bridge does not support (type " +
         std::to_string(static_cast<int>(c->getConstraintType())) + ")");
  }

  /// The description of every tree body and joint, its model, and the map.
  InferredModel buildModel() const {
    ModelBuilder builder(options_.name);
    std::unordered_map<std::string, LinkRecord> records;
    // Each link frame L in the world, by node (bodies are visited parents first).
    std::vector<Transform> X_WL(nodes_.size());
    for (const Node& node : nodes_) checkSixDof(node.body);
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
      const Node& node = nodes_[n];
      const std::string link = linkName(node.body);
      const Transform X_WB = fromBullet(node.body->getCenterOfMassTransform());
      const double mass = 1.0 / node.body->getInvMass();
      const Matrix3 I_Bcm_B = fromBullet(node.body->getLocalInertia()).asDiagonal();
      btTypedConstraint* constraint =
          node.constraint < 0 ? nullptr : world_.getConstraint(node.constraint);
      // The floating root: L = B, its Free joint's q is B's pose in the world.
      if (node.constraint < 0) {
        X_WL[n] = X_WB;
        builder.addLink(link, mass, Vector3::Zero(), I_Bcm_B);
        builder.addFree("root_joint", "world", link);
        records[link] = LinkRecord{node.body, Transform::Identity(), nullptr, false};
        continue;
      }
      const JointReading r = readJoint(node);
      // L: B's axes, origin at the pivot; the joint frame J is where L is now (q = 0).
      const Transform X_LB(Matrix3::Identity(), -r.p_BoLo_B);
      X_WL[n] = X_WB * X_LB.inverse();
      const bool from_world = node.parent < 0;
      const std::string parent = from_world ? "world" : linkName(node.parent_body);
      const Transform X_WP = from_world ? Transform::Identity() : X_WL[node.parent];
      const Transform X_PJ = X_WP.inverse() * X_WL[n];
      builder.addLink(link, mass, X_LB.translation(), I_Bcm_B);
      records[link] = LinkRecord{node.body, X_LB, constraint, node.parent_is_a};
      const std::string joint = link + "_joint";
      if (r.universal) {
        // Parent-fixed axis first, to a massless cross link at the pivot, then the child-fixed.
        const std::string cross = link + "_cross";
        builder.addLink(cross, 0.0, Vector3::Zero(), Matrix3::Zero());
        records[cross] = LinkRecord{nullptr, Transform::Identity(), constraint, node.parent_is_a};
        const Vector3 axis_parent_J = X_WL[n].rotation().transpose() * r.axis_parent_W;
        builder.addRevolute(joint + "1", parent, cross, X_PJ, axis_parent_J);
        builder.addRevolute(joint + "2", cross, link, Transform::Identity(), r.axis_B);
        continue;
      }
      JointDescription jd;
      jd.name = joint;
      jd.type = r.type;
      jd.parent = parent;
      jd.child = link;
      jd.X_PJ = X_PJ;
      // L has B's axes, so an axis in B is the axis in J.
      jd.axis = r.axis_B;
      jd.limits = r.limits;
      jd.swing1 = r.swing1;
      jd.swing2 = r.swing2;
      jd.twist = r.twist;
      builder.addJoint(jd);
    }
    ModelOptions model_options;
    model_options.floating_base = nodes_.front().constraint < 0;
    model_options.merge_fixed_joints = false;
    model_options.ball = options_.ball;
    model_options.gravity_W = fromBullet(world_.getGravity());
    InferredModel result;
    try {
      result.model = builder.build(model_options);
    } catch (const ModelError& e) {
      fail(std::string("the bodies and constraints make no valid model: ") + e.what());
    }
    // The map, per model link (buildModel numbers links parents first).
    const int nlinks = result.model.numLinks();
    std::vector<btRigidBody*> bodies(nlinks);
    std::vector<Transform> X_LB(nlinks);
    std::vector<btTypedConstraint*> constraints(nlinks);
    std::vector<bool> parent_is_a(nlinks);
    for (int k = 0; k < nlinks; ++k) {
      const LinkRecord& record = records.at(result.model.link_names[k]);
      bodies[k] = record.body;
      X_LB[k] = record.X_LB;
      constraints[k] = record.constraint;
      parent_is_a[k] = record.parent_is_a;
    }
    result.map =
        std::make_unique<RigidBodyMap>(result.model, &world_, std::move(bodies), std::move(X_LB),
                                       std::move(constraints), std::move(parent_is_a));
    return result;
  }

  btDynamicsWorld& world_;
  const InferenceOptions& options_;
  /// options.body_names, by body.
  std::unordered_map<const btCollisionObject*, std::string> names_;
  /// The world indices of the enabled constraints on each body.
  std::unordered_map<const btRigidBody*, std::vector<int>> incident_;
  /// The tree, root first, parents before children.
  std::vector<Node> nodes_;
  std::unordered_map<const btRigidBody*, int> node_of_;
};

}  // namespace

InferredModel inferModelFromWorld(btDynamicsWorld& world, const InferenceOptions& options) {
  return Inference(world, options).run();
}

GCBRIDGE_BULLET_NAMESPACE_END
