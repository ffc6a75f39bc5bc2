#pragma once
/// @file
/// The folder `gcbridge compare --out` writes to: made and checked before the run, so that a
/// folder that cannot be written is found before minutes of simulation; and left holding only
/// this run's files, so that a report never sits beside the CSV files of an earlier run.

#include <string>
#include <vector>

namespace gcbridge::compare {

/// The output folder of one run. Files of an earlier compare run are recognized by the list it
/// left in the folder (kFileList); other files are never touched.
class OutputFolder {
 public:
  /// The list of the files a run wrote, one name per line, kept in the folder.
  static constexpr const char* kFileList = ".gcbridge-compare-files";

  /// Makes `directory` (and its parents) if missing and checks that a file can be written
  /// there. @throws std::runtime_error naming the folder: one that is a file, cannot be made or
  ///   cannot be written.
  explicit OutputFolder(std::string directory);
  /// Removes the folder again if this object made it and the run wrote nothing (commit was not
  /// called): a failed run leaves no empty folder behind.
  ~OutputFolder();
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

  const std::string& path() const { return directory_; }

  /// After the run wrote `paths` (inside the folder): removes the files an earlier run listed
  /// that this run did not write, and lists this run's.
  /// @throws std::runtime_error when the list cannot be written.
  void commit(const std::vector<std::string>& paths);

 private:
  std::string directory_;
  bool made_ = false;
  bool committed_ = false;
};

}  // namespace gcbridge::compare
