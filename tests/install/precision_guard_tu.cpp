// A translation unit that includes gcbridge's Bullet precision guard. tests/install/
// bullet_precision_guard.cmake compiles it with the Bullet flags gcbridge was built with (it must
// compile) and with the other precision's flags (its static_assert must stop the compilation).

#include "gcbridge/bridge/bullet_precision.hpp"

int main() { return gcbridge::bulletScalarSize() == static_cast<int>(sizeof(btScalar)) ? 0 : 1; }
