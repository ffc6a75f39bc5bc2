// gcbridge/plugin.hpp alone gives the whole library: this file includes nothing else of gcbridge
// but the other umbrella headers and attaches a controller to the KUKA iiwa's Bullet world.

#include <gtest/gtest.h>

#include <string>

#include <gcbridge/bridge.hpp>
#include <gcbridge/controllers.hpp>
#include <gcbridge/dynamics.hpp>
#include <gcbridge/plugin.hpp>

namespace gcbridge {
namespace {

TEST(PluginUmbrella, AttachRunsEverySubstep) {
  const Model model = loadUrdf(std::string(GCBRIDGE_MODELS_DIR) + "/kuka_iiwa/model.urdf");
  auto world = buildRigidBodyWorld(model);
  ComputedTorque controller(model, Eigen::VectorXd::Constant(model.nv, 100.0));
  controller.setSetPoint(neutralConfiguration(model));
  auto plugin = attach(*world->world, model, *world->map, controller);  // plugin.hpp
  world->world->stepSimulation(4.0 / 240.0, 4, 1.0 / 240.0);
  EXPECT_EQ(plugin->substeps(), 4);
  EXPECT_EQ(plugin->errorCount(), 0);
}

}  // namespace
}  // namespace gcbridge
