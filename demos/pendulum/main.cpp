// pendulum: Lin's pendulum, inverse-dynamics control checked against the textbook formula.
//
// Lin derives the pendulum's equation of motion with Lagrange, tau = m l^2 qdd + m g l sin q.
// Here the same pendulum is a gcbridge model (ModelBuilder: one link of mass m whose centre of
// mass is l below a revolute joint), simulated by Bullet as a btRigidBody on a btHingeConstraint
// (buildRigidBodyWorld), and computed torque (Lin's inverse-dynamics controller) attached
// with the plugin tracks q_ref = sin(pi t). The bob is a small solid sphere (r = 5 cm), not a
// point: Bullet cannot move a body with a zero principal moment, so the formula gains its inertia
// about the centre, tau = (m l^2 + I_c) qdd + m g l sin q. Each substep the controller's torque
// (one RNEA) is compared with that formula at the same q and commanded acceleration qdd*: they
// must agree to round-off. The table also shows how far Lin's formula without I_c is off,
// the tracking error in Bullet and the hinge's pivot separation (Bullet's constraint error).

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "demo_cli.hpp"
#include "run_viewer.hpp"
#include "pendulum.hpp"

namespace {

/// Simulated time of one run when --steps is not given [s].
constexpr double kDuration = 4.0;

constexpr const char* kHelp =
    R"(Usage: gcbridge-pendulum [--steps N] [--dt H] [--csv FILE] [--html FILE]

Lin's pendulum (m = 1 kg, l = 0.5 m, bob a sphere of radius 0.05 m) built with
gcbridge::ModelBuilder and simulated by Bullet as a rigid body on a hinge. Computed torque,
attached with the gcbridge plugin, tracks q_ref = sin(pi t) [rad]. Prints, per control rate, the
largest difference between the controller's torque and the analytic formula
tau = (m l^2 + I_c) qdd + m g l sin q (absolute and relative to the largest torque), the same
against Lin's formula without I_c, the RMS and largest tracking error [mrad] and the hinge's
largest pivot separation [mm].

Options:
  --steps N    substeps per run (default: 4 s of simulated time)
  --dt H       substep [s] (default: two runs, 1/1000 and 1/240)
  --csv FILE   write every substep: rate_hz, t, q_ref, q [rad], tau, tau_analytic [N m]
  --html FILE  write the runs as an offline 3D viewer: the bob where Bullet has it at each rate,
               the reference as a ghost (60 frames per second)
  -h, --help   print this help

Exit codes: 0 the runs ended (a run that diverged says so in its row and on stderr); 1 every
run diverged, or an error; 2 a command-line mistake.
)";

}  // namespace

int main(int argc, char** argv) {
  gcbridge::demo::CommonOptions options;
  if (const auto exit_code = gcbridge::demo::parseOrExit(
          argc, argv, "pendulum", kHelp, {1.0 / 1000.0, 1.0 / 240.0}, kDuration, options,
          nullptr, /*records=*/true)) {
    return *exit_code;
  }
  try {
    const gcbridge::demo::PendulumParameters p;
    const gcbridge::demo::CsvFile csv_file =
        gcbridge::demo::openCsv(options.csv, "rate_hz,t,q_ref,q,tau,tau_analytic\n");
    std::FILE* csv = csv_file.get();
    std::printf(
        "Pendulum m = %g kg, l = %g m, bob a sphere r = %g m (I_c = %g kg m^2), g = %g\n"
        "in Bullet (btRigidBody + btHingeConstraint); computed torque (K = 400, D = 40)\n"
        "tracks q_ref = sin(pi t) rad. Analytic: tau = (m l^2 + I_c) qdd* + m g l sin q.\n\n",
        p.mass, p.length, p.radius, p.inertiaAboutCom(), p.gravity);
    std::printf("%8s %7s %14s %10s %14s %11s %11s %14s\n", "rate", "steps", "max|dtau| [Nm]",
                "relative", "without I_c", "RMS [mrad]", "max [mrad]", "pivot gap [mm]");
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
      const gcbridge::demo::PendulumResult r =
          gcbridge::demo::runPendulum(p, dt, steps, csv, progress.track(rate), frames);
      progress.finish();
      if (r.diverged || r.errors > 0) {
        ++diverged_runs;
        std::printf("%8s %7d %14s\n", rate, steps, "diverged");
        continue;
      }
      std::printf("%8s %7d %14.3e %10.3e %14.3e %11.3f %11.3f %14.4f\n", rate, steps,
                  r.max_torque_difference, r.max_torque_difference / r.max_torque,
                  r.max_difference_without_Ic, 1e3 * r.rms_error, 1e3 * r.max_error,
                  1e3 * r.max_joint_error);
    }
    if (!named.empty()) {
      gcbridge::demo::writeRunsViewer(options.html, "pendulum tracking sin(pi t)", named);
      std::printf("\nWrote %s\n", options.html.c_str());
    }
    return gcbridge::demo::finishedExitCode("pendulum", diverged_runs, runs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pendulum: %s\n", e.what());
    return 1;
  }
}
