// The articulated model: tree numbering, index ranges, merging of fixed joints, and bad input.

#include "gcbridge/dynamics/model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gcbridge/dynamics/aba.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/dynamics/crba.hpp"
#include "gcbridge/dynamics/derivatives.hpp"
#include "gcbridge/dynamics/energy.hpp"
#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/jacobians.hpp"
#include "gcbridge/dynamics/kinematics.hpp"
#include "gcbridge/dynamics/model_builder.hpp"
#include "gcbridge/dynamics/rnea.hpp"
#include "gcbridge/dynamics/task_space.hpp"
#include "gcbridge/dynamics/urdf.hpp"
#include "test_helpers.hpp"

namespace gcbridge {
namespace {

using test::matricesNear;

const Matrix3 kI = Matrix3::Identity() * 0.01;

TEST(Model, ParentsComeFirstAndIndexRangesAreContiguous) {
  for (BallParametrization ball : {BallParametrization::Quaternion, BallParametrization::ExpMap}) {
    const Model model = test::randomTreeModel(7, 13, ball, true);
    int nq = 0, nv = 0;
    for (int k = 0; k < model.numLinks(); ++k) {
      EXPECT_LT(model.parents[k], k);
      const Joint& j = model.joints[k];
      EXPECT_EQ(j.idx_q, nq);
      EXPECT_EQ(j.idx_v, nv);
      nq += j.nq;
      nv += j.nv;
      for (int i = j.idx_v; i < j.idx_v + j.nv; ++i) EXPECT_EQ(model.dof_link[i], k);
      // Subtree ranges: every link in [k, subtree_end) descends from k.
      for (int i = k + 1; i < model.subtree_end[k]; ++i) {
        int a = i;
        while (a > k) a = model.parents[a];
        EXPECT_EQ(a, k);
      }
    }
    EXPECT_EQ(model.nq, nq);
    EXPECT_EQ(model.nv, nv);
    EXPECT_EQ(model.joints[0].type, JointType::Free);
    // 13 links: root free (nv 6); joints 1..12 cycle revolute, ball, prismatic, fixed.
    EXPECT_EQ(model.nv, 6 + 3 * (1 + 3 + 1) + 0);
    EXPECT_EQ(model.nq, 7 + 3 * (1 + (ball == BallParametrization::Quaternion ? 4 : 3) + 1));
  }
}

// The mean dof depth (which chooses crba's form): (n + 1) / 2 on a chain of n 1-dof joints; on the
// floating DeepMimic humanoid 310 / 34 (its free root's dofs are 1 to 6 deep, its chest ball's 7 to
// 9, and so on down the limbs).
TEST(Model, MeanDofDepthCountsEveryDofsAncestors) {
  ModelBuilder b("chain");
  for (int i = 0; i < 16; ++i) {
    b.addLink("l" + std::to_string(i), 1.0, Vector3(0.0, 0.0, 0.1), kI);
    if (i > 0) {
      b.addRevolute("j" + std::to_string(i), "l" + std::to_string(i - 1), "l" + std::to_string(i),
                    Transform(Matrix3::Identity(), Vector3(0.0, 0.0, 0.2)), Vector3::UnitX());
    }
  }
  EXPECT_DOUBLE_EQ(b.build().mean_dof_depth, 16.0 / 2.0);
  ModelOptions floating;
  floating.floating_base = true;
  const Model humanoid = loadUrdf(test::modelPath("humanoid_deepmimic/humanoid.urdf"), floating);
  EXPECT_DOUBLE_EQ(humanoid.mean_dof_depth, 310.0 / 34.0);
}

TEST(Model, MergingFixedJointsKeepsMassFramesAndKinematics) {
  const Model kept = test::randomTreeModel(11, 12, BallParametrization::Quaternion, false, false);
  const Model merged = test::randomTreeModel(11, 12, BallParametrization::Quaternion, false, true);
  EXPECT_EQ(kept.nv, merged.nv);
  EXPECT_EQ(kept.nq, merged.nq);
  EXPECT_LT(merged.numLinks(), kept.numLinks());
  EXPECT_NEAR(kept.totalMass(), merged.totalMass(), 1e-12);
  ASSERT_EQ(kept.frames.size(), merged.frames.size());
  // The same q moves every description link to the same place in both models.
  Data dk(kept), dm(merged);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Eigen::VectorXd q = randomConfiguration(kept, seed);
    forwardKinematics(kept, dk, q);
    forwardKinematics(merged, dm, q);
    for (size_t f = 0; f < kept.frames.size(); ++f) {
      EXPECT_TRUE(framePose(kept, dk, static_cast<int>(f))
                      .isApprox(framePose(merged, dm, static_cast<int>(f)), 1e-12));
    }
    EXPECT_TRUE(matricesNear(centerOfMass(kept, dk), centerOfMass(merged, dm), 1e-12));
  }
}

TEST(Model, MergedInertiaIsCombinedExactly) {
  // Two point-like links welded 2 m apart along x, hanging from a revolute joint.
  ModelBuilder b("weld");
  b.addLink("base", 0.0, Vector3::Zero(), Matrix3::Zero());
  b.addLink("arm", 1.0, Vector3::Zero(), Matrix3::Zero());
  b.addLink("tip", 3.0, Vector3::Zero(), Matrix3::Zero());
  b.addRevolute("hinge", "base", "arm", Transform::Identity(), Vector3::UnitZ());
  b.addFixed("weld", "arm", "tip",
             Transform(rotationAboutAxis(Vector3::UnitZ(), 0.3), Vector3(2, 0, 0)));
  const Model model = b.build();
  ASSERT_EQ(model.numLinks(), 2);
  const Inertia& I = model.inertias[1];
  EXPECT_DOUBLE_EQ(I.mass(), 4.0);
  EXPECT_TRUE(matricesNear(I.com(), Vector3(1.5, 0, 0), 1e-15));
  // About the COM: 1 kg at 1.5 m and 3 kg at 0.5 m: Iyy = Izz = 2.25 + 0.75 = 3.
  EXPECT_TRUE(
      matricesNear(I.inertiaAboutCom(), Vector3(0, 3, 3).asDiagonal().toDenseMatrix(), 1e-14));
  const Frame& tip = model.frames[model.description->findLink("tip")];
  EXPECT_EQ(tip.link, 1);
  EXPECT_TRUE(tip.X_BF.isApprox(
      Transform(rotationAboutAxis(Vector3::UnitZ(), 0.3), Vector3(2, 0, 0)), 0.0));
}

TEST(Model, FixedAndFloatingBase) {
  ModelBuilder b("pendulum");
  b.addLink("base", 2.0, Vector3::Zero(), kI);
  b.addLink("bob", 1.0, Vector3(0, 0, -1), kI);
  b.addRevolute("hinge", "base", "bob", Transform::Identity(), Vector3::UnitY());
  const Model fixed = b.build();
  EXPECT_FALSE(fixed.floating_base);
  EXPECT_EQ(fixed.joints[0].type, JointType::Fixed);
  EXPECT_EQ(fixed.parents[0], -1);
  EXPECT_EQ(fixed.nq, 1);
  ModelOptions o;
  o.floating_base = true;
  const Model floating = b.build(o);
  EXPECT_EQ(floating.joints[0].type, JointType::Free);
  EXPECT_EQ(floating.nq, 8);
  EXPECT_EQ(floating.nv, 7);
  EXPECT_TRUE(matricesNear(fixed.gravity_W, Vector3(0, 0, -9.81), 0.0));
  EXPECT_EQ(fixed.linkIndex("bob"), 1);
  EXPECT_EQ(fixed.jointIndex("hinge"), 1);
  EXPECT_THROW(fixed.linkIndex("nope"), InvalidArgumentError);
}

TEST(Model, WorldJointsAttachRootsToTheWorld) {
  ModelBuilder b("pendulum");
  b.addLink("bob", 1.0, Vector3(0, 0, -1), kI);
  b.addRevolute("hinge", "world", "bob", Transform::Identity(), Vector3::UnitY());
  const Model m = b.build();
  EXPECT_EQ(m.numLinks(), 1);
  EXPECT_EQ(m.joints[0].type, JointType::Revolute);
  ModelOptions o;
  o.floating_base = true;
  try {
    b.build(o);
    FAIL() << "floating base over a revolute world joint must fail";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("hinge"), std::string::npos) << e.what();
  }
}

