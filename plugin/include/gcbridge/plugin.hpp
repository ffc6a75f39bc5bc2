#pragma once
/// @file
/// Everything of gcbridge::plugin: every public header of the library (a test checks that none
/// is left out).

#include "gcbridge/plugin/plugin.hpp"
