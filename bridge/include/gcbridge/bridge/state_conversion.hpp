#pragma once
/// @file
/// State conversion between a rigid-body Bullet world (maximal coordinates: a pose and a velocity
/// per body) and the model's generalized coordinates q, v (Liu & Jain, eq. 60-66).
///
/// Reading (maximal -> generalized):
/// - q from the bodies' relative transforms: X_JC = X_PJ^-1 X_WP^-1 X_WC per joint, then the
///   joint's coordinates (revolute: the angle about the axis, unwrapped continuously from the last
///   call; prismatic: the displacement along the axis; ball: the quaternion, the rotation vector
///   with angle <= pi, or XYZ Euler angles of R_JC; free: position and quaternion). Whatever part
///   of X_JC the joint cannot produce (Bullet's joint error) is dropped: see computeJointErrors.
/// - v three ways (VelocityMethod). Sparse, the fast path: per joint, from the relative velocity
///   of child and parent (eq. 62-66). PseudoInverse: the least-squares solution of J v = V over
///   all links (eq. 60-61), with the residual per link. MassWeighted: v = (J^T M_c J)^-1 J^T M_c V
///   = M^-1 J^T M_c V, which keeps the generalized momentum of the maximal state. When V is
///   consistent with the joints the three agree to round-off; when it is not (Bullet's joints
///   drift), Sparse reads each joint from its own two bodies only, PseudoInverse fits all link
///   velocities equally (m/s and rad/s mixed), MassWeighted fits them in kinetic-energy norm.
/// Writing (generalized -> maximal): every body gets the pose and COM velocity the model's
/// kinematics gives at (q, v), so every joint is exactly satisfied.
/// Every function here and in force_conversion.hpp that takes the model and bdata checks that
/// bdata was made for the model before touching it (checkBridgeData: InvalidArgumentError).

#include <Eigen/Core>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/bridge/rigid_body_map.hpp"
#include "gcbridge/dynamics/model.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

/// How readVelocities turns body velocities into v (file comment).
enum class VelocityMethod {
  Sparse,         ///< per joint, relative velocities (Liu & Jain eq. 62-66); O(n), no allocation
  PseudoInverse,  ///< stacked Jacobian, least squares (eq. 60-61); O(n^2 nlinks)
  MassWeighted,   ///< (J^T M_c J)^-1 J^T M_c V = M^-1 J^T M_c V; momentum-preserving, O(n^2)
};

/// "sparse", "pseudo_inverse", "mass_weighted".
const char* toString(VelocityMethod method);

/// Reads q from the bodies' poses. Also fills bdata.X_WL (the link poses Bullet has),
/// bdata.omega_WB_W and bdata.v_WBcm_W, and sets bdata.q_previous. Does not run the model's forward
/// kinematics (updateKinematics does).
/// @param[out] q positions (resized to model.nq)
/// @throws WorldError if the world no longer matches the map (map.validate) or a body's pose or
///   velocity is NaN or infinite; q and bdata are then unchanged.
void readPositions(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                   Eigen::VectorXd& q);

/// Reads v from the bodies' velocities at the configuration q of the last readPositions (which
/// checked the world against the map; this checks only that the velocities are finite).
/// Fills bdata.velocity_residual (every method; Sparse computes it only when `residual` is true,
/// otherwise leaves it zero).
/// @param[out] v velocities (resized to model.nv)
/// @throws InvalidArgumentError if readPositions (or writeState) never ran; WorldError for a
///   non-finite body velocity; SingularityError for an Euler-angle ball joint at gimbal lock.
///   v is unchanged then (and for a WorldError bdata too).
void readVelocities(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                    Eigen::VectorXd& v, VelocityMethod method = VelocityMethod::Sparse,
                    bool residual = false);

/// readPositions then readVelocities, the same values; with VelocityMethod::Sparse each joint is
/// visited once for both (a universal joint's or an exp-map or Euler-angle ball's velocity, read
/// at the new q, in a second pass over those joints alone).
void readState(const Model& model, const RigidBodyMap& map, BridgeData& bdata, Eigen::VectorXd& q,
               Eigen::VectorXd& v, VelocityMethod method = VelocityMethod::Sparse);

/// Writes (q, v) into the bodies: COM poses, COM and angular velocities, the inertia tensor in
/// world axes and the interpolation state (no stale cache), the motion state if the body has one,
/// and activates the bodies. Static bodies (a fixed root) are left where they are. Sets
/// bdata.q_previous = q.
/// @throws InvalidArgumentError for bad q or v; WorldError as readPositions. Nothing is written
///   then.
void writeState(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                const Eigen::VectorXd& q, const Eigen::VectorXd& v);

/// Runs the model's forward kinematics at bdata.q_previous into bdata.dynamics unless it is
/// already there (bdata.kinematics_current).
/// @throws InvalidArgumentError if no configuration was read or written yet.
void updateKinematics(const Model& model, BridgeData& bdata);

/// Measures every joint's constraint error from the bodies' current poses into
/// bdata.joint_errors (JointError) and returns the largest position error [m]. Reads the poses
/// as readPositions does: bdata.X_WL, bdata.omega_WB_W, bdata.v_WBcm_W and bdata.q_previous are
/// refreshed.
/// @throws WorldError as readPositions.
double computeJointErrors(const Model& model, const RigidBodyMap& map, BridgeData& bdata);

/// Projects the bodies onto the joints (constraint satisfaction as projection, ArtiSynth's
/// notes): q read from the poses (readPositions), v by the mass-weighted projection of the
/// bodies' velocities (VelocityMethod::MassWeighted: J v is the velocity the joints allow
/// nearest to the bodies' in kinetic-energy norm), then every body written at (q, v), so that
/// every joint holds exactly. The generalized momentum J^T M_c V is kept: with a floating root the
/// total linear momentum, and the angular momentum when the poses already satisfied the joints.
/// It moves the bodies: Bullet's solver would have pulled them together over several substeps
/// instead, and the energy it adds or removes differs (docs/bullet-notes.md).
/// @param[out] q, v the projected state (nq, nv).
/// @throws WorldError as readPositions; SingularityError for an Euler-angle ball joint at gimbal
///   lock. Nothing is written then.
void projectOntoJoints(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                       Eigen::VectorXd& q, Eigen::VectorXd& v);

GCBRIDGE_BULLET_NAMESPACE_END
