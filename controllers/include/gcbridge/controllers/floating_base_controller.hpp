#pragma once
/// @file
/// Floating-base inverse dynamics with contacts: joint torques that hold a body with an
/// unactuated root (a character, a legged robot) on its contacts, in generalized coordinates:
///
///   M a + h = S^T tau + J_c^T f_c,   the first six rows of S^T tau zero (the free root),
///
/// with J_c the contact Jacobian (contacts.hpp, 3 rows per point) and f_c the contact forces in
/// world axes. The desired motion is a weighted sum of tasks on the accelerations a:
///  - balance, after Lee & Goswami's momentum-based law: the rate of the linear momentum
///    m (K_G (c* - c) - D_G c'), and the angular momentum about the COM damped, -D_k k_G
///    (centroidal.hpp: A_G a + dA_G v). The COM target c* is where the reference pose has its COM
///    relative to the contact points (the reference's COM moved by the mean of the points'
///    displacements from where the reference has them), moved over the support polygon if it is
///    not there;
///  - the root link's orientation toward the reference's (PD, in the root frame);
///  - posture: every joint dof toward the reference (PD plus the reference's acceleration);
///  - optional end-effector tasks (addFrameTask): a frame toward a pose;
///  - contacts that do not move: J_c a + dJ_c v = -D_c J_c v (a heavy weight: they are a task, so
///    that several points of one foot, whose rows depend on each other, cost nothing extra).
/// Two solvers behind the one interface:
///  - Projected (Mistry, Buchli & Schaal 2010; Righetti et al. 2013): the tasks give a; an
///    orthogonal decomposition of J_c^T = Q [T 0; 0 0] Z^T splits the equations of motion into the
///    rows that contact forces reach and those they do not, Q2^T (M a + h) = Q2^T S^T tau, which
///    give the joint torques (the least-norm ones) with no root force, and the forces from the
///    rest (least norm). Friction and unilaterality are not imposed: the forces may pull or slide
///    (contactForceViolation() says by how much).
///  - Qp: one quadratic program over (a, f_c) (quadratic_program.hpp): the tasks as the cost, the
///    root rows of the equations of motion as equalities, each force in its friction pyramid (4
///    or 8 sides, inscribed in the cone of the contact's mu) with a normal part of at least
///    min_normal_force, and the joint torques within the torque limits if set. It is solved over
///    the forces alone first (the accelerations eliminated exactly through the root rows,
///    floating_base_qp.cpp); over (a, f_c) only when that solution's torques break a limit.
///
/// Contacts come from setContacts() before each compute(): read from Bullet by the plugin
/// (attach with a ContactAwareController) or declared by the application (ContactFrames).
///
/// Never NaN. What the controller could not do is its status() with a message(), and the output
/// is a documented fallback: no contacts (the root cannot be held: joint-space computed torque of
/// the joints alone), a QP that has no solution (the projected solver's torques), anything not
/// finite (the last finite torques, or zero).
///
/// Through Bullet's joint motors (the plugin's Actuation::JointMotors), aimAtStepEnd gives the
/// motors the motion planned so far to hold (docs/controllers.md, "Standing through Bullet's
/// motors").
///
/// With the QP solver, compute() allocates nothing once it has run with as many contacts (and
/// frame tasks) before, its status messages included; the projected solver's decompositions
/// allocate, and so does a failing QP's message.

#include <Eigen/Core>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gcbridge/controllers/controller.hpp"
#include "gcbridge/controllers/detail/cholesky.hpp"
#include "gcbridge/controllers/quadratic_program.hpp"
#include "gcbridge/controllers/support_polygon.hpp"
#include "gcbridge/controllers/task_space_controller.hpp"
#include "gcbridge/dynamics/contacts.hpp"

namespace gcbridge {

/// A joint controller told the contacts before each compute().
class ContactAwareController : public JointController {
 public:
  /// The contacts of the next compute()s (copied).
  /// @throws InvalidArgumentError naming the contact whose link is out of range, point not finite,
  ///   normal not a unit vector or friction negative (nothing changed).
  void setContacts(const std::vector<ContactPoint>& contacts);
  const std::vector<ContactPoint>& contacts() const { return contacts_; }

