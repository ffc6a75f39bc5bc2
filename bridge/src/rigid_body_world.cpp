#include "gcbridge/bridge/rigid_body_world.hpp"

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btCylinderShape.h>
#include <BulletCollision/CollisionShapes/btShapeHull.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <BulletDynamics/ConstraintSolver/btConeTwistConstraint.h>
#include <BulletDynamics/ConstraintSolver/btFixedConstraint.h>
#include <BulletDynamics/ConstraintSolver/btHingeConstraint.h>
#include <BulletDynamics/ConstraintSolver/btPoint2PointConstraint.h>
#include <BulletDynamics/ConstraintSolver/btSliderConstraint.h>
#include <BulletDynamics/ConstraintSolver/btUniversalConstraint.h>
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <cmath>
#include <map>
#include <string>

#include "bullet_conversions.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/kinematics.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

namespace {

using detail::quoted;
using detail::toBullet;
using detail::toBulletTransform;

/// Collision margin of mesh hulls [m] (the hull is reduced by btShapeHull without a margin).
constexpr double kMeshMargin = 0.001;

/// A rotation whose `column`-th axis is the unit vector a (the rest completed orthonormally).
Matrix3 frameWithAxis(const Vector3& a, int column) {
  const Vector3 z = a.normalized();
  const Vector3 helper = std::abs(z.x()) < 0.9 ? Vector3::UnitX() : Vector3::UnitY();
  const Vector3 x = helper.cross(z).normalized();
  const Vector3 y = z.cross(x);
  Matrix3 R;
  // Cyclic order keeps det +1: the axis in `column`, then the next two.
  R.col(column) = z;
  R.col((column + 1) % 3) = x;
  R.col((column + 2) % 3) = y;
  return R;
}

/// The convex hull of a mesh file's vertices, scaled, reduced by btShapeHull.
std::unique_ptr<btConvexHullShape> loadMeshHull(const Model& model, int k,
                                                const Geometry& geometry) {
  const std::string where = "buildRigidBodyWorld: link " + quoted(model.link_names[k]) +
                            ": collision mesh " + quoted(geometry.mesh_uri);
  if (geometry.mesh_path.empty()) throw InvalidArgumentError(where + " was not found on disk");
  const aiScene* scene = aiImportFile(
      geometry.mesh_path.c_str(),
      aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_PreTransformVertices);
  if (scene == nullptr) {
    throw InvalidArgumentError(where + " (" + geometry.mesh_path +
                               ") cannot be read: " + aiGetErrorString());
  }
  btConvexHullShape points;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[m];
    for (unsigned i = 0; i < mesh->mNumVertices; ++i) {
      const aiVector3D& p = mesh->mVertices[i];
      points.addPoint(btVector3(p.x * geometry.mesh_scale.x(), p.y * geometry.mesh_scale.y(),
                                p.z * geometry.mesh_scale.z()),
                      false);
    }
  }
  aiReleaseImport(scene);
  if (points.getNumPoints() < 4) throw InvalidArgumentError(where + " has fewer than 4 vertices");
  points.recalcLocalAabb();
  points.setMargin(0);
  btShapeHull hull(&points);
  hull.buildHull(0);
  auto shape = std::make_unique<btConvexHullShape>(
      reinterpret_cast<const btScalar*>(hull.getVertexPointer()), hull.numVertices());
  shape->setMargin(kMeshMargin);
  return shape;
}

/// One primitive or mesh collision shape.
std::unique_ptr<btCollisionShape> makeShape(const Model& model, int k, const Geometry& geometry) {
  switch (geometry.type) {
    case Geometry::Type::Box:
      return std::make_unique<btBoxShape>(toBullet(0.5 * geometry.box_size));
    case Geometry::Type::Sphere:
      return std::make_unique<btSphereShape>(geometry.radius);
    case Geometry::Type::Cylinder:
      return std::make_unique<btCylinderShapeZ>(
          btVector3(geometry.radius, geometry.radius, 0.5 * geometry.length));
    case Geometry::Type::Capsule:
      return std::make_unique<btCapsuleShapeZ>(geometry.radius, geometry.length);
    case Geometry::Type::Mesh:
      return loadMeshHull(model, k, geometry);
  }
  return nullptr;
}

