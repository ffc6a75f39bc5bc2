// The viewer's parts without a browser: mesh files and their reduction, the shapes a model's
// links carry, the recorder, and the page's data (checked against forward kinematics).

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "gcbridge/viewer/html_viewer.hpp"
#include "test_helpers.hpp"

namespace gcbridge::viewer {
namespace {

/// A UV sphere of radius 1 with `rings` x `segments` quads (two triangles each).
TriangleMesh sphereMesh(int rings, int segments) {
  TriangleMesh mesh;
  for (int i = 0; i <= rings; ++i) {
    const double theta = M_PI * i / rings;
    for (int j = 0; j < segments; ++j) {
      const double phi = 2 * M_PI * j / segments;
      mesh.vertices.push_back(Vector3(std::sin(theta) * std::cos(phi),
                                      std::sin(theta) * std::sin(phi), std::cos(theta)));
    }
  }
  for (int i = 0; i < rings; ++i) {
    for (int j = 0; j < segments; ++j) {
      const int a = i * segments + j, b = i * segments + (j + 1) % segments;
      const int c = a + segments, d = b + segments;
      mesh.triangles.push_back(Eigen::Vector3i(a, c, b));
      mesh.triangles.push_back(Eigen::Vector3i(b, c, d));
    }
  }
  return mesh;
}

// Reduction: within the budget, no triangle with two corners in one cluster, the shape kept (every
// vertex within one cell of the unit sphere); a mesh within the budget comes back as it is.
TEST(Decimate, FitsTheBudgetAndKeepsTheShape) {
  const TriangleMesh sphere = sphereMesh(60, 120);  // 14400 triangles
  const TriangleMesh reduced = decimate(sphere, 1000);
  EXPECT_LE(reduced.triangles.size(), 1000u);
  EXPECT_GT(reduced.triangles.size(), 200u);
  for (const Eigen::Vector3i& t : reduced.triangles) {
    EXPECT_TRUE(t(0) != t(1) && t(1) != t(2) && t(0) != t(2));
    for (int c = 0; c < 3; ++c) {
      ASSERT_GE(t(c), 0);
      ASSERT_LT(t(c), static_cast<int>(reduced.vertices.size()));
    }
  }
  for (const Vector3& v : reduced.vertices) EXPECT_NEAR(v.norm(), 1.0, 0.15);
  const TriangleMesh same = decimate(sphere, 20000);
  EXPECT_EQ(same.triangles.size(), sphere.triangles.size());
  EXPECT_THROW(decimate(sphere, 3), InvalidArgumentError);
}

// A shipped mesh reads (scaled), and the iiwa's meshes fit a budget; a missing file is named.
TEST(MeshFile, ReadsShippedMeshesAndNamesAMissingOne) {
  const Model iiwa = loadUrdf(test::modelPath("kuka_iiwa/model.urdf"));
  const SceneGeometry geometry = exportGeometry(iiwa, GeometrySet::Visual, 20000);
  EXPECT_TRUE(geometry.warnings.empty());
  ASSERT_FALSE(geometry.meshes.empty());
  std::size_t triangles = 0;
  for (const TriangleMesh& mesh : geometry.meshes) triangles += mesh.triangles.size();
  EXPECT_LE(triangles, 20000u);
  EXPECT_GT(triangles, 2000u);
  try {
    readMeshFile("/no/such/mesh.stl");
    ADD_FAILURE() << "no InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/mesh.stl"), std::string::npos) << e.what();
  }
}

/// A link "arm" with a box at (0.1, 0, 0.3) in it, and a link "tool" fixed to it by a joint at
/// (0, 0, 0.5) carrying a sphere, merged into "arm" when the model is built.
Model armWithTool() {
  ModelBuilder builder("arm");
  LinkDescription arm;
  arm.name = "arm";
  arm.mass = 1.0;
  arm.I_Lcm_L = 0.01 * Matrix3::Identity();
  GeometryInstance box;
  box.X_LG = Transform(Matrix3::Identity(), Vector3(0.1, 0, 0.3));
  box.geometry.type = Geometry::Type::Box;
  box.geometry.box_size = Vector3(0.1, 0.2, 0.3);
  arm.visuals = {box};
  LinkDescription tool = arm;
  tool.name = "tool";
  GeometryInstance ball;
  ball.geometry.type = Geometry::Type::Sphere;
  ball.geometry.radius = 0.05;
  tool.visuals = {ball};
  builder.addLink(arm);
  builder.addLink(tool);
  builder.addRevolute("shoulder", "world", "arm", Transform::Identity(), Vector3::UnitY());
  builder.addFixed("wrist", "arm", "tool", Transform(Matrix3::Identity(), Vector3(0, 0, 0.5)));
  return builder.build();
}

