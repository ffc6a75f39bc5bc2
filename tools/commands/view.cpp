#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands/commands.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "gcbridge/viewer/html_viewer.hpp"
#include "inputs/bullet_world.hpp"

namespace gcbridge::commands {
namespace {

constexpr const char* kHelpCommand = "gcbridge view --help";

constexpr const char* kViewHelp = R"(Usage: gcbridge view [OPTIONS] MODEL.urdf --out FILE.html
       gcbridge view [OPTIONS] WORLD.bullet --out FILE.html

Writes a 3D view of the model at a configuration, with each joint's frame (x red, y green, z
blue) and each link's name: a quick way to check a URDF. The page is one self-contained HTML
file (three.js inlined) that opens offline in a browser: orbit with the left mouse button, pan
with the right one, zoom with the wheel.

WORLD.bullet, a world Bullet saved: the model is read from its bodies and constraints as
'gcbridge info WORLD.bullet' shows it, drawn from the bodies' collision shapes, twice: the
bodies where the file has them ("Bullet bodies", red segments where a body is off its joint by
more than 1 mm) and the model at the configuration they are in ("model at q", a ghost).

Options:
  --out FILE        the HTML file to write (required); written whole or not at all
  --q LIST          joint positions, nq values (default: the neutral configuration; for a
                    .bullet file, where its bodies are)
  --collision       draw the collision geometry instead of the visual one (URDF)
  --triangles N     the meshes' triangle budget, all together (default 100000)
  --floating-base, --ball PARAM, --no-merge, --scale S, --root NAME, --subtree NAME,
  --motors off, --multibody WHICH   as in 'gcbridge info'
  -h, --help        print this help

Exit codes: 0 written; 1 an unreadable or invalid model, a file that cannot be written; 2 a
command-line mistake.
)";

/// What `gcbridge view` was asked to do.
struct ViewRequest : cli::ModelRequest {
  std::string out;
  std::optional<std::vector<double>> q;
  bool collision = false;
  int triangles = 100000;
};

/// The arguments after `view`. @throws cli::UsageError.
ViewRequest parseViewArguments(const std::vector<std::string>& arguments) {
  ViewRequest request;
  cli::parseModelCommand(arguments, "view", request, [&request](cli::ArgumentReader& args) {
    if (args.is("--out")) {
      request.out = args.value();
    } else if (args.is("--q")) {
      if (request.q) throw args.error("--q given twice");
      request.q = cli::parseNumberList("--q", args.value(), kHelpCommand);
    } else if (args.is("--collision")) {
      args.checkFlag();
      request.collision = true;
    } else if (args.is("--triangles")) {
      request.triangles = cli::parseWhole("--triangles", args.value(), 4, 100000000, kHelpCommand);
    } else {
      return false;
    }
    return true;
  });
  if (request.help) return request;
  if (request.json) throw cli::UsageError("view has no --json", kHelpCommand);
  if (request.out.empty()) throw cli::UsageError("view: no --out FILE.html given", kHelpCommand);
  return request;
}

}  // namespace

int runView(const std::vector<std::string>& args) {
  const ViewRequest request = parseViewArguments(args);
  if (request.help) {
    std::cout << kViewHelp;
    return 0;
  }
  viewer::ViewerOptions options;
  options.joint_frames = true;
  options.triangle_budget = request.triangles;
  options.geometry =
      request.collision ? viewer::GeometrySet::Collision : viewer::GeometrySet::Visual;
  if (cli::isBulletFile(request.path)) {
    const inputs::BulletWorld world = inputs::loadBulletWorld(request);
    const Model& model = world.model();
    const Eigen::VectorXd q = request.q
                                  ? cli::sizedList("--q", *request.q, model.nq, "nq", kHelpCommand)
                                  : world.q();
    viewer::Recorder recorder(model);
    if (world.multibody) {
      // The links where Bullet has them, and the model read from them at q as a ghost.
      const int bodies = recorder.addTrack("Bullet multibody", viewer::TrackStyle::Solid);
      const int at_q = recorder.addTrack("model at q", viewer::TrackStyle::Ghost);
      recorder.beginFrame(0.0);
      recorder.setLinkPoses(bodies,
                            multiBodyLinkPoses(model, world.multibody->layout,
                                               world.file->multiBody(world.multibody_index)));
      recorder.setConfiguration(at_q, q);
    } else {
      const int bodies = recorder.addTrack("Bullet bodies", viewer::TrackStyle::Solid);
      const int at_q = recorder.addTrack("model at q", viewer::TrackStyle::Ghost);
      recorder.beginFrame(0.0);
      // The links where the bodies are: readPositions leaves them in BridgeData::X_WL.
      BridgeData bdata(model);
      Eigen::VectorXd q_read;
      readPositions(model, *world.inferred.map, bdata, q_read);
      recorder.setLinkPoses(bodies, bdata.X_WL);
      recorder.setConfiguration(at_q, q);
    }
    options.title = model.name + " (" + request.path + ")";
    options.geometry = viewer::GeometrySet::Collision;
    viewer::writeViewer(request.out, recorder, options);
  } else {
    const Model model = loadModel(request);
    const Eigen::VectorXd q = request.q
                                  ? cli::sizedList("--q", *request.q, model.nq, "nq", kHelpCommand)
                                  : neutralConfiguration(model);
    viewer::Recorder recorder(model);
    const int at_q = recorder.addTrack(model.name, viewer::TrackStyle::Solid);
    recorder.beginFrame(0.0);
    recorder.setConfiguration(at_q, q);
    options.title = model.name + " (" + request.path + ")";
    viewer::writeViewer(request.out, recorder, options);
  }
  std::cout << "Wrote " << request.out << "\n";
  return 0;
}

}  // namespace gcbridge::commands
