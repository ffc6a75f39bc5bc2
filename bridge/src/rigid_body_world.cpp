#include "gcbridge/bridge/rigid_body_world.hpp"

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <BulletDynamics/ConstraintSolver/btConeTwistConstraint.h>
#include <BulletDynamics/ConstraintSolver/btFixedConstraint.h>
#include <BulletDynamics/ConstraintSolver/btHingeConstraint.h>
#include <BulletDynamics/ConstraintSolver/btPoint2PointConstraint.h>
#include <BulletDynamics/ConstraintSolver/btSliderConstraint.h>
#include <BulletDynamics/ConstraintSolver/btUniversalConstraint.h>

#include <cmath>
#include <string>

#include "bullet_conversions.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "joints/dispatch.hpp"
#include "joints/universal.hpp"
#include "link_shapes.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

namespace {

using detail::quoted;
using detail::toBullet;
using detail::toBulletTransform;

/// The link a bodiless (massless) link's single child is, after checking that the pair is a
/// universal joint: two revolute joints, orthogonal axes, coincident pivots.
int universalChild(const Model& model, int k) {
  const std::string where = "buildRigidBodyWorld: link " + quoted(model.link_names[k]);
  const Joint& first = model.joints[k];
  if (model.children[k].size() != 1 || first.type != JointType::Revolute) {
    throw InvalidArgumentError(
        where +
        " is massless; a massless link cannot be a Bullet body, and it is not the middle "
        "of a universal joint (one revolute joint in, one revolute joint out)");
  }
  const int c = model.children[k][0];
  const Joint& second = model.joints[c];
  if (second.type != JointType::Revolute || model.inertias[c].mass() <= 0.0) {
    throw InvalidArgumentError(where + " is massless and its child " + quoted(model.link_names[c]) +
                               " is not a massive link on a revolute joint; only a universal "
                               "joint (revolute, massless link, revolute) can be built");
  }
  const Vector3 w = second.X_PJ.rotation() * second.axis;
  if (second.X_PJ.translation().norm() > 1e-12 || std::abs(first.axis.dot(w)) > 1e-9) {
    throw InvalidArgumentError("buildRigidBodyWorld: joints " + quoted(first.name) + " and " +
                               quoted(second.name) + " through massless link " +
                               quoted(model.link_names[k]) +
                               " are not a universal joint: the pivots must coincide and the "
                               "axes be orthogonal");
  }
  return c;
}

/// Everything buildRigidBodyWorld rejects, checked before anything is allocated.
void checkModel(const Model& model, const RigidBodyOptions& options) {
  const int nlinks = model.numLinks();
  if (nlinks == 0) {
    throw InvalidArgumentError("buildRigidBodyWorld: model " + quoted(model.name) + " has no link");
  }
  if (!(options.substep > 0.0) || !std::isfinite(options.substep) ||
      options.solver_iterations < 1 || !(options.erp >= 0.0 && options.erp <= 1.0) ||
      !(options.cfm >= 0.0) || !(options.linear_damping >= 0.0) ||
      !(options.angular_damping >= 0.0)) {
    throw InvalidArgumentError(
        "buildRigidBodyWorld: options need substep > 0, solver_iterations >= 1, erp in [0, 1], "
        "cfm >= 0 and damping >= 0");
  }
  for (int k = 0; k < nlinks; ++k) {
    const Joint& joint = model.joints[k];
    if ((k == 0 && model.parents[0] != -1) || model.parents[k] < -1 || model.parents[k] >= k) {
      throw InvalidArgumentError("buildRigidBodyWorld: link " + quoted(model.link_names[k]) +
                                 " is not in trees on the world rooted at link 0 and later links, "
                                 "with parents numbered first");
    }
    const bool root_only =
        joints::dispatch(joint, [](auto kernel) { return decltype(kernel)::root_only; });
    if (k != 0 && root_only) {
      throw InvalidArgumentError("buildRigidBodyWorld: " + std::string(toString(joint.type)) +
                                 " joint " + quoted(joint.name) + " is below the root; only the " +
                                 "root can have one");
    }
    Transform X_LB;
    Quaternion Q_LB;
    Vector3 I_Bcm_B;
    detail::principalFrame(model, k, "buildRigidBodyWorld", X_LB, Q_LB, I_Bcm_B);
    if (k == 0 && joint.nv == 0) continue;  // a static root
    if (model.inertias[k].mass() <= 0.0) {
      if (I_Bcm_B.norm() > 0.0) {
        throw InvalidArgumentError("buildRigidBodyWorld: link " + quoted(model.link_names[k]) +
                                   " has zero mass but a non-zero inertia");
      }
      universalChild(model, k);
    } else if (I_Bcm_B.minCoeff() <= 0.0) {
      // Bullet reads a zero moment as an infinite one (its inverse is set to 0).
      throw InvalidArgumentError(
          "buildRigidBodyWorld: link " + quoted(model.link_names[k]) +
          " has a zero principal moment of inertia; Bullet would lock its rotation about that "
          "axis (btRigidBody::setMassProps inverts only non-zero moments)");
    }
  }
}

/// The model's description joint of a model joint (for swing/twist limits), or nullptr.
const JointDescription* describedJoint(const Model& model, int k) {
  if (!model.description) return nullptr;
  const int j = model.description->findJoint(model.joints[k].name);
  return j < 0 ? nullptr : &model.description->joints[j];
}

}  // namespace

