#pragma once
// Private to gcbridge::dynamics: the revolute joint's kernel (kernel.hpp).
//
// q: the angle of C about `axis` [rad], nq = 1; v: its rate [rad/s], nv = 1.
// X_JC = (Rot(axis, q), 0); S = (axis, 0) in C (the axis is fixed in both J and C); J-hat = S.
// Every step spells S out: the algorithms spend most of their time on revolute joints.

#include <cmath>

#include "gcbridge/dynamics/detail/fast_math.hpp"
#include "kernel.hpp"

namespace gcbridge::joints {

struct Revolute : Kernel<Revolute, 1, 1> {
  static constexpr std::array<JointCoordinate, 1> q_coordinates{{{"angle", "rad"}}};
  static constexpr std::array<JointCoordinate, 1> v_coordinates{{{"-", "rad/s"}}};
  static constexpr bool uses_axis = true;

  static void random(const Joint& joint, Random& gen, double* q) {
    constexpr double kPi = 3.14159265358979323846;
    const double lo = std::isfinite(joint.limits.lower) ? joint.limits.lower : -kPi;
    const double hi = std::isfinite(joint.limits.upper) ? joint.limits.upper : kPi;
    q[0] = uniform(gen, lo, hi);
  }

  static Transform transform(const Joint& joint, const double* q) {
    return Transform(rotationAboutAxis(joint.axis, q[0]), Vector3::Zero());
  }

  /// X_PB = (R_PJ Rot(axis, q), p_PJ): axes along +-x, +-y or +-z (most URDFs) turn two columns
  /// of R_PJ; any other takes Rodrigues' formula Rot = c 1 + s [a] + (1 - c) a a^T.
  static void placement(const Joint& joint, const double* q, Transform& X_PB) {
    const Matrix3& R_PJ = joint.X_PJ.rotation();
    const Vector3& a = joint.axis;
    double s, c;
    detail::sinCos(q[0], s, c);
    Matrix3& R_PB = X_PB.rotation();
    if (a.x() == 0.0 && a.y() == 0.0) {
      turnAboutCoordinateAxis<2>(joint, a.z() > 0.0 ? s : -s, c, R_PB);
    } else if (a.y() == 0.0 && a.z() == 0.0) {
      turnAboutCoordinateAxis<0>(joint, a.x() > 0.0 ? s : -s, c, R_PB);
    } else if (a.z() == 0.0 && a.x() == 0.0) {
      turnAboutCoordinateAxis<1>(joint, a.y() > 0.0 ? s : -s, c, R_PB);
    } else {
      Matrix3 R_JB = ((1.0 - c) * a) * a.transpose() + s * skew(a);
      R_JB.diagonal().array() += c;
      R_PB = R_PJ * R_JB;
    }
    X_PB.translation() = joint.X_PJ.translation();
  }

  static void subspace(const Joint& joint, const double*, SubspaceMap<1> S) {
    S.col(0) << joint.axis, Vector3::Zero();
  }
  static JointMatrix localJacobian(const Joint& joint, const double*) {
    JointMatrix J(6, 1);
    J << joint.axis, Vector3::Zero();
    return J;
  }

  static void addSubspaceTimes(const Joint& joint, const Data&, const double* x, Motion& m) {
    m.angular() += x[0] * joint.axis;
  }
  static void addVelocityProduct(const Joint& joint, const Data&, const Motion& V,
                                 const double* v, Motion& A) {
    A.angular() += v[0] * V.angular().cross(joint.axis);
    A.linear() += v[0] * V.linear().cross(joint.axis);
  }
  /// The recursion's step in one pass over the halves.
  static void addMotion(const Joint& joint, const Data&, const double*, const double* v,
                        const double* a, Motion& V, Motion& A) {
    const Vector3& axis = joint.axis;
    A.angular() += a[0] * axis + v[0] * V.angular().cross(axis);
    A.linear() += v[0] * V.linear().cross(axis);
    V.angular() += v[0] * axis;
  }
  static void projectForce(const Joint& joint, const Data&, const Force& f, double* out) {
    out[0] = joint.axis.dot(f.angular());
  }
  static void articulatedTerms(const Joint& joint, const Data&, const Matrix6& Ia,
                               const Vector6& pa, Eigen::Matrix<double, 6, 1>& U,
                               Eigen::Matrix<double, 1, 1>& D, Eigen::Matrix<double, 1, 1>& STpa) {
    U.noalias() = Ia.leftCols<3>() * joint.axis;
    D(0, 0) = joint.axis.dot(U.head<3>());
    STpa(0, 0) = joint.axis.dot(pa.head<3>());
  }
  /// Ic (axis, 0) = (I_o axis, axis x h).
  static void compositeColumn(const Joint& joint, const Data&, const InertiaMoments& Ic, int,
                              Vector3& n, Vector3& f) {
    n.noalias() = Ic.inertiaAboutOrigin() * joint.axis;
    f = joint.axis.cross(Ic.firstMoment());
  }
  static double subspaceDot(const Joint& joint, const Data&, int, const Vector3& n,
                            const Vector3&) {
    return joint.axis.dot(n);
  }

 private:
  /// R_PB = R_PJ Rot(e_I, angle) for the coordinate axis e_I: only columns J = I + 1 and
  /// K = I + 2 (mod 3) of R_PJ turn, by s = sin(angle) and c = cos(angle) (with R_PJ = 1, only
  /// four entries of the identity).
  template <int I>
  static void turnAboutCoordinateAxis(const Joint& joint, double s, double c, Matrix3& R_PB) {
    constexpr int J = (I + 1) % 3, K = (I + 2) % 3;
    if (joint.parent_axes) {
      R_PB.setIdentity();
      R_PB(J, J) = c;
      R_PB(K, J) = s;
      R_PB(J, K) = -s;
      R_PB(K, K) = c;
      return;
    }
    const Matrix3& R_PJ = joint.X_PJ.rotation();
    R_PB.col(I) = R_PJ.col(I);
    R_PB.col(J) = c * R_PJ.col(J) + s * R_PJ.col(K);
    R_PB.col(K) = c * R_PJ.col(K) - s * R_PJ.col(J);
  }
};

}  // namespace gcbridge::joints
