// gcbridge: the command-line tool.
//
// `gcbridge info MODEL.urdf` loads a URDF exactly as gcbridge::loadUrdf does and prints the model
// it becomes: sizes, mass, gravity, every model link with its joint and its slices of q and v, the
// description links merged into other links, and the reader's warnings; as a table or as JSON.
// Exit codes: 0 success, 1 error (unreadable or invalid model), 2 command-line mistake.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/config.hpp"
#include "gcbridge/dynamics.hpp"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

constexpr const char* kMainHelp = R"(gcbridge - inspect robot models as gcbridge builds them

Usage:
  gcbridge info [OPTIONS] MODEL.urdf   print the model built from a URDF file
  gcbridge --help                      print this help
  gcbridge --version                   print the version and the Bullet precision

Run 'gcbridge info --help' for the options of info.
Exit codes: 0 success, 1 error (unreadable or invalid model), 2 command-line mistake.
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

/// A command-line mistake: reported with a pointer to the help and exit code 2.
class UsageError : public std::runtime_error {
 public:
  UsageError(const std::string& message, std::string help_command)
      : std::runtime_error(message), help_command_(std::move(help_command)) {}
  const std::string& helpCommand() const { return help_command_; }

 private:
  std::string help_command_;
};

/// What `gcbridge info` was asked to do.
struct InfoRequest {
  std::string path;
  gcbridge::ModelOptions model_options;
  bool json = false;
  bool help = false;
};

/// The value of --ball. @throws UsageError for an unknown name.
gcbridge::BallParametrization parseBall(const std::string& name) {
  if (name == "quaternion") return gcbridge::BallParametrization::Quaternion;
  if (name == "expmap") return gcbridge::BallParametrization::ExpMap;
  if (name == "euler" || name == "euler_xyz") return gcbridge::BallParametrization::EulerXYZ;
  throw UsageError(
      "--ball: unknown parametrization '" + name + "' (choose quaternion, expmap or euler)",
      "gcbridge info --help");
}

/// The arguments after `info`. @throws UsageError for an unknown option or a missing value or file.
InfoRequest parseInfoArguments(const std::vector<std::string>& args) {
  InfoRequest request;
  const auto usage = [](const std::string& message) {
    return UsageError(message, "gcbridge info --help");
  };
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const bool is_option = !options_done && arg.size() > 1 && arg[0] == '-';
    if (!is_option) {
      if (!request.path.empty()) {
        throw usage("info takes one model file, got '" + request.path + "' and '" + arg + "'");
      }
      request.path = arg;
    } else if (arg == "--") {
      options_done = true;
    } else if (arg == "-h" || arg == "--help") {
      request.help = true;
    } else if (arg == "--floating-base") {
      request.model_options.floating_base = true;
    } else if (arg == "--no-merge") {
      request.model_options.merge_fixed_joints = false;
    } else if (arg == "--json") {
      request.json = true;
    } else if (arg == "--ball") {
      if (i + 1 == args.size()) throw usage("--ball needs a value: quaternion, expmap or euler");
      request.model_options.ball = parseBall(args[++i]);
    } else if (arg.rfind("--ball=", 0) == 0) {
      request.model_options.ball = parseBall(arg.substr(7));
    } else {
      throw usage("info: unknown option '" + arg + "'");
    }
  }
  if (!request.help && request.path.empty()) throw usage("info: no model file given");
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

/// Whether the joint type has the scalar limits of URDF's `<limit>` (revolute and prismatic).
bool hasScalarLimits(const gcbridge::Joint& joint) {
  return joint.type == gcbridge::JointType::Revolute ||
         joint.type == gcbridge::JointType::Prismatic;
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
  const char* unit = joint.type == gcbridge::JointType::Revolute ? " rad" : " m";
  return "[" + roundedNumber(l.lower) + ", " + roundedNumber(l.upper) + "]" + unit;
}

/// An effort or velocity limit with its unit, "none" when infinite, "-" when not applicable.
std::string scalarLimitText(const gcbridge::Joint& joint, double value, const char* unit_revolute,
                            const char* unit_prismatic) {
  if (!hasScalarLimits(joint)) return "-";
  if (std::isinf(value)) return "none";
  return roundedNumber(value) + " " +
         (joint.type == gcbridge::JointType::Revolute ? unit_revolute : unit_prismatic);
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
