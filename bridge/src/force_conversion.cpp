#include "gcbridge/bridge/force_conversion.hpp"

#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>

#include <Eigen/LU>
#include <cmath>
#include <string>

#include "bridge_internals.hpp"
#include "bullet_conversions.hpp"
#include "gcbridge/bridge/detail/unchecked.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/joint.hpp"
#include "joints/dispatch.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

namespace {

using detail::fromBullet;
using detail::toBullet;

/// Requires a configuration in bdata (the kinematics the conversions use).
void requireConfiguration(const BridgeData& bdata, const char* function) {
  if (!bdata.has_previous) {
    throw InvalidArgumentError(std::string(function) +
                               ": call readPositions (or writeState) first; forces are "
                               "converted at its configuration");
  }
}

/// World position of link k's COM (Bullet's body origin) at the link poses in bdata.X_WL.
Vector3 comPosition(const RigidBodyMap& map, const BridgeData& bdata, int k) {
  return bdata.X_WL[k].actPoint(map.X_LB(k).translation());
}

/// Adds a wrench on link k (force f_W at p_W, pure torque t_W, world axes) to the spatial forces
/// f_L (link frames, moment about the link origin) the backward pass reads, expressed with the
/// link pose X_WL (the model's for given wrenches, Bullet's for forces read from Bullet).
void addToLinkForce(const Transform& X_WL, std::vector<Force>& f_L, int k, const Vector3& p_W,
                    const Vector3& f_W, const Vector3& t_W) {
  const Vector3 n_Lo_W = t_W + (p_W - X_WL.translation()).cross(f_W);
  f_L[k] += Force(X_WL.rotation().transpose() * n_Lo_W, X_WL.rotation().transpose() * f_W);
}

/// Q = sum_k J_k^T f_k in one pass from the leaves to the root: each link's accumulated force
/// projected on its joint's motion subspace, then carried to the parent (eq. 67 as RNEA's
/// backward pass). Consumes f_L.
void backwardPass(const Model& model, const BridgeData& bdata, std::vector<Force>& f_L,
                  Eigen::VectorXd& Q) {
  Q.resize(model.nv);
  for (int k = model.numLinks() - 1; k >= 0; --k) {
    const Joint& joint = model.joints[k];
    if (joint.nv > 0) {
      const JointMatrix S = jointMotionSubspace(joint, bdata.q_previous.data() + joint.idx_q);
      Q.segment(joint.idx_v, joint.nv) = S.transpose() * f_L[k].vector();
    }
    const int p = model.parents[k];
    if (p >= 0) f_L[p] += bdata.dynamics.X_PB[k].act(f_L[k]);
  }
}

/// Calls add.torque(b, t_W) or add.wrench(b, f_W, t_W) with each joint's wrench for tau on each
/// of the two bodies across it (the world takes a root's reaction): a force f_W at body b's COM
/// and the moment t_W about it, world axes, at the link poses in bdata.X_WL. A joint whose kernel
/// is torque only gives add.torque alone; the others' forces act at the child's origin Co (on
/// the axis), so they add a moment about each body's COM. A universal's massless middle link
/// passes its share on (to the grandchild for the first joint, to the grandparent for the
/// second).
template <typename AddWrench>
GCBRIDGE_FLATTEN void forEachBodyWrench(const Model& model, const RigidBodyMap& map,
                                        BridgeData& bdata, const Eigen::VectorXd& tau,
                                        AddWrench& add) {
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& joint = model.joints[k];
    if (joint.nv == 0) continue;
    int child = k;
    int parent = model.parents[k];
    if (map.body(k) == nullptr) child = model.children[k][0];
    if (parent >= 0 && map.body(parent) == nullptr) parent = model.parents[parent];
    const joints::RigidSite site{model, map, bdata, k};
    joints::dispatch(joint, [&](auto kernel) {
      using K = decltype(kernel);
      Vector3 f_W, t_W;
      K::wrench(site, tau.data() + joint.idx_v, f_W, t_W);
      if constexpr (K::torque_only) {
        add.torque(child, t_W);
        if (parent >= 0) add.torque(parent, -t_W);
      } else {
        const Vector3& p_WCo = bdata.X_WL[k].translation();
        add.wrench(child, f_W, t_W + (p_WCo - comPosition(map, bdata, child)).cross(f_W));
        if (parent >= 0) {
          add.wrench(parent, -f_W, -t_W - (p_WCo - comPosition(map, bdata, parent)).cross(f_W));
        }
      }
    });
  }
}

/// forEachBodyWrench's sums per body, into bdata.force_W and bdata.torque_W.
struct SumBodyWrenches {
  BridgeData& bdata;
  void torque(int b, const Vector3& t_W) { bdata.torque_W[b] += t_W; }
  void wrench(int b, const Vector3& f_W, const Vector3& t_W) {
    bdata.force_W[b] += f_W;
    bdata.torque_W[b] += t_W;
  }
};

