#include "gcbridge/dynamics/configuration.hpp"

#include <cmath>
#include <random>
#include <string>

#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Uniform double in [0, 1) from the top 53 bits: the same on every standard library.
double uniform01(std::mt19937_64& gen) { return static_cast<double>(gen() >> 11) * 0x1.0p-53; }
double uniform(std::mt19937_64& gen, double lo, double hi) {
  return lo + (hi - lo) * uniform01(gen);
}

bool hasQuaternion(const Joint& j) {
  return j.type == JointType::Free ||
         (j.type == JointType::Ball && j.ball == BallParametrization::Quaternion);
}
// Offset of the quaternion within the joint's q slice.
int quaternionOffset(const Joint& j) { return j.type == JointType::Free ? 3 : 0; }

void storeQuaternion(const Quaternion& Q, double* xyzw) {
  xyzw[0] = Q.x();
  xyzw[1] = Q.y();
  xyzw[2] = Q.z();
  xyzw[3] = Q.w();
}

}  // namespace

void validateConfiguration(const Model& model, const ConstVectorRef& q) {
  if (q.size() != model.nq) {
    throw InvalidArgumentError("configuration q has size " + std::to_string(q.size()) +
                               ", model '" + model.name +
                               "' needs nq = " + std::to_string(model.nq));
  }
  // One vectorized check; the entry at fault is looked for only when it fails.
  const bool finite = q.allFinite();
  // Only quaternion coordinates (one more per joint than its dofs) have more to check.
  if (finite && model.nq == model.nv) return;
  for (const Joint& j : model.joints) {
    for (int i = 0; i < j.nq && !finite; ++i) {
      if (!std::isfinite(q[j.idx_q + i])) {
        throw InvalidArgumentError("configuration q[" + std::to_string(j.idx_q + i) +
                                   "] of joint '" + j.name + "' is not finite");
      }
    }
    if (hasQuaternion(j)) {
      // |norm - 1| <= tolerance, compared squared: no square root unless it fails.
      const double norm2 = q.segment<4>(j.idx_q + quaternionOffset(j)).squaredNorm();
      constexpr double kLow = (1.0 - kQuaternionNormTolerance) * (1.0 - kQuaternionNormTolerance);
      constexpr double kHigh = (1.0 + kQuaternionNormTolerance) * (1.0 + kQuaternionNormTolerance);
      if (!(norm2 >= kLow && norm2 <= kHigh)) {
        const double norm = std::sqrt(norm2);
        throw InvalidArgumentError("joint '" + j.name + "': quaternion q[" +
                                   std::to_string(j.idx_q + quaternionOffset(j)) + ".." +
                                   std::to_string(j.idx_q + quaternionOffset(j) + 3) +
                                   "] has norm " + std::to_string(norm) +
                                   ", not a unit quaternion (x, y, z, w)");
      }
    }
  }
}

void validateVelocity(const Model& model, const ConstVectorRef& v, const char* what) {
  if (v.size() != model.nv) {
    throw InvalidArgumentError(std::string(what) + " has size " + std::to_string(v.size()) +
                               ", model '" + model.name +
                               "' needs nv = " + std::to_string(model.nv));
  }
  // One vectorized check; the entry at fault is looked for only when it fails.
  if (v.allFinite()) return;
  for (int i = 0; i < model.nv; ++i) {
    if (!std::isfinite(v[i])) {
      throw InvalidArgumentError(std::string(what) + "[" + std::to_string(i) + "] of joint '" +
                                 model.joints[model.dof_link[i]].name + "' is not finite");
    }
  }
}

Quaternion quaternionExp(const Vector3& r) {
  const double t = r.norm();
  // sin(t/2)/t, with its series below 1e-4 (error < 1e-18).
  const double s = t < 1e-4 ? 0.5 - t * t / 48.0 : std::sin(0.5 * t) / t;
  return Quaternion(std::cos(0.5 * t), s * r.x(), s * r.y(), s * r.z());
}

Vector3 quaternionLog(const Quaternion& Q_in) {
  Quaternion Q = Q_in;
  if (Q.w() < 0.0) Q.coeffs() = -Q.coeffs();
  const double n = Q.vec().norm();
  const double scale = n < 1e-8 ? 2.0 / Q.w() : 2.0 * arcTan2(n, Q.w()) / n;
  return scale * Q.vec();
}

Eigen::VectorXd neutralConfiguration(const Model& model) {
  Eigen::VectorXd q = Eigen::VectorXd::Zero(model.nq);
  for (const Joint& j : model.joints) {
    if (hasQuaternion(j)) q[j.idx_q + quaternionOffset(j) + 3] = 1.0;
  }
  return q;
}

