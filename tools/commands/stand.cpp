// gcbridge stand: its command line, its output, and the run or the push sweep it asks for.

#include "commands/stand.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/arguments.hpp"
#include "commands/commands.hpp"
#include "format/json_writer.hpp"
#include "format/numbers.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/viewer/html_viewer.hpp"

namespace gcbridge::commands {
namespace {

constexpr const char* kHelpCommand = "gcbridge stand --help";

constexpr const char* kStandHelp = R"(Usage: gcbridge stand [OPTIONS] MODEL.urdf

Stands a legged robot or a character (its root link floating) on a ground plane in the
rigid-body world gcbridge builds from its URDF, held by the floating-base controller on joint
torques alone (no force on the root) within the URDF's effort limits, with the contacts Bullet
reports read before every substep. Prints how far the root sank, rose and tilted, and when and
how it fell if it did. Before the run, the pose is checked: its contacts, its center of mass over
them, the torques it needs against the limits, links that overlap each other.

Options:
  --pose LIST       the standing pose, NAME=VALUE,... joint positions [rad, m] (the others 0);
                    the root is lowered until the lowest collision shape touches the ground
  --root-rpy LIST   the root's orientation, roll,pitch,yaw [rad] as URDF's rpy (default 0,0,0:
                    the file's z up; 1.5708,0,0 stands a y-up file such as DeepMimic's humanoid)
  --soles LIST      LINK,... links whose box collision shape is a foot: the corners of its sole
                    are the contact points while Bullet reports the link touching (Bullet's own
                    points on a box resting flat come and go); default: Bullet's points
  --seconds T       simulated time (default 10)
  --dt H            Bullet's substep [s] (default 1/240)
  --iterations N    Bullet's solver iterations per substep (default 10)
  --push SPEED      at 2 s and 4 s, shove the root sideways (+y, then -y) so that the whole
                    body's center of mass changes velocity by SPEED [m/s] (default: no push)
  --actuation A     motors (default): the controller's plan through Bullet's joint motors, aimed
                    at the end of each substep (FloatingBaseController::aimAtStepEnd);
                    forces: its torques as forces on the bodies;
                    hold: Bullet's motors holding the pose stiffly, no balance (for comparison;
                    hinges and sliders only)
  --push-sweep      instead of one run: in 8 directions, the largest push (COM velocity change,
                    m/s and N s) the robot survives, one push at 1 s and 3 s to recover, to
                    0.03 m/s by bisection up to 4 m/s, next to the capture-point bound without a
                    step, omega d (omega = sqrt(g / COM height), d the distance from the COM to
                    the support polygon's edge along the push; Pratt et al. 2006)
  --contact-damping D   the balance controller's contact task damping D_c [1/s] (default 20;
                    lower lets feet slip and keeps more friction for balance: see
                    docs/controllers.md, "Push recovery")
  --no-self-collision  the robot's links collide only with the ground, not with each other
                    (by default every pair that no joint connects collides)
  --html FILE       the run as a self-contained 3D page (60 frames per second)
  --json            the result as JSON
  --ball PARAM, --no-merge, --scale S   as in 'gcbridge info'
  -h, --help        print this help

A fall: the root below half its start height, or tilted more than 1 rad from its start.
Exit codes: 0 the run ended (standing or fallen: see the output); 1 an unreadable or invalid
model, a pose naming a joint the model lacks, a pose with no contact, a file that cannot be
written; 2 a command-line mistake.
)";

/// "A,B,C" as its entries (an empty text: none). @throws cli::UsageError for an empty entry.
std::vector<std::string> splitList(const std::string& option, const std::string& text) {
  std::vector<std::string> entries;
  std::size_t begin = 0;
  while (!text.empty() && begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    entries.push_back(text.substr(begin, end - begin));
    if (entries.back().empty()) throw cli::UsageError(option + ": an empty entry", kHelpCommand);
    begin = end + 1;
  }
  return entries;
}

