// gcbridge: the command-line tool.
//
// `gcbridge info MODEL.urdf` loads a URDF exactly as gcbridge::loadUrdf does and prints the model
// it becomes: sizes, mass, gravity, every model link with its joint and its slices of q and v, the
// description links merged into other links, and the reader's warnings; as a table or as JSON.
// `gcbridge dynamics MODEL.urdf [--q ..] [--v ..] [--a ..] [--tau ..]` evaluates the equations of
// motion M(q) qdd + C(q, v) v + g(q) = tau at one state: M, h, g, C v, and RNEA / ABA on request.
// `gcbridge compare MODEL.urdf [--scenario ..]` runs the model through Bullet's rigid bodies,
// btMultiBody and gcbridge's integrators and reports how they differ (tools/compare/).
// Exit codes: 0 success, 1 error (unreadable or invalid model, a state the library rejects),
// 2 command-line mistake (including a --q/--v/--a/--tau list that is not numbers or has the wrong
// size for the model).

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <unistd.h>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/config.hpp"
#include "gcbridge/dynamics.hpp"
#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/rnea.hpp"
#include "cli_options.hpp"
#include "compare/compare_command.hpp"

namespace {

using gcbridge::cli::ModelRequest;
using gcbridge::cli::parseModelCommand;
using gcbridge::cli::UsageError;

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

constexpr const char* kMainHelp = R"(gcbridge - inspect robot models as gcbridge builds them, and compare engines

Usage:
  gcbridge info [OPTIONS] MODEL.urdf       print the model built from a URDF file
  gcbridge dynamics [OPTIONS] MODEL.urdf   print M(q), h, g(q), C(q, v) v at a state; tau by
                                           RNEA (--a) and qdd by ABA (--tau)
  gcbridge compare [OPTIONS] MODEL.urdf    run the model through Bullet (rigid bodies,
                                           btMultiBody) and gcbridge's integrators and compare
                                           them: table, CSV files, SVG plots, HTML report
  gcbridge --help                          print this help
  gcbridge --version                       print the version and the Bullet precision

Run 'gcbridge COMMAND --help' (info, dynamics, compare) for the options of a command.
Exit codes: 0 success, 1 error (unreadable or invalid model, a state the library rejects),
2 command-line mistake.
)";

constexpr const char* kInfoHelp = R"(Usage: gcbridge info [OPTIONS] MODEL.urdf

Loads MODEL.urdf and prints the model gcbridge builds from it: name, source file, nq, nv,
number of links, total mass, gravity, base; a table of the model links (index, name, parent,
mass, joint name and type, first-last index in q and v, limits); the description links merged
into another link by fixed joints (their pose in that link); and the reader's warnings, which
are also written to stderr.

Options:
  --floating-base   give the root link a free joint (nq += 7, nv += 6) instead of welding it
                    to the world
  --ball PARAM      how ball joints store their orientation in q: quaternion (default, nq 4),
                    expmap or euler (nq 3)
  --no-merge        keep links attached by fixed joints as separate model links
  --json            print JSON instead of tables: keys name, source, nq, nv, num_links,
                    total_mass, gravity, floating_base, ball_parametrization,
                    merge_fixed_joints, links (each: index, name, parent (null for the world),
                    mass, com, joint {name, type, parametrization (ball only), idx_q, idx_v, nq,
                    nv, axis, limits}), frames (merged links), warnings; infinite limits are null
  -h, --help        print this help
)";

constexpr const char* kDynamicsHelp = R"(Usage: gcbridge dynamics [OPTIONS] MODEL.urdf

Loads MODEL.urdf as 'gcbridge info' does and evaluates the equations of motion
  M(q) qdd + C(q, v) v + g(q) = tau
at one state (q, v). Prints
  M     M(q), the joint-space inertia matrix (crba), nv x nv
  h     h(q, v) = C(q, v) v + g(q), the nonlinear effects (nonLinearEffects)
  g     g(q), the generalized gravity: the joint forces that hold the robot still
        (computeGeneralizedGravity)
  Cqd   C(q, v) v, the Coriolis and centrifugal forces (computeCoriolisTimesV)
  tau   with --a: tau = RNEA(q, v, a) = M a + h, the joint forces that produce a (rnea)
  qdd   with --tau: qdd = ABA(q, v, tau), the accelerations with M qdd + h = tau (aba)
Gravity is the model's, (0, 0, -9.81) m/s^2 in the world frame. Joint damping and friction
are not part of these terms.

State (comma-separated numbers, e.g. --q 0.1,-0.2 or --q=0.1,-0.2):
  --q LIST          joint positions, nq values; default: the neutral configuration (zero
                    angles and displacements, identity quaternions)
  --v LIST          joint velocities, nv values; default: zero
  --a LIST          joint accelerations, nv values; adds tau = RNEA(q, v, a)
  --tau LIST        joint forces, nv values; adds qdd = ABA(q, v, tau)

