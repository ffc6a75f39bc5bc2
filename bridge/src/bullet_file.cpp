#include "gcbridge/bridge/bullet_file.hpp"

#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <LinearMath/btSerializer.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "file_importer.hpp"
#include "gcbridge/bridge/rigid_body_map.hpp"
#include "gcbridge/dynamics/errors.hpp"

// Set in sanitized builds: a fuzzer's death callback, which the child must not run.
extern "C" void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));

GCBRIDGE_BULLET_NAMESPACE_BEGIN
namespace {

/// The header: "BULLET", the precision ('d' double, 'f' float), the pointer size ('-' 8 bytes,
/// '_' 4), the byte order ('v' little-endian, 'V' big), three version digits.
constexpr std::size_t kHeaderSize = 12;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw WorldError("'" + path + "': " + what);
}

/// The whole file. @throws WorldError when it cannot be read.
std::vector<char> readAll(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) fail(path, "cannot read the file");
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) fail(path, "cannot read the file");
  return bytes;
}

/// A little-endian 32-bit integer at `p`.
std::int32_t int32At(const char* p) {
  std::uint32_t x = 0;
  for (int i = 3; i >= 0; --i) x = (x << 8) | static_cast<unsigned char>(p[i]);
  return static_cast<std::int32_t>(x);
}

/// Checks the header and walks the chunks (code, length, old pointer, DNA index, count, then
/// `length` bytes) to the end of the file or an end chunk; the DNA chunk, which
/// btDefaultSerializer writes last, must be there. @throws WorldError naming what is wrong.
void checkStructure(const std::string& path, const std::vector<char>& bytes) {
  if (bytes.size() < kHeaderSize || std::memcmp(bytes.data(), "BULLET", 6) != 0) {
    fail(path, "not a .bullet file (it does not start with BULLET)");
  }
  const char precision = bytes[6], pointer = bytes[7], order = bytes[8];
  if ((precision != 'd' && precision != 'f') || (pointer != '-' && pointer != '_') ||
      (order != 'v' && order != 'V')) {
    fail(path, "not a .bullet file (its header '" + std::string(bytes.data(), kHeaderSize) +
                   "' is not BULLET, d or f, - or _, v or V, a version)");
  }
  if (order == 'V') fail(path, "a big-endian .bullet file; only little-endian files are read");
  const std::size_t chunk_header = pointer == '-' ? 24 : 20;
  bool dna = false;
  for (std::size_t at = kHeaderSize;;) {
    // The file ends after its last chunk (btDefaultSerializer writes no end chunk) or at ENDB.
    if (at == bytes.size()) break;
    if (at + chunk_header > bytes.size()) {
      fail(path,
           "truncated: it ends at byte " + std::to_string(bytes.size()) + " inside a chunk header");
    }
    const char* chunk = bytes.data() + at;
    if (std::memcmp(chunk, "ENDB", 4) == 0) break;
    const std::int32_t length = int32At(chunk + 4);
    if (length < 0 || at + chunk_header + static_cast<std::size_t>(length) > bytes.size()) {
      fail(path, "truncated or corrupt: the chunk at byte " + std::to_string(at) + " claims " +
                     std::to_string(length) + " bytes, past the end of the file");
    }
    dna = dna || std::memcmp(chunk, "DNA1", 4) == 0;
    at += chunk_header + static_cast<std::size_t>(length);
  }
  if (!dna) {
    fail(path,
         "truncated or corrupt: it has no DNA chunk (the description of its structures, "
         "written last)");
  }
}

/// Registers the names of `world`'s multibodies (base, links, joints) with the serializer, which
/// writes a name only for a pointer registered with it.
void registerMultiBodyNames(btDynamicsWorld& world, btDefaultSerializer& serializer) {
  auto* multibody_world = dynamic_cast<btMultiBodyDynamicsWorld*>(&world);
  if (multibody_world == nullptr) return;
  const auto name = [&serializer](const char* text) {
    if (text != nullptr) serializer.registerNameForPointer(text, text);
  };
  for (int i = 0; i < multibody_world->getNumMultibodies(); ++i) {
    const btMultiBody& body = *multibody_world->getMultiBody(i);
    name(body.getBaseName());
    for (int j = 0; j < body.getNumLinks(); ++j) {
      name(body.getLink(j).m_linkName);
      name(body.getLink(j).m_jointName);
    }
  }
}

