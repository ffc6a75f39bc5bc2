#pragma once
/// @file
/// Everything of gcbridge::controllers: every public header of the library (a test checks that none
/// is left out).

#include "gcbridge/controllers/computed_torque.hpp"
#include "gcbridge/controllers/controller.hpp"
#include "gcbridge/controllers/floating_base_controller.hpp"
#include "gcbridge/controllers/joint_control_mode.hpp"
#include "gcbridge/controllers/joint_pd.hpp"
#include "gcbridge/controllers/quadratic_program.hpp"
#include "gcbridge/controllers/stable_pd.hpp"
#include "gcbridge/controllers/support_polygon.hpp"
#include "gcbridge/controllers/task_space_controller.hpp"
#include "gcbridge/controllers/torque_limits.hpp"
#include "gcbridge/controllers/tracking_error.hpp"
#include "gcbridge/controllers/trajectory.hpp"