/// forEachBodyWrench's wrenches added to the bodies' accumulators at once, and to what
/// removeJointForces takes out. Static bodies are skipped; b always has a body (the map's rule:
/// only a universal's middle link has none, and forEachBodyWrench passes its share on).
struct ApplyBodyWrenches {
  const RigidBodyMap& map;
  BridgeData& bdata;
  void torque(int b, const Vector3& t_W) { add(b, nullptr, t_W); }
  void wrench(int b, const Vector3& f_W, const Vector3& t_W) { add(b, &f_W, t_W); }
  void add(int b, const Vector3* f_W, const Vector3& t_W) {
    btRigidBody* body = map.body(b);
    if (body->isStaticOrKinematicObject()) return;
    body->applyTorque(toBullet(t_W));
    bdata.applied_torque_W[b] += t_W;
    if (f_W == nullptr) return;
    body->applyCentralForce(toBullet(*f_W));
    bdata.applied_force_W[b] += *f_W;
  }
};

/// jointForcesToBodyWrenches after its checks; `function` names the caller in the error of a
/// joint at a singularity.
void bodyWrenches(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                  const Eigen::VectorXd& tau, const char* function) {
  for (int k = 0; k < model.numLinks(); ++k) {
    bdata.force_W[k].setZero();
    bdata.torque_W[k].setZero();
  }
  SumBodyWrenches sum{bdata};
  try {
    forEachBodyWrench(model, map, bdata, tau, sum);
  } catch (const SingularityError& e) {
    throw SingularityError(std::string(function) + ": " + e.what());
  }
}

/// The checks of the functions converting tau: the workspace, tau, a configuration read.
void checkJointForces(const Model& model, const BridgeData& bdata, const Eigen::VectorXd& tau,
                      const char* function) {
  checkBridgeData(model, bdata, function);
  validateVelocity(model, tau, "tau");
  requireConfiguration(bdata, function);
}

}  // namespace

void jointForcesToBodyWrenches(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                               const Eigen::VectorXd& tau) {
  checkJointForces(model, bdata, tau, "jointForcesToBodyWrenches");
  bodyWrenches(model, map, bdata, tau, "jointForcesToBodyWrenches");
}

void addJointForces(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                    const Eigen::VectorXd& tau) {
  map.validate(model, "addJointForces", MapCheck::World);
  checkJointForces(model, bdata, tau, "addJointForces");
  detail::addJointForcesUnchecked(model, map, bdata, tau);
}

void detail::addJointForcesUnchecked(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                                     const Eigen::VectorXd& tau) {
  if (!internals(bdata).sum_wrenches_first) {
    ApplyBodyWrenches apply{map, bdata};
    forEachBodyWrench(model, map, bdata, tau, apply);
    return;
  }
  // Summed per body in double first: a singular joint applies nothing, and float rounds once.
  bodyWrenches(model, map, bdata, tau, "addJointForces");
  ApplyBodyWrenches apply{map, bdata};
  const std::vector<char>& takes_force = internals(bdata).takes_force;
  for (int b = 0; b < model.numLinks(); ++b) {
    if (map.body(b) == nullptr) continue;
    if (takes_force[b]) {
      apply.wrench(b, bdata.force_W[b], bdata.torque_W[b]);
    } else {
      apply.torque(b, bdata.torque_W[b]);
    }
  }
}

void removeJointForces(const Model& model, const RigidBodyMap& map, BridgeData& bdata) {
  checkBridgeData(model, bdata, "removeJointForces");
  // Only undoes addJointForces on the bodies it checked: no world check needed.
  const std::vector<char>& takes_force = internals(bdata).takes_force;
  for (int k = 0; k < model.numLinks(); ++k) {
    btRigidBody* body = map.body(k);
    if (body == nullptr || body->isStaticOrKinematicObject()) continue;
    body->applyTorque(toBullet(-bdata.applied_torque_W[k]));
    if (takes_force[k]) body->applyCentralForce(toBullet(-bdata.applied_force_W[k]));
  }
  forgetJointForces(bdata);
}

void forgetJointForces(BridgeData& bdata) {
  for (Vector3& f : bdata.applied_force_W) f.setZero();
  for (Vector3& t : bdata.applied_torque_W) t.setZero();
}

void applyJointImpulses(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                        const Eigen::VectorXd& tau, double h) {
  if (!(h > 0.0) || !std::isfinite(h)) {
    throw InvalidArgumentError("applyJointImpulses: the substep h must be finite and > 0, got " +
                               std::to_string(h));
  }
  map.validate(model, "applyJointImpulses", MapCheck::World);
  checkJointForces(model, bdata, tau, "applyJointImpulses");
  bodyWrenches(model, map, bdata, tau, "applyJointImpulses");
  for (int k = 0; k < model.numLinks(); ++k) {
    btRigidBody* body = map.body(k);
    if (body == nullptr || body->isStaticOrKinematicObject()) continue;
    body->applyCentralImpulse(toBullet(h * bdata.force_W[k]));
    body->applyTorqueImpulse(toBullet(h * bdata.torque_W[k]));
  }
}

