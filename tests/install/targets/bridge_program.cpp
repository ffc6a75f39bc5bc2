// Links gcbridge::bridge alone and calls nothing else of gcbridge (its own dependency on
// gcbridge::dynamics must be found by the library itself): a model read out of a hand-built world.
#include <cstdio>

#include "door_world.hpp"
#include "gcbridge/bridge.hpp"

int main() {
  DoorWorld door;
  try {
    const gcbridge::InferredModel inferred = gcbridge::inferModelFromWorld(door.world);
    std::printf("bridge: nv = %d, bullet precision = %s\n", inferred.model.nv,
                gcbridge::bulletPrecisionName());
  } catch (const gcbridge::Error& e) {
    std::fprintf(stderr, "bridge_program: %s\n", e.what());
    return 1;
  }
  return 0;
}
