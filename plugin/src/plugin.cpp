#include "gcbridge/plugin/plugin.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "gcbridge/bridge/force_conversion.hpp"
#include "gcbridge/dynamics/errors.hpp"

GCBRIDGE_BULLET_NAMESPACE_BEGIN

namespace {

/// Reads the world's tick callbacks, which btDynamicsWorld keeps protected and has no getter for:
/// a pointer to member named through a derived class is the legal way in.
struct TickCallbacks : btDynamicsWorld {
  static btInternalTickCallback pre(const btDynamicsWorld& world) {
    return world.*(&TickCallbacks::m_internalPreTickCallback);
  }
  static btInternalTickCallback post(const btDynamicsWorld& world) {
    return world.*(&TickCallbacks::m_internalTickCallback);
  }
};

/// One world's dispatcher state: the application's callbacks and the plugins, in attach order.
struct Hub {
  btInternalTickCallback app_pre = nullptr;
  btInternalTickCallback app_post = nullptr;
  std::vector<Plugin*> plugins;
};

std::mutex& hubMutex() {
  static std::mutex mutex;
  return mutex;
}

std::unordered_map<const btDynamicsWorld*, Hub>& hubs() {
  static std::unordered_map<const btDynamicsWorld*, Hub> map;
  return map;
}

/// The world's callbacks of one slot, or nullptr if the world has no hub.
btInternalTickCallback appCallback(const btDynamicsWorld* world, bool pre) {
  std::lock_guard<std::mutex> lock(hubMutex());
  const auto it = hubs().find(world);
  if (it == hubs().end()) return nullptr;
  return pre ? it->second.app_pre : it->second.app_post;
}

/// The world's i-th plugin, or nullptr past the end (looked up each time, so that a callback may
/// detach a plugin without invalidating the loop).
Plugin* pluginAt(const btDynamicsWorld* world, std::size_t i) {
  std::lock_guard<std::mutex> lock(hubMutex());
  const auto it = hubs().find(world);
  if (it == hubs().end() || i >= it->second.plugins.size()) return nullptr;
  return it->second.plugins[i];
}

void dispatchPreTick(btDynamicsWorld* world, btScalar h) {
  // The application's callback first (it sees its own user pointer), then the plugins.
  if (btInternalTickCallback app = appCallback(world, true)) app(world, h);
  for (std::size_t i = 0; Plugin* plugin = pluginAt(world, i); ++i) plugin->preTick(h);
}

void dispatchPostTick(btDynamicsWorld* world, btScalar h) {
  const btInternalTickCallback app = appCallback(world, false);
  for (std::size_t i = 0; Plugin* plugin = pluginAt(world, i); ++i) plugin->postTick(h);
  if (app != nullptr) app(world, h);
}

/// Leaves the world as the end of stepSimulation would: forces cleared (gravity, the plugins' and
/// the application's), every plugin's record of applied forces dropped.
void abortSubstep(btDynamicsWorld& world) {
  for (std::size_t i = 0; Plugin* plugin = pluginAt(&world, i); ++i) plugin->forgetAppliedForces();
  world.clearForces();
}

/// Adds a plugin to its world's hub, installing the dispatcher on the first one.
void registerPlugin(btDynamicsWorld& world, Plugin* plugin) {
  std::lock_guard<std::mutex> lock(hubMutex());
  auto [it, first] = hubs().try_emplace(&world);
  Hub& hub = it->second;
  if (first || TickCallbacks::pre(world) != dispatchPreTick ||
      TickCallbacks::post(world) != dispatchPostTick) {
    // Keep the application's callbacks and its user pointer; the dispatcher takes both slots.
    hub.app_pre = TickCallbacks::pre(world);
    hub.app_post = TickCallbacks::post(world);
    if (hub.app_pre == dispatchPreTick) hub.app_pre = nullptr;
    if (hub.app_post == dispatchPostTick) hub.app_post = nullptr;
    void* user = world.getWorldUserInfo();
    world.setInternalTickCallback(dispatchPreTick, user, /*isPreTick=*/true);
    world.setInternalTickCallback(dispatchPostTick, user, /*isPreTick=*/false);
  }
  hub.plugins.push_back(plugin);
}

/// Removes a plugin; the last one puts the application's callbacks back (if the dispatcher is
/// still installed).
void unregisterPlugin(btDynamicsWorld& world, Plugin* plugin) {
  std::lock_guard<std::mutex> lock(hubMutex());
  const auto it = hubs().find(&world);
  if (it == hubs().end()) return;
  Hub& hub = it->second;
  hub.plugins.erase(std::remove(hub.plugins.begin(), hub.plugins.end(), plugin), hub.plugins.end());
  if (!hub.plugins.empty()) return;
  void* user = world.getWorldUserInfo();
  if (TickCallbacks::pre(world) == dispatchPreTick) {
    world.setInternalTickCallback(hub.app_pre, user, /*isPreTick=*/true);
  }
  if (TickCallbacks::post(world) == dispatchPostTick) {
    world.setInternalTickCallback(hub.app_post, user, /*isPreTick=*/false);
  }
  hubs().erase(it);
}

void checkOptions(const Model& model, const ControlFunction& controller,
                  const PluginOptions& options, const char* function) {
  if (!controller) {
    throw InvalidArgumentError(std::string(function) + ": the controller is empty");
  }
  if (!(options.control_period >= 0.0) || !std::isfinite(options.control_period)) {
    throw InvalidArgumentError(std::string(function) +
                               ": control_period must be finite and >= 0 [s]");
  }
  if (options.torque_limits.size() != 0 &&
      (options.torque_limits.size() != model.nv || (options.torque_limits.array() < 0.0).any() ||
       options.torque_limits.hasNaN())) {
    throw InvalidArgumentError(std::string(function) + ": torque_limits must be empty or " +
                               std::to_string(model.nv) + " values >= 0 (model '" + model.name +
                               "'), got " + std::to_string(options.torque_limits.size()));
  }
}

}  // namespace