Layout of q and v per joint ('gcbridge info MODEL.urdf' shows each joint's slices):
  revolute   q: angle [rad]                        v: angle rate [rad/s]
  prismatic  q: displacement [m]                   v: rate [m/s]
  planar     q: x, y in the plane normal to the axis [m], then the angle about it [rad]
             v: their rates [m/s, m/s, rad/s]
  ball       q: --ball quaternion (default): unit quaternion x, y, z, w (4 values);
                --ball expmap: rotation vector [rad]; --ball euler: angles a, b, c with
                R = Rx(a) Ry(b) Rz(c) [rad] (3 values)
             v: quaternion: angular velocity in the child link frame [rad/s];
                expmap, euler: the rates of the 3 coordinates [rad/s]
  free       q: position [m] then unit quaternion x, y, z, w (7 values)
             v: angular velocity [rad/s] then velocity of the child link origin [m/s],
                both in the child link frame (6 values)
  Quaternions are in the order x, y, z, w (identity: 0,0,0,1), as in Eigen and Bullet. A norm
  within 1e-4 of 1 is normalized; any other norm is an error naming the joint.
  Joint forces are in N m for rotational coordinates and N for translational ones;
  accelerations in rad/s^2 and m/s^2.

Model options (as in 'gcbridge info'):
  --floating-base   give the root link a free joint (nq += 7, nv += 6)
  --ball PARAM      ball joints in q as quaternion (default), expmap or euler
  --no-merge        keep links attached by fixed joints as separate model links

Output:
  --json            print JSON instead of tables: keys name, nq, nv, inputs {q, v, a (with
                    --a), tau (with --tau)}, M (array of nv rows), h, g, Cqd, tau (only with
                    --a), qdd (only with --tau); numbers in their shortest exact form
  -h, --help        print this help
The tables round to 6 significant digits and show as 0 the entries smaller than 1e-10 times
the largest entry of their matrix or vector (round-off); use --json for the exact values.

Exit codes: 0 success; 1 error: unreadable or invalid model, or a state the library rejects
(e.g. a quaternion that is not unit; the message names the joint); 2 command-line mistake,
including a list entry that is not a number, is NaN or infinite, and a list with the wrong
number of values for the model ("--q has 6 values, the model needs nq = 7").
)";

/// What `gcbridge info` was asked to do.
using InfoRequest = ModelRequest;

/// The arguments after `info`. @throws UsageError for an unknown option or a missing value or file.
InfoRequest parseInfoArguments(const std::vector<std::string>& args) {
  InfoRequest request;
  parseModelCommand(args, "info", request,
                    [](const std::vector<std::string>&, size_t&) { return false; });
  return request;
}

/// What `gcbridge dynamics` was asked to do. The state lists are as given (sizes unchecked);
/// an absent --q means the neutral configuration, an absent --v zero.
struct DynamicsRequest : ModelRequest {
  std::optional<std::vector<double>> q;    ///< --q: positions (nq)
  std::optional<std::vector<double>> v;    ///< --v: velocities (nv)
  std::optional<std::vector<double>> a;    ///< --a: accelerations for RNEA (nv)
  std::optional<std::vector<double>> tau;  ///< --tau: joint forces for ABA (nv)
};

/// The arguments after `dynamics`. @throws UsageError for an unknown or repeated option, a
/// missing value or file, or a state list that is not finite numbers.
DynamicsRequest parseDynamicsArguments(const std::vector<std::string>& args) {
  DynamicsRequest request;
  const auto usage = [](const std::string& message) {
    return UsageError(message, "gcbridge dynamics --help");
  };
  // The state option named by arg ("--q" or "--q=..."), if any, and where its list goes.
  using StateList = std::optional<std::vector<double>>;
  const auto stateOption =
      [&request](const std::string& arg) -> std::pair<std::string, StateList*> {
    for (auto [name, list] : {std::pair{"--q", &request.q}, std::pair{"--v", &request.v},
                              std::pair{"--a", &request.a}, std::pair{"--tau", &request.tau}}) {
      if (arg == name || arg.rfind(std::string(name) + "=", 0) == 0) return {name, list};
    }
    return {"", nullptr};
  };
  // --q/--v/--a/--tau LIST or =LIST; the value may start with '-' ("--q -0.5,1").
  parseModelCommand(args, "dynamics", request, [&](const std::vector<std::string>& all, size_t& i) {
    const std::string& arg = all[i];
    const auto [name, list] = stateOption(arg);
    if (list == nullptr) return false;
    if (list->has_value()) throw usage(name + " given twice");
    std::string text;
    if (arg == name) {
      if (i + 1 == all.size()) throw usage(name + " needs a comma-separated list of numbers");
      text = all[++i];
    } else {
      text = arg.substr(name.size() + 1);
    }
    *list = gcbridge::cli::parseNumberList(name, text, "gcbridge dynamics --help");
    return true;
  });
  return request;
}

// ---------------------------------------------------------------------------------------------
// Formatting helpers shared by the table and JSON output.

/// Shortest text that reads back as the same double ("17.5", "0.1", "1e-06").
std::string exactNumber(double x) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), x);
  return std::string(buffer, result.ptr);
}

