#include "gcbridge/bridge/multibody_builder.hpp"

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>

#include <cmath>
#include <string>

#include "bullet_conversions.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/joint.hpp"
#include "joints/dispatch.hpp"
#include "link_shapes.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

namespace {

using detail::fromBullet;
using detail::quoted;
using detail::toBullet;

/// f(kernel) for the bridge kernel of `joint`, which makeMultiBodyLayout accepted (a kernel that
/// btMultiBody cannot represent is never called).
template <typename F>
void forMultiBodyJoint(const Joint& joint, F&& f) {
  joints::dispatch(joint, [&](auto kernel) {
    if constexpr (decltype(kernel)::in_multibody) f(kernel);
  });
}

/// Whether the root's joint is free: then the base floats.
bool floatingBase(const Model& model) {
  return joints::dispatch(model.joints[0], [](auto kernel) { return decltype(kernel)::root_only; });
}

/// Checks that the body and layout were made for this model.
void checkMatches(const Model& model, const MultiBodyLayout& layout, const btMultiBody& body,
                  const char* function) {
  const int nlinks = model.numLinks();
  const bool floating = nlinks > 0 && floatingBase(model);
  const int bullet_dofs = floating ? model.nv - 6 : model.nv;
  if (static_cast<int>(layout.X_LB.size()) != nlinks ||
      static_cast<int>(layout.Q_LB.size()) != nlinks ||
      static_cast<int>(layout.bullet_link.size()) != nlinks ||
      body.getNumLinks() != layout.num_bullet_links || body.getNumDofs() != bullet_dofs ||
      body.hasFixedBase() == floating) {
    throw InvalidArgumentError(
        std::string(function) + ": the btMultiBody (" + std::to_string(body.getNumLinks()) +
        " links, " + std::to_string(body.getNumDofs()) + " dofs) or its layout (" +
        std::to_string(layout.X_LB.size()) + " links) was not built from model " +
        quoted(model.name) + " (" + std::to_string(nlinks) + " links, nv " +
        std::to_string(model.nv) + ")");
  }
}

/// Model link k as Bullet link `layout.bulletLink(k)`, for its bridge kernel.
joints::MultiBodySite site(const Model& model, const MultiBodyLayout& layout, int k) {
  return joints::MultiBodySite{model, layout, k, layout.bulletLink(k)};
}

}  // namespace

MultiBodyWorld::~MultiBodyWorld() {
  for (const auto& collider : colliders) {
    if (world) world->removeCollisionObject(collider.get());
    if (!body) continue;
    if (collider->m_link < 0) {
      body->setBaseCollider(nullptr);
    } else {
      body->getLink(collider->m_link).m_collider = nullptr;
    }
  }
  if (world && body) world->removeMultiBody(body.get());
}

MultiBodyLayout makeMultiBodyLayout(const Model& model) {
  const int nlinks = model.numLinks();
  if (nlinks == 0) {
    throw InvalidArgumentError("buildMultiBody: model " + quoted(model.name) + " has no link");
  }
  if (static_cast<int>(model.joints.size()) != nlinks ||
      static_cast<int>(model.inertias.size()) != nlinks ||
      static_cast<int>(model.link_names.size()) != nlinks) {
    throw InvalidArgumentError("buildMultiBody: model " + quoted(model.name) +
                               " has inconsistent link, joint and inertia counts");
  }
  // Trees on the world, rooted at link 0 and any later link attached to the world (they then
  // hang from a massless fixed base), parents numbered first.
  if (model.parents[0] != -1) {
    throw InvalidArgumentError("buildMultiBody: link " + quoted(model.link_names[0]) +
                               " (link 0) is not attached to the world; btMultiBody needs the "
                               "root first");
  }
  bool several_roots = false;
  for (int k = 1; k < nlinks; ++k) {
    if (model.parents[k] == -1) {
      several_roots = true;
      continue;
    }
    if (model.parents[k] < -1 || model.parents[k] >= k) {
      throw InvalidArgumentError("buildMultiBody: link " + quoted(model.link_names[k]) +
                                 " is numbered before its parent; links must be numbered "
                                 "parents first");
    }
  }
  MultiBodyLayout layout;
  layout.X_LB.resize(nlinks);
  layout.Q_LB.resize(nlinks);
  layout.I_Bcm_B.resize(nlinks);
  for (int k = 0; k < nlinks; ++k) {
    detail::principalFrame(model, k, "buildMultiBody", layout.X_LB[k], layout.Q_LB[k],
                           layout.I_Bcm_B[k]);
  }
  // Joints btMultiBody can represent.
  for (int k = 0; k < nlinks; ++k) {
    const Joint& joint = model.joints[k];
    std::string refusal;
    joints::dispatch(joint, [&](auto kernel) {
      using K = decltype(kernel);
      refusal = (k != 0 || several_roots) && K::root_only
                    ? "it is below the root or one of several roots; only a single root can "
                      "have one"
                    : K::multiBodyRefusal(joint, layout.X_LB[k]);
    });
    if (!refusal.empty()) {
      throw InvalidArgumentError("buildMultiBody: " + std::string(toString(joint.type)) +
                                 " joint " + quoted(joint.name) + ": " + refusal);
    }
  }
  // A single fixed or free root is Bullet's base; any other, and several roots, hang from a
  // massless fixed base.
  layout.root_is_base =
      !several_roots &&
      (model.joints[0].nv == 0 ||
       joints::dispatch(model.joints[0], [](auto kernel) { return decltype(kernel)::root_only; }));
  const int first = layout.root_is_base ? -1 : 0;
  layout.bullet_link.resize(nlinks);
  for (int k = 0; k < nlinks; ++k) layout.bullet_link[k] = first + k;
  layout.num_bullet_links = first + nlinks;
  return layout;
}

