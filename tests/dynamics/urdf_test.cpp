// The URDF reader: every supported element on small inline documents, mesh path resolution on
// temporary folders, and one broken file per kind of error (tests/data/urdf).

#include "gcbridge/dynamics/urdf.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "gcbridge/dynamics/errors.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

namespace fs = std::filesystem;
using test::dataPath;
using test::matricesNear;
using test::modelPath;

constexpr double kInf = std::numeric_limits<double>::infinity();

/// A unit-mass inertial block for links whose inertia does not matter.
const std::string kInertial =
    R"(<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>)"
    R"(</inertial>)";

/// A URDF document around `body`: line 1 is the <robot> tag, so `body` starts on line 2.
std::string robot(const std::string& body) {
  return "<robot name=\"test_robot\">\n" + body + "\n</robot>\n";
}

/// Two links "base" and "arm" and a joint between them, with `joint_body` inside the <joint>.
/// The <joint> tag is on line 4.
std::string twoLinks(const std::string& type, const std::string& joint_body) {
  return robot("<link name=\"base\">" + kInertial + "</link>\n<link name=\"arm\">" + kInertial +
               "</link>\n<joint name=\"j\" type=\"" + type +
               "\">\n<parent link=\"base\"/><child link=\"arm\"/>\n" + joint_body + "\n</joint>");
}

RobotDescription parse(const std::string& xml, const std::string& base_dir = ".",
                       const UrdfOptions& options = {}) {
  return parseUrdfString(xml, base_dir, "test.urdf", options);
}

/// What a call threw: nothing, a UrdfError, or a ModelError that is not a UrdfError.
struct Thrown {
  enum class Kind { Nothing, UrdfError, ModelError } kind = Kind::Nothing;
  std::string message;
};

Thrown thrownBy(const std::function<void()>& f) {
  try {
    f();
  } catch (const UrdfError& e) {
    return {Thrown::Kind::UrdfError, e.what()};
  } catch (const ModelError& e) {
    return {Thrown::Kind::ModelError, e.what()};
  }
  return {};
}

/// The call threw a UrdfError whose message contains every one of `parts`.
::testing::AssertionResult throwsUrdfError(const std::function<void()>& f,
                                           const std::vector<std::string>& parts) {
  const Thrown t = thrownBy(f);
  if (t.kind != Thrown::Kind::UrdfError) {
    return ::testing::AssertionFailure()
           << (t.kind == Thrown::Kind::Nothing ? "nothing thrown" : "ModelError thrown instead: ")
           << t.message;
  }
  for (const std::string& part : parts) {
    if (t.message.find(part) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "message \"" << t.message << "\" lacks \"" << part << "\"";
    }
  }
  return ::testing::AssertionSuccess();
}

/// The call threw a ModelError (not a UrdfError) whose message contains every one of `parts` and
/// at least one of `any_of` (if given).
::testing::AssertionResult throwsModelError(const std::function<void()>& f,
                                            const std::vector<std::string>& parts,
                                            const std::vector<std::string>& any_of = {}) {
  const Thrown t = thrownBy(f);
  if (t.kind != Thrown::Kind::ModelError) {
    return ::testing::AssertionFailure()
           << (t.kind == Thrown::Kind::Nothing ? "nothing thrown" : "UrdfError thrown instead: ")
           << t.message;
  }
  for (const std::string& part : parts) {
    if (t.message.find(part) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "message \"" << t.message << "\" lacks \"" << part << "\"";
    }
  }
  bool found = any_of.empty();
  for (const std::string& part : any_of) found = found || t.message.find(part) != std::string::npos;
  if (!found) {
    return ::testing::AssertionFailure() << "message \"" << t.message << "\" names none of the "
                                         << any_of.size() << " expected elements";
  }
  return ::testing::AssertionSuccess();
}

/// Some warning contains every one of `parts`.
::testing::AssertionResult hasWarning(const std::vector<std::string>& warnings,
                                      const std::vector<std::string>& parts) {
  for (const std::string& w : warnings) {
    bool all = true;
    for (const std::string& part : parts) all = all && w.find(part) != std::string::npos;
    if (all) return ::testing::AssertionSuccess();
  }
  auto failure = ::testing::AssertionFailure() << "no warning contains all of:";
  for (const std::string& part : parts) failure << " \"" << part << "\"";
  failure << "; warnings:";
  for (const std::string& w : warnings) failure << "\n  " << w;
  return failure;
}

Matrix3 rotX(double a) {
  Matrix3 R;
  R << 1, 0, 0, 0, std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a);
  return R;
}
Matrix3 rotY(double a) {
  Matrix3 R;
  R << std::cos(a), 0, std::sin(a), 0, 1, 0, -std::sin(a), 0, std::cos(a);
  return R;
}
Matrix3 rotZ(double a) {
  Matrix3 R;
  R << std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1;
  return R;
}

