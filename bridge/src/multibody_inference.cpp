#include "gcbridge/bridge/multibody_inference.hpp"

#include <BulletDynamics/Featherstone/btMultiBodyConstraint.h>
#include <BulletDynamics/Featherstone/btMultiBodyJointLimitConstraint.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "body_shapes.hpp"
#include "bullet_conversions.hpp"
#include "gcbridge/dynamics/description.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "joints/dispatch.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

namespace {

using detail::fromBullet;
using detail::quoted;

constexpr int kBase = -1;

/// How far from 1 a unit axis read from Bullet may be: its round-off in Bullet's precision.
constexpr double kUnitTolerance = sizeof(btScalar) == 8 ? 1e-9 : 1e-5;

/// x in messages: 6 significant digits.
std::string text(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

/// The names of the base (index -1) and of each Bullet link, and of each link's joint.
struct Names {
  std::string base;
  std::vector<std::string> links, joints;

  const std::string& link(int b) const { return b == kBase ? base : links[b]; }
  /// "link 'name' (Bullet link b)", or "base 'name'", for messages.
  std::string describe(int b) const {
    return b == kBase ? "base " + quoted(base)
                      : "link " + quoted(links[b]) + " (Bullet link " + std::to_string(b) + ")";
  }
};

/// The names set on the body, generated where there are none (header).
Names namesOf(const btMultiBody& body) {
  Names names;
  names.base = body.getBaseName() != nullptr && *body.getBaseName() != '\0' ? body.getBaseName()
                                                                             : "base";
  for (int b = 0; b < body.getNumLinks(); ++b) {
    const btMultibodyLink& link = body.getLink(b);
    const bool named = link.m_linkName != nullptr && *link.m_linkName != '\0';
    names.links.push_back(named ? link.m_linkName : "link" + std::to_string(b));
    const bool joint_named = link.m_jointName != nullptr && *link.m_jointName != '\0';
    names.joints.push_back(joint_named ? link.m_jointName : names.links.back() + "_joint");
  }
  return names;
}

/// The model's joint type of a Bullet link's joint. @throws WorldError for one gcbridge does not
/// model.
JointType jointType(const btMultibodyLink& link, const std::string& where) {
  switch (link.m_jointType) {
    case btMultibodyLink::eRevolute:
      return JointType::Revolute;
    case btMultibodyLink::ePrismatic:
      return JointType::Prismatic;
    case btMultibodyLink::eSpherical:
      return JointType::Ball;
    case btMultibodyLink::ePlanar:
      return JointType::Planar;
    case btMultibodyLink::eFixed:
      return JointType::Fixed;
    default:
      throw WorldError("inferModelFromMultiBody: " + where + " has a joint of type " +
                       std::to_string(static_cast<int>(link.m_jointType)) +
                       " (eInvalid or unknown), which gcbridge does not model");
  }
}

/// @throws WorldError naming the link for a mass or inertia a moving link cannot have.
void checkInertia(double mass, const Vector3& inertia, bool moves, const std::string& where) {
  if (!std::isfinite(mass) || mass < 0.0 || (moves && mass <= 0.0)) {
    throw WorldError("inferModelFromMultiBody: " + where + " has mass " + text(mass) +
                     (moves ? "; a link that moves needs a positive, finite mass"
                            : "; a mass must be finite and not negative"));
  }
  if (!inertia.allFinite() || (inertia.array() < 0.0).any()) {
    throw WorldError("inferModelFromMultiBody: " + where + " has principal inertia (" +
                     text(inertia.x()) + ", " + text(inertia.y()) + ", " +
                     text(inertia.z()) + "): each must be finite and not negative");
  }
}

/// The joint's axis, in the link's axes: a revolute's or planar's rotation axis, a prismatic's
/// direction. @throws WorldError naming the link for an axis that is not a unit vector (Bullet
/// would turn by the normalized axis at the unnormalized rate).
Vector3 jointAxis(const btMultibodyLink& link, JointType type, const std::string& where) {
  const Vector3 axis = type == JointType::Prismatic ? fromBullet(link.getAxisBottom(0))
                                                    : fromBullet(link.getAxisTop(0));
  if (!axis.allFinite() || std::abs(axis.norm() - 1.0) > kUnitTolerance) {
    throw WorldError("inferModelFromMultiBody: " + where + "'s joint axis has length " +
                     text(axis.norm()) + "; gcbridge reads only unit axes");
  }
  return axis;
}

/// Per Bullet link, the position limits its btMultiBodyJointLimitConstraint enforces.
struct ConstraintReading {
  std::map<int, std::pair<double, double>> limits;
  std::vector<std::string> warnings;
};

/// "constraint i (class)" for messages.
std::string constraintName(int i, int type) {
  static const char* const kClasses[] = {
      "btMultiBodyJointLimitConstraint", "btMultiBodyJointMotor",
      "btMultiBodyGearConstraint",       "btMultiBodyPoint2Point",
      "btMultiBodySliderConstraint",     "btMultiBodySphericalJointMotor",
      "btMultiBodyFixedConstraint",      "btMultiBodySphericalJointLimit"};
  const bool known = type >= MULTIBODY_CONSTRAINT_LIMIT && type < MAX_MULTIBODY_CONSTRAINT_TYPE;
  return "multibody constraint " + std::to_string(i) + " (" +
         (known ? kClasses[type - MULTIBODY_CONSTRAINT_LIMIT] : "type " + std::to_string(type)) +
         ")";
}

/// The world's constraints on `body`: limits kept, motors and spherical limits reported.
/// @throws WorldError naming the constraint and link for one that closes a loop.
ConstraintReading readConstraints(btMultiBodyDynamicsWorld& world, btMultiBody& body,
                                  const Names& names) {
  ConstraintReading reading;
  for (int i = 0; i < world.getNumMultiBodyConstraints(); ++i) {
    btMultiBodyConstraint* c = world.getMultiBodyConstraint(i);
    if (c->getMultiBodyA() != &body && c->getMultiBodyB() != &body) continue;
    const int type = c->getConstraintType();
    const int b = c->getMultiBodyA() == &body ? c->getLinkA() : c->getLinkB();
    const std::string what = constraintName(i, type) + " on " + names.describe(b);
    switch (type) {
      case MULTIBODY_CONSTRAINT_LIMIT: {
        const auto* limit = static_cast<btMultiBodyJointLimitConstraint*>(c);
        reading.limits[b] = {limit->getLowerBound(), limit->getUpperBound()};
        break;
      }
      case MULTIBODY_CONSTRAINT_1DOF_JOINT_MOTOR:
      case MULTIBODY_CONSTRAINT_SPHERICAL_MOTOR:
        reading.warnings.push_back(what + " drives the joint on top of the model's torques (max "
                                   "impulse " + text(c->getMaxAppliedImpulse()) +
                                   "); remove it or set its max impulse to 0 for torque control");
        break;
      case MULTIBODY_CONSTRAINT_SPHERICAL_LIMIT:
        reading.warnings.push_back(what + " limits the ball joint; the model has no ball limits");
        break;
      default:
        throw WorldError("inferModelFromMultiBody: " + what +
                         " closes a loop; gcbridge models trees only");
    }
  }
  return reading;
}

/// Whether the base is left out of the model: fixed, without mass, inertia, collider or name
/// (what gcbridge's builder makes for a root that is not welded or free); its links hang from
/// the world.
bool baseLeftOut(const btMultiBody& body) {
  return body.hasFixedBase() && body.getBaseMass() == 0.0 &&
         body.getBaseInertia() == btVector3(0, 0, 0) && body.getBaseCollider() == nullptr &&
         (body.getBaseName() == nullptr || *body.getBaseName() == '\0');
}

/// The base's pose in the world, X_WB.
Transform basePose(const btMultiBody& body) {
  const Quaternion Q_WB = fromBullet(body.getWorldToBaseRot()).conjugate().normalized();
  return Transform(Q_WB.toRotationMatrix(), fromBullet(body.getBasePos()));
}

/// The base as description link 0 (L = B) and, for a fixed base, its Fixed joint at the base's
/// pose.
void describeBase(const btMultiBody& body, const Names& names, RobotDescription& description) {
  const bool floating = !body.hasFixedBase();
  const std::string where = names.describe(kBase);
  if (body.isBaseKinematic()) {
    throw WorldError("inferModelFromMultiBody: " + where + " is kinematic "
                     "(setBaseDynamicType); gcbridge models links that Bullet moves");
  }
  checkInertia(body.getBaseMass(), fromBullet(body.getBaseInertia()), floating, where);
  LinkDescription base;
  base.name = names.base;
  base.mass = body.getBaseMass();
  base.I_Lcm_L = fromBullet(body.getBaseInertia()).asDiagonal();
  if (body.getBaseCollider() != nullptr) {
    base.collisions = detail::shapesOfBody(body.getBaseCollider()->getCollisionShape(),
                                           Transform::Identity());
  }
  description.links.push_back(base);
  // A floating base gets its Free "root_joint" from buildModel (ModelOptions::floating_base).
  if (floating) return;
  JointDescription joint;
  joint.name = "root_joint";
  joint.type = JointType::Fixed;
  joint.parent = "world";
  joint.child = base.name;
  joint.X_PJ = basePose(body);
  description.joints.push_back(joint);
}

/// Bullet link b as a description link (L at the pivot, B's axes) and its joint (header).
/// @throws WorldError naming the link for what inferModelFromMultiBody refuses.
void describeLink(const btMultiBody& body, int b, const Names& names,
                  const ConstraintReading& constraints, RobotDescription& description) {
  const btMultibodyLink& link = body.getLink(b);
  const std::string where = names.describe(b);
  if (link.m_parent < kBase || link.m_parent >= b) {
    throw WorldError("inferModelFromMultiBody: " + where + " has parent " +
                     std::to_string(link.m_parent) + "; a parent must be the base (-1) or a "
                     "link numbered before it");
  }
  if (body.isLinkStaticOrKinematic(b)) {
    throw WorldError("inferModelFromMultiBody: " + where + " is static or kinematic "
                     "(setLinkDynamicType); gcbridge models links that Bullet moves");
  }
  const JointType type = jointType(link, where);
  const Vector3 d = fromBullet(link.m_dVector);
  checkInertia(link.m_mass, fromBullet(link.m_inertiaLocal), type != JointType::Fixed, where);
  LinkDescription child;
  child.name = names.links[b];
  child.mass = link.m_mass;
  child.p_LoLcm_L = d;
  child.I_Lcm_L = fromBullet(link.m_inertiaLocal).asDiagonal();
  if (link.m_collider != nullptr) {
    child.collisions = detail::shapesOfBody(link.m_collider->getCollisionShape(),
                                            Transform(Matrix3::Identity(), d));
  }
  description.links.push_back(child);
  JointDescription joint;
  joint.name = names.joints[b];
  joint.type = type;
  const bool on_world = link.m_parent == kBase && baseLeftOut(body);
  joint.parent = on_world ? "world" : names.link(link.m_parent);
  joint.child = child.name;
  const Vector3 d_parent = link.m_parent == kBase
                               ? Vector3::Zero()
                               : Vector3(fromBullet(body.getLink(link.m_parent).m_dVector));
  const Quaternion R0 = fromBullet(link.m_zeroRotParentToThis).normalized();
  joint.X_PJ = Transform(R0.conjugate().toRotationMatrix(), d_parent + fromBullet(link.m_eVector));
  if (on_world) joint.X_PJ = basePose(body) * joint.X_PJ;
  if (type == JointType::Revolute || type == JointType::Prismatic || type == JointType::Planar) {
    joint.axis = jointAxis(link, type, where);
  }
  if (const auto limit = constraints.limits.find(b); limit != constraints.limits.end()) {
    joint.limits.lower = limit->second.first;
    joint.limits.upper = limit->second.second;
  }
  if (link.m_jointMaxForce > 0.0) joint.limits.effort = link.m_jointMaxForce;
  if (link.m_jointMaxVelocity > 0.0) joint.limits.velocity = link.m_jointMaxVelocity;
  joint.limits.damping = link.m_jointDamping;
  joint.limits.friction = link.m_jointFriction;
  description.joints.push_back(joint);
}

/// Each model link's Bullet link and Bullet's COM frame in its frame (header).
MultiBodyLayout layoutOf(const Model& model, const btMultiBody& body, const Names& names) {
  std::map<std::string, int> bullet_index{{names.base, kBase}};
  for (int b = 0; b < body.getNumLinks(); ++b) bullet_index[names.links[b]] = b;
  MultiBodyLayout layout;
  layout.root_is_base = !baseLeftOut(body);
  layout.num_bullet_links = body.getNumLinks();
  for (int k = 0; k < model.numLinks(); ++k) {
    const int b = bullet_index.at(model.link_names[k]);
    const Vector3 d = b == kBase ? Vector3::Zero() : fromBullet(body.getLink(b).m_dVector);
    const Vector3 inertia =
        b == kBase ? fromBullet(body.getBaseInertia()) : fromBullet(body.getLink(b).m_inertiaLocal);
    layout.bullet_link.push_back(b);
    layout.X_LB.emplace_back(Matrix3::Identity(), d);
    layout.Q_LB.push_back(Quaternion::Identity());
    layout.I_Bcm_B.push_back(inertia);
  }
  return layout;
}

/// @throws WorldError for a joint of the model btMultiBody cannot hold as it is (a planar axis
/// Bullet would scale).
void checkRepresentable(const Model& model, const MultiBodyLayout& layout) {
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    std::string refusal;
    joints::dispatch(joint, [&](auto kernel) {
      refusal = decltype(kernel)::multiBodyRefusal(joint, layout.X_LB[k]);
    });
    if (!refusal.empty()) {
      throw WorldError("inferModelFromMultiBody: " + std::string(toString(joint.type)) +
                       " joint " + quoted(joint.name) + " of link " + quoted(model.link_names[k]) +
                       ": " + refusal);
    }
  }
}

/// The body's settings, and a warning for each that changes the motion.
MultiBodySettings settingsOf(const btMultiBody& body, std::vector<std::string>& warnings) {
  MultiBodySettings settings;
  settings.linear_damping = body.getLinearDamping();
  settings.angular_damping = body.getAngularDamping();
  settings.max_coordinate_velocity = body.getMaxCoordinateVelocity();
  settings.gyro_term = body.getUseGyroTerm();
  settings.can_sleep = body.getCanSleep();
  if (settings.linear_damping != 0.0 || settings.angular_damping != 0.0) {
    warnings.push_back("the body's damping (linear " + text(settings.linear_damping) +
                       ", angular " + text(settings.angular_damping) +
                       ") slows every link each step; the model has none (setLinearDamping(0), "
                       "setAngularDamping(0) remove it)");
  }
  if (settings.max_coordinate_velocity < 1e6) {
    warnings.push_back("every generalized velocity is clamped to +-" +
                       text(settings.max_coordinate_velocity) +
                       " (setMaxCoordinateVelocity); the model has no clamp");
  }
  if (!settings.gyro_term) {
    warnings.push_back("the gyroscopic term is off (setUseGyroTerm(false)); the model has it");
  }
  return settings;
}

/// @throws WorldError when the body's dof count is not its links' (a link set up twice counts its
/// dofs twice in btMultiBody).
void checkDofCount(const btMultiBody& body) {
  int dofs = 0;
  for (int b = 0; b < body.getNumLinks(); ++b) dofs += body.getLink(b).m_dofCount;
  if (dofs != body.getNumDofs()) {
    throw WorldError("inferModelFromMultiBody: the body counts " +
                     std::to_string(body.getNumDofs()) + " dofs, its links " +
                     std::to_string(dofs) + " (a link set up twice?)");
  }
}

}  // namespace

