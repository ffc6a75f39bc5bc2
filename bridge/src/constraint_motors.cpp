#include "constraint_motors.hpp"

#include <BulletDynamics/ConstraintSolver/btConeTwistConstraint.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofConstraint.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofSpring2Constraint.h>
#include <BulletDynamics/ConstraintSolver/btGeneric6DofSpringConstraint.h>
#include <BulletDynamics/ConstraintSolver/btHingeConstraint.h>
#include <BulletDynamics/ConstraintSolver/btSliderConstraint.h>

#include <vector>

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace inference {
namespace {

/// Per 6-DOF axis (0-2 linear, 3-5 angular), a pointer to its motor's enable flag (nullptr for
/// a sprung axis); empty for other classes.
std::vector<bool*> axisMotorFlags(btTypedConstraint* c) {
  std::vector<bool*> flags;
  if (auto* dof = dynamic_cast<btGeneric6DofSpring2Constraint*>(c)) {
    for (int a = 0; a < 3; ++a)
      flags.push_back(&dof->getTranslationalLimitMotor()->m_enableMotor[a]);
    for (int a = 0; a < 3; ++a) flags.push_back(&dof->getRotationalLimitMotor(a)->m_enableMotor);
  } else if (auto* dof6 = dynamic_cast<btGeneric6DofConstraint*>(c)) {
    for (int a = 0; a < 3; ++a) {
      flags.push_back(&dof6->getTranslationalLimitMotor()->m_enableMotor[a]);
    }
    for (int a = 0; a < 3; ++a) flags.push_back(&dof6->getRotationalLimitMotor(a)->m_enableMotor);
    // btGeneric6DofSpringConstraint drives a sprung axis through that axis' motor: the flag is the
    // spring's, not a motor of its own.
    if (auto* spring = dynamic_cast<btGeneric6DofSpringConstraint*>(c)) {
      for (int a = 0; a < 6; ++a) {
        if (spring->isSpringEnabled(a)) flags[a] = nullptr;
      }
    }
  }
  return flags;
}

/// "its angular motor" and "its linear motor" of a slider, or "" and "".
std::string sliderMotors(btSliderConstraint* slider) {
  const bool linear = slider->getPoweredLinMotor(), angular = slider->getPoweredAngMotor();
  if (linear && angular) return "its linear and angular motors";
  if (linear) return "its linear motor";
  return angular ? "its angular motor" : "";
}

}  // namespace

std::string enabledMotors(btTypedConstraint* c) {
  if (auto* hinge = dynamic_cast<btHingeConstraint*>(c)) {
    return hinge->getEnableAngularMotor() ? "its angular motor" : "";
  }
  if (auto* slider = dynamic_cast<btSliderConstraint*>(c)) return sliderMotors(slider);
  if (auto* cone = dynamic_cast<btConeTwistConstraint*>(c)) {
    return cone->isMotorEnabled() ? "its motor" : "";
  }
  std::vector<int> axes;
  const std::vector<bool*> flags = axisMotorFlags(c);
  for (int a = 0; a < static_cast<int>(flags.size()); ++a) {
    if (flags[a] != nullptr && *flags[a]) axes.push_back(a);
  }
  if (axes.empty()) return "";
  if (axes.size() == 1) return "the motor of its axis " + std::to_string(axes[0]);
  std::string list = "the motors of its axes " + std::to_string(axes[0]);
  for (std::size_t i = 1; i < axes.size(); ++i) {
    list += (i + 1 == axes.size() ? " and " : ", ") + std::to_string(axes[i]);
  }
  return list;
}

void switchMotorsOff(btTypedConstraint* c) {
  if (auto* hinge = dynamic_cast<btHingeConstraint*>(c)) {
    hinge->enableMotor(false);
  } else if (auto* slider = dynamic_cast<btSliderConstraint*>(c)) {
    slider->setPoweredLinMotor(false);
    slider->setPoweredAngMotor(false);
  } else if (auto* cone = dynamic_cast<btConeTwistConstraint*>(c)) {
    cone->enableMotor(false);
  } else {
    for (bool* flag : axisMotorFlags(c)) {
      if (flag != nullptr) *flag = false;
    }
  }
}

}  // namespace inference
GCBRIDGE_BULLET_NAMESPACE_END
