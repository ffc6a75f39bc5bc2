#pragma once
/// @file
/// Inverse dynamics by the recursive Newton-Euler algorithm (Featherstone, RBDA sec. 5.3;
/// Lin): tau = M(q) a + C(q, v) v + g(q) - sum_k J_k^T f_ext_k, and its pieces.
///
/// Gravity enters as a fictitious upward acceleration of the world (a_0 = -g), so g(q) is the
/// generalized force that holds the robot still. Joint damping and friction of the model's limits
/// are not part of these equations (controllers and simulators add them).

#include <Eigen/Core>
#include <vector>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// External spatial forces, one per model link (size model.numLinks()), each acting on its link and
/// expressed as `frame` says: World (world axes, moment about the world origin), LocalWorldAligned
/// (world axes, moment about the link origin) or Local (link axes, about the link origin).
struct ExternalForces {
  const std::vector<Force>& forces;
  ReferenceFrame frame = ReferenceFrame::Local;
};

/// tau = M(q) a + C(q, v) v + g(q) (RBDA Table 5.1). Fills data.tau, data.X_PB, V_WB_B, f_B and
/// A_spatial_WB_B (which includes the fictitious -g of the world).
/// @param[in] q positions (nq) @param[in] v velocities (nv) @param[in] a accelerations (nv)
/// @return data.tau. @throws InvalidArgumentError on bad sizes, NaN/Inf, bad quaternions.
const Eigen::VectorXd& rnea(const Model& model, Data& data, const ConstVectorRef& q,
                            const ConstVectorRef& v, const ConstVectorRef& a);
/// The same with external forces on the links: tau = M a + h - sum_k J_k^T f_ext_k.
const Eigen::VectorXd& rnea(const Model& model, Data& data, const ConstVectorRef& q,
                            const ConstVectorRef& v, const ConstVectorRef& a,
                            const ExternalForces& f_ext);

/// g(q), the generalized gravity force. Fills data.g. @return data.g.
const Eigen::VectorXd& computeGeneralizedGravity(const Model& model, Data& data,
                                                 const ConstVectorRef& q);
/// h(q, v) = C(q, v) v + g(q), the nonlinear effects (bias). Fills data.h. @return data.h.
const Eigen::VectorXd& nonLinearEffects(const Model& model, Data& data, const ConstVectorRef& q,
                                        const ConstVectorRef& v);
/// C(q, v) v, the Coriolis and centrifugal forces. Fills data.Cv. @return data.Cv.
const Eigen::VectorXd& computeCoriolisTimesV(const Model& model, Data& data,
                                             const ConstVectorRef& q, const ConstVectorRef& v);

/// The Coriolis matrix C(q, v) such that C v is computeCoriolisTimesV and dM/dt - 2C is
/// skew-symmetric. C is not unique; this one is, in world coordinates (moments about the world
/// origin), C = sum_k J_k^T (I_k dJ_k/dt + (V_k x*) I_k J_k), where J_k is link k's 6 x nv
/// spatial Jacobian, I_k its spatial inertia and V_k its spatial velocity, all in W: the
/// spatial-vector form of Liu & Jain eq. 59's J^T M dJ + J^T [w] M J. Fills data.C. @return data.C.
const Eigen::MatrixXd& computeCoriolisMatrix(const Model& model, Data& data,
                                             const ConstVectorRef& q, const ConstVectorRef& v);

}  // namespace gcbridge
