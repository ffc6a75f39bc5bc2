// Writes the pages the browser test renders, with the library as a user would:
//   write_viewer_pages DIR MODELS_DIR
// DIR/iiwa.html: the KUKA iiwa (its meshes) at a configuration, joint frames and names on.
// DIR/pendulum.html: a 2 s recording at 60 frames per second of a pendulum swinging up to 1 rad at
// t = 1 s, two tracks (the model solid, a ghost 0.5 s behind).

#include <cmath>
#include <iostream>
#include <string>

#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "gcbridge/viewer/html_viewer.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: write_viewer_pages DIR MODELS_DIR\n";
    return 2;
  }
  const std::string dir = argv[1], models = argv[2];
  try {
    using gcbridge::viewer::Recorder;
    using gcbridge::viewer::TrackStyle;
    const gcbridge::Model iiwa = gcbridge::loadUrdf(models + "/kuka_iiwa/model.urdf");
    Recorder still(iiwa);
    const int pose = still.addTrack("iiwa", TrackStyle::Solid);
    still.beginFrame(0.0);
    Eigen::VectorXd q(7);
    q << 0.3, 0.6, -0.2, -1.1, 0.4, 0.8, 0.0;
    still.setConfiguration(pose, q);
    gcbridge::viewer::ViewerOptions options;
    options.title = "iiwa";
    options.joint_frames = true;
    gcbridge::viewer::writeViewer(dir + "/iiwa.html", still, options);

    gcbridge::ModelBuilder builder("pendulum");
    gcbridge::LinkDescription bob;
    bob.name = "bob";
    bob.mass = 1.0;
    bob.p_LoLcm_L = gcbridge::Vector3(0, 0, -0.5);
    bob.I_Lcm_L = 0.01 * gcbridge::Matrix3::Identity();
    gcbridge::GeometryInstance sphere;
    sphere.X_LG = gcbridge::Transform(gcbridge::Matrix3::Identity(), gcbridge::Vector3(0, 0, -0.5));
    sphere.geometry.type = gcbridge::Geometry::Type::Sphere;
    sphere.geometry.radius = 0.08;
    sphere.rgba = Eigen::Vector4d(0.8, 0.2, 0.2, 1.0);
    gcbridge::GeometryInstance rod;
    rod.X_LG = gcbridge::Transform(gcbridge::Matrix3::Identity(), gcbridge::Vector3(0, 0, -0.25));
    rod.geometry.type = gcbridge::Geometry::Type::Cylinder;
    rod.geometry.radius = 0.01;
    rod.geometry.length = 0.5;
    bob.visuals = {sphere, rod};
    builder.addLink(bob);
    builder.addRevolute(
        "hinge", "world", "bob",
        gcbridge::Transform(gcbridge::Matrix3::Identity(), gcbridge::Vector3(0, 0, 1)),
        gcbridge::Vector3::UnitY());
    const gcbridge::Model pendulum = builder.build();
    Recorder run(pendulum, 60.0);
    const int swing = run.addTrack("pendulum", TrackStyle::Solid);
    const int behind = run.addTrack("0.5 s behind", TrackStyle::Ghost);
    for (int step = 0; step <= 480; ++step) {
      const double t = step / 240.0;
      if (!run.due(t)) continue;
      run.beginFrame(t);
      run.setConfiguration(swing, Eigen::VectorXd::Constant(1, std::sin(0.5 * M_PI * t)));
      run.setConfiguration(behind, Eigen::VectorXd::Constant(1, std::sin(0.5 * M_PI * (t - 0.5))));
    }
    options.title = "pendulum";
    options.joint_frames = false;
    gcbridge::viewer::writeViewer(dir + "/pendulum.html", run, options);
  } catch (const std::exception& e) {
    std::cerr << "write_viewer_pages: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
