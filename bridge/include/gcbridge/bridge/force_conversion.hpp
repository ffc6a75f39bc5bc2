#pragma once
/// @file
/// Force conversion between generalized forces (paired with v: Q . v is the power) and forces and
/// torques on Bullet's rigid bodies (Liu & Jain, eq. 67-71).
///
/// Generalized -> Cartesian: each joint's generalized force becomes a spatial force f on the child
/// link and -f on the parent, across the joint (eq. 68, 71): a revolute torque tau is the torque
/// tau a (a the joint axis in world axes) on the child and -tau a on the parent; a prismatic force
/// is the force tau a at the joint on the child and -tau a at the same point on the parent (so the
/// parent also feels its moment); a ball joint's three values become the torque vector that is
/// paired with its v (for the quaternion parametrization: the torque in child axes; for exp-map
/// and Euler angles: (J-hat^T)^-1 Q through the parametrization's local Jacobian, eq. 71); a Free
/// root's (moment about the link origin, force), in the link frame, is that wrench on the root
/// body. The forces on the world (a root's parent) are dropped. Summed per body they are the
/// force at the COM and the moment about the COM, world axes, that Bullet takes.
///
/// Applying them to Bullet, two ways (measured on Bullet 3.24, tests/force_conversion_test.cpp):
/// - addJointForces puts them in the bodies' force accumulators (applyCentralForce, applyTorque),
///   where they act in every substep until Bullet's clearForces() at the end of stepSimulation;
///   removeJointForces takes exactly them out again. From a pre-tick callback (several substeps
///   per stepSimulation), add in the pre-tick and remove in the post-tick callback, otherwise they
///   accumulate over substeps (bullet-facts.md). This is exact: the iiwa held by g(q) at
///   h = 1e-3 accelerates by 1e-11 rad/s^2.
/// - applyJointImpulses applies F h and tau h as impulses for one substep (applyCentralImpulse,
///   applyTorqueImpulse): nothing to undo, but Bullet's implicit gyroscopic term
///   (BT_ENABLE_GYROSCOPIC_FORCE_IMPLICIT_BODY, on by default) is then evaluated with the
///   angular velocity the impulse gave the unconstrained body, before the joints act, which makes
///   an error of order h in the accelerations: the iiwa held by g(q) accelerates by 1.2e-2
///   rad/s^2 at h = 1e-3 (1.2 at h = 1e-2) and drifts 0.3 rad in 5 s. Exact for bodies whose
///   gyroscopic flag is off.
///
/// Cartesian -> generalized: Q = sum_k J'_k^T (f_k, tau_k) (eq. 67, 69) for forces at given
/// points, computed in one backward pass over the tree (O(n)).

#include <Eigen/Core>
#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/bridge/rigid_body_map.hpp"
#include "gcbridge/dynamics/model.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

/// A force and a torque on one link, in world axes.
struct LinkWrench {
  int link = 0;                        ///< model link index
  Vector3 p_W = Vector3::Zero();       ///< world point the force acts at [m]
  Vector3 force_W = Vector3::Zero();   ///< [N]
  Vector3 torque_W = Vector3::Zero();  ///< pure torque (not from the force) [N m]
};

/// Converts generalized forces to per-body forces: fills bdata.force_W (at the COM) and
/// bdata.torque_W (about the COM), world axes, at the link poses of the last readPositions or
/// writeState (bdata.X_WL: where Bullet has the bodies). Writes nothing to Bullet.
/// @param[in] tau generalized forces (size model.nv)
/// @throws InvalidArgumentError for a bad tau; SingularityError for an Euler-angle ball at gimbal
///   lock.
void jointForcesToBodyWrenches(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                               const Eigen::VectorXd& tau);

/// Adds the wrenches jointForcesToBodyWrenches forms to the bodies' force and torque accumulators
/// (applyCentralForce, applyTorque) and records them in bdata.applied_force_W / applied_torque_W
/// for removeJointForces. Each joint's wrench goes to its two bodies as it is formed, except with
/// single-precision Bullet or for models with exp-map or Euler-angle balls, where each body's
/// wrench is first summed in double (so a throw applies nothing). Either way bdata.force_W and
/// torque_W hold no defined value after it (jointForcesToBodyWrenches fills them).
/// Static bodies are skipped. A previous addJointForces that was not removed stays (forces add
/// up).
/// The world is checked against the map first (MapCheck::World; the model and the bodies' state
/// are the read's to check): a constraint disabled or a body removed since the read is caught.
/// @throws InvalidArgumentError for a bad tau; WorldError (map.validate) for a world that no longer
///   matches the map; SingularityError for an Euler-angle ball at gimbal lock. Nothing is applied
///   then.
void addJointForces(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                    const Eigen::VectorXd& tau);

/// Subtracts from the bodies' accumulators everything addJointForces added since the last call,
/// and forgets it. Call it in the post-tick callback of the substep the forces were for (after
/// Bullet's clearForces() there is nothing to remove: then just do not call it, or call
/// forgetJointForces). Touches only the bodies addJointForces checked.
void removeJointForces(const Model& model, const RigidBodyMap& map, BridgeData& bdata);

/// Forgets what addJointForces added without touching the bodies (after Bullet cleared them).
void forgetJointForces(BridgeData& bdata);

/// jointForcesToBodyWrenches, then applies them to the bodies as the impulses F h and tau h
/// (applyCentralImpulse, applyTorqueImpulse): the forces act during one substep of length h.
/// Static bodies are skipped. See the file comment for the gyroscopic error this brings.
/// @param[in] h the substep [s] (> 0)
/// @throws InvalidArgumentError for a bad tau or h; WorldError (map.validate) for a world that
///   no longer matches the map; SingularityError for an Euler-angle ball at gimbal lock. Nothing
///   is applied then.
void applyJointImpulses(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                        const Eigen::VectorXd& tau, double h);

/// Q = sum J'^T (f, tau) for the given wrenches (eq. 67, 69), at the configuration of the last
/// readPositions or writeState.
/// @param[out] Q generalized forces (resized to model.nv)
/// @throws InvalidArgumentError for a link index out of range or a non-finite value.
void generalizedForceFromWrenches(const Model& model, BridgeData& bdata,
                                  const std::vector<LinkWrench>& wrenches, Eigen::VectorXd& Q);

/// The generalized force equivalent of what is accumulated on the bodies now, each force expressed
/// in its link's frame with Bullet's pose of the body (so a drifted joint does not add a false
/// moment arm), then summed over the model's tree at q
/// (btRigidBody::getTotalForce at the COM and getTotalTorque, which include gravity once the
/// world applied it, and everything the application applied as forces).
/// @param[out] Q generalized forces (resized to model.nv)
void generalizedForceFromBodyForces(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                                    Eigen::VectorXd& Q);

/// The generalized impulse of the contacts in the world's contact manifolds (contact points and
/// the normal and friction impulses the solver applied in the last substep) on the map's bodies,
/// each expressed in its link's frame with Bullet's pose of the body.
/// Divide by the substep for a generalized force.
/// @param[out] Q generalized impulse (resized to model.nv) [N m s or N s]
/// @return the number of contact points that touched one of the map's bodies.
int generalizedImpulseFromContacts(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                                   Eigen::VectorXd& Q);

GCBRIDGE_BULLET_NAMESPACE_END
