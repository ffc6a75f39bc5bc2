#pragma once
// Private to the bridge: the joint motors of Bullet's constraint classes, which world inference
// refuses or switches off (the controller drives the joints).

#include <BulletDynamics/ConstraintSolver/btTypedConstraint.h>

#include <string>

#include "gcbridge/bridge/bullet_precision.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace inference {

/// The motors enabled on `c` (non-const: Bullet's motor getters are): "its angular motor", "the
/// motors of its axes 3 and 5" (6-DOF axes 0-2 linear, 3-5 angular); empty for none.
std::string enabledMotors(btTypedConstraint* c);

/// Switches every motor of `c` off; its limits, springs and everything else stay as they are.
void switchMotorsOff(btTypedConstraint* c);

}  // namespace inference
GCBRIDGE_BULLET_NAMESPACE_END
