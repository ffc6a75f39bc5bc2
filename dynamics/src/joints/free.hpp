#pragma once
// Private to gcbridge::dynamics: the free joint (kernel.hpp).
//
// q = (p_JC_J [m], unit quaternion of R_JC (x, y, z, w)), nq = 7; v = (omega_C [rad/s], v_Co_C
// [m/s]): the spatial velocity of C relative to P in C, nv = 6. X_JC = (R(q), p); S = 1 in C;
// J-hat = blockdiag(R_JC, R_JC). integrate moves p by R0 v_lin dt and right-multiplies the
// quaternion by exp(omega dt); difference is (log(Q0^-1 Q1), R0^T (p1 - p0)).

#include "gcbridge/dynamics/lie_group.hpp"
#include "kernel.hpp"
#include "quaternion.hpp"

namespace gcbridge::joints {

struct Free : Kernel<Free, 7, 6> {
  static constexpr std::array<JointCoordinate, 7> q_coordinates{
      {{"x", "m"}, {"y", "m"}, {"z", "m"}, {"qx", "-"}, {"qy", "-"}, {"qz", "-"}, {"qw", "-"}}};
  static constexpr std::array<JointCoordinate, 6> v_coordinates{{{"wx", "rad/s"},
                                                                 {"wy", "rad/s"},
                                                                 {"wz", "rad/s"},
                                                                 {"vx", "m/s"},
                                                                 {"vy", "m/s"},
                                                                 {"vz", "m/s"}}};
  static void neutral(double* q) {
    q[0] = q[1] = q[2] = 0.0;
    quaternion::neutral(q + 3);
  }
  /// Position uniform in [-1, 1]^3 m, rotation uniform.
  static void random(const Joint&, Random& gen, double* q) {
    for (int i = 0; i < 3; ++i) q[i] = uniform(gen, -1.0, 1.0);
    quaternion::store(randomQuaternion(gen), q + 3);
  }
  static constexpr int unit_quaternion_at = 3;
  static void checkConfiguration(const Joint& joint, const double* q, int first) {
    quaternion::checkUnit(joint, q + unit_quaternion_at, first + unit_quaternion_at);
  }
  static void normalize(double* q) { quaternion::normalize(q + 3); }
  static void integrate(const Joint&, const double* q, const double* v, double dt, double* out) {
    // The position first, with R0 read before `out` (which may alias q) is written.
    const Quaternion Q0 = quaternionFromCoeffs(q + 3);
    Eigen::Map<Vector3>{out} =
        Eigen::Map<const Vector3>(q) + Q0 * (Eigen::Map<const Vector3>(v + 3) * dt);
    quaternion::integrate(q + 3, v, dt, out + 3);
  }
  static void difference(const Joint&, const double* q0, const double* q1, double* v) {
    quaternion::difference(q0 + 3, q1 + 3, v);
    Eigen::Map<Vector3>(v + 3).noalias() =
        quaternion::rotation(q0 + 3).transpose() *
        (Eigen::Map<const Vector3>(q1) - Eigen::Map<const Vector3>(q0));
  }
  /// blockdiag(dt J_r(omega dt), dt exp([omega dt])^T): p1 = p0 + R0 v_lin dt moves by R0 dt
  /// dv_lin, which is exp([omega dt])^T dt dv_lin in the frame of R1 = R0 exp([omega dt]).
  static void integrationJacobian(const double* v, double dt, double* J) {
    Eigen::Map<Matrix6> J_6{J};
    J_6.setZero();
    quaternion::integrationJacobian(v, dt, J, 6);
    J_6.bottomRightCorner<3, 3>() =
        dt * expMapRotation(Eigen::Map<const Vector3>(v) * dt).transpose();
  }
  /// p = p0 + R0 delta_lin moves with p_dot = R0 exp([delta_ang]) v_lin.
  static void tangentRates(const double* delta, const double* v, double* delta_dot) {
    quaternion::tangentRates(delta, v, delta_dot);
    Eigen::Map<Vector3>(delta_dot + 3) =
        expMapRotation(Eigen::Map<const Vector3>(delta)) * Eigen::Map<const Vector3>(v + 3);
  }
  /// v_lin = E^T delta_lin_dot with E = exp([delta_ang]), and d/dt v_lin =
  /// E^T delta_lin_ddot - omega x v_lin (the body-frame components' derivative).
  static void tangentCurve(const double* delta, const double* delta_dot, const double* delta_ddot,
                           double* v, double* a) {
    quaternion::tangentCurve(delta, delta_dot, delta_ddot, v, a);
    const Matrix3 E_T = expMapRotation(Eigen::Map<const Vector3>(delta)).transpose();
    const Vector3 v_lin = E_T * Eigen::Map<const Vector3>(delta_dot + 3);
    Eigen::Map<Vector3>(v + 3) = v_lin;
    Eigen::Map<Vector3>(a + 3) =
        E_T * Eigen::Map<const Vector3>(delta_ddot + 3) - Eigen::Map<Vector3>(v).cross(v_lin);
  }

  static Transform transform(const Joint&, const double* q) {
    return Transform(quaternion::rotation(q + 3), Eigen::Map<const Vector3>(q));
  }
  static void subspace(const Joint&, const double*, SubspaceMap<6> S) { S.setIdentity(); }
  static JointMatrix localJacobian(const Joint&, const double* q) {
    const Matrix3 R = quaternion::rotation(q + 3);
    JointMatrix J = JointMatrix::Zero(6, 6);
    J.topLeftCorner<3, 3>() = R;
    J.bottomRightCorner<3, 3>() = R;
    return J;
  }

  /// m += x, half by half (spatialHalf says why).
  static void addSubspaceTimes(const Joint&, const Data&, const double* x, Motion& m) {
    m.angular() += Slice<3>(x);
    m.linear() += Slice<3>(x + 3);
  }
  /// A += V x v = (w x v_w, w x v_u + u x v_w) with V = (w, u) and v = (v_w, v_u).
  static void addVelocityProduct(const Joint&, const Data&, const Motion& V, const double* v,
                                 Motion& A) {
    const Vector3 w = spatialHalf(V.vector(), 0), u = spatialHalf(V.vector(), 3);
    const Vector3 v_w(v[0], v[1], v[2]), v_u(v[3], v[4], v[5]);
    A.angular() += w.cross(v_w);
    A.linear() += w.cross(v_u) + u.cross(v_w);
  }
  static void projectForce(const Joint&, const Data&, const Force& f, double* out) {
    MutableSlice<6>{out} = f.vector();
  }
  static void articulatedTerms(const Joint&, const Data&, const Matrix6& Ia, const Vector6& pa,
                               Matrix6& U, Matrix6& D, Vector6& STpa) {
    U = Ia;
    D = Ia;
    STpa = pa;
  }
  /// Ic e_i: (I_o e_i, e_i x h) for a rotation, (h x e, m e) for a translation along e.
  static void compositeColumn(const Joint&, const Data&, const InertiaMoments& Ic, int i,
                              Vector3& n, Vector3& f) {
    if (i < 3) {
      n = Ic.inertiaAboutOrigin().col(i);
      f = Vector3::Unit(i).cross(Ic.firstMoment());
    } else {
      n = Ic.firstMoment().cross(Vector3::Unit(i - 3));
      f = Ic.mass() * Vector3::Unit(i - 3);
    }
  }
  static double subspaceDot(const Joint&, const Data&, int i, const Vector3& n, const Vector3& f) {
    return i < 3 ? n[i] : f[i - 3];
  }
};

}  // namespace gcbridge::joints
