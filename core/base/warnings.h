// A bounded list of warnings: a target with a million damaged objects must not
// print a million lines, and what is left out is never silent.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pyunwind {

class BoundedWarnings {
 public:
  BoundedWarnings(std::vector<std::string>& out, size_t cap) : out_(out), cap_(cap) {}

  // Keeps `message` while fewer than `cap` were kept; counts it otherwise.
  void Add(std::string message) {
    if (kept_ < cap_) {
      out_.push_back(std::move(message));
      ++kept_;
    } else {
      ++dropped_;
    }
  }

  // Appends one line saying how many were left out, if any; call once, at the end.
  void Finish() {
    if (dropped_ == 0) return;
    out_.push_back(std::to_string(dropped_) + " more warning" + (dropped_ == 1 ? "" : "s") +
                   " like these were not shown...truncated");
    dropped_ = 0;
  }

 private:
  std::vector<std::string>& out_;
  size_t cap_;
  size_t kept_ = 0;
  size_t dropped_ = 0;
};

}  // namespace pyunwind