Eigen::VectorXd effortLimits(const Model& model) {
  Eigen::VectorXd limits =
      Eigen::VectorXd::Constant(model.nv, std::numeric_limits<double>::infinity());
  for (const Joint& joint : model.joints) {
    limits.segment(joint.idx_v, joint.nv).setConstant(joint.limits.effort);
  }
  return limits;
}

Plugin::Plugin(btDynamicsWorld& world, const Model& model, ControlFunction controller,
               PluginOptions options)
    : world_(&world),
      model_(&model),
      controller_(std::move(controller)),
      options_(std::move(options)),
      bdata_(std::make_unique<BridgeData>(model)),
      tau_command_(Eigen::VectorXd::Zero(model.nv)),
      tau_held_(Eigen::VectorXd::Zero(model.nv)),
      base_force_W_(0, 0, 0),
      base_torque_W_(0, 0, 0) {
  record_.q = Eigen::VectorXd::Zero(model.nq);
  record_.v = Eigen::VectorXd::Zero(model.nv);
  record_.tau = Eigen::VectorXd::Zero(model.nv);
}

Plugin::~Plugin() { detach(); }

void Plugin::detach() {
  if (!attached_) return;
  // Detached between its pre-tick and post-tick (from a callback): take this substep's forces out
  // (never throwing: detach runs in the destructor).
  try {
    removeAppliedForces();
  } catch (const std::exception&) {
    applied_ = false;
  }
  unregisterPlugin(*world_, this);
  attached_ = false;
}

bool Plugin::isRunning() const {
  return attached_ && TickCallbacks::pre(*world_) == dispatchPreTick &&
         TickCallbacks::post(*world_) == dispatchPostTick;
}

void Plugin::fail(const std::string& message) {
  ++errors_;
  record_.error = message;
  record_.tau.setZero();
  if (options_.on_error) options_.on_error(message);
  if (options_.throw_on_error) {
    // The exception skips the end of stepSimulation: do its clearForces() (gravity was applied
    // at the start of the call) and forget every plugin's forces of this substep.
    abortSubstep(*world_);
    throw Error(message);
  }
}

void Plugin::forgetAppliedForces() {
  if (applied_ && map_ != nullptr) forgetJointForces(*bdata_);
  applied_ = false;
}

void Plugin::preTick(double h) {
  const Model& model = *model_;
  record_.t = t_;
  record_.h = h;
  record_.error.clear();
  record_.controller_ran = false;
  applied_ = false;
  if (TickCallbacks::post(*world_) != dispatchPostTick) {
    // Without the post-tick the forces could not be taken out: they would pile up.
    fail("gcbridge plugin (model '" + model.name +
         "'): the world's post-tick callback was replaced (setInternalTickCallback), so the "
         "plugin cannot remove its forces after the substep; nothing applied. Attach again "
         "after installing the application's callbacks");
    return;
  }
  try {
    // The state, through the bridge.
    if (map_ != nullptr) {
      readState(model, *map_, *bdata_, record_.q, record_.v);
    } else {
      getMultiBodyState(model, *layout_, *body_, record_.q, record_.v);
    }
    // The controller, every substep or at the control period (zero-order hold in between).
    if (options_.control_period <= 0.0 || t_ >= next_control_t_ - 1e-9 * options_.control_period) {
      controller_(t_, record_.q, record_.v, tau_command_);
      if (tau_command_.size() != model.nv) {
        throw InvalidArgumentError("the controller returned " +
                                   std::to_string(tau_command_.size()) + " values, model '" +
                                   model.name + "' has nv = " + std::to_string(model.nv));
      }
      if (!tau_command_.allFinite()) {
        throw InvalidArgumentError("the controller returned a NaN or infinite tau");
      }
      tau_held_ = tau_command_;
      record_.saturated = 0;
      if (options_.torque_limits.size() != 0) {
        for (int i = 0; i < model.nv; ++i) {
          const double limit = options_.torque_limits(i);
          if (std::abs(tau_held_(i)) > limit) {
            tau_held_(i) = std::copysign(limit, tau_held_(i));
            ++record_.saturated;
          }
        }
      }
      record_.controller_ran = true;
      if (options_.control_period > 0.0) next_control_t_ = t_ + options_.control_period;
    }
    // The forces for this substep (taken out again in postTick).
    if (map_ != nullptr) {
      addJointForces(model, *map_, *bdata_, tau_held_);
    } else {
      setMultiBodyJointTorques(model, *layout_, *body_, tau_held_, &base_force_W_, &base_torque_W_);
    }
    applied_ = true;
    record_.tau = tau_held_;
    if (options_.diagnostics && map_ != nullptr) {
      record_.joint_error = computeJointErrors(model, *map_, *bdata_);
      Eigen::VectorXd& v = bdata_->v_scratch;
      readVelocities(model, *map_, *bdata_, v, VelocityMethod::Sparse, /*residual=*/true);
      record_.velocity_residual = bdata_->velocity_residual.maxCoeff();
    }
  } catch (const std::exception& e) {
    if (applied_) {
      // Only the diagnostics failed: the forces stay for this substep.
      record_.error = e.what();
      return;
    }
    fail("gcbridge plugin (model '" + model.name + "', t = " + std::to_string(t_) +
         " s): " + e.what() + "; nothing applied this substep");
  }
}

