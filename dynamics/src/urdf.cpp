#include "gcbridge/dynamics/urdf.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>
#include <system_error>

#include "gcbridge/dynamics/errors.hpp"

namespace gcbridge {
namespace {

namespace fs = std::filesystem;
using tinyxml2::XMLElement;

/// One reading of a URDF document: where it came from, how to resolve its meshes, the named
/// materials seen so far and the warnings collected.
struct Reader {
  std::string source;  ///< file path or label: the first part of every message
  fs::path base_dir;   ///< the URDF's folder: relative mesh paths and package lookups start here
  const UrdfOptions& options;
  std::map<std::string, Eigen::Vector4d> materials;  ///< named colours (top level and inline)
  std::vector<std::string> warnings;
};

/// The element a message is about (a <link>, <joint>, <material> or <robot>) and its name.
struct Owner {
  const XMLElement* element;
  std::string name;
};

/// "<link> 'arm'", or "<link>" when the element has no name (yet).
std::string describe(const Owner& owner) {
  std::string s = "<" + std::string(owner.element->Name()) + ">";
  if (!owner.name.empty()) s += " '" + owner.name + "'";
  return s;
}

/// "<mass>": the tag of an element, for messages.
std::string tag(const XMLElement* e) { return "<" + std::string(e->Name()) + ">"; }

/// "SOURCE:LINE: <joint> 'elbow': what": every message and warning starts like this.
std::string message(const Reader& r, const XMLElement* at, const Owner& owner,
                    const std::string& what) {
  return r.source + ":" + std::to_string(at->GetLineNum()) + ": " + describe(owner) + ": " + what;
}

/// Throws the UrdfError for a problem found at element `at`.
[[noreturn]] void fail(const Reader& r, const XMLElement* at, const Owner& owner,
                       const std::string& what) {
  throw UrdfError(message(r, at, owner, what));
}

/// Records a non-fatal finding at element `at`.
void warn(Reader& r, const XMLElement* at, const Owner& owner, const std::string& what) {
  r.warnings.push_back(message(r, at, owner, what));
}

/// "missing attribute "attr"", prefixed with the element's tag unless it is the owner itself.
std::string missingAttribute(const XMLElement* e, const Owner& owner, const char* attr) {
  const std::string prefix = e == owner.element ? "" : tag(e) + ": ";
  return prefix + "missing attribute \"" + attr + "\"";
}

/// `attr="value"` as written, prefixed with the element's tag unless it is the owner itself.
std::string quoteAttribute(const XMLElement* e, const Owner& owner, const char* attr) {
  const std::string prefix = e == owner.element ? "" : tag(e) + " ";
  return prefix + attr + "=\"" + e->Attribute(attr) + "\"";
}

/// XML whitespace, and the other characters isspace() accepts in the "C" locale.
bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/// Parses one decimal number that fills all of `token` (no whitespace inside): an optional sign and
/// forms like "0.", ".8", "1e-3". std::from_chars is used rather than strtod because it does not
/// depend on the locale's decimal point. Returns std::errc() on success, result_out_of_range for a
/// magnitude a double cannot hold and invalid_argument for anything else. "nan" and "inf" parse;
/// the caller rejects them as not finite.
std::errc parseNumber(std::string_view token, double& value) {
  if (token.size() > 1 && token[0] == '+' && token[1] != '-' && token[1] != '+') {
    token.remove_prefix(1);
  }
  const char* end = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, value, std::chars_format::general);
  if (ptr != end) return std::errc::invalid_argument;
  return ec;
}

/// The whitespace-separated numbers of attribute `attr` of `e`, exactly `n` of them, all finite;
/// std::nullopt if the attribute is absent. @throws UrdfError for anything else.
std::optional<Eigen::VectorXd> numbers(const Reader& r, const XMLElement* e, const Owner& owner,
                                       const char* attr, int n) {
  const char* text = e->Attribute(attr);
  if (text == nullptr) return std::nullopt;
  Eigen::VectorXd values(n);
  int count = 0;
  std::string_view rest(text);
  while (true) {
    while (!rest.empty() && isSpace(rest.front())) rest.remove_prefix(1);
    if (rest.empty()) break;
    size_t len = 0;
    while (len < rest.size() && !isSpace(rest[len])) ++len;
    const std::string_view token = rest.substr(0, len);
    rest.remove_prefix(len);
    double value = 0.0;
    const std::errc status = parseNumber(token, value);
    if (status == std::errc::result_out_of_range) {
      fail(r, e, owner,
           quoteAttribute(e, owner, attr) + ": \"" + std::string(token) + "\" is out of range");
    }
    if (status != std::errc()) {
      fail(r, e, owner,
           quoteAttribute(e, owner, attr) + ": \"" + std::string(token) + "\" is not a number");
    }
    if (!std::isfinite(value)) {
      fail(r, e, owner,
           quoteAttribute(e, owner, attr) + ": \"" + std::string(token) +
               "\" is not finite (NaN or Inf)");
    }
    if (count < n) values(count) = value;
    ++count;
  }
  if (count != n) {
    fail(r, e, owner,
         quoteAttribute(e, owner, attr) + ": expected " + std::to_string(n) +
             (n == 1 ? " number" : " numbers") + ", found " + std::to_string(count));
  }
  return values;
}

/// One number; std::nullopt if the attribute is absent.
std::optional<double> optionalNumber(const Reader& r, const XMLElement* e, const Owner& owner,
                                     const char* attr) {
  const auto v = numbers(r, e, owner, attr, 1);
  if (!v) return std::nullopt;
  return (*v)(0);
}

/// One number that must be given.
double requiredNumber(const Reader& r, const XMLElement* e, const Owner& owner, const char* attr) {
  const auto v = optionalNumber(r, e, owner, attr);
  if (!v) fail(r, e, owner, missingAttribute(e, owner, attr));
  return *v;
}

/// A size (radius, length): required, not negative.
double requiredSize(const Reader& r, const XMLElement* e, const Owner& owner, const char* attr) {
  const double v = requiredNumber(r, e, owner, attr);
  if (v < 0.0) fail(r, e, owner, quoteAttribute(e, owner, attr) + ": must not be negative");
  return v;
}

/// Three numbers, or `default_value` if the attribute is absent.
Vector3 vector3(const Reader& r, const XMLElement* e, const Owner& owner, const char* attr,
                const Vector3& default_value) {
  const auto v = numbers(r, e, owner, attr, 3);
  return v ? Vector3(*v) : default_value;
}

/// A required string attribute.
std::string requiredString(const Reader& r, const XMLElement* e, const Owner& owner,
                           const char* attr) {
  const char* text = e->Attribute(attr);
  if (text == nullptr) fail(r, e, owner, missingAttribute(e, owner, attr));
  return text;
}

/// The pose of `<origin xyz rpy>` under `parent` (identity if there is none): X_PC for the frame C
/// the origin defines in the frame P of `parent`'s owner.
Transform origin(const Reader& r, const XMLElement* parent, const Owner& owner) {
  const XMLElement* e = parent->FirstChildElement("origin");
  if (e == nullptr) return Transform::Identity();
  const Vector3 xyz = vector3(r, e, owner, "xyz", Vector3::Zero());
  const Vector3 rpy = vector3(r, e, owner, "rpy", Vector3::Zero());
  return Transform(rotationFromRpy(rpy), xyz);
}

/// Splits "a:b::c" into its non-empty entries.
std::vector<std::string> splitPathList(const char* list) {
  std::vector<std::string> entries;
  if (list == nullptr) return entries;
  std::string_view rest(list);
  while (!rest.empty()) {
    const size_t colon = rest.find(':');
    const std::string_view entry = rest.substr(0, colon);
    if (!entry.empty()) entries.emplace_back(entry);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return entries;
}

/// An existing regular file (or a link to one).
bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

/// `p` made absolute (against the working directory) and normalized; as given if that fails.
fs::path absolutePath(const fs::path& p) {
  std::error_code ec;
  const fs::path a = fs::absolute(p, ec);
  return (ec ? p : a).lexically_normal();
}

/// The existing file a mesh filename names, as an absolute path, or "" if none is found.
/// `package://NAME/REST`: DIR/NAME/REST for each options.package_dirs entry, then for each
/// ROS_PACKAGE_PATH entry; then, from the URDF's folder up to the file system root, a folder named
/// NAME that holds REST or a folder holding NAME/REST; last the URDF's folder + REST.
/// `file://PATH` and plain paths: absolute as is, relative to the URDF's folder.
std::string resolveMesh(const Reader& r, const std::string& uri) {
  const auto found = [](const fs::path& p) { return absolutePath(p).string(); };
  const std::string_view package_prefix = "package://", file_prefix = "file://";
  if (uri.compare(0, package_prefix.size(), package_prefix) == 0) {
    const std::string spec = uri.substr(package_prefix.size());
    const size_t slash = spec.find('/');
    if (slash == std::string::npos || slash == 0) return "";
    const std::string name = spec.substr(0, slash);
    const fs::path rest = spec.substr(slash + 1);
    std::vector<std::string> dirs = r.options.package_dirs;
    for (const std::string& dir : splitPathList(std::getenv("ROS_PACKAGE_PATH"))) {
      dirs.push_back(dir);
    }
    for (const std::string& dir : dirs) {
      if (isFile(fs::path(dir) / name / rest)) return found(fs::path(dir) / name / rest);
    }
    for (fs::path dir = absolutePath(r.base_dir);; dir = dir.parent_path()) {
      if (dir.filename() == name && isFile(dir / rest)) return found(dir / rest);
      if (isFile(dir / name / rest)) return found(dir / name / rest);
      if (dir == dir.root_path() || dir.parent_path() == dir) break;
    }
    if (isFile(r.base_dir / rest)) return found(r.base_dir / rest);
    return "";
  }
  fs::path path = uri.compare(0, file_prefix.size(), file_prefix) == 0
                      ? fs::path(uri.substr(file_prefix.size()))
                      : fs::path(uri);
  if (path.is_relative()) path = r.base_dir / path;
  return isFile(path) ? found(path) : "";
}

/// The shape inside `<geometry>`: its first child element.
Geometry geometry(Reader& r, const XMLElement* geometry_xml, const Owner& owner) {
  const XMLElement* shape = geometry_xml->FirstChildElement();
  if (shape == nullptr) {
    fail(r, geometry_xml, owner,
         "<geometry> has no shape (box, sphere, cylinder, capsule or mesh)");
  }
  Geometry g;
  const std::string kind = shape->Name();
  if (kind == "box") {
    g.type = Geometry::Type::Box;
    const auto size = numbers(r, shape, owner, "size", 3);
    if (!size) fail(r, shape, owner, missingAttribute(shape, owner, "size"));
    if (size->minCoeff() < 0.0) {
      fail(r, shape, owner, quoteAttribute(shape, owner, "size") + ": sizes must not be negative");
    }
    g.box_size = *size;
  } else if (kind == "sphere") {
    g.type = Geometry::Type::Sphere;
    g.radius = requiredSize(r, shape, owner, "radius");
  } else if (kind == "cylinder" || kind == "capsule") {
    g.type = kind == "cylinder" ? Geometry::Type::Cylinder : Geometry::Type::Capsule;
    g.radius = requiredSize(r, shape, owner, "radius");
    g.length = requiredSize(r, shape, owner, "length");
  } else if (kind == "mesh") {
    g.type = Geometry::Type::Mesh;
    g.mesh_uri = requiredString(r, shape, owner, "filename");
    g.mesh_scale = vector3(r, shape, owner, "scale", Vector3::Ones());
    g.mesh_path = resolveMesh(r, g.mesh_uri);
    if (g.mesh_path.empty()) {
      warn(r, shape, owner, "mesh file \"" + g.mesh_uri + "\" not found (mesh_path left empty)");
    }
  } else {
    fail(r, shape, owner,
         "unknown geometry <" + kind + "> (expected box, sphere, cylinder, capsule or mesh)");
  }
  return g;
}

/// The colour of a `<material>` in a visual: its own `<color rgba>` (a named one is remembered for
/// later visuals that give only the name, as urdfdom does), or the colour of the named material.
std::optional<Eigen::Vector4d> visualColor(Reader& r, const XMLElement* material_xml,
                                           const Owner& owner) {
  const char* name = material_xml->Attribute("name");
  if (const XMLElement* color = material_xml->FirstChildElement("color")) {
    const auto rgba = numbers(r, color, owner, "rgba", 4);
    if (rgba) {
      if (name != nullptr) r.materials.emplace(name, *rgba);
      return Eigen::Vector4d(*rgba);
    }
  }
  if (name == nullptr) return std::nullopt;
  const auto it = r.materials.find(name);
  if (it != r.materials.end()) return it->second;
  warn(r, material_xml, owner,
       "material '" + std::string(name) + "' is not defined: the visual has no colour");
  return std::nullopt;
}

/// A `<visual>` or `<collision>` element.
GeometryInstance geometryInstance(Reader& r, const XMLElement* e, const Owner& owner,
                                  bool is_visual) {
  GeometryInstance g;
  if (const char* name = e->Attribute("name")) g.name = name;
  g.X_LG = origin(r, e, owner);
  const XMLElement* geometry_xml = e->FirstChildElement("geometry");
  if (geometry_xml == nullptr) fail(r, e, owner, tag(e) + " has no <geometry>");
  g.geometry = geometry(r, geometry_xml, owner);
  const XMLElement* material_xml = e->FirstChildElement("material");
  if (is_visual && material_xml != nullptr) g.rgba = visualColor(r, material_xml, owner);
  return g;
}

/// A `<link>`. The inertial frame I (`<inertial><origin>`) places the COM and rotates the inertia:
/// I_Lcm_L = R_LI I_Lcm_I R_LI^T.
LinkDescription link(Reader& r, const XMLElement* e) {
  LinkDescription link;
  link.name = requiredString(r, e, Owner{e, ""}, "name");
  link.source_line = e->GetLineNum();
  const Owner owner{e, link.name};

  if (const XMLElement* inertial = e->FirstChildElement("inertial")) {
    const Transform X_LI = origin(r, inertial, owner);
    const XMLElement* mass = inertial->FirstChildElement("mass");
    if (mass == nullptr) fail(r, inertial, owner, "<inertial> has no <mass>");
    link.mass = requiredNumber(r, mass, owner, "value");
    const XMLElement* inertia = inertial->FirstChildElement("inertia");
    if (inertia == nullptr) fail(r, inertial, owner, "<inertial> has no <inertia>");
    const double ixx = requiredNumber(r, inertia, owner, "ixx");
    const double ixy = requiredNumber(r, inertia, owner, "ixy");
    const double ixz = requiredNumber(r, inertia, owner, "ixz");
    const double iyy = requiredNumber(r, inertia, owner, "iyy");
    const double iyz = requiredNumber(r, inertia, owner, "iyz");
    const double izz = requiredNumber(r, inertia, owner, "izz");
    Matrix3 I_Lcm_I;
    I_Lcm_I << ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz;
    const Matrix3& R_LI = X_LI.rotation();
    link.p_LoLcm_L = X_LI.translation();
    const Matrix3 I_Lcm_L = R_LI * I_Lcm_I * R_LI.transpose();
    // Rounding leaves R I R^T asymmetric in the last bit; the inertia is symmetric by definition.
    link.I_Lcm_L = 0.5 * (I_Lcm_L + I_Lcm_L.transpose());
  }

  for (const XMLElement* v = e->FirstChildElement("visual"); v;
       v = v->NextSiblingElement("visual")) {
    link.visuals.push_back(geometryInstance(r, v, owner, true));
  }
  for (const XMLElement* c = e->FirstChildElement("collision"); c;
       c = c->NextSiblingElement("collision")) {
    link.collisions.push_back(geometryInstance(r, c, owner, false));
  }
  return link;
}

/// The `link` attribute of the joint's `<parent>` or `<child>` element.
std::string jointLink(const Reader& r, const XMLElement* e, const Owner& owner, const char* which) {
  const XMLElement* x = e->FirstChildElement(which);
  if (x == nullptr) fail(r, e, owner, "missing <" + std::string(which) + ">");
  return requiredString(r, x, owner, "link");
}

/// The `<axis>`: default x, normalized; a zero axis has no direction. (A spherical joint's axis is
/// the twist axis of its limits.)
Vector3 jointAxis(const Reader& r, const XMLElement* e, const Owner& owner) {
  const XMLElement* axis = e->FirstChildElement("axis");
  if (axis == nullptr) return Vector3::UnitX();
  const Vector3 xyz = vector3(r, axis, owner, "xyz", Vector3::UnitX());
  if (xyz.norm() < 1e-12) fail(r, axis, owner, quoteAttribute(axis, owner, "xyz") + ": zero axis");
  return xyz.normalized();
}

/// Bullet's spherical `<limit>`: `upper` is the swing span about both axes orthogonal to `axis`
/// (Bullet's importer uses the one value for both), `twist` the span about `axis`. Bullet ignores
/// `lower`; here it is read (a malformed value is still an error), then ignored with a warning,
/// since a reader may expect it to mean something.
void swingTwistSpans(Reader& r, const XMLElement* limit, const Owner& owner, JointDescription& j) {
  const auto lower = optionalNumber(r, limit, owner, "lower");
  const auto upper = optionalNumber(r, limit, owner, "upper");
  const auto twist = optionalNumber(r, limit, owner, "twist");
  if (upper) {
    if (*upper < 0.0) {
      fail(r, limit, owner,
           quoteAttribute(limit, owner, "upper") + ": a swing span must not be negative");
    }
    j.swing1 = j.swing2 = *upper;
  }
  if (twist) {
    if (*twist < 0.0) {
      fail(r, limit, owner,
           quoteAttribute(limit, owner, "twist") + ": a twist span must not be negative");
    }
    j.twist = *twist;
  }
  if (lower) {
    warn(r, limit, owner,
         quoteAttribute(limit, owner, "lower") +
             " is ignored: a spherical joint's swing span is `upper`, as in Bullet");
  }
}

/// `<limit>`. A missing attribute keeps the JointLimits default: lower/upper -inf/+inf (the URDF
/// spec's default 0 would lock the joint), effort and velocity +inf. Only revolute and prismatic
/// joints have a position range (continuous joints ignore lower and upper, as the spec says, and a
/// planar joint has no single coordinate to bound); spherical ones have swing and twist spans.
void jointLimits(Reader& r, const XMLElement* e, const Owner& owner, const std::string& type,
                 JointDescription& j) {
  const bool ranged = type == "revolute" || type == "prismatic";
  const XMLElement* limit = e->FirstChildElement("limit");
  if (limit == nullptr) {
    if (ranged) {
      warn(r, e, owner, type + " joint without <limit>: no position, effort or velocity limits");
    }
    return;
  }
  j.limits.effort = optionalNumber(r, limit, owner, "effort").value_or(j.limits.effort);
  j.limits.velocity = optionalNumber(r, limit, owner, "velocity").value_or(j.limits.velocity);
  if (type == "spherical") {
    swingTwistSpans(r, limit, owner, j);
    return;
  }
  const auto lower = optionalNumber(r, limit, owner, "lower");
  const auto upper = optionalNumber(r, limit, owner, "upper");
  if (ranged) {
    j.limits.lower = lower.value_or(j.limits.lower);
    j.limits.upper = upper.value_or(j.limits.upper);
  } else if (type == "planar" && (lower || upper)) {
    warn(r, limit, owner, "lower and upper are ignored: a planar joint has no position range");
  }
}

/// A `<joint>`: its type (URDF's, plus Bullet's spherical), links and origin; for the types that
/// have them, its axis, limits and `<dynamics>` (fixed and floating joints have none: whatever the
/// file gives is ignored).
JointDescription joint(Reader& r, const XMLElement* e) {
  JointDescription j;
  j.name = requiredString(r, e, Owner{e, ""}, "name");
  j.source_line = e->GetLineNum();
  const Owner owner{e, j.name};
  const std::string type = requiredString(r, e, owner, "type");
  const std::optional<JointType> joint_type = jointTypeFromUrdf(type);
  if (!joint_type) {
    fail(r, e, owner,
         "unknown joint type \"" + type + "\" (expected " + urdfJointTypeNames() + ")");
  }
  j.type = *joint_type;
  j.parent = jointLink(r, e, owner, "parent");
  j.child = jointLink(r, e, owner, "child");
  j.X_PJ = origin(r, e, owner);
  if (type == "fixed" || type == "floating") return j;
  j.axis = jointAxis(r, e, owner);
  jointLimits(r, e, owner, type, j);
  if (const XMLElement* dynamics = e->FirstChildElement("dynamics")) {
    j.limits.damping = optionalNumber(r, dynamics, owner, "damping").value_or(0.0);
    j.limits.friction = optionalNumber(r, dynamics, owner, "friction").value_or(0.0);
  }
  if (const XMLElement* mimic = e->FirstChildElement("mimic")) {
    warn(r, mimic, owner, "<mimic> is not supported: the joint moves independently");
  }
  return j;
}

/// What is wrong with a document tinyxml2 could not parse, in words, with tinyxml2's detail (the
/// element or text it stopped at) when it gives one.
std::string xmlProblem(const tinyxml2::XMLDocument& doc) {
  std::string problem;
  switch (doc.ErrorID()) {
    case tinyxml2::XML_ERROR_EMPTY_DOCUMENT:
      return "not a valid XML document (empty)";
    case tinyxml2::XML_ERROR_MISMATCHED_ELEMENT:
      problem = "an end tag does not match its start tag";
      break;
    case tinyxml2::XML_ERROR_PARSING_ELEMENT:
      problem = "an element cannot be read (unclosed or misspelt tag)";
      break;
    case tinyxml2::XML_ERROR_PARSING_ATTRIBUTE:
      problem = "an attribute cannot be read (missing quotes or '=')";
      break;
    case tinyxml2::XML_ERROR_PARSING_COMMENT:
      problem = "a comment is not closed";
      break;
    default:
      problem = std::string("cannot be parsed (") + doc.ErrorName() + ")";
  }
  // tinyxml2's "Error=... Line number=N: detail".
  const std::string text = doc.ErrorStr();
  const size_t line = text.find("Line number=");
  const size_t detail = line == std::string::npos ? line : text.find(": ", line);
  if (detail != std::string::npos) problem += ": " + text.substr(detail + 2);
  return "not a valid XML document: " + problem;
}

/// Reads a whole document. `xml` may end with NUL bytes (Bullet's humanoid does).
RobotDescription read(Reader& r, std::string xml) {
  // Drop trailing NULs and whitespace; a NUL anywhere else would silently cut the document short.
  while (!xml.empty() && (xml.back() == '\0' || isSpace(xml.back()))) xml.pop_back();
  const size_t nul = xml.find('\0');
  if (nul != std::string::npos) {
    const auto line =
        1 + std::count(xml.begin(), xml.begin() + static_cast<std::ptrdiff_t>(nul), '\n');
    throw UrdfError(r.source + ":" + std::to_string(line) + ": NUL byte inside the document");
  }

  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.data(), xml.size()) != tinyxml2::XML_SUCCESS) {
    throw UrdfError(r.source + ":" + std::to_string(std::max(1, doc.ErrorLineNum())) + ": " +
                    xmlProblem(doc));
  }
  const XMLElement* robot = doc.RootElement();
  if (robot == nullptr || std::strcmp(robot->Name(), "robot") != 0) {
    const int line = robot != nullptr ? robot->GetLineNum() : 1;
    throw UrdfError(r.source + ":" + std::to_string(line) + ": root element is " +
                    (robot != nullptr ? tag(robot) : std::string("missing")) +
                    ", expected <robot>");
  }

