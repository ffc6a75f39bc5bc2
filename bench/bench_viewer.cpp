// bench_viewer: what recording a run for the viewer costs per substep, next to Bullet's own
// substep of the same world, measured in the same run (the target: at most 2%).
//
// Models: the KUKA iiwa (fixed base) and the DeepMimic humanoid (floating base), each built by
// buildRigidBodyWorld with its collision shapes and the default options (substep 1/240 s).
// Benchmarks (job/model):
//   substep     one stepSimulation(h, 1, h) of the world; every 25 substeps the timer pauses
//               and the state is written back, so the world stays near where it was built.
//   recording   per substep, what a program recording at 60 frames per second does: ask the
//               recorder whether a frame is due, and on every fourth substep (240 / 60) read the
//               bodies' link poses (readPositions) and store them as one track and the model
//               posed at q (forward kinematics) as another. The recorder starts afresh every
//               6000 substeps (timer paused), so memory stays bounded.
// recording / substep is the share of a substep that recording costs.
//
// Run: bench_viewer [--benchmark_min_time=0.2] [--benchmark_enable_random_interleaving=true]

#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "bench_models.hpp"
#include "gcbridge/bridge/rigid_body_world.hpp"
#include "gcbridge/bridge/state_conversion.hpp"
#include "gcbridge/dynamics/configuration.hpp"
#include "gcbridge/viewer/recorder.hpp"

namespace gcbridge {
namespace {

constexpr double kH = 1.0 / 240.0;

/// A model and its world, built at a random configuration.
struct Subject {
  std::string name;
  Model model;
  Eigen::VectorXd q0;
  std::unique_ptr<RigidBodyWorld> world;
};

Subject makeSubject(const std::string& name, Model model) {
  Subject s{name, std::move(model), {}, nullptr};
  s.q0 = randomConfiguration(s.model, bench::kSeed);
  s.world = buildRigidBodyWorld(s.model, {}, s.q0);
  return s;
}

void substep(benchmark::State& state, Subject& s) {
  BridgeData bdata(s.model);
  const Eigen::VectorXd v0 = Eigen::VectorXd::Zero(s.model.nv);
  int count = 0;
  for (auto _ : state) {
    s.world->world->stepSimulation(kH, 1, kH);
    if (++count % 25 == 0) {
      state.PauseTiming();
      writeState(s.model, *s.world->map, bdata, s.q0, v0);
      state.ResumeTiming();
    }
  }
}

void recording(benchmark::State& state, Subject& s) {
  BridgeData bdata(s.model);
  Eigen::VectorXd q;
  auto recorder = std::make_unique<viewer::Recorder>(s.model, 60.0);
  int bodies = recorder->addTrack("bodies", viewer::TrackStyle::Solid);
  int model_at_q = recorder->addTrack("model", viewer::TrackStyle::Ghost);
  double t = 0.0;
  for (auto _ : state) {
    if (recorder->due(t)) {
      recorder->beginFrame(t);
      readPositions(s.model, *s.world->map, bdata, q);
      recorder->setLinkPoses(bodies, bdata.X_WL);
      recorder->setConfiguration(model_at_q, q);
    }
    t += kH;
    if (recorder->times().size() == 1500) {
      state.PauseTiming();
      recorder = std::make_unique<viewer::Recorder>(s.model, 60.0);
      bodies = recorder->addTrack("bodies", viewer::TrackStyle::Solid);
      model_at_q = recorder->addTrack("model", viewer::TrackStyle::Ghost);
      t = 0.0;
      state.ResumeTiming();
    }
  }
}

}  // namespace
}  // namespace gcbridge

int main(int argc, char** argv) {
  using gcbridge::Subject;
  static Subject subjects[] = {gcbridge::makeSubject("iiwa", gcbridge::bench::iiwaModel()),
                               gcbridge::makeSubject("humanoid", gcbridge::bench::humanoidModel())};
  for (Subject& s : subjects) {
    benchmark::RegisterBenchmark(("substep/" + s.name).c_str(),
                                 [&s](benchmark::State& state) { gcbridge::substep(state, s); });
    benchmark::RegisterBenchmark(("recording/" + s.name).c_str(),
                                 [&s](benchmark::State& state) { gcbridge::recording(state, s); });
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