// Each malformed description throws a ModelError whose message names the culprit.
struct BadCase {
  const char* label;
  std::function<void(ModelBuilder&)> build;
  std::vector<std::string> expect_in_message;
};

TEST(Model, BadDescriptionsRaiseNamedErrors) {
  auto base = [](ModelBuilder& b) {
    b.addLink("a", 1.0, Vector3::Zero(), kI);
    b.addLink("b", 1.0, Vector3::Zero(), kI);
  };
  const std::vector<BadCase> cases = {
      {"loop",
       [&](ModelBuilder& b) {
         base(b);
         b.addLink("c", 1.0, Vector3::Zero(), kI);
         b.addRevolute("ab", "a", "b", {}, Vector3::UnitZ());
         b.addRevolute("bc", "b", "c", {}, Vector3::UnitZ());
         b.addRevolute("cb", "c", "b", {}, Vector3::UnitZ());
       },
       {"'b'", "two parents"}},
      {"cycle without root",
       [&](ModelBuilder& b) {
         base(b);
         b.addRevolute("ab", "a", "b", {}, Vector3::UnitZ());
         b.addRevolute("ba", "b", "a", {}, Vector3::UnitZ());
       },
       {"loop"}},
      {"unreachable cycle",
       [&](ModelBuilder& b) {
         base(b);
         b.addLink("c", 1.0, Vector3::Zero(), kI);
         b.addLink("d", 1.0, Vector3::Zero(), kI);
         b.addRevolute("ab", "a", "b", {}, Vector3::UnitZ());
         b.addRevolute("cd", "c", "d", {}, Vector3::UnitZ());
         b.addRevolute("dc", "d", "c", {}, Vector3::UnitZ());
       },
       {"loop"}},
      {"missing link",
       [&](ModelBuilder& b) {
         base(b);
         b.addRevolute("ax", "a", "x", {}, Vector3::UnitZ());
       },
       {"'ax'", "'x'", "does not exist"}},
      {"duplicate link",
       [&](ModelBuilder& b) {
         base(b);
         b.addLink("a", 1.0, Vector3::Zero(), kI);
       },
       {"duplicate link name 'a'"}},
      {"duplicate joint",
       [&](ModelBuilder& b) {
         base(b);
         b.addLink("c", 1.0, Vector3::Zero(), kI);
         b.addRevolute("j", "a", "b", {}, Vector3::UnitZ());
         b.addRevolute("j", "a", "c", {}, Vector3::UnitZ());
       },
       {"duplicate joint name 'j'"}},
      {"two roots", [&](ModelBuilder& b) { base(b); }, {"several roots", "'a'", "'b'"}},
      {"negative mass",
       [&](ModelBuilder& b) {
         b.addLink("a", 1.0, Vector3::Zero(), kI);
         b.addLink("b", -2.0, Vector3::Zero(), kI);
         b.addRevolute("ab", "a", "b", {}, Vector3::UnitZ());
       },
       {"link 'b'", "negative mass"}},
      {"inertia not psd",
       [&](ModelBuilder& b) {
         b.addLink("a", 1.0, Vector3::Zero(), kI);
         b.addLink("b", 1.0, Vector3::Zero(), Vector3(1.0, 1.0, -0.5).asDiagonal().toDenseMatrix());
         b.addRevolute("ab", "a", "b", {}, Vector3::UnitZ());
       },
       {"link 'b'", "not positive semi-definite"}},
      {"nan inertia",
       [&](ModelBuilder& b) {
         b.addLink("a", 1.0, Vector3::Zero(), kI);
         b.addLink("b", 1.0, Vector3(NAN, 0, 0), kI);
         b.addRevolute("ab", "a", "b", {}, Vector3::UnitZ());
       },
       {"link 'b'", "not finite"}},
      {"zero axis",
       [&](ModelBuilder& b) {
         base(b);
         b.addRevolute("ab", "a", "b", {}, Vector3::Zero());
       },
       {"joint 'ab'", "axis is zero"}},
      {"limits reversed",
       [&](ModelBuilder& b) {
         base(b);
         JointLimits l;
         l.lower = 1.0;
         l.upper = -1.0;
         b.addRevolute("ab", "a", "b", {}, Vector3::UnitZ(), l);
       },
       {"joint 'ab'", "lower limit"}},
      {"massless moving link",
       [&](ModelBuilder& b) {
         b.addLink("a", 1.0, Vector3::Zero(), kI);
         b.addLink("b", 0.0, Vector3::Zero(), Matrix3::Zero());
         b.addPrismatic("ab", "a", "b", {}, Vector3::UnitZ());
       },
       {"joint 'ab'", "massless", "'b'"}},
      {"no inertia about the axis",
       [&](ModelBuilder& b) {
         // A point mass on the hinge axis: the subtree has mass but no inertia about z.
         b.addLink("a", 1.0, Vector3::Zero(), kI);
         b.addLink("b", 1.0, Vector3(0, 0, 0.5), Matrix3::Zero());
         b.addRevolute("ab", "a", "b", {}, Vector3::UnitZ());
       },
       {"joint 'ab'", "no inertia about its axis"}},
      {"massless ball subtree",
       [&](ModelBuilder& b) {
         b.addLink("a", 1.0, Vector3::Zero(), kI);
         b.addLink("b", 0.0, Vector3::Zero(), Matrix3::Zero());
         b.addBall("ab", "a", "b", {});
       },
       {"ball joint 'ab'", "only massless links"}},
      {"massless floating base over one hinge",
       [&](ModelBuilder& b) {
         // Every joint's composite block is positive definite, but the free joint's rotation
         // about the hinge's axis only turns the massless base: M is singular.
         b.addLink("base", 0.0, Vector3::Zero(), Matrix3::Zero());
         b.addLink("arm", 1.0, Vector3(0.3, 0, 0), kI);
         b.addFree("float", "world", "base");
         b.addRevolute("hinge", "base", "arm", Transform(Matrix3::Identity(), Vector3(0, 0.1, 0)),
                       Vector3(0, 0.6, 0.8));
       },
       {"free joint 'float'", "let some of its motion through", "'base'"}},
      {"massless floating base over one hinge, 100 m out",
       [&](ModelBuilder& b) {
         // D's entries reach m r^2 = 1e4; its zero eigenvalue comes out of the eigensolver
         // above 1e-14 of the model's scale, and only the test relative to D's largest
         // eigenvalue refuses the model.
         b.addLink("base", 0.0, Vector3::Zero(), Matrix3::Zero());
         b.addLink("arm", 1.0, Vector3(-0.33, 0.01, -0.48), kI);
         b.addFree("float", "world", "base");
         const Matrix3 R_PJ =
             Eigen::AngleAxisd(0.26, Vector3(-0.37, 0.67, -0.64).normalized()).toRotationMatrix();
         b.addRevolute("hinge", "base", "arm", Transform(R_PJ, Vector3(39.9, -88.1, 34.9)),
                       Vector3(0.49, -0.97, 0.42));
       },
       {"free joint 'float'", "let some of its motion through"}},
      {"two coaxial hinges through a massless link",
       [&](ModelBuilder& b) {
         // The outer hinge turns b alone; the inner one turns only the massless link.
         base(b);
         b.addLink("m", 0.0, Vector3::Zero(), Matrix3::Zero());
         b.addRevolute("inner", "a", "m", {}, Vector3::UnitZ());
         b.addRevolute("outer", "m", "b", Transform(Matrix3::Identity(), Vector3(0, 0, 0.2)),
                       Vector3::UnitZ());
       },
       {"revolute joint 'inner'", "let some of its motion through", "'m'"}},
      {"reserved world name",
       [&](ModelBuilder& b) { b.addLink("world", 1.0, Vector3::Zero(), kI); },
       {"'world' is reserved"}},
      {"no links", [&](ModelBuilder&) {}, {"no link"}},
  };
  for (const BadCase& c : cases) {
    ModelBuilder b("bad");
    c.build(b);
    try {
      b.build();
      ADD_FAILURE() << c.label << ": no exception";
    } catch (const ModelError& e) {
      for (const std::string& s : c.expect_in_message) {
        EXPECT_NE(std::string(e.what()).find(s), std::string::npos)
            << c.label << ": '" << s << "' not in: " << e.what();
      }
    }
  }
}

