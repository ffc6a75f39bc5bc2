// Links gcbridge::viewer alone and calls nothing else of gcbridge (its own dependency on
// gcbridge::dynamics must be found by the library itself): a mesh file read and decimated.
#include <cstdio>
#include <exception>

#include "gcbridge/viewer.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: viewer_program MESH\n");
    return 2;
  }
  try {
    const gcbridge::viewer::TriangleMesh mesh = gcbridge::viewer::readMeshFile(argv[1]);
    const gcbridge::viewer::TriangleMesh coarse = gcbridge::viewer::decimate(mesh, 100);
    std::printf("viewer: %zu triangles, %zu after decimation\n", mesh.triangles.size(),
                coarse.triangles.size());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "viewer_program: %s\n", e.what());
    return 1;
  }
  return 0;
}