Eigen::VectorXd randomConfiguration(const Model& model, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  Eigen::VectorXd q = neutralConfiguration(model);
  auto randomQuaternion = [&gen]() {
    // Shoemake's uniform sampling of SO(3).
    const double u1 = uniform01(gen), u2 = 2 * kPi * uniform01(gen), u3 = 2 * kPi * uniform01(gen);
    const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
    return Quaternion(b * std::cos(u3), a * std::sin(u2), a * std::cos(u2), b * std::sin(u3));
  };
  for (const Joint& j : model.joints) {
    double* qj = q.data() + j.idx_q;
    switch (j.type) {
      case JointType::Fixed:
        break;
      case JointType::Revolute:
      case JointType::Prismatic: {
        const double span = j.type == JointType::Revolute ? kPi : 1.0;
        const double lo = std::isfinite(j.limits.lower) ? j.limits.lower : -span;
        const double hi = std::isfinite(j.limits.upper) ? j.limits.upper : span;
        qj[0] = uniform(gen, lo, hi);
        break;
      }
      case JointType::Ball:
        switch (j.ball) {
          case BallParametrization::Quaternion:
            storeQuaternion(randomQuaternion(), qj);
            break;
          case BallParametrization::ExpMap: {
            const Vector3 axis = randomQuaternion().vec().normalized();
            Eigen::Map<Vector3>{qj} = axis * uniform(gen, 0.0, kPi);
            break;
          }
          case BallParametrization::EulerXYZ:
            for (int i = 0; i < 3; ++i) qj[i] = uniform(gen, -kPi, kPi);
            break;
        }
        break;
      case JointType::Free:
        for (int i = 0; i < 3; ++i) qj[i] = uniform(gen, -1.0, 1.0);
        storeQuaternion(randomQuaternion(), qj + 3);
        break;
    }
  }
  return q;
}

Eigen::VectorXd randomVector(int n, std::uint64_t seed, double scale) {
  std::mt19937_64 gen(seed);
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v[i] = uniform(gen, -scale, scale);
  return v;
}

void integrate(const Model& model, const ConstVectorRef& q, const ConstVectorRef& v, double dt,
               Eigen::Ref<Eigen::VectorXd> q_out) {
  validateConfiguration(model, q);
  validateVelocity(model, v);
  if (!std::isfinite(dt)) throw InvalidArgumentError("integrate: dt is not finite");
  if (q_out.size() != model.nq) {
    throw InvalidArgumentError("integrate: q_out has size " + std::to_string(q_out.size()) +
                               ", needs nq = " + std::to_string(model.nq));
  }
  for (const Joint& j : model.joints) {
    const double* qj = q.data() + j.idx_q;
    const double* vj = v.data() + j.idx_v;
    double* out = q_out.data() + j.idx_q;
    if (!hasQuaternion(j)) {
      for (int i = 0; i < j.nq; ++i) out[i] = qj[i] + vj[i] * dt;
      continue;
    }
    // Quaternion (and free-joint) update: Q1 = Q0 exp(omega_C dt), p1 = p0 + R0 v_C dt.
    const int off = quaternionOffset(j);
    const Quaternion Q0 = quaternionFromCoeffs(qj + off);
    const Vector3 omega(vj[0], vj[1], vj[2]);
    if (j.type == JointType::Free) {
      const Vector3 p1 = Eigen::Map<const Vector3>(qj) + Q0 * (Vector3(vj[3], vj[4], vj[5]) * dt);
      Eigen::Map<Vector3>{out} = p1;
    }
    storeQuaternion((Q0 * quaternionExp(omega * dt)).normalized(), out + off);
  }
}

Eigen::VectorXd integrate(const Model& model, const ConstVectorRef& q, const ConstVectorRef& v,
                          double dt) {
  Eigen::VectorXd out(model.nq);
  integrate(model, q, v, dt, out);
  return out;
}

Eigen::VectorXd difference(const Model& model, const ConstVectorRef& q0, const ConstVectorRef& q1) {
  validateConfiguration(model, q0);
  validateConfiguration(model, q1);
  Eigen::VectorXd v(model.nv);
  for (const Joint& j : model.joints) {
    const double* a = q0.data() + j.idx_q;
    const double* b = q1.data() + j.idx_q;
    double* out = v.data() + j.idx_v;
    if (!hasQuaternion(j)) {
      for (int i = 0; i < j.nv; ++i) out[i] = b[i] - a[i];
      continue;
    }
    const int off = quaternionOffset(j);
    const Quaternion Q0 = quaternionFromCoeffs(a + off), Q1 = quaternionFromCoeffs(b + off);
    Eigen::Map<Vector3>{out} = quaternionLog(Q0.conjugate() * Q1);
    if (j.type == JointType::Free) {
      Eigen::Map<Vector3>(out + 3) =
          Q0.conjugate() * (Eigen::Map<const Vector3>(b) - Eigen::Map<const Vector3>(a));
    }
  }
  return v;
}

void normalizeConfiguration(const Model& model, Eigen::Ref<Eigen::VectorXd> q) {
  for (const Joint& j : model.joints) {
    if (hasQuaternion(j)) q.segment<4>(j.idx_q + quaternionOffset(j)).normalize();
  }
}

}  // namespace gcbridge
