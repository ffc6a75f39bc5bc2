#pragma once
/// @file
/// The rotation group SO(3) as the joints, the integrators and the trajectories use it: the
/// exponential map and its inverse (as a rotation matrix and as a unit quaternion), its left and
/// right Jacobians, and the time derivative of the right Jacobian.
///
/// For a rotation R(t) = R0 exp([r(t)]) (r a rotation vector, [r] its cross-product matrix):
/// - the angular velocity in the moving frame is omega = J_r(r) dr/dt,
/// - the angular velocity in the frame R0 is exp([r]) omega = J_l(r) dr/dt,
/// with J_l(r) = 1 + (1 - cos t)/t^2 [r] + (t - sin t)/t^3 [r]^2, t = |r|, and
/// J_r(r) = J_l(r)^T = J_l(-r) (Park & Lynch, Modern Robotics, sec. 3.2.3; Sola et al., A micro
/// Lie theory, eq. 143-146). J_l is the J-hat of the exp-map ball joint (joint.hpp).
///
/// Near t = 0 the closed forms cancel; below t = 1 their Taylor series are used, exact to rounding
/// there (the first omitted term is below 1e-20).

#include "gcbridge/dynamics/spatial.hpp"

namespace gcbridge {

/// R = exp([r]) = 1 + sin(t)/t [r] + (1 - cos t)/t^2 [r]^2 (Rodrigues).
Matrix3 expMapRotation(const Vector3& r);
/// The rotation vector of R with angle in [0, pi]: the inverse of expMapRotation.
Vector3 rotationToExpMap(const Matrix3& R);
/// exp of a rotation vector as a unit quaternion.
Quaternion quaternionExp(const Vector3& r);
/// The rotation vector of a quaternion, angle in [0, pi] (sign of Q chosen so w >= 0). Q need not
/// be unit: a positive scale changes neither its angle nor its axis.
Vector3 quaternionLog(const Quaternion& Q);

/// The left Jacobian J_l(r) (file comment): omega in the fixed frame = J_l(r) dr/dt.
Matrix3 so3LeftJacobian(const Vector3& r);
/// The right Jacobian J_r(r) (file comment): omega in the moving frame = J_r(r) dr/dt.
Matrix3 so3RightJacobian(const Vector3& r);
/// d/dt J_r(r(t)) when r moves with dr/dt = r_dot.
Matrix3 so3RightJacobianDerivative(const Vector3& r, const Vector3& r_dot);

}  // namespace gcbridge
