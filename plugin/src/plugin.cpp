#include "gcbridge/plugin/plugin.hpp"

#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "backend.hpp"
#include "gcbridge/controllers/floating_base_controller.hpp"
#include "gcbridge/dynamics/detail/finite.hpp"
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

/// What a controlled body's sleeping was before the first plugin of its world kept it awake.
struct HeldAwake {
  int plugins = 0;  ///< how many plugins of the world control it
  int state = 0;    ///< btRigidBody: its activation state; btMultiBody: its canSleep flag
};

/// One world's dispatcher state: the application's callbacks and the plugins, in attach order.
struct Hub {
  btInternalTickCallback app_pre = nullptr;
  btInternalTickCallback app_post = nullptr;
  /// The plugins in attach order; nullptr marks one detached during a dispatch (the slots keep
  /// their indices until the dispatch ends, so that removal skips nobody).
  std::vector<Plugin*> plugins;
  /// Number of dispatches running (pre-tick or post-tick); while > 0 the vector is not compacted.
  int dispatching = 0;
  std::unordered_map<btRigidBody*, HeldAwake> rigid_bodies;
  std::unordered_map<btMultiBody*, HeldAwake> multibodies;
};

std::mutex& hubMutex() {
  static std::mutex mutex;
  return mutex;
}

std::unordered_map<const btDynamicsWorld*, Hub>& hubs() {
  static std::unordered_map<const btDynamicsWorld*, Hub> map;
  return map;
}

/// Counts the hubs made and dropped (changed under the lock): while it stays the same, no hub
/// has moved or gone, so a hub found earlier is still the world's.
std::atomic<std::uint64_t> hub_generation{0};

/// The hub this thread dispatched to last, with the generation it was found at.
struct LastHub {
  const btDynamicsWorld* world = nullptr;
  Hub* hub = nullptr;
  std::uint64_t generation = 0;
};
thread_local LastHub last_hub;

/// The world's hub, or nullptr: the one this thread used last if no hub was made or dropped
/// since, else looked up under the lock.
Hub* findHub(const btDynamicsWorld* world) {
  if (last_hub.world == world &&
      last_hub.generation == hub_generation.load(std::memory_order_acquire)) {
    return last_hub.hub;
  }
  std::lock_guard<std::mutex> lock(hubMutex());
  const auto it = hubs().find(world);
  if (it == hubs().end()) return nullptr;
  last_hub = {world, &it->second, hub_generation.load(std::memory_order_relaxed)};
  return last_hub.hub;
}

/// Drops the slots of detached plugins, and the hub once it has none left.
void compact(std::unordered_map<const btDynamicsWorld*, Hub>::iterator it) {
  Hub& hub = it->second;
  if (hub.dispatching > 0) return;
  hub.plugins.erase(std::remove(hub.plugins.begin(), hub.plugins.end(), nullptr),
                    hub.plugins.end());
  if (!hub.plugins.empty()) return;
  hubs().erase(it);
  hub_generation.fetch_add(1, std::memory_order_release);
}

/// One dispatch over a world's plugins: fixes the number of slots visited (a plugin attached
/// during the dispatch joins at the next substep) and keeps the hub and its slots' indices until
/// it ends. The hub is found once when the dispatch starts (findHub), not per plugin, and the
/// lock is taken again at the end only to compact it, if a plugin detached during it: stepping a
/// world, its callbacks included, is single-threaded (Bullet's contract), so only that thread
/// touches the hub while it steps; other threads' hubs come and go under the lock, and
/// unordered_map nodes stay where they are when the map changes.
class Dispatch {
 public:
  explicit Dispatch(const btDynamicsWorld* world) : world_(world), hub_(findHub(world)) {
    if (hub_ == nullptr) return;
    ++hub_->dispatching;
    count_ = hub_->plugins.size();
  }
  ~Dispatch() {
    if (hub_ == nullptr) return;
    // Only a plugin detached during a dispatch leaves a slot to drop.
    if (--hub_->dispatching > 0 ||
        std::find(hub_->plugins.begin(), hub_->plugins.end(), nullptr) == hub_->plugins.end()) {
      return;
    }
    std::lock_guard<std::mutex> lock(hubMutex());
    compact(hubs().find(world_));
  }
  Dispatch(const Dispatch&) = delete;
  Dispatch& operator=(const Dispatch&) = delete;
  std::size_t count() const { return count_; }
  /// Slot i: nullptr for a plugin detached during this dispatch (read each time: a callback may
  /// detach another plugin or its own).
  Plugin* plugin(std::size_t i) const { return hub_->plugins[i]; }
  /// The application's pre-tick or post-tick callback, or nullptr.
  btInternalTickCallback appCallback(bool pre) const {
    if (hub_ == nullptr) return nullptr;
    return pre ? hub_->app_pre : hub_->app_post;
  }

