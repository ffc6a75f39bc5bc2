// FloatingBaseController's tasks: the quadratic cost on the accelerations, and the end-effector
// tasks' terms.

#include <cmath>
#include <string>
#include <utility>

#include "gcbridge/controllers/floating_base_controller.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/lie_group.hpp"

namespace gcbridge {
namespace {

/// A small weight on every acceleration, so that the tasks' cost is strictly convex.
constexpr double kAccelerationRegularization = 1e-8;

}  // namespace

int FloatingBaseController::addFrameTask(int link, const Transform& X_BF, double weight,
                                         double stiffness, double damping) {
  if (link < 0 || link >= model_->numLinks()) {
    throw InvalidArgumentError("FloatingBaseController::addFrameTask: link " +
                               std::to_string(link) + " is not a link of the model (it has " +
                               std::to_string(model_->numLinks()) + ")");
  }
  for (const auto& [name, value] : {std::pair{"weight", weight}, std::pair{"stiffness", stiffness},
                                    std::pair{"damping", damping}}) {
    if (!std::isfinite(value) || value < 0.0) {
      throw InvalidArgumentError(std::string("FloatingBaseController::addFrameTask: ") + name +
                                 " = " + std::to_string(value) +
                                 " must be finite and not negative");
    }
  }
  if (!X_BF.rotation().allFinite() || !X_BF.translation().allFinite()) {
    throw InvalidArgumentError("FloatingBaseController::addFrameTask: X_BF is not finite");
  }
  FrameTask task;
  task.link = link;
  task.X_BF = X_BF;
  task.weight = weight;
  task.stiffness = stiffness;
  task.damping = damping;
  task.J.setZero(6, model_->nv);
  frame_tasks_.push_back(task);
  return static_cast<int>(frame_tasks_.size()) - 1;
}

void FloatingBaseController::setFrameTarget(int task, const TaskReference& reference) {
  if (task < 0 || task >= static_cast<int>(frame_tasks_.size())) {
    throw InvalidArgumentError("FloatingBaseController::setFrameTarget: no task " +
                               std::to_string(task) + " (there are " +
                               std::to_string(frame_tasks_.size()) + ")");
  }
  const Matrix3& R = reference.X_WF.rotation();
  if (!R.allFinite() || !reference.X_WF.translation().allFinite() || !reference.V_WF.allFinite() ||
      !reference.A_WF.allFinite() || !(R.transpose() * R).isApprox(Matrix3::Identity(), 1e-9) ||
      R.determinant() < 0.0) {
    throw InvalidArgumentError("FloatingBaseController::setFrameTarget: task " +
                               std::to_string(task) +
                               ": the reference is not finite or its orientation not a rotation");
  }
  frame_tasks_[task].reference = reference;
  frame_tasks_[task].has_target = true;
}

void FloatingBaseController::computeFrameTaskJacobians() {
  for (FrameTask& task : frame_tasks_) {
    frameJacobian(*model_, data_, task.link, task.X_BF, ReferenceFrame::LocalWorldAligned, task.J);
    task.X_WF = framePose(*model_, data_, task.link, task.X_BF);
  }
}

void FloatingBaseController::computeFrameTaskBiases() {
  // dJ/dt v in LocalWorldAligned: the frame's classical acceleration at a = 0.
  for (FrameTask& task : frame_tasks_) {
    task.dJ_v = frameClassicalAcceleration(*model_, data_, task.link, task.X_BF,
                                           ReferenceFrame::LocalWorldAligned)
                    .vector();
  }
}

void FloatingBaseController::addTask(const Eigen::Ref<const Eigen::MatrixXd>& A,
                                     const Eigen::Ref<const Eigen::VectorXd>& b,
                                     const Eigen::Ref<const Eigen::VectorXd>& weights) {
  const int nv = model_->nv;
  task_At_ = A.transpose();
  task_WAt_.noalias() = task_At_ * weights.asDiagonal();
  // H_aa's lower triangle only, column by column:
  // H(j:, j) += A(:, j:)^T W A(:, j), vectorized down the column.
  for (int j = 0; j < nv; ++j) {
    H_aa_.col(j).tail(nv - j).noalias() +=
        task_At_.bottomRows(nv - j).lazyProduct(task_WAt_.row(j).transpose());
  }
  g_a_.noalias() -= task_WAt_ * b;
}

void FloatingBaseController::addContactTask(const Eigen::VectorXd& b, double weight) {
  if (weight == 0.0) return;
  // The rows of a run of contacts on one link are zero but in the dofs that move the link (its
  // own and its ancestors', by the dof parents from its last dof: in decreasing order, so that
  // the pair (x, y), x before y, is in the lower triangle).
  const std::size_t nc = contacts_.size();
  for (std::size_t first = 0, end = 0; first < nc; first = end) {
    const int contact_link = contacts_[first].link;
    for (end = first + 1; end < nc && contacts_[end].link == contact_link; ++end) {
    }
    int link = contact_link;
    while (link >= 0 && model_->joints[link].nv == 0) link = model_->parents[link];
    dofs_.clear();
    if (link >= 0) {
      const Joint& joint = model_->joints[link];
      for (int j = joint.idx_v + joint.nv - 1; j >= 0; j = model_->dof_parent[j]) {
        dofs_.push_back(j);
      }
    }
    const auto J_run = J_c_.middleRows(3 * static_cast<Eigen::Index>(first),
                                       3 * static_cast<Eigen::Index>(end - first));
    for (std::size_t x = 0; x < dofs_.size(); ++x) {
      for (std::size_t y = x; y < dofs_.size(); ++y) {
        H_aa_(dofs_[x], dofs_[y]) += weight * J_run.col(dofs_[x]).dot(J_run.col(dofs_[y]));
      }
    }
  }
  g_a_.noalias() -= weight * J_c_.transpose() * b;
}

void FloatingBaseController::computeTasks(const Eigen::VectorXd& v) {
  const int nv = model_->nv;
  const double m = model_->totalMass();
  const FloatingBaseGains& k = gains_;
  H_aa_.setZero();
  H_aa_.diagonal().setConstant(kAccelerationRegularization);
  g_a_.setZero();
  // Balance (Lee & Goswami): the COM's acceleration toward c*, the angular momentum damped; as
  // tasks on the momentum's rate A_G a + dA_G v, weighted over m^2 (per unit of COM acceleration).
  const Eigen::Matrix<double, 6, 1> h_G = A_G_ * v;
  const Vector3 com_velocity = h_G.tail<3>() / m;
  const Vector3 linear_rate =
      m * (k.com_stiffness * (com_target_ - com_) - k.com_damping * com_velocity) -
      dA_G_v_.linear();
  const Vector3 angular_rate = -k.angular_momentum_damping * h_G.head<3>() - dA_G_v_.angular();
  Vector6 rate, weights;
  rate << angular_rate, linear_rate;
  weights << Vector3::Constant(k.angular_momentum_weight / (m * m)),
      Vector3::Constant(k.com_weight / (m * m));
  addTask(A_G_, rate, weights);
  // The root's orientation and the joints' posture: PD toward the reference, in the dofs.
  task_b_ = reference_.a + k.posture_stiffness * e_q_ + k.posture_damping * e_v_;
  task_b_.head<3>() = reference_.a.head<3>() + k.orientation_stiffness * e_q_.head<3>() +
                      k.orientation_damping * e_v_.head<3>();
  H_aa_.diagonal().head<3>().array() += k.orientation_weight;
  g_a_.head<3>() -= k.orientation_weight * task_b_.head<3>();
  H_aa_.diagonal().tail(nv - 6).array() += k.posture_weight;
  g_a_.tail(nv - 6) -= k.posture_weight * task_b_.tail(nv - 6);
  // Contacts that do not move: their velocity damped to zero.
  contact_b_.noalias() = J_c_ * v;
  contact_b_ *= -k.contact_damping;
  contact_b_ -= dJ_c_v_;
  addContactTask(contact_b_, k.contact_weight);
  addFrameTasks(v);
}

void FloatingBaseController::addFrameTasks(const Eigen::VectorXd& v) {
  // Each end-effector toward its target (TaskSpaceController's errors): log(R_ref R^T), p_ref - p.
  for (const FrameTask& task : frame_tasks_) {
    if (!task.has_target || task.weight == 0.0) continue;
    const TaskReference& ref = task.reference;
    Vector6 e, e_dot;
    e.head<3>() = rotationToExpMap(ref.X_WF.rotation() * task.X_WF.rotation().transpose());
    e.tail<3>() = ref.X_WF.translation() - task.X_WF.translation();
    e_dot = ref.V_WF - task.J * v;
    const Vector6 b = ref.A_WF + task.damping * e_dot + task.stiffness * e - task.dJ_v;
    const Vector6 weights = Vector6::Constant(task.weight);
    addTask(task.J, b, weights);
  }
}

}  // namespace gcbridge