/// Seconds the child may take before the file counts as one that hangs Bullet's reader (a damaged
/// count makes it loop for minutes): 3 s, and 1 s more per 10 MB.
unsigned childSeconds(std::size_t file_size) {
  return 3 + static_cast<unsigned>(file_size / 10000000);
}

/// Writes `size` bytes to `out`. @return false when the pipe failed.
bool writeAll(int out, const char* data, std::size_t size) {
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = write(out, data + done, size - done);
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// The child's side: imports `bytes`, writes the world it got, serialized again by Bullet with its
/// bodies' names, to `out`, and exits: 0 done, 3 the importer rejected the file, 5 it refused a
/// multibody (the reason written to `out`). Never returns.
[[noreturn]] void importInChild(std::vector<char>& bytes, int out) {
  // No output, default signal handling, a time limit.
  const int null = open("/dev/null", O_WRONLY);
  if (null >= 0) {
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
  }
  for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM}) {
    std::signal(signal, SIG_DFL);
  }
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(nullptr);
  alarm(childSeconds(bytes.size()));
  btDefaultCollisionConfiguration configuration;
  btCollisionDispatcher dispatcher(&configuration);
  btDbvtBroadphase broadphase;
  btMultiBodyConstraintSolver solver;
  btMultiBodyDynamicsWorld world(&dispatcher, &broadphase, &solver, &configuration);
  detail::KeepingImporter importer(&world);
  if (!importer.loadFileFromMemory(bytes.data(), static_cast<int>(bytes.size()))) {
    if (importer.refusal().empty()) _exit(3);
    writeAll(out, importer.refusal().data(), importer.refusal().size());
    _exit(5);
  }
  btDefaultSerializer serializer;
  for (int i = 0; i < importer.getNumRigidBodies(); ++i) {
    btCollisionObject* body = importer.getRigidBodyByIndex(i);
    if (const char* name = importer.getNameForPointer(body)) {
      serializer.registerNameForPointer(body, name);
    }
  }
  registerMultiBodyNames(world, serializer);
  world.serialize(&serializer);
  const char* data = reinterpret_cast<const char*>(serializer.getBufferPointer());
  _exit(writeAll(out, data, serializer.getCurrentBufferSize()) ? 0 : 4);
}