 protected:
  explicit ContactAwareController(const Model& model) : JointController(model) {}
  std::vector<ContactPoint> contacts_;
};

/// How FloatingBaseController turns desired accelerations into torques.
enum class FloatingBaseSolver { Projected, Qp };
/// "projected", "qp".
const char* toString(FloatingBaseSolver solver);

/// Gains [1/s^2, 1/s] and task weights of FloatingBaseController.
struct FloatingBaseGains {
  double com_stiffness = 36.0;            ///< K_G
  double com_damping = 12.0;              ///< D_G
  double angular_momentum_damping = 5.0;  ///< D_k
  double orientation_stiffness = 100.0;   ///< root orientation
  double orientation_damping = 20.0;
  double posture_stiffness = 100.0;  ///< joint dofs
  double posture_damping = 20.0;
  double contact_damping = 20.0;  ///< D_c
  /// Task weights (the squared residuals of accelerations [m/s^2, rad/s^2] are weighed).
  double com_weight = 10.0;
  double angular_momentum_weight = 0.1;  ///< per (kg m^2/s^2)^2 / total mass^2
  double orientation_weight = 10.0;
  double posture_weight = 1.0;
  double contact_weight = 1e3;
  /// Qp: the weight of (|f_c| / (m g))^2, which spreads the load over the contacts and makes the
  /// QP over the forces strictly convex (> 0).
  double force_weight = 1e-3;
  /// Qp: sides of each friction pyramid, 4 or 8.
  int pyramid_sides = 4;
  /// Qp: the least normal force of a contact [N].
  double min_normal_force = 0.0;
  /// Qp: the most steps (constraints added or dropped) a solve may take, a bound on its time;
  /// past it the projected solver's torques are used (status QpFailed). 0: the solver's default.
  int qp_max_iterations = 0;
};

/// What the last compute() could do.
enum class FloatingBaseStatus {
  Ok,
  TargetMoved,    ///< the reference's COM was not over the support polygon: moved over it
  TorqueLimited,  ///< the QP met the tasks as well as the torque limits allow (some at a limit)
  NoContacts,     ///< no contact: the joints' computed torque, the root left to fall
  QpFailed,       ///< the QP had no solution: the projected solver's torques instead
  NotFinite,      ///< a non-finite result: the last finite torques (zero before any)
};
/// "ok", "target moved", "torque limited", "no contacts", "qp failed", "not finite".
const char* toString(FloatingBaseStatus status);

/// Floating-base inverse dynamics with contacts (file comment). The model's root must be a free
/// joint; the reference (setSetPoint, setTrajectory) is a whole configuration, root included.
class FloatingBaseController : public ContactAwareController {
 public:
  /// @throws InvalidArgumentError if the root joint is not free, gains are negative or not
  ///   finite, or pyramid_sides is not 4 or 8.
  FloatingBaseController(const Model& model, FloatingBaseSolver solver,
                         const FloatingBaseGains& gains = {});

  /// Joint torques, the six root entries zero. @throws InvalidArgumentError on bad input.
  const Eigen::VectorXd& compute(double t, const Eigen::VectorXd& q,
                                 const Eigen::VectorXd& v) override;

  FloatingBaseSolver solver() const { return solver_; }
  const FloatingBaseGains& gains() const { return gains_; }
  /// @throws InvalidArgumentError as the constructor.
  void setGains(const FloatingBaseGains& gains);

  /// Adds an end-effector task: frame F, fixed on `link` at X_BF, toward the pose of
  /// setFrameTarget (none until then) with PD gains [1/s^2, 1/s] and a weight, its errors those of
  /// TaskSpaceController: log(R_ref R^T) and p_ref - p, world axes, angular first.
  /// @return the task's index. @throws InvalidArgumentError for a link out of range, a gain or
  ///   weight negative or not finite, or X_BF not finite.
  int addFrameTask(int link, const Transform& X_BF, double weight, double stiffness = 100.0,
                   double damping = 20.0);
  /// The reference of end-effector task `task` (pose, velocity, acceleration; world axes).
  /// @throws InvalidArgumentError for no such task, a reference not finite or an orientation that
  ///   is not a rotation (the task unchanged).
  void setFrameTarget(int task, const TaskReference& reference);

