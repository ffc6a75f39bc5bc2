// iiwa_kinematics: forward kinematics and the end-effector Jacobian of the KUKA LBR iiwa.
//
// Shows the basic gcbridge workflow: load a URDF into a Model, make a Data for it, run
// forwardKinematics at a configuration q, then read every link's world pose (Data::X_WB) and
// centre of mass (Data::p_WBcm), the end-effector pose, its 6 x nv Jacobian in LocalWorldAligned
// coordinates (world axes, about the end-effector origin, angular rows first) and the centre of
// mass of the whole robot. The end effector is the last model link.
//
// Run with --help for the options; `make demo` runs it on the repository's iiwa model.

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/arguments.hpp"
#include "demo_cli.hpp"
#include "gcbridge/dynamics.hpp"

namespace {

constexpr const char* kHelp = R"(Usage: gcbridge-iiwa-kinematics [--model PATH] [--q "q1,q2,..."]

Loads a robot (by default the KUKA LBR iiwa of the shipped models), evaluates its
forward kinematics at q and prints: the model summary; every link's world position, orientation
(URDF roll-pitch-yaw) and centre of mass; the end-effector (last link) pose and its 6 x nv
Jacobian in LocalWorldAligned coordinates; the centre of mass of the whole robot.

Options:
  --model PATH   URDF file to load (default: the shipped kuka_iiwa/model.urdf, from
                 <prefix>/share/gcbridge/models when installed)
  --q LIST       comma-separated joint positions, nq values [rad, m, quaternions x,y,z,w].
                 Default: the k-th revolute or prismatic joint at 0.1 (k + 1) rad or m (clamped
                 to its limits), every other joint at its neutral position
  -h, --help     print this help
)";

/// The command line.
struct Options {
  std::string model_path = gcbridge::demo::shippedModel("kuka_iiwa/model.urdf");
  std::string q_text;  ///< "" for the default configuration
  bool help = false;
};

using gcbridge::cli::UsageError;

/// The options. @throws UsageError for an unknown argument or a missing value.
Options parseOptions(int argc, char** argv) {
  Options options;
  gcbridge::cli::ArgumentReader args(argc, argv, "");
  while (args.next()) {
    if (args.is("-h") || args.is("--help")) {
      args.checkFlag();
      options.help = true;
    } else if (args.is("--model")) {
      options.model_path = args.value();
    } else if (args.is("--q")) {
      options.q_text = args.value();
    } else {
      throw args.unknown();
    }
  }
  return options;
}

/// Parses "a,b,c" into nq numbers. @throws UsageError naming the bad entry or the wrong count.
Eigen::VectorXd parseConfiguration(const std::string& text, int nq) {
  const std::vector<double> values = gcbridge::cli::parseNumberList("--q", text, "");
  if (static_cast<int>(values.size()) != nq) {
    throw UsageError("--q has " + std::to_string(values.size()) +
                     " values, the model has nq = " + std::to_string(nq));
  }
  return Eigen::Map<const Eigen::VectorXd>(values.data(), nq);
}

/// Neutral, with the k-th one-coordinate (revolute or prismatic) joint at 0.1 (k + 1), clamped to
/// its limits.
Eigen::VectorXd sampleConfiguration(const gcbridge::Model& model) {
  Eigen::VectorXd q = gcbridge::neutralConfiguration(model);
  int k = 0;
  for (const gcbridge::Joint& joint : model.joints) {
    if (joint.nq != 1) continue;
    q(joint.idx_q) = std::clamp(0.1 * (k + 1), joint.limits.lower, joint.limits.upper);
    ++k;
  }
  return q;
}

/// URDF roll, pitch, yaw of R = Rz(yaw) Ry(pitch) Rx(roll) [rad]; at pitch = +-pi/2 roll is 0.
gcbridge::Vector3 rpyFromRotation(const gcbridge::Matrix3& R) {
  const double pitch = std::asin(std::clamp(-R(2, 0), -1.0, 1.0));
  if (std::abs(R(2, 0)) > 1.0 - 1e-12) {
    return gcbridge::Vector3(0.0, pitch, std::atan2(-R(0, 1), R(1, 1)));
  }
  return gcbridge::Vector3(std::atan2(R(2, 1), R(2, 2)), pitch, std::atan2(R(1, 0), R(0, 0)));
}