RigidBodyWorld::~RigidBodyWorld() {
  map.reset();
  if (world) {
    for (auto& constraint : constraints) world->removeConstraint(constraint.get());
    for (auto& body : bodies) world->removeRigidBody(body.get());
  }
  // The world before what it points at; shapes and bodies after the world.
  world.reset();
}

void RigidBodyWorld::step() { world->stepSimulation(options.substep, 1, options.substep); }

namespace {

/// The world and what it runs on, empty, with the model's gravity and the options' solver
/// settings.
std::unique_ptr<RigidBodyWorld> makeWorld(const Model& model, const RigidBodyOptions& options) {
  auto w = std::make_unique<RigidBodyWorld>();
  w->options = options;
  w->collision_configuration = std::make_unique<btDefaultCollisionConfiguration>();
  w->dispatcher = std::make_unique<btCollisionDispatcher>(w->collision_configuration.get());
  w->broadphase = std::make_unique<btDbvtBroadphase>();
  w->solver = std::make_unique<btSequentialImpulseConstraintSolver>();
  w->world = std::make_unique<btDiscreteDynamicsWorld>(
      w->dispatcher.get(), w->broadphase.get(), w->solver.get(), w->collision_configuration.get());
  w->world->setGravity(toBullet(model.gravity_W));
  w->world->getSolverInfo().m_numIterations = options.solver_iterations;
  w->world->getSolverInfo().m_erp = options.erp;
  w->world->getSolverInfo().m_globalCfm = options.cfm;
  return w;
}

/// One body per link at the pose the model's kinematics gives (data.X_WB), but for a universal
/// joint's massless middle link; a fixed root is a static body.
std::vector<btRigidBody*> addBodies(const Model& model, const Data& data,
                                    const std::vector<Transform>& X_LB,
                                    const std::vector<Vector3>& I_Bcm_B, RigidBodyWorld& w) {
  std::vector<btRigidBody*> bodies(model.numLinks(), nullptr);
  detail::LinkShapeStore store;
  for (int k = 0; k < model.numLinks(); ++k) {
    const bool static_root = k == 0 && model.joints[0].nv == 0;
    if (!static_root && model.inertias[k].mass() <= 0.0) continue;  // a universal's middle link
    btCollisionShape* shape =
        w.options.collision_shapes
            ? detail::makeLinkShape(model, k, X_LB[k], "buildRigidBodyWorld", store)
            : detail::makeEmptyShape(store);
    // The world owns the shapes (the store's mesh table keeps pointing at them).
    for (auto& made : store.shapes) w.shapes.push_back(std::move(made));
    store.shapes.clear();
    const double mass = static_root ? 0.0 : model.inertias[k].mass();
    btRigidBody::btRigidBodyConstructionInfo info(
        mass, nullptr, shape, static_root ? btVector3(0, 0, 0) : toBullet(I_Bcm_B[k]));
    info.m_startWorldTransform = toBulletTransform(data.X_WB[k] * X_LB[k]);
    info.m_linearDamping = w.options.linear_damping;
    info.m_angularDamping = w.options.angular_damping;
    w.bodies.push_back(std::make_unique<btRigidBody>(info));
    btRigidBody* body = w.bodies.back().get();
    body->setActivationState(DISABLE_DEACTIVATION);
    w.world->addRigidBody(body);
    bodies[k] = body;
  }
  return bodies;
}

/// Every pair of the model's bodies exempt from collision with each other.
void ignoreSelfCollisions(const std::vector<btRigidBody*>& bodies) {
  for (std::size_t a = 0; a < bodies.size(); ++a) {
    for (std::size_t b = a + 1; b < bodies.size(); ++b) {
      if (bodies[a] == nullptr || bodies[b] == nullptr) continue;
      bodies[a]->setIgnoreCollisionCheck(bodies[b], true);
      bodies[b]->setIgnoreCollisionCheck(bodies[a], true);
    }
  }
}

/// One constraint per joint, made by its bridge kernel with the joint frame in the two bodies'
/// frames at q = 0 (the child frame C is J there); one btUniversalConstraint for a universal
/// joint's two; none for a root that is free or static.
void addConstraints(const Model& model, const Data& data, const std::vector<btRigidBody*>& bodies,
                    const std::vector<Transform>& X_LB, RigidBodyWorld& w,
                    std::vector<btTypedConstraint*>& constraints, std::vector<bool>& parent_is_a) {
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    if (p >= 0 && bodies[p] == nullptr) continue;  // a universal's second joint, made with k
    btRigidBody& parent = p < 0 ? btTypedConstraint::getFixedBody() : *bodies[p];
    joints::BuiltConstraint built;
    if (bodies[k] == nullptr) {
      const int c = universalChild(model, k);
      built = joints::Universal::makeConstraint(parent, *bodies[c], data.X_WB[k],
                                                data.X_WB[k].rotation() * joint.axis,
                                                data.X_WB[c].rotation() * model.joints[c].axis);
      constraints[c] = built.constraint.get();
      parent_is_a[c] = !built.parent_is_a;
    } else if (k == 0 && joint.nv == 0) {
      continue;  // a static root
    } else {
      const joints::ConstraintSite site{model,
                                        k,
                                        parent,
                                        *bodies[k],
                                        p < 0 ? joint.X_PJ : X_LB[p].inverse() * joint.X_PJ,
                                        X_LB[k].inverse(),
                                        describedJoint(model, k)};
      joints::dispatch(joint, [&](auto kernel) { built = decltype(kernel)::makeConstraint(site); });
      if (!built.constraint) continue;  // a free root
    }
    constraints[k] = built.constraint.get();
    parent_is_a[k] = built.parent_is_a;
    w.world->addConstraint(constraints[k], /*disableCollisionsBetweenLinkedBodies=*/true);
    w.constraints.push_back(std::move(built.constraint));
  }
}

}  // namespace