/// "NAME=VALUE,..." as pairs. @throws cli::UsageError naming the bad entry.
std::vector<std::pair<std::string, double>> parsePose(const std::string& text) {
  std::vector<std::pair<std::string, double>> pose;
  for (const std::string& entry : splitList("--pose", text)) {
    const std::size_t equals = entry.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw cli::UsageError("--pose: '" + entry + "' is not NAME=VALUE", kHelpCommand);
    }
    pose.emplace_back(entry.substr(0, equals),
                      cli::parseNumber("--pose " + entry.substr(0, equals),
                                       entry.substr(equals + 1), -1e3, 1e3, kHelpCommand));
  }
  return pose;
}

/// The value of --actuation. @throws cli::UsageError for another.
StandActuation parseActuation(const std::string& text) {
  if (text == "motors") return StandActuation::Motors;
  if (text == "forces") return StandActuation::Forces;
  if (text == "hold") return StandActuation::Hold;
  throw cli::UsageError("--actuation: '" + text + "' is not motors, forces or hold", kHelpCommand);
}

/// The arguments after `stand`. @throws cli::UsageError.
StandRequest parseStandArguments(const std::vector<std::string>& arguments) {
  StandRequest request;
  cli::parseModelCommand(arguments, "stand", request, [&request](cli::ArgumentReader& args) {
    if (args.is("--pose")) {
      request.pose = parsePose(args.value());
    } else if (args.is("--root-rpy")) {
      const std::vector<double> rpy =
          cli::parseNumberList("--root-rpy", args.value(), kHelpCommand);
      if (rpy.size() != 3) throw args.error("--root-rpy takes 3 angles, roll,pitch,yaw");
      request.root_rpy = Vector3(rpy[0], rpy[1], rpy[2]);
    } else if (args.is("--soles")) {
      request.soles = splitList("--soles", args.value());
    } else if (args.is("--seconds")) {
      request.seconds = cli::parseNumber("--seconds", args.value(), 0.0, 1e4, kHelpCommand);
    } else if (args.is("--dt")) {
      request.dt = cli::parseNumber("--dt", args.value(), 1e-5, 0.1, kHelpCommand);
    } else if (args.is("--iterations")) {
      request.iterations = cli::parseWhole("--iterations", args.value(), 1, 100000, kHelpCommand);
    } else if (args.is("--push")) {
      request.push = cli::parseNumber("--push", args.value(), 0.0, 100.0, kHelpCommand);
    } else if (args.is("--actuation")) {
      request.actuation = parseActuation(args.value());
    } else if (args.is("--contact-damping")) {
      request.contact_damping =
          cli::parseNumber("--contact-damping", args.value(), 0.0, 1e4, kHelpCommand);
    } else if (args.is("--no-self-collision")) {
      args.checkFlag();
      request.self_collision = false;
    } else if (args.is("--push-sweep")) {
      args.checkFlag();
      request.push_sweep = true;
    } else if (args.is("--html")) {
      request.html = args.value();
    } else {
      return false;
    }
    return true;
  });
  if (request.help) return request;
  if (request.push_sweep && (!request.html.empty() || request.push > 0.0)) {
    throw cli::UsageError("--push-sweep chooses its own pushes and writes no page", kHelpCommand);
  }
  if (cli::isBulletFile(request.path)) {
    throw cli::UsageError("stand takes a URDF, not a .bullet file", kHelpCommand);
  }
  // The root floats: the contacts carry the body.
  request.model_options.floating_base = true;
  return request;
}