// Shapes sit in the model link frame: a merged link's at its frame; with the link posed by
// forward kinematics, the box's corner lands where the model puts that point.
TEST(SceneGeometry, ShapesSitWhereTheModelPutsThem) {
  const Model model = armWithTool();
  ASSERT_EQ(model.numLinks(), 1);
  const SceneGeometry geometry = exportGeometry(model, GeometrySet::Visual);
  ASSERT_EQ(geometry.links[0].size(), 2u);
  const Shape& box = geometry.links[0][0];
  const Shape& ball = geometry.links[0][1];
  EXPECT_EQ(box.type, Geometry::Type::Box);
  EXPECT_TRUE(test::matricesNear(box.size, Vector3(0.1, 0.2, 0.3), 0.0));
  EXPECT_TRUE(test::matricesNear(ball.X_LS.translation(), Vector3(0, 0, 0.5), 1e-15));
  Data data(model);
  const Eigen::VectorXd q = Eigen::VectorXd::Constant(1, 0.7);
  forwardKinematics(model, data, q);
  const Vector3 corner_S(0.05, 0.1, 0.15);
  const Vector3 expected = data.X_WB[0].actPoint(Vector3(0.1, 0, 0.3) + corner_S);
  Recorder recorder(model);
  const int track = recorder.addTrack("arm", TrackStyle::Solid);
  recorder.beginFrame(0.0);
  recorder.setConfiguration(track, q);
  const Transform X_WS = recorder.tracks()[0].frames[0][0] * box.X_LS;
  EXPECT_TRUE(test::matricesNear(X_WS.actPoint(corner_S), expected, 1e-15));
}

// A link without visuals is drawn from its collision shapes in the visual set (as pybullet's
// renderer does); one with visuals draws only those, and the collision set only collisions.
TEST(SceneGeometry, VisualsFallBackToCollisions) {
  ModelBuilder builder("two");
  LinkDescription seen, bare;
  seen.name = "seen";
  seen.mass = bare.mass = 1.0;
  seen.I_Lcm_L = bare.I_Lcm_L = 0.01 * Matrix3::Identity();
  GeometryInstance sphere, box;
  sphere.geometry.type = Geometry::Type::Sphere;
  sphere.geometry.radius = 0.1;
  box.geometry.type = Geometry::Type::Box;
  box.geometry.box_size = Vector3(0.1, 0.2, 0.3);
  seen.visuals = {sphere};
  seen.collisions = {box};
  bare.name = "bare";
  bare.collisions = {box};
  builder.addLink(seen);
  builder.addLink(bare);
  builder.addRevolute("a", "world", "seen", Transform::Identity(), Vector3::UnitY());
  builder.addRevolute("b", "seen", "bare", Transform::Identity(), Vector3::UnitY());
  const Model model = builder.build();
  const SceneGeometry visual = exportGeometry(model, GeometrySet::Visual);
  ASSERT_EQ(visual.links[0].size(), 1u);
  ASSERT_EQ(visual.links[1].size(), 1u);
  EXPECT_EQ(visual.links[0][0].type, Geometry::Type::Sphere);
  EXPECT_EQ(visual.links[1][0].type, Geometry::Type::Box);
  const SceneGeometry collision = exportGeometry(model, GeometrySet::Collision);
  ASSERT_EQ(collision.links[0].size(), 1u);
  EXPECT_EQ(collision.links[0][0].type, Geometry::Type::Box);
}

// A mesh held in memory (a Bullet body's hull, read from a world) is drawn as it is.
TEST(SceneGeometry, InMemoryMeshesAreDrawnAsTheyAre) {
  ModelBuilder builder("hull");
  LinkDescription link;
  link.name = "hull";
  link.mass = 1.0;
  link.I_Lcm_L = 0.01 * Matrix3::Identity();
  GeometryInstance tetrahedron;
  tetrahedron.geometry.type = Geometry::Type::Mesh;
  tetrahedron.geometry.mesh_uri = "(in memory)";
  tetrahedron.geometry.mesh_vertices = {Vector3::Zero(), Vector3::UnitX(), Vector3::UnitY(),
                                        Vector3::UnitZ()};
  tetrahedron.geometry.mesh_triangles = {Eigen::Vector3i(0, 2, 1), Eigen::Vector3i(0, 1, 3),
                                         Eigen::Vector3i(0, 3, 2), Eigen::Vector3i(1, 2, 3)};
  link.collisions = {tetrahedron};
  builder.addLink(link);
  builder.addRevolute("j", "world", "hull", Transform::Identity(), Vector3::UnitZ());
  const SceneGeometry geometry = exportGeometry(builder.build(), GeometrySet::Collision);
  EXPECT_TRUE(geometry.warnings.empty());
  ASSERT_EQ(geometry.meshes.size(), 1u);
  EXPECT_EQ(geometry.meshes[0].triangles.size(), 4u);
  EXPECT_EQ(geometry.links[0][0].mesh, 0);
}