InferredMultiBody inferModelFromMultiBody(btMultiBody& body,
                                          const MultiBodyInferenceOptions& options) {
  checkDofCount(body);
  const Names names = namesOf(body);
  InferredMultiBody inferred;
  ConstraintReading constraints;
  if (options.world != nullptr) constraints = readConstraints(*options.world, body, names);
  RobotDescription description;
  description.name = !options.name.empty() ? options.name
                     : body.getBaseName() != nullptr && *body.getBaseName() != '\0'
                         ? names.base
                         : "multibody";
  description.source = options.source;
  if (!baseLeftOut(body)) describeBase(body, names, description);
  for (int b = 0; b < body.getNumLinks(); ++b) {
    describeLink(body, b, names, constraints, description);
  }
  ModelOptions model_options;
  model_options.merge_fixed_joints = options.merge_fixed_joints;
  model_options.floating_base = !body.hasFixedBase();
  model_options.gravity_W = options.world != nullptr ? fromBullet(options.world->getGravity())
                                                     : options.gravity_W;
  inferred.model = buildModel(description, model_options);
  inferred.layout = layoutOf(inferred.model, body, names);
  checkRepresentable(inferred.model, inferred.layout);
  getMultiBodyState(inferred.model, inferred.layout, body, inferred.q, inferred.v);
  inferred.settings = settingsOf(body, inferred.warnings);
  for (std::string& warning : constraints.warnings) inferred.warnings.push_back(warning);
  return inferred;
}

GCBRIDGE_BULLET_NAMESPACE_END
