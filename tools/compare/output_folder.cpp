#include "compare/output_folder.hpp"

#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

namespace gcbridge::compare {
namespace fs = std::filesystem;

OutputFolder::OutputFolder(std::string directory) : directory_(std::move(directory)) {
  std::error_code error;
  if (fs::exists(directory_, error) && !fs::is_directory(directory_, error)) {
    throw std::runtime_error("the output folder '" + directory_ + "' is a file");
  }
  if (!fs::exists(directory_, error)) {
    fs::create_directories(directory_, error);
    if (error) {
      throw std::runtime_error("cannot create the output folder '" + directory_ +
                               "': " + error.message());
    }
    made_ = true;
  }
  // A file written and removed: the folder takes this run's files.
  const fs::path probe = fs::path(directory_) / ".gcbridge-compare-probe";
  const bool writable = static_cast<bool>(std::ofstream(probe));
  fs::remove(probe, error);
  if (!writable) {
    if (made_) fs::remove(directory_, error);
    throw std::runtime_error("cannot write in the output folder '" + directory_ + "'");
  }
}

OutputFolder::~OutputFolder() {
  std::error_code error;
  if (made_ && !committed_ && fs::is_empty(directory_, error)) fs::remove(directory_, error);
}

void OutputFolder::commit(const std::vector<std::string>& paths) {
  std::set<std::string> written;
  for (const std::string& p : paths) written.insert(fs::path(p).filename().string());
  // The earlier run's files this run did not write.
  const fs::path list = fs::path(directory_) / kFileList;
  std::error_code error;
  {
    std::ifstream earlier(list);
    for (std::string name; std::getline(earlier, name);) {
      const bool plain_name = !name.empty() && fs::path(name).filename() == name;
      if (plain_name && written.count(name) == 0) fs::remove(fs::path(directory_) / name, error);
    }
  }
  std::ofstream out(list, std::ios::trunc);
  for (const std::string& name : written) out << name << '\n';
  if (!out) throw std::runtime_error("cannot write '" + list.string() + "'");
  committed_ = true;
}

}  // namespace gcbridge::compare
