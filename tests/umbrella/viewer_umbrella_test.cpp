// gcbridge/viewer.hpp alone gives the whole library: this file includes nothing else of gcbridge
// but gcbridge/dynamics.hpp and calls one function of every public header behind it.

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <gcbridge/dynamics.hpp>
#include <gcbridge/viewer.hpp>

namespace gcbridge::viewer {
namespace {

TEST(ViewerUmbrella, RecordsAndWritesAPage) {
  const Model model = loadUrdf(std::string(GCBRIDGE_MODELS_DIR) + "/pendulum5/pendulum5.urdf");
  EXPECT_FALSE(exportGeometry(model, GeometrySet::Visual).links[0].empty());  // scene_geometry.hpp
  Recorder recorder(model);                                                 // recorder.hpp
  const int track = recorder.addTrack("pendulum", TrackStyle::Solid);
  recorder.beginFrame(0.0);
  recorder.setConfiguration(track, neutralConfiguration(model));
  const std::string path = ::testing::TempDir() + "viewer_umbrella.html";
  writeViewer(path, recorder);  // html_viewer.hpp
  EXPECT_TRUE(std::ifstream(path).good());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace gcbridge::viewer