  /// Discrete time, for Bullet's joint motors: each compute() advances a planned configuration
  /// q_plan by one substep of h [s] at the measured velocity plus the planned acceleration,
  /// q_plan <- q_plan (+) h (v + h a), and targetAcceleration() aims the joints at it, qdd* =
  /// (q_plan (-) q) / h^2 - v / h: a motor that reaches v + h qdd* puts the joint on q_plan at the
  /// substep's end. What Bullet's solver leaves unrealized in one substep stays in the lag
  /// q_plan (-) q and is asked for again in the next (integral action on the joints' sag). Each
  /// joint dof's lag is held within max_lag [rad, m] (q_plan moved back toward q: no wind-up while
  /// a motor is at its limit); the root's plan is the measured root. q_plan starts at the measured
  /// q at the first compute(), and again when t does not advance. h = 0: no aim (the plugin's
  /// motors then aim at ABA of the torques). Call it before attaching: the plugin takes the
  /// target accelerations when it attaches. The torques of compute() are unchanged (the plugin
  /// applies them as forces where a dof has no motor).
  /// @throws InvalidArgumentError for h or max_lag negative or not finite (nothing changed).
  void aimAtStepEnd(double h, double max_lag = kDefaultMaxPlanLag);
  /// The substep aimed at (0: none) and the lag bound.
  double stepAim() const { return step_aim_; }
  double maxPlanLag() const { return max_lag_; }
  /// The default lag bound of aimAtStepEnd [rad, m].
  static constexpr double kDefaultMaxPlanLag = 0.05;
  /// q_plan (-) q at the last compute() (nv; zero without aimAtStepEnd and in the root's rows).
  const Eigen::VectorXd& planLag() const { return plan_lag_; }
  /// With aimAtStepEnd, the accelerations for the plugin's joint motors (nv): aimed at q_plan in
  /// the joints' rows, the planned a in the root's; nullptr without it.
  const Eigen::VectorXd* targetAcceleration() const override {
    return step_aim_ > 0.0 ? &target_acceleration_ : nullptr;
  }

  FloatingBaseStatus status() const { return status_; }
  /// What status() means this time, with the numbers, after any earlier condition of the same call
  /// ("" when Ok).
  const std::string& message() const override { return message_; }
  /// The accelerations the output realizes on the model (nv).
  const Eigen::VectorXd& acceleration() const { return a_; }
  /// The contact forces, world axes (3 per contact, in the order of the last compute()'s
  /// contacts) [N].
  const Eigen::VectorXd& contactForces() const { return f_; }
  /// How far the last compute()'s worst contact force is outside its friction pyramid, or pulls
  /// [N]: the largest distance of a force outside a side's plane, and of -f_n (0 when all are in).
  double contactForceViolation() const;
  /// The root rows of M a + h - J_c^T f_c - S^T tau: the root force the model would need [N m, N].
  const Eigen::Matrix<double, 6, 1>& rootResidual() const { return root_residual_; }
  /// The COM at the last compute()'s q, its target, world axes [m], and the support polygon.
  const Vector3& centerOfMass() const { return com_; }
  const Vector3& comTarget() const { return com_target_; }
  const SupportPolygon& supportPolygon() const { return polygon_; }

 private:
  /// An end-effector task (addFrameTask) and its terms at the last compute().
  struct FrameTask {
    int link = 0;
    Transform X_BF;
    double weight = 0.0, stiffness = 0.0, damping = 0.0;
    TaskReference reference;
    bool has_target = false;
    Eigen::MatrixXd J;  ///< 6 x nv, LocalWorldAligned
    Vector6 dJ_v = Vector6::Zero();
    Transform X_WF;
  };

