#pragma once
/// @file
/// The `gcbridge` commands that inspect a model (info, dynamics; compare lives in compare/), and
/// what they share.

#include <Eigen/Core>
#include <ostream>
#include <string>
#include <vector>

#include "cli/model_options.hpp"
#include "format/json_writer.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge::commands {

/// `gcbridge info ARGS...`. @return the exit code.
/// @throws cli::UsageError for a command-line mistake, gcbridge::Error for a model it cannot load.
int runInfo(const std::vector<std::string>& args);

/// `gcbridge dynamics ARGS...`. @return the exit code.
/// @throws cli::UsageError for a command-line mistake (including a state of the wrong size),
///   gcbridge::Error for a model it cannot load or a state the library rejects.
int runDynamics(const std::vector<std::string>& args);

/// `gcbridge export ARGS...`: a URDF's rigid-body world saved as a .bullet file. @return the
/// exit code. @throws cli::UsageError for a command-line mistake, gcbridge::Error for a model,
///   state or file it cannot use.
int runExport(const std::vector<std::string>& args);

/// `gcbridge view ARGS...`: a model (URDF or .bullet) as a self-contained 3D page.
/// @return the exit code. @throws cli::UsageError, gcbridge::Error.
int runView(const std::vector<std::string>& args);

/// `gcbridge stand ARGS...`: a legged URDF standing on the ground in Bullet, held by the
/// floating-base controller. @return the exit code. @throws cli::UsageError, gcbridge::Error.
int runStand(const std::vector<std::string>& args);

/// The request's model: gcbridge::loadUrdf's, or for a .bullet file the model inferred from its
/// world (inputs/bullet_world.hpp); the reader's warnings written to stderr.
/// @throws gcbridge::Error for a file it cannot read or a model it cannot build.
gcbridge::Model loadModel(const cli::ModelRequest& request);

/// One summary line: `label` padded to 12 columns, then `text`.
void printField(std::ostream& out, const char* label, const std::string& text);

/// "(x, y, z)" with six significant digits.
std::string vectorText(const gcbridge::Vector3& v);

/// A vector as a one-line JSON array.
void writeVector(format::JsonWriter& json, const Eigen::Ref<const Eigen::VectorXd>& x);

}  // namespace gcbridge::commands
