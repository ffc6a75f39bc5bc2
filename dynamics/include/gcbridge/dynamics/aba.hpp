#pragma once
/// @file
/// Forward dynamics by the articulated-body algorithm (Featherstone, RBDA Table 7.1):
/// qdd = M(q)^-1 (tau - h(q, v) + sum_k J_k^T f_ext_k), in O(n).

#include <Eigen/Core>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/model.hpp"
#include "gcbridge/dynamics/rnea.hpp"

namespace gcbridge {

/// Joint accelerations under joint forces tau. Fills data.qdd, data.X_PB, V_WB_B and
/// A_spatial_WB_B (the latter including the fictitious -g of the world).
/// @param[in] q (nq) @param[in] v (nv) @param[in] tau joint forces (nv) @return data.qdd.
/// @throws InvalidArgumentError on bad input.
const Eigen::VectorXd& aba(const Model& model, Data& data, const ConstVectorRef& q,
                           const ConstVectorRef& v, const ConstVectorRef& tau);
/// The same with external forces on the links.
const Eigen::VectorXd& aba(const Model& model, Data& data, const ConstVectorRef& q,
                           const ConstVectorRef& v, const ConstVectorRef& tau,
                           const ExternalForces& f_ext);

}  // namespace gcbridge
