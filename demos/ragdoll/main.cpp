// ragdoll: a hand-built Bullet ragdoll, and a URDF humanoid, standing on the ground.
//
// The first humanoid is built the way Bullet users build a ragdoll by hand, after Bullet's
// RagdollDemo: capsule bodies, hinges for the waist, knees and elbows, cone-twists for the neck,
// hips and shoulders, frames set with setEulerZYX, addRigidBody / addConstraint(c, true), with a
// box foot on an ankle hinge under each leg, standing on a static plane; nothing of gcbridge's
// builder. The plugin infers its tree from the world (inferModelFromWorld, root = pelvis: a
// floating base). The second is the shipped DeepMimic humanoid (quaternion ball joints) built by
// buildRigidBodyWorld with a ground plane.
//
// A floating root has no motor. --root actuated (the default) holds the pose by computed torque and
// applies its six root generalized forces to the pelvis anyway: a virtual "hand of god" wrench, as
// animation systems use, printed relative to the body weight. --root free applies joint torques
// only: the contact-aware FloatingBaseController (QP or projected) balances the body on the feet's
// contacts, read from Bullet each substep; --controller computed_torque shows what happens without
// it. --push gives the pelvis a shove at t = 2 s.

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "demo_cli.hpp"
#include "gcbridge/viewer/html_viewer.hpp"
#include "ragdoll.hpp"
#include "run_viewer.hpp"

namespace {

/// Simulated time of a run when --steps is not given [s].
constexpr double kDuration = 4.0;

constexpr const char* kHelp =
    R"(Usage: gcbridge-ragdoll [--steps N] [--dt H] [--root actuated|free]
                        [--controller computed_torque|projected|qp] [--push[=SPEED]]
                        [--model ragdoll|deepmimic|both] [--humanoid PATH] [--csv FILE]
                        [--html FILE]

Two humanoids on a ground plane, held through the gcbridge plugin while their arms wave (+-0.5 rad
at 0.5 Hz): a ragdoll built by hand like Bullet's RagdollDemo (capsules, hinges, cone-twists, and a
box foot on an ankle hinge per leg; its model inferred from the world, root = pelvis) and the
DeepMimic humanoid URDF built by buildRigidBodyWorld. Prints the joint tracking error (root
excluded) [mrad], the pelvis height [m] (start, end, lowest, and every 0.5 s), the root force the
controller's model needs relative to the body weight, the largest joint pivot separation [mm] and
how long the pelvis stayed above 70 % of its start height [s]. With the contact-aware controller,
also: the COM outside the support polygon and its distance from the target, the largest planned
contact force outside its friction pyramid, the root force applied, the joint torque peak against
the limits, and the controller's cost per substep.

Options:
  --steps N      substeps per run (default: 4 s of simulated time)
  --dt H         substep [s] (default 1/240)
  --root MODE    actuated (default): computed torque (K = 400, D = 40) and its 6 root generalized
                 forces applied to the pelvis, a virtual "hand of god" wrench; free: joint torques
                 only, the contacts carry the body
  --controller C with --root free: qp (default) or projected, the contact-aware
                 FloatingBaseController with the feet's contacts read from Bullet each substep;
                 computed_torque, joint space with the root's forces zeroed (it falls)
  --push[=SPEED] at t = 2 s, a horizontal impulse on the pelvis along the feet that changes the
                 whole body's COM velocity by SPEED [m/s] (default 0.3)
  --model WHICH  ragdoll, deepmimic or both (default)
  --humanoid PATH  the DeepMimic humanoid's URDF (default: the shipped
                 humanoid_deepmimic/humanoid.urdf, from <prefix>/share/gcbridge/models when
                 installed)
  --csv FILE     write every substep: model, root, controller, t, pelvis height [m], root force /
                 weight, joint error RMS [rad], pivot gap [m], COM outside the support polygon [m]
  --html FILE    write the runs as an offline 3D viewer, the humanoids side by side: each one's
                 bodies where Bullet has them, the model at the q the bridge read and the
                 reference as ghosts (60 frames per second)
  -h, --help     print this help

A run whose pelvis dropped below 70 % of its start height is marked (fell).

Exit codes: 0 the runs ended (a run that diverged says so in its row and on stderr); 1 every
run diverged, or an error; 2 a command-line mistake.
)";

