// Links gcbridge::dynamics alone: the inverse dynamics of the URDF given as argv[1] at rest.
#include <cstdio>

#include "gcbridge/dynamics.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: dynamics_program MODEL.urdf\n");
    return 2;
  }
  try {
    const gcbridge::Model model = gcbridge::loadUrdf(argv[1]);
    gcbridge::Data data(model);
    const Eigen::VectorXd g =
        gcbridge::computeGeneralizedGravity(model, data, gcbridge::neutralConfiguration(model));
    std::printf("dynamics: nv = %d, |g(q0)| = %.3f N m\n", model.nv, g.norm());
  } catch (const gcbridge::Error& e) {
    std::fprintf(stderr, "dynamics_program: %s\n", e.what());
    return 1;
  }
  return 0;
}
