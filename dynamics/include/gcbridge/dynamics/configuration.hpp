#pragma once
/// @file
/// Configuration-space helpers: validation, neutral and random configurations, and integration on
/// the configuration manifold (quaternions stay unit).
///
/// `integrate(q, v, dt)` per joint: Revolute, Prismatic, ExpMap and EulerXYZ ball joints add
/// v*dt to q (their v is the coordinate rate); a Quaternion ball joint right-multiplies by
/// exp(omega_C dt) (omega in the child frame); a Free joint moves its position by R v_lin dt and
/// right-multiplies its quaternion by exp(omega_C dt). `difference(q0, q1)` is the inverse:
/// integrate(q0, difference(q0, q1), 1) == q1 (quaternions up to sign, the shorter rotation).

#include <Eigen/Core>
#include <cstdint>

#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// A read-only view on a vector (a VectorXd or a segment of one).
using ConstVectorRef = Eigen::Ref<const Eigen::VectorXd>;

/// Quaternions whose norm differs from 1 by at most this are normalized silently; others are
/// rejected as invalid input.
inline constexpr double kQuaternionNormTolerance = 1e-4;

/// @throws InvalidArgumentError naming the joint if q has the wrong size (model.nq), a non-finite
///   entry, or a zero or far-from-unit quaternion (see kQuaternionNormTolerance).
void validateConfiguration(const Model& model, const ConstVectorRef& q);
/// @throws InvalidArgumentError if `v` does not have size model.nv or has a non-finite entry;
///   `what` names the argument in the message ("v", "a", "tau").
void validateVelocity(const Model& model, const ConstVectorRef& v, const char* what = "v");

/// The neutral configuration: zero angles and displacements, identity quaternions (size nq).
Eigen::VectorXd neutralConfiguration(const Model& model);

/// A random configuration from a fixed seed (the same seed gives the same q on every platform):
/// revolute and prismatic joints uniform within their limits (or [-pi, pi] / [-1, 1] m when
/// unlimited), quaternions uniform on SO(3), exp-map vectors with angle in [0, pi), Euler angles in
/// [-pi, pi), free-joint positions in [-1, 1]^3 m.
Eigen::VectorXd randomConfiguration(const Model& model, std::uint64_t seed);

/// A random vector of size n with entries uniform in [-scale, scale], from a fixed seed.
Eigen::VectorXd randomVector(int n, std::uint64_t seed, double scale = 1.0);

/// q (+) v*dt on the manifold (see the file comment). @throws InvalidArgumentError on bad input.
Eigen::VectorXd integrate(const Model& model, const ConstVectorRef& q, const ConstVectorRef& v,
                          double dt);
/// The same, writing into q_out (size nq; may alias q). No allocation.
void integrate(const Model& model, const ConstVectorRef& q, const ConstVectorRef& v, double dt,
               Eigen::Ref<Eigen::VectorXd> q_out);

/// The v with integrate(q0, v, 1) == q1 (size nv). @throws InvalidArgumentError on bad input.
Eigen::VectorXd difference(const Model& model, const ConstVectorRef& q0, const ConstVectorRef& q1);

/// Normalizes every quaternion of q in place.
void normalizeConfiguration(const Model& model, Eigen::Ref<Eigen::VectorXd> q);

/// exp of a rotation vector as a unit quaternion.
Quaternion quaternionExp(const Vector3& rotation_vector);
/// The rotation vector of a unit quaternion, angle in [0, pi] (sign of Q chosen so w >= 0).
Vector3 quaternionLog(const Quaternion& Q);

}  // namespace gcbridge
