#include "gcbridge/dynamics/configuration.hpp"

#include <cmath>
#include <string>

#include "gcbridge/dynamics/detail/finite.hpp"
#include "gcbridge/dynamics/detail/unchecked.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "joints/dispatch.hpp"

namespace gcbridge {
namespace {

/// @throws InvalidArgumentError unless `x` has `size` entries.
void checkSize(const char* function, const char* what, Eigen::Index size, int expected,
               const char* expected_name) {
  if (size == expected) return;
  throw InvalidArgumentError(std::string(function) + ": " + what + " has size " +
                             std::to_string(size) + ", needs " + expected_name + " = " +
                             std::to_string(expected));
}

}  // namespace

void validateConfiguration(const Model& model, const ConstVectorRef& q) {
  if (q.size() != model.nq) {
    throw InvalidArgumentError("configuration q has size " + std::to_string(q.size()) +
                               ", model '" + model.name +
                               "' needs nq = " + std::to_string(model.nq));
  }
  // One vectorized check and the quaternions' norms; the entry at fault is looked for only when
  // they fail.
  const bool finite = detail::allFinite(q);
  bool unit = true;
  for (const int i : model.unit_quaternions) unit &= joints::quaternion::isUnit(q.data() + i);
  if (finite && unit) return;
  for (const Joint& j : model.joints) {
    if (finite && j.nq == j.nv) continue;
    for (int i = 0; i < j.nq && !finite; ++i) {
      if (!std::isfinite(q[j.idx_q + i])) {
        throw InvalidArgumentError("configuration q[" + std::to_string(j.idx_q + i) +
                                   "] of joint '" + j.name + "' is not finite");
      }
    }
    joints::dispatch(j, [&](auto kernel) {
      decltype(kernel)::checkConfiguration(j, q.data() + j.idx_q, j.idx_q);
    });
  }
}

void validateVelocity(const Model& model, const ConstVectorRef& v, const char* what) {
  if (v.size() != model.nv) {
    throw InvalidArgumentError(std::string(what) + " has size " + std::to_string(v.size()) +
                               ", model '" + model.name +
                               "' needs nv = " + std::to_string(model.nv));
  }
  // One vectorized check; the entry at fault is looked for only when it fails.
  if (detail::allFinite(v)) return;
  for (int i = 0; i < model.nv; ++i) {
    if (!std::isfinite(v[i])) {
      throw InvalidArgumentError(std::string(what) + "[" + std::to_string(i) + "] of joint '" +
                                 model.joints[model.dof_link[i]].name + "' is not finite");
    }
  }
}

Eigen::VectorXd neutralConfiguration(const Model& model) {
  Eigen::VectorXd q(model.nq);
  for (const Joint& j : model.joints) {
    joints::dispatch(j, [&](auto kernel) { decltype(kernel)::neutral(q.data() + j.idx_q); });
  }
  return q;
}

Eigen::VectorXd randomConfiguration(const Model& model, std::uint64_t seed) {
  joints::Random gen(seed);
  Eigen::VectorXd q = neutralConfiguration(model);
  for (const Joint& j : model.joints) {
    joints::dispatch(j, [&](auto kernel) { decltype(kernel)::random(j, gen, q.data() + j.idx_q); });
  }
  return q;
}

Eigen::VectorXd randomVector(int n, std::uint64_t seed, double scale) {
  joints::Random gen(seed);
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v[i] = joints::uniform(gen, -scale, scale);
  return v;
}

void integrate(const Model& model, const ConstVectorRef& q, const ConstVectorRef& v, double dt,
               Eigen::Ref<Eigen::VectorXd> q_out) {
  validateConfiguration(model, q);
  validateVelocity(model, v);
  if (!std::isfinite(dt)) throw InvalidArgumentError("integrate: dt is not finite");
  checkSize("integrate", "q_out", q_out.size(), model.nq, "nq");
  detail::integrateUnchecked(model, q, v, dt, q_out);
}

void detail::integrateUnchecked(const Model& model, const ConstVectorRef& q,
                                const ConstVectorRef& v, double dt,
                                Eigen::Ref<Eigen::VectorXd> q_out) {
  for (const Joint& j : model.joints) {
    joints::dispatch(j, [&](auto kernel) {
      decltype(kernel)::integrate(j, q.data() + j.idx_q, v.data() + j.idx_v, dt,
                                  q_out.data() + j.idx_q);
    });
  }
}

Eigen::VectorXd integrate(const Model& model, const ConstVectorRef& q, const ConstVectorRef& v,
                          double dt) {
  Eigen::VectorXd out(model.nq);
  integrate(model, q, v, dt, out);
  return out;
}

void difference(const Model& model, const ConstVectorRef& q0, const ConstVectorRef& q1,
                Eigen::Ref<Eigen::VectorXd> v) {
  validateConfiguration(model, q0);
  validateConfiguration(model, q1);
  checkSize("difference", "v", v.size(), model.nv, "nv");
  detail::differenceUnchecked(model, q0, q1, v);
}

void detail::differenceUnchecked(const Model& model, const ConstVectorRef& q0,
                                 const ConstVectorRef& q1, Eigen::Ref<Eigen::VectorXd> v) {
  for (const Joint& j : model.joints) {
    joints::dispatch(j, [&](auto kernel) {
      decltype(kernel)::difference(j, q0.data() + j.idx_q, q1.data() + j.idx_q,
                                   v.data() + j.idx_v);
    });
  }
}

Eigen::VectorXd difference(const Model& model, const ConstVectorRef& q0, const ConstVectorRef& q1) {
  Eigen::VectorXd v(model.nv);
  difference(model, q0, q1, v);
  return v;
}

void tangentCurveVelocity(const Model& model, const ConstVectorRef& delta,
                          const ConstVectorRef& delta_dot, const ConstVectorRef& delta_ddot,
                          Eigen::Ref<Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> a) {
  const char* function = "tangentCurveVelocity";
  checkSize(function, "delta", delta.size(), model.nv, "nv");
  checkSize(function, "delta_dot", delta_dot.size(), model.nv, "nv");
  checkSize(function, "delta_ddot", delta_ddot.size(), model.nv, "nv");
  checkSize(function, "v", v.size(), model.nv, "nv");
  checkSize(function, "a", a.size(), model.nv, "nv");
  for (const Joint& j : model.joints) {
    const int i = j.idx_v;
    joints::dispatch(j, [&](auto kernel) {
      decltype(kernel)::tangentCurve(delta.data() + i, delta_dot.data() + i,
                                     delta_ddot.data() + i, v.data() + i, a.data() + i);
    });
  }
}

void tangentCoordinateRates(const Model& model, const ConstVectorRef& delta,
                            const ConstVectorRef& v, Eigen::Ref<Eigen::VectorXd> delta_dot) {
  const char* function = "tangentCoordinateRates";
  checkSize(function, "delta", delta.size(), model.nv, "nv");
  checkSize(function, "v", v.size(), model.nv, "nv");
  checkSize(function, "delta_dot", delta_dot.size(), model.nv, "nv");
  for (const Joint& j : model.joints) {
    const int i = j.idx_v;
    joints::dispatch(j, [&](auto kernel) {
      decltype(kernel)::tangentRates(delta.data() + i, v.data() + i, delta_dot.data() + i);
    });
  }
}

void integrateVelocityJacobian(const Model& model, const ConstVectorRef& v, double dt,
                               Eigen::Ref<Eigen::MatrixXd> J) {
  const char* function = "integrateVelocityJacobian";
  validateVelocity(model, v);
  if (!std::isfinite(dt)) {
    throw InvalidArgumentError(std::string(function) + ": dt is not finite");
  }
  checkSize(function, "J's rows", J.rows(), model.nv, "nv");
  checkSize(function, "J's columns", J.cols(), model.nv, "nv");
  J.setZero();
  for (const Joint& j : model.joints) {
    joints::dispatch(j, [&](auto kernel) {
      using K = decltype(kernel);
      if constexpr (K::nv > 0) {
        Eigen::Matrix<double, K::nv, K::nv> block;
        K::integrationJacobian(v.data() + j.idx_v, dt, block.data());
        J.template block<K::nv, K::nv>(j.idx_v, j.idx_v) = block;
      }
    });
  }
}

void normalizeConfiguration(const Model& model, Eigen::Ref<Eigen::VectorXd> q) {
  for (const Joint& j : model.joints) {
    joints::dispatch(j, [&](auto kernel) { decltype(kernel)::normalize(q.data() + j.idx_q); });
  }
}

}  // namespace gcbridge
