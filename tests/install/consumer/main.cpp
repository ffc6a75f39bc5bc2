// The smallest program on an installed gcbridge: loads the URDF given as argv[1], runs forward
// kinematics at the neutral configuration and prints nv, the Bullet precision of the installed
// bridge library and the height of the last link. tests/install/install_consumer.cmake builds it
// twice: through find_package(gcbridge) and through pkg-config.

#include <cstdio>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/dynamics.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer MODEL.urdf\n");
    return 2;
  }
  try {
    const gcbridge::Model model = gcbridge::loadUrdf(argv[1]);
    gcbridge::Data data(model);
    gcbridge::forwardKinematics(model, data, gcbridge::neutralConfiguration(model));
    std::printf("nv = %d\n", model.nv);
    std::printf("bullet precision = %s\n", gcbridge::bulletPrecisionName());
    std::printf("last link z = %.4f m\n", data.X_WB.back().translation().z());
  } catch (const gcbridge::Error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  return 0;
}