namespace {

/// The world and what it runs on, empty, with the model's gravity.
std::unique_ptr<MultiBodyWorld> makeWorld(const Model& model) {
  auto w = std::make_unique<MultiBodyWorld>();
  w->collision_configuration = std::make_unique<btDefaultCollisionConfiguration>();
  w->dispatcher = std::make_unique<btCollisionDispatcher>(w->collision_configuration.get());
  w->broadphase = std::make_unique<btDbvtBroadphase>();
  w->solver = std::make_unique<btMultiBodyConstraintSolver>();
  w->world = std::make_unique<btMultiBodyDynamicsWorld>(
      w->dispatcher.get(), w->broadphase.get(), w->solver.get(), w->collision_configuration.get());
  w->world->setGravity(toBullet(model.gravity_W));
  return w;
}

/// Each link's joint set up by its bridge kernel, its frame and axis in Bullet's B frames (the
/// header's table).
void setUpLinks(const Model& model, const MultiBodyLayout& layout, btMultiBody& body) {
  for (int k = 0; k < model.numLinks(); ++k) {
    const int b = layout.bulletLink(k);
    if (b < 0) continue;
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    joints::MultiBodySetup setup;
    setup.mass = model.inertias[k].mass();
    setup.inertia = toBullet(layout.I_Bcm_B[k]);
    setup.parent = p < 0 ? -1 : layout.bulletLink(p);
    // X_BpJ: the joint frame in the parent's B frame (the world base sits at the origin).
    setup.X_BpJ = p < 0 ? joint.X_PJ : layout.X_LB[p].inverse() * joint.X_PJ;
    const Transform& X_LB = layout.X_LB[k];
    // Bullet's rotParentToThis at q = 0 maps parent-B coordinates to child-B ones: R_BpB^T.
    const Matrix3 R_BpB = setup.X_BpJ.rotation() * X_LB.rotation();
    setup.rot_parent_to_this = toBullet(Quaternion(R_BpB.transpose()).normalized());
    // From the parent's COM to the pivot (parent B axes), and from the pivot to this COM (B axes).
    setup.parent_com_to_pivot = toBullet(setup.X_BpJ.translation());
    setup.pivot_to_com = toBullet(X_LB.rotation().transpose() * X_LB.translation());
    forMultiBodyJoint(
        joint, [&](auto kernel) { decltype(kernel)::setupMultiBody(body, b, setup, joint, X_LB); });
  }
}

/// The body's base, link and joint names, pointing into w.names.
void nameBody(const Model& model, const MultiBodyLayout& layout, MultiBodyWorld& w) {
  w.names.reserve(2 * model.numLinks());
  for (int k = 0; k < model.numLinks(); ++k) {
    w.names.push_back(model.link_names[k]);
    w.names.push_back(model.joints[k].name);
  }
  for (int k = 0; k < model.numLinks(); ++k) {
    const int b = layout.bulletLink(k);
    if (b < 0) {
      w.body->setBaseName(w.names[2 * k].c_str());
    } else {
      w.body->getLink(b).m_linkName = w.names[2 * k].c_str();
      w.body->getLink(b).m_jointName = w.names[2 * k + 1].c_str();
    }
  }
}

/// Bullet's damping and clamps (the header's list); a fixed root where its joint puts it.
void configure(const Model& model, const MultiBodyLayout& layout, const MultiBodyOptions& options,
               btMultiBody& body) {
  if (!options.clamp_defaults) {
    body.setLinearDamping(0.0);
    body.setAngularDamping(0.0);
    body.setMaxCoordinateVelocity(BT_LARGE_FLOAT);
    body.setMaxAppliedImpulse(BT_LARGE_FLOAT);
  }
  body.setUseGyroTerm(true);
  body.setCanSleep(false);
  if (layout.root_is_base && !floatingBase(model)) {
    const Transform X_WB = model.joints[0].X_PJ * layout.X_LB[0];
    const Quaternion Q_WB =
        Quaternion(model.joints[0].X_PJ.rotation()).normalized() * layout.Q_LB[0];
    body.setBasePos(toBullet(X_WB.translation()));
    body.setWorldToBaseRot(toBullet(Q_WB.conjugate()));
  }
}

/// MultiBodyOptions::collision_shapes: each link's shape in its B frame (an empty compound
/// without geometry), owned by `store`. @throws InvalidArgumentError for a mesh (makeLinkShape).
std::vector<btCompoundShape*> makeLinkShapes(const Model& model, const MultiBodyLayout& layout,
                                             detail::LinkShapeStore& store) {
  std::vector<btCompoundShape*> shapes(model.numLinks());
  for (int k = 0; k < model.numLinks(); ++k) {
    shapes[k] = detail::makeLinkShape(model, k, layout.X_LB[k], "buildMultiBody", store);
  }
  return shapes;
}

/// A collider per link with a shape, in the broadphase groups pybullet gives a btMultiBody's
/// links (a fixed base's static), no self-collision.
void addColliders(const Model& model, const std::vector<btCompoundShape*>& shapes,
                  MultiBodyWorld& w) {
  btMultiBody& body = *w.body;
  body.setHasSelfCollision(false);
  for (int k = 0; k < model.numLinks(); ++k) {
    if (shapes[k]->getNumChildShapes() == 0) continue;
    const int b = w.layout.bulletLink(k);
    w.colliders.push_back(std::make_unique<btMultiBodyLinkCollider>(&body, b));
    btMultiBodyLinkCollider& collider = *w.colliders.back();
    collider.setCollisionShape(shapes[k]);
    const bool is_static = b < 0 && !floatingBase(model);
    const int group =
        is_static ? int(btBroadphaseProxy::StaticFilter) : int(btBroadphaseProxy::DefaultFilter);
    const int mask = is_static ? int(btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter)
                               : int(btBroadphaseProxy::AllFilter);
    if (b < 0) {
      body.setBaseCollider(&collider);
    } else {
      body.getLink(b).m_collider = &collider;
    }
    w.world->addCollisionObject(&collider, group, mask);
  }
}

}  // namespace

