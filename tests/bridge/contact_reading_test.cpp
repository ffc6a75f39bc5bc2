// Contacts read from Bullet's manifolds: a free box resting on the ground plane touches it at its
// four bottom corners, the normals up, with Bullet's combined friction, in a stable order; J_c v
// at those points is the bodies' own point velocities; a sliding box's points are on the box; a
// hovering one's are filtered by distance.

#include "gcbridge/bridge/contact_reading.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "bullet_test_world.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

constexpr bool kDouble = sizeof(btScalar) == 8;

// The free box (test::freeBoxModel) on Bullet's ground plane, dropped from touching height and
// left `steps` substeps to settle, its state read into bdata (q_read).
std::unique_ptr<RigidBodyWorld> restingBox(const Model& model, int steps, BridgeData& bdata,
                                           Eigen::VectorXd& q_read) {
  RigidBodyOptions options;
  options.ground_plane = true;
  Eigen::VectorXd q = neutralConfiguration(model);
  q(2) = 0.05;
  auto w = buildRigidBodyWorld(model, options, q);
  for (int i = 0; i < steps; ++i) w->step();
  readPositions(model, *w->map, bdata, q_read);
  return w;
}

TEST(ContactReading, ABoxRestingOnTheGroundTouchesItAtItsCorners) {
  const Model model = test::freeBoxModel();
  BridgeData bdata(model);
  Eigen::VectorXd q_read;
  auto w = restingBox(model, 240, bdata, q_read);
  const std::vector<ContactPoint> contacts = readContacts(model, *w->map);
  ASSERT_EQ(contacts.size(), 4u);
  const double friction = w->map->body(0)->getFriction() * w->bodies.back()->getFriction();
  for (std::size_t i = 0; i < 4; ++i) {
    const ContactPoint& c = contacts[i];
    EXPECT_EQ(c.link, 0);
    // The corners, (-+0.1, -+0.1, -0.05), in the order x, then y: to 1e-6 m (measured 7e-8: the
    // box's shape is stored in single precision, and it rests a hair into the ground).
    const Vector3 corner(i < 2 ? -0.1 : 0.1, i % 2 == 0 ? -0.1 : 0.1, -0.05);
    EXPECT_TRUE(matricesNear(c.p_LC, corner, 1e-6)) << c.p_LC.transpose();
    EXPECT_TRUE(matricesNear(c.n_W, Vector3::UnitZ(), kDouble ? 1e-12 : 1e-6));
    EXPECT_NEAR(c.friction, friction, kDouble ? 1e-15 : 1e-7);
  }
  // J_c v: the points' velocities as Bullet moves the body, at a random velocity.
  const Eigen::VectorXd v = randomVector(model.nv, 5, 1.0);
  writeState(model, *w->map, bdata, q_read, v);
  Data data(model);
  Eigen::MatrixXd J_c(12, model.nv);
  contactJacobian(model, data, q_read, contacts, J_c);
  const btRigidBody* body = w->map->body(0);
  for (std::size_t i = 0; i < 4; ++i) {
    const Vector3 p_WC = bdata.X_WL[0].actPoint(contacts[i].p_LC);
    const btVector3 v_bullet = body->getVelocityInLocalPoint(
        btVector3(p_WC.x(), p_WC.y(), p_WC.z()) - body->getCenterOfMassPosition());
    const Vector3 expected(v_bullet.x(), v_bullet.y(), v_bullet.z());
    EXPECT_TRUE(matricesNear(J_c.middleRows<3>(3 * i) * v, expected, kDouble ? 1e-12 : 1e-5))
        << i;
  }
}

// A box sliding at 1 m/s: its points are where they are on the box, not a substep behind (which
// would be 4 mm at 240 Hz); a box 0.5 mm above the ground touches within the default 1 mm, not
// within 0.1 mm; a negative distance is refused.
TEST(ContactReading, SlidingAndHoveringBoxes) {
  const Model model = test::freeBoxModel();
  BridgeData bdata(model);
  Eigen::VectorXd q_read, v = Eigen::VectorXd::Zero(model.nv);
  auto w = restingBox(model, 120, bdata, q_read);
  v(3) = 1.0;  // the free joint's linear velocity, in the box's frame (level: world x)
  writeState(model, *w->map, bdata, q_read, v);
  w->step();
  const std::vector<ContactPoint> sliding = readContacts(model, *w->map);
  ASSERT_EQ(sliding.size(), 4u);
  for (const ContactPoint& c : sliding) {
    EXPECT_NEAR(std::abs(c.p_LC.x()), 0.1, 1e-6) << c.p_LC.transpose();
    EXPECT_NEAR(c.p_LC.z(), -0.05, 1e-6) << c.p_LC.transpose();
  }
  Eigen::VectorXd q = q_read;
  q(2) = 0.0505;
  writeState(model, *w->map, bdata, q, Eigen::VectorXd::Zero(model.nv));
  w->world->performDiscreteCollisionDetection();
  EXPECT_EQ(readContacts(model, *w->map).size(), 4u);
  ContactReadOptions near;
  near.max_distance = 1e-4;
  EXPECT_TRUE(readContacts(model, *w->map, near).empty());
  near.max_distance = -1.0;
  EXPECT_THROW(readContacts(model, *w->map, near), InvalidArgumentError);
}

}  // namespace
}  // namespace gcbridge
