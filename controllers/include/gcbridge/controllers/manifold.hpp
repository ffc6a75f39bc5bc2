#pragma once
/// @file
/// Configuration-manifold helpers the controllers and trajectories share, none of which
/// allocates: the configuration error q1 (-) q0 into a caller's buffer, and the exact velocity and
/// acceleration of a curve q(t) = q0 (+) delta(t) given in the tangent space of q0.
///
/// Why the second one is needed: for revolute, prismatic, exp-map and Euler-angle joints v is the
/// coordinate rate, so v = d(delta)/dt. For a quaternion ball joint v is the angular velocity in
/// the child frame, and R(t) = R0 exp([delta(t)]) moves with omega = J_r(delta) d(delta)/dt, where
/// J_r is the right Jacobian of SO(3); its acceleration is omegadot = J_r deltadd + dJ_r/dt
/// deltad. A free joint's translation is p = p0 + R0 delta_lin (integrate() of configuration.hpp),
/// whose body-frame velocity is v_lin = exp([delta_ang])^T deltad_lin and whose generalized
/// acceleration (the time derivative of those body-frame components, what aba() returns) is
/// exp([delta_ang])^T deltadd_lin - omega x v_lin.

#include <Eigen/Core>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// The tangent vector e with q0 (+) e = q1 (size nv): dynamics' difference(q0, q1) without its
/// allocation. Revolute, prismatic, exp-map and Euler joints subtract component-wise; quaternion
/// ball joints give log(Q0^-1 Q1) (rotation vector in the child frame of q0, the shorter rotation);
/// free joints give (log(Q0^-1 Q1), R0^T (p1 - p0)).
/// @pre q0 and q1 validated (validateConfiguration). @param[out] e (size nv).
void configurationDifference(const Model& model, const ConstVectorRef& q0, const ConstVectorRef& q1,
                             Eigen::Ref<Eigen::VectorXd> e);

/// The right Jacobian of SO(3): for R(t) = R0 exp([r(t)]), the body angular velocity is
/// omega = J_r(r) dr/dt, J_r(r) = 1 - (1 - cos t)/t^2 [r] + (t - sin t)/t^3 [r]^2, t = |r|.
Matrix3 so3RightJacobian(const Vector3& r);
/// d/dt J_r(r(t)) when r moves with dr/dt = r_dot.
Matrix3 so3RightJacobianDerivative(const Vector3& r, const Vector3& r_dot);

/// Velocity and acceleration of the curve q(t) = q0 (+) delta(t) (see the file comment), given
/// delta, d(delta)/dt and d2(delta)/dt2 at one instant (each size nv).
/// @param[out] v generalized velocity (nv) @param[out] a generalized acceleration (nv).
void tangentCurveVelocity(const Model& model, const ConstVectorRef& delta,
                          const ConstVectorRef& delta_dot, const ConstVectorRef& delta_ddot,
                          Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> a);

}  // namespace gcbridge
