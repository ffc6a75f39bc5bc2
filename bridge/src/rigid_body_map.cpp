#include "gcbridge/bridge/rigid_body_map.hpp"

#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>

#include <cmath>
#include <mutex>
#include <string>
#include <unordered_map>

#include "bullet_conversions.hpp"
#include "joints/dispatch.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

namespace {

using detail::quoted;

/// How far a universal joint's pivots may be apart [m] and its axes from orthogonal (cosine):
/// round-off of frames read from Bullet in its precision.
constexpr double kUniversalTolerance = sizeof(btScalar) == 8 ? 1e-9 : 1e-4;

/// The bodies every live map has claimed, with the claiming model's name.
struct ClaimRegistry {
  std::mutex mutex;
  std::unordered_map<const btCollisionObject*, std::string> owner;
};

ClaimRegistry& claims() {
  static ClaimRegistry registry;
  return registry;
}

/// Whether every value is finite: x * 0 is 0 for finite x and NaN otherwise, and a sum with a
/// NaN is NaN.
bool finiteState(const btRigidBody& body) {
  const btTransform& X = body.getCenterOfMassTransform();
  const btVector3 sum = X.getOrigin() * 0 + X.getBasis()[0] * 0 + X.getBasis()[1] * 0 +
                        X.getBasis()[2] * 0 + body.getLinearVelocity() * 0 +
                        body.getAngularVelocity() * 0;
  return sum.x() + sum.y() + sum.z() == 0;
}

/// The list a btDiscreteDynamicsWorld (or a subclass) keeps its added constraints in, the one it
/// solves, or nullptr for a world of another kind. Read directly because getConstraint is a
/// virtual call into Bullet's library per constraint (a subclass's override of it is bypassed).
/// The list is protected: a pointer to member named through a derived class is the legal way in.
struct ConstraintList : btDiscreteDynamicsWorld {
  static const btAlignedObjectArray<btTypedConstraint*>* of(btDynamicsWorld* world) {
    const auto* discrete = dynamic_cast<const btDiscreteDynamicsWorld*>(world);
    return discrete != nullptr ? &(discrete->*(&ConstraintList::m_constraints)) : nullptr;
  }
};

/// The world's collision objects and constraints as a check reads them, taken out of the world
/// once: the check's stores (the constraint hints) could alias the arrays' sizes and make every
/// iteration load them again.
struct WorldArrays {
  btDynamicsWorld& world;
  const btCollisionObject* const* objects;
  int num_objects;
  /// The world's list of constraints, or nullptr: then through getConstraint.
  btTypedConstraint* const* constraints;
  int num_constraints;

  WorldArrays(btDynamicsWorld& w, const btAlignedObjectArray<btTypedConstraint*>* list)
      : world(w),
        objects(w.getNumCollisionObjects() > 0 ? &w.getCollisionObjectArray()[0] : nullptr),
        num_objects(w.getNumCollisionObjects()),
        constraints(list != nullptr && list->size() > 0 ? &(*list)[0] : nullptr),
        num_constraints(list != nullptr ? list->size() : w.getNumConstraints()) {}

  /// Whether the body is among the collision objects (O(1): Bullet keeps its index).
  bool holds(const btCollisionObject* body) const {
    const int i = body->getWorldArrayIndex();
    return i >= 0 && i < num_objects && objects[i] == body;
  }
  const btTypedConstraint* constraint(int i) const {
    return constraints != nullptr ? constraints[i] : world.getConstraint(i);
  }
  /// Index of the constraint among the world's, or -1 (the hint is tried first).
  int indexOf(const btTypedConstraint* c, int hint) const {
    if (hint >= 0 && hint < num_constraints && constraint(hint) == c) return hint;
    for (int i = 0; i < num_constraints; ++i) {
      if (constraint(i) == c) return i;
    }
    return -1;
  }
};

}  // namespace

