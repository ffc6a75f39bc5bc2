#pragma once
/// @file
/// Jacobians in world coordinates (Liu & Jain eq. 50-58 and 60) and dJ/dt * v.
///
/// A frame Jacobian maps v to the frame's spatial velocity, V = J v, expressed as ReferenceFrame
/// says (angular rows first). Columns of joints that do not support the link are zero.

#include <Eigen/Core>

#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// Runs forwardKinematics(q) and fills data.J_W (6 x nv): column j is the motion subspace of dof j
/// in world coordinates about the world origin. @throws InvalidArgumentError on bad q.
void computeJointJacobians(const Model& model, Data& data, const ConstVectorRef& q);

/// The 6 x nv Jacobian of frame F fixed on `link` at X_BF (a point: X_BF with identity rotation).
/// @pre computeJointJacobians(q) ran. @param[out] J 6 x nv.
void frameJacobian(const Model& model, const Data& data, int link, const Transform& X_BF,
                   ReferenceFrame rf, Eigen::Ref<Eigen::MatrixXd> J);

/// The Jacobians of link k's centre of mass, world axes (Liu & Jain eq. 50-51 and 57):
/// velocity of the COM v_k = Jv v and angular velocity omega_k = Jw v.
/// @pre computeJointJacobians(q) ran. @param[out] Jv, Jw 3 x nv each.
void linkComJacobian(const Model& model, const Data& data, int link, Eigen::Ref<Eigen::MatrixXd> Jv,
                     Eigen::Ref<Eigen::MatrixXd> Jw);

/// The stacked Jacobian of all links, Liu & Jain eq. 60, in that equation's order:
/// (v_1 .. v_m, omega_1 .. omega_m) = J v, COM velocities then angular velocities, world axes.
/// Note this is linear-first as in Liu & Jain, unlike gcbridge's spatial vectors.
/// @pre computeJointJacobians(q) ran. @param[out] J (6 nlinks) x nv.
void stackedComJacobian(const Model& model, const Data& data, Eigen::Ref<Eigen::MatrixXd> J);

/// dJ/dt * v for the Jacobian of frameJacobian(link, X_BF, rf), at (q, v): the frame's
/// acceleration when the joint accelerations are zero. For LocalWorldAligned it is the classical
/// acceleration (angular; of the point Fo), for World the spatial acceleration about the world
/// origin, for Local the derivative of the Local-frame velocity.
/// Runs forwardKinematics(q, v, 0): data's kinematic fields are overwritten.
Motion frameJacobianDotTimesV(const Model& model, Data& data, const ConstVectorRef& q,
                              const ConstVectorRef& v, int link, const Transform& X_BF,
                              ReferenceFrame rf);

}  // namespace gcbridge
