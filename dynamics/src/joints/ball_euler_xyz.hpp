#pragma once
// Private to gcbridge::dynamics: the ball joint with Euler angles XYZ (kernel.hpp).
//
// q: the angles (a, b, c) with R_JC = Rx(a) Ry(b) Rz(c) [rad], nq = 3; v = d(a, b, c)/dt
// [rad/s], nv = 3, a vector space. J-hat = ([e_x, Rx(a) e_y, Rx(a) Ry(b) e_z], 0) maps v to
// omega_J; S = (R_JC^T J-hat, 0) in C depends on b and c; both are singular at cos b = 0 (gimbal
// lock).

#include <cmath>
#include <string>

#include "gcbridge/dynamics/errors.hpp"
#include "kernel.hpp"

namespace gcbridge::joints {

struct BallEulerXYZ : Kernel<BallEulerXYZ, 3, 3> {
  static constexpr std::array<JointCoordinate, 3> q_coordinates{
      {{"a (x)", "rad"}, {"b (y)", "rad"}, {"c (z)", "rad"}}};
  static constexpr std::array<JointCoordinate, 3> v_coordinates{
      {{"d a", "rad/s"}, {"d b", "rad/s"}, {"d c", "rad/s"}}};
  static constexpr bool is_ball = true;
  static constexpr bool subspace_depends_on_q = true;

  static void random(const Joint&, Random& gen, double* q) {
    constexpr double kPi = 3.14159265358979323846;
    for (int i = 0; i < 3; ++i) q[i] = uniform(gen, -kPi, kPi);
  }

  static Transform transform(const Joint&, const double* q) {
    return Transform(eulerXYZRotation(Eigen::Map<const Vector3>(q)), Vector3::Zero());
  }
  /// omega_C = R^T J-hat v: the columns Rz^T Ry^T e_x, Rz^T e_y, e_z.
  static void subspace(const Joint&, const double* q, SubspaceMap<3> S) {
    const double sb = std::sin(q[1]), cb = std::cos(q[1]);
    const double sc = std::sin(q[2]), cc = std::cos(q[2]);
    S.topRows<3>() << cb * cc, sc, 0.0, -cb * sc, cc, 0.0, sb, 0.0, 1.0;
    S.bottomRows<3>().setZero();
  }
  /// The columns of S differentiated in time.
  static Eigen::Matrix<double, 6, 3> subspaceDerivative(const Joint&, const double* q,
                                                        const double* v) {
    const double sb = std::sin(q[1]), cb = std::cos(q[1]);
    const double sc = std::sin(q[2]), cc = std::cos(q[2]);
    const double bd = v[1], cd = v[2];
    Eigen::Matrix<double, 6, 3> dS = Eigen::Matrix<double, 6, 3>::Zero();
    dS.col(0).head<3>() =
        bd * Vector3(-sb * cc, sb * sc, cb) + cd * Vector3(-cb * sc, -cb * cc, 0.0);
    dS.col(1).head<3>() = cd * Vector3(cc, -sc, 0.0);
    return dS;
  }
  static Motion bias(const Joint& joint, const double* q, const double* v) {
    return Motion(Vector6(subspaceDerivative(joint, q, v) * Slice<3>(v)));
  }
  static JointMatrix localJacobian(const Joint&, const double* q) {
    JointMatrix J = JointMatrix::Zero(6, 3);
    J.topRows<3>() = eulerXYZJacobian(Eigen::Map<const Vector3>(q));
    return J;
  }
  /// omega_J -> v = J-hat^-1 omega_J.
  /// @throws SingularityError at gimbal lock (|cos b| < 1e-9): det J-hat = cos b.
  static Vector3 velocityFromAngularVelocity(const Joint& joint, const double* q,
                                             const Vector3& omega_J) {
    if (std::abs(std::cos(q[1])) < 1e-9) {
      throw SingularityError("ball joint '" + joint.name +
                             "': Euler XYZ angle b = " + std::to_string(q[1]) +
                             " rad is at gimbal lock (cos b = 0), angle rates are undefined");
    }
    return eulerXYZJacobian(Eigen::Map<const Vector3>(q)).inverse() * omega_J;
  }
};

}  // namespace gcbridge::joints