/// A fresh, empty folder for one test under ::testing::TempDir(), removed when it goes away.
class TempFolder {
 public:
  TempFolder() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::path(::testing::TempDir()) /
            ("gcbridge_urdf_test_" + std::string(info->name()) + "_" + std::to_string(getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

  /// Writes `text` to the file `relative` (creating its folders) and returns its path.
  fs::path write(const std::string& relative, const std::string& text) const {
    const fs::path p = path_ / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  fs::path path_;
};

/// A robot whose one link has a visual mesh named `filename`.
std::string meshRobot(const std::string& filename) {
  return robot("<link name=\"base\"><visual><geometry><mesh filename=\"" + filename +
               "\"/></geometry></visual></link>");
}

bool sameFile(const std::string& a, const fs::path& b) {
  std::error_code ec;
  return !a.empty() && fs::path(a).is_absolute() && fs::equivalent(a, b, ec);
}

// ---------------------------------------------------------------------------------------------
// Joints

TEST(UrdfJoints, RevoluteReadsOriginAxisLimitsAndDynamics) {
  const RobotDescription d = parse(twoLinks("revolute", R"(
    <origin xyz="0.1 -0.2 0.3" rpy="0.3 -0.4 1.1"/>
    <axis xyz="0 2 0"/>
    <limit lower="-1.5" upper="2.5" effort="30" velocity="4"/>
    <dynamics damping="0.7" friction="0.2"/>)"));
  ASSERT_EQ(d.joints.size(), 1u);
  const JointDescription& j = d.joints[0];
  EXPECT_EQ(j.name, "j");
  EXPECT_EQ(j.type, JointType::Revolute);
  EXPECT_EQ(j.parent, "base");
  EXPECT_EQ(j.child, "arm");
  EXPECT_EQ(j.source_line, 4);
  // URDF's rpy: fixed-axis roll, pitch, yaw, R = Rz(yaw) Ry(pitch) Rx(roll).
  EXPECT_TRUE(matricesNear(j.X_PJ.rotation(), rotZ(1.1) * rotY(-0.4) * rotX(0.3), 1e-15));
  EXPECT_TRUE(matricesNear(j.X_PJ.translation(), Vector3(0.1, -0.2, 0.3), 0.0));
  EXPECT_TRUE(matricesNear(j.axis, Vector3::UnitY(), 0.0));
  EXPECT_EQ(j.limits.lower, -1.5);
  EXPECT_EQ(j.limits.upper, 2.5);
  EXPECT_EQ(j.limits.effort, 30.0);
  EXPECT_EQ(j.limits.velocity, 4.0);
  EXPECT_EQ(j.limits.damping, 0.7);
  EXPECT_EQ(j.limits.friction, 0.2);
  EXPECT_TRUE(d.warnings.empty());
}

TEST(UrdfJoints, DefaultsWithoutOriginAxisAndDynamics) {
  const RobotDescription d =
      parse(twoLinks("revolute", R"(<limit lower="-1" upper="1" effort="1" velocity="1"/>)"));
  const JointDescription& j = d.joints[0];
  EXPECT_TRUE(j.X_PJ.isApprox(Transform::Identity(), 0.0));
  EXPECT_TRUE(matricesNear(j.axis, Vector3::UnitX(), 0.0));
  EXPECT_EQ(j.limits.damping, 0.0);
  EXPECT_EQ(j.limits.friction, 0.0);
}

TEST(UrdfJoints, ContinuousIsRevoluteWithoutPositionLimits) {
  const RobotDescription d = parse(twoLinks("continuous", R"(
    <axis xyz="0 0 -1"/>
    <limit lower="-1" upper="1" effort="12" velocity="3"/>)"));
  const JointDescription& j = d.joints[0];
  EXPECT_EQ(j.type, JointType::Revolute);
  EXPECT_TRUE(matricesNear(j.axis, Vector3(0, 0, -1), 0.0));
  EXPECT_EQ(j.limits.lower, -kInf);
  EXPECT_EQ(j.limits.upper, kInf);
  EXPECT_EQ(j.limits.effort, 12.0);
  EXPECT_EQ(j.limits.velocity, 3.0);
  EXPECT_TRUE(d.warnings.empty());
}

TEST(UrdfJoints, Prismatic) {
  const RobotDescription d = parse(twoLinks("prismatic", R"(
    <axis xyz="3 0 4"/>
    <limit lower="0.0" upper="0.04" effort="20" velocity="0.2"/>
    <dynamics damping="5"/>)"));
  const JointDescription& j = d.joints[0];
  EXPECT_EQ(j.type, JointType::Prismatic);
  EXPECT_TRUE(matricesNear(j.axis, Vector3(0.6, 0, 0.8), 1e-15));
  EXPECT_EQ(j.limits.lower, 0.0);
  EXPECT_EQ(j.limits.upper, 0.04);
  EXPECT_EQ(j.limits.effort, 20.0);
  EXPECT_EQ(j.limits.velocity, 0.2);
  EXPECT_EQ(j.limits.damping, 5.0);
  EXPECT_EQ(j.limits.friction, 0.0);
}

TEST(UrdfJoints, FixedAndFloatingIgnoreAxisAndLimits) {
  for (const std::string type : {"fixed", "floating"}) {
    const RobotDescription d = parse(twoLinks(type, R"(
      <origin xyz="1 2 3"/>
      <axis xyz="0 0 1"/>
      <limit effort="100" velocity="100"/>)"));
    const JointDescription& j = d.joints[0];
    EXPECT_EQ(j.type, type == "fixed" ? JointType::Fixed : JointType::Free);
    EXPECT_TRUE(matricesNear(j.X_PJ.translation(), Vector3(1, 2, 3), 0.0));
    EXPECT_TRUE(matricesNear(j.axis, Vector3::UnitX(), 0.0));
    EXPECT_EQ(j.limits.effort, kInf);
    EXPECT_TRUE(d.warnings.empty());
  }
}

TEST(UrdfJoints, SphericalSwingAndTwistLimits) {
  // Bullet's spherical_joint_limit.urdf: upper is the swing span about both axes orthogonal to the
  // twist axis, twist the span about it; lower is ignored, with a warning.
  const RobotDescription d = parse(twoLinks("spherical", R"(
    <limit effort="1000.0" lower="0.2" upper=".8" twist=".3"/>
    <axis xyz="0 0 1"/>)"));
  const JointDescription& j = d.joints[0];
  EXPECT_EQ(j.type, JointType::Ball);
  EXPECT_TRUE(matricesNear(j.axis, Vector3::UnitZ(), 0.0));
  EXPECT_EQ(j.swing1, 0.8);
  EXPECT_EQ(j.swing2, 0.8);
  EXPECT_EQ(j.twist, 0.3);
  EXPECT_EQ(j.limits.effort, 1000.0);
  EXPECT_EQ(j.limits.lower, -kInf);
  EXPECT_EQ(j.limits.upper, kInf);
  EXPECT_TRUE(hasWarning(d.warnings, {"test.urdf:7:", "<joint> 'j'", "lower=\"0.2\"", "ignored"}));
}

TEST(UrdfJoints, SphericalWithoutLimitIsUnlimited) {
  const RobotDescription d = parse(twoLinks("spherical", ""));
  const JointDescription& j = d.joints[0];
  EXPECT_EQ(j.type, JointType::Ball);
  EXPECT_EQ(j.swing1, kInf);
  EXPECT_EQ(j.swing2, kInf);
  EXPECT_EQ(j.twist, kInf);
  EXPECT_TRUE(d.warnings.empty());
}

TEST(UrdfJoints, RevoluteWithoutLimitIsUnlimitedWithAWarning) {
  const RobotDescription d = parse(twoLinks("revolute", "<axis xyz=\"0 1 0\"/>"));
  const JointDescription& j = d.joints[0];
  EXPECT_EQ(j.limits.lower, -kInf);
  EXPECT_EQ(j.limits.upper, kInf);
  EXPECT_EQ(j.limits.effort, kInf);
  EXPECT_EQ(j.limits.velocity, kInf);
  EXPECT_TRUE(hasWarning(d.warnings, {"test.urdf:4:", "<joint> 'j'", "without <limit>"}));
}

TEST(UrdfJoints, MissingLimitAttributesKeepTheirDefaults) {
  // The minitaur's revolute knees give only effort and velocity.
  const RobotDescription d = parse(twoLinks("revolute", R"(<limit effort="100" velocity="100"/>)"));
  const JointDescription& j = d.joints[0];
  EXPECT_EQ(j.limits.lower, -kInf);
  EXPECT_EQ(j.limits.upper, kInf);
  EXPECT_EQ(j.limits.effort, 100.0);
  EXPECT_EQ(j.limits.velocity, 100.0);
  EXPECT_TRUE(d.warnings.empty());
}

TEST(UrdfJoints, MimicIsIgnoredWithAWarning) {
  const RobotDescription d = parse(twoLinks("prismatic", R"(
    <limit lower="0" upper="1" effort="1" velocity="1"/>
    <mimic joint="other"/>)"));
  EXPECT_TRUE(hasWarning(d.warnings, {"<joint> 'j'", "<mimic>"}));
}

// ---------------------------------------------------------------------------------------------
// Links

TEST(UrdfLinks, InertialOriginRotatesTheInertiaIntoTheLinkFrame) {
  const RobotDescription d = parse(robot(R"(<link name="body">
    <inertial>
      <origin xyz="0.1 0.2 -0.3" rpy="0.3 -0.4 1.1"/>
      <mass value="2.5"/>
      <inertia ixx="0.4" ixy="0.01" ixz="-0.02" iyy="0.3" iyz="0.03" izz="0.2"/>
    </inertial>
  </link>)"));
  ASSERT_EQ(d.links.size(), 1u);
  const LinkDescription& link = d.links[0];
  EXPECT_EQ(link.name, "body");
  EXPECT_EQ(link.source_line, 2);
  EXPECT_EQ(link.mass, 2.5);
  EXPECT_TRUE(matricesNear(link.p_LoLcm_L, Vector3(0.1, 0.2, -0.3), 0.0));
  // The inertia is given in the inertial frame I; in L it is R_LI I R_LI^T.
  Matrix3 I_Lcm_I;
  I_Lcm_I << 0.4, 0.01, -0.02, 0.01, 0.3, 0.03, -0.02, 0.03, 0.2;
  const Matrix3 R_LI = rotZ(1.1) * rotY(-0.4) * rotX(0.3);
  EXPECT_TRUE(matricesNear(link.I_Lcm_L, R_LI * I_Lcm_I * R_LI.transpose(), 1e-12));
  // A rotation keeps the principal moments and the symmetry.
  EXPECT_NEAR(link.I_Lcm_L.trace(), 0.9, 1e-12);
  EXPECT_TRUE(matricesNear(link.I_Lcm_L, link.I_Lcm_L.transpose(), 0.0));
}

TEST(UrdfLinks, NoInertialMeansNoMass) {
  const RobotDescription d = parse(robot("<link name=\"empty\"/>"));
  ASSERT_EQ(d.links.size(), 1u);
  EXPECT_EQ(d.links[0].mass, 0.0);
  EXPECT_TRUE(matricesNear(d.links[0].p_LoLcm_L, Vector3::Zero(), 0.0));
  EXPECT_TRUE(matricesNear(d.links[0].I_Lcm_L, Matrix3::Zero(), 0.0));
  EXPECT_TRUE(d.links[0].visuals.empty());
  EXPECT_TRUE(d.links[0].collisions.empty());
}

TEST(UrdfLinks, EveryGeometryTypeWithItsSizes) {
  const RobotDescription d = parse(robot(R"(<link name="shapes">
    <visual name="v_box">
      <origin xyz="1 2 3" rpy="0 0 1.5"/>
      <geometry><box size="0.1 0.2 0.3"/></geometry>
    </visual>
    <visual>
      <geometry><sphere radius="0.25"/></geometry>
    </visual>
    <collision name="c_cylinder">
      <geometry><cylinder radius="0.05" length="1.1"/></geometry>
    </collision>
    <collision>
      <origin rpy="-1.570796 0 0" xyz="0 -0.84 0"/>
      <geometry><capsule length="1.2" radius="0.22"/></geometry>
    </collision>
    <collision>
      <geometry><mesh filename="missing.stl" scale="0.001 0.002 0.003"/></geometry>
    </collision>
  </link>)"));
  const LinkDescription& link = d.links[0];
  ASSERT_EQ(link.visuals.size(), 2u);
  ASSERT_EQ(link.collisions.size(), 3u);

  const GeometryInstance& box = link.visuals[0];
  EXPECT_EQ(box.name, "v_box");
  EXPECT_EQ(box.geometry.type, Geometry::Type::Box);
  EXPECT_TRUE(matricesNear(box.geometry.box_size, Vector3(0.1, 0.2, 0.3), 0.0));
  EXPECT_TRUE(matricesNear(box.X_LG.translation(), Vector3(1, 2, 3), 0.0));
  EXPECT_TRUE(matricesNear(box.X_LG.rotation(), rotZ(1.5), 1e-15));
  EXPECT_FALSE(box.rgba.has_value());

  const GeometryInstance& sphere = link.visuals[1];
  EXPECT_EQ(sphere.name, "");
  EXPECT_EQ(sphere.geometry.type, Geometry::Type::Sphere);
  EXPECT_EQ(sphere.geometry.radius, 0.25);
  EXPECT_TRUE(sphere.X_LG.isApprox(Transform::Identity(), 0.0));

  const GeometryInstance& cylinder = link.collisions[0];
  EXPECT_EQ(cylinder.name, "c_cylinder");
  EXPECT_EQ(cylinder.geometry.type, Geometry::Type::Cylinder);
  EXPECT_EQ(cylinder.geometry.radius, 0.05);
  EXPECT_EQ(cylinder.geometry.length, 1.1);

  const GeometryInstance& capsule = link.collisions[1];
  EXPECT_EQ(capsule.geometry.type, Geometry::Type::Capsule);
  EXPECT_EQ(capsule.geometry.radius, 0.22);
  EXPECT_EQ(capsule.geometry.length, 1.2);
  EXPECT_TRUE(matricesNear(capsule.X_LG.rotation(), rotX(-1.570796), 1e-15));
  EXPECT_TRUE(matricesNear(capsule.X_LG.translation(), Vector3(0, -0.84, 0), 0.0));

  const GeometryInstance& mesh = link.collisions[2];
  EXPECT_EQ(mesh.geometry.type, Geometry::Type::Mesh);
  EXPECT_EQ(mesh.geometry.mesh_uri, "missing.stl");
  EXPECT_EQ(mesh.geometry.mesh_path, "");
  EXPECT_TRUE(matricesNear(mesh.geometry.mesh_scale, Vector3(0.001, 0.002, 0.003), 0.0));
  EXPECT_TRUE(hasWarning(d.warnings, {"test.urdf:18:", "<link> 'shapes'", "missing.stl"}));
}

TEST(UrdfLinks, MeshScaleDefaultsToOne) {
  const RobotDescription d = parse(meshRobot("x.obj"));
  EXPECT_TRUE(matricesNear(d.links[0].visuals[0].geometry.mesh_scale, Vector3::Ones(), 0.0));
}

// ---------------------------------------------------------------------------------------------
// Mesh paths

TEST(UrdfMeshes, RelativePathsStartAtTheUrdfFolder) {
  const TempFolder tmp;
  const fs::path mesh = tmp.write("robot/meshes/part.stl", "solid part\n");
  const fs::path urdf = tmp.write("robot/urdf/robot.urdf", meshRobot("../meshes/part.stl"));
  const RobotDescription d = parseUrdfFile(urdf.string());
  const Geometry& g = d.links[0].visuals[0].geometry;
  EXPECT_EQ(g.mesh_uri, "../meshes/part.stl");
  EXPECT_TRUE(sameFile(g.mesh_path, mesh)) << g.mesh_path;
  EXPECT_TRUE(d.warnings.empty());
  // parseUrdfString resolves against its base_dir.
  const RobotDescription s =
      parse(meshRobot("../meshes/part.stl"), (tmp.path() / "robot/urdf").string());
  EXPECT_TRUE(sameFile(s.links[0].visuals[0].geometry.mesh_path, mesh));
}

TEST(UrdfMeshes, AbsoluteAndFileUriPaths) {
  const TempFolder tmp;
  const fs::path mesh = tmp.write("elsewhere/part.obj", "o part\n");
  for (const std::string& uri : {mesh.string(), "file://" + mesh.string()}) {
    const RobotDescription d = parse(meshRobot(uri));
    const Geometry& g = d.links[0].visuals[0].geometry;
    EXPECT_EQ(g.mesh_uri, uri);
    EXPECT_TRUE(sameFile(g.mesh_path, mesh)) << uri;
  }
}

TEST(UrdfMeshes, PackageFromTheOptionsFolders) {
  const TempFolder tmp;
  const fs::path mesh = tmp.write("share_b/my_pkg/meshes/part.stl", "solid\n");
  tmp.write("share_a/other_pkg/meshes/part.stl", "solid\n");
  UrdfOptions options;
  options.package_dirs = {(tmp.path() / "share_a").string(), (tmp.path() / "share_b").string()};
  const RobotDescription d = parse(meshRobot("package://my_pkg/meshes/part.stl"),
                                   (tmp.path() / "nowhere").string(), options);
  EXPECT_TRUE(sameFile(d.links[0].visuals[0].geometry.mesh_path, mesh));
  EXPECT_TRUE(d.warnings.empty());
}

TEST(UrdfMeshes, PackageFromRosPackagePath) {
  const TempFolder tmp;
  const fs::path mesh = tmp.write("ws/src/my_pkg/meshes/part.stl", "solid\n");
  const char* saved = std::getenv("ROS_PACKAGE_PATH");
  const std::optional<std::string> old = saved ? std::optional<std::string>(saved) : std::nullopt;
  const std::string value = "/nonexistent_gcbridge::" + (tmp.path() / "ws/src").string();
  setenv("ROS_PACKAGE_PATH", value.c_str(), 1);
  const RobotDescription d =
      parse(meshRobot("package://my_pkg/meshes/part.stl"), (tmp.path() / "nowhere").string());
  if (old) {
    setenv("ROS_PACKAGE_PATH", old->c_str(), 1);
  } else {
    unsetenv("ROS_PACKAGE_PATH");
  }
  EXPECT_TRUE(sameFile(d.links[0].visuals[0].geometry.mesh_path, mesh));
}

TEST(UrdfMeshes, PackageFoundByWalkingUpFromTheUrdf) {
  const TempFolder tmp;
  // The URDF lives inside its package: an ancestor folder has the package's name.
  const fs::path mesh = tmp.write("my_pkg/meshes/part.stl", "solid\n");
  const fs::path urdf =
      tmp.write("my_pkg/urdf/robot.urdf", meshRobot("package://my_pkg/meshes/part.stl"));
  EXPECT_TRUE(sameFile(parseUrdfFile(urdf.string()).links[0].visuals[0].geometry.mesh_path, mesh));
  // The package is a sibling of an ancestor folder.
  const fs::path sibling = tmp.write("src/other_pkg/meshes/part.stl", "solid\n");
  const fs::path urdf2 =
      tmp.write("src/robot_pkg/urdf/robot.urdf", meshRobot("package://other_pkg/meshes/part.stl"));
  EXPECT_TRUE(
      sameFile(parseUrdfFile(urdf2.string()).links[0].visuals[0].geometry.mesh_path, sibling));
}

TEST(UrdfMeshes, PackageFallsBackToTheUrdfFolder) {
  // pybullet's panda writes package://meshes/... for meshes next to the URDF.
  const TempFolder tmp;
  const fs::path mesh = tmp.write("robot/collision/link0.obj", "o\n");
  const fs::path urdf =
      tmp.write("robot/panda.urdf", meshRobot("package://unknown_pkg/collision/link0.obj"));
  EXPECT_TRUE(sameFile(parseUrdfFile(urdf.string()).links[0].visuals[0].geometry.mesh_path, mesh));
}

TEST(UrdfMeshes, UnresolvedPackageLeavesThePathEmptyWithAWarning) {
  const TempFolder tmp;
  const RobotDescription d =
      parse(meshRobot("package://no_such_pkg/meshes/part.stl"), tmp.path().string());
  EXPECT_EQ(d.links[0].visuals[0].geometry.mesh_path, "");
  EXPECT_TRUE(hasWarning(d.warnings, {"test.urdf:2:", "<link> 'base'",
                                      "package://no_such_pkg/meshes/part.stl", "not found"}));
}

// ---------------------------------------------------------------------------------------------
// World, robot attributes, skipped tags, trailing bytes

TEST(UrdfDocument, UndeclaredWorldIsNotALink) {
  const RobotDescription d = parse(robot(R"(<link name="base"/>
<joint name="weld" type="fixed"><parent link="world"/><child link="base"/></joint>)"));
  ASSERT_EQ(d.links.size(), 1u);
  EXPECT_EQ(d.links[0].name, "base");
  ASSERT_EQ(d.joints.size(), 1u);
  EXPECT_EQ(d.joints[0].parent, "world");
  EXPECT_EQ(d.findLink("world"), -1);
}

TEST(UrdfDocument, DeclaredWorldIsNotALink) {
  const RobotDescription d = parse(robot(R"(<link name="world"/>
<link name="pendulum">)" + kInertial + R"(</link>
<joint name="hinge" type="continuous"><parent link="world"/><child link="pendulum"/></joint>)"));
  ASSERT_EQ(d.links.size(), 1u);
  EXPECT_EQ(d.links[0].name, "pendulum");
  EXPECT_EQ(d.links[0].source_line, 3);
  EXPECT_EQ(d.joints[0].parent, "world");
  EXPECT_TRUE(d.warnings.empty());
}

TEST(UrdfDocument, NameAndSource) {
  const RobotDescription d = parse(robot("<link name=\"a\"/>"));
  EXPECT_EQ(d.name, "test_robot");
  EXPECT_EQ(d.source, "test.urdf");
  const RobotDescription f = parseUrdfFile(modelPath("cartpole/cartpole.urdf"));
  EXPECT_EQ(f.source, modelPath("cartpole/cartpole.urdf"));
  EXPECT_EQ(f.name, "physics");
}

TEST(UrdfDocument, UnknownTagsAreSkippedSilently) {
  const RobotDescription d = parse(R"(<?xml version="1.0"?>
<robot name="r" xmlns="https://drake.mit.edu" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <!-- a comment -->
  <gazebo reference="base"><material>Gazebo/Grey</material></gazebo>
  <link name="base">
    <contact><lateral_friction value="1.0"/></contact>
    <inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <self_collision_checking><geometry><cone/></geometry></self_collision_checking>
  </link>
  <link name="arm"/>
  <joint name="j" type="revolute">
    <parent link="base"/><child link="arm"/>
    <safety_controller k_position="100.0" soft_lower_limit="-2.8973"/>
    <calibration rising="0.0"/>
    <joint_properties damping="0.0" friction="0.0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
  <transmission type="SimpleTransmission" name="t"><joint name="j"/></transmission>
  <frame name="hand" link="arm" xyz="0 0 -2.1" rpy="0 0 0"/>
  <sensor name="cam"/>
</robot>)");
  EXPECT_EQ(d.links.size(), 2u);
  EXPECT_EQ(d.joints.size(), 1u);
  EXPECT_TRUE(d.warnings.empty());
}

TEST(UrdfDocument, TrailingNulAndWhitespaceAreIgnored) {
  // Bullet's humanoid.urdf ends with "</robot>\r\n\0".
  const std::string xml = robot("<link name=\"a\"/>") + std::string("\r\n\0\0 \n", 6);
  ASSERT_EQ(xml[xml.size() - 3], '\0');
  const RobotDescription d = parse(xml);
  EXPECT_EQ(d.links.size(), 1u);
}

TEST(UrdfDocument, NulInsideTheDocumentIsAnError) {
  const std::string xml = "<robot name=\"r\">\n<link name=\"a\"/>" + std::string("\0", 1) +
                          "\n<link name=\"b\"/>\n</robot>\n";
  EXPECT_TRUE(throwsUrdfError([&] { parse(xml); }, {"test.urdf:2:", "NUL"}));
}

TEST(UrdfDocument, NumberForms) {
  // Numbers as written in the shipped models: "0.", ".8", "+3", exponents, extra whitespace.
  const RobotDescription d = parse(twoLinks("revolute", R"(
    <origin xyz="  0.  .8	 1e-3 " rpy="+0 -0. 2E+0"/>
    <limit lower="-3." upper="+3" effort="1e3" velocity=" 5 "/>)"));
  const JointDescription& j = d.joints[0];
  EXPECT_TRUE(matricesNear(j.X_PJ.translation(), Vector3(0.0, 0.8, 1e-3), 0.0));
  EXPECT_TRUE(matricesNear(j.X_PJ.rotation(), rotZ(2.0), 1e-15));
  EXPECT_EQ(j.limits.lower, -3.0);
  EXPECT_EQ(j.limits.upper, 3.0);
  EXPECT_EQ(j.limits.effort, 1000.0);
  EXPECT_EQ(j.limits.velocity, 5.0);
}

// ---------------------------------------------------------------------------------------------
// Materials

TEST(UrdfMaterials, NamedInlineAndUndefined) {
  const RobotDescription d = parse(robot(R"(<link name="a">
    <visual><geometry><sphere radius="1"/></geometry><material name="Blue"/></visual>
    <visual><geometry><sphere radius="1"/></geometry>
      <material name="panda_white"><color rgba="1. 1. 1. 1."/></material></visual>
    <visual><geometry><sphere radius="1"/></geometry>
      <material><color rgba="0 0.5 0 1"/></material></visual>
    <collision><geometry><sphere radius="1"/></geometry>
      <material name="undefined_but_ignored"/></collision>
  </link>
  <link name="b">
    <visual><geometry><sphere radius="1"/></geometry><material name="panda_white"/></visual>
    <visual><geometry><sphere radius="1"/></geometry><material name="Red"/></visual>
  </link>
  <material name="Blue"><color rgba="0.28 0.52 0.92 1.0"/></material>)"));
  const LinkDescription& a = d.links[0];
  const LinkDescription& b = d.links[1];
  // A top-level material may come after its use.
  ASSERT_TRUE(a.visuals[0].rgba.has_value());
  EXPECT_TRUE(matricesNear(*a.visuals[0].rgba, Eigen::Vector4d(0.28, 0.52, 0.92, 1.0), 0.0));
  ASSERT_TRUE(a.visuals[1].rgba.has_value());
  EXPECT_TRUE(matricesNear(*a.visuals[1].rgba, Eigen::Vector4d(1, 1, 1, 1), 0.0));
  ASSERT_TRUE(a.visuals[2].rgba.has_value());
  EXPECT_TRUE(matricesNear(*a.visuals[2].rgba, Eigen::Vector4d(0, 0.5, 0, 1), 0.0));
  EXPECT_FALSE(a.collisions[0].rgba.has_value());
  // A named inline material is remembered for later visuals.
  ASSERT_TRUE(b.visuals[0].rgba.has_value());
  EXPECT_TRUE(matricesNear(*b.visuals[0].rgba, Eigen::Vector4d(1, 1, 1, 1), 0.0));
  // An undefined name leaves the colour empty and warns (pendulum5's 'Red').
  EXPECT_FALSE(b.visuals[1].rgba.has_value());
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_TRUE(hasWarning(d.warnings, {"test.urdf:13:", "<link> 'b'", "'Red'", "not defined"}));
}

// ---------------------------------------------------------------------------------------------
// Errors in inline documents: the message names the source, line, element and what is wrong.

TEST(UrdfErrors, MalformedNumbers) {
  struct Case {
    std::string origin;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases = {
      {R"(<origin xyz="abc 0 0"/>)", {"\"abc\" is not a number"}},
      {R"(<origin xyz="1 2"/>)", {"xyz=\"1 2\"", "expected 3 numbers, found 2"}},
      {R"(<origin xyz="1 2 3 4"/>)", {"expected 3 numbers, found 4"}},
      {R"(<origin xyz="1 2 3kg"/>)", {"\"3kg\" is not a number"}},
      {R"(<origin xyz="1,2,3"/>)", {"\"1,2,3\" is not a number"}},
      {R"(<origin xyz=""/>)", {"expected 3 numbers, found 0"}},
      {R"(<origin rpy="0 0 0x10"/>)", {"\"0x10\" is not a number"}},
      {R"(<origin xyz="0 0 nan"/>)", {"\"nan\" is not finite"}},
      {R"(<origin rpy="inf 0 0"/>)", {"\"inf\" is not finite"}},
      {R"(<origin rpy="0 -Infinity 0"/>)", {"\"-Infinity\" is not finite"}},
      {R"(<origin xyz="0 0 1e999"/>)", {"\"1e999\" is out of range"}},
  };
  for (const Case& c : cases) {
    std::vector<std::string> parts = c.parts;
    parts.insert(parts.end(), {"test.urdf:6:", "<joint> 'j'", "<origin>"});
    EXPECT_TRUE(throwsUrdfError([&] { parse(twoLinks("continuous", c.origin)); }, parts))
        << c.origin;
  }
}

TEST(UrdfErrors, NonFiniteValuesAnywhere) {
  EXPECT_TRUE(throwsUrdfError(
      [] {
        parse(robot(R"(<link name="a"><inertial><mass value="NaN"/>
          <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>)"));
      },
      {"test.urdf:2:", "<link> 'a'", "<mass> value=\"NaN\"", "not finite"}));
  EXPECT_TRUE(throwsUrdfError(
      [] {
        parse(robot(R"(<link name="a"><inertial><mass value="1"/>
          <inertia ixx="1" ixy="0" ixz="0" iyy="inf" iyz="0" izz="1"/></inertial></link>)"));
      },
      {"test.urdf:3:", "<inertia> iyy=\"inf\"", "not finite"}));
  EXPECT_TRUE(
      throwsUrdfError([] { parse(twoLinks("prismatic", R"(<limit lower="0" upper="inf"/>)")); },
                      {"test.urdf:6:", "<joint> 'j'", "<limit> upper=\"inf\"", "not finite"}));
  EXPECT_TRUE(throwsUrdfError([] { parse(twoLinks("continuous", R"(<dynamics damping="nan"/>)")); },
                              {"<dynamics> damping=\"nan\"", "not finite"}));
  EXPECT_TRUE(throwsUrdfError(
      [] {
        parse(robot(R"(<link name="a"><visual><geometry><box size="1 nan 1"/></geometry>
          </visual></link>)"));
      },
      {"test.urdf:2:", "<box> size=\"1 nan 1\"", "not finite"}));
  EXPECT_TRUE(throwsUrdfError(
      [] {
        parse(robot(R"(<link name="a"><visual><geometry><sphere radius="1"/></geometry>
          <material name="m"><color rgba="1 inf 1 1"/></material></visual></link>)"));
      },
      {"test.urdf:3:", "<color> rgba=\"1 inf 1 1\"", "not finite"}));
}

TEST(UrdfErrors, MissingAttributes) {
  struct Case {
    std::string xml;
    std::vector<std::string> parts;
  };
  const std::string joint_start = R"(<link name="a"/><link name="b"/>)";
  const std::vector<Case> cases = {
      {robot("<link/>"), {"test.urdf:2:", "<link>: missing attribute \"name\""}},
      {robot(joint_start + R"(<joint type="fixed"><parent link="a"/><child link="b"/></joint>)"),
       {"<joint>: missing attribute \"name\""}},
      {robot(joint_start + R"(<joint name="j"><parent link="a"/><child link="b"/></joint>)"),
       {"<joint> 'j': missing attribute \"type\""}},
      {robot(joint_start + R"(<joint name="j" type="fixed"><parent/><child link="b"/></joint>)"),
       {"<joint> 'j': <parent>: missing attribute \"link\""}},
      {robot(joint_start + R"(<joint name="j" type="fixed"><parent link="a"/></joint>)"),
       {"<joint> 'j': missing <child>"}},
      {robot(R"(<link name="a"><inertial><mass/>
           <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>)"),
       {"<link> 'a': <mass>: missing attribute \"value\""}},
      {robot(R"(<link name="a"><inertial><mass value="1"/>
           <inertia ixx="1" ixy="0" iyy="1" iyz="0" izz="1"/></inertial></link>)"),
       {"test.urdf:3:", "<link> 'a': <inertia>: missing attribute \"ixz\""}},
      {robot(R"(<link name="a"><inertial><mass value="1"/></inertial></link>)"),
       {"<link> 'a': <inertial> has no <inertia>"}},
      {robot(R"(<link name="a"><visual><geometry><box/></geometry></visual></link>)"),
       {"<link> 'a': <box>: missing attribute \"size\""}},
      {robot(R"(<link name="a"><visual><geometry><sphere/></geometry></visual></link>)"),
       {"<sphere>: missing attribute \"radius\""}},
      {robot(
           R"(<link name="a"><visual><geometry><cylinder radius="1"/></geometry></visual></link>)"),
       {"<cylinder>: missing attribute \"length\""}},
      {robot(R"(<link name="a"><collision><geometry><capsule length="1"/></geometry>)"
             R"(</collision></link>)"),
       {"<capsule>: missing attribute \"radius\""}},
      {robot(
           R"(<link name="a"><visual><geometry><mesh scale="1 1 1"/></geometry></visual></link>)"),
       {"<mesh>: missing attribute \"filename\""}},
      {robot(R"(<link name="a"><visual><origin xyz="0 0 0"/></visual></link>)"),
       {"<link> 'a': <visual> has no <geometry>"}},
      {robot(R"(<link name="a"><collision><geometry></geometry></collision></link>)"),
       {"<link> 'a': <geometry> has no shape"}},
      {robot(R"(<material><color rgba="1 1 1 1"/></material>)"),
       {"<material>: missing attribute \"name\""}},
  };
  for (const Case& c : cases) {
    EXPECT_TRUE(throwsUrdfError([&] { parse(c.xml); }, c.parts)) << c.xml;
  }
}

TEST(UrdfErrors, NegativeSizes) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"(<box size="1 -2 3"/>)", "<box> size=\"1 -2 3\": sizes must not be negative"},
      {R"(<sphere radius="-1"/>)", "<sphere> radius=\"-1\": must not be negative"},
      {R"(<cylinder radius="1" length="-0.5"/>)", "<cylinder> length=\"-0.5\""},
      {R"(<capsule radius="-0.2" length="1"/>)", "<capsule> radius=\"-0.2\""},
  };
  for (const auto& [shape, part] : cases) {
    const std::string xml =
        robot("<link name=\"a\"><collision><geometry>" + shape + "</geometry></collision></link>");
    EXPECT_TRUE(throwsUrdfError([&] { parse(xml); }, {"test.urdf:2:", "<link> 'a'", part}))
        << shape;
  }
}

TEST(UrdfErrors, JointTypesAxesAndSwingSpans) {
  EXPECT_TRUE(throwsUrdfError([] { parse(twoLinks("hinge", "")); },
                              {"test.urdf:4:", "<joint> 'j'", "unknown joint type \"hinge\""}));
  EXPECT_TRUE(throwsUrdfError([] { parse(twoLinks("planar", "<axis xyz=\"0 0 0\"/>")); },
                              {"test.urdf:6:", "<joint> 'j'", "<axis> xyz=\"0 0 0\"", "zero"}));
  EXPECT_TRUE(throwsUrdfError([] { parse(twoLinks("continuous", "<axis xyz=\"0 0 0\"/>")); },
                              {"test.urdf:6:", "<joint> 'j'", "<axis> xyz=\"0 0 0\"", "zero"}));
  EXPECT_TRUE(
      throwsUrdfError([] { parse(twoLinks("spherical", "<limit upper=\"-0.5\" twist=\"0.1\"/>")); },
                      {"<joint> 'j'", "<limit> upper=\"-0.5\"", "negative"}));
  EXPECT_TRUE(
      throwsUrdfError([] { parse(twoLinks("spherical", "<limit upper=\"0.5\" twist=\"-0.1\"/>")); },
                      {"<joint> 'j'", "<limit> twist=\"-0.1\"", "negative"}));
}

TEST(UrdfErrors, UnreadableFiles) {
  const std::string missing = dataPath("urdf/does_not_exist.urdf");
  EXPECT_TRUE(throwsUrdfError([&] { parseUrdfFile(missing); },
                              {missing, "cannot read file", "No such file or directory"}));
  EXPECT_TRUE(throwsUrdfError([&] { loadUrdf(missing); }, {missing, "cannot read file"}));
  const std::string folder = dataPath("urdf");
  EXPECT_TRUE(throwsUrdfError([&] { parseUrdfFile(folder); }, {folder, "cannot read file"}));
}

TEST(UrdfErrors, EmptyDocument) {
  EXPECT_TRUE(
      throwsUrdfError([] { parse(""); }, {"test.urdf:1:", "not a valid XML document (empty)"}));
  EXPECT_TRUE(throwsUrdfError([] { parse(std::string("\0", 1)); }, {"test.urdf:"}));
}

// ---------------------------------------------------------------------------------------------
// One broken file per error (tests/data/urdf). Parse errors are UrdfErrors from parseUrdfFile;
// topology and inertia errors are ModelErrors (not UrdfErrors) from buildModel, via loadUrdf.

TEST(UrdfFiles, ParseErrorsNameFileLineElementAndProblem) {
  struct Case {
    std::string file;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases = {
      {"no_root.urdf", {"no_root.urdf:3:", "root element is <model>", "expected <robot>"}},
      {"malformed_xml.urdf",
       {"malformed_xml.urdf:4:", "not a valid XML document", "end tag", "link"}},
      {"nan_number.urdf",
       {"nan_number.urdf:13:", "<joint> 'shoulder'", "<origin> xyz=\"0 nan 0.5\"", "not finite"}},
      {"malformed_number.urdf",
       {"malformed_number.urdf:8:", "<link> 'arm'", "<mass> value=\"1.5kg\"",
        "\"1.5kg\" is not a number"}},
      {"unknown_joint_type.urdf",
       {"unknown_joint_type.urdf:10:", "<joint> 'elbow'", "unknown joint type \"hinge\""}},
      {"missing_attribute.urdf",
       {"missing_attribute.urdf:12:", "<joint> 'shoulder'", "<child>",
        "missing attribute \"link\""}},
      {"zero_axis.urdf",
       {"zero_axis.urdf:13:", "<joint> 'slider'", "<axis> xyz=\"0 0 0\"", "zero axis"}},
      {"unknown_geometry.urdf",
       {"unknown_geometry.urdf:7:", "<link> 'base'", "unknown geometry <cone>"}},
      {"negative_size.urdf",
       {"negative_size.urdf:7:", "<link> 'base'", "<cylinder> radius=\"-0.1\"", "negative"}},
  };
  for (const Case& c : cases) {
    const std::string path = dataPath("urdf/" + c.file);
    EXPECT_TRUE(throwsUrdfError([&] { parseUrdfFile(path); }, c.parts)) << c.file;
    EXPECT_TRUE(throwsUrdfError([&] { loadUrdf(path); }, c.parts)) << c.file;
  }
}

TEST(UrdfFiles, ModelErrorsNameFileElementAndProblem) {
  struct Case {
    std::string file;
    std::vector<std::string> parts;
    std::vector<std::string> any_of;  // the message names at least one of these
  };
  const std::vector<Case> cases = {
      {"loop_below_root.urdf",
       {"loop_below_root.urdf:", "loop"},
       {"'link_a'", "'link_b'", "'a_to_b'", "'b_to_a'"}},
      {"two_parents.urdf",
       {"two_parents.urdf:", "'tip'", "two parents", "'middle_to_tip'", "'base_to_tip'"},
       {}},
      {"missing_link.urdf", {"missing_link.urdf:7:", "'elbow'", "'forearm'", "does not exist"}, {}},
      {"duplicate_link.urdf", {"duplicate_link.urdf:10:", "duplicate", "'arm'"}, {}},
      {"duplicate_joint.urdf", {"duplicate_joint.urdf:17:", "duplicate", "'shoulder'"}, {}},
      {"several_roots.urdf", {"several_roots.urdf:", "roots", "'base'", "'loose'"}, {}},
      {"negative_mass.urdf", {"negative_mass.urdf:7:", "'arm'", "negative mass"}, {}},
      {"inertia_not_psd.urdf",
       {"inertia_not_psd.urdf:7:", "'arm'", "not positive semi-definite"},
       {}},
  };
  for (const Case& c : cases) {
    const std::string path = dataPath("urdf/" + c.file);
    // The file itself is well-formed URDF: only buildModel can reject it.
    EXPECT_EQ(thrownBy([&] { parseUrdfFile(path); }).kind, Thrown::Kind::Nothing) << c.file;
    EXPECT_TRUE(throwsModelError([&] { loadUrdf(path); }, c.parts, c.any_of)) << c.file;
  }
}

TEST(UrdfFiles, LoopWithoutARootNamesALinkOrJointOfTheLoop) {
  // Every link is a joint's child, so there is no root to start from; model.hpp's buildModel
  // promises a ModelError naming the link or joint.
  const std::string path = dataPath("urdf/loop.urdf");
  EXPECT_EQ(thrownBy([&] { parseUrdfFile(path); }).kind, Thrown::Kind::Nothing);
  EXPECT_TRUE(throwsModelError([&] { loadUrdf(path); }, {"loop.urdf:", "loop"},
                               {"'link_a'", "'link_b'", "'a_to_b'", "'b_to_a'"}));
}

TEST(UrdfFiles, TriangleInequalityOnlyWarns) {
  // TwoJointRobot's box links link_1 and link_2 have principal moments (0.000913, 0.167169,
  // 0.169418) kg m^2: 0.000913 + 0.167169 < 0.169418. The parser does not judge inertias.
  const std::string path = modelPath("two_joint_robot/TwoJointRobot_w_fixedJoints.urdf");
  EXPECT_TRUE(parseUrdfFile(path).warnings.empty());
  const Model model = loadUrdf(path);
  const std::vector<std::string>& warnings = model.description->warnings;
  EXPECT_EQ(warnings.size(), 2u);
  EXPECT_TRUE(hasWarning(
      warnings, {"TwoJointRobot_w_fixedJoints.urdf:107:", "'link_1'", "triangle inequality"}));
  EXPECT_TRUE(hasWarning(
      warnings, {"TwoJointRobot_w_fixedJoints.urdf:126:", "'link_2'", "triangle inequality"}));
}

TEST(UrdfFiles, LoadUrdfIsParseThenBuild) {
  const std::string path = modelPath("kuka_iiwa/model.urdf");
  ModelOptions options;
  options.floating_base = true;
  const Model a = loadUrdf(path, options);
  const Model b = buildModel(parseUrdfFile(path), options);
  EXPECT_EQ(a.nq, b.nq);
  EXPECT_EQ(a.nv, b.nv);
  EXPECT_EQ(a.link_names, b.link_names);
  EXPECT_EQ(a.description->source, path);
}

}  // namespace
}  // namespace gcbridge