  RobotDescription d;
  d.source = r.source;
  if (const char* name = robot->Attribute("name")) d.name = name;

  // Top-level materials first: visuals may use them before they are defined.
  for (const XMLElement* m = robot->FirstChildElement("material"); m;
       m = m->NextSiblingElement("material")) {
    const std::string name = requiredString(r, m, Owner{m, ""}, "name");
    const Owner owner{m, name};
    const XMLElement* color = m->FirstChildElement("color");
    const auto rgba = color != nullptr ? numbers(r, color, owner, "rgba", 4) : std::nullopt;
    if (!rgba) continue;
    if (!r.materials.emplace(name, *rgba).second) {
      warn(r, m, owner, "defined twice: the first definition is used");
    }
  }

  // Links and joints in file order; every other element is skipped. A link named "world" is the
  // world itself, not a link.
  for (const XMLElement* e = robot->FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string_view name = e->Name();
    if (name == "link") {
      LinkDescription l = link(r, e);
      if (l.name != "world") {
        d.links.push_back(std::move(l));
      } else if (e->FirstChildElement() != nullptr) {
        warn(r, e, Owner{e, l.name}, "the world is not a link: its contents are ignored");
      }
    } else if (name == "joint") {
      d.joints.push_back(joint(r, e));
    }
  }
  d.warnings = std::move(r.warnings);
  return d;
}