using gcbridge::demo::RagdollController;
using gcbridge::demo::RagdollModel;
using gcbridge::demo::RootMode;

/// The ragdoll's own options (the shared ones: demo_cli.hpp).
struct Options {
  gcbridge::demo::CommonOptions common;
  std::string humanoid_urdf = gcbridge::demo::shippedModel("humanoid_deepmimic/humanoid.urdf");
  RootMode root = RootMode::Actuated;
  std::optional<RagdollController> controller;  ///< the root mode's default if not given
  double push_speed = 0.0;
  std::vector<RagdollModel> models = {RagdollModel::HandBuilt, RagdollModel::DeepMimic};
};

/// @throws gcbridge::demo::UsageError for a bad argument.
Options parseOptions(int argc, char** argv) {
  Options options;
  options.common = gcbridge::demo::parseCommonOptions(
      argc, argv, {1.0 / 240.0},
      [&](gcbridge::cli::ArgumentReader& args) {
        if (args.is("--humanoid")) {
          options.humanoid_urdf = args.value();
          return true;
        }
        if (args.is("--root")) {
          const std::string value = args.value();
          const std::optional<RootMode> root = gcbridge::demo::rootModeFromString(value);
          if (!root) throw args.error("--root: '" + value + "' is neither 'actuated' nor 'free'");
          options.root = *root;
          return true;
        }
        if (args.is("--controller")) {
          const std::string value = args.value();
          options.controller = gcbridge::demo::ragdollControllerFromString(value);
          if (!options.controller) {
            throw args.error("--controller: '" + value +
                             "' is not computed_torque, projected or qp");
          }
          return true;
        }
        if (args.is("--push")) {
          options.push_speed = 0.3;
          if (args.argument().find('=') != std::string::npos) {
            options.push_speed =
                gcbridge::cli::parsePositive("--push", args.value(), args.helpCommand());
          }
          return true;
        }
        if (args.is("--model")) {
          const std::string value = args.value();
          const std::optional<RagdollModel> model = gcbridge::demo::ragdollModelFromString(value);
          if (model) {
            options.models = {*model};
          } else if (value == "both") {
            options.models = {RagdollModel::HandBuilt, RagdollModel::DeepMimic};
          } else {
            throw args.error("--model: '" + value + "' is not ragdoll, deepmimic or both");
          }
          return true;
        }
        return false;
      },
      nullptr, /*records=*/true);
  return options;
}

/// The up direction of a model's world (against its gravity).
Eigen::Vector3d upOf(const gcbridge::Model& model) {
  return model.gravity_W.norm() > 0 ? Eigen::Vector3d(-model.gravity_W.normalized())
                                    : Eigen::Vector3d(Eigen::Vector3d::UnitZ());
}

/// Where each recording goes in the page: the first where it is, each next one turned so that its
/// up is the first's and set beside the one before along a horizontal axis, 1 m plus 30 % of its
/// own size apart (the spread of its first frame's link origins along that axis).
std::vector<gcbridge::viewer::PageModel> sideBySide(
    const std::vector<gcbridge::viewer::Recorder>& recorders) {
  const Eigen::Vector3d up = upOf(recorders.front().model());
  Eigen::Vector3d side =
      std::abs(up.x()) > 0.9 ? Eigen::Vector3d::UnitY() : Eigen::Vector3d::UnitX();
  side = (side - side.dot(up) * up).normalized();
  std::vector<gcbridge::viewer::PageModel> page;
  double end = 0.0;  // the last model's far side along `side` [m]
  for (const gcbridge::viewer::Recorder& recorder : recorders) {
    gcbridge::Transform X_PW = gcbridge::Transform::Identity();
    X_PW.rotation() =
        Eigen::Quaterniond::FromTwoVectors(upOf(recorder.model()), up).toRotationMatrix();
    double lower = INFINITY, upper = -INFINITY;
    for (const gcbridge::viewer::Track& track : recorder.tracks()) {
      for (const gcbridge::Transform& X_WL : track.frames.front()) {
        const double along = side.dot(X_PW.rotation() * X_WL.translation());
        lower = std::min(lower, along);
        upper = std::max(upper, along);
      }
    }
    if (!page.empty()) X_PW.translation() = (end + 1.0 + 0.3 * (upper - lower) - lower) * side;
    end = side.dot(X_PW.translation()) + upper;
    page.push_back({&recorder, X_PW});
  }
  return page;
}

