#include "gcbridge/dynamics/model_builder.hpp"

#include <utility>

#include "gcbridge/dynamics/detail/enum_names.hpp"

namespace gcbridge {

namespace {

constexpr auto kGeometryNames =
    detail::enumNames<Geometry::Type>({{Geometry::Type::Box, "box"},
                                       {Geometry::Type::Sphere, "sphere"},
                                       {Geometry::Type::Cylinder, "cylinder"},
                                       {Geometry::Type::Capsule, "capsule"},
                                       {Geometry::Type::Mesh, "mesh"}});

}  // namespace

const char* toString(Geometry::Type type) { return kGeometryNames.name(type); }

int RobotDescription::findLink(const std::string& link_name) const {
  for (size_t i = 0; i < links.size(); ++i) {
    if (links[i].name == link_name) return static_cast<int>(i);
  }
  return -1;
}

int RobotDescription::findJoint(const std::string& joint_name) const {
  for (size_t i = 0; i < joints.size(); ++i) {
    if (joints[i].name == joint_name) return static_cast<int>(i);
  }
  return -1;
}

ModelBuilder::ModelBuilder(std::string name) {
  description_.name = std::move(name);
  description_.source = "<builder>";
}

int ModelBuilder::addLink(const std::string& name, double mass, const Vector3& p_LoLcm_L,
                          const Matrix3& I_Lcm_L) {
  LinkDescription link;
  link.name = name;
  link.mass = mass;
  link.p_LoLcm_L = p_LoLcm_L;
  link.I_Lcm_L = I_Lcm_L;
  return addLink(link);
}

int ModelBuilder::addLink(const LinkDescription& link) {
  description_.links.push_back(link);
  return static_cast<int>(description_.links.size()) - 1;
}

int ModelBuilder::addJoint(const JointDescription& joint) {
  description_.joints.push_back(joint);
  return static_cast<int>(description_.joints.size()) - 1;
}

namespace {
JointDescription makeJoint(const std::string& name, JointType type, const std::string& parent,
                           const std::string& child, const Transform& X_PJ, const Vector3& axis,
                           const JointLimits& limits) {
  JointDescription j;
  j.name = name;
  j.type = type;
  j.parent = parent;
  j.child = child;
  j.X_PJ = X_PJ;
  j.axis = axis;
  j.limits = limits;
  return j;
}
}  // namespace

int ModelBuilder::addRevolute(const std::string& name, const std::string& parent,
                              const std::string& child, const Transform& X_PJ, const Vector3& axis,
                              const JointLimits& limits) {
  return addJoint(makeJoint(name, JointType::Revolute, parent, child, X_PJ, axis, limits));
}

int ModelBuilder::addPrismatic(const std::string& name, const std::string& parent,
                               const std::string& child, const Transform& X_PJ, const Vector3& axis,
                               const JointLimits& limits) {
  return addJoint(makeJoint(name, JointType::Prismatic, parent, child, X_PJ, axis, limits));
}

int ModelBuilder::addBall(const std::string& name, const std::string& parent,
                          const std::string& child, const Transform& X_PJ) {
  return addJoint(makeJoint(name, JointType::Ball, parent, child, X_PJ, Vector3::UnitZ(), {}));
}

int ModelBuilder::addPlanar(const std::string& name, const std::string& parent,
                            const std::string& child, const Transform& X_PJ, const Vector3& axis) {
  return addJoint(makeJoint(name, JointType::Planar, parent, child, X_PJ, axis, {}));
}

int ModelBuilder::addFixed(const std::string& name, const std::string& parent,
                           const std::string& child, const Transform& X_PJ) {
  return addJoint(makeJoint(name, JointType::Fixed, parent, child, X_PJ, Vector3::UnitZ(), {}));
}

int ModelBuilder::addFree(const std::string& name, const std::string& parent,
                          const std::string& child, const Transform& X_PJ) {
  return addJoint(makeJoint(name, JointType::Free, parent, child, X_PJ, Vector3::UnitZ(), {}));
}

Model ModelBuilder::build(const ModelOptions& options) const {
  return buildModel(description_, options);
}

}  // namespace gcbridge