TEST(Model, MasslessLinksInsideAChainOrMergedAreFine) {
  // A massless link between two joints, and a massless link welded to a heavy one.
  ModelBuilder b("light");
  b.addLink("base", 0.0, Vector3::Zero(), Matrix3::Zero());
  b.addLink("massless", 0.0, Vector3::Zero(), Matrix3::Zero());
  b.addLink("heavy", 2.0, Vector3(0.3, 0, 0), kI);
  b.addLink("sensor", 0.0, Vector3::Zero(), Matrix3::Zero());
  b.addRevolute("j1", "base", "massless", {}, Vector3::UnitZ());
  b.addRevolute("j2", "massless", "heavy", Transform(Matrix3::Identity(), Vector3(0.2, 0, 0)),
                Vector3::UnitY());
  b.addFixed("weld", "heavy", "sensor", {});
  EXPECT_NO_THROW(b.build());
  ModelOptions keep;
  keep.merge_fixed_joints = false;
  EXPECT_NO_THROW(b.build(keep));
  // A massless floating base carrying two arms on hinges of different axes: each arm lets one
  // of the base's motions through, the other resists it.
  ModelBuilder two("two_arms");
  two.addLink("base", 0.0, Vector3::Zero(), Matrix3::Zero());
  two.addLink("left", 1.0, Vector3(0.3, 0, 0), kI);
  two.addLink("right", 1.0, Vector3(-0.3, 0, 0), kI);
  two.addFree("float", "world", "base");
  two.addRevolute("l", "base", "left", {}, Vector3::UnitZ());
  two.addRevolute("r", "base", "right", {}, Vector3::UnitY());
  EXPECT_NO_THROW(two.build());
}

