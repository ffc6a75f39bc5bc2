#include "commands/commands.hpp"

#include <iostream>
#include <string_view>

#include "format/numbers.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "inputs/bullet_world.hpp"

namespace gcbridge::commands {

gcbridge::Model loadModel(const cli::ModelRequest& request) {
  if (cli::isBulletFile(request.path)) {
    inputs::BulletWorld world = inputs::loadBulletWorld(request);
    for (const std::string& w : world.warnings()) {
      std::cerr << "gcbridge: warning: " << w << '\n';
    }
    return world.model();
  }
  gcbridge::Model model = gcbridge::loadUrdf(request.path, request.model_options);
  for (const std::string& w : model.description->warnings) {
    std::cerr << "gcbridge: warning: " << w << '\n';
  }
  return model;
}

void printField(std::ostream& out, const char* label, const std::string& text) {
  out << label << std::string(12 - std::string_view(label).size(), ' ') << text << '\n';
}

std::string vectorText(const gcbridge::Vector3& v) {
  using format::roundedNumber;
  return "(" + roundedNumber(v.x()) + ", " + roundedNumber(v.y()) + ", " + roundedNumber(v.z()) +
         ")";
}

void writeVector(format::JsonWriter& json, const Eigen::Ref<const Eigen::VectorXd>& x) {
  json.beginArray(true);
  for (int i = 0; i < x.size(); ++i) json.value(x(i));
  json.endArray();
}

}  // namespace gcbridge::commands
