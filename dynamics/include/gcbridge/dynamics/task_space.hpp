#pragma once
/// @file
/// Task-space (operational-space) dynamics of a frame F fixed on a link (Khatib; Lin):
/// F = Lambda xdd + eta, with x = (orientation, position) of F, xd = J v = (omega, velocity of Fo)
/// in world axes (J is the LocalWorldAligned frame Jacobian, 6 x nv), xdd = J vd + Jdot v.
///
/// The correct operational-space inertia is Lambda = (J M^-1 J^T)^-1 and
/// eta = Lambda (J M^-1 h - Jdot v). Lin writes Lambda = (J^T)^+ M J^+ and
/// eta = (J^T)^+ h - Lambda Jdot v: these agree only when J is square and invertible; for a
/// redundant arm (nv > 6) they differ, and only the former makes tau = J^T F produce
/// xdd = Lambda^-1 (F - eta). Both are available (Lin's under an explicit name).
///
/// Near singularities (J M^-1 J^T ill-conditioned) the damped form
/// Lambda = (J M^-1 J^T + mu^2 1)^-1 with damping mu > 0 stays bounded; the condition number of
/// J M^-1 J^T is reported so callers can decide.

#include <Eigen/Core>

#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

/// The task-space terms of one frame at one state.
struct TaskSpaceTerms {
  Eigen::Matrix<double, 6, Eigen::Dynamic> J;  ///< LocalWorldAligned frame Jacobian (6 x nv)
  Vector6 Jdot_v;                              ///< dJ/dt v: (angular, classical linear) (6)
  Matrix6 Lambda;                              ///< operational-space inertia (6 x 6)
  Vector6 eta;                                 ///< bias force (6)
  Eigen::Matrix<double, Eigen::Dynamic, 6>
      Jbar;                       ///< dynamically consistent inverse M^-1 J^T Lambda (nv x 6)
  Eigen::MatrixXd N;              ///< torque null-space projector 1 - J^T Jbar^T (nv x nv)
  double condition_number = 0.0;  ///< of J M^-1 J^T (infinite when singular)
  double damping = 0.0;           ///< mu used (0: undamped)
};

/// Computes the terms for frame F (pose X_BF on `link`) with the correct Lambda; with
/// `damping` mu > 0 the damped Lambda. Uses `data` (kinematics, M, its factor) as workspace.
/// @throws InvalidArgumentError on bad input; SingularityError if mu == 0 and J M^-1 J^T is
///   singular (condition number above 1e12): use damping near singularities.
TaskSpaceTerms computeTaskSpaceTerms(const Model& model, Data& data, const ConstVectorRef& q,
                                     const ConstVectorRef& v, int link, const Transform& X_BF,
                                     double damping = 0.0);

/// Lin's Lambda = (J^T)^+ M J^+ and eta = (J^T)^+ h - Lambda Jdot v with Moore-Penrose
/// pseudo-inverses: correct only for square, invertible J (see the file comment).
/// Lambda and eta of the result are Lin's; the other members as in computeTaskSpaceTerms.
TaskSpaceTerms computeTaskSpaceTermsPseudoInverse(const Model& model, Data& data,
                                                      const ConstVectorRef& q,
                                                      const ConstVectorRef& v, int link,
                                                      const Transform& X_BF);

}  // namespace gcbridge
