#pragma once
/// @file
/// Programmatic model building: fills a RobotDescription link by link, then buildModel().
///
///     ModelBuilder b("arm");
///     b.addLink("base", 0.0, Vector3::Zero(), Matrix3::Zero());
///     b.addLink("upper", 1.0, Vector3(0, 0, -0.5), Matrix3::Identity() * 0.01);
///     b.addRevolute("shoulder", "base", "upper", Transform::Identity(), Vector3::UnitY());
///     Model model = b.build();

#include <string>
#include <utility>

#include "gcbridge/dynamics/description.hpp"
#include "gcbridge/dynamics/model.hpp"

namespace gcbridge {

class ModelBuilder {
 public:
  explicit ModelBuilder(std::string name = "robot");

  /// Adds a link. @param p_LoLcm_L COM in the link frame [m]; @param I_Lcm_L inertia about the COM
  /// in link axes [kg m^2]. @return the description link index.
  int addLink(const std::string& name, double mass, const Vector3& p_LoLcm_L,
              const Matrix3& I_Lcm_L);
  /// Adds a link with a given description (geometry included).
  int addLink(const LinkDescription& link);

  /// Adds a joint. `parent` "world" (or "") attaches `child` to the world.
  /// @return the description joint index.
  int addJoint(const JointDescription& joint);
  int addRevolute(const std::string& name, const std::string& parent, const std::string& child,
                  const Transform& X_PJ, const Vector3& axis, const JointLimits& limits = {});
  int addPrismatic(const std::string& name, const std::string& parent, const std::string& child,
                   const Transform& X_PJ, const Vector3& axis, const JointLimits& limits = {});
  int addBall(const std::string& name, const std::string& parent, const std::string& child,
              const Transform& X_PJ);
  /// A planar joint: translation in J's plane normal to `axis`, then rotation about it (joint.hpp).
  int addPlanar(const std::string& name, const std::string& parent, const std::string& child,
                const Transform& X_PJ, const Vector3& axis = Vector3::UnitZ());
  int addFixed(const std::string& name, const std::string& parent, const std::string& child,
               const Transform& X_PJ);
  int addFree(const std::string& name, const std::string& parent, const std::string& child,
              const Transform& X_PJ = Transform::Identity());

  const RobotDescription& description() const { return description_; }
  /// Where the description came from (RobotDescription::source; default "<builder>").
  void setSource(std::string source) { description_.source = std::move(source); }
  /// Validates and builds (see buildModel). The builder can be reused afterwards.
  Model build(const ModelOptions& options = {}) const;

 private:
  RobotDescription description_;
};

}  // namespace gcbridge