std::unique_ptr<MultiBodyWorld> buildMultiBody(const Model& model, const MultiBodyOptions& options,
                                               const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  // Everything that can reject the model or the state runs before anything is allocated.
  MultiBodyLayout layout = makeMultiBodyLayout(model);
  const Eigen::VectorXd q0 = q.size() == 0 ? neutralConfiguration(model) : q;
  const Eigen::VectorXd v0 = v.size() == 0 ? Eigen::VectorXd::Zero(model.nv) : v;
  validateConfiguration(model, q0);
  validateVelocity(model, v0);
  detail::LinkShapeStore store;
  const std::vector<btCompoundShape*> shapes = options.collision_shapes
                                                   ? makeLinkShapes(model, layout, store)
                                                   : std::vector<btCompoundShape*>{};
  auto w = makeWorld(model);
  w->shapes = std::move(store.shapes);
  // The base: the root link itself (fixed or floating), or a massless fixed body at the origin.
  const int bullet_links = layout.num_bullet_links;
  if (layout.root_is_base) {
    w->body = std::make_unique<btMultiBody>(bullet_links, model.inertias[0].mass(),
                                            toBullet(layout.I_Bcm_B[0]),
                                            /*fixedBase=*/!floatingBase(model),
                                            /*canSleep=*/false);
  } else {
    w->body = std::make_unique<btMultiBody>(bullet_links, 0.0, btVector3(0, 0, 0),
                                            /*fixedBase=*/true, /*canSleep=*/false);
  }
  btMultiBody& body = *w->body;
  setUpLinks(model, layout, body);
  nameBody(model, layout, *w);
  body.finalizeMultiDof();
  configure(model, layout, options, body);
  w->world->addMultiBody(&body);
  w->layout = std::move(layout);
  // The state, with Bullet's cached link transforms up to date.
  setMultiBodyState(model, w->layout, body, q0, v0);
  btAlignedObjectArray<btQuaternion> world_to_local;
  btAlignedObjectArray<btVector3> local_origin;
  body.forwardKinematics(world_to_local, local_origin);
  if (options.collision_shapes) {
    addColliders(model, shapes, *w);
    body.updateCollisionObjectWorldTransforms(world_to_local, local_origin);
  }
  return w;
}

