#pragma once
// Private to gcbridge::dynamics: the interface every joint kernel has, and what a kernel gets
// for free.
//
// A kernel is a struct of static functions, one per joint kind (one file each in this folder:
// fixed, revolute, prismatic, planar, ball_quaternion, ball_expmap, ball_euler_xyz, free),
// deriving from Kernel<Itself, nq, nv>. dispatch.hpp turns a Joint into its kernel; the algorithms
// call the kernel's functions and never look at the joint type. What Kernel provides below is the
// general case (a vector-space configuration, and the algorithm steps through the joint's columns
// of Data::S_B); a kernel spells out what it can do faster, e.g. with S = (axis, 0).
//
// Frames: P the parent link, J the joint frame fixed in P (Joint::X_PJ), C the child link. S is
// the motion subspace in C (V_PC_C = S v), J-hat the local Jacobian in J.

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "gcbridge/dynamics/joint.hpp"
#include "gcbridge/dynamics/model.hpp"
#include "gcbridge/dynamics/spatial.hpp"

namespace gcbridge::joints {

/// The random engine of randomConfiguration (the same numbers on every standard library).
using Random = std::mt19937_64;

/// Uniform double in [0, 1) from the top 53 bits.
inline double uniform01(Random& gen) { return static_cast<double>(gen() >> 11) * 0x1.0p-53; }
inline double uniform(Random& gen, double lo, double hi) { return lo + (hi - lo) * uniform01(gen); }
/// A rotation uniform on SO(3) (Shoemake).
inline Quaternion randomQuaternion(Random& gen) {
  constexpr double kTwoPi = 6.283185307179586476925;
  const double u1 = uniform01(gen), u2 = kTwoPi * uniform01(gen), u3 = kTwoPi * uniform01(gen);
  const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
  return Quaternion(b * std::cos(u3), a * std::sin(u2), a * std::cos(u2), b * std::sin(u3));
}

/// A joint's columns of S, in place in Data::S_B (6 x nv, column-major, contiguous).
template <int NV>
using SubspaceMap = Eigen::Map<Eigen::Matrix<double, 6, NV>>;
/// A joint's slice of a velocity-sized vector.
template <int NV>
using Slice = Eigen::Map<const Eigen::Matrix<double, NV, 1>>;
template <int NV>
using MutableSlice = Eigen::Map<Eigen::Matrix<double, NV, 1>>;

template <typename Derived, int NQ, int NV>
struct Kernel {
  static constexpr int nq = NQ;
  static constexpr int nv = NV;
  /// Whether S changes with q (then Data::S_B is refreshed with q, and S_dot v is not zero).
  static constexpr bool subspace_depends_on_q = false;
  /// Whether Joint::axis means something (revolute, prismatic: the axis; planar: the normal).
  static constexpr bool uses_axis = false;
  /// Whether it is a ball joint (then it has velocityFromAngularVelocity).
  static constexpr bool is_ball = false;

  // --- The configuration space: a vector space unless the kernel says otherwise -------------

  /// Where in its slice of q the joint keeps a unit quaternion, or -1. Being unit is the only
  /// constraint on a finite configuration (Model::unit_quaternions lists them all).
  static constexpr int unit_quaternion_at = -1;

  static void neutral(double* q) { std::fill(q, q + NQ, 0.0); }
  /// Throws InvalidArgumentError for a slice that is finite but not a configuration (a quaternion
  /// far from unit); `first` is the slice's index in q, for the message.
  static void checkConfiguration(const Joint&, const double*, int) {}
  static void normalize(double*) {}
  /// q_out = q (+) v dt (q_out may alias q).
  static void integrate(const Joint&, const double* q, const double* v, double dt, double* out) {
    for (int i = 0; i < NQ; ++i) out[i] = q[i] + v[i] * dt;
  }
  /// v with q0 (+) v = q1.
  static void difference(const Joint&, const double* q0, const double* q1, double* v) {
    for (int i = 0; i < NV; ++i) v[i] = q1[i] - q0[i];
  }
  /// d(q (+) v dt)/dv in the tangent space at the result (nv x nv, column-major into `J`).
  static void integrationJacobian(const double*, double dt, double* J) {
    Eigen::Map<Eigen::Matrix<double, NV, NV>>{J} = dt * Eigen::Matrix<double, NV, NV>::Identity();
  }
  /// The rate d(delta)/dt of the tangent coordinates of q = q0 (+) delta moving with velocity v.
  static void tangentRates(const double*, const double* v, double* delta_dot) {
    std::copy(v, v + NV, delta_dot);
  }
  /// Velocity and acceleration of q(t) = q0 (+) delta(t) from delta's first two derivatives.
  static void tangentCurve(const double*, const double* delta_dot, const double* delta_ddot,
                           double* v, double* a) {
    std::copy(delta_dot, delta_dot + NV, v);
    std::copy(delta_ddot, delta_ddot + NV, a);
  }

