#include "gcbridge/controllers/task_space_controller.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>
#include <string>

#include "checks.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/rnea.hpp"

namespace gcbridge {
namespace {

// Above this condition number of J M^-1 J^T an undamped Lambda is refused (as task_space.hpp).
constexpr double kMaxConditionNumber = 1e12;

int checkedLink(const Model& model, int link) {
  if (link < 0 || link >= model.numLinks()) {
    throw InvalidArgumentError("task-space controller: link index " + std::to_string(link) +
                               " out of range [0, " + std::to_string(model.numLinks()) + ")");
  }
  return link;
}

void checkVector3(const Vector3& x, const char* what) { detail::checkVector(x, 3, what); }

}  // namespace

TaskTrajectory::~TaskTrajectory() = default;

CircleTrajectory::CircleTrajectory(const Vector3& p_WC, double radius, const Vector3& u,
                                   const Vector3& w_axis, double angular_frequency,
                                   const Matrix3& R_WF, double phase)
    : p_WC_(p_WC),
      u_(u),
      w_(w_axis),
      radius_(radius),
      frequency_(angular_frequency),
      phase_(phase),
      R_WF_(R_WF) {
  checkVector3(p_WC, "circle centre p_WC");
  checkVector3(u, "circle axis u");
  checkVector3(w_axis, "circle axis w_axis");
  detail::checkFinite(radius, "circle radius");
  detail::checkFinite(angular_frequency, "circle angular_frequency");
  detail::checkFinite(phase, "circle phase");
  if (std::abs(u.norm() - 1.0) > 1e-9 || std::abs(w_axis.norm() - 1.0) > 1e-9 ||
      std::abs(u.dot(w_axis)) > 1e-9) {
    throw InvalidArgumentError("circle axes u and w_axis must be orthonormal");
  }
  if (!R_WF.allFinite() || !(R_WF.transpose() * R_WF).isIdentity(1e-9) || R_WF.determinant() < 0) {
    throw InvalidArgumentError("circle orientation R_WF is not a rotation");
  }
}

void CircleTrajectory::evaluate(double t, TaskReference& ref) const {
  detail::checkFinite(t, "task trajectory time t");
  const double w = frequency_, arg = w * t + phase_;
  const double c = std::cos(arg), s = std::sin(arg);
  ref.X_WF = Transform(R_WF_, p_WC_ + radius_ * (c * u_ + s * w_));
  ref.V_WF << Vector3::Zero(), radius_ * w * (-s * u_ + c * w_);
  ref.A_WF << Vector3::Zero(), -radius_ * w * w * (c * u_ + s * w_);
}

TaskSpaceController::TaskSpaceController(const Model& model, int link, const Transform& X_BF,
                                         const TaskSpaceGains& gains)
    : Controller(model),
      data_(model),
      link_(checkedLink(model, link)),
      X_BF_(X_BF),
      q_posture_(neutralConfiguration(model)),
      J_(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      Minv_JT_(Eigen::Matrix<double, Eigen::Dynamic, 6>::Zero(model.nv, 6)),
      e_posture_(Eigen::VectorXd::Zero(model.nv)),
      tau0_(Eigen::VectorXd::Zero(model.nv)),
      N_tau0_(Eigen::VectorXd::Zero(model.nv)) {
  setGains(gains);
  // Default reference: F's pose at the neutral configuration, at rest.
  forwardKinematics(model, data_, q_posture_);
  fixed_reference_.X_WF = gcbridge::framePose(model, data_, link_, X_BF_);
  reference_ = fixed_reference_;
  X_WF_ = fixed_reference_.X_WF;
}

TaskSpaceController::TaskSpaceController(const Model& model, const std::string& frame_name,
                                         const TaskSpaceGains& gains)
    : TaskSpaceController(model, model.frames[model.frameIndex(frame_name)].link,
                          model.frames[model.frameIndex(frame_name)].X_BF, gains) {}

void TaskSpaceController::setReference(const TaskReference& reference) {
  if (!reference.X_WF.rotation().allFinite() || !reference.X_WF.translation().allFinite() ||
      !reference.V_WF.allFinite() || !reference.A_WF.allFinite()) {
    throw InvalidArgumentError("task reference has a non-finite entry");
  }
  fixed_reference_ = reference;
  trajectory_.reset();
}

void TaskSpaceController::setTrajectory(std::shared_ptr<const TaskTrajectory> trajectory) {
  if (!trajectory) throw InvalidArgumentError("task trajectory is null");
  trajectory_ = std::move(trajectory);
}

void TaskSpaceController::setPosture(const Eigen::VectorXd& q_posture) {
  detail::checkConfiguration(*model_, q_posture, "posture q_posture");
  q_posture_ = q_posture;
}

void TaskSpaceController::setGains(const TaskSpaceGains& gains) {
  const int nv = model_->nv;
  detail::checkVector(gains.Kp, 6, "task Kp", true);
  detail::checkVector(gains.Kd, 6, "task Kd", true);
  if (gains.Kp_posture.size() != 0) detail::checkVector(gains.Kp_posture, nv, "Kp_posture", true);
  if (gains.Kd_posture.size() != 0) detail::checkVector(gains.Kd_posture, nv, "Kd_posture", true);
  if (!(gains.damping >= 0.0) || !std::isfinite(gains.damping)) {
    throw InvalidArgumentError("task-space damping must be finite and >= 0, got " +
                               std::to_string(gains.damping));
  }
  gains_ = gains;
  // Empty posture gains mean zero.
  if (gains_.Kp_posture.size() == 0) gains_.Kp_posture = Eigen::VectorXd::Zero(nv);
  if (gains_.Kd_posture.size() == 0) gains_.Kd_posture = Eigen::VectorXd::Zero(nv);
}

const Eigen::VectorXd& TaskSpaceController::compute(double t, const Eigen::VectorXd& q,
                                                    const Eigen::VectorXd& v) {
  checkState(t, q, v);
  const Model& model = *model_;
  // Reference at t (local until the call succeeds).
  TaskReference ref = fixed_reference_;
  if (trajectory_) trajectory_->evaluate(t, ref);

  // Kinematics: Jdot v (runs forward kinematics at (q, v, 0)), the pose, J, h, M's factor.
  const Vector6 Jdot_v =
      frameJacobianDotTimesV(model, data_, q, v, link_, X_BF_, ReferenceFrame::LocalWorldAligned)
          .vector();
  const Transform X_WF = gcbridge::framePose(model, data_, link_, X_BF_);
  computeJointJacobians(model, data_, q);
  frameJacobian(model, data_, link_, X_BF_, ReferenceFrame::LocalWorldAligned, J_);
  const Eigen::VectorXd& h = nonLinearEffects(model, data_, q, v);
  crba(model, data_, q);
  factorizeMassMatrix(model, data_);
  Minv_JT_ = J_.transpose();
  for (int c = 0; c < 6; ++c) solveMassMatrix(model, data_, Minv_JT_.col(c));

  // Lambda = (J M^-1 J^T + mu^2 1)^-1, refused without damping at a singularity.
  Matrix6 A = J_.lazyProduct(Minv_JT_);
  const Eigen::SelfAdjointEigenSolver<Matrix6> eig(A, Eigen::EigenvaluesOnly);
  const double cond = eig.eigenvalues().minCoeff() > 0.0
                          ? eig.eigenvalues().maxCoeff() / eig.eigenvalues().minCoeff()
                          : std::numeric_limits<double>::infinity();
  const double mu = gains_.damping;
  if (mu == 0.0 && !(cond < kMaxConditionNumber)) {
    throw SingularityError("task-space controller: the frame on link '" + model.link_names[link_] +
                           "' is at a singularity (condition number of J M^-1 J^T " +
                           std::to_string(cond) + "); set TaskSpaceGains::damping > 0");
  }
  A.diagonal().array() += mu * mu;
  const Matrix6 Lambda = A.ldlt().solve(Matrix6::Identity());
  // eta = Lambda (J M^-1 h - Jdot v).
  const Vector6 JMinv_h = Minv_JT_.transpose().lazyProduct(h);
  const Vector6 eta = Lambda * (JMinv_h - Jdot_v);

  // Task errors on SE(3) split as SO(3) x R^3, world axes; xdd* and F (Lin).
  Vector6 e, e_dot;
  e.head<3>() = rotationToExpMap(ref.X_WF.rotation() * X_WF.rotation().transpose());
  e.tail<3>() = ref.X_WF.translation() - X_WF.translation();
  e_dot = ref.V_WF - J_.lazyProduct(v);
  const Vector6 xdd_star = ref.A_WF + gains_.Kd.cwiseProduct(e_dot) + gains_.Kp.cwiseProduct(e);
  const Vector6 F = Lambda * xdd_star + eta;

  // Posture torque tau_0 and its projection N tau_0 = tau_0 - J^T Lambda J M^-1 tau_0.
  difference(model, q, q_posture_, e_posture_);
  tau0_ = gains_.Kp_posture.cwiseProduct(e_posture_) - gains_.Kd_posture.cwiseProduct(v);
  if (gains_.null_space_bias_compensation) tau0_ += h;
  const Vector6 Lambda_JMinv_tau0 = Lambda * Minv_JT_.transpose().lazyProduct(tau0_);
  N_tau0_ = tau0_;
  N_tau0_.noalias() -= J_.transpose().lazyProduct(Lambda_JMinv_tau0);

  // tau = J^T F + N tau_0; commit the reports.
  tau_unsaturated_ = N_tau0_;
  tau_unsaturated_.noalias() += J_.transpose().lazyProduct(F);
  reference_ = ref;
  X_WF_ = X_WF;
  e_ = e;
  e_dot_ = e_dot;
  xdd_star_ = xdd_star;
  F_ = F;
  eta_ = eta;
  Jdot_v_ = Jdot_v;
  Lambda_ = Lambda;
  condition_number_ = cond;
  return finishTorque();
}

}  // namespace gcbridge
