#pragma once
// Private to gcbridge::dynamics: the prismatic joint's kernel (kernel.hpp).
//
// q: the displacement of C along `axis` [m], nq = 1; v: its rate [m/s], nv = 1.
// X_JC = (1, axis q); S = (0, axis) in C; J-hat = S. Every step spells S out.

#include <cmath>

#include "kernel.hpp"

namespace gcbridge::joints {

struct Prismatic : Kernel<Prismatic, 1, 1> {
  static constexpr std::array<JointCoordinate, 1> q_coordinates{{{"position", "m"}}};
  static constexpr std::array<JointCoordinate, 1> v_coordinates{{{"-", "m/s"}}};
  static constexpr bool uses_axis = true;

  static void random(const Joint& joint, Random& gen, double* q) {
    const double lo = std::isfinite(joint.limits.lower) ? joint.limits.lower : -1.0;
    const double hi = std::isfinite(joint.limits.upper) ? joint.limits.upper : 1.0;
    q[0] = uniform(gen, lo, hi);
  }

  static Transform transform(const Joint& joint, const double* q) {
    return Transform(Matrix3::Identity(), joint.axis * q[0]);
  }
  static void placement(const Joint& joint, const double* q, Transform& X_PB) {
    const Matrix3& R_PJ = joint.X_PJ.rotation();
    X_PB.rotation() = R_PJ;
    X_PB.translation() = joint.X_PJ.translation() + R_PJ * (joint.axis * q[0]);
  }

  static void subspace(const Joint& joint, const double*, SubspaceMap<1> S) {
    S.col(0) << Vector3::Zero(), joint.axis;
  }
  static JointMatrix localJacobian(const Joint& joint, const double*) {
    JointMatrix J(6, 1);
    J << Vector3::Zero(), joint.axis;
    return J;
  }

  static void addSubspaceTimes(const Joint& joint, const Data&, const double* x, Motion& m) {
    m.linear() += x[0] * joint.axis;
  }
  /// V x (0, axis v) = (0, v omega x axis).
  static void addVelocityProduct(const Joint& joint, const Data&, const Motion& V,
                                 const double* v, Motion& A) {
    A.linear() += v[0] * V.angular().cross(joint.axis);
  }
  static void projectForce(const Joint& joint, const Data&, const Force& f, double* out) {
    out[0] = joint.axis.dot(f.linear());
  }
  static void articulatedTerms(const Joint& joint, const Data&, const Matrix6& Ia,
                               const Vector6& pa, Eigen::Matrix<double, 6, 1>& U,
                               Eigen::Matrix<double, 1, 1>& D, Eigen::Matrix<double, 1, 1>& STpa) {
    U.noalias() = Ia.rightCols<3>() * joint.axis;
    D(0, 0) = joint.axis.dot(U.tail<3>());
    STpa(0, 0) = joint.axis.dot(pa.tail<3>());
  }
  /// Ic (0, axis) = (h x axis, m axis).
  static void compositeColumn(const Joint& joint, const Data&, const InertiaMoments& Ic, int,
                              Vector3& n, Vector3& f) {
    n = Ic.firstMoment().cross(joint.axis);
    f = Ic.mass() * joint.axis;
  }
  static double subspaceDot(const Joint& joint, const Data&, int, const Vector3&,
                            const Vector3& f) {
    return joint.axis.dot(f);
  }
};

}  // namespace gcbridge::joints