/// `x` with `digits` significant digits, for tables.
std::string roundedNumber(double x, int digits = 6) {
  char buffer[32];
  // Adding 0.0 turns -0 into 0.
  std::snprintf(buffer, sizeof(buffer), "%.*g", digits, x + 0.0);
  return buffer;
}

/// URDF roll, pitch, yaw of R = Rz(yaw) Ry(pitch) Rx(roll) [rad]; at pitch = +-pi/2 roll is 0.
gcbridge::Vector3 rpyFromRotation(const gcbridge::Matrix3& R) {
  const double pitch = std::asin(std::clamp(-R(2, 0), -1.0, 1.0));
  if (std::abs(R(2, 0)) > 1.0 - 1e-12) {
    return gcbridge::Vector3(0.0, pitch, std::atan2(-R(0, 1), R(1, 1)));
  }
  return gcbridge::Vector3(std::atan2(R(2, 1), R(2, 2)), pitch, std::atan2(R(1, 0), R(0, 0)));
}

/// "-" for no coordinate, "3" for one, "3-6" for several (first-last index, inclusive).
std::string indexRange(int first, int count) {
  if (count == 0) return "-";
  if (count == 1) return std::to_string(first);
  return std::to_string(first) + "-" + std::to_string(first + count - 1);
}

/// "revolute", or for ball joints "ball (expmap)".
std::string jointTypeName(const gcbridge::Joint& joint) {
  std::string name = gcbridge::toString(joint.type);
  if (joint.type == gcbridge::JointType::Ball) {
    name += std::string(" (") + gcbridge::toString(joint.ball) + ")";
  }
  return name;
}

/// Whether the joint has the scalar limits of URDF's `<limit>`: one coordinate (revolute and
/// prismatic joints).
bool hasScalarLimits(const gcbridge::Joint& joint) { return joint.nq == 1 && joint.nv == 1; }

/// Whether the joint's one coordinate is an angle (revolute) rather than a length (prismatic).
bool isAngular(const gcbridge::Joint& joint) {
  return std::string_view(gcbridge::jointConfigurationCoordinates(joint)[0].unit) == "rad";
}

/// The description links that are not model links: merged into another link by a fixed joint.
std::vector<int> mergedFrames(const gcbridge::Model& model) {
  std::vector<int> merged;
  for (int i = 0; i < static_cast<int>(model.frames.size()); ++i) {
    if (model.link_description[model.frames[i].link] != i) merged.push_back(i);
  }
  return merged;
}

// ---------------------------------------------------------------------------------------------
// Tables.

/// A text table with columns sized to their widest cell; numeric columns are right-aligned.
class Table {
 public:
  Table(std::vector<std::string> headers, std::vector<bool> right_aligned)
      : headers_(std::move(headers)), right_aligned_(std::move(right_aligned)) {}
  void addRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

  /// Writes the header and the rows, each line indented by two spaces.
  void print(std::ostream& out) const {
    std::vector<size_t> widths(headers_.size());
    for (size_t c = 0; c < headers_.size(); ++c) {
      widths[c] = headers_[c].size();
      for (const auto& row : rows_) widths[c] = std::max(widths[c], row[c].size());
    }
    printLine(out, headers_, widths);
    for (const auto& row : rows_) printLine(out, row, widths);
  }

 private:
  void printLine(std::ostream& out, const std::vector<std::string>& cells,
                 const std::vector<size_t>& widths) const {
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(widths[c] - cells[c].size(), ' ');
      line += "  " + (right_aligned_[c] ? pad + cells[c] : cells[c] + pad);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << '\n';
  }

  std::vector<std::string> headers_;
  std::vector<bool> right_aligned_;
  std::vector<std::vector<std::string>> rows_;
};

/// "(x, y, z)" with six significant digits.
std::string vectorText(const gcbridge::Vector3& v) {
  return "(" + roundedNumber(v.x()) + ", " + roundedNumber(v.y()) + ", " + roundedNumber(v.z()) +
         ")";
}

/// "[-2.96706, 2.96706] rad", "none" when unbounded, "-" for joints without such limits.
std::string positionLimitsText(const gcbridge::Joint& joint) {
  if (!hasScalarLimits(joint)) return "-";
  const gcbridge::JointLimits& l = joint.limits;
  if (std::isinf(l.lower) && std::isinf(l.upper)) return "none";
  const char* unit = isAngular(joint) ? " rad" : " m";
  return "[" + roundedNumber(l.lower) + ", " + roundedNumber(l.upper) + "]" + unit;
}

/// An effort or velocity limit with its unit, "none" when infinite, "-" when not applicable.
std::string scalarLimitText(const gcbridge::Joint& joint, double value, const char* unit_revolute,
                            const char* unit_prismatic) {
  if (!hasScalarLimits(joint)) return "-";
  if (std::isinf(value)) return "none";
  return roundedNumber(value) + " " +
         (isAngular(joint) ? unit_revolute : unit_prismatic);
}

