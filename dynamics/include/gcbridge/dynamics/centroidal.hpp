#pragma once
/// @file
/// Centroidal dynamics (Orin & Goswami 2008; Orin, Goswami & Lee 2013): the system's spatial
/// momentum about its centre of mass G, in world axes, h_G = A_G(q) v (angular first: the
/// angular momentum about G [kg m^2/s], then the linear momentum [kg m/s]); its rate
/// dh_G/dt = A_G a + (dA_G/dt) v, which equals the external wrench about G (gravity, contacts);
/// and the centre of mass's Jacobian.

#include <Eigen/Core>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// The centroidal momentum matrix A_G(q) (6 x nv): column j is the momentum about G of the
/// subtree that dof j moves, when dof j moves at unit rate: Ic_j S_j with the composite inertia
/// and motion subspace in world axes, moved from the world origin to G. Runs
/// computeJointJacobians(q) (data.J_W, the poses) and fills data.Ic_W.
/// @param[out] A_G 6 x nv. @throws InvalidArgumentError on bad q, a wrong-sized A_G or a model
///   without mass.
void centroidalMomentumMatrix(const Model& model, Data& data, const ConstVectorRef& q,
                              Eigen::Ref<Eigen::MatrixXd> A_G);
/// As above, from the Jacobians and poses of a computeJointJacobians(q) that already ran (fills
/// data.Ic_W). @pre computeJointJacobians(model, data, q).
void centroidalMomentumMatrix(const Model& model, Data& data, Eigen::Ref<Eigen::MatrixXd> A_G);

/// (dA_G/dt) v: the rate of the centroidal momentum when a = 0, sum over the links of
/// I_k a_k + V_k x* I_k V_k (a_k the link's acceleration with a = 0) moved to G. Runs
/// forwardKinematics(q, v, 0): data's kinematic fields are overwritten.
/// @throws InvalidArgumentError on bad q or v, or a model without mass.
Force centroidalMomentumTimeVariation(const Model& model, Data& data, const ConstVectorRef& q,
                                      const ConstVectorRef& v);
/// As above, from the kinematics of a forwardKinematics(q, v, 0) that already ran.
/// @pre forwardKinematics(model, data, q, v, data.zero_v).
Force centroidalMomentumTimeVariation(const Model& model, const Data& data);

/// A_G and (dA_G/dt) v of a model with a free root joint (its velocity the root link's twist in
/// the link's own frame), from the root rows of the joint-space inertia M and of the bias
/// h = C v + g (Orin, Goswami & Lee 2013): M's root rows are the system's momentum per unit dof
/// rate, and h's its rate at a = 0 less gravity's wrench, both in the root link's frame; moved to
/// G: A_G = X_GR^-T M_r and (dA_G/dt) v = X_GR^-T h_r + (0, m g). The same terms as the functions
/// above for the cost of a 6 x 6 by 6 x nv product, when M and h are at hand.
/// @pre M = crba(q), h = nonLinearEffects(q, v) and data's poses at q (data.X_WB, data.p_WBcm).
/// @param[out] A_G 6 x nv. @return (dA_G/dt) v.
/// @throws InvalidArgumentError when the root joint is not free, M or h or A_G has the wrong
///   size, or the model has no mass.
Force centroidalTermsFromRootRows(const Model& model, const Data& data,
                                  const Eigen::Ref<const Eigen::MatrixXd>& M,
                                  const ConstVectorRef& h, Eigen::Ref<Eigen::MatrixXd> A_G);

/// The centre of mass's Jacobian J_G (3 x nv, world axes): its velocity is J_G v; the linear
/// rows of A_G over the total mass. Runs centroidalMomentumMatrix(q) into data.tmp_A_G.
/// @param[out] J_G 3 x nv. @throws as centroidalMomentumMatrix.
void centerOfMassJacobian(const Model& model, Data& data, const ConstVectorRef& q,
                          Eigen::Ref<Eigen::MatrixXd> J_G);

}  // namespace gcbridge