/// The whole file as bytes. @throws UrdfError if it cannot be read.
std::string readFile(const std::string& path) {
  const auto cannotRead = [&](const std::string& reason) {
    return UrdfError(path + ": cannot read file: " + reason);
  };
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw cannotRead("is a directory");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) throw cannotRead(std::strerror(errno));
  std::string bytes;
  char buffer[65536];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0) bytes.append(buffer, n);
  const bool failed = std::ferror(f) != 0;
  const int error = errno;
  std::fclose(f);
  if (failed) throw cannotRead(std::strerror(error));
  return bytes;
}

}  // namespace

RobotDescription parseUrdfFile(const std::string& path, const UrdfOptions& options) {
  std::string xml = readFile(path);
  const fs::path dir = fs::path(path).parent_path();
  Reader r{path, dir.empty() ? fs::path(".") : dir, options, {}, {}};
  return read(r, std::move(xml));
}

RobotDescription parseUrdfString(const std::string& xml, const std::string& base_dir,
                                 const std::string& label, const UrdfOptions& options) {
  Reader r{label, base_dir.empty() ? fs::path(".") : fs::path(base_dir), options, {}, {}};
  return read(r, xml);
}

Model loadUrdf(const std::string& path, const ModelOptions& model_options,
               const UrdfOptions& urdf_options) {
  return buildModel(parseUrdfFile(path, urdf_options), model_options);
}

}  // namespace gcbridge