  // --- Kinematics ---------------------------------------------------------------------------

  /// X_PB = X_PJ X_JC(q).
  static void placement(const Joint& joint, const double* q, Transform& X_PB) {
    if (!joint.parent_axes) {
      X_PB = joint.X_PJ * Derived::transform(joint, q);
      return;
    }
    const Transform X_JC = Derived::transform(joint, q);
    X_PB.rotation() = X_JC.rotation();
    X_PB.translation() = X_JC.translation() + joint.X_PJ.translation();
  }
  /// S_dot v in C: zero where S does not depend on q.
  static Motion bias(const Joint&, const double*, const double*) { return Motion::Zero(); }
  /// dS/dt in C when the joint moves with v.
  static Eigen::Matrix<double, 6, NV> subspaceDerivative(const Joint&, const double*,
                                                         const double*) {
    return Eigen::Matrix<double, 6, NV>::Zero();
  }

  // --- The algorithms' steps, through the joint's columns of Data::S_B -----------------------

  static auto columns(const Joint& joint, const Data& data) {
    return data.S_B.template middleCols<NV>(joint.idx_v);
  }
  /// m += S x.
  static void addSubspaceTimes(const Joint& joint, const Data& data, const double* x, Motion& m) {
    m.vector().noalias() += columns(joint, data) * Slice<NV>(x);
  }
  /// A += V x (S v): the velocity-product acceleration of the joint's motion.
  static void addVelocityProduct(const Joint& joint, const Data& data, const Motion& V,
                                 const double* v, Motion& A) {
    A += V.cross(Motion(Vector6(columns(joint, data) * Slice<NV>(v))));
  }
  /// The joint's step of the velocity and acceleration recursion (RNEA):
  /// A += S a + V x (S v) + S_dot v, then V += S v.
  static void addMotion(const Joint& joint, const Data& data, const double* q, const double* v,
                        const double* a, Motion& V, Motion& A) {
    Derived::addSubspaceTimes(joint, data, a, A);
    if constexpr (Derived::subspace_depends_on_q) A += Derived::bias(joint, q, v);
    Derived::addVelocityProduct(joint, data, V, v, A);
    Derived::addSubspaceTimes(joint, data, v, V);
  }
  /// out = S^T f.
  static void projectForce(const Joint& joint, const Data& data, const Force& f, double* out) {
    MutableSlice<NV>(out).noalias() = columns(joint, data).transpose() * f.vector();
  }
  /// U = Ia S, D = S^T Ia S and S^T pa of the articulated-body algorithm.
  static void articulatedTerms(const Joint& joint, const Data& data, const Matrix6& Ia,
                               const Vector6& pa, Eigen::Matrix<double, 6, NV>& U,
                               Eigen::Matrix<double, NV, NV>& D,
                               Eigen::Matrix<double, NV, 1>& STpa) {
    const auto S = columns(joint, data);
    U.noalias() = Ia * S;
    D.noalias() = S.transpose() * U;
    STpa.noalias() = S.transpose() * pa;
  }
  /// The force Ic S_i (column i of the joint's S) as its halves (n, f).
  static void compositeColumn(const Joint& joint, const Data& data, const InertiaMoments& Ic,
                              int i, Vector3& n, Vector3& f) {
    const Force F = Ic * Motion(Vector6(columns(joint, data).col(i)));
    n = F.angular();
    f = F.linear();
  }
  /// S_i . (n, f) for column i of the joint's S.
  static double subspaceDot(const Joint& joint, const Data& data, int i, const Vector3& n,
                            const Vector3& f) {
    const auto column = columns(joint, data).col(i);
    return column.template head<3>().dot(n) + column.template tail<3>().dot(f);
  }
};

}  // namespace gcbridge::joints
