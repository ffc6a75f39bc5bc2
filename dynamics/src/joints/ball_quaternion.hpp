#pragma once
// Private to gcbridge::dynamics: the ball joint with a unit quaternion (kernel.hpp).
//
// q: the unit quaternion of R_JC, (x, y, z, w), nq = 4; v: the angular velocity of C relative to
// P, expressed in C [rad/s], nv = 3. X_JC = (R(q), 0); S = (1, 0) in C; J-hat = (R_JC, 0).
// q lives on the unit sphere: integrate right-multiplies by exp(omega dt), difference is
// log(Q0^-1 Q1) (quaternion.hpp).

#include "gcbridge/dynamics/lie_group.hpp"
#include "kernel.hpp"
#include "quaternion.hpp"

namespace gcbridge::joints {

struct BallQuaternion : Kernel<BallQuaternion, 4, 3> {
  static constexpr std::array<JointCoordinate, 4> q_coordinates{
      {{"qx", "-"}, {"qy", "-"}, {"qz", "-"}, {"qw", "-"}}};
  static constexpr std::array<JointCoordinate, 3> v_coordinates{
      {{"wx", "rad/s"}, {"wy", "rad/s"}, {"wz", "rad/s"}}};
  static constexpr bool is_ball = true;
  static constexpr int unit_quaternion_at = 0;
  static void neutral(double* q) { quaternion::neutral(q); }
  static void random(const Joint&, Random& gen, double* q) {
    quaternion::store(randomQuaternion(gen), q);
  }
  static void checkConfiguration(const Joint& joint, const double* q, int first) {
    quaternion::checkUnit(joint, q, first);
  }
  static void normalize(double* q) { quaternion::normalize(q); }
  static void integrate(const Joint&, const double* q, const double* v, double dt, double* out) {
    quaternion::integrate(q, v, dt, out);
  }
  static void difference(const Joint&, const double* q0, const double* q1, double* v) {
    quaternion::difference(q0, q1, v);
  }
  static void integrationJacobian(const double* v, double dt, double* J) {
    quaternion::integrationJacobian(v, dt, J, 3);
  }
  static void tangentRates(const double* delta, const double* v, double* delta_dot) {
    quaternion::tangentRates(delta, v, delta_dot);
  }
  static void tangentCurve(const double* delta, const double* delta_dot, const double* delta_ddot,
                           double* v, double* a) {
    quaternion::tangentCurve(delta, delta_dot, delta_ddot, v, a);
  }

  static Transform transform(const Joint&, const double* q) {
    return Transform(quaternion::rotation(q), Vector3::Zero());
  }
  /// X_PB = (R_PJ R(q), p_PJ).
  static void placement(const Joint& joint, const double* q, Transform& X_PB) {
    if (joint.parent_axes) {
      X_PB.rotation() = quaternion::rotation(q);
    } else {
      X_PB.rotation().noalias() = joint.X_PJ.rotation() * quaternion::rotation(q);
    }
    X_PB.translation() = joint.X_PJ.translation();
  }
  static void subspace(const Joint&, const double*, SubspaceMap<3> S) {
    S.topRows<3>().setIdentity();
    S.bottomRows<3>().setZero();
  }
  static JointMatrix localJacobian(const Joint&, const double* q) {
    JointMatrix J = JointMatrix::Zero(6, 3);
    J.topRows<3>() = quaternion::rotation(q);
    return J;
  }
  /// omega_J -> v = R_JC^T omega_J.
  static Vector3 velocityFromAngularVelocity(const Joint&, const double* q,
                                             const Vector3& omega_J) {
    return quaternion::rotation(q).transpose() * omega_J;
  }

  static void addSubspaceTimes(const Joint&, const Data&, const double* x, Motion& m) {
    m.angular() += Slice<3>(x);
  }
  static void addVelocityProduct(const Joint&, const Data&, const Motion& V, const double* v,
                                 Motion& A) {
    const Slice<3> w(v);
    A.angular() += V.angular().cross(w);
    A.linear() += V.linear().cross(w);
  }
  static void projectForce(const Joint&, const Data&, const Force& f, double* out) {
    MutableSlice<3>{out} = f.angular();
  }
  static void articulatedTerms(const Joint&, const Data&, const Matrix6& Ia, const Vector6& pa,
                               Eigen::Matrix<double, 6, 3>& U, Matrix3& D, Vector3& STpa) {
    U = Ia.leftCols<3>();
    D = Ia.topLeftCorner<3, 3>();
    STpa = pa.head<3>();
  }
  /// Ic (e_i, 0) = (I_o e_i, e_i x h).
  static void compositeColumn(const Joint&, const Data&, const InertiaMoments& Ic, int i,
                              Vector3& n, Vector3& f) {
    n = Ic.inertiaAboutOrigin().col(i);
    f = Vector3::Unit(i).cross(Ic.firstMoment());
  }
  static double subspaceDot(const Joint&, const Data&, int i, const Vector3& n, const Vector3&) {
    return n[i];
  }
};

}  // namespace gcbridge::joints