/// The result as text.
void printResult(const Model& model, const StandRequest& request, const StandResult& r) {
  static constexpr const char* kActuation[] = {"motors", "forces", "hold"};
  printField(std::cout, "model",
             model.name + " (" + format::roundedNumber(r.mass, 6) + " kg, nv " +
                 std::to_string(model.nv) + "), root at " +
                 format::roundedNumber(r.start_height, 4) + " m");
  printField(std::cout, "settings",
             format::roundedNumber(request.dt, 6) + " s substeps, " +
                 std::to_string(request.iterations) + " iterations, " +
                 format::roundedNumber(request.seconds, 6) + " s, pushes " +
                 format::roundedNumber(request.push, 6) + " m/s, actuation " +
                 kActuation[static_cast<int>(request.actuation)]);
  for (const std::string& note : r.pose_notes) printField(std::cout, "pose", note);
  printField(std::cout, "result",
             (r.fell_at ? "FELL at " + format::roundedNumber(*r.fell_at, 4) + " s: " + r.fall
                        : std::string("stood")));
  printField(std::cout, "root",
             "at most " + format::roundedNumber(1e3 * r.lowest, 3) + " mm lower, " +
                 format::roundedNumber(1e3 * r.highest, 3) + " mm higher, tilted " +
                 format::roundedNumber(r.tilt, 3) + " rad");
  printField(
      std::cout, "root force",
      "largest generalized force applied to the root: " + format::roundedNumber(r.root_force, 6));
  if (r.fallbacks > 0) {
    printField(std::cout, "fallbacks", std::to_string(r.fallbacks) + " substeps");
  }
}

/// The result as JSON.
void writeResult(const StandResult& r) {
  format::JsonWriter json(std::cout);
  json.beginObject();
  json.field("mass", r.mass);
  json.field("start_height", r.start_height);
  json.field("stood", !r.fell_at.has_value());
  json.key("fell_at");
  if (r.fell_at) {
    json.value(*r.fell_at);
  } else {
    json.null();
  }
  json.field("fall", r.fall);
  json.field("largest_drop", r.lowest);
  json.field("largest_rise", r.highest);
  json.field("largest_tilt", r.tilt);
  json.field("root_force", r.root_force);
  json.field("fallbacks", static_cast<int>(r.fallbacks));
  json.key("pose_notes");
  json.beginArray();
  for (const std::string& note : r.pose_notes) json.value(note);
  json.endArray();
  json.endObject();
  std::cout << '\n';
}

}  // namespace

int runStand(const std::vector<std::string>& args) {
  const StandRequest request = parseStandArguments(args);
  if (request.help) {
    std::cout << kStandHelp;
    return 0;
  }
  // A page that cannot be written is refused before the run, not after it.
  const std::filesystem::path page_folder =
      request.html.empty() ? "." : std::filesystem::absolute(request.html).parent_path();
  if (!std::filesystem::is_directory(page_folder)) {
    throw InvalidArgumentError("--html " + request.html + ": the folder " + page_folder.string() +
                               " does not exist");
  }
  const Model model = loadModel(request);
  const Eigen::VectorXd q0 = standingPose(model, request);
  if (request.push_sweep) {
    runPushSweep(model, q0, request);
    return 0;
  }
  std::optional<viewer::Recorder> recorder;
  if (!request.html.empty()) {
    recorder.emplace(model);
    recorder->addTrack(model.name, viewer::TrackStyle::Solid);
    recorder->beginFrame(0.0);
    recorder->setConfiguration(0, q0);
  }
  // Sideways, then back.
  const std::vector<Push> pushes = {{2.0, request.push, M_PI_2}, {4.0, request.push, -M_PI_2}};
  const StandResult result =
      standOnce(model, q0, request, pushes, request.seconds, recorder ? &*recorder : nullptr);
  if (recorder) {
    viewer::ViewerOptions options;
    options.title = model.name + " standing (" + request.path + ")";
    viewer::writeViewer(request.html, *recorder, options);
  }
  if (request.json) {
    writeResult(result);
  } else {
    printResult(model, request, result);
    if (recorder) std::cout << "Wrote " << request.html << "\n";
  }
  return 0;
}

}  // namespace gcbridge::commands
