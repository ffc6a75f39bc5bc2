#pragma once
/// @file
/// Everything of gcbridge::bridge: every public header of the library (a test checks that none
/// is left out).

#include "gcbridge/bridge/bullet_file.hpp"
#include "gcbridge/bridge/bullet_precision.hpp"
#include "gcbridge/bridge/contact_reading.hpp"
#include "gcbridge/bridge/force_conversion.hpp"
#include "gcbridge/bridge/joint_motors.hpp"
#include "gcbridge/bridge/multibody_builder.hpp"
#include "gcbridge/bridge/multibody_inference.hpp"
#include "gcbridge/bridge/multibody_motors.hpp"
#include "gcbridge/bridge/rigid_body_map.hpp"
#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/bridge/world_inference.hpp"