/// The link a bodiless (massless) link's single child is, after checking that the pair is a
/// universal joint: two revolute joints, orthogonal axes, coincident pivots.
int universalChild(const Model& model, int k) {
  const std::string where = "buildRigidBodyWorld: link " + quoted(model.link_names[k]);
  const Joint& first = model.joints[k];
  if (model.children[k].size() != 1 || first.type != JointType::Revolute) {
    throw InvalidArgumentError(
        where +
        " is massless; a massless link cannot be a Bullet body, and it is not the middle "
        "of a universal joint (one revolute joint in, one revolute joint out)");
  }
  const int c = model.children[k][0];
  const Joint& second = model.joints[c];
  if (second.type != JointType::Revolute || model.inertias[c].mass() <= 0.0) {
    throw InvalidArgumentError(where + " is massless and its child " + quoted(model.link_names[c]) +
                               " is not a massive link on a revolute joint; only a universal "
                               "joint (revolute, massless link, revolute) can be built");
  }
  const Vector3 w = second.X_PJ.rotation() * second.axis;
  if (second.X_PJ.translation().norm() > 1e-12 || std::abs(first.axis.dot(w)) > 1e-9) {
    throw InvalidArgumentError("buildRigidBodyWorld: joints " + quoted(first.name) + " and " +
                               quoted(second.name) + " through massless link " +
                               quoted(model.link_names[k]) +
                               " are not a universal joint: the pivots must coincide and the "
                               "axes be orthogonal");
  }
  return c;
}

/// Everything buildRigidBodyWorld rejects, checked before anything is allocated.
void checkModel(const Model& model, const RigidBodyOptions& options) {
  const int nlinks = model.numLinks();
  if (nlinks == 0) {
    throw InvalidArgumentError("buildRigidBodyWorld: model " + quoted(model.name) + " has no link");
  }
  if (!(options.substep > 0.0) || !std::isfinite(options.substep) ||
      options.solver_iterations < 1 || !(options.erp >= 0.0 && options.erp <= 1.0) ||
      !(options.cfm >= 0.0) || !(options.linear_damping >= 0.0) ||
      !(options.angular_damping >= 0.0)) {
    throw InvalidArgumentError(
        "buildRigidBodyWorld: options need substep > 0, solver_iterations >= 1, erp in [0, 1], "
        "cfm >= 0 and damping >= 0");
  }
  for (int k = 0; k < nlinks; ++k) {
    const Joint& joint = model.joints[k];
    if ((model.parents[k] == -1) != (k == 0) || model.parents[k] >= k) {
      throw InvalidArgumentError("buildRigidBodyWorld: link " + quoted(model.link_names[k]) +
                                 " is not in a single tree rooted at link 0 with parents "
                                 "numbered first");
    }
    if (joint.type == JointType::Free && k != 0) {
      throw InvalidArgumentError("buildRigidBodyWorld: free joint " + quoted(joint.name) +
                                 " is below the root; only the root can be free");
    }
    Transform X_LB;
    Quaternion Q_LB;
    Vector3 I_Bcm_B;
    detail::principalFrame(model, k, "buildRigidBodyWorld", X_LB, Q_LB, I_Bcm_B);
    const bool fixed_root = k == 0 && joint.type == JointType::Fixed;
    if (fixed_root) continue;
    if (model.inertias[k].mass() <= 0.0) {
      if (I_Bcm_B.norm() > 0.0) {
        throw InvalidArgumentError("buildRigidBodyWorld: link " + quoted(model.link_names[k]) +
                                   " has zero mass but a non-zero inertia");
      }
      universalChild(model, k);
    } else if (I_Bcm_B.minCoeff() <= 0.0) {
      // Bullet reads a zero moment as an infinite one (its inverse is set to 0).
      throw InvalidArgumentError(
          "buildRigidBodyWorld: link " + quoted(model.link_names[k]) +
          " has a zero principal moment of inertia; Bullet would lock its rotation about that "
          "axis (btRigidBody::setMassProps inverts only non-zero moments)");
    }
  }
}

