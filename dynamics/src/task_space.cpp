#include "gcbridge/dynamics/task_space.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <cmath>
#include <limits>
#include <string>

#include "detail.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/rnea.hpp"

namespace gcbridge {
namespace {

// J, Jdot v, M (factorized), h and J M^-1 J^T for the frame; fills everything but Lambda/eta.
Matrix6 commonTerms(const Model& model, Data& data, const ConstVectorRef& q,
                    const ConstVectorRef& v, int link, const Transform& X_BF, TaskSpaceTerms& t,
                    Eigen::MatrixXd& Minv_JT) {
  detail::checkLinkIndex(model, link);
  t.Jdot_v =
      frameJacobianDotTimesV(model, data, q, v, link, X_BF, ReferenceFrame::LocalWorldAligned)
          .vector();
  nonLinearEffects(model, data, q, v);
  computeJointJacobians(model, data, q);
  t.J.resize(6, model.nv);
  frameJacobian(model, data, link, X_BF, ReferenceFrame::LocalWorldAligned, t.J);
  crba(model, data, q);
  factorizeMassMatrix(model, data);
  Minv_JT = t.J.transpose();
  for (int c = 0; c < 6; ++c) solveMassMatrix(model, data, Minv_JT.col(c));
  const Matrix6 JMinvJT = t.J * Minv_JT;
  const Eigen::VectorXd eig = Eigen::SelfAdjointEigenSolver<Matrix6>(JMinvJT).eigenvalues();
  t.condition_number = eig.minCoeff() > 0.0 ? eig.maxCoeff() / eig.minCoeff()
                                            : std::numeric_limits<double>::infinity();
  return JMinvJT;
}

// Jbar = M^-1 J^T Lambda and N = 1 - J^T Jbar^T from Lambda.
void projectors(const Model& model, const Eigen::MatrixXd& Minv_JT, TaskSpaceTerms& t) {
  t.Jbar = Minv_JT * t.Lambda;
  t.N = Eigen::MatrixXd::Identity(model.nv, model.nv) - t.J.transpose() * t.Jbar.transpose();
}

}  // namespace

TaskSpaceTerms computeTaskSpaceTerms(const Model& model, Data& data, const ConstVectorRef& q,
                                     const ConstVectorRef& v, int link, const Transform& X_BF,
                                     double damping) {
  checkData(model, data, "computeTaskSpaceTerms");
  if (!(damping >= 0.0) || !std::isfinite(damping)) {
    throw InvalidArgumentError("task space: damping must be finite and >= 0");
  }
  TaskSpaceTerms t;
  Eigen::MatrixXd Minv_JT;
  Matrix6 A = commonTerms(model, data, q, v, link, X_BF, t, Minv_JT);
  if (damping == 0.0 && !(t.condition_number < 1e12)) {
    throw SingularityError("task space: frame on link '" + model.link_names[link] +
                           "' is at a singularity (condition number of J M^-1 J^T " +
                           std::to_string(t.condition_number) + "); use damping > 0");
  }
  // Lambda = (J M^-1 J^T + mu^2 1)^-1, eta = Lambda (J M^-1 h - Jdot v).
  A.diagonal().array() += damping * damping;
  t.damping = damping;
  t.Lambda = A.ldlt().solve(Matrix6::Identity());
  t.eta = t.Lambda * (Minv_JT.transpose() * data.h - t.Jdot_v);
  projectors(model, Minv_JT, t);
  return t;
}

TaskSpaceTerms computeTaskSpaceTermsPseudoInverse(const Model& model, Data& data,
                                                      const ConstVectorRef& q,
                                                      const ConstVectorRef& v, int link,
                                                      const Transform& X_BF) {
  checkData(model, data, "computeTaskSpaceTermsPseudoInverse");
  TaskSpaceTerms t;
  Eigen::MatrixXd Minv_JT;
  commonTerms(model, data, q, v, link, X_BF, t, Minv_JT);
  // Lin: Lambda = (J^T)^+ M J^+, eta = (J^T)^+ h - Lambda Jdot v.
  const Eigen::MatrixXd J = t.J;
  const Eigen::MatrixXd J_pinv = J.completeOrthogonalDecomposition().pseudoInverse();
  const Eigen::MatrixXd JT_pinv = J_pinv.transpose();
  t.Lambda = JT_pinv * data.M * J_pinv;
  t.eta = JT_pinv * data.h - t.Lambda * t.Jdot_v;
  projectors(model, Minv_JT, t);
  return t;
}

}  // namespace gcbridge