  /// M, h, J_c, dJ_c v, A_G, dA_G v, the contact points and the COM at (q, v).
  void computeTerms(const Eigen::VectorXd& q, const Eigen::VectorXd& v);
  /// The end-effector tasks' Jacobians and poses (floating_base_tasks.cpp).
  /// @pre computeJointJacobians at q.
  void computeFrameTaskJacobians();
  /// The end-effector tasks' dJ/dt v. @pre forwardKinematics at (q, v, 0).
  void computeFrameTaskBiases();
  /// Adds the end-effector tasks that have a target to the cost.
  void addFrameTasks(const Eigen::VectorXd& v);
  /// c*: the reference's COM, moved over the support polygon if it is not (status TargetMoved).
  void placeComTarget();
  /// The tasks, then a, f_c and tau by the solver (the projected one if the QP fails).
  void solve(const Eigen::VectorXd& v);
  /// The tasks' cost 1/2 a^T H_aa a + g_a^T a (H_aa symmetric, kept in its lower triangle).
  void computeTasks(const Eigen::VectorXd& v);
  /// Sets the status and adds the parts of `what` to the message (after a previous one, "; ").
  void report(FloatingBaseStatus status, std::initializer_list<std::string_view> what);
  /// Adds 1/2 (A a - b)^T W (A a - b) to the cost (H_aa's lower triangle), W = diag(weights).
  void addTask(const Eigen::Ref<const Eigen::MatrixXd>& A,
               const Eigen::Ref<const Eigen::VectorXd>& b,
               const Eigen::Ref<const Eigen::VectorXd>& weights);
  /// Adds weight / 2 |J_c a - b|^2 to the cost (H_aa's lower triangle), from each contact's
  /// nonzero columns.
  void addContactTask(const Eigen::VectorXd& b, double weight);
  /// a from the tasks alone, tau and f_c by the orthogonal decomposition.
  void solveProjected();
  /// a, f_c and tau from the QP (floating_base_qp.cpp). @return false (and the message) if it
  /// has no solution.
  bool solveQp();
  /// The QP over (a, f_c) with the torque limits, when the forces' QP's torques break them.
  bool solveQpWithLimits();
  /// Status QpFailed, its message saying why. @return false.
  bool qpFailed(const std::string& why);
  /// No contacts: tau = the joint rows of M a + h, a the posture's accelerations, root's zero.
  void jointComputedTorque();
  /// tau's joint rows from a and f_c: (M a + h - J_c^T f_c) below the root.
  void torqueFromSolution();
  /// The plan advanced by a substep and the motors' target accelerations (aimAtStepEnd;
  /// floating_base_aim.cpp).
  void aimMotors(double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v);

  FloatingBaseSolver solver_;
  FloatingBaseGains gains_;
  FloatingBaseStatus status_ = FloatingBaseStatus::Ok;
  std::string message_;
  Data ref_data_;  // the reference's kinematics at reference_q_, its COM
  Eigen::VectorXd reference_q_;
  Vector3 reference_com_ = Vector3::Zero();
  Eigen::MatrixXd M_, J_c_, A_G_, H_aa_;
  Eigen::VectorXd h_, dJ_c_v_, g_a_, a_, f_, tau_last_finite_, task_b_, contact_b_;
  std::vector<int> dofs_;               ///< addContactTask's dofs of one contact
  Eigen::MatrixXd task_At_, task_WAt_;  ///< addTask's A^T and A^T W
  Force dA_G_v_ = Force::Zero();
  Vector3 com_ = Vector3::Zero();
  Eigen::Matrix<double, 6, 1> root_residual_ = Eigen::Matrix<double, 6, 1>::Zero();
  Vector3 com_target_ = Vector3::Zero();
  SupportPolygon polygon_;
  std::vector<FrameTask> frame_tasks_;
  std::vector<ContactPoint> solved_contacts_;  ///< the contacts of the last compute()
  std::vector<Vector3> contact_points_W_;
  QpSolver qp_solver_, qp_limits_solver_;
  // The QP over the forces and the one with the torque limits; each one's last active set and
  // shape (inequalities, unknowns) for the warm start.
  QuadraticProgram qp_, qp_limits_;
  std::vector<int> qp_active_, qp_limits_active_;
  std::pair<Eigen::Index, Eigen::Index> qp_shape_{-1, -1}, qp_limits_shape_{-1, -1};
  QpResult qp_result_, qp_limits_result_;
  // The elimination of a (solveQp): H_aa = L L^T carrying the rows M_r and g_a^T (which become
  // V^T = (L^-1 M_r^T)^T and w_0^T = (L^-1 g_a)^T), B.
  detail::Cholesky H_llt_;
  Eigen::Matrix<double, 7, Eigen::Dynamic> qp_border_;
  Eigen::Matrix<double, 6, Eigen::Dynamic> qp_B_;
  // aimAtStepEnd: the substep, the lag bound, the planned configuration and its lag, when the
  // plan was last advanced.
  double step_aim_ = 0.0, max_lag_ = kDefaultMaxPlanLag;
  Eigen::VectorXd q_plan_, plan_lag_, target_acceleration_;
  double plan_t_ = 0.0;
  bool plan_started_ = false;
};

}  // namespace gcbridge
