#pragma once
// The ragdoll experiment of demos/ragdoll, shared by the demo and tests/ragdoll_demo_test.cpp.
//
// Two humanoids standing on a ground plane, each held by computed torque through the plugin while
// its arms wave:
//  - a ragdoll built by hand the way Bullet's RagdollDemo builds one (btCapsuleShape bodies,
//    btHingeConstraint knees, elbows and waist, btConeTwistConstraint hips, shoulders and neck,
//    frames set with setEulerZYX, addRigidBody / addConstraint(c, true), y up), whose model the
//    plugin infers from the world (inferModelFromWorld, root = pelvis: a floating base);
//  - the shipped DeepMimic humanoid (quaternion ball joints) built by gcbridge's
//    buildRigidBodyWorld with its ground plane.
// The floating root is unactuated in reality. RootMode::Actuated applies the controller's 6 root
// generalized forces to the pelvis anyway (a virtual "hand of god" wrench, as animation systems
// use); RootMode::Free zeroes them, so only joint torques act and the contacts must carry the body.

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

/// "ragdoll", "deepmimic"; "actuated", "free".
const char* toString(RagdollModel model);
const char* toString(RootMode mode);
/// The model or root mode of that name; nothing for another name.
std::optional<RagdollModel> ragdollModelFromString(std::string_view name);
std::optional<RootMode> rootModeFromString(std::string_view name);

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
};

/// Runs `steps` substeps of length h. The arms wave (shoulders +-0.5 rad at 0.5 Hz) while every
/// other joint and the root hold the start pose; computed torque with K = 400 1/s^2, D = 40 1/s
/// on every dof. CSV rows if given: model, root, t, pelvis height [m], root force fraction,
/// joint error RMS over dofs [rad], pivot gap [m]. `humanoid_urdf`: the DeepMimic humanoid's
/// URDF (empty: the repository's models/humanoid_deepmimic/humanoid.urdf). The run's frames go
/// to `frames` if given (until it diverges).
RagdollResult runRagdoll(RagdollModel model, RootMode root, double h, int steps,
                         std::FILE* csv = nullptr, const ProgressCallback& progress = {},
                         const std::string& humanoid_urdf = {}, RunFrames* frames = nullptr);

}  // namespace gcbridge::demo