void generalizedForceFromWrenches(const Model& model, BridgeData& bdata,
                                  const std::vector<LinkWrench>& wrenches, Eigen::VectorXd& Q) {
  checkBridgeData(model, bdata, "generalizedForceFromWrenches");
  requireConfiguration(bdata, "generalizedForceFromWrenches");
  updateKinematics(model, bdata);
  for (std::size_t i = 0; i < wrenches.size(); ++i) {
    const LinkWrench& w = wrenches[i];
    if (w.link < 0 || w.link >= model.numLinks()) {
      throw InvalidArgumentError("generalizedForceFromWrenches: wrench " + std::to_string(i) +
                                 " names link " + std::to_string(w.link) + "; model '" +
                                 model.name + "' has " + std::to_string(model.numLinks()));
    }
    if (!w.p_W.allFinite() || !w.force_W.allFinite() || !w.torque_W.allFinite()) {
      throw InvalidArgumentError("generalizedForceFromWrenches: wrench " + std::to_string(i) +
                                 " on link '" + model.link_names[w.link] +
                                 "' has a NaN or infinite value");
    }
  }
  std::vector<Force>& f_L = bdata.dynamics.f_B;
  for (Force& f : f_L) f = Force::Zero();
  for (const LinkWrench& w : wrenches) {
    addToLinkForce(bdata.dynamics.X_WB[w.link], f_L, w.link, w.p_W, w.force_W, w.torque_W);
  }
  backwardPass(model, bdata, f_L, Q);
}

void generalizedForceFromBodyForces(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                                    Eigen::VectorXd& Q) {
  map.validate(model, "generalizedForceFromBodyForces");
  checkBridgeData(model, bdata, "generalizedForceFromBodyForces");
  requireConfiguration(bdata, "generalizedForceFromBodyForces");
  updateKinematics(model, bdata);
  std::vector<Force>& f_L = bdata.dynamics.f_B;
  for (Force& f : f_L) f = Force::Zero();
  for (int k = 0; k < model.numLinks(); ++k) {
    const btRigidBody* body = map.body(k);
    if (body == nullptr || body->isStaticOrKinematicObject()) continue;
    // Where Bullet has the body: the force acts at its COM, whatever the joints' drift.
    addToLinkForce(bdata.X_WL[k], f_L, k, comPosition(map, bdata, k),
                   fromBullet(body->getTotalForce()), fromBullet(body->getTotalTorque()));
  }
  backwardPass(model, bdata, f_L, Q);
}

int generalizedImpulseFromContacts(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                                   Eigen::VectorXd& Q) {
  map.validate(model, "generalizedImpulseFromContacts");
  checkBridgeData(model, bdata, "generalizedImpulseFromContacts");
  requireConfiguration(bdata, "generalizedImpulseFromContacts");
  updateKinematics(model, bdata);
  std::vector<Force>& f_L = bdata.dynamics.f_B;
  for (Force& f : f_L) f = Force::Zero();
  btDispatcher* dispatcher = map.world()->getDispatcher();
  int points = 0;
  for (int i = 0; i < dispatcher->getNumManifolds(); ++i) {
    const btPersistentManifold* manifold = dispatcher->getManifoldByIndexInternal(i);
    const int k0 = map.linkOf(manifold->getBody0());
    const int k1 = map.linkOf(manifold->getBody1());
    if (k0 < 0 && k1 < 0) continue;
    for (int j = 0; j < manifold->getNumContacts(); ++j) {
      const btManifoldPoint& pt = manifold->getContactPoint(j);
      // The impulse on body 0 (A): the normal points from B to A; friction along the lateral
      // directions as the solver applied it to A. Body 1 gets the opposite.
      const Vector3 impulse_A = fromBullet(pt.m_normalWorldOnB * pt.m_appliedImpulse +
                                           pt.m_lateralFrictionDir1 * pt.m_appliedImpulseLateral1 +
                                           pt.m_lateralFrictionDir2 * pt.m_appliedImpulseLateral2);
      if (k0 >= 0) {
        addToLinkForce(bdata.X_WL[k0], f_L, k0, fromBullet(pt.getPositionWorldOnA()), impulse_A,
                       Vector3::Zero());
      }
      if (k1 >= 0) {
        addToLinkForce(bdata.X_WL[k1], f_L, k1, fromBullet(pt.getPositionWorldOnB()), -impulse_A,
                       Vector3::Zero());
      }
      ++points;
    }
  }
  backwardPass(model, bdata, f_L, Q);
  return points;
}

GCBRIDGE_BULLET_NAMESPACE_END