/// The model's description joint of a model joint (for swing/twist limits), or nullptr.
const JointDescription* describedJoint(const Model& model, int k) {
  if (!model.description) return nullptr;
  const int j = model.description->findJoint(model.joints[k].name);
  return j < 0 ? nullptr : &model.description->joints[j];
}

}  // namespace

RigidBodyWorld::~RigidBodyWorld() {
  map.reset();
  if (world) {
    for (auto& constraint : constraints) world->removeConstraint(constraint.get());
    for (auto& body : bodies) world->removeRigidBody(body.get());
  }
  // The world before what it points at; shapes and bodies after the world.
  world.reset();
}

void RigidBodyWorld::step() { world->stepSimulation(options.substep, 1, options.substep); }

std::unique_ptr<RigidBodyWorld> buildRigidBodyWorld(const Model& model,
                                                    const RigidBodyOptions& options,
                                                    const Eigen::VectorXd& q,
                                                    const Eigen::VectorXd& v) {
  // Everything that can reject the model or the state runs before anything is allocated.
  checkModel(model, options);
  const Eigen::VectorXd q0 = q.size() == 0 ? neutralConfiguration(model) : q;
  const Eigen::VectorXd v0 = v.size() == 0 ? Eigen::VectorXd::Zero(model.nv) : v;
  validateConfiguration(model, q0);
  validateVelocity(model, v0);
  const int nlinks = model.numLinks();

  auto w = std::make_unique<RigidBodyWorld>();
  w->options = options;
  w->collision_configuration = std::make_unique<btDefaultCollisionConfiguration>();
  w->dispatcher = std::make_unique<btCollisionDispatcher>(w->collision_configuration.get());
  w->broadphase = std::make_unique<btDbvtBroadphase>();
  w->solver = std::make_unique<btSequentialImpulseConstraintSolver>();
  w->world = std::make_unique<btDiscreteDynamicsWorld>(
      w->dispatcher.get(), w->broadphase.get(), w->solver.get(), w->collision_configuration.get());
  btDiscreteDynamicsWorld& world = *w->world;
  world.setGravity(toBullet(model.gravity_W));
  world.getSolverInfo().m_numIterations = options.solver_iterations;
  world.getSolverInfo().m_erp = options.erp;
  world.getSolverInfo().m_globalCfm = options.cfm;

  // Bodies at the neutral configuration: the constraint frames below are read there.
  Data data(model);
  const Eigen::VectorXd q_neutral = neutralConfiguration(model);
  forwardKinematics(model, data, q_neutral);
  std::vector<btRigidBody*> bodies(nlinks, nullptr);
  std::vector<Transform> X_LB(nlinks);
  std::map<std::string, btCollisionShape*> meshes;
  for (int k = 0; k < nlinks; ++k) {
    Quaternion Q_LB;
    Vector3 I_Bcm_B;
    detail::principalFrame(model, k, "buildRigidBodyWorld", X_LB[k], Q_LB, I_Bcm_B);
    const bool fixed_root = k == 0 && model.joints[0].type == JointType::Fixed;
    if (!fixed_root && model.inertias[k].mass() <= 0.0) continue;  // a universal's middle link
    // The collision shape: the link's collision geometry placed in B.
    auto compound = std::make_unique<btCompoundShape>();
    if (options.collision_shapes && model.description) {
      // Every description link on k (its own and those merged into it; a frame says where).
      for (std::size_t f = 0; f < model.frames.size(); ++f) {
        const Frame& frame = model.frames[f];
        if (frame.link != k) continue;
        for (const GeometryInstance& instance : model.description->links[f].collisions) {
          btCollisionShape* child = nullptr;
          const Geometry& geometry = instance.geometry;
          const std::string key = geometry.mesh_path + "|" +
                                  std::to_string(geometry.mesh_scale.x()) + "," +
                                  std::to_string(geometry.mesh_scale.y()) + "," +
                                  std::to_string(geometry.mesh_scale.z());
          if (geometry.type == Geometry::Type::Mesh && meshes.count(key) != 0) {
            child = meshes[key];
          } else {
            w->shapes.push_back(makeShape(model, k, geometry));
            child = w->shapes.back().get();
            if (geometry.type == Geometry::Type::Mesh) meshes[key] = child;
          }
          const Transform X_BG = X_LB[k].inverse() * frame.X_BF * instance.X_LG;
          compound->addChildShape(toBulletTransform(X_BG), child);
        }
      }
    }
    const bool dynamic = !fixed_root;
    const double mass = dynamic ? model.inertias[k].mass() : 0.0;
    btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, compound.get(),
                                                  dynamic ? toBullet(I_Bcm_B) : btVector3(0, 0, 0));
    info.m_startWorldTransform = toBulletTransform(data.X_WB[k] * X_LB[k]);
    info.m_linearDamping = options.linear_damping;
    info.m_angularDamping = options.angular_damping;
    w->shapes.push_back(std::move(compound));
    w->bodies.push_back(std::make_unique<btRigidBody>(info));
    btRigidBody* body = w->bodies.back().get();
    body->setActivationState(DISABLE_DEACTIVATION);
    world.addRigidBody(body);
    bodies[k] = body;
  }

  // One constraint per joint, its frames in the two bodies' B frames at q = 0 (child C = J).
  std::vector<btTypedConstraint*> constraints(nlinks, nullptr);
  std::vector<bool> parent_is_a(nlinks, false);
  for (int k = 0; k < nlinks; ++k) {
    const Joint& joint = model.joints[k];
    const int p = model.parents[k];
    if (bodies[k] == nullptr) {
      // A universal joint: this massless link and its child, one constraint for both joints.
      const int c = universalChild(model, k);
      btRigidBody& parent = p < 0 ? btTypedConstraint::getFixedBody() : *bodies[p];
      const Transform X_WJ = data.X_WB[k];
      const Vector3 axis1_W = X_WJ.rotation() * joint.axis;
      const Vector3 axis2_W = data.X_WB[c].rotation() * model.joints[c].axis;
      w->constraints.push_back(std::make_unique<btUniversalConstraint>(
          parent, *bodies[c], toBullet(X_WJ.translation()), toBullet(axis1_W), toBullet(axis2_W)));
      constraints[k] = constraints[c] = w->constraints.back().get();
      parent_is_a[k] = true;
      parent_is_a[c] = false;
      world.addConstraint(constraints[k], /*disableCollisionsBetweenLinkedBodies=*/true);
      continue;
    }
    if (k == 0 && (joint.type == JointType::Fixed || joint.type == JointType::Free)) continue;
    if (p >= 0 && bodies[p] == nullptr) continue;  // the universal's second joint, made above
    btRigidBody& parent = p < 0 ? btTypedConstraint::getFixedBody() : *bodies[p];
    btRigidBody& child = *bodies[k];
    // X_BpJ: J in the parent's B frame (in W for the world); X_BcJ: J in the child's B frame.
    const Transform X_BpJ = p < 0 ? joint.X_PJ : X_LB[p].inverse() * joint.X_PJ;
    const Transform X_BcJ = X_LB[k].inverse();
    std::unique_ptr<btTypedConstraint> constraint;
    switch (joint.type) {
      case JointType::Revolute: {
        // Hinge axis z; the child is A so that getHingeAngle() is +q (bullet-facts.md).
        const Transform X_JH(frameWithAxis(joint.axis, 2), Vector3::Zero());
        auto hinge = std::make_unique<btHingeConstraint>(
            child, parent, toBulletTransform(X_BcJ * X_JH), toBulletTransform(X_BpJ * X_JH));
        // A hinge limit is a range of the angle modulo 2 pi: a one-sided limit has no such
        // range, and the joint is left unlimited.
        if (std::isfinite(joint.limits.lower) && std::isfinite(joint.limits.upper)) {
          hinge->setLimit(joint.limits.lower, joint.limits.upper);
        }
        constraint = std::move(hinge);
        parent_is_a[k] = false;
        break;
      }
      case JointType::Prismatic: {
        // Slider axis x, rotation about it locked; parent A, child B: position +q.
        const Transform X_JS(frameWithAxis(joint.axis, 0), Vector3::Zero());
        auto slider = std::make_unique<btSliderConstraint>(
            parent, child, toBulletTransform(X_BpJ * X_JS), toBulletTransform(X_BcJ * X_JS),
            /*useLinearReferenceFrameA=*/true);
        // Bullet limits a slider only when lower <= upper: a missing bound becomes one it never
        // reaches, and with neither, lower > upper turns the limit off.
        const bool bounded = std::isfinite(joint.limits.lower) || std::isfinite(joint.limits.upper);
        const auto bound = [&](double limit, double unreached) {
          return std::isfinite(limit) ? limit : (bounded ? unreached : -unreached);
        };
        slider->setLowerLinLimit(bound(joint.limits.lower, -BT_LARGE_FLOAT));
        slider->setUpperLinLimit(bound(joint.limits.upper, BT_LARGE_FLOAT));
        slider->setLowerAngLimit(0.0);
        slider->setUpperAngLimit(0.0);
        constraint = std::move(slider);
        parent_is_a[k] = true;
        break;
      }
      case JointType::Ball: {
        const JointDescription* described = describedJoint(model, k);
        const bool limited = described != nullptr &&
                             (std::isfinite(described->swing1) ||
                              std::isfinite(described->swing2) || std::isfinite(described->twist));
        if (limited) {
          // Cone twist: twist about x = the description's axis, swings about y and z.
          const Transform X_JT(frameWithAxis(joint.axis, 0), Vector3::Zero());
          auto cone = std::make_unique<btConeTwistConstraint>(
              parent, child, toBulletTransform(X_BpJ * X_JT), toBulletTransform(X_BcJ * X_JT));
          const auto span = [](double limit) { return std::isfinite(limit) ? limit : M_PI; };
          cone->setLimit(span(described->swing1), span(described->swing2), span(described->twist));
          constraint = std::move(cone);
        } else {
          constraint = std::make_unique<btPoint2PointConstraint>(
              parent, child, toBullet(X_BpJ.translation()), toBullet(X_BcJ.translation()));
        }
        parent_is_a[k] = true;
        break;
      }
      case JointType::Fixed:
        constraint = std::make_unique<btFixedConstraint>(parent, child, toBulletTransform(X_BpJ),
                                                         toBulletTransform(X_BcJ));
        parent_is_a[k] = true;
        break;
      case JointType::Free:
        break;  // the root only, handled above
    }
    constraints[k] = constraint.get();
    w->constraints.push_back(std::move(constraint));
    world.addConstraint(constraints[k], /*disableCollisionsBetweenLinkedBodies=*/true);
  }

  // A ground plane for contacts.
  if (options.ground_plane) {
    w->shapes.push_back(std::make_unique<btStaticPlaneShape>(btVector3(0, 0, 1), 0));
    btRigidBody::btRigidBodyConstructionInfo info(0.0, nullptr, w->shapes.back().get());
    w->bodies.push_back(std::make_unique<btRigidBody>(info));
    world.addRigidBody(w->bodies.back().get());
  }

  // The map, and the state.
  w->map = std::make_unique<RigidBodyMap>(model, &world, std::move(bodies), std::move(X_LB),
                                          std::move(constraints), std::move(parent_is_a));
  BridgeData bdata(model);
  writeState(model, *w->map, bdata, q0, v0);
  return w;
}

GCBRIDGE_BULLET_NAMESPACE_END