// Frames at the recorder's rate whatever the substep: 1/240 s substeps over 1 s give 61 frames
// at 60 Hz; a frame keeps a track's last poses until set; bad input changes nothing.
TEST(Recorder, KeepsFramesAtItsRate) {
  const Model model = armWithTool();
  Recorder recorder(model, 60.0);
  const int a = recorder.addTrack("a", TrackStyle::Solid);
  const int b = recorder.addTrack("b", TrackStyle::Ghost);
  for (int step = 0; step <= 240; ++step) {
    const double t = step / 240.0;
    if (!recorder.due(t)) continue;
    recorder.beginFrame(t);
    recorder.setConfiguration(a, Eigen::VectorXd::Constant(1, t));
  }
  ASSERT_EQ(recorder.times().size(), 61u);
  EXPECT_NEAR(recorder.times()[1], 1.0 / 60.0, 1e-12);
  EXPECT_TRUE(test::matricesNear(recorder.tracks()[b].frames.back()[0].rotation(),
                                 Matrix3::Identity(), 0.0));
  EXPECT_THROW(recorder.addTrack("late", TrackStyle::Solid), InvalidArgumentError);
  EXPECT_THROW(recorder.beginFrame(0.5), InvalidArgumentError);
  EXPECT_THROW(recorder.setConfiguration(2, Eigen::VectorXd::Zero(1)), InvalidArgumentError);
  EXPECT_THROW(recorder.setLinkPoses(a, {}), InvalidArgumentError);
  EXPECT_THROW(Recorder(model, 0.0), InvalidArgumentError);
  EXPECT_EQ(recorder.times().size(), 61u);
}

// The page holds three.js, the viewer's script, the recording's data and nothing from the web;
// a recording without frames is refused.
TEST(ViewerHtml, IsOneSelfContainedPage) {
  const Model model = armWithTool();
  Recorder recorder(model);
  const int a = recorder.addTrack("a </script> b", TrackStyle::Solid);
  EXPECT_THROW(viewerHtml(recorder), InvalidArgumentError);
  recorder.beginFrame(0.0);
  recorder.setConfiguration(a, Eigen::VectorXd::Constant(1, 0.3));
  const std::string page = viewerHtml(recorder);
  EXPECT_NE(page.find("window.GCBRIDGE_DATA="), std::string::npos);
  EXPECT_NE(page.find("OrbitControls"), std::string::npos);
  EXPECT_NE(page.find("\"a <\\/script> b\""), std::string::npos);  // the name cannot close it
  // Web addresses: none but XML namespace names (http://www.w3.org/...).
  for (const std::string scheme : {"http://", "https://"}) {
    for (std::size_t at = page.find(scheme); at != std::string::npos;
         at = page.find(scheme, at + 1)) {
      EXPECT_EQ(page.compare(at, 18, "http://www.w3.org/"), 0) << page.substr(at, 60);
    }
  }
  EXPECT_EQ(page.find("<script src"), std::string::npos);
}

// A page of two models holds each one's links and recording under its name, with its placement
// in the page; no model, a missing recording or a placement that is not finite is refused.
TEST(ViewerHtml, HoldsSeveralModelsPlacedInThePage) {
  Model arm = armWithTool();
  arm.name = "first arm";
  Model other = armWithTool();
  other.name = "second arm";
  Recorder a(arm), b(other, 30.0);
  a.addTrack("bodies", TrackStyle::Solid);
  b.addTrack("ghost", TrackStyle::Ghost);
  for (Recorder* recorder : {&a, &b}) recorder->beginFrame(0.0);
  a.beginFrame(1.0 / 60.0);
  Transform X_PW = Transform::Identity();
  X_PW.translation() = Vector3(2.5, 0, 0);
  const std::string page = viewerHtml({{&a}, {&b, X_PW}});
  const std::size_t first = page.find("{\"name\":\"first arm\",\"X_PW\":[0,0,0,0,0,0,1]");
  const std::size_t second = page.find("{\"name\":\"second arm\",\"X_PW\":[2.5,0,0,0,0,0,1]");
  ASSERT_NE(first, std::string::npos);
  ASSERT_NE(second, std::string::npos);
  EXPECT_LT(first, second);
  EXPECT_NE(page.find("\"times\":[0,0.01666667]"), std::string::npos);
  EXPECT_NE(page.find("\"times\":[0]"), std::string::npos);
  EXPECT_THROW(viewerHtml(std::vector<PageModel>{}), InvalidArgumentError);
  EXPECT_THROW(viewerHtml({{&a}, {nullptr}}), InvalidArgumentError);
  X_PW.translation().x() = NAN;
  EXPECT_THROW(viewerHtml({{&a}, {&b, X_PW}}), InvalidArgumentError);
}

}  // namespace
}  // namespace gcbridge::viewer