/// The viewer of the runs: per humanoid its bodies, and the model at the read q and the reference
/// as ghosts (a run that diverged stays where it was last read).
void writeHtml(const std::string& path, const std::vector<gcbridge::demo::RunFrames>& runs) {
  std::vector<gcbridge::viewer::Recorder> recorders;
  recorders.reserve(runs.size());
  for (const gcbridge::demo::RunFrames& run : runs) {
    recorders.push_back(gcbridge::demo::recordRuns({{"Bullet bodies", &run}}, /*read_q=*/true));
  }
  gcbridge::viewer::ViewerOptions options;
  options.title = "humanoids standing on the ground";
  gcbridge::viewer::writeViewer(path, sideBySide(recorders), options);
}

}  // namespace

/// The contact-aware controller's lines of a run.
void printBalance(const gcbridge::demo::RagdollResult& r) {
  char effort[80] = "the model has no effort limits";
  if (r.max_effort_ratio >= 0.0) {
    std::snprintf(effort, sizeof effort, "%.0f %% of the model's effort limits",
                  100.0 * r.max_effort_ratio);
  }
  std::printf(
      "  balance: COM outside the support polygon by at most %.1f mm, %.1f mm RMS from its\n"
      "  target; planned contact forces outside their friction pyramids by at most %.3g N;\n"
      "  root force applied %.3g; joint torque peak %.1f N m (%.0f %% of the run's limit;\n"
      "  %s); controller %.0f us per substep (contacts read + solve)\n",
      1e3 * r.com_outside_max, 1e3 * r.com_error_rms, r.max_force_violation,
      r.max_root_force_applied, r.max_joint_torque, 100.0 * r.max_torque_ratio, effort,
      r.controller_us);
  if (r.fallback_substeps > 0) {
    std::printf("  %ld substeps with a controller condition; the first: %s\n", r.fallback_substeps,
                r.first_fallback.c_str());
  }
}

/// One model's row of the table and its lines below; a run that diverged shows where and why
/// instead of numbers.
void printResult(RagdollModel model, const gcbridge::demo::RagdollOptions& options,
                 const gcbridge::demo::RagdollResult& r) {
  const char* model_name = gcbridge::demo::toString(model);
  const char* root_name = gcbridge::demo::toString(options.root);
  if (r.diverged) {
    std::printf("%-9s %-8s %4d %10s\n  %s\n", model_name, root_name, r.nv, "diverged",
                r.failure.c_str());
    return;
  }
  char pelvis[64], force[64];
  std::snprintf(pelvis, sizeof pelvis, "%.3f/%.3f/%.3f", r.pelvis_start, r.pelvis_end,
                r.pelvis_min);
  std::snprintf(force, sizeof force, "%.3f/%.3f", r.mean_root_force_fraction,
                r.max_root_force_fraction);
  std::printf("%-9s %-8s %4d %10.3f %10.3f %20s %15s %10.3f %10.2f%s\n", model_name, root_name,
              r.nv, 1e3 * r.rms_joint_error, 1e3 * r.max_joint_error, pelvis, force,
              1e3 * r.max_constraint_error, r.upright_time, r.fell ? " (fell)" : "");
  std::printf("  %.1f kg, %ld substeps with a saturated joint; pelvis height every 0.5 s [m]:\n  ",
              r.mass, r.saturated_substeps);
  for (double height : r.pelvis_samples) std::printf(" %.3f", height);
  std::printf("\n");
  if (options.controller != RagdollController::ComputedTorque) printBalance(r);
  if (model == RagdollModel::HandBuilt) {
    std::printf(
        "  spawned with RagdollDemo's own constraint frames, off its joints by up to %.0f mm\n"
        "  and %.2f rad; projected onto them when the plugin attached.\n",
        1e3 * r.spawn_gap, r.spawn_angle);
  }
}