 private:
  const btDynamicsWorld* world_;
  Hub* hub_;
  std::size_t count_ = 0;
};

/// Leaves the world as the end of stepSimulation would: forces cleared (gravity, the plugins' and
/// the application's, btMultiBody joint torques included), every plugin's record of applied
/// forces dropped. Never throws.
void abortSubstep(btDynamicsWorld* world) {
  Dispatch dispatch(world);
  for (std::size_t i = 0; i < dispatch.count(); ++i) {
    if (Plugin* plugin = dispatch.plugin(i)) plugin->forgetAppliedForces();
  }
  world->clearForces();
}

void dispatchPreTick(btDynamicsWorld* world, btScalar h) {
  Dispatch dispatch(world);
  try {
    // The application's callback first (it sees its own user pointer), then the plugins.
    if (btInternalTickCallback app = dispatch.appCallback(true)) app(world, h);
    for (std::size_t i = 0; i < dispatch.count(); ++i) {
      if (Plugin* plugin = dispatch.plugin(i)) plugin->preTick(h);
    }
  } catch (...) {
    // An exception (throw_on_error, or a throwing on_error handler) skips the rest of
    // stepSimulation: take out what the plugins applied and clear the forces as its end would.
    abortSubstep(world);
    throw;
  }
}

void dispatchPostTick(btDynamicsWorld* world, btScalar h) {
  Dispatch dispatch(world);
  const btInternalTickCallback app = dispatch.appCallback(false);
  // Every plugin finishes the substep (takes its forces out, advances its clock), even after
  // another one threw from its log or error handler; then the first exception leaves.
  std::exception_ptr first_error;
  for (std::size_t i = 0; i < dispatch.count(); ++i) {
    Plugin* plugin = dispatch.plugin(i);
    if (plugin == nullptr) continue;
    try {
      plugin->postTick(h);
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  if (first_error) {
    abortSubstep(world);
    std::rethrow_exception(first_error);
  }
  if (app != nullptr) app(world, h);
}

/// Keeps the bodies a plugin controls awake (sleeping bodies ignore forces): the first plugin of
/// a world to control a body remembers how it slept and disables its deactivation.
void holdAwake(Hub& hub, const RigidBodyMap* map, btMultiBody* multibody) {
  if (map != nullptr) {
    for (int k = 0; k < map->numLinks(); ++k) {
      btRigidBody* body = map->body(k);
      if (body == nullptr || body->isStaticOrKinematicObject()) continue;
      HeldAwake& held = hub.rigid_bodies[body];
      if (held.plugins++ == 0) {
        held.state = body->getActivationState();
        // DISABLE_SIMULATION is the application's choice to freeze the body: left alone.
        if (held.state != DISABLE_SIMULATION) {
          body->forceActivationState(DISABLE_DEACTIVATION);
          body->setDeactivationTime(0);
        }
      }
    }
  }
  if (multibody != nullptr) {
    HeldAwake& held = hub.multibodies[multibody];
    if (held.plugins++ == 0) {
      held.state = multibody->getCanSleep() ? 1 : 0;
      multibody->setCanSleep(false);
      multibody->wakeUp();
      if (btMultiBodyLinkCollider* collider = multibody->getBaseCollider())
        collider->activate(true);
      for (int i = 0; i < multibody->getNumLinks(); ++i) {
        if (btMultiBodyLinkCollider* collider = multibody->getLink(i).m_collider) {
          collider->activate(true);
        }
      }
    }
  }
}

/// Undoes holdAwake when the last plugin controlling a body leaves: a body that could sleep
/// before can sleep again (awake now, its deactivation clock at zero), one that could not still
/// cannot.
void releaseAwake(Hub& hub, const RigidBodyMap* map, btMultiBody* multibody) {
  if (map != nullptr) {
    for (int k = 0; k < map->numLinks(); ++k) {
      const auto it = hub.rigid_bodies.find(map->body(k));
      if (it == hub.rigid_bodies.end() || --it->second.plugins > 0) continue;
      btRigidBody* body = it->first;
      const int state = it->second.state;
      hub.rigid_bodies.erase(it);
      if (state == DISABLE_SIMULATION) continue;
      // Asleep at attach (ISLAND_SLEEPING, WANTS_DEACTIVATION): it has been moving since, so it
      // gets ACTIVE_TAG and falls asleep again by Bullet's own rule.
      body->forceActivationState(state == DISABLE_DEACTIVATION ? DISABLE_DEACTIVATION : ACTIVE_TAG);
      body->setDeactivationTime(0);
    }
  }
  if (multibody != nullptr) {
    const auto it = hub.multibodies.find(multibody);
    if (it != hub.multibodies.end() && --it->second.plugins == 0) {
      multibody->setCanSleep(it->second.state != 0);
      hub.multibodies.erase(it);
    }
  }
}

/// Adds a plugin to its world's hub, installing the dispatcher on the first one, and keeps its
/// bodies awake.
void registerPlugin(btDynamicsWorld& world, Plugin* plugin, const RigidBodyMap* map,
                    btMultiBody* multibody) {
  std::lock_guard<std::mutex> lock(hubMutex());
  auto [it, first] = hubs().try_emplace(&world);
  if (first) hub_generation.fetch_add(1, std::memory_order_release);
  Hub& hub = it->second;
  const btInternalTickCallback pre = TickCallbacks::pre(world);
  const btInternalTickCallback post = TickCallbacks::post(world);
  if (first || pre != dispatchPreTick || post != dispatchPostTick) {
    // Keep the application's callbacks (a slot it set since the dispatcher took it replaces the
    // saved one; a slot the dispatcher still holds keeps it) and its user pointer; the dispatcher
    // takes both slots.
    if (pre != dispatchPreTick) hub.app_pre = pre;
    if (post != dispatchPostTick) hub.app_post = post;
    void* user = world.getWorldUserInfo();
    world.setInternalTickCallback(dispatchPreTick, user, /*isPreTick=*/true);
    world.setInternalTickCallback(dispatchPostTick, user, /*isPreTick=*/false);
  }
  hub.plugins.push_back(plugin);
  holdAwake(hub, map, multibody);
}

/// Removes a plugin and lets its bodies sleep as before if no other plugin controls them; the
/// last one puts the application's callbacks back (if the dispatcher is still installed).
void unregisterPlugin(btDynamicsWorld& world, Plugin* plugin, const RigidBodyMap* map,
                      btMultiBody* multibody) {
  std::lock_guard<std::mutex> lock(hubMutex());
  const auto it = hubs().find(&world);
  if (it == hubs().end()) return;
  Hub& hub = it->second;
  // During a dispatch the slot is emptied, not erased: the loop's indices stay valid.
  std::replace(hub.plugins.begin(), hub.plugins.end(), plugin, static_cast<Plugin*>(nullptr));
  releaseAwake(hub, map, multibody);
  const bool last = std::all_of(hub.plugins.begin(), hub.plugins.end(),
                                [](const Plugin* p) { return p == nullptr; });
  if (last) {
    void* user = world.getWorldUserInfo();
    if (TickCallbacks::pre(world) == dispatchPreTick) {
      world.setInternalTickCallback(hub.app_pre, user, /*isPreTick=*/true);
    }
    if (TickCallbacks::post(world) == dispatchPostTick) {
      world.setInternalTickCallback(hub.app_post, user, /*isPreTick=*/false);
    }
  }
  compact(it);
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
  if (options.project_every < 0) {
    throw InvalidArgumentError(std::string(function) +
                               ": project_every must be >= 0 substeps (0: never), got " +
                               std::to_string(options.project_every));
  }
  if (options.motor_accelerations && options.actuation != Actuation::JointMotors) {
    throw InvalidArgumentError(std::string(function) +
                               ": motor_accelerations are the joint motors' targets: they need "
                               "actuation JointMotors");
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
               PluginOptions options, std::unique_ptr<plugin_detail::Backend> backend)
    : world_(&world),
      model_(&model),
      backend_(std::move(backend)),
      controller_(std::move(controller)),
      options_(std::move(options)),
      tau_command_(Eigen::VectorXd::Zero(model.nv)),
      tau_unlimited_held_(Eigen::VectorXd::Zero(model.nv)),
      tau_held_(Eigen::VectorXd::Zero(model.nv)),
      qdd_held_(Eigen::VectorXd::Zero(model.nv)) {
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
  } catch (...) {
    // removeAppliedForces reports through on_error, which may throw anything.
    applied_ = false;
  }
  in_substep_ = false;
  backend_->release();
  unregisterPlugin(*world_, this, backend_->map(), backend_->multiBody());
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
  // Nothing acts this substep: joint motors left on from the last one neither.
  backend_->release();
  // Either may throw: the dispatcher then takes out every plugin's forces of this substep and
  // clears the world's forces as the skipped end of stepSimulation would (abortSubstep).
  if (options_.on_error) options_.on_error(message);
  if (options_.throw_on_error) throw Error(message);
}

void Plugin::forgetAppliedForces() {
  if (applied_) {
    backend_->forget();
    backend_->release();
  }
  applied_ = false;
  in_substep_ = false;
}

bool Plugin::control() {
  const Model& model = *model_;
  const double period = options_.control_period;
  if (period > 0.0 && t_ < next_control_t_ - 1e-9 * period) return true;
  controller_(t_, record_.q, record_.v, tau_command_);
  // Detached by its own controller: apply nothing (no post-tick would take it out).
  if (!attached_) return false;
  if (controller_object_ != nullptr) record_.controller_message = controller_object_->message();
  if (tau_command_.size() != model.nv) {
    throw InvalidArgumentError("the controller returned " + std::to_string(tau_command_.size()) +
                               " values, model '" + model.name +
                               "' has nv = " + std::to_string(model.nv));
  }
  if (!gcbridge::detail::allFinite(tau_command_)) {
    throw InvalidArgumentError("the controller returned a NaN or infinite tau");
  }
  if (options_.motor_accelerations) {
    const Eigen::VectorXd& qdd = options_.motor_accelerations();
    if (qdd.size() != model.nv || !gcbridge::detail::allFinite(qdd)) {
      throw InvalidArgumentError(
          "motor_accelerations returned " + std::to_string(qdd.size()) + " values (model '" +
          model.name + "' has nv = " + std::to_string(model.nv) + "), or a NaN or infinite one");
    }
    qdd_held_ = qdd;
  }
  tau_held_ = tau_command_;
  tau_unlimited_held_ = tau_command_;
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
  // A fixed schedule: the k-th run is due at k * period, so a period that is not a whole number
  // of substeps keeps its rate on average (t_ + period would round every period up to whole
  // substeps). Periods that elapsed entirely (substeps longer than the period) are skipped.
  if (period > 0.0) next_control_t_ = (std::floor(t_ / period + 1e-9) + 1.0) * period;
  return true;
}

void Plugin::preTick(double h) {
  const Model& model = *model_;
  record_.t = t_;
  record_.h = h;
  record_.error.clear();
  record_.controller_message.clear();
  record_.controller_ran = false;
  applied_ = false;
  in_substep_ = true;
  if (TickCallbacks::post(*world_) != dispatchPostTick) {
    // Without the post-tick the forces could not be taken out: they would pile up.
    fail("gcbridge plugin (model '" + model.name +
         "'): the world's post-tick callback was replaced (setInternalTickCallback), so the "
         "plugin cannot remove its forces after the substep; nothing applied. Attach again "
         "after installing the application's callbacks");
    return;
  }
  try {
    // Project onto the joints when due; read, control (every substep or at the control period:
    // zero-order hold in between), and apply the forces for this substep (taken out again in
    // postTick).
    if (options_.project_every > 0 && substeps_ % options_.project_every == 0) {
      backend_->project(model);
    }
    backend_->read(model, record_.q, record_.v);
    if (!control()) return;
    backend_->apply(model, tau_held_, tau_unlimited_held_,
                    options_.motor_accelerations ? &qdd_held_ : nullptr, h);
    applied_ = true;
    record_.tau = tau_held_;
    if (options_.diagnostics) backend_->diagnose(model, record_);
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
  if (!applied_) return;
  applied_ = false;
  try {
    backend_->remove(*model_);
  } catch (const std::exception& e) {
    fail("gcbridge plugin (model '" + model_->name + "'): " + e.what());
  }
}

void Plugin::postTick(double h) {
  // Attached during this substep's dispatch: it joins at the next pre-tick.
  if (!in_substep_) return;
  in_substep_ = false;
  removeAppliedForces();
  t_ += h;
  ++substeps_;
  // Last: the log may detach this plugin.
  if (options_.log) options_.log(record_);
}

std::unique_ptr<Plugin> attach(btDynamicsWorld& world, const Model& model, const RigidBodyMap& map,
                               ControlFunction controller, PluginOptions options) {
  checkOptions(model, controller, options, "attach");
  if (map.world() != &world) {
    throw WorldError("attach: the map of model '" + model.name + "' was made for another world");
  }
  map.validate(model, "attach");
  std::unique_ptr<plugin_detail::Backend> backend =
      plugin_detail::makeRigidBodyBackend(model, map, options.actuation, options.torque_limits);
  if (options.project_on_attach) backend->project(model);
  std::unique_ptr<Plugin> plugin(
      new Plugin(world, model, std::move(controller), std::move(options), std::move(backend)));
  registerPlugin(world, plugin.get(), &map, nullptr);
  plugin->attached_ = true;
  return plugin;
}

std::unique_ptr<Plugin> attachMultiBody(btMultiBodyDynamicsWorld& world, const Model& model,
                                        const MultiBodyLayout& layout, btMultiBody& body,
                                        ControlFunction controller, PluginOptions options) {
  checkOptions(model, controller, options, "attachMultiBody");
  bool in_world = false;
  for (int i = 0; i < world.getNumMultibodies(); ++i) in_world |= world.getMultiBody(i) == &body;
  if (!in_world) {
    throw WorldError("attachMultiBody: the btMultiBody of model '" + model.name +
                     "' is not in the given world (btMultiBodyDynamicsWorld::addMultiBody)");
  }
  // getMultiBodyState checks the body and layout against the model.
  Eigen::VectorXd q, v;
  getMultiBodyState(model, layout, body, q, v);
  if (options.diagnostics) {
    throw InvalidArgumentError(
        "attachMultiBody: diagnostics (joint errors) exist only for "
        "rigid-body worlds; a btMultiBody has no joint error");
  }
  if (options.project_on_attach || options.project_every > 0) {
    throw InvalidArgumentError(
        "attachMultiBody: project_on_attach and project_every are for rigid-body worlds; a "
        "btMultiBody always satisfies its joints");
  }
  auto backend = plugin_detail::makeMultiBodyBackend(model, layout, body, world, options.actuation,
                                                     options.torque_limits);
  std::unique_ptr<Plugin> plugin(
      new Plugin(world, model, std::move(controller), std::move(options), std::move(backend)));
  registerPlugin(world, plugin.get(), nullptr, &body);
  plugin->attached_ = true;
  return plugin;
}

ControlFunction asControlFunction(Controller& controller) {
  return [&controller](double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                       Eigen::VectorXd& tau) { tau = controller.compute(t, q, v); };
}

namespace {

/// @throws InvalidArgumentError naming `where` if `controller` was made for a model of other
///   sizes than `model`.
void checkControllerModel(const Model& model, const Controller& controller, const char* where) {
  const Model& own = controller.model();
  if (own.nq != model.nq || own.nv != model.nv || own.numLinks() != model.numLinks()) {
    throw InvalidArgumentError(std::string(where) + ": the controller was made for model '" +
                               own.name + "' (nq " + std::to_string(own.nq) + ", nv " +
                               std::to_string(own.nv) + ", " + std::to_string(own.numLinks()) +
                               " links), not '" + model.name + "' (nq " + std::to_string(model.nq) +
                               ", nv " + std::to_string(model.nv) + ", " +
                               std::to_string(model.numLinks()) + " links)");
  }
}

/// Actuation::JointMotors with no motor_accelerations given: the controller's own target
/// accelerations, if it has them.
void aimMotorsAtAccelerationsOf(const Controller& controller, PluginOptions& options) {
  if (options.actuation != Actuation::JointMotors || options.motor_accelerations) return;
  if (controller.targetAcceleration() == nullptr) return;
  options.motor_accelerations = [&controller]() -> const Eigen::VectorXd& {
    const Eigen::VectorXd* qdd = controller.targetAcceleration();
    if (qdd == nullptr) {
      throw InvalidArgumentError("the controller no longer gives target accelerations");
    }
    return *qdd;
  };
}

}  // namespace

namespace plugin_detail {

void reportMessagesOf(Plugin& plugin, const Controller& controller) {
  plugin.controller_object_ = &controller;
}

}  // namespace plugin_detail

std::unique_ptr<Plugin> attach(btDynamicsWorld& world, const Model& model, const RigidBodyMap& map,
                               Controller& controller, PluginOptions options) {
  checkControllerModel(model, controller, "attach");
  aimMotorsAtAccelerationsOf(controller, options);
  auto plugin = attach(world, model, map, asControlFunction(controller), std::move(options));
  plugin_detail::reportMessagesOf(*plugin, controller);
  return plugin;
}

std::unique_ptr<Plugin> attachMultiBody(btMultiBodyDynamicsWorld& world, const Model& model,
                                        const MultiBodyLayout& layout, btMultiBody& body,
                                        Controller& controller, PluginOptions options) {
  checkControllerModel(model, controller, "attachMultiBody");
  aimMotorsAtAccelerationsOf(controller, options);
  auto plugin = attachMultiBody(world, model, layout, body, asControlFunction(controller),
                                std::move(options));
  plugin_detail::reportMessagesOf(*plugin, controller);
  return plugin;
}

std::unique_ptr<Plugin> attach(btDynamicsWorld& world, const Model& model, const RigidBodyMap& map,
                               ContactAwareController& controller, PluginOptions options) {
  checkControllerModel(model, controller, "attach");
  if (!(options.contact_reading.max_distance >= 0.0)) {
    throw InvalidArgumentError("attach: contact_reading.max_distance = " +
                               std::to_string(options.contact_reading.max_distance) +
                               " must be a number >= 0");
  }
  if (options.contact_frames != nullptr && !options.read_contacts) {
    throw InvalidArgumentError(
        "attach: options.contact_frames are switched by the contacts "
        "read from Bullet: they need options.read_contacts");
  }
  if (options.contact_frames != nullptr &&
      (options.contact_frames->model().numLinks() != model.numLinks() ||
       options.contact_frames->model().nv != model.nv)) {
    throw InvalidArgumentError("attach: options.contact_frames were declared on model '" +
                               options.contact_frames->model().name + "', not on '" + model.name +
                               "'");
  }
  aimMotorsAtAccelerationsOf(controller, options);
  ControlFunction control = asControlFunction(controller);
  if (options.read_contacts) {
    control = [&controller, &model, &map, reading = options.contact_reading,
               frames = options.contact_frames](double t, const Eigen::VectorXd& q,
                                                const Eigen::VectorXd& v, Eigen::VectorXd& tau) {
      controller.setContacts(frames != nullptr ? readContacts(model, map, *frames, reading)
                                               : readContacts(model, map, reading));
      tau = controller.compute(t, q, v);
    };
  }
  auto plugin = attach(world, model, map, std::move(control), std::move(options));
  plugin_detail::reportMessagesOf(*plugin, controller);
  return plugin;
}

std::unique_ptr<Plugin> attachMultiBody(btMultiBodyDynamicsWorld& world, const Model& model,
                                        const MultiBodyLayout& layout, btMultiBody& body,
                                        ContactAwareController& controller, PluginOptions options) {
  if (options.read_contacts || options.contact_frames != nullptr) {
    throw InvalidArgumentError(
        "attachMultiBody: reading contacts from a btMultiBody's manifolds is not supported; give "
        "the controller its contacts (setContacts) and set options.read_contacts = false, "
        "options.contact_frames = nullptr");
  }
  return attachMultiBody(world, model, layout, body, static_cast<Controller&>(controller),
                         std::move(options));
}

TorqueFunction asTorqueFunction(const Model& model, ControlFunction controller) {
  if (!controller) throw InvalidArgumentError("asTorqueFunction: the controller is empty");
  auto buffer = std::make_shared<Eigen::VectorXd>(Eigen::VectorXd::Zero(model.nv));
  const int nv = model.nv;
  return [nv, controller = std::move(controller), buffer](double t, const Eigen::VectorXd& q,
                                                          const Eigen::VectorXd& v,
                                                          Eigen::Ref<Eigen::VectorXd> tau) {
    controller(t, q, v, *buffer);
    if (buffer->size() != nv || !gcbridge::detail::allFinite(*buffer)) {
      throw InvalidArgumentError("asTorqueFunction: the controller returned " +
                                 std::to_string(buffer->size()) +
                                 " values (nv = " + std::to_string(nv) + ") or a NaN");
    }
    tau = *buffer;
  };
}

GCBRIDGE_BULLET_NAMESPACE_END
