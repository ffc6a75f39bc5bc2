#include "gcbridge/dynamics/lie_group.hpp"

#include <array>
#include <cmath>

#include "gcbridge/dynamics/detail/fast_math.hpp"

namespace gcbridge {
namespace {

/// The scalar functions of t = |r| the exponential map and its Jacobians are made of:
/// s = sin(t)/t, a = (1 - cos t)/t^2, b = (t - sin t)/t^3, and the derivatives of a and b divided
/// by t, da = a'(t)/t, db = b'(t)/t (for d/dt of a Jacobian: da/dt = da (r . r_dot)).
struct ExpCoefficients {
  double s = 0.0, a = 0.0, b = 0.0, da = 0.0, db = 0.0;
};

/// 1/n! for n < 26.
const std::array<double, 26>& inverseFactorials() {
  static const std::array<double, 26> f = [] {
    std::array<double, 26> x{};
    x[0] = 1.0;
    for (std::size_t n = 1; n < x.size(); ++n) x[n] = x[n - 1] / static_cast<double>(n);
    return x;
  }();
  return f;
}

ExpCoefficients expCoefficients(double t) {
  ExpCoefficients c;
  if (t < 1.0) {
    // Series in x = t^2: s = sum (-x)^k/(2k+1)!, a = sum (-x)^k/(2k+2)!, b = sum (-x)^k/(2k+3)!,
    // and a'/t, b'/t term by term. Ten terms: the first omitted one is below 1e-20 for t < 1.
    const std::array<double, 26>& inv = inverseFactorials();
    const double x = t * t;
    double xk = 1.0, sign = 1.0;
    for (int k = 0; k < 10; ++k) {
      c.s += sign * xk * inv[2 * k + 1];
      c.a += sign * xk * inv[2 * k + 2];
      c.b += sign * xk * inv[2 * k + 3];
      c.da -= sign * 2.0 * (k + 1) * xk * inv[2 * k + 4];
      c.db -= sign * 2.0 * (k + 1) * xk * inv[2 * k + 5];
      xk *= x;
      sign = -sign;
    }
    return c;
  }
  // Closed forms, with 1 - cos t = 2 sin^2(t/2) (no cancellation).
  const double sin_t = std::sin(t), half = std::sin(0.5 * t);
  const double one_minus_cos = 2.0 * half * half;
  const double t2 = t * t;
  c.s = sin_t / t;
  c.a = one_minus_cos / t2;
  c.b = (t - sin_t) / (t2 * t);
  c.da = (t * sin_t - 2.0 * one_minus_cos) / (t2 * t2);
  c.db = (t * one_minus_cos - 3.0 * (t - sin_t)) / (t2 * t2 * t);
  return c;
}

}  // namespace

Matrix3 expMapRotation(const Vector3& r) {
  const ExpCoefficients c = expCoefficients(r.norm());
  const Matrix3 K = skew(r);
  return Matrix3::Identity() + c.s * K + c.a * K * K;
}

Vector3 rotationToExpMap(const Matrix3& R) { return quaternionLog(Quaternion(R)); }

Quaternion quaternionExp(const Vector3& r) {
  const double t = r.norm();
  // sin(t/2)/t, with its series below 1e-4 (error < 1e-18).
  const double s = t < 1e-4 ? 0.5 - t * t / 48.0 : std::sin(0.5 * t) / t;
  return Quaternion(std::cos(0.5 * t), s * r.x(), s * r.y(), s * r.z());
}

Vector3 quaternionLog(const Quaternion& Q_in) {
  // Through the quaternion with w >= 0, so the angle 2 atan2(|v|, w) lies in [0, pi]; below
  // |v| / w = 1e-8 the angle's series 2 |v| / w (relative error (|v| / w)^2 / 3).
  Quaternion Q = Q_in;
  if (Q.w() < 0.0) Q.coeffs() = -Q.coeffs();
  const double n = Q.vec().norm();
  const double scale = n < 1e-8 * Q.w() ? 2.0 / Q.w() : 2.0 * detail::arcTan2(n, Q.w()) / n;
  return scale * Q.vec();
}

Matrix3 so3LeftJacobian(const Vector3& r) {
  const ExpCoefficients c = expCoefficients(r.norm());
  const Matrix3 K = skew(r);
  return Matrix3::Identity() + c.a * K + c.b * K * K;
}

Matrix3 so3RightJacobian(const Vector3& r) {
  const ExpCoefficients c = expCoefficients(r.norm());
  const Matrix3 K = skew(r);
  return Matrix3::Identity() - c.a * K + c.b * K * K;
}

Matrix3 so3RightJacobianDerivative(const Vector3& r, const Vector3& r_dot) {
  // d/dt (1 - a [r] + b [r]^2) with da/dt = (a'/t) (r . r_dot), likewise b.
  const ExpCoefficients c = expCoefficients(r.norm());
  const double r_rdot = r.dot(r_dot);
  const Matrix3 K = skew(r), Kd = skew(r_dot);
  return -c.da * r_rdot * K - c.a * Kd + c.db * r_rdot * K * K + c.b * (Kd * K + K * Kd);
}

}  // namespace gcbridge
