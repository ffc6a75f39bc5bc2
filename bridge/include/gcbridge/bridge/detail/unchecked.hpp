#pragma once
/// @file
/// Entry points without some of the public functions' checks, for gcbridge's plugin, which has
/// made those checks itself earlier in the same substep. On what the plugin passes they do exactly
/// what the checked functions do. Internal to gcbridge (namespace detail): the API does not offer
/// them.

#include <Eigen/Core>

#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/bridge/rigid_body_map.hpp"
#include "gcbridge/dynamics/model.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace detail {

/// addJointForces without the world check and without checking bdata or tau: the plugin read
/// the state this substep through readState (which checks the model, the world and the bodies'
/// state against the map) and checked tau's size and values when its controller returned it;
/// only the controller ran in between. @throws SingularityError for an Euler-angle ball at gimbal
/// lock (nothing is applied then).
void addJointForcesUnchecked(const Model& model, const RigidBodyMap& map, BridgeData& bdata,
                             const Eigen::VectorXd& tau);

}  // namespace detail
GCBRIDGE_BULLET_NAMESPACE_END
