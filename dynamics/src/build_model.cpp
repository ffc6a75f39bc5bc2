#include <Eigen/Eigenvalues>
#include <cmath>
#include <map>
#include <sstream>

#include "gcbridge/dynamics/errors.hpp"
#include "gcbridge/dynamics/model.hpp"
#include "joints/dispatch.hpp"

// buildModel: a RobotDescription checked and turned into a Model, step by step.

namespace gcbridge {
namespace {

bool isWorld(const std::string& link_name) { return link_name.empty() || link_name == "world"; }

// "source:line: " prefix for messages about an element of the description.
std::string where(const RobotDescription& d, int line) {
  std::ostringstream s;
  s << d.source;
  if (line > 0) s << ":" << line;
  s << ": ";
  return s.str();
}

[[noreturn]] void fail(const RobotDescription& d, int line, const std::string& what) {
  throw ModelError(where(d, line) + what);
}

bool allFinite(const Transform& X) {
  return X.rotation().allFinite() && X.translation().allFinite();
}

// Mass and inertia of one link: finite, mass >= 0, inertia symmetric positive semi-definite.
// Principal moments that break the triangle inequality I1 + I2 >= I3 only give a warning.
void checkLinkInertia(const RobotDescription& d, const LinkDescription& link,
                      std::vector<std::string>& warnings) {
  const std::string what = "link '" + link.name + "': ";
  if (!std::isfinite(link.mass) || !link.p_LoLcm_L.allFinite() || !link.I_Lcm_L.allFinite()) {
    fail(d, link.source_line, what + "mass, centre of mass or inertia is not finite");
  }
  if (link.mass < 0.0) {
    fail(d, link.source_line, what + "negative mass " + std::to_string(link.mass) + " kg");
  }
  const Matrix3& I = link.I_Lcm_L;
  const double scale = std::max(1e-12, I.cwiseAbs().maxCoeff());
  if ((I - I.transpose()).cwiseAbs().maxCoeff() > 1e-9 * scale) {
    fail(d, link.source_line, what + "inertia matrix is not symmetric");
  }
  const Vector3 moments = Eigen::SelfAdjointEigenSolver<Matrix3>(I).eigenvalues();
  if (moments.minCoeff() < -1e-12 * scale) {
    std::ostringstream s;
    s << what << "inertia is not positive semi-definite (principal moments " << moments.transpose()
      << " kg m^2)";
    fail(d, link.source_line, s.str());
  }
  if (moments(0) + moments(1) < moments(2) * (1.0 - 1e-9)) {
    std::ostringstream s;
    s << where(d, link.source_line) << what << "principal moments " << moments.transpose()
      << " break the triangle inequality I1 + I2 >= I3 (no physical body has them); loaded anyway";
    warnings.push_back(s.str());
  }
}

void checkJoint(const RobotDescription& d, const JointDescription& j) {
  const std::string what = "joint '" + j.name + "': ";
  if (j.name.empty()) fail(d, j.source_line, "a joint has no name");
  if (!allFinite(j.X_PJ) || !j.axis.allFinite()) {
    fail(d, j.source_line, what + "origin or axis is not finite");
  }
  if (jointUsesAxis(j.type) && j.axis.norm() < 1e-12) {
    fail(d, j.source_line, what + "axis is zero");
  }
  const JointLimits& l = j.limits;
  if (std::isnan(l.lower) || std::isnan(l.upper) || std::isnan(l.effort) ||
      std::isnan(l.velocity) || !std::isfinite(l.damping) || !std::isfinite(l.friction)) {
    fail(d, j.source_line, what + "a limit, damping or friction value is NaN");
  }
  if (l.lower > l.upper) {
    fail(d, j.source_line,
         what + "lower limit " + std::to_string(l.lower) + " > upper limit " +
             std::to_string(l.upper));
  }
  if (l.effort < 0.0 || l.velocity < 0.0 || l.damping < 0.0 || l.friction < 0.0) {
    fail(d, j.source_line, what + "effort, velocity, damping and friction must not be negative");
  }
}

// A joint's slice of the neutral configuration (identity quaternions).
Eigen::VectorXd neutralJointConfiguration(const Joint& j) {
  Eigen::VectorXd q(j.nq);
  joints::dispatch(j, [&](auto kernel) { decltype(kernel)::neutral(q.data()); });
  return q;
}

/// The description's links by name, and the joint attaching each link.
struct DescriptionIndex {
  std::map<std::string, int> link_of_name;
  std::vector<int> parent_joint;  ///< description joint attaching each link (-1: none)