// The same robot s times as large, of the same materials: with S = diag(s^k) over the dofs (k = 1
// for an angle, 0 for a length) and q_s the same configuration in the large robot's lengths,
// M_s(q_s) = s^3 S M(q) S and g_s(q_s) = s^3 S g(q): a force s^3 (a mass), a torque s^4.
TEST(Model, ScaledRobotHasTheScalingLawsDynamics) {
  ModelOptions floating;
  floating.floating_base = true;
  const std::pair<const char*, ModelOptions> cases[] = {
      {"kuka_iiwa/model.urdf", {}}, {"cartpole/cartpole.urdf", {}},
      {"humanoid_deepmimic/humanoid.urdf", floating}};
  for (const auto& [file, options] : cases) {
    const Model model = loadUrdf(test::modelPath(file), options);
    for (double s : {0.25, 3.0}) {
      ModelOptions scaled_options = options;
      scaled_options.scale = s;
      const Model scaled = loadUrdf(test::modelPath(file), scaled_options);
      EXPECT_NEAR(scaled.totalMass(), s * s * s * model.totalMass(), 1e-12 * model.totalMass());
      // S, and q_s: the lengths of q (prismatic positions, a free joint's translation) times s.
      Eigen::VectorXd S = Eigen::VectorXd::Ones(model.nv);
      Eigen::VectorXd q = randomConfiguration(model, 17), q_s = q;
      for (const Joint& joint : model.joints) {
        if (joint.type == JointType::Prismatic) {
          S(joint.idx_v) = 1.0 / s;
          q_s(joint.idx_q) *= s;
        } else if (joint.type == JointType::Free) {
          S.segment<3>(joint.idx_v + 3).setConstant(1.0 / s);
          q_s.segment<3>(joint.idx_q) *= s;
        }
      }
      S *= s;
      Data data(model), data_s(scaled);
      const Eigen::MatrixXd M = crba(model, data, q);
      const Eigen::MatrixXd M_s = crba(scaled, data_s, q_s);
      EXPECT_TRUE(matricesNear(M_s, s * s * s * S.asDiagonal() * M * S.asDiagonal(), 1e-12))
          << file << " s = " << s;
      const Eigen::VectorXd g = computeGeneralizedGravity(model, data, q);
      const Eigen::VectorXd g_s = computeGeneralizedGravity(scaled, data_s, q_s);
      EXPECT_TRUE(matricesNear(g_s, s * s * s * S.cwiseProduct(g), 1e-12)) << file << " s = " << s;
    }
  }
}

