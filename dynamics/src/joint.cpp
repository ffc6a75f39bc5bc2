#include "gcbridge/dynamics/joint.hpp"

#include <cmath>
#include <string>

#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge {
namespace {

// The scalar functions of theta = |r| that the exponential map needs (seed 002 eq. 53-56):
// s = sin(t)/t, a = (1-cos t)/t^2, b = (t - sin t)/t^3 and their derivatives divided by t,
// da = a'(t)/t, db = b'(t)/t. Below t = 0.5 their Taylor series are used (eq. 55-56 are the
// first terms), which avoids the cancellation of the closed forms near 0 and is exact to
// rounding there (the first omitted term is below 1e-20).
struct ExpCoefficients {
  double s, a, b, da, db;
};

ExpCoefficients expCoefficients(double t) {
  ExpCoefficients c;
  if (t < 0.5) {
    const double t2 = t * t;
    // Series sum_k (-1)^k t^(2k) / (2k+m)!  and the derivative series / t.
    auto series = [t2](int m) {
      double sum = 0.0, term = 1.0;
      for (int i = 1; i <= m; ++i) term /= i;  // 1/m!
      for (int k = 0; k < 10; ++k) {
        sum += term;
        term *= -t2 / ((2 * k + m + 1) * (2 * k + m + 2));
      }
      return sum;
    };
    auto derivative_series = [t2](int m) {
      double sum = 0.0, term = 1.0;  // term = (-1)^k t^(2k-2) / (2k+m)!, starting at k = 1
      for (int i = 1; i <= m + 2; ++i) term /= i;
      term = -term;
      for (int k = 1; k < 10; ++k) {
        sum += 2 * k * term;
        term *= -t2 / ((2 * k + m + 1) * (2 * k + m + 2));
      }
      return sum;
    };
    c.s = series(1);
    c.a = series(2);
    c.b = series(3);
    c.da = derivative_series(2);
    c.db = derivative_series(3);
  } else {
    const double st = std::sin(t), one_minus_ct = 2.0 * std::sin(0.5 * t) * std::sin(0.5 * t);
    const double t2 = t * t;
    c.s = st / t;
    c.a = one_minus_ct / t2;
    c.b = (t - st) / (t2 * t);
    c.da = (t * st - 2.0 * one_minus_ct) / (t2 * t2);
    c.db = (t * one_minus_ct - 3.0 * (t - st)) / (t2 * t2 * t);
  }
  return c;
}

Vector3 vec3(const double* p) { return Vector3(p[0], p[1], p[2]); }

}  // namespace

const char* toString(JointType type) {
  switch (type) {
    case JointType::Fixed:
      return "fixed";
    case JointType::Revolute:
      return "revolute";
    case JointType::Prismatic:
      return "prismatic";
    case JointType::Ball:
      return "ball";
    case JointType::Free:
      return "free";
  }
  return "unknown";
}

const char* toString(BallParametrization param) {
  switch (param) {
    case BallParametrization::Quaternion:
      return "quaternion";
    case BallParametrization::ExpMap:
      return "expmap";
    case BallParametrization::EulerXYZ:
      return "euler_xyz";
  }
  return "unknown";
}

int jointNq(JointType type, BallParametrization ball) {
  switch (type) {
    case JointType::Fixed:
      return 0;
    case JointType::Revolute:
    case JointType::Prismatic:
      return 1;
    case JointType::Ball:
      return ball == BallParametrization::Quaternion ? 4 : 3;
    case JointType::Free:
      return 7;
  }
  return 0;
}

int jointNv(JointType type) {
  switch (type) {
    case JointType::Fixed:
      return 0;
    case JointType::Revolute:
    case JointType::Prismatic:
      return 1;
    case JointType::Ball:
      return 3;
    case JointType::Free:
      return 6;
  }
  return 0;
}

Quaternion quaternionFromCoeffs(const double* xyzw) {
  Quaternion Q(xyzw[3], xyzw[0], xyzw[1], xyzw[2]);
  Q.normalize();
  return Q;
}

Matrix3 expMapRotation(const Vector3& r) {
  // Eq. 53: R = I + sin(t)/t [r] + (1 - cos t)/t^2 [r]^2.
  const ExpCoefficients c = expCoefficients(r.norm());
  const Matrix3 K = skew(r);
  return Matrix3::Identity() + c.s * K + c.a * K * K;
}

Vector3 rotationToExpMap(const Matrix3& R) {
  // Through the unit quaternion with w >= 0, so the angle 2 atan2(|v|, w) lies in [0, pi].
  Quaternion Q(R);
  if (Q.w() < 0.0) Q.coeffs() = -Q.coeffs();
  const double n = Q.vec().norm();
  const double scale = n < 1e-8 ? 2.0 / Q.w() : 2.0 * arcTan2(n, Q.w()) / n;
  return scale * Q.vec();
}

