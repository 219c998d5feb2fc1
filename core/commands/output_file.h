// --outfile (py-bt, py-tasks; RunCommand): a command's output written to a
// file the user named instead of the debugger's output. LLDB keeps every
// command's output twice in memory (the command's result and the session
// transcript, each grown by doubling): py-tasks --json on 100,000 tasks is
// 45 MB, which costs LLDB more than the walk that made it (bench/README.md).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "core/base/result.h"

namespace pyunwind {

class OutputFile {
 public:
  // Creates or truncates `path`; the error says why it cannot be written.
  static Result<OutputFile> Create(const std::string& path);

  // Appends `text`; a failure is remembered and reported by Close.
  void Write(std::string_view text);
  // Flushes and closes the file: the bytes written, or why writing failed.
  Result<uint64_t> Close();

 private:
  struct Closer {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };
  OutputFile(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}

  std::string path_;
  std::unique_ptr<std::FILE, Closer> file_;
  uint64_t bytes_ = 0;
  int error_ = 0;  // errno of the first failed write
};

}  // namespace pyunwind
