// Keeps an experiment's expensive setup (buffers, chains) across Google Benchmark's iteration-count
// trials and repetitions, which all rerun the benchmark body with the same arguments. One entry:
// moving to new arguments frees the old setup before building the next.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace gpubench {

template <class T>
class ArgCache {
 public:
  using Key = std::vector<std::int64_t>;

  template <class Make>
  T& get(const Key& key, Make&& make) {
    if (!value_ || key_ != key) {
      value_.reset();  // free first: two large setups may not fit on the device together
      value_ = std::make_unique<T>(make());
      key_ = key;
    }
    return *value_;
  }
  bool holds(const Key& key) const { return value_ && key_ == key; }
  void clear() { value_.reset(); }

 private:
  Key key_;
  std::unique_ptr<T> value_;
};

}  // namespace gpubench