/// The human-readable report of `gcbridge info`: summary, links table, merged frames, warnings.
void printInfoText(const gcbridge::Model& model, std::ostream& out) {
  // Summary.
  const auto field = [&out](const char* label, const std::string& text) {
    out << label << std::string(12 - std::string_view(label).size(), ' ') << text << '\n';
  };
  field("model", model.name);
  field("source", model.description->source);
  field("nq", std::to_string(model.nq));
  field("nv", std::to_string(model.nv));
  field("links", std::to_string(model.numLinks()) + " (from " +
                     std::to_string(model.frames.size()) + " description links)");
  field("total mass", roundedNumber(model.totalMass()) + " kg");
  field("gravity", vectorText(model.gravity_W) + " m/s^2 (world frame)");
  field("base", model.floating_base ? "floating (free joint)" : "fixed (welded to the world)");

  // One row per model link; joint k attaches link k to its parent.
  Table links({"#", "link", "parent", "mass [kg]", "joint", "type", "q", "v", "position limits",
               "effort", "velocity"},
              {true, false, false, true, false, false, false, false, false, false, false});
  for (int k = 0; k < model.numLinks(); ++k) {
    const gcbridge::Joint& joint = model.joints[k];
    const int parent = model.parents[k];
    links.addRow(
        {std::to_string(k), model.link_names[k], parent < 0 ? "world" : model.link_names[parent],
         roundedNumber(model.inertias[k].mass()), joint.name, jointTypeName(joint),
         indexRange(joint.idx_q, joint.nq), indexRange(joint.idx_v, joint.nv),
         positionLimitsText(joint), scalarLimitText(joint, joint.limits.effort, "N m", "N"),
         scalarLimitText(joint, joint.limits.velocity, "rad/s", "m/s")});
  }
  out << "\nlinks (q, v: first-last index of the joint's coordinates in q and v)\n";
  links.print(out);

  // Description links welded into another model link.
  const std::vector<int> merged = mergedFrames(model);
  out << "\nmerged frames (description links welded into a model link; pose in that link)\n";
  if (merged.empty()) {
    out << "  none\n";
  } else {
    Table frames({"frame", "on link", "xyz [m]", "rpy [rad]"}, {false, false, false, false});
    for (int i : merged) {
      const gcbridge::Frame& f = model.frames[i];
      frames.addRow({f.name, model.link_names[f.link], vectorText(f.X_BF.translation()),
                     vectorText(rpyFromRotation(f.X_BF.rotation()))});
    }
    frames.print(out);
  }

  // Warnings of the reader and of the model builder.
  const std::vector<std::string>& warnings = model.description->warnings;
  out << "\nwarnings\n";
  if (warnings.empty()) out << "  none\n";
  for (const std::string& w : warnings) out << "  " << w << '\n';
}

// ---------------------------------------------------------------------------------------------
// JSON.

/// Length of the valid UTF-8 sequence at s[i] (whose byte is >= 0x80), or 0 if it is invalid
/// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
size_t utf8SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  size_t length = 0;
  unsigned char second_min = 0x80, second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;
    if (lead == 0xED) second_max = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;
    if (lead == 0xF4) second_max = 0x8F;
  } else {
    return 0;
  }
  if (i + length > s.size()) return 0;
  if (byte(i + 1) < second_min || byte(i + 1) > second_max) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

/// A minimal pretty-printing JSON writer. Strings are escaped per RFC 8259 (invalid UTF-8 bytes
/// become U+FFFD), non-finite numbers become null, numbers are written in their shortest exact
/// form. Arrays opened with `inline_items` stay on one line.
class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  void beginObject() { open('{', false); }
  void endObject() { close('}'); }
  void beginArray(bool inline_items = false) { open('[', inline_items); }
  void endArray() { close(']'); }

  void key(std::string_view name) {
    separate();
    writeString(name);
    out_ << ": ";
    after_key_ = true;
  }
  void value(std::string_view s) {
    separate();
    writeString(s);
  }
  void value(const char* s) { value(std::string_view(s)); }
  void value(double x) {
    separate();
    out_ << (std::isfinite(x) ? exactNumber(x) : "null");
  }
  void value(int i) {
    separate();
    out_ << i;
  }
  void value(bool b) {
    separate();
    out_ << (b ? "true" : "false");
  }
  void null() {
    separate();
    out_ << "null";
  }
  void value(const gcbridge::Vector3& v) {
    beginArray(true);
    for (int i = 0; i < 3; ++i) value(v(i));
    endArray();
  }

 private:
  struct Level {
    bool inline_items;
    bool empty = true;
  };

  void open(char bracket, bool inline_items) {
    separate();
    out_ << bracket;
    levels_.push_back({inline_items || (!levels_.empty() && levels_.back().inline_items)});
  }

  void close(char bracket) {
    const Level level = levels_.back();
    levels_.pop_back();
    if (!level.empty && !level.inline_items) newline();
    out_ << bracket;
    if (levels_.empty()) out_ << '\n';
  }

  // Before a key or a value: nothing right after a key, else a comma and a line break or space.
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (levels_.empty()) return;
    Level& level = levels_.back();
    if (!level.empty) out_ << ',';
    if (level.inline_items) {
      if (!level.empty) out_ << ' ';
    } else {
      newline();
    }
    level.empty = false;
  }

  void newline() { out_ << '\n' << std::string(2 * levels_.size(), ' '); }

  void writeString(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    out_ << '"';
    for (size_t i = 0; i < s.size();) {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      if (c >= 0x80) {
        // Valid UTF-8 passes through; a broken sequence becomes U+FFFD.
        const size_t length = utf8SequenceLength(s, i);
        if (length == 0) {
          out_ << "\\ufffd";
          ++i;
        } else {
          out_ << s.substr(i, length);
          i += length;
        }
        continue;
      }
      switch (c) {
        case '"':
          out_ << "\\\"";
          break;
        case '\\':
          out_ << "\\\\";
          break;
        case '\b':
          out_ << "\\b";
          break;
        case '\f':
          out_ << "\\f";
          break;
        case '\n':
          out_ << "\\n";
          break;
        case '\r':
          out_ << "\\r";
          break;
        case '\t':
          out_ << "\\t";
          break;
        default:
          if (c < 0x20) {
            out_ << "\\u00" << kHex[c >> 4] << kHex[c & 0xF];
          } else {
            out_ << static_cast<char>(c);
          }
      }
      ++i;
    }
    out_ << '"';
  }

  std::ostream& out_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

