#pragma once
/// @file
/// Task-space inverse dynamics (operational-space control; Lin, "Task-space Inverse Dynamics
/// Controller"): a frame F fixed on a link tracks a pose X_WF_ref(t).
///
/// Task coordinates as in task_space.hpp and Lin's lecture, angular first: x = (orientation,
/// position of Fo), xdot = J v = (omega_WF, pdot_WFo), both in world axes (J the
/// LocalWorldAligned frame Jacobian, 6 x nv), xdd = J vdot + Jdot v (classical accelerations).
/// Errors: e = (log(R_ref R^T), p_ref - p) with log the rotation vector of SO(3) in world axes,
/// e_dot = xdot_ref - J v. The law:
///   xdd* = xdd_ref + Kd e_dot + Kp e                     (Lin, per task axis)
///   F    = Lambda xdd* + eta,   Lambda = (J M^-1 J^T + mu^2 1)^-1,
///                               eta = Lambda (J M^-1 h - Jdot v)
///   tau  = J^T F + N tau_0,     N = 1 - J^T Jbar^T, Jbar = M^-1 J^T Lambda
/// Lambda is the correct operational-space inertia (J M^-1 J^T)^-1 of task_space.hpp, not
/// Lin's (J^T)^+ M J^+, which is wrong for a redundant arm. mu >= 0 is the singularity damping
/// (0: none). N is task_space.hpp's torque projector (Khatib's N^T = 1 - J^T Jbar^T), applied to
/// tau_0 directly: J M^-1 N = 0 when mu = 0, so tau_0 causes no task acceleration.
/// tau_0 = Kp_posture (q_posture (-) q) - Kd_posture v [+ h(q, v)] is a joint PD toward a posture
/// plus, by default, the nonlinear effects h: then J^T eta + N h = h - J^T Lambda Jdot v, so the
/// self-motion of a redundant arm is gravity-compensated rather than falling.
///
/// With mu = 0 and a perfect model, xdd = xdd* exactly, so the position error obeys
/// e'' + Kd e' + Kp e = 0; so does the orientation error while it stays about one axis.
/// Gains: Kp [1/s^2] and Kd [1/s] per task axis (angular x, y, z, linear x, y, z); critical damping
/// is Kd = 2 sqrt(Kp). Posture gains per dof in torque units (as JointPD).

#include <Eigen/Core>
#include <memory>
#include <string>

#include "gcbridge/controllers/controller.hpp"
#include "gcbridge/dynamics/spatial.hpp"

namespace gcbridge {

/// A task-space reference at one instant: pose, velocity and acceleration of F in the world.
struct TaskReference {
  Transform X_WF;                  ///< desired pose of F in W
  Vector6 V_WF = Vector6::Zero();  ///< desired (omega_WF_W, pdot_WFo_W) [rad/s, m/s]
  Vector6 A_WF = Vector6::Zero();  ///< desired (omegadot, pddot), world axes [rad/s^2, m/s^2]
};

/// A task-space reference as a function of time.
class TaskTrajectory {
 public:
  virtual ~TaskTrajectory();
  /// The reference at time t [s], without allocation. @throws InvalidArgumentError if t is not
  /// finite.
  virtual void evaluate(double t, TaskReference& ref) const = 0;
};

/// The origin of F runs around a circle at constant angular rate, F's orientation fixed:
/// p(t) = c + r (cos(w t + phi) u + sin(w t + phi) w_axis).
class CircleTrajectory : public TaskTrajectory {
 public:
  /// @param p_WC centre [m] @param radius r [m] @param u, w_axis orthonormal in-plane directions
  /// (world) @param angular_frequency w [rad/s] @param R_WF the fixed orientation @param phase
  /// [rad]
  /// @throws InvalidArgumentError on non-finite input or u, w_axis not orthonormal (1e-9).
  CircleTrajectory(const Vector3& p_WC, double radius, const Vector3& u, const Vector3& w_axis,
                   double angular_frequency, const Matrix3& R_WF, double phase = 0.0);
  void evaluate(double t, TaskReference& ref) const override;

