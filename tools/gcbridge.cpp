// gcbridge: the command-line tool.
//
// `gcbridge info MODEL.urdf` loads a URDF exactly as gcbridge::loadUrdf does and prints the model
// it becomes: sizes, mass, gravity, every model link with its joint and its slices of q and v, the
// description links merged into other links, and the reader's warnings; as a table or as JSON.
// `gcbridge dynamics MODEL.urdf [--q ..] [--v ..] [--a ..] [--tau ..]` evaluates the equations of
// motion M(q) qdd + C(q, v) v + g(q) = tau at one state: M, h, g, C v, and RNEA / ABA on request.
// `gcbridge compare MODEL.urdf [--scenario ..]` runs the model through Bullet's rigid bodies,
// btMultiBody and gcbridge's integrators and reports how they differ (tools/compare/).
// Exit codes: 0 success, 1 error (unreadable or invalid model, a state the library rejects),
// 2 command-line mistake (including a --q/--v/--a/--tau list that is not numbers or has the wrong
// size for the model).

#include <unistd.h>

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/arguments.hpp"
#include "commands/commands.hpp"
#include "compare/compare_command.hpp"
#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/config.hpp"

namespace {

using gcbridge::cli::UsageError;

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

constexpr const char* kMainHelp =
    R"(gcbridge - inspect robot models as gcbridge builds them, and compare engines

Usage:
  gcbridge info [OPTIONS] MODEL.urdf       print the model built from a URDF file
  gcbridge dynamics [OPTIONS] MODEL.urdf   print M(q), h, g(q), C(q, v) v at a state; tau by
                                           RNEA (--a) and qdd by ABA (--tau)
  gcbridge compare [OPTIONS] MODEL.urdf    run the model through Bullet (rigid bodies,
                                           btMultiBody) and gcbridge's integrators and compare
                                           them: table, CSV files, SVG plots, HTML report
  gcbridge view [OPTIONS] MODEL.urdf --out FILE.html
                                           a 3D view of the model (joint frames, link names)
                                           as one HTML file that opens offline
  gcbridge export [OPTIONS] MODEL.urdf --out WORLD.bullet
                                           save the Bullet world gcbridge builds of a URDF
                                           as a .bullet file
  gcbridge stand [OPTIONS] MODEL.urdf      stand a legged robot on the ground in Bullet on its
                                           joints alone (the floating-base controller), with
                                           pushes; how its root held, or when it fell
  gcbridge --help                          print this help
  gcbridge --version                       print the version and the Bullet precision

info, dynamics, compare and view also take a Bullet world saved as WORLD.bullet in place of
MODEL.urdf: the model is then one of its btMultiBodys (the first, or --multibody NAME|INDEX)
or, in a file without any or with --root NAME, the tree of its rigid bodies and constraints.
Run 'gcbridge COMMAND --help' (info, dynamics, compare, view, export, stand) for the options of
a command.
Exit codes: 0 success, 1 error (unreadable or invalid model, a state the library rejects),
2 command-line mistake.
)";

int run(const std::vector<std::string>& args) {
  if (args.empty()) throw UsageError("no command given", "gcbridge --help");
  const std::string& command = args[0];
  if (command == "-h" || command == "--help") {
    std::cout << kMainHelp;
    return kExitOk;
  }
  if (command == "--version") {
    std::cout << "gcbridge " << GCBRIDGE_VERSION_STRING
              << "\nBullet precision: " << gcbridge::bulletPrecisionName()
              << " (sizeof(btScalar) = " << gcbridge::bulletScalarSize() << ")\n";
    return kExitOk;
  }
  if (command == "info") return gcbridge::commands::runInfo({args.begin() + 1, args.end()});
  if (command == "dynamics") return gcbridge::commands::runDynamics({args.begin() + 1, args.end()});
  if (command == "export") return gcbridge::commands::runExport({args.begin() + 1, args.end()});
  if (command == "view") return gcbridge::commands::runView({args.begin() + 1, args.end()});
  if (command == "stand") return gcbridge::commands::runStand({args.begin() + 1, args.end()});
  if (command == "compare") {
    return gcbridge::compare::runCompareCommand({args.begin() + 1, args.end()}, std::cout,
                                                std::cerr, isatty(STDERR_FILENO) == 1);
  }
  if (command[0] == '-') throw UsageError("unknown option '" + command + "'", "gcbridge --help");
  throw UsageError("unknown command '" + command + "'", "gcbridge --help");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    std::cerr << "gcbridge: " << e.what() << "\nTry '" << e.helpCommand() << "'.\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "gcbridge: " << e.what() << '\n';
    return kExitError;
  }
}