/// The joint's limits; infinite ones become null (JSON has no infinity).
void writeLimits(JsonWriter& json, const gcbridge::JointLimits& l) {
  json.beginObject();
  json.key("lower");
  json.value(l.lower);
  json.key("upper");
  json.value(l.upper);
  json.key("effort");
  json.value(l.effort);
  json.key("velocity");
  json.value(l.velocity);
  json.key("damping");
  json.value(l.damping);
  json.key("friction");
  json.value(l.friction);
  json.endObject();
}

/// The joint attaching a link to its parent; axis and limits only for revolute and prismatic.
void writeJoint(JsonWriter& json, const gcbridge::Joint& joint) {
  json.beginObject();
  json.key("name");
  json.value(joint.name);
  json.key("type");
  json.value(gcbridge::toString(joint.type));
  if (joint.type == gcbridge::JointType::Ball) {
    json.key("parametrization");
    json.value(gcbridge::toString(joint.ball));
  }
  json.key("idx_q");
  json.value(joint.idx_q);
  json.key("idx_v");
  json.value(joint.idx_v);
  json.key("nq");
  json.value(joint.nq);
  json.key("nv");
  json.value(joint.nv);
  if (hasScalarLimits(joint)) {
    json.key("axis");
    json.value(joint.axis);
    json.key("limits");
    writeLimits(json, joint.limits);
  }
  json.endObject();
}

/// The report of `gcbridge info --json` (keys listed in kInfoHelp).
void printInfoJson(const gcbridge::Model& model, const gcbridge::ModelOptions& options,
                   std::ostream& out) {
  JsonWriter json(out);
  json.beginObject();
  // Summary.
  json.key("name");
  json.value(model.name);
  json.key("source");
  json.value(model.description->source);
  json.key("nq");
  json.value(model.nq);
  json.key("nv");
  json.value(model.nv);
  json.key("num_links");
  json.value(model.numLinks());
  json.key("total_mass");
  json.value(model.totalMass());
  json.key("gravity");
  json.value(model.gravity_W);
  json.key("floating_base");
  json.value(model.floating_base);
  json.key("ball_parametrization");
  json.value(gcbridge::toString(options.ball));
  json.key("merge_fixed_joints");
  json.value(options.merge_fixed_joints);

  // Model links with the joint attaching each to its parent.
  json.key("links");
  json.beginArray();
  for (int k = 0; k < model.numLinks(); ++k) {
    const int parent = model.parents[k];
    json.beginObject();
    json.key("index");
    json.value(k);
    json.key("name");
    json.value(model.link_names[k]);
    json.key("parent");
    if (parent < 0) {
      json.null();
    } else {
      json.value(model.link_names[parent]);
    }
    json.key("mass");
    json.value(model.inertias[k].mass());
    json.key("com");
    json.value(model.inertias[k].com());
    json.key("joint");
    writeJoint(json, model.joints[k]);
    json.endObject();
  }
  json.endArray();

  // Description links welded into another model link.
  json.key("frames");
  json.beginArray();
  for (int i : mergedFrames(model)) {
    const gcbridge::Frame& f = model.frames[i];
    json.beginObject();
    json.key("name");
    json.value(f.name);
    json.key("link");
    json.value(model.link_names[f.link]);
    json.key("link_index");
    json.value(f.link);
    json.key("xyz");
    json.value(f.X_BF.translation());
    json.key("rpy");
    json.value(rpyFromRotation(f.X_BF.rotation()));
    json.endObject();
  }
  json.endArray();

  json.key("warnings");
  json.beginArray();
  for (const std::string& w : model.description->warnings) json.value(w);
  json.endArray();
  json.endObject();
}

// ---------------------------------------------------------------------------------------------
// Dynamics: the state, the terms of the equations of motion, and their output.