TEST(Model, ScaledDescriptionScalesShapesAndLimits) {
  const RobotDescription d = parseUrdfFile(test::modelPath("cartpole/cartpole.urdf"));
  const RobotDescription big = scaleDescription(d, 2.0);
  for (size_t k = 0; k < d.links.size(); ++k) {
    EXPECT_EQ(big.links[k].mass, 8.0 * d.links[k].mass);
    EXPECT_TRUE(matricesNear(big.links[k].I_Lcm_L, 32.0 * d.links[k].I_Lcm_L, 1e-15));
    for (size_t i = 0; i < d.links[k].collisions.size(); ++i) {
      const GeometryInstance& a = d.links[k].collisions[i];
      const GeometryInstance& b = big.links[k].collisions[i];
      EXPECT_TRUE(matricesNear(b.X_LG.translation(), 2.0 * a.X_LG.translation(), 1e-15));
      EXPECT_TRUE(matricesNear(b.X_LG.rotation(), a.X_LG.rotation(), 0.0));
      EXPECT_TRUE(matricesNear(b.geometry.box_size, 2.0 * a.geometry.box_size, 1e-15));
      EXPECT_EQ(b.geometry.radius, 2.0 * a.geometry.radius);
      EXPECT_EQ(b.geometry.length, 2.0 * a.geometry.length);
    }
  }
  const int slider = d.findJoint("slider_to_cart");
  EXPECT_EQ(big.joints[slider].limits.lower, 2.0 * d.joints[slider].limits.lower);
  EXPECT_EQ(big.joints[slider].limits.upper, 2.0 * d.joints[slider].limits.upper);
  EXPECT_EQ(big.joints[slider].limits.effort, d.joints[slider].limits.effort);
  const int hinge = d.findJoint("cart_to_pole");
  EXPECT_TRUE(matricesNear(big.joints[hinge].X_PJ.translation(),
                           2.0 * d.joints[hinge].X_PJ.translation(), 1e-15));
  for (double bad : {0.0, -1.0, double(NAN), double(INFINITY)}) {
    try {
      scaleDescription(d, bad);
      ADD_FAILURE() << "scale " << bad << " accepted";
    } catch (const InvalidArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("scale"), std::string::npos) << e.what();
    }
    ModelOptions options;
    options.scale = bad;
    EXPECT_THROW(buildModel(d, options), InvalidArgumentError);
  }
}