Matrix3 expMapJacobian(const Vector3& r) {
  // Eq. 54: J-hat = I + (1 - cos t)/t^2 [r] + (t - sin t)/t^3 [r]^2.
  const ExpCoefficients c = expCoefficients(r.norm());
  const Matrix3 K = skew(r);
  return Matrix3::Identity() + c.a * K + c.b * K * K;
}

Matrix3 eulerXYZRotation(const Vector3& abc) {
  return (Eigen::AngleAxisd(abc.x(), Vector3::UnitX()) *
          Eigen::AngleAxisd(abc.y(), Vector3::UnitY()) *
          Eigen::AngleAxisd(abc.z(), Vector3::UnitZ()))
      .toRotationMatrix();
}

Vector3 rotationToEulerXYZ(const Matrix3& R) {
  // R = Rx(a) Ry(b) Rz(c): R(0,2) = sin b, R(1,2) = -sin a cos b, R(2,2) = cos a cos b,
  // R(0,1) = -cos b sin c, R(0,0) = cos b cos c.
  const double cb = std::hypot(R(0, 0), R(0, 1));
  const double b = std::atan2(R(0, 2), cb);
  if (cb > 1e-12) return Vector3(std::atan2(-R(1, 2), R(2, 2)), b, std::atan2(-R(0, 1), R(0, 0)));
  // Gimbal lock: only a + c (or a - c) is defined; put it all in a.
  return Vector3(std::atan2(R(2, 1), R(1, 1)), b, 0.0);
}

Matrix3 eulerXYZJacobian(const Vector3& abc) {
  // Eq. 52: J-hat = [e_x, Rx(a) e_y, Rx(a) Ry(b) e_z].
  const double sa = std::sin(abc.x()), ca = std::cos(abc.x());
  const double sb = std::sin(abc.y()), cb = std::cos(abc.y());
  Matrix3 E;
  E << 1.0, 0.0, sb, 0.0, ca, -sa * cb, 0.0, sa, ca * cb;
  return E;
}

Transform jointTransform(const Joint& joint, const double* q) {
  switch (joint.type) {
    case JointType::Fixed:
      return Transform::Identity();
    case JointType::Revolute:
      return Transform(rotationAboutAxis(joint.axis, q[0]), Vector3::Zero());
    case JointType::Prismatic:
      return Transform(Matrix3::Identity(), joint.axis * q[0]);
    case JointType::Ball:
      switch (joint.ball) {
        case BallParametrization::Quaternion:
          return Transform(quaternionFromCoeffs(q).toRotationMatrix(), Vector3::Zero());
        case BallParametrization::ExpMap:
          return Transform(expMapRotation(vec3(q)), Vector3::Zero());
        case BallParametrization::EulerXYZ:
          return Transform(eulerXYZRotation(vec3(q)), Vector3::Zero());
      }
      break;
    case JointType::Free:
      return Transform(quaternionFromCoeffs(q + 3).toRotationMatrix(), vec3(q));
  }
  return Transform::Identity();
}

JointMatrix jointMotionSubspace(const Joint& joint, const double* q) {
  JointMatrix S(6, joint.nv);
  S.setZero();
  switch (joint.type) {
    case JointType::Fixed:
      break;
    case JointType::Revolute:
      S.col(0).head<3>() = joint.axis;
      break;
    case JointType::Prismatic:
      S.col(0).tail<3>() = joint.axis;
      break;
    case JointType::Ball:
      switch (joint.ball) {
        case BallParametrization::Quaternion:
          S.topRows<3>().setIdentity();
          break;
        case BallParametrization::ExpMap: {
          // omega_C = R^T omega_J = R^T J-hat(r) dr/dt.
          const Vector3 r = vec3(q);
          S.topRows<3>() = expMapRotation(r).transpose() * expMapJacobian(r);
          break;
        }
        case BallParametrization::EulerXYZ: {
          // omega_C = R^T J-hat: columns Rz^T Ry^T e_x, Rz^T e_y, e_z.
          const double sb = std::sin(q[1]), cb = std::cos(q[1]);
          const double sc = std::sin(q[2]), cc = std::cos(q[2]);
          S.topRows<3>() << cb * cc, sc, 0.0, -cb * sc, cc, 0.0, sb, 0.0, 1.0;
          break;
        }
      }
      break;
    case JointType::Free:
      S.setIdentity();
      break;
  }
  return S;
}

