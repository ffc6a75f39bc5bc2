#pragma once
// Private to gcbridge::dynamics: the ball joint with a rotation vector (kernel.hpp).
//
// q: the rotation vector r, R_JC = exp([r]) [rad], nq = 3; v = dr/dt [rad/s], nv = 3, a vector
// space. The angular velocity of C is omega_C = J_r(r) dr/dt and omega_J = J_l(r) dr/dt
// (lie_group.hpp), so S = (J_r(r), 0) in C depends on q, S_dot = (dJ_r/dt, 0), and
// J-hat = (J_l(r), 0).

#include <cmath>
#include <string>

#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/lie_group.hpp"
#include "kernel.hpp"

namespace gcbridge::joints {

struct BallExpMap : Kernel<BallExpMap, 3, 3> {
  static constexpr std::array<JointCoordinate, 3> q_coordinates{
      {{"rx", "rad"}, {"ry", "rad"}, {"rz", "rad"}}};
  static constexpr std::array<JointCoordinate, 3> v_coordinates{
      {{"d rx", "rad/s"}, {"d ry", "rad/s"}, {"d rz", "rad/s"}}};
  static constexpr bool is_ball = true;
  static constexpr bool subspace_depends_on_q = true;

  /// Axis uniform on the sphere, angle uniform in [0, pi).
  static void random(const Joint&, Random& gen, double* q) {
    constexpr double kPi = 3.14159265358979323846;
    const Vector3 axis = randomQuaternion(gen).vec().normalized();
    Eigen::Map<Vector3>{q} = axis * uniform(gen, 0.0, kPi);
  }

  static Transform transform(const Joint&, const double* q) {
    return Transform(expMapRotation(Eigen::Map<const Vector3>(q)), Vector3::Zero());
  }
  static void subspace(const Joint&, const double* q, SubspaceMap<3> S) {
    S.topRows<3>() = so3RightJacobian(Eigen::Map<const Vector3>(q));
    S.bottomRows<3>().setZero();
  }
  static Eigen::Matrix<double, 6, 3> subspaceDerivative(const Joint&, const double* q,
                                                        const double* v) {
    Eigen::Matrix<double, 6, 3> dS = Eigen::Matrix<double, 6, 3>::Zero();
    dS.topRows<3>() =
        so3RightJacobianDerivative(Eigen::Map<const Vector3>(q), Eigen::Map<const Vector3>(v));
    return dS;
  }
  static Motion bias(const Joint& joint, const double* q, const double* v) {
    return Motion(Vector6(subspaceDerivative(joint, q, v) * Slice<3>(v)));
  }
  static JointMatrix localJacobian(const Joint&, const double* q) {
    JointMatrix J = JointMatrix::Zero(6, 3);
    J.topRows<3>() = so3LeftJacobian(Eigen::Map<const Vector3>(q));
    return J;
  }
  /// omega_J -> v = J_l(r)^-1 omega_J.
  /// @throws SingularityError at |r| = 2 pi k, k >= 1, where det J_l = (sin(t/2) / (t/2))^2 = 0.
  static Vector3 velocityFromAngularVelocity(const Joint& joint, const double* q,
                                             const Vector3& omega_J) {
    const Eigen::Map<const Vector3> r(q);
    const double t = r.norm();
    const double sinc_half = t < 1e-8 ? 1.0 : std::sin(0.5 * t) / (0.5 * t);
    if (sinc_half * sinc_half < 1e-9) {
      throw SingularityError("ball joint '" + joint.name + "': exponential map angle " +
                             std::to_string(t) +
                             " rad is a multiple of 2 pi, where dr/dt is undefined");
    }
    return so3LeftJacobian(r).inverse() * omega_J;
  }
};

}  // namespace gcbridge::joints