RigidBodyMap::RigidBodyMap(const Model& model, btDynamicsWorld* world,
                           std::vector<btRigidBody*> bodies, std::vector<Transform> X_LB,
                           std::vector<btTypedConstraint*> constraints,
                           std::vector<bool> parent_is_a)
    : world_(world),
      constraint_list_(ConstraintList::of(world)),
      bodies_(std::move(bodies)),
      X_LB_(std::move(X_LB)),
      constraints_(std::move(constraints)),
      parent_is_a_(std::move(parent_is_a)),
      model_name_(model.name),
      model_parents_(model.parents) {
  const std::size_t nlinks = static_cast<std::size_t>(model.numLinks());
  if (world_ == nullptr)
    throw WorldError("RigidBodyMap: no world given for model " + quoted(model.name));
  if (bodies_.size() != nlinks || X_LB_.size() != nlinks || constraints_.size() != nlinks ||
      parent_is_a_.size() != nlinks) {
    throw WorldError("RigidBodyMap: model " + quoted(model.name) + " has " +
                     std::to_string(nlinks) + " links but the map was given " +
                     std::to_string(bodies_.size()) + " bodies, " + std::to_string(X_LB_.size()) +
                     " frames, " + std::to_string(constraints_.size()) + " constraints");
  }
  // A link without a body must be the middle of a universal joint: revolute in, one child on a
  // revolute out, coincident pivots, orthogonal axes (the conversions rely on it).
  for (std::size_t k = 0; k < nlinks; ++k) {
    if (bodies_[k] != nullptr) continue;
    const Joint& first = model.joints[k];
    const bool one_child = model.children[k].size() == 1;
    const int c = one_child ? model.children[k][0] : -1;
    const bool universal =
        one_child && first.type == JointType::Revolute && bodies_[c] != nullptr &&
        model.joints[c].type == JointType::Revolute &&
        model.joints[c].X_PJ.translation().norm() <= kUniversalTolerance &&
        std::abs(first.axis.dot(model.joints[c].X_PJ.rotation() * model.joints[c].axis)) <=
            kUniversalTolerance;
    if (!universal) {
      throw WorldError("RigidBodyMap: link " + quoted(model.link_names[k]) + " of model " +
                       quoted(model.name) +
                       " has no body and is not the middle link of a universal joint (revolute "
                       "in, one revolute out to a body, coincident pivots, orthogonal axes)");
    }
  }
  constraint_index_.assign(nlinks, -1);
  for (std::size_t k = 0; k < nlinks; ++k) {
    X_BL_.push_back(X_LB_[k].inverse());
    body_axes_are_link_axes_.push_back(X_LB_[k].rotation().isIdentity(0.0));
    inverse_masses_.push_back(bodies_[k] != nullptr ? bodies_[k]->getInvMass() : 0.0);
    model_joint_types_.push_back(model.joints[k].type);
    model_masses_.push_back(model.inertias[k].mass());
  }
  // Every object in the world and the state finite, before anything is claimed.
  validate(model, "RigidBodyMap", MapCheck::Everything);
  // Claim the bodies, all or none.
  ClaimRegistry& registry = claims();
  std::lock_guard<std::mutex> lock(registry.mutex);
  for (std::size_t k = 0; k < nlinks; ++k) {
    const btRigidBody* body = bodies_[k];
    if (body == nullptr) continue;
    const auto it = registry.owner.find(body);
    std::string other;
    if (it != registry.owner.end()) other = "model " + quoted(it->second);
    for (std::size_t j = 0; j < k && other.empty(); ++j) {
      if (bodies_[j] == body) other = "link " + quoted(model.link_names[j]) + " of this model";
    }
    if (!other.empty()) {
      throw WorldError("RigidBodyMap: the body of link " + quoted(model.link_names[k]) +
                       " of model " + quoted(model.name) + " already belongs to " + other +
                       "; a body can be driven by one model only");
    }
  }
  for (btRigidBody* body : bodies_) {
    if (body != nullptr) registry.owner.emplace(body, model_name_);
  }
}

RigidBodyMap::~RigidBodyMap() { release(); }

RigidBodyMap::RigidBodyMap(RigidBodyMap&& other) noexcept
    : world_(other.world_),
      constraint_list_(other.constraint_list_),
      bodies_(std::move(other.bodies_)),
      X_LB_(std::move(other.X_LB_)),
      X_BL_(std::move(other.X_BL_)),
      body_axes_are_link_axes_(std::move(other.body_axes_are_link_axes_)),
      constraints_(std::move(other.constraints_)),
      parent_is_a_(std::move(other.parent_is_a_)),
      inverse_masses_(std::move(other.inverse_masses_)),
      constraint_index_(std::move(other.constraint_index_)),
      model_name_(std::move(other.model_name_)),
      model_parents_(std::move(other.model_parents_)),
      model_joint_types_(std::move(other.model_joint_types_)),
      model_masses_(std::move(other.model_masses_)) {
  other.bodies_.clear();
}

