#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "commands/commands.hpp"
#include "gcbridge/bridge/bullet_file.hpp"
#include "gcbridge/bridge/multibody_builder.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/joint.hpp"
#include "gcbridge/bridge/rigid_body_world.hpp"

namespace gcbridge::commands {
namespace {

constexpr const char* kHelpCommand = "gcbridge export --help";

constexpr const char* kExportHelp =
    R"(Usage: gcbridge export [OPTIONS] MODEL.urdf --out WORLD.bullet

Builds the Bullet world gcbridge makes of MODEL.urdf (gcbridge::buildRigidBodyWorld: a
btRigidBody per link at its COM with principal axes, its collision geometry as the shape, a
constraint per joint, the model's gravity) at a configuration, and saves it as a .bullet file
(btDynamicsWorld::serialize), the bodies named after their links. Bullet's own tools and any
application read it with btBulletWorldImporter; 'gcbridge info WORLD.bullet' reads the model
back from it. A fixed base's root link becomes a static body, which world inference counts as
the world: the model read back has the same joints, without the root link.
With --as multibody, the world holds the model's btMultiBody instead (gcbridge::buildMultiBody,
base, links and joints named after the model's; no collision shapes), read back with
btMultiBodyWorldImporter; 'gcbridge info WORLD.bullet' reads the same joints, M, h and g from it.
A fixed base is written without mass (Bullet's importer fixes a base exactly when it has none);
a planar joint cannot be written (Bullet's importer does not read planar links).

Options:
  --out FILE        the .bullet file to write (required); written whole or not at all
  --as KIND         rigid_bodies (default: btRigidBody and constraints) or multibody
  --q LIST          joint positions, nq values (default: the neutral configuration)
  --v LIST          joint velocities, nv values (default: zero)
  --floating-base, --ball PARAM, --no-merge, --scale S   how the URDF becomes a model
                    ('gcbridge info')
  -h, --help        print this help

Exit codes: 0 written; 1 an unreadable or invalid model, a state the library rejects, a file
that cannot be written; 2 command-line mistake.
)";

/// What `gcbridge export` was asked to do.
struct ExportRequest : cli::ModelRequest {
  std::string out;
  bool multibody = false;  ///< --as multibody
  std::optional<std::vector<double>> q, v;
};

/// The arguments after `export`. @throws cli::UsageError.
ExportRequest parseExportArguments(const std::vector<std::string>& arguments) {
  ExportRequest request;
  cli::parseModelCommand(arguments, "export", request, [&request](cli::ArgumentReader& args) {
    if (args.is("--out")) {
      request.out = args.value();
      return true;
    }
    if (args.is("--as")) {
      const std::string kind = args.value();
      if (kind != "rigid_bodies" && kind != "multibody") {
        throw args.error("--as: '" + kind + "' is neither rigid_bodies nor multibody");
      }
      request.multibody = kind == "multibody";
      return true;
    }
    for (auto [name, list] : {std::pair{"--q", &request.q}, std::pair{"--v", &request.v}}) {
      if (!args.is(name)) continue;
      if (list->has_value()) throw args.error(std::string(name) + " given twice");
      *list = cli::parseNumberList(name, args.value(), kHelpCommand);
      return true;
    }
    return false;
  });
  if (request.help) return request;
  if (request.json) throw cli::UsageError("export has no --json", kHelpCommand);
  if (cli::isBulletFile(request.path)) {
    throw cli::UsageError("export takes a URDF file; '" + request.path + "' is a Bullet world",
                          kHelpCommand);
  }
  if (request.out.empty()) throw cli::UsageError("export: no --out FILE given", kHelpCommand);
  return request;
}

/// The model's btMultiBody saved to request.out. A fixed base is written without mass (which
/// changes nothing: it does not move), since Bullet's importer fixes a base exactly when it has
/// none. @throws InvalidArgumentError for a planar joint, which Bullet's importer does not read.
int exportMultiBody(const ExportRequest& request, const gcbridge::Model& model,
                    const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  for (const gcbridge::Joint& joint : model.joints) {
    if (joint.type == gcbridge::JointType::Planar) {
      throw InvalidArgumentError("export --as multibody: joint '" + joint.name +
                                 "' is planar, and Bullet's .bullet importer does not read "
                                 "planar links");
    }
  }
  const std::unique_ptr<MultiBodyWorld> world = buildMultiBody(model, {}, q, v);
  if (world->body->hasFixedBase()) world->body->setBaseMass(0.0);
  saveBulletFile(*world->world, request.out);
  std::cout << "Wrote " << request.out << " (a btMultiBody of " << world->body->getNumLinks()
            << " links and " << world->body->getNumDofs() << " joint dofs)\n";
  return 0;
}

}  // namespace

int runExport(const std::vector<std::string>& args) {
  const ExportRequest request = parseExportArguments(args);
  if (request.help) {
    std::cout << kExportHelp;
    return 0;
  }
  const gcbridge::Model model = loadModel(request);
  const Eigen::VectorXd q = request.q
                                ? cli::sizedList("--q", *request.q, model.nq, "nq", kHelpCommand)
                                : Eigen::VectorXd();
  const Eigen::VectorXd v = request.v
                                ? cli::sizedList("--v", *request.v, model.nv, "nv", kHelpCommand)
                                : Eigen::VectorXd();
  if (request.multibody) return exportMultiBody(request, model, q, v);
  const std::unique_ptr<RigidBodyWorld> world = buildRigidBodyWorld(model, {}, q, v);
  // The bodies named after their links (a universal's middle link has no body).
  std::vector<std::pair<const btRigidBody*, std::string>> names;
  for (int k = 0; k < model.numLinks(); ++k) {
    if (const btRigidBody* body = world->map->body(k))
      names.emplace_back(body, model.link_names[k]);
  }
  saveBulletFile(*world->world, request.out, names);
  std::cout << "Wrote " << request.out << " (" << world->bodies.size() << " bodies, "
            << world->constraints.size() << " constraints)\n";
  return 0;
}

}  // namespace gcbridge::commands