/// Bullet's reader (bParse) trusts the file's description of its own structures: a damaged one
/// makes it read wild memory (found by fuzzing: one changed byte of the DNA chunk crashes it, and
/// whether it does depends on what memory holds). So the file is read in a child process, which
/// hands back the world Bullet's own serializer writes of what it read; only that well-formed
/// file is read here. @return its bytes.
/// @throws WorldError naming the file when the child crashed, hung or the importer rejected it.
std::vector<char> readInChild(const std::string& path, std::vector<char> bytes) {
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) fail(path, "cannot read the file: pipe failed");
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) fail(path, "cannot read the file: fork failed");
  if (child == 0) {
    close(pipe_ends[0]);
    importInChild(bytes, pipe_ends[1]);
  }
  close(pipe_ends[1]);
  std::vector<char> canonical;
  char buffer[65536];
  for (ssize_t n; (n = read(pipe_ends[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    canonical.insert(canonical.end(), buffer, buffer + n);
  }
  close(pipe_ends[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    // Written by Bullet's serializer, so well-formed, unless the pipe lost some of it.
    checkStructure(path, canonical);
    return canonical;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
    fail(path, "Bullet's importer rejected the file");
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 5) {
    fail(path, std::string(canonical.begin(), canonical.end()));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 4) {
    fail(path, "cannot read the file: the process reading it could not hand it back");
  }
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
    fail(path, "corrupt: Bullet's reader did not finish it in " +
                   std::to_string(childSeconds(bytes.size())) + " s");
  }
  fail(path, "corrupt: Bullet's reader fails on it (its structure description is damaged)");
}

}  // namespace

BulletFile::BulletFile(std::string path)
    : path_(std::move(path)),
      configuration_(std::make_unique<btDefaultCollisionConfiguration>()),
      dispatcher_(std::make_unique<btCollisionDispatcher>(configuration_.get())),
      broadphase_(std::make_unique<btDbvtBroadphase>()),
      solver_(std::make_unique<btMultiBodyConstraintSolver>()),
      world_(std::make_unique<btMultiBodyDynamicsWorld>(dispatcher_.get(), broadphase_.get(),
                                                        solver_.get(), configuration_.get())),
      importer_(std::make_unique<detail::KeepingImporter>(world_.get())) {}

BulletFile::~BulletFile() {
  // The importer deletes the rigid bodies, constraints and shapes it made, but not the
  // multibodies and their colliders: those go first, while their shapes still exist.
  for (btMultiBody* body : importer_->multiBodies()) {
    for (int j = -1; j < body->getNumLinks(); ++j) {
      btMultiBodyLinkCollider* collider =
          j < 0 ? body->getBaseCollider() : body->getLink(j).m_collider;
      if (collider == nullptr) continue;
      world_->removeCollisionObject(collider);
      delete collider;
    }
    world_->removeMultiBody(body);
    delete body;
  }
  importer_->deleteAllData();
}

btMultiBody& BulletFile::multiBody(int index) const {
  if (index < 0 || index >= numMultiBodies()) {
    fail(path_, "has no multibody " + std::to_string(index) + " (it holds " +
                    std::to_string(numMultiBodies()) + ", numbered from 0)");
  }
  return *importer_->multiBodies()[index];
}

btMultiBody& BulletFile::multiBody(const std::string& base_name) const {
  std::string known;
  for (btMultiBody* body : importer_->multiBodies()) {
    const char* name = body->getBaseName();
    if (name != nullptr && base_name == name) return *body;
    known += (known.empty() ? "" : ", ") + (name != nullptr ? std::string(name) : "(unnamed)");
  }
  fail(path_, "no multibody's base is named '" + base_name +
                  "' (its multibodies' bases: " + (known.empty() ? std::string("none") : known) +
                  ")");
}

int BulletFile::numMultiBodies() const {
  return static_cast<int>(importer_->multiBodies().size());
}

btRigidBody* BulletFile::body(const std::string& name) const {
  for (const auto& [body, body_name] : names_) {
    if (body_name == name) return const_cast<btRigidBody*>(body);
  }
  std::string known;
  for (const auto& entry : names_) known += (known.empty() ? "" : ", ") + entry.second;
  fail(path_, "no rigid body is named '" + name +
                  "' (the named ones: " + (known.empty() ? std::string("none") : known) + ")");
}

std::unique_ptr<BulletFile> loadBulletFile(const std::string& path) {
  std::vector<char> raw = readAll(path);
  checkStructure(path, raw);
  std::vector<char> bytes = readInChild(path, std::move(raw));
  std::unique_ptr<BulletFile> file(new BulletFile(path));
  if (!file->importer_->loadFileFromMemory(bytes.data(), static_cast<int>(bytes.size()))) {
    fail(path, "Bullet's importer rejected the file");
  }
  const int bodies = file->importer_->getNumRigidBodies();
  if (bodies == 0 && file->numMultiBodies() == 0) fail(path, "holds no rigid body or multibody");
  for (int i = 0; i < bodies; ++i) {
    auto* body = btRigidBody::upcast(file->importer_->getRigidBodyByIndex(i));
    const char* name = body != nullptr ? file->importer_->getNameForPointer(body) : nullptr;
    if (name != nullptr) file->names_.emplace_back(body, name);
  }
  return file;
}

void saveBulletFile(btDynamicsWorld& world, const std::string& path,
                    const std::vector<std::pair<const btRigidBody*, std::string>>& names) {
  btDefaultSerializer serializer;
  for (const auto& [body, name] : names) serializer.registerNameForPointer(body, name.c_str());
  registerMultiBodyNames(world, serializer);
  world.serialize(&serializer);
  // Written beside the target and renamed: never a half-written file at `path`.
  const std::string partial = path + ".partial";
  {
    std::ofstream file(partial, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(serializer.getBufferPointer()),
               serializer.getCurrentBufferSize());
    if (!file) {
      std::remove(partial.c_str());
      fail(path, "cannot write the file");
    }
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    std::remove(partial.c_str());
    fail(path, "cannot write the file");
  }
}

GCBRIDGE_BULLET_NAMESPACE_END