/// Width of the widest link name (joints: false) or joint name (joints: true), for columns.
int nameWidth(const gcbridge::Model& model, bool joints = false) {
  size_t width = 5;
  for (int k = 0; k < model.numLinks(); ++k) {
    width = std::max(width, (joints ? model.joints[k].name : model.link_names[k]).size());
  }
  return static_cast<int>(width);
}

/// x for a table printed with 4 decimals, without "-0.0000" for round-off around zero.
double shown(double x) { return std::abs(x) < 5e-5 ? 0.0 : x; }

/// Name, sizes and mass, then one row per link with its joint and q, v indices.
void printModelSummary(const gcbridge::Model& model) {
  const int w = nameWidth(model);
  const int wj = nameWidth(model, true);
  std::printf("model %s (%s)\n", model.name.c_str(), model.description->source.c_str());
  std::printf("nq = %d, nv = %d, %d links, total mass %.3f kg, %s base\n\n", model.nq, model.nv,
              model.numLinks(), model.totalMass(), model.floating_base ? "floating" : "fixed");
  // One row per link with the joint that attaches it to its parent.
  std::printf("%3s  %-*s  %-*s  %-17s  %5s  %5s  %9s\n", "#", w, "link", wj, "joint", "type", "q",
              "v", "mass [kg]");
  for (int k = 0; k < model.numLinks(); ++k) {
    const gcbridge::Joint& joint = model.joints[k];
    std::string type = gcbridge::toString(joint.type);
    if (joint.type == gcbridge::JointType::Ball) {
      type += std::string(" (") + gcbridge::toString(joint.ball) + ")";
    }
    const std::string q = joint.nq == 0 ? "-" : std::to_string(joint.idx_q);
    const std::string v = joint.nv == 0 ? "-" : std::to_string(joint.idx_v);
    std::printf("%3d  %-*s  %-*s  %-17s  %5s  %5s  %9.3f\n", k, w, model.link_names[k].c_str(), wj,
                joint.name.c_str(), type.c_str(), q.c_str(), v.c_str(), model.inertias[k].mass());
  }
  std::printf("(q, v: first index of the joint's coordinates in q and v)\n");
}

/// Every link's world pose and COM. @pre forwardKinematics ran.
void printLinkPoses(const gcbridge::Model& model, const gcbridge::Data& data) {
  const int w = nameWidth(model);
  std::printf(
      "\nlinks in the world frame W: origin p_WB [m], orientation R_WB as URDF "
      "roll-pitch-yaw [rad], centre of mass p_WBcm [m]\n");
  std::printf("%3s  %-*s  %8s %8s %8s   %8s %8s %8s   %8s %8s %8s\n", "#", w, "link", "x", "y", "z",
              "roll", "pitch", "yaw", "com x", "com y", "com z");
  for (int k = 0; k < model.numLinks(); ++k) {
    const gcbridge::Vector3& p_WB = data.X_WB[k].translation();
    const gcbridge::Vector3 rpy = rpyFromRotation(data.X_WB[k].rotation());
    const gcbridge::Vector3& p_WBcm = data.p_WBcm[k];
    std::printf("%3d  %-*s  %8.4f %8.4f %8.4f   %8.4f %8.4f %8.4f   %8.4f %8.4f %8.4f\n", k, w,
                model.link_names[k].c_str(), shown(p_WB.x()), shown(p_WB.y()), shown(p_WB.z()),
                shown(rpy.x()), shown(rpy.y()), shown(rpy.z()), shown(p_WBcm.x()),
                shown(p_WBcm.y()), shown(p_WBcm.z()));
  }
}

