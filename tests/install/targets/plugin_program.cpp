// Links gcbridge::plugin alone and calls only the plugin and the bridge (the libraries must find
// gcbridge::controllers and gcbridge::dynamics themselves): a controller on a hand-built world.
#include <cstdio>

#include "door_world.hpp"
#include "gcbridge/bridge.hpp"
#include "gcbridge/plugin.hpp"

int main() {
  DoorWorld door;
  try {
    const gcbridge::InferredModel inferred = gcbridge::inferModelFromWorld(door.world);
    auto hold = [](double, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                   Eigen::VectorXd& tau) { tau = -10.0 * q - v; };
    auto plugin = gcbridge::attach(door.world, inferred.model, *inferred.map, hold);
    door.world.stepSimulation(0.1, 24, 1.0 / 240.0);
    std::printf("plugin: %ld substeps, %ld errors\n", plugin->substeps(), plugin->errorCount());
    return plugin->errorCount() == 0 ? 0 : 1;
  } catch (const gcbridge::Error& e) {
    std::fprintf(stderr, "plugin_program: %s\n", e.what());
    return 1;
  }
}