  /// The description link a joint's parent names (the world is not one).
  int parentOf(const RobotDescription& d, int link) const {
    return link_of_name.at(d.joints[parent_joint[link]].parent);
  }
};

/// Links: named, "world" reserved, unique, with a valid inertia. Joints: valid, unique, between
/// existing links, one per child, none from a link to itself.
DescriptionIndex checkLinksAndJoints(const RobotDescription& d,
                                     std::vector<std::string>& warnings) {
  DescriptionIndex index;
  index.parent_joint.assign(d.links.size(), -1);
  for (int i = 0; i < static_cast<int>(d.links.size()); ++i) {
    const LinkDescription& link = d.links[i];
    if (link.name.empty()) fail(d, link.source_line, "a link has no name");
    if (isWorld(link.name))
      fail(d, link.source_line, "link name 'world' is reserved for the world");
    if (!index.link_of_name.emplace(link.name, i).second) {
      fail(d, link.source_line, "duplicate link name '" + link.name + "'");
    }
    checkLinkInertia(d, link, warnings);
  }
  std::map<std::string, int> joint_of_name;
  for (int ji = 0; ji < static_cast<int>(d.joints.size()); ++ji) {
    const JointDescription& j = d.joints[ji];
    checkJoint(d, j);
    const std::string what = "joint '" + j.name + "': ";
    if (!joint_of_name.emplace(j.name, ji).second) {
      fail(d, j.source_line, "duplicate joint name '" + j.name + "'");
    }
    if (!isWorld(j.parent) && !index.link_of_name.count(j.parent)) {
      fail(d, j.source_line, what + "parent link '" + j.parent + "' does not exist");
    }
    if (isWorld(j.child)) fail(d, j.source_line, what + "the world cannot be a child");
    const auto child = index.link_of_name.find(j.child);
    if (child == index.link_of_name.end()) {
      fail(d, j.source_line, what + "child link '" + j.child + "' does not exist");
    }
    int& parent_joint = index.parent_joint[child->second];
    if (parent_joint >= 0) {
      fail(d, j.source_line,
           "link '" + j.child + "' has two parents: joints '" + d.joints[parent_joint].name +
               "' and '" + j.name + "'");
    }
    if (j.parent == j.child) {
      fail(d, j.source_line, "joint '" + j.name + "' attaches link '" + j.child + "' to itself");
    }
    parent_joint = ji;
  }
  return index;
}

/// The loop of joints every link hangs in when no link is a root, for the message.
std::string describeLoop(const RobotDescription& d, const DescriptionIndex& index, int& at) {
  // Follow parents from the first link until one repeats.
  std::vector<bool> seen(d.links.size(), false);
  int i = 0;
  while (!seen[i]) {
    seen[i] = true;
    i = index.parentOf(d, i);
  }
  std::string loop;
  for (int start = i; loop.empty() || i != start;) {
    const JointDescription& j = d.joints[index.parent_joint[i]];
    loop += " '" + j.child + "' <- joint '" + j.name + "' <-";
    i = index.parentOf(d, i);
  }
  at = i;
  return loop + " '" + d.links[i].name + "'";
}

/// The root links: the one link attached to nothing, or the links attached to the world by a
/// joint. @throws ModelError for several roots or none (a loop).
std::vector<int> findRoots(const RobotDescription& d, const DescriptionIndex& index) {
  std::vector<int> free_roots, world_children;
  for (int i = 0; i < static_cast<int>(d.links.size()); ++i) {
    const int ji = index.parent_joint[i];
    if (ji < 0) {
      free_roots.push_back(i);
    } else if (isWorld(d.joints[ji].parent)) {
      world_children.push_back(i);
    }
  }
  if (free_roots.size() + world_children.size() > 1 && !free_roots.empty()) {
    std::string names;
    for (int i : free_roots) names += " '" + d.links[i].name + "'";
    for (int i : world_children) names += " '" + d.links[i].name + "'";
    fail(d, d.links[free_roots.back()].source_line,
         "the links do not form one tree: several roots:" + names);
  }
  if (free_roots.empty() && world_children.empty()) {
    int at = 0;
    const std::string loop = describeLoop(d, index, at);
    fail(d, d.joints[index.parent_joint[at]].source_line,
         "no root link: every link is a joint's child; the joints form a loop:" + loop);
  }
  return free_roots.empty() ? world_children : free_roots;
}

/// A description link being added to the model: the model link of its description parent
/// (-1: the world), and that parent's frame in the model link's frame B.
struct Visit {
  int desc_link;
  int model_parent;
  Transform X_BP;
};

/// The model joint of a visited link: its description joint in the model parent's frame, or the
/// root joint of a link attached to nothing (welded to the world, a Joint's default type, or free
/// for a floating base); a floating base also frees a root welded to the world.
Joint modelJoint(const RobotDescription& d, const DescriptionIndex& index, const Visit& visit,
                 const ModelOptions& options) {
  Joint joint;
  joint.ball = options.ball;
  const int ji = index.parent_joint[visit.desc_link];
  if (ji < 0) {
    joint.name = "root_joint";
    if (options.floating_base) joint.type = JointType::Free;
    return joint;
  }
  const JointDescription& jd = d.joints[ji];
  joint.name = jd.name;
  joint.type = jd.type;
  joint.X_PJ = visit.X_BP * jd.X_PJ;
  joint.axis = jd.axis.norm() > 0.0 ? Vector3(jd.axis.normalized()) : Vector3::UnitZ();
  joint.limits = jd.limits;
  if (options.floating_base && visit.model_parent < 0) {
    if (jointNv(jd.type) == 0) {
      joint.type = JointType::Free;
    } else if (jd.type != JointType::Free) {
      fail(d, jd.source_line,
           "floating base requested, but root link '" + d.links[visit.desc_link].name +
               "' is attached to the world by " + toString(jd.type) + " joint '" + jd.name + "'");
    }
  }
  return joint;
}

/// Appends a new model link k on `joint`: its slices of q and v, its parent and child lists.
void appendLink(const RobotDescription& d, const Visit& visit, Joint joint, Model& model) {
  const int k = model.numLinks();
  joint.nq = jointNq(joint.type, joint.ball);
  joint.nv = jointNv(joint.type);
  joint.idx_q = model.nq;
  joint.idx_v = model.nv;
  joint.parent_axes = joint.X_PJ.rotation() == Matrix3::Identity();
  model.nq += joint.nq;
  model.nv += joint.nv;
  for (int i = 0; i < joint.nv; ++i) model.dof_link.push_back(k);
  joints::dispatch(joint, [&](auto kernel) {
    constexpr int at = decltype(kernel)::unit_quaternion_at;
    if (at >= 0) model.unit_quaternions.push_back(joint.idx_q + at);
  });
  model.link_names.push_back(d.links[visit.desc_link].name);
  model.parents.push_back(visit.model_parent);
  model.joints.push_back(joint);
  model.inertias.push_back(d.links[visit.desc_link].inertia());
  model.link_description.push_back(visit.desc_link);
  model.children.emplace_back();
  if (visit.model_parent >= 0) model.children[visit.model_parent].push_back(k);
}

/// The model links, depth-first from the roots so that every parent comes before its children
/// (p(k) < k); a link welded to its parent (a joint with no dof) is merged into the parent's model
/// link when asked to. Every description link becomes a frame. @throws ModelError for a link the
/// roots do not reach (a loop below them).
void addLinks(const RobotDescription& d, const DescriptionIndex& index,
              const std::vector<int>& roots, const ModelOptions& options, Model& model) {
  const int nlinks_desc = static_cast<int>(d.links.size());
  std::vector<std::vector<int>> desc_children(nlinks_desc);
  for (int i = 0; i < nlinks_desc; ++i) {
    const int ji = index.parent_joint[i];
    if (ji >= 0 && !isWorld(d.joints[ji].parent)) desc_children[index.parentOf(d, i)].push_back(i);
  }
  model.frames.resize(nlinks_desc);
  std::vector<Visit> stack;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back({*it, -1, Transform()});
  std::vector<bool> visited(nlinks_desc, false);
  while (!stack.empty()) {
    const Visit visit = stack.back();
    stack.pop_back();
    visited[visit.desc_link] = true;
    const Joint joint = modelJoint(d, index, visit, options);
    const bool merge =
        options.merge_fixed_joints && jointNv(joint.type) == 0 && visit.model_parent >= 0;
    int k = visit.model_parent;
    Transform X_BL;  // this description link's frame in its model link's frame
    if (merge) {
      X_BL = joint.X_PJ;
      model.inertias[k] =
          model.inertias[k] + d.links[visit.desc_link].inertia().transformedBy(X_BL);
    } else {
      k = model.numLinks();
      appendLink(d, visit, joint, model);
    }
    model.frames[visit.desc_link] = Frame{d.links[visit.desc_link].name, k, X_BL};
    const auto& kids = desc_children[visit.desc_link];
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back({*it, k, X_BL});
  }
  for (int i = 0; i < nlinks_desc; ++i) {
    if (!visited[i]) {
      fail(d, d.links[i].source_line,
           "link '" + d.links[i].name + "' is not reachable from the root: its joints form a loop");
    }
  }
}

/// The expanded parent array over dofs (the previous dof of the same joint, else the last dof of
/// the nearest ancestor that has one), the dofs' mean depth and the subtree ranges (depth-first
/// numbering makes every subtree contiguous).
void setDofTopology(Model& model) {
  model.dof_parent.assign(model.nv, -1);
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& j = model.joints[k];
    int above = -1;
    for (int a = model.parents[k]; a >= 0 && above < 0; a = model.parents[a]) {
      if (model.joints[a].nv > 0) above = model.joints[a].idx_v + model.joints[a].nv - 1;
    }
    for (int i = 0; i < j.nv; ++i) model.dof_parent[j.idx_v + i] = i == 0 ? above : j.idx_v + i - 1;
  }
  std::vector<int> depth(model.nv, 1);
  long depth_sum = 0;
  for (int i = 0; i < model.nv; ++i) {
    if (model.dof_parent[i] >= 0) depth[i] = depth[model.dof_parent[i]] + 1;
    depth_sum += depth[i];
  }
  model.mean_dof_depth = model.nv > 0 ? static_cast<double>(depth_sum) / model.nv : 0.0;
  const int n = model.numLinks();
  model.subtree_end.resize(n);
  for (int k = n - 1; k >= 0; --k) {
    model.subtree_end[k] = k + 1;
    for (int c : model.children[k]) {
      model.subtree_end[k] = std::max(model.subtree_end[k], model.subtree_end[c]);
    }
  }
}

/// Whether a joint's symmetric block (nv x nv) is positive definite to within round-off: its
/// smallest eigenvalue above 1e-14 of the model's scale (the sum of its masses and inertia
/// traces) and above 1e-13 of its largest, the eigensolver's error being about 1e-16 of that.
bool positiveDefinite(const JointSquare& block, double scale) {
  const auto eigenvalues = Eigen::SelfAdjointEigenSolver<JointSquare>(block).eigenvalues();
  const double smallest = eigenvalues.minCoeff();
  return smallest > 1e-14 * scale && smallest > 1e-13 * eigenvalues.maxCoeff();
}

/// A singular joint block makes the mass matrix singular; checked with the inertias at the
/// neutral configuration, leaves first, for each joint k:
/// - S^T Ic S, the joint's diagonal block of M (Ic: the composite inertia of k's subtree), must be
///   positive definite: the subtree has mass, and inertia about the joint's axes;
/// - D = S^T Ia S, ABA's pivot (Ia: the articulated inertia, the subtree with its own joints free
///   to move), too: M is positive definite exactly when every D is, and a subtree whose joints let
///   some of k's motion through without inertia (a massless floating base over one hinge) has a
///   positive definite S^T Ic S but a singular D.
/// Ia is never larger than Ic, so the first test only gives its cases their own message.
void checkMassMatrix(const RobotDescription& d, const Model& model) {
  std::vector<Inertia> composite(model.inertias);
  std::vector<Matrix6> articulated;
  double scale = 0.0;
  for (const Inertia& I : model.inertias) {
    scale += I.mass() + I.inertiaAboutCom().trace();
    articulated.push_back(I.toMatrix());
  }
  const auto refuse = [&](int k, const std::string& why) {
    const Joint& j = model.joints[k];
    const int ji = d.findJoint(j.name);
    fail(d, ji >= 0 ? d.joints[ji].source_line : d.links[model.link_description[k]].source_line,
         std::string(toString(j.type)) + " joint '" + j.name + "' moves " + why + " (link '" +
             model.link_names[k] + "' and its subtree): the mass matrix would be singular");
  };
  for (int k = model.numLinks() - 1; k >= 0; --k) {
    const Joint& j = model.joints[k];
    const Eigen::VectorXd q_neutral = neutralJointConfiguration(j);
    Matrix6 Ia_passed = articulated[k];
    if (j.nv > 0) {
      const JointMatrix S = jointMotionSubspace(j, q_neutral.data());
      if (!positiveDefinite(S.transpose() * composite[k].toMatrix() * S, scale)) {
        refuse(k, composite[k].mass() <= 0.0 ? "only massless links"
                                             : "links with no inertia about its axis");
      }
      const JointMatrix U = articulated[k] * S;
      const JointSquare D = S.transpose() * U;
      if (!positiveDefinite(D, scale)) {
        refuse(k, "links whose own joints let some of its motion through without inertia");
      }
      Ia_passed -= U * D.inverse() * U.transpose();
    }
    const int p = model.parents[k];
    if (p < 0) continue;
    const Transform X_PC = j.X_PJ * jointTransform(j, q_neutral.data());
    composite[p] = composite[p] + composite[k].transformedBy(X_PC);
    const Matrix6 X_CP = X_PC.inverse().toMatrix();
    articulated[p] += X_CP.transpose() * Ia_passed * X_CP;
  }
}

}  // namespace

Model buildModel(const RobotDescription& description, const ModelOptions& options) {
  if (options.scale != 1.0) {
    ModelOptions unscaled = options;
    unscaled.scale = 1.0;
    return buildModel(scaleDescription(description, options.scale), unscaled);
  }
  const RobotDescription& d = description;
  if (d.links.empty()) fail(d, 0, "robot '" + d.name + "' has no link");
  std::vector<std::string> warnings = d.warnings;
  const DescriptionIndex index = checkLinksAndJoints(d, warnings);
  const std::vector<int> roots = findRoots(d, index);
  Model model;
  model.name = d.name;
  model.gravity_W = options.gravity_W;
  model.floating_base = options.floating_base;
  addLinks(d, index, roots, options, model);
  setDofTopology(model);
  checkMassMatrix(d, model);
  for (const Inertia& I : model.inertias) {
    model.inertia_matrices.push_back(I.toMatrix());
    model.inertia_moments.emplace_back(I);
  }
  auto stored = std::make_shared<RobotDescription>(d);
  stored->warnings = std::move(warnings);
  model.description = std::move(stored);
  return model;
}

}  // namespace gcbridge