RigidBodyMap& RigidBodyMap::operator=(RigidBodyMap&& other) noexcept {
  if (this != &other) {
    release();
    world_ = other.world_;
    constraint_list_ = other.constraint_list_;
    bodies_ = std::move(other.bodies_);
    X_LB_ = std::move(other.X_LB_);
    X_BL_ = std::move(other.X_BL_);
    body_axes_are_link_axes_ = std::move(other.body_axes_are_link_axes_);
    constraints_ = std::move(other.constraints_);
    parent_is_a_ = std::move(other.parent_is_a_);
    inverse_masses_ = std::move(other.inverse_masses_);
    constraint_index_ = std::move(other.constraint_index_);
    model_name_ = std::move(other.model_name_);
    model_parents_ = std::move(other.model_parents_);
    model_joint_types_ = std::move(other.model_joint_types_);
    model_masses_ = std::move(other.model_masses_);
    other.bodies_.clear();
  }
  return *this;
}

void RigidBodyMap::release() {
  ClaimRegistry& registry = claims();
  std::lock_guard<std::mutex> lock(registry.mutex);
  for (const btRigidBody* body : bodies_) {
    if (body != nullptr) registry.owner.erase(body);
  }
  bodies_.clear();
}

int RigidBodyMap::linkOf(const btCollisionObject* object) const {
  for (int k = 0; k < numLinks(); ++k) {
    if (bodies_[k] == object) return k;
  }
  return -1;
}

void RigidBodyMap::validate(const Model& model, const char* function, MapCheck check) const {
  const int nlinks = numLinks();
  if (nlinks != model.numLinks() || model.name != model_name_) {
    throw WorldError(std::string(function) + ": the map was made for model " + quoted(model_name_) +
                     " (" + std::to_string(nlinks) + " links), not for model " +
                     quoted(model.name) + " (" + std::to_string(model.numLinks()) + " links)");
  }
  // The checks are cheap (the tree compared at once, the types and masses without a branch);
  // the messages are built only when one fails.
  bool same_model = check == MapCheck::World || model.parents == model_parents_;
  for (int k = 0; k < nlinks && check != MapCheck::World; ++k) {
    same_model &= model.joints[k].type == model_joint_types_[k];
    same_model &= model.inertias[k].mass() == model_masses_[k];
  }
  for (int k = 0; k < nlinks && !same_model; ++k) {
    const Joint& joint = model.joints[k];
    if (model.parents[k] == model_parents_[k] && joint.type == model_joint_types_[k] &&
        model.inertias[k].mass() == model_masses_[k]) {
      continue;
    }
    const auto describe = [&](int parent, JointType type, double mass) {
      return std::string(toString(type)) + " joint to " +
             (parent < 0 ? std::string("the world") : quoted(model.link_names[parent])) +
             ", mass " + std::to_string(mass);
    };
    throw WorldError(std::string(function) + ": link " + quoted(model.link_names[k]) +
                     " of model " + quoted(model.name) + " has a " +
                     describe(model.parents[k], joint.type, model.inertias[k].mass()) +
                     "; the map was made for a model of that name with a " +
                     describe(model_parents_[k], model_joint_types_[k], model_masses_[k]));
  }
  const auto bodyError = [&](int k, const std::string& what) {
    return WorldError(std::string(function) + ": the body of link " + quoted(model.link_names[k]) +
                      " " + what);
  };
  const auto constraintError = [&](int k, const std::string& what) {
    return WorldError(std::string(function) + ": the constraint of joint " +
                      quoted(model.joints[k].name) + " " + what);
  };
  const WorldArrays arrays(*world_, constraint_list_);
  for (int k = 0; k < nlinks; ++k) {
    const btRigidBody* body = bodies_[k];
    if (body != nullptr) {
      if (!arrays.holds(body)) throw bodyError(k, "is no longer in the world");
      if (body->getInvMass() != inverse_masses_[k]) {
        throw bodyError(k, "has inverse mass " + std::to_string(body->getInvMass()) + " but had " +
                               std::to_string(inverse_masses_[k]) +
                               " when the map was made; rebuild the model and map");
      }
      if (check == MapCheck::Everything && !finiteState(*body)) {
        throw bodyError(k, "has a NaN or infinite pose or velocity");
      }
    }
    const btTypedConstraint* constraint = constraints_[k];
    if (constraint != nullptr) {
      int& hint = constraint_index_[k];
      const int index = arrays.indexOf(constraint, hint);
      if (index < 0) throw constraintError(k, "is no longer in the world");
      if (index != hint) hint = index;
      if (!constraint->isEnabled()) {
        throw constraintError(k,
                              "is disabled (broken by its breaking impulse threshold or by "
                              "setEnabled(false)); the joint no longer holds");
      }
    }
  }
}

