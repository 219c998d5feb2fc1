// A Target that gives another Target's answers: the base of the targets that
// change one answer (a symbol, a read, the module list) or that stand for the
// Target of the moment. Pointed at none, every read fails and every list is
// empty, so nothing reads through a Target that is gone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/target/target.h"

namespace pyunwind {

class ForwardingTarget : public Target {
 public:
  explicit ForwardingTarget(Target* inner = nullptr) : inner_(inner) {}

  bool ReadMemory(uint64_t address, void* out, size_t size) override {
    return inner_ != nullptr && inner_->ReadMemory(address, out, size);
  }
  uint64_t PagesPerFetch() const override {
    return inner_ ? inner_->PagesPerFetch() : Target::PagesPerFetch();
  }
  std::optional<uint64_t> FindSymbol(std::string_view name) override {
    return inner_ ? inner_->FindSymbol(name) : std::nullopt;
  }
  std::vector<MemoryRegion> MemoryRegions() override {
    return inner_ ? inner_->MemoryRegions() : std::vector<MemoryRegion>{};
  }
  std::string WhyNoMemoryRegions() override {
    return inner_ ? inner_->WhyNoMemoryRegions() : std::string();
  }
  std::vector<LoadedModule> Modules() override {
    return inner_ ? inner_->Modules() : std::vector<LoadedModule>{};
  }
  std::vector<uint64_t> ThreadIds() override {
    return inner_ ? inner_->ThreadIds() : std::vector<uint64_t>{};
  }
  std::optional<std::string> ThreadName(uint64_t thread_id) override {
    return inner_ ? inner_->ThreadName(thread_id) : std::nullopt;
  }
  std::vector<NativeFrame> NativeFrames(uint64_t thread_id) override {
    return inner_ ? inner_->NativeFrames(thread_id) : std::vector<NativeFrame>{};
  }
  std::optional<uint64_t> StackPointer(uint64_t thread_id) override {
    return inner_ ? inner_->StackPointer(thread_id) : std::nullopt;
  }
  std::optional<uint64_t> LocalProcessId() override {
    return inner_ ? inner_->LocalProcessId() : std::nullopt;
  }
  std::optional<ProcessUser> CoreUser() override {
    return inner_ ? inner_->CoreUser() : std::nullopt;
  }
  bool Interrupted() override { return inner_ != nullptr && inner_->Interrupted(); }

 protected:
  void ForwardTo(Target* inner) { inner_ = inner; }

 private:
  Target* inner_;
};

}  // namespace pyunwind
