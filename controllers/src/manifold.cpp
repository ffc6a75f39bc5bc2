#include "gcbridge/controllers/manifold.hpp"

#include <array>
#include <cmath>

namespace gcbridge {
namespace {

bool hasQuaternion(const Joint& j) {
  return j.type == JointType::Free ||
         (j.type == JointType::Ball && j.ball == BallParametrization::Quaternion);
}

// The scalar functions of J_r and their derivatives at t = |r|:
// a = (1 - cos t)/t^2, b = (t - sin t)/t^3, da = a'(t)/t, db = b'(t)/t.
struct RightJacobianCoefficients {
  double a, b, da, db;
};

RightJacobianCoefficients rightJacobianCoefficients(double t) {
  RightJacobianCoefficients c{0.0, 0.0, 0.0, 0.0};
  if (t < 1.0) {
    // Taylor series in x = t^2 (the closed forms cancel catastrophically near 0):
    // a = sum (-x)^k/(2k+2)!, b = sum (-x)^k/(2k+3)!, and term by term a'/t, b'/t. Ten terms:
    // the first omitted one is below 1e-20 for t < 1.
    const double x = t * t;
    double xk = 1.0, sign = 1.0;
    // inv_fact[n] = 1/n!
    static const std::array<double, 24> inv_fact = [] {
      std::array<double, 24> f{};
      f[0] = 1.0;
      for (int n = 1; n < 24; ++n) f[n] = f[n - 1] / n;
      return f;
    }();
    for (int k = 0; k < 10; ++k) {
      c.a += sign * xk * inv_fact[2 * k + 2];
      c.b += sign * xk * inv_fact[2 * k + 3];
      c.da -= sign * 2.0 * (k + 1) * xk * inv_fact[2 * k + 4];
      c.db -= sign * 2.0 * (k + 1) * xk * inv_fact[2 * k + 5];
      xk *= x;
      sign = -sign;
    }
    return c;
  }
  // Closed forms, with 1 - cos t = 2 sin^2(t/2).
  const double s = std::sin(t), one_minus_cos = 2.0 * std::pow(std::sin(0.5 * t), 2);
  const double t2 = t * t;
  c.a = one_minus_cos / t2;
  c.b = (t - s) / (t2 * t);
  c.da = (t * s - 2.0 * one_minus_cos) / (t2 * t2);
  c.db = (one_minus_cos * t - 3.0 * (t - s)) / (t2 * t2 * t);
  return c;
}

}  // namespace

void configurationDifference(const Model& model, const ConstVectorRef& q0, const ConstVectorRef& q1,
                             Eigen::Ref<Eigen::VectorXd> e) {
  for (const Joint& j : model.joints) {
    const double* a = q0.data() + j.idx_q;
    const double* b = q1.data() + j.idx_q;
    double* out = e.data() + j.idx_v;
    if (!hasQuaternion(j)) {
      for (int i = 0; i < j.nv; ++i) out[i] = b[i] - a[i];
      continue;
    }
    // Rotation: log(Q0^-1 Q1) in the child frame at q0; free joints: translation in R0 axes.
    const int off = j.type == JointType::Free ? 3 : 0;
    const Quaternion Q0 = quaternionFromCoeffs(a + off), Q1 = quaternionFromCoeffs(b + off);
    Eigen::Map<Vector3>{out} = quaternionLog(Q0.conjugate() * Q1);
    if (j.type == JointType::Free) {
      Eigen::Map<Vector3>(out + 3) =
          Q0.conjugate() * (Eigen::Map<const Vector3>(b) - Eigen::Map<const Vector3>(a));
    }
  }
}

Matrix3 so3RightJacobian(const Vector3& r) {
  const RightJacobianCoefficients c = rightJacobianCoefficients(r.norm());
  const Matrix3 K = skew(r);
  return Matrix3::Identity() - c.a * K + c.b * K * K;
}

Matrix3 so3RightJacobianDerivative(const Vector3& r, const Vector3& r_dot) {
  // d/dt (1 - a [r] + b [r]^2) with da/dt = (a'/t) (r . rdot), likewise b.
  const RightJacobianCoefficients c = rightJacobianCoefficients(r.norm());
  const double r_rdot = r.dot(r_dot);
  const Matrix3 K = skew(r), Kd = skew(r_dot);
  return -c.da * r_rdot * K - c.a * Kd + c.db * r_rdot * K * K + c.b * (Kd * K + K * Kd);
}

void tangentCurveVelocity(const Model& model, const ConstVectorRef& delta,
                          const ConstVectorRef& delta_dot, const ConstVectorRef& delta_ddot,
                          Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> a) {
  for (const Joint& j : model.joints) {
    const int i = j.idx_v;
    if (!hasQuaternion(j)) {
      // v is the coordinate rate: q = q0 + delta.
      v.segment(i, j.nv) = delta_dot.segment(i, j.nv);
      a.segment(i, j.nv) = delta_ddot.segment(i, j.nv);
      continue;
    }
    // Rotation: omega = J_r r_dot, omegadot = J_r r_ddot + dJ_r/dt r_dot (child frame).
    const Vector3 r = delta.segment<3>(i), rd = delta_dot.segment<3>(i);
    const Vector3 rdd = delta_ddot.segment<3>(i);
    const Vector3 omega = so3RightJacobian(r) * rd;
    v.segment<3>(i) = omega;
    a.segment<3>(i) = so3RightJacobian(r) * rdd + so3RightJacobianDerivative(r, rd) * rd;
    if (j.type == JointType::Free) {
      // Translation p = p0 + R0 delta_lin: v_lin = E^T delta_lin_dot with E = exp([r]), and
      // d/dt v_lin = E^T delta_lin_ddot - omega x v_lin.
      const Matrix3 E_T = expMapRotation(r).transpose();
      const Vector3 v_lin = E_T * delta_dot.segment<3>(i + 3);
      v.segment<3>(i + 3) = v_lin;
      a.segment<3>(i + 3) = E_T * delta_ddot.segment<3>(i + 3) - omega.cross(v_lin);
    }
  }
}

}  // namespace gcbridge
