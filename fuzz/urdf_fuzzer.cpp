// libFuzzer target: the URDF reader and the model builder on arbitrary bytes.
//
// Every input must give a model or a typed gcbridge::Error: any other exception escapes and
// libFuzzer reports it, as it reports a crash, a hang or a sanitizer finding. A model that builds
// is then run through the algorithms at its neutral configuration and a random one, which must
// not crash either (their typed errors are accepted).

#include <cstddef>
#include <cstdint>
#include <string>

#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/model.hpp"
#include "gcbridge/dynamics/rnea.hpp"
#include "gcbridge/dynamics/urdf.hpp"

namespace {

// The algorithms at q: positions, M, h and qdd for zero joint forces.
void runAlgorithms(const gcbridge::Model& model, gcbridge::Data& data, const Eigen::VectorXd& q) {
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.nv);
  try {
    gcbridge::forwardKinematics(model, data, q, zero, zero);
    gcbridge::crba(model, data, q);
    gcbridge::nonLinearEffects(model, data, q, zero);
    gcbridge::aba(model, data, q, zero, zero);
  } catch (const gcbridge::Error&) {
    // Typed: a model may be singular away from the neutral configuration.
  }
}

// Builds the model with `options` and runs it; a ModelError is a valid outcome.
void buildAndRun(const gcbridge::RobotDescription& description,
                 const gcbridge::ModelOptions& options) {
  gcbridge::Model model;
  try {
    model = gcbridge::buildModel(description, options);
  } catch (const gcbridge::Error&) {
    return;
  }
  gcbridge::Data data(model);
  runAlgorithms(model, data, gcbridge::neutralConfiguration(model));
  runAlgorithms(model, data, gcbridge::randomConfiguration(model, 1));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::string xml(reinterpret_cast<const char*>(bytes), size);
  gcbridge::RobotDescription description;
  try {
    description = gcbridge::parseUrdfString(xml, ".", "<fuzz>");
  } catch (const gcbridge::Error&) {
    return 0;
  }
  buildAndRun(description, {});
  gcbridge::ModelOptions other;
  other.floating_base = true;
  other.merge_fixed_joints = false;
  other.ball = gcbridge::BallParametrization::ExpMap;
  buildAndRun(description, other);
  return 0;
}