BridgeData::BridgeData(const Model& model)
    : model_name(model.name),
      num_links(model.numLinks()),
      nq(model.nq),
      nv(model.nv),
      dynamics(model),
      q_previous(Eigen::VectorXd::Zero(model.nq)),
      X_WL(model.numLinks()),
      omega_WB_W(model.numLinks(), Vector3::Zero()),
      v_WBcm_W(model.numLinks(), Vector3::Zero()),
      velocity_residual(Eigen::VectorXd::Zero(model.numLinks())),
      joint_errors(model.numLinks()),
      force_W(model.numLinks(), Vector3::Zero()),
      torque_W(model.numLinks(), Vector3::Zero()),
      applied_force_W(model.numLinks(), Vector3::Zero()),
      applied_torque_W(model.numLinks(), Vector3::Zero()) {
  Internals& own = internals_;
  own.X_WL_read = X_WL;
  own.omega_WB_W_read = omega_WB_W;
  own.v_WBcm_W_read = v_WBcm_W;
  own.joint_axis_P.assign(model.numLinks(), Vector3::Zero());
  own.revolute_axis_cross_P.assign(model.numLinks(), Matrix3::Zero());
  own.revolute_cosine_P.assign(model.numLinks(), Matrix3::Zero());
  own.q_scratch = Eigen::VectorXd::Zero(model.nq);
  own.v_scratch = Eigen::VectorXd::Zero(model.nv);
  own.staged_angles.reserve(model.numLinks());
  own.staged_rotations.reserve(model.numLinks());
  own.takes_force.assign(model.numLinks(), 0);
  own.sum_wrenches_first = sizeof(btScalar) < sizeof(double);
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    joints::dispatch(joint, [&](auto kernel) {
      using K = decltype(kernel);
      if (K::wrench_may_throw) own.sum_wrenches_first = true;
      if (K::torque_only || joint.nv == 0) return;
      own.takes_force[k] = 1;
      if (model.parents[k] >= 0) own.takes_force[model.parents[k]] = 1;
    });
    if (!jointUsesAxis(joint.type)) continue;
    own.joint_axis_P[k] = joint.X_PJ.rotation() * joint.axis;
    own.revolute_axis_cross_P[k] = joint.X_PJ.rotation() * skew(joint.axis);
    own.revolute_cosine_P[k] = joint.X_PJ.rotation() - own.joint_axis_P[k] * joint.axis.transpose();
  }
}

void checkBridgeData(const Model& model, const BridgeData& bdata, const char* function) {
  if (bdata.num_links == model.numLinks() && bdata.nq == model.nq && bdata.nv == model.nv &&
      bdata.model_name == model.name) {
    return;
  }
  const auto describe = [](const std::string& name, int links, int nq, int nv) {
    return quoted(name) + " (" + std::to_string(links) + " links, nq " + std::to_string(nq) +
           ", nv " + std::to_string(nv) + ")";
  };
  throw InvalidArgumentError(std::string(function) + ": the BridgeData was made for model " +
                             describe(bdata.model_name, bdata.num_links, bdata.nq, bdata.nv) +
                             ", not for model " +
                             describe(model.name, model.numLinks(), model.nq, model.nv) +
                             "; make one BridgeData per model and map");
}

GCBRIDGE_BULLET_NAMESPACE_END