/// What the run's root mode and controller mean, above the table.
void printHeader(const gcbridge::demo::RagdollOptions& run) {
  std::printf(
      "Humanoids on a ground plane in Bullet (btRigidBody + constraints, 10 solver\n"
      "iterations), held through the plugin while the arms wave +-0.5 rad at 0.5 Hz;\n"
      "%.0f Hz, %d substeps.\n",
      1.0 / run.h, run.steps);
  if (run.root == RootMode::Actuated) {
    std::printf(
        "root: actuated. Computed torque (K = 400, D = 40); its 6 root generalized forces are\n"
        "applied to the pelvis: a virtual \"hand of god\" wrench, as animation systems use; a\n"
        "real body has no such motor. 'root F/W' is that force relative to the body weight.\n");
  } else if (run.controller == RagdollController::ComputedTorque) {
    std::printf(
        "root: free, computed torque. Its 6 root generalized forces are zeroed: only the joint\n"
        "torques act, and the ground contacts (unknown to its model) must carry the body.\n"
        "'root F/W' is what the controller asked for, not applied.\n");
  } else {
    std::printf(
        "root: free, FloatingBaseController (%s): joint torques only, balancing the body on\n"
        "the feet's contacts read from Bullet each substep. 'root F/W' is the root force its\n"
        "model would still need (0 when the contacts can carry the body).\n",
        gcbridge::demo::toString(run.controller));
  }
  if (run.push_speed > 0.0) {
    std::printf(
        "push: at t = 2 s the pelvis is shoved along the feet, +%.2f m/s of COM velocity.\n",
        run.push_speed);
  }
  std::printf("\n%-9s %-8s %4s %10s %10s %20s %15s %10s %10s\n", "model", "root", "dofs",
              "RMS [mrad]", "max [mrad]", "pelvis 0/end/min [m]", "root F/W mean/max", "gap [mm]",
              "upright [s]");
}

/// The run's options from the command line's. @throws UsageError for a contact-aware controller
/// with the root actuated.
gcbridge::demo::RagdollOptions runOptions(const Options& options) {
  gcbridge::demo::RagdollOptions run;
  run.root = options.root;
  run.controller = options.controller.value_or(
      options.root == RootMode::Free ? RagdollController::Qp : RagdollController::ComputedTorque);
  if (run.root == RootMode::Actuated && run.controller != RagdollController::ComputedTorque) {
    throw gcbridge::demo::UsageError(std::string("--controller ") +
                                     gcbridge::demo::toString(run.controller) +
                                     " needs --root free: it applies no root force");
  }
  run.h = options.common.dts.front();
  run.steps = gcbridge::demo::substepCount(options.common, run.h, kDuration);
  run.push_speed = options.push_speed;
  run.humanoid_urdf = options.humanoid_urdf;
  return run;
}

int main(int argc, char** argv) {
  Options options;
  gcbridge::demo::RagdollOptions run;
  try {
    options = parseOptions(argc, argv);
    run = runOptions(options);
  } catch (const gcbridge::demo::UsageError& e) {
    std::fprintf(stderr, "ragdoll: %s (see --help)\n", e.what());
    return 2;
  }
  if (options.common.help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  try {
    const gcbridge::demo::CsvFile csv_file =
        gcbridge::demo::openCsv(options.common.csv,
                                "model,root,controller,t,pelvis_height,root_force_fraction,"
                                "joint_error_rms,pivot_gap,com_outside_support\n");
    run.csv = csv_file.get();
    printHeader(run);
    int runs = 0, diverged_runs = 0;
    gcbridge::demo::RunProgress progress;
    // Every run is recorded for the viewer (--html).
    std::vector<gcbridge::demo::RunFrames> recorded;
    for (RagdollModel model : options.models) {
      ++runs;
      run.frames = options.common.html.empty() ? nullptr : &recorded.emplace_back();
      run.progress = progress.track(gcbridge::demo::toString(model));
      const gcbridge::demo::RagdollResult r = gcbridge::demo::runRagdoll(model, run);
      progress.finish();
      diverged_runs += r.diverged ? 1 : 0;
      printResult(model, run, r);
      if (run.frames != nullptr) {
        run.frames->model.name = model == RagdollModel::HandBuilt ? "hand-built ragdoll (inferred)"
                                                                  : "DeepMimic humanoid (URDF)";
      }
    }
    if (!recorded.empty()) {
      writeHtml(options.common.html, recorded);
      std::printf("\nWrote %s\n", options.common.html.c_str());
    }
    return gcbridge::demo::finishedExitCode("ragdoll", diverged_runs, runs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ragdoll: %s\n", e.what());
    return 1;
  }
}
