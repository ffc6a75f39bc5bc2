#pragma once
/// @file
/// Analytic derivatives of inverse and forward dynamics (Carpentier and Mansard, "Analytical
/// Derivatives of Rigid Body Dynamics Algorithms", RSS 2018): d tau / dq, d tau / dv (and
/// d tau / da = M) of the RNEA, d qdd / dq, d qdd / dv (and d qdd / d tau = M^-1) of the ABA, in
/// O(n d) for the RNEA's (d the tree's depth) plus the solves with M for the ABA's.
///
/// Derivatives with respect to q are taken in the tangent space: column j of d tau / dq is
/// d/de tau(q (+) e e_j) at e = 0, where (+) is configuration.hpp's integrate, so a quaternion
/// ball's columns are per unit of rotation about the child frame's axes and a free joint's per
/// unit of the body twist (rotation, then translation, in the child frame), as Pinocchio's. For
/// the other joints q (+) e = q + e: the plain partial derivatives.
///
/// External forces keep their frame when q moves: a `Local` force turns and moves with its link,
/// a `World` force stays put, a `LocalWorldAligned` one keeps its world components and moves with
/// the link's origin.

#include <Eigen/Core>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/model.hpp"
#include "gcbridge/dynamics/rnea.hpp"

namespace gcbridge {

/// On deep, chain-like trees abaDerivatives forms M^-1 with the tree factor and multiplies d tau /
/// dq and d tau / dv by it as dense matrices, instead of solving for them with the factor: the
/// solve takes about 4 nv^2 times the mean dof depth multiply-adds, the products 2 nv^3 with a
/// faster (matrix-matrix) kernel, so the products win when the mean depth
/// (Model::mean_dof_depth) is above kAbaDerivativesDenseDepthFraction of nv, once nv is at least
/// kAbaDerivativesDenseMinDofs (below, the products' fixed costs outweigh the difference). Chosen
/// from bench_dynamics' chains and robots (docs/benchmarks.md).
inline constexpr double kAbaDerivativesDenseDepthFraction = 1.0 / 3.0;
inline constexpr int kAbaDerivativesDenseMinDofs = 16;

/// Whether abaDerivatives applies M^-1 by dense products on `model` (see above).
inline bool abaDerivativesUseDenseProducts(const Model& model) {
  return model.nv >= kAbaDerivativesDenseMinDofs &&
         model.mean_dof_depth > kAbaDerivativesDenseDepthFraction * model.nv;
}

/// The derivatives of tau = rnea(q, v, a). Fills data.dtau_dq, data.dtau_dv, data.M (= d tau /
/// da, both triangles) and data.tau (the RNEA's value), and data.X_PB.
/// @param[in] q positions (nq) @param[in] v velocities (nv) @param[in] a accelerations (nv)
/// @throws InvalidArgumentError on bad sizes, NaN/Inf or bad quaternions (the outputs unchanged).
void rneaDerivatives(const Model& model, Data& data, const ConstVectorRef& q,
                     const ConstVectorRef& v, const ConstVectorRef& a);
/// The same with external forces on the links (rnea.hpp's ExternalForces).
void rneaDerivatives(const Model& model, Data& data, const ConstVectorRef& q,
                     const ConstVectorRef& v, const ConstVectorRef& a, const ExternalForces& f_ext);

/// The derivatives of qdd = aba(q, v, tau): d qdd / dq = -M^-1 d tau / dq and d qdd / dv =
/// -M^-1 d tau / dv, taken at a = qdd. Fills data.qdd, data.dqdd_dq, data.dqdd_dv, data.Minv
/// (= d qdd / d tau), and what rneaDerivatives fills (at a = qdd) and data.LTDL. qdd is
/// M^-1 (tau - h) by the tree factor, from the derivative passes' own M and bias forces h (no
/// separate ABA), except where abaDerivativesUseDenseProducts: there M is ill-conditioned and qdd
/// comes from the ABA. tau may be one of data's vectors (data.tau, data.qdd); q and v may not.
/// @param[in] q positions (nq) @param[in] v velocities (nv) @param[in] tau joint forces (nv)
/// @throws InvalidArgumentError on bad input (the outputs unchanged); SingularityError if M is
///   not positive definite.
void abaDerivatives(const Model& model, Data& data, const ConstVectorRef& q,
                    const ConstVectorRef& v, const ConstVectorRef& tau);
/// The same with external forces on the links.
void abaDerivatives(const Model& model, Data& data, const ConstVectorRef& q,
                    const ConstVectorRef& v, const ConstVectorRef& tau,
                    const ExternalForces& f_ext);

}  // namespace gcbridge
