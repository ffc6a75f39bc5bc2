// The bridge's per-substep path allocates nothing after the first call (counting_malloc.hpp):
// reading the state with the sparse method, converting and applying joint forces both ways, and
// writing a state, on a fixed-base arm and on a floating humanoid.

#include <gtest/gtest.h>

#include "counting_malloc.hpp"
#include "gcbridge/bridge/force_conversion.hpp"
#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::allocationsOf;

TEST(BridgeAllocation, SparseStateAndForcesAllocateNothing) {
  for (const test::ShippedModel& shipped : {test::shippedModels()[0], test::shippedModels()[2]}) {
    SCOPED_TRACE(shipped.file);
    ModelOptions options;
    options.floating_base = shipped.floating;
    const Model model = loadUrdf(test::modelPath(shipped.file), options);
    const Eigen::VectorXd q0 = randomConfiguration(model, 1);
    const Eigen::VectorXd v0 = randomVector(model.nv, 2);
    const Eigen::VectorXd tau = randomVector(model.nv, 3);
    auto w = buildRigidBodyWorld(model, {}, q0, v0);
    const RigidBodyMap& map = *w->map;
    BridgeData bdata(model);
    Eigen::VectorXd q, v, Q;
    const std::vector<LinkWrench> wrenches = {LinkWrench{1, Vector3(0.1, 0.2, 0.3),
                                                         Vector3(1, 2, 3), Vector3(0, 0, 1)}};
    // First calls size the outputs.
    readState(model, map, bdata, q, v);
    generalizedForceFromWrenches(model, bdata, wrenches, Q);
    EXPECT_EQ(allocationsOf([&] { readPositions(model, map, bdata, q); }), 0);
    EXPECT_EQ(allocationsOf([&] { readVelocities(model, map, bdata, v); }), 0);
    EXPECT_EQ(allocationsOf([&] { computeJointErrors(model, map, bdata); }), 0);
    EXPECT_EQ(allocationsOf([&] { addJointForces(model, map, bdata, tau); }), 0);
    EXPECT_EQ(allocationsOf([&] { removeJointForces(model, map, bdata); }), 0);
    EXPECT_EQ(allocationsOf([&] { applyJointImpulses(model, map, bdata, tau, 1e-3); }), 0);
    EXPECT_EQ(allocationsOf([&] { generalizedForceFromWrenches(model, bdata, wrenches, Q); }), 0);
    EXPECT_EQ(allocationsOf([&] { generalizedForceFromBodyForces(model, map, bdata, Q); }), 0);
    EXPECT_EQ(allocationsOf([&] { writeState(model, map, bdata, q0, v0); }), 0);
  }
}

}  // namespace
}  // namespace gcbridge