/// Pose of link `ee` in the world. @pre forwardKinematics ran.
void printEndEffector(const gcbridge::Model& model, const gcbridge::Data& data, int ee) {
  const gcbridge::Transform& X_WE = data.X_WB[ee];
  const gcbridge::Vector3& p = X_WE.translation();
  const gcbridge::Matrix3& R = X_WE.rotation();
  const gcbridge::Quaternion quat(R);
  std::printf("\nend effector E = link %d '%s'\n", ee, model.link_names[ee].c_str());
  std::printf("  position p_WE [m]          (%.4f, %.4f, %.4f)\n", shown(p.x()), shown(p.y()),
              shown(p.z()));
  std::printf("  quaternion R_WE (x,y,z,w)  (%.4f, %.4f, %.4f, %.4f)\n", shown(quat.x()),
              shown(quat.y()), shown(quat.z()), shown(quat.w()));
  for (int i = 0; i < 3; ++i) {
    std::printf("%-29s[%8.4f %8.4f %8.4f]\n", i == 0 ? "  rotation matrix R_WE" : "",
                shown(R(i, 0)), shown(R(i, 1)), shown(R(i, 2)));
  }
}

/// The 6 x nv end-effector Jacobian with labelled rows and columns.
void printJacobian(const gcbridge::Model& model, const Eigen::MatrixXd& J) {
  std::printf(
      "\nend-effector Jacobian J (6 x %d), LocalWorldAligned: (omega_E [rad/s], "
      "v_Eo [m/s]) in world axes = J v\n",
      model.nv);
  std::printf("%-18s", "row \\ column");
  for (int j = 0; j < model.nv; ++j) std::printf(" %8s", ("v" + std::to_string(j)).c_str());
  std::printf("\n");
  constexpr const char* kRows[6] = {"omega_x [1]", "omega_y [1]", "omega_z [1]",
                                    "v_x [m/rad]", "v_y [m/rad]", "v_z [m/rad]"};
  for (int i = 0; i < 6; ++i) {
    std::printf("%-18s", kRows[i]);
    for (int j = 0; j < model.nv; ++j) std::printf(" %8.4f", shown(J(i, j)));
    std::printf("\n");
  }
  std::printf("(per unit of revolute joint velocity; prismatic columns are per m/s)\n");
}

/// Loads the model, evaluates it at q and prints everything. @return the exit code.
int run(const Options& options) {
  // Model and workspace.
  const gcbridge::Model model = gcbridge::loadUrdf(options.model_path);
  gcbridge::Data data(model);
  for (const std::string& w : model.description->warnings) {
    std::fprintf(stderr, "iiwa_kinematics: warning: %s\n", w.c_str());
  }
  const Eigen::VectorXd q = options.q_text.empty() ? sampleConfiguration(model)
                                                   : parseConfiguration(options.q_text, model.nq);
  printModelSummary(model);
  std::printf("\nconfiguration q (%s):", options.q_text.empty() ? "default sample" : "--q");
  for (int i = 0; i < model.nq; ++i) std::printf(" %.4f", q(i));
  std::printf("\n");

  // Kinematics and Jacobians at q (computeJointJacobians runs forwardKinematics first).
  gcbridge::computeJointJacobians(model, data, q);
  const int ee = model.numLinks() - 1;
  Eigen::MatrixXd J_E(6, model.nv);
  gcbridge::frameJacobian(model, data, ee, gcbridge::Transform::Identity(),
                          gcbridge::ReferenceFrame::LocalWorldAligned, J_E);

  printLinkPoses(model, data);
  printEndEffector(model, data, ee);
  printJacobian(model, J_E);
  const gcbridge::Vector3 p_WCcm = gcbridge::centerOfMass(model, data);
  std::printf("\ncentre of mass of the whole robot p_WCcm [m]  (%.4f, %.4f, %.4f)\n",
              shown(p_WCcm.x()), shown(p_WCcm.y()), shown(p_WCcm.z()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options options = parseOptions(argc, argv);
    if (options.help) {
      std::printf("%s", kHelp);
      return 0;
    }
    return run(options);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "iiwa_kinematics: %s (see --help)\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iiwa_kinematics: %s\n", e.what());
    return 1;
  }
}