/// The state `gcbridge dynamics` evaluates the model at; a and tau only when given.
struct DynamicsState {
  Eigen::VectorXd q;                   ///< positions (nq)
  Eigen::VectorXd v;                   ///< velocities (nv)
  std::optional<Eigen::VectorXd> a;    ///< accelerations for RNEA (nv)
  std::optional<Eigen::VectorXd> tau;  ///< joint forces for ABA (nv)
  bool q_given = false;                ///< false: q is the neutral configuration
};

/// The terms of M(q) qdd + C(q, v) v + g(q) = tau at one state.
struct DynamicsTerms {
  Eigen::MatrixXd M;                   ///< joint-space inertia matrix (nv x nv)
  Eigen::VectorXd h;                   ///< C(q, v) v + g(q) (nv)
  Eigen::VectorXd g;                   ///< generalized gravity g(q) (nv)
  Eigen::VectorXd Cqd;                 ///< C(q, v) v (nv)
  std::optional<Eigen::VectorXd> tau;  ///< RNEA(q, v, a) = M a + h, when a is given (nv)
  std::optional<Eigen::VectorXd> qdd;  ///< ABA(q, v, tau), when tau is given (nv)
};

/// A list given on the command line as a vector of the model's size `n` (`size_name` "nq" or
/// "nv"). @throws UsageError "--q has 6 values, the model needs nq = 7".
Eigen::VectorXd sizedVector(const std::string& option, const std::vector<double>& values, int n,
                            const char* size_name) {
  if (static_cast<int>(values.size()) != n) {
    throw UsageError(option + " has " + std::to_string(values.size()) +
                         (values.size() == 1 ? " value" : " values") + ", the model needs " +
                         size_name + " = " + std::to_string(n),
                     "gcbridge dynamics --help");
  }
  return Eigen::Map<const Eigen::VectorXd>(values.data(), n);
}

/// The request's lists checked against the model's sizes, with the defaults filled in.
/// @throws UsageError for a list of the wrong size.
DynamicsState dynamicsState(const gcbridge::Model& model, const DynamicsRequest& request) {
  DynamicsState state;
  state.q_given = request.q.has_value();
  state.q = request.q ? sizedVector("--q", *request.q, model.nq, "nq")
                      : gcbridge::neutralConfiguration(model);
  state.v = request.v ? sizedVector("--v", *request.v, model.nv, "nv")
                      : Eigen::VectorXd(Eigen::VectorXd::Zero(model.nv));
  if (request.a) state.a = sizedVector("--a", *request.a, model.nv, "nv");
  if (request.tau) state.tau = sizedVector("--tau", *request.tau, model.nv, "nv");
  return state;
}

/// Evaluates every term at the state. @throws gcbridge::InvalidArgumentError naming the joint for
/// a q the library rejects (a quaternion far from unit).
DynamicsTerms computeDynamicsTerms(const gcbridge::Model& model, const DynamicsState& state) {
  // Checked up front so the first error is about q itself, whichever algorithm runs first.
  gcbridge::validateConfiguration(model, state.q);
  gcbridge::Data data(model);
  DynamicsTerms terms;
  // Each algorithm returns a reference into data; copy before the next one overwrites it.
  terms.M = gcbridge::crba(model, data, state.q);
  terms.h = gcbridge::nonLinearEffects(model, data, state.q, state.v);
  terms.g = gcbridge::computeGeneralizedGravity(model, data, state.q);
  terms.Cqd = gcbridge::computeCoriolisTimesV(model, data, state.q, state.v);
  if (state.a) terms.tau = gcbridge::rnea(model, data, state.q, state.v, *state.a);
  if (state.tau) terms.qdd = gcbridge::aba(model, data, state.q, state.v, *state.tau);
  return terms;
}

/// One coordinate of q: its joint, its name within the joint and its unit.
struct QCoordinate {
  std::string joint;
  const char* name;
  const char* unit;
};

/// One degree of freedom (entry of v): its joint, its name within the joint ("-" for the only dof
/// of a revolute or prismatic joint), and whether it is rotational (N m, rad/s) or translational
/// (N, m/s).
struct Dof {
  std::string joint;
  const char* name;
  bool rotational;
};

/// The coordinates of q in order, named after each joint's layout (joint.hpp).
std::vector<QCoordinate> qCoordinates(const gcbridge::Model& model) {
  std::vector<QCoordinate> coordinates;
  for (const gcbridge::Joint& j : model.joints) {
    for (const gcbridge::JointCoordinate& c : gcbridge::jointConfigurationCoordinates(j)) {
      coordinates.push_back({j.name, c.name, c.unit});
    }
  }
  return coordinates;
}

/// The degrees of freedom in order, named after each joint's layout (joint.hpp).
std::vector<Dof> dofs(const gcbridge::Model& model) {
  std::vector<Dof> result;
  for (const gcbridge::Joint& j : model.joints) {
    for (const gcbridge::JointCoordinate& c : gcbridge::jointVelocityCoordinates(j)) {
      result.push_back({j.name, c.name, std::string_view(c.unit) == "rad/s"});
    }
  }
  return result;
}