TEST(Model, TriangleInequalityOnlyWarns) {
  ModelBuilder b("odd");
  b.addLink("a", 1.0, Vector3::Zero(), kI);
  b.addLink("b", 1.0, Vector3::Zero(), Vector3(0.1, 0.1, 0.5).asDiagonal().toDenseMatrix());
  b.addRevolute("ab", "a", "b", {}, Vector3::UnitZ());
  const Model m = b.build();
  ASSERT_EQ(m.description->warnings.size(), 1u);
  EXPECT_NE(m.description->warnings[0].find("link 'b'"), std::string::npos);
  EXPECT_NE(m.description->warnings[0].find("triangle inequality"), std::string::npos);
}

TEST(Model, DataHasTheModelsSizes) {
  const Model model = test::randomTreeModel(3, 9, BallParametrization::EulerXYZ, true);
  const Data data(model);
  EXPECT_EQ(static_cast<int>(data.X_WB.size()), model.numLinks());
  EXPECT_EQ(data.J_W.cols(), model.nv);
  EXPECT_EQ(data.S_B.cols(), model.nv);
}

// Every algorithm taking a Data refuses one made for another model, before touching it: one of
// other sizes (its buffers would be read and written past their ends) and one of the same sizes
// under another name (its q-independent motion subspaces are the other model's).
TEST(Model, EveryAlgorithmRefusesTheDataOfAnotherModel) {
  const Model model = test::randomTreeModel(3, 6, BallParametrization::Quaternion, true);
  const Model renamed = [&] {
    Model copy = model;
    copy.name = "another_tree";
    return copy;
  }();
  const Eigen::VectorXd q = randomConfiguration(model, 4);
  const Eigen::VectorXd v = randomVector(model.nv, 5);
  const std::vector<Force> f_ext(model.numLinks(), Force::Zero());
  const ExternalForces external{f_ext};
  const int link = model.numLinks() - 1;
  const Transform X_BF = Transform::Identity();
  Eigen::MatrixXd J(6, model.nv), Jv(3, model.nv), Jw(3, model.nv);
  Eigen::MatrixXd J_stacked(6 * model.numLinks(), model.nv);
  Eigen::VectorXd x = v;
  using Call = std::function<void(Data&)>;
  const std::vector<std::pair<std::string, Call>> calls = {
      {"rnea", [&](Data& d) { rnea(model, d, q, v, v); }},
      {"rnea", [&](Data& d) { rnea(model, d, q, v, v, external); }},
      {"computeGeneralizedGravity", [&](Data& d) { computeGeneralizedGravity(model, d, q); }},
      {"nonLinearEffects", [&](Data& d) { nonLinearEffects(model, d, q, v); }},
      {"computeCoriolisTimesV", [&](Data& d) { computeCoriolisTimesV(model, d, q, v); }},
      {"computeCoriolisMatrix", [&](Data& d) { computeCoriolisMatrix(model, d, q, v); }},
      {"crba", [&](Data& d) { crba(model, d, q); }},
      {"factorizeMassMatrix", [&](Data& d) { factorizeMassMatrix(model, d); }},
      {"solveMassMatrix", [&](Data& d) { solveMassMatrix(model, d, x); }},
      {"computeMassMatrixInverse", [&](Data& d) { computeMassMatrixInverse(model, d); }},
      {"aba", [&](Data& d) { aba(model, d, q, v, v); }},
      {"aba", [&](Data& d) { aba(model, d, q, v, v, external); }},
      {"rneaDerivatives", [&](Data& d) { rneaDerivatives(model, d, q, v, v); }},
      {"rneaDerivatives", [&](Data& d) { rneaDerivatives(model, d, q, v, v, external); }},
      {"abaDerivatives", [&](Data& d) { abaDerivatives(model, d, q, v, v); }},
      {"abaDerivatives", [&](Data& d) { abaDerivatives(model, d, q, v, v, external); }},
      {"forwardKinematics", [&](Data& d) { forwardKinematics(model, d, q); }},
      {"forwardKinematics", [&](Data& d) { forwardKinematics(model, d, q, v); }},
      {"forwardKinematics", [&](Data& d) { forwardKinematics(model, d, q, v, v); }},
      {"framePose", [&](Data& d) { framePose(model, d, link, X_BF); }},
      {"framePose", [&](Data& d) { framePose(model, d, 0); }},
      {"frameVelocity",
       [&](Data& d) { frameVelocity(model, d, link, X_BF, ReferenceFrame::World); }},
      {"frameClassicalAcceleration",
       [&](Data& d) { frameClassicalAcceleration(model, d, link, X_BF, ReferenceFrame::World); }},
      {"centerOfMass", [&](Data& d) { centerOfMass(model, d); }},
      {"computeJointJacobians", [&](Data& d) { computeJointJacobians(model, d, q); }},
      {"frameJacobian",
       [&](Data& d) { frameJacobian(model, d, link, X_BF, ReferenceFrame::World, J); }},
      {"linkComJacobian", [&](Data& d) { linkComJacobian(model, d, link, Jv, Jw); }},
      {"stackedComJacobian", [&](Data& d) { stackedComJacobian(model, d, J_stacked); }},
      {"frameJacobianDotTimesV",
       [&](Data& d) { frameJacobianDotTimesV(model, d, q, v, link, X_BF, ReferenceFrame::World); }},
      {"computeKineticEnergy", [&](Data& d) { computeKineticEnergy(model, d, q, v); }},
      {"computePotentialEnergy", [&](Data& d) { computePotentialEnergy(model, d, q); }},
      {"computeMechanicalEnergy", [&](Data& d) { computeMechanicalEnergy(model, d, q, v); }},
      {"computeSpatialMomentum", [&](Data& d) { computeSpatialMomentum(model, d, q, v); }},
      {"centerOfMassVelocity", [&](Data& d) { centerOfMassVelocity(model, d, q, v); }},
      {"computeTaskSpaceTerms",
       [&](Data& d) { computeTaskSpaceTerms(model, d, q, v, link, X_BF); }},
      {"computeTaskSpaceTermsPseudoInverse",
       [&](Data& d) { computeTaskSpaceTermsPseudoInverse(model, d, q, v, link, X_BF); }},
  };
  const Model smaller = test::randomTreeModel(3, 4, BallParametrization::Quaternion, true);
  for (const Model* other : {&smaller, &renamed}) {
    for (const auto& [function, call] : calls) {
      Data data(*other);
      data.tau.setConstant(7.0);
      data.X_WB[0] = Transform(Matrix3::Identity(), Vector3(1, 2, 3));
      try {
        call(data);
        ADD_FAILURE() << function << " took the Data of model " << other->name;
      } catch (const InvalidArgumentError& e) {
        const std::string message = e.what();
        EXPECT_EQ(message.rfind(function + ": the Data was made for model '" + other->name, 0), 0)
            << message;
        EXPECT_NE(message.find("not for model '" + model.name + "'"), std::string::npos) << message;
      }
      EXPECT_TRUE((data.tau.array() == 7.0).all()) << function;
      EXPECT_EQ(data.X_WB[0].translation(), Vector3(1, 2, 3)) << function;
    }
  }
  // With the model's own Data, all of them run.
  Data data(model);
  for (const auto& [function, call] : calls) EXPECT_NO_THROW(call(data)) << function;
}