 private:
  Vector3 p_WC_, u_, w_;
  double radius_, frequency_, phase_;
  Matrix3 R_WF_;
};

/// Gains of TaskSpaceController.
struct TaskSpaceGains {
  Vector6 Kp = Vector6::Constant(100.0);  ///< task stiffness (angular, linear) [1/s^2]
  Vector6 Kd = Vector6::Constant(20.0);   ///< task damping [1/s]
  /// Posture stiffness per dof [N m/rad or N/m] (nv); empty: zero.
  Eigen::VectorXd Kp_posture;
  /// Posture damping per dof [N m s/rad or N s/m] (nv); empty: zero.
  Eigen::VectorXd Kd_posture;
  /// Add h(q, v) to tau_0 (see the file comment).
  bool null_space_bias_compensation = true;
  /// Singularity damping mu >= 0 [in units of sqrt(1/Lambda)]: Lambda = (J M^-1 J^T + mu^2 1)^-1.
  double damping = 0.0;
};

/// Task-space inverse dynamics for one frame (see the file comment).
class TaskSpaceController : public Controller {
 public:
  /// Frame F fixed on model link `link` at X_BF. The reference defaults to F's pose at the
  /// neutral configuration, at rest; the posture to the neutral configuration.
  /// @throws InvalidArgumentError on a bad link index or gains.
  TaskSpaceController(const Model& model, int link, const Transform& X_BF,
                      const TaskSpaceGains& gains);
  /// The same for a model frame (a description link) by name.
  TaskSpaceController(const Model& model, const std::string& frame_name,
                      const TaskSpaceGains& gains);

  /// @throws InvalidArgumentError on bad input (nothing changed); SingularityError if damping is 0
  /// and J M^-1 J^T has a condition number above 1e12 (the torque and reports unchanged).
  const Eigen::VectorXd& compute(double t, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& v) override;

  /// Track a fixed reference. @throws InvalidArgumentError on non-finite input.
  void setReference(const TaskReference& reference);
  /// Track trajectory->evaluate(t). @throws InvalidArgumentError if null.
  void setTrajectory(std::shared_ptr<const TaskTrajectory> trajectory);
  /// @param q_posture (nq). @throws InvalidArgumentError (nothing changed).
  void setPosture(const Eigen::VectorXd& q_posture);
  /// @throws InvalidArgumentError naming the argument (gains unchanged).
  void setGains(const TaskSpaceGains& gains);
  const TaskSpaceGains& gains() const { return gains_; }
  int link() const { return link_; }
  const Transform& X_BF() const { return X_BF_; }

  // Reports of the last successful compute().
  /// The reference used.
  const TaskReference& reference() const { return reference_; }
  /// X_WF, the frame's pose.
  const Transform& framePose() const { return X_WF_; }
  /// e = (log(R_ref R^T), p_ref - p) [rad, m] (6).
  const Vector6& taskError() const { return e_; }
  /// e_dot = xdot_ref - J v [rad/s, m/s] (6).
  const Vector6& taskVelocityError() const { return e_dot_; }
  /// xdd* (6).
  const Vector6& desiredTaskAcceleration() const { return xdd_star_; }
  /// F = Lambda xdd* + eta [N m, N] (6).
  const Vector6& taskForce() const { return F_; }
  /// J (6 x nv; a workspace, refreshed also by a call that throws SingularityError), Lambda
  /// (6 x 6), eta (6), Jdot v (6).
  const Eigen::Matrix<double, 6, Eigen::Dynamic>& jacobian() const { return J_; }
  const Matrix6& Lambda() const { return Lambda_; }
  const Vector6& eta() const { return eta_; }
  const Vector6& JdotV() const { return Jdot_v_; }
  /// Condition number of J M^-1 J^T (without the damping).
  double conditionNumber() const { return condition_number_; }
  /// tau_0 (nv) and its projection N tau_0 (nv).
  const Eigen::VectorXd& postureTorque() const { return tau0_; }
  const Eigen::VectorXd& nullSpaceTorque() const { return N_tau0_; }

 private:
  Data data_;
  int link_;
  Transform X_BF_;
  TaskSpaceGains gains_;
  std::shared_ptr<const TaskTrajectory> trajectory_;
  TaskReference fixed_reference_, reference_;
  Eigen::VectorXd q_posture_;
  // Workspace (sizes in comments) and reports.
  Eigen::Matrix<double, 6, Eigen::Dynamic> J_;        // 6 x nv
  Eigen::Matrix<double, Eigen::Dynamic, 6> Minv_JT_;  // nv x 6
  Eigen::VectorXd e_posture_, tau0_, N_tau0_;         // nv each
  Transform X_WF_;
  Vector6 e_ = Vector6::Zero(), e_dot_ = Vector6::Zero(), xdd_star_ = Vector6::Zero();
  Vector6 F_ = Vector6::Zero(), eta_ = Vector6::Zero(), Jdot_v_ = Vector6::Zero();
  Matrix6 Lambda_ = Matrix6::Zero();
  double condition_number_ = 0.0;
};

}  // namespace gcbridge
