#pragma once
/// @file
/// Entry points without the argument checks, for gcbridge's own callers that have validated
/// their arguments already (a controller after Controller::checkState, on its own Data; implicit
/// Euler's iterates, made from a checked state; abaDerivatives after its own checks). On valid
/// arguments they give exactly what the checked functions give; on others the result is
/// undefined. Internal to gcbridge (namespace detail): the API does not offer them.

#include <Eigen/Core>

#include "gcbridge/dynamics/model.hpp"

namespace gcbridge::detail {

/// rnea(model, data, q, v, a) without checking data, q, v or a.
const Eigen::VectorXd& rneaUnchecked(const Model& model, Data& data, const ConstVectorRef& q,
                                     const ConstVectorRef& v, const ConstVectorRef& a);

/// aba(model, data, q, v, tau) without checking data, q, v or tau.
const Eigen::VectorXd& abaUnchecked(const Model& model, Data& data, const ConstVectorRef& q,
                                    const ConstVectorRef& v, const ConstVectorRef& tau);

/// integrate(model, q, v, dt, q_out) without checking q, v, dt or q_out's size.
void integrateUnchecked(const Model& model, const ConstVectorRef& q, const ConstVectorRef& v,
                        double dt, Eigen::Ref<Eigen::VectorXd> q_out);

/// difference(model, q0, q1, v) without checking q0, q1 or v's size.
void differenceUnchecked(const Model& model, const ConstVectorRef& q0, const ConstVectorRef& q1,
                         Eigen::Ref<Eigen::VectorXd> v);

}  // namespace gcbridge::detail