// Two models of the same name and sizes whose trees differ: the chain's ABA derivatives multiply
// by M^-1 and its Data has no solve scratch; the star's solve with it, and refuse the chain's Data
// before touching it.
TEST(Model, RefusesTheDataOfATreeOfAnotherShape) {
  const auto build = [](bool chain) {
    ModelBuilder builder("robot");
    builder.addLink("base", 1.0, Vector3::Zero(), Matrix3::Identity());
    for (int i = 0; i < 16; ++i) {
      const std::string link = "link" + std::to_string(i);
      const std::string parent = chain && i > 0 ? "link" + std::to_string(i - 1) : "base";
      builder.addLink(link, 1.0, Vector3(0.1, 0.0, 0.0), 0.01 * Matrix3::Identity());
      builder.addRevolute("joint" + std::to_string(i), parent, link,
                          Transform(Matrix3::Identity(), Vector3(0.2, 0.0, 0.0)), Vector3::UnitZ());
    }
    return builder.build();
  };
  const Model chain = build(true), star = build(false);
  ASSERT_TRUE(abaDerivativesUseDenseProducts(chain));
  ASSERT_FALSE(abaDerivativesUseDenseProducts(star));
  ASSERT_EQ(chain.numLinks(), star.numLinks());
  ASSERT_EQ(chain.nv, star.nv);
  Data data(chain);
  data.tau.setConstant(7.0);
  const Eigen::VectorXd q = randomConfiguration(star, 1), v = randomVector(star.nv, 2);
  try {
    abaDerivatives(star, data, q, v, v);
    ADD_FAILURE() << "abaDerivatives took the chain's Data";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("with another tree's shape"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE((data.tau.array() == 7.0).all());
  Data own(star);
  EXPECT_NO_THROW(abaDerivatives(star, own, q, v, v));
}

}  // namespace
}  // namespace gcbridge
