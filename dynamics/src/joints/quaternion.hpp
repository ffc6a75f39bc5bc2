#pragma once
// Private to gcbridge::dynamics: the unit-quaternion coordinates the quaternion ball joint and
// the free joint share, stored (x, y, z, w) in q as in Eigen, Bullet and Pinocchio, with the
// angular velocity omega_C in the child frame as their velocity.

#include <cmath>
#include <string>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/lie_group.hpp"
#include "kernel.hpp"

namespace gcbridge::joints::quaternion {

inline void store(const Quaternion& Q, double* xyzw) {
  xyzw[0] = Q.x();
  xyzw[1] = Q.y();
  xyzw[2] = Q.z();
  xyzw[3] = Q.w();
}

inline void neutral(double* xyzw) {
  xyzw[0] = xyzw[1] = xyzw[2] = 0.0;
  xyzw[3] = 1.0;
}

/// Whether |norm - 1| <= kQuaternionNormTolerance, compared squared (no square root); false for
/// a NaN.
inline bool isUnit(const double* xyzw) {
  const double norm2 =
      xyzw[0] * xyzw[0] + xyzw[1] * xyzw[1] + xyzw[2] * xyzw[2] + xyzw[3] * xyzw[3];
  constexpr double kLow = (1.0 - kQuaternionNormTolerance) * (1.0 - kQuaternionNormTolerance);
  constexpr double kHigh = (1.0 + kQuaternionNormTolerance) * (1.0 + kQuaternionNormTolerance);
  return norm2 >= kLow && norm2 <= kHigh;
}

/// @throws InvalidArgumentError naming the joint and the slice q[first .. first + 3] unless
///   isUnit(xyzw).
inline void checkUnit(const Joint& joint, const double* xyzw, int first) {
  if (isUnit(xyzw)) return;
  const double norm2 =
      xyzw[0] * xyzw[0] + xyzw[1] * xyzw[1] + xyzw[2] * xyzw[2] + xyzw[3] * xyzw[3];
  throw InvalidArgumentError("joint '" + joint.name + "': quaternion q[" + std::to_string(first) +
                             ".." + std::to_string(first + 3) + "] has norm " +
                             std::to_string(std::sqrt(norm2)) +
                             ", not a unit quaternion (x, y, z, w)");
}

inline void normalize(double* xyzw) {
  Eigen::Map<Eigen::Vector4d> Q(xyzw);
  Q.normalize();
}

/// Q1 = Q0 exp(omega dt): the rotation moved by omega in its own frame.
inline void integrate(const double* xyzw, const double* omega, double dt, double* out) {
  const Quaternion Q0 = quaternionFromCoeffs(xyzw);
  store((Q0 * quaternionExp(Eigen::Map<const Vector3>(omega) * dt)).normalized(), out);
}

/// The quaternion of q as stored, not normalized.
inline Quaternion coefficients(const double* xyzw) {
  return Quaternion(xyzw[3], xyzw[0], xyzw[1], xyzw[2]);
}

/// log(Q0^-1 Q1): the rotation from Q0 to Q1 in Q0's frame, the shorter one. Scaling Q0 or Q1
/// changes neither the angle nor the axis of Q0^* Q1, so neither is normalized.
inline void difference(const double* xyzw0, const double* xyzw1, double* omega) {
  Eigen::Map<Vector3>{omega} = quaternionLog(coefficients(xyzw0).conjugate() * coefficients(xyzw1));
}

/// The rotation matrix of the normalized quaternion: 1 + s (w [v] + [v]^2) with s = 2 / |Q|^2,
/// which needs no square root.
inline Matrix3 rotation(const double* xyzw) {
  const double x = xyzw[0], y = xyzw[1], z = xyzw[2], w = xyzw[3];
  const double s = 2.0 / (x * x + y * y + z * z + w * w);
  const double xs = x * s, ys = y * s, zs = z * s;
  const double wx = w * xs, wy = w * ys, wz = w * zs;
  const double xx = x * xs, xy = x * ys, xz = x * zs;
  const double yy = y * ys, yz = y * zs, zz = z * zs;
  Matrix3 R;
  R << 1.0 - (yy + zz), xy - wz, xz + wy,  //
      xy + wz, 1.0 - (xx + zz), yz - wx,   //
      xz - wy, yz + wx, 1.0 - (xx + yy);
  return R;
}

/// d(Q0 exp(omega dt))/d omega = dt J_r(omega dt), in the result's frame, into a 3x3 block
/// with leading dimension `stride`.
inline void integrationJacobian(const double* omega, double dt, double* J, int stride) {
  const Matrix3 J_r = so3RightJacobian(Eigen::Map<const Vector3>(omega) * dt);
  for (int c = 0; c < 3; ++c) {
    for (int r = 0; r < 3; ++r) J[c * stride + r] = dt * J_r(r, c);
  }
}

/// d(delta)/dt = J_r(delta)^-1 omega for R = R0 exp([delta]).
inline void tangentRates(const double* delta, const double* omega, double* delta_dot) {
  Eigen::Map<Vector3>{delta_dot} =
      so3RightJacobian(Eigen::Map<const Vector3>(delta)).inverse() *
      Eigen::Map<const Vector3>(omega);
}

/// omega = J_r delta_dot and omega_dot = J_r delta_ddot + dJ_r/dt delta_dot.
inline void tangentCurve(const double* delta, const double* delta_dot, const double* delta_ddot,
                         double* omega, double* omega_dot) {
  const Eigen::Map<const Vector3> r(delta), rd(delta_dot), rdd(delta_ddot);
  const Matrix3 J_r = so3RightJacobian(r);
  Eigen::Map<Vector3>{omega} = J_r * rd;
  Eigen::Map<Vector3>{omega_dot} = J_r * rdd + so3RightJacobianDerivative(r, rd) * rd;
}

}  // namespace gcbridge::joints::quaternion