JointMatrix jointMotionSubspaceDerivative(const Joint& joint, const double* q, const double* v) {
  JointMatrix dS(6, joint.nv);
  dS.setZero();
  if (joint.type != JointType::Ball || joint.ball == BallParametrization::Quaternion) return dS;
  if (joint.ball == BallParametrization::ExpMap) {
    // S_ang = R^T J-hat(r) = I - a [r] + b [r]^2 (the right Jacobian); its time derivative is
    // -a_dot [r] - a [r_dot] + b_dot [r]^2 + b ([r_dot][r] + [r][r_dot]), with
    // a_dot = (a'/t)(r . r_dot) and likewise for b.
    const Vector3 r = vec3(q), rd = vec3(v);
    const ExpCoefficients c = expCoefficients(r.norm());
    const double rrd = r.dot(rd);
    const Matrix3 K = skew(r), Kd = skew(rd);
    dS.topRows<3>() = -c.da * rrd * K - c.a * Kd + c.db * rrd * K * K + c.b * (Kd * K + K * Kd);
    return dS;
  }
  // EulerXYZ: the columns of S_ang (see jointMotionSubspace) differentiated in time.
  const double sb = std::sin(q[1]), cb = std::cos(q[1]);
  const double sc = std::sin(q[2]), cc = std::cos(q[2]);
  const double bd = v[1], cd = v[2];
  dS.col(0).head<3>() = bd * Vector3(-sb * cc, sb * sc, cb) + cd * Vector3(-cb * sc, -cb * cc, 0.0);
  dS.col(1).head<3>() = cd * Vector3(cc, -sc, 0.0);
  return dS;
}

Motion jointBiasAcceleration(const Joint& joint, const double* q, const double* v) {
  if (joint.type != JointType::Ball || joint.ball == BallParametrization::Quaternion) {
    return Motion::Zero();
  }
  return Motion(Vector6(jointMotionSubspaceDerivative(joint, q, v) * Eigen::Map<const Vector3>(v)));
}

JointMatrix jointLocalJacobian(const Joint& joint, const double* q) {
  JointMatrix J(6, joint.nv);
  J.setZero();
  switch (joint.type) {
    case JointType::Fixed:
      break;
    case JointType::Revolute:
      J.col(0).head<3>() = joint.axis;
      break;
    case JointType::Prismatic:
      J.col(0).tail<3>() = joint.axis;
      break;
    case JointType::Ball:
      switch (joint.ball) {
        case BallParametrization::Quaternion:
          J.topRows<3>() = quaternionFromCoeffs(q).toRotationMatrix();
          break;
        case BallParametrization::ExpMap:
          J.topRows<3>() = expMapJacobian(vec3(q));
          break;
        case BallParametrization::EulerXYZ:
          J.topRows<3>() = eulerXYZJacobian(vec3(q));
          break;
      }
      break;
    case JointType::Free: {
      const Matrix3 R = quaternionFromCoeffs(q + 3).toRotationMatrix();
      J.topLeftCorner<3, 3>() = R;
      J.bottomRightCorner<3, 3>() = R;
      break;
    }
  }
  return J;
}

Vector3 ballVelocityFromAngularVelocity(const Joint& joint, const double* q,
                                        const Vector3& omega_J) {
  if (joint.type != JointType::Ball) {
    throw InvalidArgumentError("ballVelocityFromAngularVelocity: joint '" + joint.name + "' is a " +
                               toString(joint.type) + " joint, not a ball joint");
  }
  switch (joint.ball) {
    case BallParametrization::Quaternion:
      return quaternionFromCoeffs(q).toRotationMatrix().transpose() * omega_J;
    case BallParametrization::ExpMap: {
      // det J-hat = (sin(t/2) / (t/2))^2 vanishes at t = 2 pi k, k >= 1.
      const double t = vec3(q).norm();
      const double sinc_half = t < 1e-8 ? 1.0 : std::sin(0.5 * t) / (0.5 * t);
      if (sinc_half * sinc_half < 1e-9) {
        throw SingularityError("ball joint '" + joint.name + "': exponential map angle " +
                               std::to_string(t) +
                               " rad is a multiple of 2 pi, where dr/dt is undefined");
      }
      return expMapJacobian(vec3(q)).inverse() * omega_J;
    }
    case BallParametrization::EulerXYZ: {
      // det J-hat = cos b: at gimbal lock the rates are undefined.
      if (std::abs(std::cos(q[1])) < 1e-9) {
        throw SingularityError("ball joint '" + joint.name +
                               "': Euler XYZ angle b = " + std::to_string(q[1]) +
                               " rad is at gimbal lock (cos b = 0), angle rates are undefined");
      }
      return eulerXYZJacobian(vec3(q)).inverse() * omega_J;
    }
  }
  return Vector3::Zero();
}

}  // namespace gcbridge
