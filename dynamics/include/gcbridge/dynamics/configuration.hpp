#pragma once
/// @file
/// Configuration-space helpers: validation, neutral and random configurations, and the operations
/// of the configuration manifold (quaternions stay unit).
///
/// `integrate(q, v, dt)` per joint: Revolute, Prismatic, Planar, ExpMap and EulerXYZ ball joints
/// add v*dt to q (their v is the coordinate rate); a Quaternion ball joint right-multiplies by
/// exp(omega_C dt) (omega in the child frame); a Free joint moves its position by R v_lin dt and
/// right-multiplies its quaternion by exp(omega_C dt). `difference(q0, q1)` is the inverse:
/// integrate(q0, difference(q0, q1), 1) == q1 (quaternions up to sign, the shorter rotation).
///
/// Curves given in the tangent space of a configuration q0, q(t) = q0 (+) delta(t), are what
/// trajectories and Runge-Kutta stages are made of. Where v is the coordinate rate, v =
/// d(delta)/dt. For a quaternion ball joint v is the angular velocity in the child frame, and R(t)
/// = R0 exp([delta(t)]) moves with omega = J_r(delta) d(delta)/dt (lie_group.hpp), whose derivative
/// is J_r delta_ddot + dJ_r/dt delta_dot. A free joint's translation p = p0 + R0 delta_lin has the
/// body-frame velocity v_lin = exp([delta_ang])^T delta_lin_dot, whose derivative (what aba()
/// returns) is exp([delta_ang])^T delta_lin_ddot - omega x v_lin.

#include <Eigen/Core>
#include <cstdint>

#include "gcbridge/dynamics/lie_group.hpp"
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
/// [-pi, pi), free-joint positions in [-1, 1]^3 m, planar joints (x, y) in [-1, 1]^2 m and theta in
/// [-pi, pi).
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
/// The same, writing into v (size nv). No allocation.
void difference(const Model& model, const ConstVectorRef& q0, const ConstVectorRef& q1,
                Eigen::Ref<Eigen::VectorXd> v);

/// Velocity v and acceleration a of the curve q(t) = q0 (+) delta(t) (file comment), given delta,
/// d(delta)/dt and d2(delta)/dt2 at one instant (each size nv; outputs size nv). No allocation.
void tangentCurveVelocity(const Model& model, const ConstVectorRef& delta,
                          const ConstVectorRef& delta_dot, const ConstVectorRef& delta_ddot,
                          Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> a);
/// The inverse of tangentCurveVelocity's velocity: the rate d(delta)/dt at which the tangent
/// coordinates of q = q0 (+) delta move when q moves with velocity v (sizes nv). No allocation.
void tangentCoordinateRates(const Model& model, const ConstVectorRef& delta,
                            const ConstVectorRef& v, Eigen::Ref<Eigen::VectorXd> delta_dot);

/// d(q (+) v dt)/dv, in the tangent space at the result (the convention of derivatives.hpp):
/// block diagonal, dt 1 where v is the coordinate rate, dt J_r(omega dt) for a quaternion ball
/// (lie_group.hpp), blockdiag(dt J_r(omega dt), dt exp([omega dt])^T) for a free joint. The same
/// for every q. Writes J (nv x nv). No allocation.
/// @throws InvalidArgumentError on bad sizes, a non-finite v or dt.
void integrateVelocityJacobian(const Model& model, const ConstVectorRef& v, double dt,
                               Eigen::Ref<Eigen::MatrixXd> J);
/// Normalizes every quaternion of q in place.
void normalizeConfiguration(const Model& model, Eigen::Ref<Eigen::VectorXd> q);

}  // namespace gcbridge