/// Entries of a matrix or vector for a table: 6 significant digits, and 0 for entries below
/// 1e-10 times its largest entry (round-off, e.g. -7e-14 in a gravity vector whose largest entry
/// is 0.01 but whose intermediate terms are 100 N m).
std::vector<std::string> tableNumbers(const Eigen::Ref<const Eigen::MatrixXd>& X) {
  const double floor = X.size() == 0 ? 0.0 : 1e-10 * X.cwiseAbs().maxCoeff();
  std::vector<std::string> cells;
  for (int i = 0; i < X.rows(); ++i) {
    for (int j = 0; j < X.cols(); ++j) {
      cells.push_back(roundedNumber(std::abs(X(i, j)) < floor ? 0.0 : X(i, j)));
    }
  }
  return cells;
}

/// The human-readable report of `gcbridge dynamics`: summary, q, the per-dof vectors, M.
void printDynamicsText(const gcbridge::Model& model, const DynamicsState& state,
                       const DynamicsTerms& terms, std::ostream& out) {
  // Summary.
  const auto field = [&out](const char* label, const std::string& text) {
    out << label << std::string(12 - std::string_view(label).size(), ' ') << text << '\n';
  };
  field("model", model.name);
  field("source", model.description->source);
  field("nq", std::to_string(model.nq));
  field("nv", std::to_string(model.nv));
  field("base", model.floating_base ? "floating (free joint)" : "fixed (welded to the world)");
  field("gravity", vectorText(model.gravity_W) + " m/s^2 (world frame)");

  // The configuration, one row per q index.
  out << "\nq: configuration (" << (state.q_given ? "--q" : "neutral configuration")
      << "; quaternions x, y, z, w)\n";
  if (model.nq == 0) {
    out << "  none (nq = 0)\n";
  } else {
    Table q_table({"#", "joint", "coordinate", "value", "unit"}, {true, false, false, true, false});
    const std::vector<QCoordinate> coordinates = qCoordinates(model);
    for (int i = 0; i < model.nq; ++i) {
      q_table.addRow({std::to_string(i), coordinates[i].joint, coordinates[i].name,
                      roundedNumber(state.q(i)), coordinates[i].unit});
    }
    q_table.print(out);
  }

  // The vectors of size nv side by side, one row per degree of freedom.
  out << "\nper degree of freedom (v index)\n"
         "  units: kind rot: v [rad/s], a, qdd [rad/s^2], forces [N m]; "
         "kind lin: [m/s], [m/s^2], [N]\n"
         "  h = C(q, v) v + g(q), the nonlinear effects; g = g(q), gravity; "
         "Cqd = C(q, v) v, Coriolis and centrifugal\n";
  if (terms.tau) out << "  tau = RNEA(q, v, a) = M a + h, the joint forces that produce a\n";
  if (terms.qdd) out << "  qdd = ABA(q, v, tau), the accelerations under --tau: M qdd + h = tau\n";
  if (model.nv == 0) {
    out << "  none (nv = 0)\n";
  } else {
    std::vector<std::string> headers = {"#", "joint", "dof", "kind", "v"};
    std::vector<const Eigen::VectorXd*> columns = {&state.v};
    if (state.a) {
      headers.push_back("a");
      columns.push_back(&*state.a);
    }
    for (auto [name, column] :
         {std::pair{"h", &terms.h}, std::pair{"g", &terms.g}, std::pair{"Cqd", &terms.Cqd}}) {
      headers.push_back(name);
      columns.push_back(column);
    }
    if (terms.tau) {
      headers.push_back("tau = RNEA");
      columns.push_back(&*terms.tau);
    }
    if (state.tau) {
      headers.push_back("tau (--tau)");
      columns.push_back(&*state.tau);
    }
    if (terms.qdd) {
      headers.push_back("qdd = ABA");
      columns.push_back(&*terms.qdd);
    }
    std::vector<bool> right_aligned(headers.size(), true);
    right_aligned[1] = right_aligned[2] = right_aligned[3] = false;
    std::vector<std::vector<std::string>> cells;
    for (const Eigen::VectorXd* column : columns) cells.push_back(tableNumbers(*column));
    Table vectors(headers, right_aligned);
    const std::vector<Dof> dof_list = dofs(model);
    for (int i = 0; i < model.nv; ++i) {
      std::vector<std::string> row = {std::to_string(i), dof_list[i].joint, dof_list[i].name,
                                      dof_list[i].rotational ? "rot" : "lin"};
      for (const auto& column : cells) row.push_back(column[i]);
      vectors.addRow(std::move(row));
    }
    vectors.print(out);
  }

  // M, with the dof of each row and column.
  out << "\nM(q): joint-space inertia matrix, " << model.nv << " x " << model.nv
      << " (kg m^2 between rot dofs, kg m between rot and lin, kg between lin dofs)\n";
  if (model.nv == 0) {
    out << "  none (nv = 0)\n";
  } else {
    std::vector<std::string> headers = {"#", "joint", "dof"};
    for (int j = 0; j < model.nv; ++j) headers.push_back(std::to_string(j));
    std::vector<bool> right_aligned(headers.size(), true);
    right_aligned[1] = right_aligned[2] = false;
    Table matrix(headers, right_aligned);
    const std::vector<std::string> entries = tableNumbers(terms.M);
    const std::vector<Dof> dof_list = dofs(model);
    for (int i = 0; i < model.nv; ++i) {
      std::vector<std::string> row = {std::to_string(i), dof_list[i].joint, dof_list[i].name};
      row.insert(row.end(), entries.begin() + i * model.nv, entries.begin() + (i + 1) * model.nv);
      matrix.addRow(std::move(row));
    }
    matrix.print(out);
  }
}