void setMultiBodyState(const Model& model, const MultiBodyLayout& layout, btMultiBody& body,
                       const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  checkMatches(model, layout, body, "setMultiBodyState");
  validateConfiguration(model, q);
  validateVelocity(model, v);
  // A fixed base does not move (Bullet would use a base velocity if one were set).
  if (!floatingBase(model)) {
    body.setBaseOmega(btVector3(0, 0, 0));
    body.setBaseVel(btVector3(0, 0, 0));
  }
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    forMultiBodyJoint(joint, [&](auto kernel) {
      decltype(kernel)::setState(site(model, layout, k), body, q.data() + joint.idx_q,
                                 v.data() + joint.idx_v);
    });
  }
}

void getMultiBodyState(const Model& model, const MultiBodyLayout& layout, const btMultiBody& body,
                       Eigen::VectorXd& q, Eigen::VectorXd& v) {
  checkMatches(model, layout, body, "getMultiBodyState");
  q.resize(model.nq);
  v.resize(model.nv);
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    forMultiBodyJoint(joint, [&](auto kernel) {
      decltype(kernel)::getState(site(model, layout, k), body, q.data() + joint.idx_q,
                                 v.data() + joint.idx_v);
    });
  }
}

std::vector<Transform> multiBodyLinkPoses(const Model& model, const MultiBodyLayout& layout,
                                          btMultiBody& body) {
  checkMatches(model, layout, body, "multiBodyLinkPoses");
  btAlignedObjectArray<btQuaternion> world_to_local;
  btAlignedObjectArray<btVector3> local_origin;
  body.forwardKinematics(world_to_local, local_origin);
  std::vector<Transform> X_WL(model.numLinks());
  for (int k = 0; k < model.numLinks(); ++k) {
    const int b = layout.bulletLink(k);
    const btTransform X_WB =
        b < 0 ? body.getBaseWorldTransform() : body.getLink(b).m_cachedWorldTransform;
    X_WL[k] = fromBullet(X_WB) * layout.X_LB[k].inverse();
  }
  return X_WL;
}

void setMultiBodyJointTorques(const Model& model, const MultiBodyLayout& layout, btMultiBody& body,
                              const Eigen::VectorXd& tau, btVector3* base_force_W,
                              btVector3* base_torque_W) {
  checkMatches(model, layout, body, "setMultiBodyJointTorques");
  validateVelocity(model, tau, "tau");
  if (base_force_W != nullptr) base_force_W->setZero();
  if (base_torque_W != nullptr) base_torque_W->setZero();
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    joints::MultiBodySite s = site(model, layout, k);
    s.base_force_W = base_force_W;
    s.base_torque_W = base_torque_W;
    forMultiBodyJoint(joint, [&](auto kernel) {
      decltype(kernel)::setTorque(s, body, tau.data() + joint.idx_v);
    });
  }
}

void getMultiBodyAcceleration(const Model& model, const MultiBodyLayout& layout,
                              const btMultiBody& body, const btScalar* bullet_accelerations,
                              Eigen::VectorXd& a) {
  checkMatches(model, layout, body, "getMultiBodyAcceleration");
  a.resize(model.nv);
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    // Bullet's accelerations: the base's six first, then the joints' by dof offset.
    const btScalar* accelerations =
        layout.bulletLink(k) < 0 ? bullet_accelerations : bullet_accelerations + 6;
    forMultiBodyJoint(joint, [&](auto kernel) {
      decltype(kernel)::getAcceleration(site(model, layout, k), body, accelerations,
                                        a.data() + joint.idx_v);
    });
  }
}

GCBRIDGE_BULLET_NAMESPACE_END
