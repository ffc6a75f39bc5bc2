// iiwa_tracking: generalized-coordinate controllers driving a Bullet rigid-body simulation.
//
// The KUKA LBR iiwa URDF is built as Bullet rigid bodies and hinge constraints
// (buildRigidBodyWorld); the plugin runs a controller every substep (attach). A joint-space
// sinusoid (0.3 rad per joint) is tracked by computed torque (inverse dynamics with PD feedback,
// Lin), PD with gravity compensation and stable PD (implicit PD), each at 1 kHz and at
// 240 Hz. The table gives the RMS and largest tracking error and the largest pivot separation of
// Bullet's hinges (its constraint error). `make demo` runs it.

#include <algorithm>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "demo_cli.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "gcbridge/viewer/html_viewer.hpp"
#include "run_viewer.hpp"
#include "tracking.hpp"

namespace {

/// Simulated time of one run when --steps is not given [s].
constexpr double kDuration = 2.0;

constexpr const char* kHelp =
    R"(Usage: gcbridge-iiwa-tracking [--model PATH] [--steps N] [--dt H] [--csv FILE]

Tracks a joint-space sinusoid with the KUKA iiwa simulated by Bullet as rigid bodies and hinges,
with three generalized-coordinate controllers attached through the gcbridge plugin: computed
torque, PD with gravity compensation, stable PD. Prints, per controller and control rate, the RMS
and largest joint tracking error [mrad] and the largest hinge pivot separation [mm].

Options:
  --steps N    substeps per run (default: 2 s of simulated time)
  --dt H       substep [s] (default: two runs, 1/1000 and 1/240)
  --csv FILE   write every substep: controller, rate_hz, t, e_1..e_n [rad], pivot_gap [m]
  --html FILE  write the runs at the first --dt as an offline 3D viewer: each controller's
               bodies where Bullet has them, the reference as a ghost (60 frames per second)
  --model PATH a fixed-base robot's URDF (default: the shipped kuka_iiwa/model.urdf, from
               <prefix>/share/gcbridge/models when installed); a robot other than the iiwa
               tracks the sinusoids about its neutral configuration
  -h, --help   print this help

Exit codes: 0 the runs ended (a run that diverged says so in its row and on stderr); 1 every
run diverged, or an error; 2 a command-line mistake.
)";

/// One run's row of the table.
void printRow(gcbridge::JointControlMode controller, double dt, int steps,
              const gcbridge::demo::TrackingResult& r) {
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.0f Hz", 1.0 / dt);
  if (r.diverged) {
    std::printf("%-16s %8s %7d %12s %12s %14s\n", gcbridge::toString(controller), rate, steps,
                "diverged", "-", "-");
  } else {
    std::printf("%-16s %8s %7d %12.3f %12.3f %14.3f\n", gcbridge::toString(controller), rate, steps,
                1e3 * r.rms_error, 1e3 * r.max_error, 1e3 * r.max_joint_error);
  }
}

/// The viewer of the runs at one step: the reference as a ghost, each controller's bodies as a
/// track (a run that diverged stays where it was last read).
void writeHtml(
    const std::string& path, const gcbridge::Model& iiwa,
    const std::vector<std::pair<gcbridge::JointControlMode, gcbridge::demo::RunFrames>>& runs) {
  std::vector<gcbridge::demo::NamedRun> named;
  for (const auto& run : runs) named.push_back({gcbridge::toString(run.first), &run.second});
  gcbridge::demo::writeRunsViewer(path, iiwa.name + " tracking sinusoids", named);
}

}  // namespace

int main(int argc, char** argv) {
  using gcbridge::JointControlMode;
  gcbridge::demo::CommonOptions options;
  if (const auto exit_code = gcbridge::demo::parseOrExit(
          argc, argv, "iiwa_tracking", kHelp, {1.0 / 1000.0, 1.0 / 240.0}, kDuration, options,
          "kuka_iiwa/model.urdf", /*records=*/true)) {
    return *exit_code;
  }
  try {
    const gcbridge::Model iiwa = gcbridge::loadUrdf(options.model);
    std::string header = "controller,rate_hz,t";
    for (int i = 1; i <= iiwa.nv; ++i) header += ",e" + std::to_string(i);
    const gcbridge::demo::CsvFile csv_file =
        gcbridge::demo::openCsv(options.csv, header + ",pivot_gap\n");
    std::FILE* csv = csv_file.get();
    std::printf(
        "%s (%s) in Bullet (btRigidBody + constraints, 10 solver iterations),\n"
        "tracking 0.3 rad sinusoids at 0.5-1.1 Hz; controllers attached with the plugin.\n\n",
        iiwa.name.c_str(), options.model.c_str());
    std::printf("%-16s %8s %7s %12s %12s %14s\n", "controller", "rate", "steps", "RMS [mrad]",
                "max [mrad]", "pivot gap [mm]");
    int runs = 0, diverged_runs = 0;
    gcbridge::demo::RunProgress progress;
    // The runs at the first step are recorded for the viewer (--html).
    std::vector<std::pair<JointControlMode, gcbridge::demo::RunFrames>> recorded;
    for (double dt : options.dts) {
      const int steps = gcbridge::demo::substepCount(options, dt, kDuration);
      for (JointControlMode controller :
           {JointControlMode::ComputedTorque, JointControlMode::PDGravity,
            JointControlMode::StablePD}) {
        ++runs;
        const bool record = !options.html.empty() && dt == options.dts.front();
        if (record) recorded.emplace_back(controller, gcbridge::demo::RunFrames{});
        const gcbridge::demo::TrackingResult r = gcbridge::demo::runTracking(
            iiwa, controller, dt, steps, csv, progress.track(gcbridge::toString(controller)),
            record ? &recorded.back().second : nullptr);
        progress.finish();
        diverged_runs += r.diverged ? 1 : 0;
        printRow(controller, dt, steps, r);
      }
    }
    if (!recorded.empty()) {
      writeHtml(options.html, iiwa, recorded);
      std::printf("\nWrote %s (the runs at %.0f Hz)\n", options.html.c_str(),
                  1.0 / options.dts.front());
    }
    return gcbridge::demo::finishedExitCode("iiwa_tracking", diverged_runs, runs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iiwa_tracking: %s\n", e.what());
    return 1;
  }
}
