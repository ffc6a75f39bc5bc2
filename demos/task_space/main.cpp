// task_space: operational-space control of a Bullet-simulated arm, through the plugin.
//
// The KUKA LBR iiwa URDF is built as Bullet rigid bodies and hinge constraints
// (buildRigidBodyWorld). A tool point 0.1 m along the last link's z axis draws a circle of radius
// 0.1 m in the vertical y-z plane at 0.5 Hz, its orientation held fixed, under the
// TaskSpaceController (task-space inverse dynamics, Lin: F = Lambda xdd* + eta, tau = J^T F
// + N tau_0) attached with the plugin; the seventh, redundant degree of freedom is held by a joint
// PD toward the start posture, projected into the null space. Prints, at 1 kHz and 240 Hz, the
// Cartesian tracking error (RMS and largest position error [mm], orientation error [mrad]), how
// far the joints wandered from the posture, and the hinges' pivot separation (Bullet's
// constraint error).

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "demo_cli.hpp"
#include "run_viewer.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "task_space.hpp"

namespace {

/// Simulated time of one run when --steps is not given [s].
constexpr double kDuration = 4.0;

constexpr const char* kHelp =
    R"(Usage: gcbridge-task-space [--model PATH] [--steps N] [--dt H] [--csv FILE]
                          [--html FILE]

The KUKA iiwa simulated by Bullet as rigid bodies and hinges; a tool point on its last link draws
a circle (radius 0.1 m, vertical plane, 0.5 Hz, orientation fixed) under gcbridge's
TaskSpaceController attached with the plugin, the null space holding the start posture. Prints,
per control rate, the RMS and largest position error [mm] and orientation error [mrad] of the
tool, the largest joint excursion from the start posture (max q-q0) [mrad] and the largest hinge
pivot separation [mm].

Options:
  --steps N    substeps per run (default: 4 s of simulated time, two circles)
  --dt H       substep [s] (default: two runs, 1/1000 and 1/240)
  --csv FILE   write every substep: rate_hz, t, p_ref x y z, p x y z [m], orientation error [rad]
  --html FILE  write the runs as an offline 3D viewer: the arm where Bullet has it at each rate
               (60 frames per second)
  --model PATH an iiwa URDF (default: the shipped kuka_iiwa/model.urdf, from
               <prefix>/share/gcbridge/models when installed); the tool is on lbr_iiwa_link_7
  -h, --help   print this help

Exit codes: 0 the runs ended (a run that diverged says so in its row and on stderr); 1 every
run diverged, or an error; 2 a command-line mistake.
)";

}  // namespace

int main(int argc, char** argv) {
  gcbridge::demo::CommonOptions options;
  if (const auto exit_code =
          gcbridge::demo::parseOrExit(argc, argv, "task_space", kHelp, {1.0 / 1000.0, 1.0 / 240.0},
                                      kDuration, options, "kuka_iiwa/model.urdf",
                                      /*records=*/true)) {
    return *exit_code;
  }
  try {
    const gcbridge::Model iiwa = gcbridge::loadUrdf(options.model);
    const gcbridge::demo::CsvFile csv_file = gcbridge::demo::openCsv(
        options.csv, "rate_hz,t,p_ref_x,p_ref_y,p_ref_z,p_x,p_y,p_z,orientation_error\n");
    std::FILE* csv = csv_file.get();
    std::printf(
        "KUKA iiwa in Bullet (btRigidBody + btHingeConstraint, 10 solver iterations);\n"
        "tool point (link 7, +0.1 m z) draws a 0.1 m circle in the y-z plane at 0.5 Hz,\n"
        "orientation fixed (TaskSpaceController, Kp = 400, Kd = 40; null space: posture).\n\n");
    std::printf("%8s %7s %12s %12s %13s %13s %15s %15s\n", "rate", "steps", "RMS pos [mm]",
                "max pos [mm]", "RMS rot [mrad]", "max rot [mrad]", "max q-q0 [mrad]",
                "pivot gap [mm]");
    int runs = 0, diverged_runs = 0;
    gcbridge::demo::RunProgress progress;
    // Every run is recorded for the viewer (--html), the reference once.
    std::vector<gcbridge::demo::RunFrames> recorded;
    recorded.reserve(options.dts.size());
    std::vector<gcbridge::demo::NamedRun> named;
    for (double dt : options.dts) {
      const int steps = gcbridge::demo::substepCount(options, dt, kDuration);
      ++runs;
      char rate[32];
      std::snprintf(rate, sizeof rate, "%.0f Hz", 1.0 / dt);
      gcbridge::demo::RunFrames* frames =
          options.html.empty() ? nullptr : &recorded.emplace_back();
      if (frames != nullptr) named.push_back({std::string("Bullet at ") + rate, frames});
      const gcbridge::demo::TaskSpaceResult r =
          gcbridge::demo::runTaskSpace(iiwa, dt, steps, csv, progress.track(rate), frames);
      progress.finish();
      if (r.diverged || r.errors > 0) {
        ++diverged_runs;
        std::printf("%8s %7d %12s\n", rate, steps, "diverged");
        continue;
      }
      std::printf("%8s %7d %12.3f %12.3f %13.3f %13.3f %15.1f %15.4f\n", rate, steps,
                  1e3 * r.rms_position_error, 1e3 * r.max_position_error,
                  1e3 * r.rms_orientation_error, 1e3 * r.max_orientation_error,
                  1e3 * r.max_posture_drift, 1e3 * r.max_joint_error);
    }
    if (!named.empty()) {
      gcbridge::demo::writeRunsViewer(options.html, "iiwa drawing a circle in task space", named);
      std::printf("\nWrote %s\n", options.html.c_str());
    }
    return gcbridge::demo::finishedExitCode("task_space", diverged_runs, runs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "task_space: %s\n", e.what());
    return 1;
  }
}