void Plugin::removeAppliedForces() {
  if (applied_ && map_ != nullptr) {
    applied_ = false;
    try {
      removeJointForces(*model_, *map_, *bdata_);
    } catch (const std::exception& e) {
      forgetJointForces(*bdata_);
      fail("gcbridge plugin (model '" + model_->name + "'): " + e.what());
    }
  }
  if (applied_) {
    // A btMultiBody: its joint torques are set each substep, so zero them; the free root's wrench
    // was added, so take it out.
    for (int i = 0; i < body_->getNumLinks(); ++i) {
      for (int d = 0; d < body_->getLink(i).m_dofCount; ++d)
        body_->getJointTorqueMultiDof(i)[d] = 0;
    }
    body_->addBaseForce(-base_force_W_);
    body_->addBaseTorque(-base_torque_W_);
    applied_ = false;
  }
}

void Plugin::postTick(double h) {
  removeAppliedForces();
  t_ += h;
  ++substeps_;
  if (options_.log) options_.log(record_);
}

std::unique_ptr<Plugin> attach(btDynamicsWorld& world, const Model& model, const RigidBodyMap& map,
                               ControlFunction controller, PluginOptions options) {
  checkOptions(model, controller, options, "attach");
  if (map.world() != &world) {
    throw WorldError("attach: the map of model '" + model.name + "' was made for another world");
  }
  map.validate(model, "attach");
  std::unique_ptr<Plugin> plugin(
      new Plugin(world, model, std::move(controller), std::move(options)));
  plugin->map_ = &map;
  registerPlugin(world, plugin.get());
  plugin->attached_ = true;
  return plugin;
}

std::unique_ptr<Plugin> attachMultiBody(btMultiBodyDynamicsWorld& world, const Model& model,
                                        const MultiBodyLayout& layout, btMultiBody& body,
                                        ControlFunction controller, PluginOptions options) {
  checkOptions(model, controller, options, "attachMultiBody");
  // getMultiBodyState checks the body and layout against the model.
  Eigen::VectorXd q, v;
  getMultiBodyState(model, layout, body, q, v);
  if (options.diagnostics) {
    throw InvalidArgumentError(
        "attachMultiBody: diagnostics (joint errors) exist only for "
        "rigid-body worlds; a btMultiBody has no joint error");
  }
  std::unique_ptr<Plugin> plugin(
      new Plugin(world, model, std::move(controller), std::move(options)));
  plugin->body_ = &body;
  plugin->layout_ = &layout;
  registerPlugin(world, plugin.get());
  plugin->attached_ = true;
  return plugin;
}

TorqueFunction asTorqueFunction(const Model& model, ControlFunction controller) {
  if (!controller) throw InvalidArgumentError("asTorqueFunction: the controller is empty");
  auto buffer = std::make_shared<Eigen::VectorXd>(Eigen::VectorXd::Zero(model.nv));
  const int nv = model.nv;
  return [nv, controller = std::move(controller), buffer](double t, const Eigen::VectorXd& q,
                                                          const Eigen::VectorXd& v,
                                                          Eigen::Ref<Eigen::VectorXd> tau) {
    controller(t, q, v, *buffer);
    if (buffer->size() != nv || !buffer->allFinite()) {
      throw InvalidArgumentError("asTorqueFunction: the controller returned " +
                                 std::to_string(buffer->size()) +
                                 " values (nv = " + std::to_string(nv) + ") or a NaN");
    }
    tau = *buffer;
  };
}

GCBRIDGE_BULLET_NAMESPACE_END