std::unique_ptr<RigidBodyWorld> buildRigidBodyWorld(const Model& model,
                                                    const RigidBodyOptions& options,
                                                    const Eigen::VectorXd& q,
                                                    const Eigen::VectorXd& v) {
  // Everything that can reject the model or the state runs before anything is allocated.
  checkModel(model, options);
  const Eigen::VectorXd q0 = q.size() == 0 ? neutralConfiguration(model) : q;
  const Eigen::VectorXd v0 = v.size() == 0 ? Eigen::VectorXd::Zero(model.nv) : v;
  validateConfiguration(model, q0);
  validateVelocity(model, v0);
  const int nlinks = model.numLinks();
  auto w = makeWorld(model, options);
  // Bodies and constraints at the neutral configuration, where the constraint frames are read.
  Data data(model);
  forwardKinematics(model, data, neutralConfiguration(model));
  std::vector<Transform> X_LB(nlinks);
  std::vector<Vector3> I_Bcm_B(nlinks);
  for (int k = 0; k < nlinks; ++k) {
    Quaternion Q_LB;
    detail::principalFrame(model, k, "buildRigidBodyWorld", X_LB[k], Q_LB, I_Bcm_B[k]);
  }
  std::vector<btRigidBody*> bodies = addBodies(model, data, X_LB, I_Bcm_B, *w);
  if (!options.self_collision) ignoreSelfCollisions(bodies);
  std::vector<btTypedConstraint*> constraints(nlinks, nullptr);
  std::vector<bool> parent_is_a(nlinks, false);
  addConstraints(model, data, bodies, X_LB, *w, constraints, parent_is_a);
  // A ground plane for contacts.
  if (options.ground_plane) {
    w->shapes.push_back(std::make_unique<btStaticPlaneShape>(btVector3(0, 0, 1), 0));
    btRigidBody::btRigidBodyConstructionInfo info(0.0, nullptr, w->shapes.back().get());
    w->bodies.push_back(std::make_unique<btRigidBody>(info));
    w->world->addRigidBody(w->bodies.back().get());
  }
  // The map, and the state.
  w->map = std::make_unique<RigidBodyMap>(model, w->world.get(), std::move(bodies), std::move(X_LB),
                                          std::move(constraints), std::move(parent_is_a));
  BridgeData bdata(model);
  writeState(model, *w->map, bdata, q0, v0);
  return w;
}

GCBRIDGE_BULLET_NAMESPACE_END
