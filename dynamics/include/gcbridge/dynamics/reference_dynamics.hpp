#pragma once
/// @file
/// A slow, literal implementation of Liu & Jain eq. 59, kept as an independent oracle for the fast
/// algorithms (rnea, crba) in the tests and for readers who want to see the textbook formula:
///   M(q)   = sum_k J_k^T M_ck J_k
///   C(q, v) v = sum_k (J_k^T M_ck dJ_k/dt + J_k^T [w~_k] M_ck J_k) v
/// with J_k = [J_vk; J_wk] the Jacobian of link k's COM velocity and angular velocity in world
/// axes (linear rows first, as in Liu & Jain), M_ck = diag(m_k 1, R_k I_k R_k^T) and
/// [w~_k] = diag(0, [w_k]). It allocates and costs O(n^2) per link; never use it in a loop.

#include <Eigen/Core>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge::reference {

/// M(q) by eq. 59.
Eigen::MatrixXd massMatrix(const Model& model, const ConstVectorRef& q);

/// C(q, v) v by eq. 59; dJ_k/dt v is the COM's classical acceleration at zero joint acceleration.
Eigen::VectorXd coriolisTimesV(const Model& model, const ConstVectorRef& q,
                               const ConstVectorRef& v);

/// g(q) = dV/dq with V = -sum_k m_k g . p_k, as sum_k J_vk^T (-m_k g).
Eigen::VectorXd gravity(const Model& model, const ConstVectorRef& q);

}  // namespace gcbridge::reference
