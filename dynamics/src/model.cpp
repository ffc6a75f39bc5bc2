#include "gcbridge/dynamics/model.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <map>
#include <sstream>

#include "gcbridge/dynamics/errors.hpp"
#include "joints/dispatch.hpp"

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

}  // namespace

int Model::linkIndex(const std::string& link_name) const {
  for (int k = 0; k < numLinks(); ++k) {
    if (link_names[k] == link_name) return k;
  }
  throw InvalidArgumentError("model '" + name + "' has no link named '" + link_name + "'");
}

int Model::jointIndex(const std::string& joint_name) const {
  for (int k = 0; k < numLinks(); ++k) {
    if (joints[k].name == joint_name) return k;
  }
  throw InvalidArgumentError("model '" + name + "' has no joint named '" + joint_name + "'");
}

int Model::frameIndex(const std::string& frame_name) const {
  for (size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].name == frame_name) return static_cast<int>(i);
  }
  throw InvalidArgumentError("model '" + name + "' has no frame named '" + frame_name + "'");
}

double Model::totalMass() const {
  double m = 0.0;
  for (const Inertia& I : inertias) m += I.mass();
  return m;
}

Model buildModel(const RobotDescription& description, const ModelOptions& options) {
  const RobotDescription& d = description;
  const int nlinks_desc = static_cast<int>(d.links.size());
  if (nlinks_desc == 0) fail(d, 0, "robot '" + d.name + "' has no link");
  std::vector<std::string> warnings = d.warnings;

  // Names: unique, and "world" is reserved for the world.
  std::map<std::string, int> link_of_name;
  for (int i = 0; i < nlinks_desc; ++i) {
    const LinkDescription& link = d.links[i];
    if (link.name.empty()) fail(d, link.source_line, "a link has no name");
    if (isWorld(link.name))
      fail(d, link.source_line, "link name 'world' is reserved for the world");
    if (!link_of_name.emplace(link.name, i).second) {
      fail(d, link.source_line, "duplicate link name '" + link.name + "'");
    }
    checkLinkInertia(d, link, warnings);
  }
  std::map<std::string, int> joint_of_name;
  std::vector<int> parent_joint(nlinks_desc, -1);  // description joint attaching each link
  for (int ji = 0; ji < static_cast<int>(d.joints.size()); ++ji) {
    const JointDescription& j = d.joints[ji];
    checkJoint(d, j);
    if (!joint_of_name.emplace(j.name, ji).second) {
      fail(d, j.source_line, "duplicate joint name '" + j.name + "'");
    }
    if (!isWorld(j.parent) && !link_of_name.count(j.parent)) {
      fail(d, j.source_line,
           "joint '" + j.name + "': parent link '" + j.parent + "' does not exist");
    }
    if (isWorld(j.child))
      fail(d, j.source_line, "joint '" + j.name + "': the world cannot be a child");
    const auto child = link_of_name.find(j.child);
    if (child == link_of_name.end()) {
      fail(d, j.source_line, "joint '" + j.name + "': child link '" + j.child + "' does not exist");
    }
    if (parent_joint[child->second] >= 0) {
      fail(d, j.source_line,
           "link '" + j.child + "' has two parents: joints '" +
               d.joints[parent_joint[child->second]].name + "' and '" + j.name + "'");
    }
    if (j.parent == j.child)
      fail(d, j.source_line, "joint '" + j.name + "' attaches link '" + j.child + "' to itself");
    parent_joint[child->second] = ji;
  }

  // Roots: links attached to nothing, and links attached to the world by a joint.
  std::vector<int> free_roots, world_children;
  for (int i = 0; i < nlinks_desc; ++i) {
    if (parent_joint[i] < 0) {
      free_roots.push_back(i);
    } else if (isWorld(d.joints[parent_joint[i]].parent)) {
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
    // Every link has a parent: follow parents from the first link until one repeats.
    std::vector<bool> seen(nlinks_desc, false);
    int i = 0;
    while (!seen[i]) {
      seen[i] = true;
      i = link_of_name[d.joints[parent_joint[i]].parent];
    }
    std::string loop;
    for (int start = i; loop.empty() || i != start;) {
      const JointDescription& j = d.joints[parent_joint[i]];
      loop += " '" + j.child + "' <- joint '" + j.name + "' <-";
      i = link_of_name[j.parent];
    }
    fail(d, d.joints[parent_joint[i]].source_line,
         "no root link: every link is a joint's child; the joints form a loop:" + loop + " '" +
             d.links[i].name + "'");
  }
  std::vector<int> roots = free_roots.empty() ? world_children : free_roots;

  // Children of each description link, in file order.
  std::vector<std::vector<int>> desc_children(nlinks_desc);
  for (int i = 0; i < nlinks_desc; ++i) {
    if (parent_joint[i] >= 0 && !isWorld(d.joints[parent_joint[i]].parent)) {
      desc_children[link_of_name[d.joints[parent_joint[i]].parent]].push_back(i);
    }
  }

  Model model;
  model.name = d.name;
  model.gravity_W = options.gravity_W;
  model.floating_base = options.floating_base;
  model.frames.resize(nlinks_desc);

  // Depth-first from the roots: every parent gets its index before its children (p(k) < k).
  // A link on a fixed joint is merged into its parent's model link when asked to.
  struct Visit {
    int desc_link;
    int model_parent;  // -1: the world
    Transform X_BP;    // the description parent's frame in the model parent link's frame B
  };
  std::vector<Visit> stack;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.push_back({*it, -1, Transform()});
  std::vector<bool> visited(nlinks_desc, false);
  while (!stack.empty()) {
    const Visit visit = stack.back();
    stack.pop_back();
    const LinkDescription& link = d.links[visit.desc_link];
    visited[visit.desc_link] = true;
    const int ji = parent_joint[visit.desc_link];

    Joint joint;
    if (ji < 0) {
      // The free root: welded to the world (a Joint's default type), or free when a floating
      // base is asked for.
      joint.name = "root_joint";
      if (options.floating_base) joint.type = JointType::Free;
    } else {
      const JointDescription& jd = d.joints[ji];
      joint.name = jd.name;
      joint.type = jd.type;
      joint.X_PJ = visit.X_BP * jd.X_PJ;
      joint.axis = jd.axis.norm() > 0.0 ? Vector3(jd.axis.normalized()) : Vector3::UnitZ();
      joint.limits = jd.limits;
      // A floating base frees a root welded to the world (a joint with no dof).
      if (options.floating_base && visit.model_parent < 0) {
        if (jointNv(jd.type) == 0) {
          joint.type = JointType::Free;
        } else if (jd.type != JointType::Free) {
          fail(d, jd.source_line,
               "floating base requested, but root link '" + link.name +
                   "' is attached to the world by " + toString(jd.type) + " joint '" + jd.name +
                   "'");
        }
      }
    }
    joint.ball = options.ball;

    // A welded link (no dof) becomes part of its parent's model link when asked to.
    const bool merge =
        options.merge_fixed_joints && jointNv(joint.type) == 0 && visit.model_parent >= 0;
    int k;
    Transform X_BL;  // this description link's frame in its model link's frame
    if (merge) {
      k = visit.model_parent;
      X_BL = joint.X_PJ;
      model.inertias[k] = model.inertias[k] + link.inertia().transformedBy(X_BL);
    } else {
      k = model.numLinks();
      joint.nq = jointNq(joint.type, joint.ball);
      joint.nv = jointNv(joint.type);
      joint.idx_q = model.nq;
      joint.idx_v = model.nv;
      model.nq += joint.nq;
      model.nv += joint.nv;
      for (int i = 0; i < joint.nv; ++i) model.dof_link.push_back(k);
      model.link_names.push_back(link.name);
      model.parents.push_back(visit.model_parent);
      model.joints.push_back(joint);
      model.inertias.push_back(link.inertia());
      model.link_description.push_back(visit.desc_link);
      model.children.emplace_back();
      if (visit.model_parent >= 0) model.children[visit.model_parent].push_back(k);
    }
    model.frames[visit.desc_link] = Frame{link.name, k, X_BL};
    const auto& kids = desc_children[visit.desc_link];
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back({*it, k, X_BL});
  }
  for (int i = 0; i < nlinks_desc; ++i) {
    if (!visited[i]) {
      fail(d, d.links[i].source_line,
           "link '" + d.links[i].name + "' is not reachable from the root: its joints form a loop");
    }
  }

  // Expanded parent array over dofs: the previous dof of the same joint, else the last dof of the
  // nearest ancestor that has one.
  model.dof_parent.assign(model.nv, -1);
  for (int k = 0; k < model.numLinks(); ++k) {
    const Joint& j = model.joints[k];
    int above = -1;
    for (int a = model.parents[k]; a >= 0 && above < 0; a = model.parents[a]) {
      if (model.joints[a].nv > 0) above = model.joints[a].idx_v + model.joints[a].nv - 1;
    }
    for (int i = 0; i < j.nv; ++i) model.dof_parent[j.idx_v + i] = i == 0 ? above : j.idx_v + i - 1;
  }

  // Subtree ranges (depth-first numbering makes every subtree contiguous).
  const int n = model.numLinks();
  model.subtree_end.resize(n);
  for (int k = n - 1; k >= 0; --k) {
    model.subtree_end[k] = k + 1;
    for (int c : model.children[k])
      model.subtree_end[k] = std::max(model.subtree_end[k], model.subtree_end[c]);
  }

  // A joint whose subtree has no mass, or no inertia about the joint's axes, makes the mass
  // matrix singular: S^T Ic S, the joint's diagonal block of M, must be positive definite. It is
  // checked with the composite inertias at the neutral configuration.
  std::vector<Inertia> composite(model.inertias);
  double scale = 0.0;
  for (const Inertia& I : model.inertias) scale += I.mass() + I.inertiaAboutCom().trace();
  for (int k = n - 1; k >= 0; --k) {
    const Joint& j = model.joints[k];
    if (j.nv > 0) {
      const Eigen::VectorXd q_neutral = neutralJointConfiguration(j);
      const JointMatrix S = jointMotionSubspace(j, q_neutral.data());
      const JointSquare block = S.transpose() * composite[k].toMatrix() * S;
      const double smallest =
          Eigen::SelfAdjointEigenSolver<JointSquare>(block).eigenvalues().minCoeff();
      if (!(smallest > 1e-14 * scale)) {
        const JointDescription* jd =
            d.findJoint(j.name) >= 0 ? &d.joints[d.findJoint(j.name)] : nullptr;
        const bool massless = composite[k].mass() <= 0.0;
        fail(d, jd ? jd->source_line : d.links[model.link_description[k]].source_line,
             std::string(toString(j.type)) + " joint '" + j.name + "' moves " +
                 (massless ? "only massless links" : "links with no inertia about its axis") +
                 " (link '" + model.link_names[k] +
                 "' and its subtree): the mass matrix would be singular");
      }
    }
    const int p = model.parents[k];
    if (p >= 0) composite[p] = composite[p] + composite[k].transformedBy(model.joints[k].X_PJ);
  }

  for (const Inertia& I : model.inertias) {
    model.inertia_matrices.push_back(I.toMatrix());
    model.inertia_moments.emplace_back(I);
  }

  auto stored = std::make_shared<RobotDescription>(d);
  stored->warnings = std::move(warnings);
  model.description = std::move(stored);
  return model;
}

Data::Data(const Model& model)
    : model_name(model.name),
      num_links(model.numLinks()),
      nv(model.nv),
      X_PB(model.numLinks()),
      X_WB(model.numLinks()),
      p_WBcm(model.numLinks(), Vector3::Zero()),
      V_WB_B(model.numLinks()),
      A_spatial_WB_B(model.numLinks()),
      A_classical_WB_B(model.numLinks()),
      S_B(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      J_W(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      dJ_W(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      zero_v(Eigen::VectorXd::Zero(model.nv)),
      f_B(model.numLinks()),
      fext_B(model.numLinks()),
      tau(Eigen::VectorXd::Zero(model.nv)),
      g(Eigen::VectorXd::Zero(model.nv)),
      h(Eigen::VectorXd::Zero(model.nv)),
      Cv(Eigen::VectorXd::Zero(model.nv)),
      M(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      C(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      Minv(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      LTDL(Eigen::MatrixXd::Zero(model.nv, model.nv)),
      qdd(Eigen::VectorXd::Zero(model.nv)),
      Ic_B(model.numLinks()),
      Ia_B(model.numLinks(), Matrix6::Zero()),
      pa_B(model.numLinks()),
      c_B(model.numLinks()),
      U(Eigen::Matrix<double, 6, Eigen::Dynamic>::Zero(6, model.nv)),
      u(Eigen::VectorXd::Zero(model.nv)),
      tmp_v(Eigen::VectorXd::Zero(model.nv)) {
  for (const Joint& joint : model.joints) {
    Dinv.push_back(JointSquare::Zero(joint.nv, joint.nv));
    // The motion subspaces that do not depend on q are set once here.
    joints::dispatch(joint, [&](auto kernel) {
      using K = decltype(kernel);
      if constexpr (K::nv > 0 && !K::subspace_depends_on_q) {
        K::subspace(joint, nullptr, joints::SubspaceMap<K::nv>(&S_B(0, joint.idx_v)));
      }
    });
  }
}

void checkData(const Model& model, const Data& data, const char* function) {
  if (data.num_links == model.numLinks() && data.nv == model.nv && data.model_name == model.name) {
    return;
  }
  const auto describe = [](const std::string& name, int links, int nv) {
    return "'" + name + "' (" + std::to_string(links) + " links, nv " + std::to_string(nv) + ")";
  };
  throw InvalidArgumentError(std::string(function) + ": the Data was made for model " +
                             describe(data.model_name, data.num_links, data.nv) +
                             ", not for model " + describe(model.name, model.numLinks(), model.nv) +
                             "; make one Data per model");
}

}  // namespace gcbridge