/// A vector as a one-line JSON array.
void writeVector(JsonWriter& json, const Eigen::VectorXd& x) {
  json.beginArray(true);
  for (int i = 0; i < x.size(); ++i) json.value(x(i));
  json.endArray();
}

/// The report of `gcbridge dynamics --json` (keys listed in kDynamicsHelp).
void printDynamicsJson(const gcbridge::Model& model, const DynamicsState& state,
                       const DynamicsTerms& terms, std::ostream& out) {
  JsonWriter json(out);
  json.beginObject();
  json.key("name");
  json.value(model.name);
  json.key("nq");
  json.value(model.nq);
  json.key("nv");
  json.value(model.nv);

  // The state, defaults filled in.
  json.key("inputs");
  json.beginObject();
  json.key("q");
  writeVector(json, state.q);
  json.key("v");
  writeVector(json, state.v);
  if (state.a) {
    json.key("a");
    writeVector(json, *state.a);
  }
  if (state.tau) {
    json.key("tau");
    writeVector(json, *state.tau);
  }
  json.endObject();

  // M row by row, then the vectors.
  json.key("M");
  json.beginArray();
  for (int i = 0; i < terms.M.rows(); ++i) writeVector(json, terms.M.row(i).transpose());
  json.endArray();
  json.key("h");
  writeVector(json, terms.h);
  json.key("g");
  writeVector(json, terms.g);
  json.key("Cqd");
  writeVector(json, terms.Cqd);
  if (terms.tau) {
    json.key("tau");
    writeVector(json, *terms.tau);
  }
  if (terms.qdd) {
    json.key("qdd");
    writeVector(json, *terms.qdd);
  }
  json.endObject();
}

// ---------------------------------------------------------------------------------------------
// Commands.

/// `gcbridge info ...`. @return the exit code.
int runInfo(const std::vector<std::string>& args) {
  const InfoRequest request = parseInfoArguments(args);
  if (request.help) {
    std::cout << kInfoHelp;
    return kExitOk;
  }
  const gcbridge::Model model = gcbridge::loadUrdf(request.path, request.model_options);
  for (const std::string& w : model.description->warnings) {
    std::cerr << "gcbridge: warning: " << w << '\n';
  }
  if (request.json) {
    printInfoJson(model, request.model_options, std::cout);
  } else {
    printInfoText(model, std::cout);
  }
  return kExitOk;
}

/// `gcbridge dynamics ...`. @return the exit code.
int runDynamics(const std::vector<std::string>& args) {
  const DynamicsRequest request = parseDynamicsArguments(args);
  if (request.help) {
    std::cout << kDynamicsHelp;
    return kExitOk;
  }
  const gcbridge::Model model = gcbridge::loadUrdf(request.path, request.model_options);
  for (const std::string& w : model.description->warnings) {
    std::cerr << "gcbridge: warning: " << w << '\n';
  }
  const DynamicsState state = dynamicsState(model, request);
  const DynamicsTerms terms = computeDynamicsTerms(model, state);
  if (request.json) {
    printDynamicsJson(model, state, terms, std::cout);
  } else {
    printDynamicsText(model, state, terms, std::cout);
  }
  return kExitOk;
}

/// The whole command line (without the program name). @return the exit code.
int run(const std::vector<std::string>& args) {
  if (args.empty()) throw UsageError("no command given", "gcbridge --help");
  const std::string& command = args[0];
  if (command == "-h" || command == "--help") {
    std::cout << kMainHelp;
    return kExitOk;
  }
  if (command == "--version") {
    std::cout << "gcbridge " << GCBRIDGE_VERSION_STRING
              << "\nBullet precision: " << gcbridge::bulletPrecisionName()
              << " (sizeof(btScalar) = " << gcbridge::bulletScalarSize() << ")\n";
    return kExitOk;
  }
  if (command == "info") return runInfo({args.begin() + 1, args.end()});
  if (command == "dynamics") return runDynamics({args.begin() + 1, args.end()});
  if (command == "compare") {
    return gcbridge::compare::runCompareCommand({args.begin() + 1, args.end()}, std::cout,
                                                std::cerr, isatty(STDERR_FILENO) == 1);
  }
  if (command[0] == '-') throw UsageError("unknown option '" + command + "'", "gcbridge --help");
  throw UsageError("unknown command '" + command + "'", "gcbridge --help");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    std::cerr << "gcbridge: " << e.what() << "\nTry '" << e.helpCommand() << "'.\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "gcbridge: " << e.what() << '\n';
    return kExitError;
  }
}
