#pragma once
// The ragdoll experiment of demos/ragdoll, shared by the demo and tests/ragdoll_demo_test.cpp.
//
// Two humanoids standing on a ground plane, each held through the plugin while its arms wave:
//  - a ragdoll built by hand the way Bullet's RagdollDemo builds one (btCapsuleShape bodies,
//    btHingeConstraint knees, elbows and waist, btConeTwistConstraint hips, shoulders and neck,
//    frames set with setEulerZYX, addRigidBody / addConstraint(c, true), y up), with a box foot on
//    an ankle hinge under each leg as an application that wants it to stand adds them; its model
//    the plugin infers from the world (inferModelFromWorld, root = pelvis: a floating base);
//  - the shipped DeepMimic humanoid (quaternion ball joints) built by gcbridge's
//    buildRigidBodyWorld with its ground plane.
// The floating root is unactuated in reality. RootMode::Actuated holds the body by computed torque
// and applies its 6 root generalized forces to the pelvis anyway (a virtual "hand of god" wrench,
// as animation systems use). RootMode::Free applies joint torques only: by default those of the
// contact-aware FloatingBaseController (the feet's contacts read from Bullet each substep), or
// computed torque's with the root's zeroed, which cannot stand.

#include <Eigen/Core>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/progress.hpp"
#include "common/run_frames.hpp"

namespace gcbridge::demo {

enum class RagdollModel { HandBuilt, DeepMimic };
enum class RootMode { Actuated, Free };
/// The controller of a run: computed torque (joint space, no contacts), or FloatingBaseController
/// with the projected or the QP solver (root free only).
enum class RagdollController { ComputedTorque, Projected, Qp };

/// "ragdoll", "deepmimic"; "actuated", "free".
const char* toString(RagdollModel model);
const char* toString(RootMode mode);
/// The model or root mode of that name; nothing for another name.
std::optional<RagdollModel> ragdollModelFromString(std::string_view name);
std::optional<RootMode> rootModeFromString(std::string_view name);
/// "computed_torque", "projected", "qp".
const char* toString(RagdollController controller);
std::optional<RagdollController> ragdollControllerFromString(std::string_view name);

/// What one run measured.
struct RagdollResult {
  int nv = 0;                    ///< degrees of freedom (6 of them the root's)
  double mass = 0.0;             ///< total mass [kg]
  double rms_joint_error = 0.0;  ///< RMS over substeps and joint dofs (root excluded) [rad]
  double max_joint_error = 0.0;  ///< largest |q_ref (-) q| of a joint dof [rad]
  double pelvis_start = 0.0;     ///< pelvis (root body COM) height above the ground at t = 0 [m]
  double pelvis_end = 0.0;       ///< ... at the end [m]
  double pelvis_min = 0.0;       ///< lowest pelvis height [m]
  /// Pelvis height every 0.5 s of simulated time, starting at t = 0 [m].
  std::vector<double> pelvis_samples;
  /// |f_root| / (m g): the controller's root force (the linear part of its 6 root generalized
  /// forces) relative to the body weight, mean and max over substeps. Applied to the pelvis only
  /// with RootMode::Actuated.
  double mean_root_force_fraction = 0.0;
  double max_root_force_fraction = 0.0;
  double max_constraint_error = 0.0;  ///< largest pivot separation of any joint [m]
  /// Time until the pelvis first dropped below 70 % of its start height (the run's length if it
  /// never did) [s].
  double upright_time = 0.0;
  bool fell = false;
  long saturated_substeps = 0;  ///< substeps with a joint torque at its limit
  long errors = 0;              ///< substeps the plugin applied nothing
  bool diverged = false;        ///< a NaN or an error from the plugin
  std::string failure;          ///< when and why it diverged
  /// How far the bodies were off their joints at spawn (InferredModel::spawn_errors: largest
  /// pivot separation [m], axis error [rad]); the hand-built ragdoll spawns with RagdollDemo's
  /// own frames, up to 10 cm off, and is projected onto its joints when the plugin attaches.
  double spawn_gap = 0.0;
  double spawn_angle = 0.0;
  // The contact-aware controller's measures (RagdollController::Projected and Qp).
  /// Largest distance of the COM outside the support polygon seen from above [m] (0: always over
  /// it), and the RMS horizontal distance from the controller's COM target [m].
  double com_outside_max = 0.0;
  double com_error_rms = 0.0;
  /// Largest amount by which a contact force the controller planned leaves its friction pyramid
  /// or pulls [N] (0 for the QP by construction).
  double max_force_violation = 0.0;
  /// Largest root force and moment applied to the pelvis by the plugin [N, N m] (0 unless the
  /// root is actuated).
  double max_root_force_applied = 0.0;
  /// Largest joint torque [N m] and its ratio to that joint's limit (the run's torque limits),
  /// and the largest ratio to the model's own effort limits where it has them (-1: none).
  double max_joint_torque = 0.0;
  double max_torque_ratio = 0.0;
  double max_effort_ratio = -1.0;
  /// The controller's wall-clock cost per run [us], mean over the run.
  double controller_us = 0.0;
  /// Substeps whose controller reported a fallback (FloatingBaseStatus other than ok), and the
  /// first such message.
  long fallback_substeps = 0;
  std::string first_fallback;
};

/// How a run goes.
struct RagdollOptions {
  RootMode root = RootMode::Actuated;
  /// ComputedTorque is the only one for an actuated root (the program picks Qp for a free one).
  RagdollController controller = RagdollController::ComputedTorque;
  double h = 1.0 / 240.0;  ///< substep [s]
  int steps = 960;         ///< substeps
  /// At t = 2 s, a horizontal impulse on the pelvis along the feet that changes the whole body's
  /// COM velocity by push_speed [m/s] (0: no push).
  double push_speed = 0.0;
  std::FILE* csv = nullptr;  ///< CSV rows if not null (runRagdoll)
  ProgressCallback progress;
  /// The DeepMimic humanoid's URDF (empty: models/humanoid_deepmimic/humanoid.urdf).
  std::string humanoid_urdf;
  RunFrames* frames = nullptr;  ///< the run's frames if not null (until it diverges)
};

/// Runs options.steps substeps. The arms wave (shoulders +-0.5 rad at 0.5 Hz) while every other
/// joint and the root hold the start pose; computed torque with K = 400 1/s^2, D = 40 1/s on every
/// dof, or FloatingBaseController with its default gains. CSV rows if given: model, root,
/// controller, t, pelvis height [m], root force fraction, joint error RMS over dofs [rad], pivot
/// gap [m], COM distance outside the support polygon [m].
/// @throws std::invalid_argument for a contact-aware controller with the root actuated.
RagdollResult runRagdoll(RagdollModel model, const RagdollOptions& options);

}  // namespace gcbridge::demo
